# Kafka clients against `troupe --serve`. Each test starts its own server on
# its own ports (port + 0..2) with a temporary log.dirs and stops it at the
# end, so they run serially.

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
             ENVIRONMENT "TROUPE_BIN=$<TARGET_FILE:troupe>;TROUPE_TEST_PORT=19392")

# kcat consumers in one group: split, take-over after SIGKILL, resume from
# committed offsets.
find_program(KCAT_EXECUTABLE kcat REQUIRED) # scripts/setup.sh installs it
if(KCAT_EXECUTABLE)
  add_test(NAME "kafka: kcat consumer group splits, takes over and resumes"
           COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/kcat_group_test.sh
                   $<TARGET_FILE:troupe>)
  set_tests_properties(
    "kafka: kcat consumer group splits, takes over and resumes"
    PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE ENVIRONMENT
               "KCAT_GROUP_TEST_PORT=19192")
endif()

# A librdkafka program with rebalance callbacks: exclusive ownership after
# every rebalance, no acknowledged message missing.
find_package(PkgConfig REQUIRED)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(RDKAFKA REQUIRED IMPORTED_TARGET rdkafka)
endif()
if(RDKAFKA_FOUND)
  add_executable(kafka_group_check examples/kafka_clients/group_check.cpp)
  target_include_directories(kafka_group_check PRIVATE ${CMAKE_SOURCE_DIR})
  target_link_libraries(kafka_group_check PRIVATE PkgConfig::RDKAFKA
                                                  Threads::Threads)
  foreach(strategy range cooperative-sticky)
    set(name "kafka: librdkafka group (${strategy}) owns each partition once and misses no acknowledged message")
    add_test(NAME "${name}"
             COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/run_with_troupe.sh
                     $<TARGET_FILE:troupe> 19292 6
                     $<TARGET_FILE:kafka_group_check> @BROKERS@ checked-${strategy}
                     3 4000 ${strategy})
    set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
  endforeach()
  # The broker coordinating the group stops: Kafka's consumers find the new
  # coordinator, which loaded the group, and carry on without a rebalance.
  set(name "kafka: librdkafka consumers see no rebalance when their group coordinator's broker stops; commits survive")
  add_test(NAME "${name}"
           COMMAND ${CMAKE_SOURCE_DIR}/tests/kafka/run_with_troupe.sh
                   $<TARGET_FILE:troupe> 19295 6
                   $<TARGET_FILE:kafka_group_check> @BROKERS@ coordinator-move
                   3 2000 range --stop-coordinator @HTTP@)
  set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE
                       ENVIRONMENT "TROUPE_HTTP_PORT=19298")
endif()

# A brief libFuzzer run of the frame and RecordBatch decoders (clang).
find_program(CLANGXX_EXECUTABLE clang++ REQUIRED)
if(CLANGXX_EXECUTABLE)
  add_test(NAME "kafka: libFuzzer frame and RecordBatch decoders, 10 s each"
           COMMAND ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh 10)
  set_tests_properties(
    "kafka: libFuzzer frame and RecordBatch decoders, 10 s each"
    PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
endif()

# Kafka's Python clients: Debian's kafka-python (its own protocol code) and
# confluent-kafka-python (librdkafka), with /usr/bin/python3, which loads
# Debian's packages (scripts/setup.sh installs them). Each case starts its
# own `troupe serve` on free ports.
find_program(DEBIAN_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(DEBIAN_PYTHON3)
  set(_py ${CMAKE_SOURCE_DIR}/tests/kafka/python_clients_test.py)
  foreach(_client IN ITEMS kafka-python confluent)
    foreach(_case IN ITEMS
        "admin|the admin client creates a topic"
        "produce|a producer with acks=all gets every record acknowledged"
        "group|three consumers in one group split the partitions, one closes and the others take over, a new one resumes from the committed offsets")
      string(FIND "${_case}" "|" _bar)
      string(SUBSTRING "${_case}" 0 ${_bar} _name)
      math(EXPR _bar "${_bar} + 1")
      string(SUBSTRING "${_case}" ${_bar} -1 _what)
      set(_test "kafka: ${_client}: ${_what}")
      add_test(NAME "${_test}"
               COMMAND ${DEBIAN_PYTHON3} ${_py} $<TARGET_FILE:troupe>
                       ${_client} ${_name})
      set_tests_properties("${_test}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
    endforeach()
  endforeach()
endif()

# @platformatic/kafka (npm, tests/kafka/platformatic, installed by
# scripts/setup.sh) with both group protocols: three consumers split a
# topic, one closes, the others take over from its committed offsets; with
# KIP-848's protocol no partition ever has two owners.
find_program(NODE_EXECUTABLE node)
if(NODE_EXECUTABLE)
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
endif()
