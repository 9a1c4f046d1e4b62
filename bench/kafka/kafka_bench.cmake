# kafka_bench: the same librdkafka workloads (acks=all produce, K consumers
# to a complete assignment, re-stabilisation after a close) against any
# bootstrap address or librdkafka's in-process mock cluster (--mock).
# scripts/bench_kafka.sh runs it against `troupe --serve` and the mock.
find_package(PkgConfig REQUIRED)
pkg_check_modules(KAFKA_BENCH_RDKAFKA IMPORTED_TARGET rdkafka)
if(NOT KAFKA_BENCH_RDKAFKA_FOUND)
  message(FATAL_ERROR "rdkafka not found by pkg-config: kafka_bench needs "
                      "Debian's package librdkafka-dev (scripts/setup.sh "
                      "installs it)")
endif()
add_executable(kafka_bench ${CMAKE_SOURCE_DIR}/bench/kafka/kafka_bench.cpp)
target_compile_features(kafka_bench PRIVATE cxx_std_17)
find_package(Threads REQUIRED)
target_link_libraries(kafka_bench PRIVATE PkgConfig::KAFKA_BENCH_RDKAFKA
                                          Threads::Threads)
# Brokers stopped and started in turn under a steady acks=all producer
# and a consumer group (scripts/bench_failover.sh).
add_executable(failover_bench ${CMAKE_SOURCE_DIR}/bench/kafka/failover_bench.cpp)
target_include_directories(failover_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(failover_bench PRIVATE PkgConfig::KAFKA_BENCH_RDKAFKA
                                             Threads::Threads)
# Fetch v0/v1/v3 (message sets converted down from RecordBatch v2) against
# Fetch v4/v12 over troupe's own wire client (scripts/bench_old_fetch.sh).
add_executable(old_fetch_bench ${CMAKE_SOURCE_DIR}/bench/kafka/old_fetch_bench.cpp)
target_include_directories(old_fetch_bench PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(old_fetch_bench PRIVATE troupe_kafka_client)
