# Runs a command and passes only when it exits with exactly EXPECTED_CODE and
# its stderr contains EXPECTED_STDERR (a literal string): ctest's WILL_FAIL
# would accept any non-zero exit, a crash included.
#
#   cmake -DEXPECTED_CODE=2 -DEXPECTED_STDERR=text -P expect_exit.cmake CMD...
#
# (CMD's arguments must hold no ';', CMake's list separator.)

set(command)
set(after_script FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_script)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} MATCHES "expect_exit\\.cmake$")
    set(after_script TRUE)
  endif()
endforeach()

execute_process(COMMAND ${command} RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit code: ${code}\nstderr: ${err}")
if(NOT code STREQUAL "${EXPECTED_CODE}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_CODE}, got ${code}")
endif()
string(FIND "${err}" "${EXPECTED_STDERR}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr does not contain '${EXPECTED_STDERR}'")
endif()
