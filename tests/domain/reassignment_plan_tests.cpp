// Reassignment plans of `troupe reassign` (--generate, --balance).

#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "domain/replication/reassignment_plan.hpp"

using namespace troupe;

namespace {

std::map<int32_t, size_t> replica_counts(const replica_plan& plan) {
  std::map<int32_t, size_t> n;
  for (auto& [tp, replicas] : plan)
    for (auto r : replicas)
      ++n[r];
  return n;
}

std::map<int32_t, size_t> preferred_counts(const replica_plan& plan) {
  std::map<int32_t, size_t> n;
  for (auto& [tp, replicas] : plan)
    ++n[replicas.front()];
  return n;
}

/// Three brokers' worth of a 6-partition, RF 3 topic: every broker holds
/// every partition.
replica_plan three_broker_topic() {
  replica_plan p;
  for (int32_t i = 0; i < 6; ++i)
    p[{"t", i}] = {1 + i % 3, 1 + (i + 1) % 3, 1 + (i + 2) % 3};
  return p;
}

} // namespace

TEST_CASE("reassign --generate places each topic anew with Kafka's "
          "rack-unaware assignment over the broker list") {
  auto plan = spread_plan(three_broker_topic(), {1, 2, 3, 4});
  REQUIRE(plan.size() == 6);
  // AdminUtils.assignReplicasToBrokers with start index 0 over [1,2,3,4].
  CHECK(plan[{"t", 0}] == std::vector<int32_t>{1, 2, 3});
  CHECK(plan[{"t", 1}] == std::vector<int32_t>{2, 3, 4});
  for (auto& [tp, replicas] : plan)
    CHECK(replicas.size() == 3);
}

TEST_CASE("reassign --balance onto a new fourth broker moves the fewest "
          "replicas that even out replicas and preferred leaders") {
  auto current = three_broker_topic();
  auto plan = balanced_plan(current, {1, 2, 3, 4});
  // 18 replicas over 4 brokers: 4 or 5 each, so broker 4 takes 4 or 5.
  auto n = replica_counts(plan);
  for (auto& [b, count] : n) {
    CHECK(count >= 4);
    CHECK(count <= 5);
  }
  CHECK(n[4] >= 4);
  CHECK(replicas_moved(current, plan) == n[4]); // only moves onto broker 4
  auto leaders = preferred_counts(plan);
  for (auto b : {1, 2, 3, 4}) {
    CHECK(leaders[b] >= 1);
    CHECK(leaders[b] <= 2);
  }
  for (auto& [tp, replicas] : plan) {
    std::set<int32_t> distinct(replicas.begin(), replicas.end());
    CHECK(distinct.size() == 3);
  }
}

TEST_CASE("reassign --balance of a balanced cluster proposes nothing, and "
          "replicas on a broker left out of the list move") {
  auto current = three_broker_topic();
  CHECK(changed_only(current, balanced_plan(current, {1, 2, 3})).empty());
  replica_plan two;
  two[{"u", 0}] = {1, 9};
  two[{"u", 1}] = {9, 2};
  auto plan = balanced_plan(two, {1, 2});
  CHECK(plan[{"u", 0}].size() == 2);
  for (auto& [tp, replicas] : plan)
    for (auto r : replicas)
      CHECK(r != 9);
}
