# The log cleaner's throughput against a raw read of the same segment files,
# and the bytes before and after (issue 20's benchmark; not a test: run
# build/log_cleaner_bench, see README).
add_executable(log_cleaner_bench
               ${CMAKE_SOURCE_DIR}/bench/log_cleaner/log_cleaner_bench.cpp)
target_link_libraries(log_cleaner_bench PRIVATE troupe_domain)
