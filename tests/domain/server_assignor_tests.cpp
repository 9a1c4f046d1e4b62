// KIP-848's server-side assignors, uniform and range, as Kafka's
// UniformAssignorTest / RangeAssignorTest would check them.

#include <catch2/catch.hpp>

#include <random>

#include "domain/consumer_group/server_assignor.hpp"
#include "tests/domain/consumer_group_fixture.hpp"

using namespace troupe;
using namespace troupe::test;

namespace {

assignor_member member(std::string id, std::set<uuid> topics,
                       partition_assignment target = {},
                       std::optional<std::string> instance = std::nullopt) {
  return {std::move(id), std::move(instance), std::nullopt, std::move(topics),
          std::move(target)};
}

/// Every partition of every subscribed topic goes to exactly one member,
/// and only to a member subscribed to its topic.
void check_complete(const assignor_spec& spec,
                    const target_assignment_map& result) {
  REQUIRE(result.size() == spec.members.size());
  std::map<uuid, std::set<int32_t>> seen;
  for (const auto& m : spec.members) {
    for (const auto& [t, ps] : result.at(m.member_id)) {
      REQUIRE(m.subscribed_topic_ids.count(t));
      for (auto p : ps) {
        REQUIRE(p < spec.partition_counts.at(t));
        REQUIRE(seen[t].insert(p).second);
      }
    }
  }
  for (const auto& [t, count] : spec.partition_counts) {
    bool subscribed = false;
    for (const auto& m : spec.members)
      subscribed = subscribed || m.subscribed_topic_ids.count(t) > 0;
    if (subscribed)
      CHECK(seen[t].size() == static_cast<size_t>(count));
  }
}

size_t moved(const assignor_spec& spec, const target_assignment_map& result) {
  size_t n = 0;
  for (const auto& m : spec.members)
    for (const auto& [t, ps] : m.target)
      for (auto p : ps)
        if (!contains(result.at(m.member_id), t, p))
          ++n;
  return n;
}

const auto ta = make_topic("a", 7);
const auto tb = make_topic("b", 4);
const auto tc = make_topic("c", 4);

} // namespace

TEST_CASE("the uniform assignor balances within one partition") {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    assignor_spec spec;
    int32_t a = 1 + static_cast<int32_t>(rng() % 40);
    int32_t b = static_cast<int32_t>(rng() % 20);
    spec.partition_counts = {{ta.id, a}, {tb.id, b}};
    auto n = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i)
      spec.members.push_back(member("m" + std::to_string(i), {ta.id, tb.id}));
    auto result = assign_uniform(spec);
    check_complete(spec, result);
    size_t lo = SIZE_MAX, hi = 0;
    for (const auto& [id, x] : result) {
      lo = std::min(lo, partition_count(x));
      hi = std::max(hi, partition_count(x));
    }
    CHECK(hi - lo <= 1);
  }
}

TEST_CASE("the uniform assignor leaves partitions with their previous owner "
          "when balance allows") {
  assignor_spec spec;
  spec.partition_counts = {{ta.id, 7}};
  spec.members = {member("m1", {ta.id}, parts(ta, {0, 1, 2, 3})),
                  member("m2", {ta.id}, parts(ta, {4, 5, 6})),
                  member("m3", {ta.id})};
  auto result = assign_uniform(spec);
  check_complete(spec, result);
  // 7 over 3 is 3, 2, 2: only two partitions need to move to m3.
  CHECK(moved(spec, result) == 2);
  CHECK(partition_count(result.at("m3")) == 2);
  // A member that leaves frees only its own partitions.
  assignor_spec after;
  after.partition_counts = spec.partition_counts;
  after.members = {member("m1", {ta.id}, result.at("m1")),
                   member("m3", {ta.id}, result.at("m3"))};
  auto next = assign_uniform(after);
  check_complete(after, next);
  CHECK(moved(after, next) == 0);
}

TEST_CASE("the uniform assignor balances members with different "
          "subscriptions") {
  std::mt19937 rng(5);
  std::vector<uuid> topics{ta.id, tb.id, tc.id};
  for (int round = 0; round < 200; ++round) {
    assignor_spec spec;
    for (auto& t : topics)
      spec.partition_counts[t] = 1 + static_cast<int32_t>(rng() % 12);
    auto n = 2 + rng() % 8;
    for (size_t i = 0; i < n; ++i) {
      std::set<uuid> subs;
      for (auto& t : topics)
        if (rng() % 2)
          subs.insert(t);
      if (subs.empty())
        subs.insert(topics[rng() % 3]);
      spec.members.push_back(member("m" + std::to_string(i), subs));
    }
    auto result = assign_uniform(spec);
    check_complete(spec, result);
    // Balanced: no partition could go to another subscriber of its topic
    // that has two fewer.
    for (const auto& owner : spec.members)
      for (const auto& [t, ps] : result.at(owner.member_id))
        for (const auto& other : spec.members)
          if (other.subscribed_topic_ids.count(t))
            CHECK(partition_count(result.at(other.member_id)) + 1
                  >= partition_count(result.at(owner.member_id)));
  }
}

TEST_CASE("the uniform assignor gives nothing to a member subscribed to no "
          "existing topic") {
  assignor_spec spec;
  spec.partition_counts = {{ta.id, 3}};
  spec.members = {member("m1", {ta.id}), member("m2", {})};
  auto result = assign_uniform(spec);
  check_complete(spec, result);
  CHECK(result.at("m2").empty());
  CHECK(partition_count(result.at("m1")) == 3);
}

TEST_CASE("range assigns co-partitioned topics alike") {
  assignor_spec spec;
  spec.partition_counts = {{tb.id, 4}, {tc.id, 4}};
  spec.members = {member("m1", {tb.id, tc.id}), member("m2", {tb.id, tc.id}),
                  member("m3", {tb.id, tc.id})};
  auto result = assign_server_range(spec);
  check_complete(spec, result);
  for (const auto& [id, a] : result)
    CHECK(a.at(tb.id) == a.at(tc.id));
  CHECK(result.at("m1").at(tb.id) == std::set<int32_t>{0, 1});
  CHECK(result.at("m2").at(tb.id) == std::set<int32_t>{2});
  CHECK(result.at("m3").at(tb.id) == std::set<int32_t>{3});
}

TEST_CASE("range puts static members first, by instance id, then the others "
          "by member id") {
  assignor_spec spec;
  spec.partition_counts = {{ta.id, 7}};
  spec.members = {member("a-dynamic", {ta.id}),
                  member("b", {ta.id}, {}, std::string{"z-instance"}),
                  member("c", {ta.id}, {}, std::string{"y-instance"})};
  auto result = assign_server_range(spec);
  CHECK(result.at("c") == parts(ta, {0, 1, 2}));
  CHECK(result.at("b") == parts(ta, {3, 4}));
  CHECK(result.at("a-dynamic") == parts(ta, {5, 6}));
}

TEST_CASE("range splits each topic among its own subscribers") {
  assignor_spec spec;
  spec.partition_counts = {{ta.id, 7}, {tb.id, 4}};
  spec.members = {member("m1", {ta.id}), member("m2", {ta.id, tb.id})};
  auto result = assign_server_range(spec);
  check_complete(spec, result);
  CHECK(result.at("m1") == parts(ta, {0, 1, 2, 3}));
  CHECK(result.at("m2").at(tb.id) == std::set<int32_t>{0, 1, 2, 3});
}

TEST_CASE("server assignors are found by Kafka's names and class names") {
  CHECK(find_server_assignor("uniform") == &assign_uniform);
  CHECK(find_server_assignor("range") == &assign_server_range);
  CHECK(find_server_assignor("sticky") == nullptr);
  CHECK(server_assignor_name(
          "org.apache.kafka.coordinator.group.assignor.UniformAssignor")
        == "uniform");
  CHECK(server_assignor_name(
          "org.apache.kafka.coordinator.group.assignor.RangeAssignor")
        == "range");
  CHECK(server_assignor_name("cooperative-sticky").empty());
}
