# troupe's Kafka wire client (client/kafka/: plain C++17, POSIX sockets and
# OpenSSL, no CAF) and the admin tools built on it (app/tools/:
# `troupe groups|topics|configs`). Included right after the troupe
# executable is defined.

file(GLOB TROUPE_KAFKA_CLIENT_SOURCES CONFIGURE_DEPENDS client/kafka/*.cpp)
add_library(troupe_kafka_client STATIC ${TROUPE_KAFKA_CLIENT_SOURCES})
target_link_libraries(troupe_kafka_client PUBLIC troupe_domain OpenSSL::SSL)

# The tools: flag parsing, table layouts and the three commands, in a
# library so that tests/tools/tools_tests.cmake links the same objects.
file(GLOB TROUPE_TOOLS_SOURCES CONFIGURE_DEPENDS app/tools/*.cpp)
add_library(troupe_tools STATIC ${TROUPE_TOOLS_SOURCES})
target_link_libraries(troupe_tools PUBLIC troupe_kafka_client
                                   PRIVATE nlohmann_json::nlohmann_json)

target_link_libraries(troupe PRIVATE troupe_kafka_client troupe_tools)
