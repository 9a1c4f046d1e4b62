# The layering rules, checked on the sources (python3 standard library
# only). Included from the top-level CMakeLists.txt.

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(FATAL_ERROR "python3 not found: the tests need Debian's package "
                      "python3 (scripts/setup.sh installs it)")
endif()

add_test(NAME "layering: domain/ includes nothing above it (no messages/, actors/, gateway/, cluster/, storage/, CAF, Beast)"
         COMMAND ${Python3_EXECUTABLE}
                 ${CMAKE_SOURCE_DIR}/tests/layering/domain_includes.py
                 ${CMAKE_SOURCE_DIR})
set_tests_properties("layering: domain/ includes nothing above it (no messages/, actors/, gateway/, cluster/, storage/, CAF, Beast)"
                     PROPERTIES TIMEOUT 60)

add_test(NAME "layering: actor messages carry the domain's enums, no string where the domain has an enum (state, role, phase, group type)"
         COMMAND ${Python3_EXECUTABLE}
                 ${CMAKE_SOURCE_DIR}/tests/layering/message_enums.py
                 ${CMAKE_SOURCE_DIR})
set_tests_properties("layering: actor messages carry the domain's enums, no string where the domain has an enum (state, role, phase, group type)"
                     PROPERTIES TIMEOUT 60)

add_test(NAME "layering: one name per concept: the Kafka wire structs are spelled wire::, never pulled into troupe:: by a using-directive outside the codec's tests"
         COMMAND ${Python3_EXECUTABLE}
                 ${CMAKE_SOURCE_DIR}/tests/layering/wire_names.py
                 ${CMAKE_SOURCE_DIR})
set_tests_properties("layering: one name per concept: the Kafka wire structs are spelled wire::, never pulled into troupe:: by a using-directive outside the codec's tests"
                     PROPERTIES TIMEOUT 60)
