# produce_bench: produce throughput and p99 over any listener (librdkafka,
# -X for its security settings) and SCRAM-SHA-512 connections per second
# (troupe's own scram_client over raw frames). bench/security/produce_bench.sh
# runs it against PLAINTEXT and SASL_SSL listeners of one `troupe serve`.
add_executable(produce_bench ${CMAKE_SOURCE_DIR}/bench/security/produce_bench.cpp)
target_link_libraries(produce_bench PRIVATE troupe_domain
                                            PkgConfig::KAFKA_BENCH_RDKAFKA
                                            OpenSSL::SSL Threads::Threads)
