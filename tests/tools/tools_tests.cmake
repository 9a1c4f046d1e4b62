# The admin tools (troupe groups|topics|configs, app/tools/):
# their tables and flag errors without a server (tools_tests), and the
# tools against a running troupe (tests/tools/tools_server_test.py).
add_executable(tools_tests tests/catch_main.cpp tests/tools/tools_unit_tests.cpp)
target_link_libraries(tools_tests PRIVATE troupe_tools Catch2::Catch2)
catch_discover_tests(tools_tests TEST_PREFIX "tools: "
                     EXTRA_ARGS ${TROUPE_CATCH_ARGS})
