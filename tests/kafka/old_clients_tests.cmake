# The old clients Kafka 3.9 serves, against `troupe serve`: each forces an
# old protocol (no ApiVersions, or a fixed Kafka version) and checks what a
# user of that client relies on. Every test starts its own server (and, for
# Burrow, its own ZooKeeper) on free ports with temporary directories and
# stops them however it ends. Every dependency is required: a missing one
# stops the configure.

troupe_require_program(OLD_CLIENTS_PYTHON3 python3 python3
                       PATHS /usr/bin NO_DEFAULT_PATH)
troupe_require_python_module(${OLD_CLIENTS_PYTHON3} kafka python3-kafka)
troupe_require_python_module(${OLD_CLIENTS_PYTHON3} confluent_kafka
                             python3-confluent-kafka)
troupe_require_program(OLD_CLIENTS_KCAT kcat kcat)

# Shopify's sarama 1.22 from Debian's golang-github-shopify-sarama-dev,
# built at test time in GOPATH mode (GO111MODULE=off
# GOPATH=/usr/share/gocode, GOPROXY=off) with Debian's Go into the test's
# temporary directory; the Go build cache lives in the build directory.
troupe_require_program(OLD_CLIENTS_GO go golang-go)
if(NOT EXISTS /usr/share/gocode/src/github.com/Shopify/sarama/consumer_group.go)
  message(FATAL_ERROR "sarama is not in /usr/share/gocode: the tests need "
                      "Debian's package golang-github-shopify-sarama-dev "
                      "(scripts/setup.sh installs it)")
endif()
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/sarama/sarama_test.py)
foreach(_version IN ITEMS 0.10.2 2.1)
  foreach(_case IN ITEMS
      "group|a consumer group of three splits the partitions, one leaves (Close) and the others take over, every rebalance resumes from the committed offsets (OffsetCommit v1) with no re-delivery, a new member resumes there"
      "produce|a SyncProducer with RequiredAcks WaitForAll gets every record acknowledged at its partition's next offset, uncompressed and gzip, snappy, lz4, read back with the same offsets, keys, values and timestamps")
    troupe_case_fields("${_case}" _name _what)
    set(_test "kafka: sarama 1.22 at Version ${_version}: ${_what}")
    add_test(NAME "${_test}"
             COMMAND ${OLD_CLIENTS_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                     ${OLD_CLIENTS_GO} ${_version} ${_name})
    set_tests_properties("${_test}" PROPERTIES TIMEOUT 150 RUN_SERIAL TRUE
      ENVIRONMENT "SARAMA_GOCACHE=${CMAKE_BINARY_DIR}/sarama-gocache")
  endforeach()
endforeach()

# LinkedIn's Burrow 1.2.1 (Debian's burrow) with a ZooKeeper of its own
# (Debian's zookeeper, tests/zookeeper/zk_server.sh) lists a topic's end
# offsets from troupe (ListOffsets v0); at each of its kafka-version
# settings (Metadata v1, v5).
troupe_require_program(OLD_CLIENTS_BURROW Burrow burrow)
troupe_require_program(OLD_CLIENTS_JAVA java default-jre-headless)
if(NOT EXISTS /usr/share/java/zookeeper.jar)
  message(FATAL_ERROR "/usr/share/java/zookeeper.jar not found: the Burrow "
                      "tests need Debian's package zookeeper (scripts/setup.sh "
                      "installs it)")
endif()
foreach(_version IN ITEMS 0.10.2 2.1.0)
  set(_test "kafka: Burrow 1.2.1 with kafka-version ${_version} lists the topic's end offsets from troupe (ListOffsets v0) and follows new records")
  add_test(NAME "${_test}"
           COMMAND ${OLD_CLIENTS_PYTHON3}
                   ${CMAKE_SOURCE_DIR}/tests/kafka/burrow_test.py
                   $<TARGET_FILE:troupe> ${OLD_CLIENTS_BURROW} ${_version})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
endforeach()

# kcat (librdkafka 2.0) with -X api.version.request=false
# -X broker.version.fallback=0.9.0 (magic 0) or 0.10.0 (magic 1).
# librdkafka 2.0 honours api.version.request=false only with a fallback
# before 0.10 (it has no fixed table past 0.9.0): with 0.10.0 it queries
# ApiVersions, and the same checks run on the versions troupe offers.
foreach(_case IN ITEMS
    "0.9.0|broker.version.fallback=0.9.0 (no ApiVersions, Produce v1 and Fetch v1 with magic 0 messages)"
    "0.10.0|broker.version.fallback=0.10.0 (librdkafka then negotiates with ApiVersions)")
  troupe_case_fields("${_case}" _version _what)
  set(_test "kafka: kcat with api.version.request=false and ${_what} produces keyed records (acks=all, none, gzip, snappy, lz4) and reads them back at their offsets, a current client reads them, RecordBatch v2 records are read back, its consumer group resumes from its commits")
  add_test(NAME "${_test}"
           COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/kcat_old_protocol_test.sh
                   $<TARGET_FILE:troupe> ${_version})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
endforeach()

# kafka-python 2.0.2 (Debian's python3-kafka) at api_version=(0, 10, 1).
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/kafka_python_old_api_test.py)
foreach(_case IN ITEMS
    "produce|an acks=all producer (uncompressed and gzip) gets every record acknowledged at its partition's next offset, a consumer reads them back with the same offsets, keys, values and timestamps"
    "group|two consumers of a group split the partitions and commit, no committed record is delivered again, after a restart the group's committed offsets read back and it resumes there")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: kafka-python at api_version (0, 10, 1): ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${OLD_CLIENTS_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                   ${_name})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
endforeach()

# The old versions and message formats by hand (kafka-python's protocol
# classes on a raw socket): tests/kafka/old_formats_test.py.
set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/old_formats_test.py)
foreach(_case IN ITEMS
    "v2|records produced as RecordBatch v2 are read by Fetch v0, v1 and v3 (down-converted to magic 0 and 1) with the same offsets, keys, values and timestamps"
    "legacy|message sets of magic 0 and 1 (uncompressed and compressed) produced with Produce v0, v1 and v2 are read back by a current Fetch with their offsets and create times"
    "refusals|Produce v3+ refuses magic 0 and 1 sets, an empty record set and two batches (INVALID_RECORD) and zstd before v7 (UNSUPPORTED_COMPRESSION_TYPE), ListOffsets v0 lists the latest and earliest offsets"
    "admin|OffsetCommit v0 and v1, OffsetFetch v0, DescribeConfigs v0, OffsetForLeaderEpoch v0 and DeleteTopics v0 are answered in their own layouts")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: old protocol versions: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${OLD_CLIENTS_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                   ${_name})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 120)
endforeach()
