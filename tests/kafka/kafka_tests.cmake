# Kafka clients against `troupe --serve`. Each test starts its own server on
# free ports (port + 0..2, chosen at run time) with a temporary log.dirs and
# stops it at the end. Every dependency is required (troupe_require_program
# in CMakeLists.txt): a missing one stops the configure.

# Socket-level checks of the group protocol and of bad input, with troupe's
# own codec.
add_executable(kafka_wire_group_test tests/catch_main.cpp
                                     tests/kafka/wire_group_test.cpp)
target_link_libraries(kafka_wire_group_test PRIVATE troupe_domain
                                                    Catch2::Catch2)
add_test(NAME "kafka: group protocol and bad input at the socket level"
         COMMAND kafka_wire_group_test)
set_tests_properties("kafka: group protocol and bad input at the socket level"
  PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE
             ENVIRONMENT "TROUPE_BIN=$<TARGET_FILE:troupe>")

# kcat consumers in one group: split, take-over after SIGKILL, resume from
# committed offsets.
troupe_require_program(KCAT_EXECUTABLE kcat kcat)
add_test(NAME "kafka: kcat consumer group splits, takes over and resumes"
         COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/kcat_group_test.sh
                 $<TARGET_FILE:troupe>)
set_tests_properties("kafka: kcat consumer group splits, takes over and resumes"
                     PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)

# A librdkafka program with rebalance callbacks: exclusive ownership after
# every rebalance, no acknowledged message missing.
find_package(PkgConfig REQUIRED)
pkg_check_modules(RDKAFKA IMPORTED_TARGET rdkafka)
if(NOT RDKAFKA_FOUND)
  message(FATAL_ERROR "rdkafka not found by pkg-config: the tests need "
                      "Debian's package librdkafka-dev (scripts/setup.sh "
                      "installs it)")
endif()
add_executable(kafka_group_check examples/kafka_clients/group_check.cpp)
target_include_directories(kafka_group_check PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(kafka_group_check PRIVATE PkgConfig::RDKAFKA
                                                Threads::Threads)
foreach(strategy range cooperative-sticky)
  set(name "kafka: librdkafka group (${strategy}) owns each partition once and misses no acknowledged message")
  add_test(NAME "${name}"
           COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/run_with_troupe.sh
                   $<TARGET_FILE:troupe> free 6
                   $<TARGET_FILE:kafka_group_check> @BROKERS@ checked-${strategy}
                   3 4000 ${strategy})
  set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
endforeach()
# The broker coordinating the group stops: Kafka's consumers find the new
# coordinator, which loaded the group, and carry on without a rebalance.
set(name "kafka: librdkafka consumers see no rebalance when their group coordinator's broker stops; commits survive")
add_test(NAME "${name}"
         COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/run_with_troupe.sh
                 $<TARGET_FILE:troupe> free 6
                 $<TARGET_FILE:kafka_group_check> @BROKERS@ coordinator-move
                 3 2000 range --stop-coordinator @HTTP@)
set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE
                     ENVIRONMENT "TROUPE_HTTP_PORT=free")

# A brief libFuzzer run of the frame and RecordBatch decoders (clang).
troupe_require_program(CLANGXX_EXECUTABLE clang++ clang)
add_test(NAME "kafka: libFuzzer frame and RecordBatch decoders, 10 s each"
         COMMAND ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh 10 kafka_frame_fuzz
                 record_batch_fuzz legacy_records_fuzz)
# The timeout covers the clang build of the targets (about 3 minutes on a
# busy two-core machine) as well as the 30 s of fuzzing.
set_tests_properties("kafka: libFuzzer frame and RecordBatch decoders, 10 s each"
                     PROPERTIES TIMEOUT 540 RUN_SERIAL TRUE)
# The same for SASL/PLAIN and JAAS, and the SCRAM server's two steps and
# Kafka's credential text (domain/security/).
add_test(NAME "kafka: libFuzzer SASL/PLAIN, JAAS and SCRAM parsers, 10 s each"
         COMMAND ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh 10 sasl_plain_fuzz
                 scram_fuzz)
set_tests_properties("kafka: libFuzzer SASL/PLAIN, JAAS and SCRAM parsers, 10 s each"
                     PROPERTIES TIMEOUT 540 RUN_SERIAL TRUE)

# Kafka's Python clients: Debian's kafka-python (its own protocol code) and
# confluent-kafka-python (librdkafka), with /usr/bin/python3, which loads
# Debian's packages (scripts/setup.sh installs them). Each case starts its
# own `troupe serve` on free ports.
troupe_require_program(DEBIAN_PYTHON3 python3 python3
                       PATHS /usr/bin NO_DEFAULT_PATH)
troupe_require_python_module(${DEBIAN_PYTHON3} kafka python3-kafka)
troupe_require_python_module(${DEBIAN_PYTHON3} confluent_kafka
                             python3-confluent-kafka)
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/python_clients_test.py)
foreach(_client IN ITEMS kafka-python confluent)
  foreach(_case IN ITEMS
      "admin|the admin client creates a topic"
      "produce|a producer with acks=all gets every record acknowledged"
      "group|three consumers in one group split the partitions, one closes and the others take over, a new one resumes from the committed offsets")
    troupe_case_fields("${_case}" _name _what)
    set(_test "kafka: ${_client}: ${_what}")
    add_test(NAME "${_test}"
             COMMAND ${DEBIAN_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                     ${_client} ${_name})
    set_tests_properties("${_test}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
  endforeach()
endforeach()
# Kafka's error codes as librdkafka reports them to the application.
foreach(_case IN ITEMS
    "not-enough-replicas|an acks=all producer below min.insync.replicas gets NOT_ENOUGH_REPLICAS and produces again once the ISR is back"
    "fenced-instance-id|a consumer replaced by one with the same group.instance.id gets the fatal FENCED_INSTANCE_ID"
    "out-of-order-sequence-number|an idempotent producer whose acknowledged records an unclean election lost gets the fatal OUT_OF_ORDER_SEQUENCE_NUMBER")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: confluent: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                   confluent ${_name})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
endforeach()

# Incremental fetch sessions (KIP-227): Fetch v11 by hand, as Kafka's
# schemas, to one broker (tests/kafka/fetch_sessions_test.py).
set(_test "kafka: fetch sessions (KIP-227): a full fetch opens a session, incremental fetches name only what changed and are answered only what is new, FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH, forgotten partitions, epoch -1 closes")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/kafka/fetch_sessions_test.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)

# @platformatic/kafka (npm, tests/kafka/platformatic, installed by
# scripts/setup.sh) with both group protocols: three consumers split a
# topic, one closes, the others take over from its committed offsets; with
# KIP-848's protocol no partition ever has two owners.
troupe_require_program(NODE_EXECUTABLE node nodejs)
if(NOT EXISTS ${CMAKE_SOURCE_DIR}/tests/kafka/platformatic/node_modules/@platformatic/kafka)
  message(FATAL_ERROR "@platformatic/kafka is not installed in "
                      "tests/kafka/platformatic (scripts/setup.sh runs npm ci "
                      "there with Debian's package npm)")
endif()
foreach(protocol classic consumer)
  set(name "kafka: @platformatic/kafka consumers (group.protocol=${protocol}) split a topic, take over and resume from commits")
  add_test(NAME "${name}"
           COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/run_with_troupe.sh
                   $<TARGET_FILE:troupe> free 6 ${NODE_EXECUTABLE}
                   ${CMAKE_SOURCE_DIR}/tests/kafka/platformatic/group_test.mjs
                   @BROKERS@ ${protocol})
  # The program gives up after 120 s itself.
  set_tests_properties("${name}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE)
endforeach()

# Issue 20's regression: a group that commits once and goes quiet keeps its
# offset across log retention runs, segment rolls of __consumer_offsets, a
# restart of the node and a coordinator move (only KIP-211's
# offsets.retention.minutes may expire it), for a classic group
# (confluent-kafka) and a KIP-848 group (@platformatic/kafka).
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/offsets_retention_test.py)
foreach(_case IN ITEMS
    "classic|a classic group that commits once and goes quiet keeps its offset across log retention, segment rolls, a restart and a coordinator move"
    "consumer|a KIP-848 group that commits once and goes quiet keeps its offset across log retention, segment rolls, a restart and a coordinator move"
    "expiry|KIP-211: Empty groups and standalone commits expire after offsets.retention.minutes, compaction removes their records, after a restart they stay gone and every other group is intact")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_py} $<TARGET_FILE:troupe> ${_name}
                   ${NODE_EXECUTABLE})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
endforeach()

# Per-topic configs and a compacted topic with confluent-kafka and kcat
# (tests/kafka/topic_configs_test.py): each case starts its own `troupe
# serve` on free ports.
set(_tc ${CMAKE_SOURCE_DIR}/tests/kafka/topic_configs_test.py)
foreach(_case IN ITEMS
    "create-with-configs|CreateTopics takes topic configs (INVALID_CONFIG for unknown names and bad values, validate_only creates nothing), DescribeConfigs reports TOPIC_CONFIG or the broker's source, AlterConfigs replaces the set, broker configs are read-only"
    "compacted-topic|a compacted topic keeps the latest value per key and drops tombstones, a consumer in a hole continues with the next record, a record without a key is INVALID_RECORD")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: confluent: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_tc} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE)
endforeach()

# __consumer_offsets in Kafka's own record schemas: what real clients commit
# decodes with an independent decoder written from Kafka 3.9's JSON schemas
# (tests/kafka/offsets_decoder.py), and a log.dirs written by the release
# before issue 20 (tests/fixtures/legacy_offsets) loads with nothing lost,
# is rewritten in Kafka's format and still answers after a restart.
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/offsets_format_test.py)
foreach(_case IN ITEMS
    "format|__consumer_offsets written for classic, standalone and KIP-848 commits decodes with Kafka's record schemas to the committed values"
    "upgrade|a log.dirs written by the release before issue 20 answers OffsetFetch and DescribeGroups with its values before and after the rewrite in Kafka's format and a restart")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_py} $<TARGET_FILE:troupe> ${_name})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
endforeach()

# Listeners with TLS and SASL (tests/kafka/security_listeners_test.py): each
# case starts its own `troupe serve` with PLAINTEXT, SSL, SASL_PLAINTEXT and
# SASL_SSL listeners and certificates made with the openssl command.
troupe_require_program(OPENSSL_EXECUTABLE openssl openssl)
set(_sec ${CMAKE_SOURCE_DIR}/tests/kafka/security_listeners_test.py)
foreach(_case IN ITEMS
    "sasl-ssl-scram|librdkafka SASL_SSL with SCRAM-SHA-512 produces acks=all and consumes in a group (confluent-kafka and kcat)"
    "sasl-plain|librdkafka SASL_PLAINTEXT with PLAIN produces acks=all and consumes in a group (confluent-kafka and kcat)"
    "ssl-client-cert|librdkafka SSL with a client certificate produces acks=all and consumes in a group; a certificate of another CA and none are refused"
    "scram-256|kafka-python and confluent-kafka with SCRAM-SHA-256 over SASL_SSL produce and consume in a group"
    "platformatic|@platformatic/kafka with SASL PLAIN and SCRAM-SHA-512 produces and consumes in a group"
    "failures|SASL_AUTHENTICATION_FAILED for a wrong password, UNSUPPORTED_SASL_MECHANISM for an unknown one, truncated and slow TLS handshakes time out without stopping others, 1,000 failed authentications and the listener still serves"
    "cluster|librdkafka SASL_SSL with SCRAM-SHA-512, SASL_PLAINTEXT with PLAIN and SSL with a client certificate produce acks=all and consume in a group against a 3-node cluster whose nodes register every listener in /brokers/ids"
    "reauth|KIP-368: the session lifetime is told, a client re-authenticates on its connection, another principal is refused, an expired session is closed, @platformatic/kafka re-authenticates")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_sec} $<TARGET_FILE:troupe> ${_name}
                   ${NODE_EXECUTABLE})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
endforeach()

# The denial table (tests/kafka/security_denials_test.py): one `troupe serve`
# with a SASL_PLAINTEXT listener and Kafka's AclAuthorizer; each row asserts
# Kafka's error code and that nothing was written.
set(name "kafka: denial table: wrong password, unknown mechanism, a topic without WRITE, a group without READ, CreateTopics without CREATE, a DENY over a PREFIXED ALLOW and a topic hidden from Metadata give Kafka's errors and write nothing")
add_test(NAME "${name}"
         COMMAND ${DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/kafka/security_denials_test.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${name}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)

# ACLs and SCRAM users through admin clients on the embedded node, kept in
# its metadata across restarts (tests/kafka/security_admin_test.py):
# kafka-python's KafkaAdminClient for the ACL APIs, KIP-554's SCRAM APIs
# over a socket (the Python clients here predate them), confluent-kafka
# logging in as the SCRAM user.
set(name "kafka: an admin client creates, describes and deletes ACLs and SCRAM users on the embedded node, kept across a restart, and the SCRAM user logs in")
add_test(NAME "${name}"
         COMMAND ${DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/kafka/security_admin_test.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${name}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)

# A fetch waits for min.bytes summed over its partitions (Kafka's
# DelayedFetch), by hand and with librdkafka (tests/kafka/fetch_wait_test.py).
set(_test "kafka: a fetch is answered as soon as any partition has min.bytes, at max.wait.ms otherwise, and records below min.bytes wait for max.wait.ms")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/kafka/fetch_wait_test.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
