# Multi-process cluster tests: a ZooKeeper and troupe nodes as real
# processes on loopback (one case in network namespaces), librdkafka
# clients from python3-confluent-kafka and kcat, ZooKeeper read with
# python3-kazoo. Debian's python3, where those packages live (a python3
# first on PATH may be another). Each case starts and stops its own
# processes within its own budget; TIMEOUT is a little above it. Included
# from CMakeLists.txt.

troupe_require_program(TROUPE_DEBIAN_PYTHON3 python3 python3
                       PATHS /usr/bin NO_DEFAULT_PATH)
troupe_require_python_module(${TROUPE_DEBIAN_PYTHON3} confluent_kafka
                             python3-confluent-kafka)
troupe_require_python_module(${TROUPE_DEBIAN_PYTHON3} kazoo python3-kazoo)
# One ctest entry per "name|timeout|what" case of a cluster test script:
# `python3 SCRIPT troupe NAME`, named "cluster: WHAT", serial, label cluster.
function(troupe_cluster_cases script)
  foreach(_case IN LISTS ARGN)
    string(REPLACE "|" ";" _fields "${_case}")
    list(GET _fields 0 _name)
    list(GET _fields 1 _timeout)
    list(GET _fields 2 _what)
    add_test(NAME "cluster: ${_what}"
             COMMAND ${TROUPE_DEBIAN_PYTHON3} ${script} $<TARGET_FILE:troupe>
                     ${_name})
    set_tests_properties("cluster: ${_what}" PROPERTIES
      TIMEOUT ${_timeout} RUN_SERIAL TRUE LABELS cluster)
  endforeach()
endfunction()

troupe_cluster_cases(${CMAKE_SOURCE_DIR}/tests/cluster/cluster_tests.py
    "leader-kill9|170|no acks=all record is lost when the leader's node is killed with -9, the new leader has leader epoch + 1, the restarted node truncates and rejoins the ISR"
    "paused-node|200|a node paused with SIGSTOP loses its session and leaves every ISR, its writes as a deposed leader are never acknowledged, after SIGCONT it catches up and rejoins"
    "controller-death|170|another node becomes controller when the controller's node dies, later leadership changes work"
    "group-coordinator-kill9|200|consumers whose coordinator's node dies find the new coordinator without a rebalance and resume from committed offsets"
    "zookeeper-unreachable-at-start|110|a node started without ZooKeeper logs it, retries and serves no empty metadata, it registers once ZooKeeper is up"
    "zookeeper-lost|170|nodes that lose ZooKeeper keep serving until their session expires, then step down, they register again when it returns"
    "duplicate-broker-id|110|a second node with a registered broker.id refuses to start"
    "unusable-log-dir|80|a node whose log directory is unusable reports it and does not join"
    "network-partition|200|a leader cut off from the other nodes but not from ZooKeeper is fenced and its leaderships move without an election (its pre-vote finds no majority), its own client's acks=all produce is never acknowledged while the cut lasts, nothing is lost and it converges after healing"
    "large-create-topics|170|a CreateTopics of 8,000 partitions, larger than ZooKeeper's request limit, creates every topic whole under the same controller"
    "zookeeper-stall|170|a controller whose ZooKeeper write fails while ZooKeeper stalls short of the session timeout takes over again, the cluster keeps an active controller"
    "idempotent-producers|140|idempotent producers on every node get producer ids from the controller's block in ZooKeeper and every record once"
    "zookeeper-topic-configs|170|CreateTopics writes each topic's configs to /config/topics in Kafka's JSON, a change written to ZooKeeper as Kafka's AdminZkClient writes it with a /config/changes notification is applied by every node and by a node restarted later, AlterConfigs writes both the same way")

# Broker liveness over the node links (KIP-631 heartbeats, fencing) and
# preferred leaders (auto.leader.rebalance.enable), with ZooKeeper's session
# at Kafka's 18 s so that only fencing can explain what is seen
# (tests/cluster/liveness_test.py; cluster/broker_liveness.cpp,
# cluster/controller_failover.cpp, cluster/leader_balance.cpp).
troupe_cluster_cases(${CMAKE_SOURCE_DIR}/tests/cluster/liveness_test.py
    "kill9-failover|140|kill -9 of a leader's node: the controller fences it when its node link closes and acks=all produce resumes on the new leader long before its ZooKeeper session expires"
    "controller-kill9|170|kill -9 of the controller's node: the brokers depose it when its node link closes, the new controller fences it at once and acks=all produce resumes on the new leader long before its ZooKeeper session expires"
    "sigstop-fenced|170|a SIGSTOPped leader is fenced after broker.session.timeout.ms while registered, acknowledges nothing while stopped, DescribeCluster v2 lists it as fenced only with IncludeFencedBrokers, and after SIGCONT it is unfenced and back in every ISR"
    "preferred-leader-return|170|a restarted node gets its preferred leaderships back within the leader imbalance check, with leader epoch + 1"
    "leader-rebalance-disabled|140|with auto.leader.rebalance.enable=false a restarted node's preferred leaderships stay where they failed over")

# Partition reassignment (KIP-455) with `troupe reassign`
# (tests/cluster/reassignment_test.py; cluster/reassignment.cpp,
# app/tools/reassign_tool.cpp).
troupe_cluster_cases(${CMAKE_SOURCE_DIR}/tests/cluster/reassignment_test.py
    "onto-new-node|200|a topic reassigned onto a fourth node with troupe reassign --balance and --execute while a producer and a consumer group run: --verify reports completion, the removed replicas are deleted, nothing acknowledged is lost and the group does not rebalance"
    "bad-plans|110|troupe reassign refuses an unknown broker with INVALID_REPLICA_ASSIGNMENT, an unknown partition, a malformed plan and two actions, and --generate places a topic over a broker list"
    "throttled-move|220|a reassignment with --throttle copies no faster than the replication quota while acks=all produce goes on, and --verify removes the broker and topic throttles once it completes"
    "zk-znode|140|a plan written to /admin/reassign_partitions (Kafka's pre-KIP-455 znode) is started by the controller, the partition it cannot move is dropped, and the znode is deleted once every move is done")

# The fault-injection checker's short run (tests/cluster/nemesis.py, seeded:
# the same faults every run; README "Fault injection" has a long one). Its
# nodes run in network namespaces (root, as the network-partition case).
add_test(NAME "cluster: a seeded nemesis (kill -9 of nodes, the controller and the coordinator, SIGSTOP, a ZooKeeper restart, a reassignment onto and off a fourth node under kill -9, a fifth node that joins and is decommissioned, an ip netns partition of a leader with its own producer) under idempotent producers, a classic group and a KIP-848 group finds no lost, duplicated or inconsistent record and no partition with two owners"
         COMMAND ${TROUPE_DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/cluster/nemesis.py
                 $<TARGET_FILE:troupe> --seed 23 --seconds 60 --every-kind)
set_tests_properties("cluster: a seeded nemesis (kill -9 of nodes, the controller and the coordinator, SIGSTOP, a ZooKeeper restart, a reassignment onto and off a fourth node under kill -9, a fifth node that joins and is decommissioned, an ip netns partition of a leader with its own producer) under idempotent producers, a classic group and a KIP-848 group finds no lost, duplicated or inconsistent record and no partition with two owners"
  PROPERTIES TIMEOUT 330 RUN_SERIAL TRUE LABELS cluster)

# Per-topic configs across the cluster: CreateTopics' configs in
# /config/topics, IncrementalAlterConfigs applied by every node.
# @platformatic/kafka (tests/kafka/platformatic) sends IncrementalAlterConfigs,
# which librdkafka 2.0.2 lacks.
troupe_require_program(TROUPE_NODE_EXECUTABLE node nodejs)
troupe_cluster_cases(${CMAKE_SOURCE_DIR}/tests/cluster/topic_configs_cluster_test.py
    "incremental-alter-configs|200|IncrementalAlterConfigs of retention.ms and cleanup.policy through a node that is not the controller is stored in /config/topics and applied by every node: the same DescribeConfigs everywhere, old segments deleted on every replica, a record without a key refused once compacted")

# ACLs and SCRAM credentials in Kafka's znodes, kept current on every node
# (tests/cluster/security_store_cluster_test.py; cluster/security_sync.cpp).
set(_sc ${CMAKE_SOURCE_DIR}/tests/cluster/security_store_cluster_test.py)
foreach(_case IN ITEMS
    "acl-propagation|90|an ACL change made through one node takes effect on the other nodes without a restart"
    "znodes|100|ACLs and SCRAM credentials are stored in Kafka's znodes")
  string(REPLACE "|" ";" _fields "${_case}")
  list(GET _fields 0 _name)
  list(GET _fields 1 _timeout)
  list(GET _fields 2 _what)
  math(EXPR _timeout "${_timeout} + 10")
  add_test(NAME "cluster: ${_what}"
           COMMAND ${TROUPE_DEBIAN_PYTHON3} ${_sc} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("cluster: ${_what}" PROPERTIES
    TIMEOUT ${_timeout} RUN_SERIAL TRUE LABELS cluster)
endforeach()

# Security of the node links (troupe.cluster.security, troupe.cluster.ssl.*)
# and of ZooKeeper (zookeeper.set.acl, troupe.zookeeper.digest).
# cluster_link_probe reaches a node's controller as another node would, with
# plain BASP or over TLS with a given certificate.
add_executable(cluster_link_probe tests/cluster/link_probe.cpp)
target_link_libraries(cluster_link_probe PRIVATE troupe_actors caf_openssl)
target_include_directories(cluster_link_probe PRIVATE ${CMAKE_SOURCE_DIR})
target_precompile_headers(cluster_link_probe REUSE_FROM troupe_actors)
set(_st ${CMAKE_SOURCE_DIR}/tests/cluster/cluster_security_test.py)
foreach(_case IN ITEMS
    "mutual-tls|90|cluster: node links with mutual TLS replicate and serve a consumer group across three nodes"
    "plain-basp-refused|90|cluster: a plain TCP connection that speaks BASP to troupe.cluster.port is refused"
    "other-ca|90|cluster: a node with a certificate from another CA cannot join"
    "plaintext-refusal|90|cluster: a node binding a non-loopback address refuses plaintext node links unless troupe.cluster.security=plaintext"
    "zookeeper-acl|90|zookeeper: with zookeeper.set.acl znodes are world-readable and writable only by the cluster's identity")
  string(REPLACE "|" ";" _fields "${_case}")
  list(GET _fields 0 _name)
  list(GET _fields 1 _timeout)
  list(GET _fields 2 _what)
  math(EXPR _timeout "${_timeout} + 10")
  add_test(NAME "${_what}"
           COMMAND ${TROUPE_DEBIAN_PYTHON3} ${_st} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("${_what}" PROPERTIES
    TIMEOUT ${_timeout} RUN_SERIAL TRUE LABELS cluster
    ENVIRONMENT "TROUPE_LINK_PROBE=$<TARGET_FILE:cluster_link_probe>")
endforeach()
