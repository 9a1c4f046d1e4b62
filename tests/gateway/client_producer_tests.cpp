// The REST gateway's producer state (client/): the accumulator keeps one
// batch in flight per partition, the partitioner places records as Kafka's
// producer does, the metadata cache ages out.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "client/metadata_cache.hpp"
#include "client/partitioner.hpp"
#include "client/record_accumulator.hpp"
#include "domain/murmur2.hpp"

using namespace troupe;
using namespace troupe::client;

namespace {

pending_records one_record(std::vector<int64_t>& firsts, size_t bytes = 10) {
  pending_records p;
  p.records.push_back({std::nullopt, std::vector<uint8_t>{'v'}, 1000, {}});
  p.bytes = bytes;
  p.done = [&firsts](error_code, int64_t base) { firsts.push_back(base); };
  return p;
}

} // namespace

TEST_CASE("one batch is in flight per partition, and records that arrive "
          "meanwhile go out together next",
          "[client][producer]") {
  record_accumulator acc;
  topic_partition tp{"orders", 0};
  std::vector<int64_t> firsts;
  acc.append(tp, one_record(firsts));
  auto first = acc.drain(tp);
  REQUIRE(first);
  CHECK(first->size() == 1);
  acc.append(tp, one_record(firsts));
  acc.append(tp, one_record(firsts));
  CHECK_FALSE(acc.drain(tp)); // the first batch is still on its way
  acc.complete(tp, *first, error_code::none, 7);
  auto second = acc.drain(tp);
  REQUIRE(second);
  CHECK(second->size() == 2);
  CHECK(record_accumulator::records_of(*second).size() == 2);
  acc.complete(tp, *second, error_code::none, 8);
  CHECK(firsts == std::vector<int64_t>{7, 8, 9});
}

TEST_CASE("a batch stops growing at max_batch_bytes but takes at least one "
          "request",
          "[client][producer]") {
  record_accumulator acc;
  topic_partition tp{"orders", 0};
  std::vector<int64_t> firsts;
  acc.append(tp, one_record(firsts, record_accumulator::max_batch_bytes + 1));
  acc.append(tp, one_record(firsts));
  auto batch = acc.drain(tp);
  REQUIRE(batch);
  CHECK(batch->size() == 1);
}

TEST_CASE("a failed batch answers every request with -1", "[client][producer]") {
  record_accumulator acc;
  topic_partition tp{"orders", 1};
  std::vector<int64_t> firsts;
  acc.append(tp, one_record(firsts));
  acc.append(tp, one_record(firsts));
  auto batch = acc.drain(tp);
  REQUIRE(batch);
  acc.complete(tp, *batch, error_code::not_leader_or_follower, -1);
  CHECK(firsts == std::vector<int64_t>{-1, -1});
}

TEST_CASE("keyed records go to murmur2(key) % partitions, unkeyed ones round "
          "robin",
          "[client][producer]") {
  partitioner p;
  std::optional<std::vector<uint8_t>> key = std::vector<uint8_t>{'k', '1'};
  CHECK(p.partition(key, 6) == partition_for_key("k1", 6));
  CHECK(p.partition(std::nullopt, 3) == 0);
  CHECK(p.partition(std::nullopt, 3) == 1);
  CHECK(p.partition(std::nullopt, 3) == 2);
  CHECK(p.partition(std::nullopt, 3) == 0);
}

TEST_CASE("cached topic metadata is used until metadata.max.age.ms",
          "[client][producer]") {
  metadata_cache cache{5000};
  CHECK_FALSE(cache.fresh("orders", 0));
  topic_metadata t;
  t.name = "orders";
  t.partition_states.push_back({});
  t.partition_states.back().partition = 0;
  t.partition_states.back().leader = 2;
  cache.update("orders", t, 1000);
  REQUIRE(cache.fresh("orders", 5999));
  CHECK(metadata_cache::leader_of(*cache.fresh("orders", 5999), 0) == 2);
  CHECK(metadata_cache::leader_of(t, 1) == -1);
  CHECK_FALSE(cache.fresh("orders", 6000));
}
