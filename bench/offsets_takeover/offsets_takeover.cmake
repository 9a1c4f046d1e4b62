# Coordinator takeover of a __consumer_offsets partition after 1,000,000
# commits by 10,000 groups, uncompacted, cleaned and ideal, with its disk
# bytes (issue 20's benchmark; not a test: run
# build/offsets_takeover_bench, see README).
add_executable(offsets_takeover_bench
               ${CMAKE_SOURCE_DIR}/bench/offsets_takeover/offsets_takeover_bench.cpp)
target_link_libraries(offsets_takeover_bench PRIVATE troupe_storage)
