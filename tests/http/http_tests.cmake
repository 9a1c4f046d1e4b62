# The HTTP/WebSocket gateway against a real `troupe serve` (python3 standard
# library only; each case starts its own server on free ports with a
# temporary log.dirs). Included from the top-level CMakeLists.txt.

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(FATAL_ERROR "python3 not found: the tests need Debian's package "
                      "python3 (scripts/setup.sh installs it)")
endif()
# The dashboard case drives a headless Chromium.
troupe_require_program(CHROMIUM_EXECUTABLE chromium chromium)
set(_gw ${CMAKE_SOURCE_DIR}/tests/http/gateway_e2e.py)
foreach(_case IN ITEMS
    "rest|produces and consumes through a consumer instance"
    "v2|REST Proxy v2 routes: binary and json round-trip, assignments, seeks, committed offsets, topic_pattern"
    "rebalance|two instances split partitions; one takes over on delete or max.poll.interval.ms"
    "expiry|an instance without a request for consumer.instance.timeout.ms leaves its group and is deleted; requests keep it"
    "bad|every REST Proxy error: 400/401/404/405/406/409/413/415/422 with its error_code; WebSocket garbage is closed"
    "ws|a WebSocket member sees rebalance, joined and assignment events in order"
    "browser|the dashboard in headless Chromium shows a rebalance's new generation and stops a broker with the admin token")
  troupe_case_fields("${_case}" _name _what)
  add_test(NAME "http: ${_what}"
           COMMAND ${Python3_EXECUTABLE} ${_gw} $<TARGET_FILE:troupe> ${_name}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties("http: ${_what}" PROPERTIES
    TIMEOUT 240 RUN_SERIAL TRUE
    ENVIRONMENT "SCREENSHOT=${CMAKE_BINARY_DIR}/dashboard.png")
endforeach()

# HTTPS, authentication and ACLs on the gateway (issue 21): certificates
# from tests/lib/certs.py, SCRAM users and ACLs made through the Kafka
# listener (kafka-python's admin client for CreateAcls: Debian's python3,
# DEBIAN_PYTHON3 from tests/kafka/kafka_tests.cmake).
set(_https ${CMAKE_SOURCE_DIR}/tests/http/https_auth.py)
foreach(_case IN ITEMS
    "https|HTTPS serves REST Proxy and the dashboard with the PEM keystore"
    "unauthenticated|a REST call without credentials gets 401"
    "basic|Basic authentication against a SCRAM user"
    "produce_denied|a REST produce by a user without WRITE gets 403 with TOPIC_AUTHORIZATION_FAILED and writes nothing"
    "wss|a WebSocket member over wss with Basic credentials"
    "browser|the dashboard over HTTPS in headless Chromium sends the page's Basic credentials with its calls and its wss socket")
  troupe_case_fields("${_case}" _name _what)
  add_test(NAME "http: ${_what}"
           COMMAND ${DEBIAN_PYTHON3} ${_https} $<TARGET_FILE:troupe> ${_name}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties("http: ${_what}" PROPERTIES TIMEOUT 120)
endforeach()
