# End-to-end runs of `troupe serve` that cross the Kafka and REST sides.
# Each starts its own server on free ports with a temporary log.dirs.

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(FATAL_ERROR "python3 not found: the tests need Debian's package "
                      "python3 (scripts/setup.sh installs it)")
endif()
set(name "e2e: REST consumer instances keep their generation, partitions and commits when their coordinator's broker stops")
add_test(NAME "${name}"
         COMMAND ${Python3_EXECUTABLE}
                 ${CMAKE_SOURCE_DIR}/tests/e2e/rest_coordinator_move.py
                 $<TARGET_FILE:troupe>)
set_tests_properties("${name}" PROPERTIES TIMEOUT 240 RUN_SERIAL TRUE)
