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
set(_ct ${CMAKE_SOURCE_DIR}/tests/cluster/cluster_tests.py)
foreach(_case IN ITEMS
    "leader-kill9|170|no acks=all record is lost when the leader's node is killed with -9, the new leader has leader epoch + 1, the restarted node truncates and rejoins the ISR"
    "paused-node|200|a node paused with SIGSTOP loses its session and leaves every ISR, its writes as a deposed leader are never acknowledged, after SIGCONT it catches up and rejoins"
    "controller-death|170|another node becomes controller when the controller's node dies, later leadership changes work"
    "group-coordinator-kill9|200|consumers whose coordinator's node dies find the new coordinator without a rebalance and resume from committed offsets"
    "zookeeper-unreachable-at-start|110|a node started without ZooKeeper logs it, retries and serves no empty metadata, it registers once ZooKeeper is up"
    "zookeeper-lost|170|nodes that lose ZooKeeper keep serving until their session expires, then step down, they register again when it returns"
    "duplicate-broker-id|110|a second node with a registered broker.id refuses to start"
    "unusable-log-dir|80|a node whose log directory is unusable reports it and does not join"
    "network-partition|200|a node cut off from the others but not from ZooKeeper keeps its leaderships, acknowledges nothing it cannot replicate, loses nothing and converges after healing"
    "large-create-topics|170|a CreateTopics of 8,000 partitions, larger than ZooKeeper's request limit, creates every topic whole under the same controller"
    "zookeeper-stall|170|a controller whose ZooKeeper write fails while ZooKeeper stalls short of the session timeout takes over again, the cluster keeps an active controller"
    "idempotent-producers|140|idempotent producers on every node get producer ids from the controller's block in ZooKeeper and every record once"
    "zookeeper-topic-configs|170|CreateTopics writes each topic's configs to /config/topics in Kafka's JSON, a change written to ZooKeeper as Kafka's AdminZkClient writes it with a /config/changes notification is applied by every node and by a node restarted later, AlterConfigs writes both the same way")
  string(REPLACE "|" ";" _fields "${_case}")
  list(GET _fields 0 _name)
  list(GET _fields 1 _timeout)
  list(GET _fields 2 _what)
  add_test(NAME "cluster: ${_what}"
           COMMAND ${TROUPE_DEBIAN_PYTHON3} ${_ct} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("cluster: ${_what}" PROPERTIES
    TIMEOUT ${_timeout} RUN_SERIAL TRUE LABELS cluster)
endforeach()

# Per-topic configs across the cluster: CreateTopics' configs in
# /config/topics, IncrementalAlterConfigs applied by every node.
# @platformatic/kafka (tests/kafka/platformatic) sends IncrementalAlterConfigs,
# which librdkafka 2.0.2 lacks.
troupe_require_program(TROUPE_NODE_EXECUTABLE node nodejs)
set(_tc ${CMAKE_SOURCE_DIR}/tests/cluster/topic_configs_cluster_test.py)
foreach(_case IN ITEMS
    "incremental-alter-configs|200|IncrementalAlterConfigs of retention.ms and cleanup.policy through a node that is not the controller is stored in /config/topics and applied by every node: the same DescribeConfigs everywhere, old segments deleted on every replica, a record without a key refused once compacted")
  string(REPLACE "|" ";" _fields "${_case}")
  list(GET _fields 0 _name)
  list(GET _fields 1 _timeout)
  list(GET _fields 2 _what)
  add_test(NAME "cluster: ${_what}"
           COMMAND ${TROUPE_DEBIAN_PYTHON3} ${_tc} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("cluster: ${_what}" PROPERTIES
    TIMEOUT ${_timeout} RUN_SERIAL TRUE LABELS cluster)
endforeach()

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
