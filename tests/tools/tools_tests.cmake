# The admin tools (troupe groups|topics|configs, app/tools/):
# their tables and flag errors without a server (tools_tests), and the
# tools against a running troupe (tests/tools/tools_server_test.py).
add_executable(tools_tests tests/catch_main.cpp tests/tools/tools_unit_tests.cpp)
target_link_libraries(tools_tests PRIVATE troupe_tools Catch2::Catch2)
catch_discover_tests(tools_tests TEST_PREFIX "tools: "
                     EXTRA_ARGS ${TROUPE_CATCH_ARGS})

# The tools against a running `troupe serve` (three brokers, a SASL/SCRAM
# listener): groups of confluent-kafka consumers described, reset and
# deleted; topics and configs created, altered and deleted; the tables
# compared with tests/tools/golden/*.txt byte for byte; --output json; bad
# invocations as one line and status 1; the REST lag of a group with
# nothing committed. UPDATE_GOLDEN=1 rewrites the golden files.
set(name "tools: kafka-consumer-groups, kafka-topics and kafka-configs behaviours against a live troupe, tables byte for byte with the golden files")
add_test(NAME "${name}"
         COMMAND ${DEBIAN_PYTHON3}
                 ${CMAKE_SOURCE_DIR}/tests/tools/tools_server_test.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
