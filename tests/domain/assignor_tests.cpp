#include "domain/assignors/assignor.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace troupe;

namespace {

// -- notation -----------------------------------------------------------------

/// Kafka's javadoc notation: "t0p1" is partition 1 of topic t0.
topic_partition tp(const std::string& name) {
  auto at = name.rfind('p');
  return topic_partition{name.substr(0, at), std::stoi(name.substr(at + 1))};
}

std::vector<topic_partition> tps(const std::string& names) {
  std::vector<topic_partition> result;
  std::istringstream in{names};
  for (std::string name; in >> name;)
    result.push_back(tp(name));
  return result;
}

std::string str(const std::vector<topic_partition>& xs) {
  std::string result;
  for (auto& x : xs)
    result +=
      (result.empty() ? "" : " ") + x.topic + "p" + std::to_string(x.partition);
  return result;
}

member_subscription member(std::string id, std::vector<std::string> topics,
                           std::string owned = "", int32_t generation = -1) {
  member_subscription x;
  x.member_id = std::move(id);
  x.topics = std::move(topics);
  x.owned_partitions = tps(owned);
  x.generation = generation;
  return x;
}

member_subscription static_member(std::string id, std::string instance,
                                  std::vector<std::string> topics) {
  auto x = member(std::move(id), std::move(topics));
  x.group_instance_id = std::move(instance);
  return x;
}

/// The members of the next generation: same subscriptions, owning what they
/// were just assigned.
std::vector<member_subscription>
next_generation(std::vector<member_subscription> members,
                const group_assignment& assigned, int32_t generation) {
  for (auto& x : members) {
    x.owned_partitions = assigned.at(x.member_id);
    x.generation = generation;
  }
  return members;
}

const std::vector<std::string> t0_to_t3{"t0", "t1", "t2", "t3"};
const partition_counts four_topics_of_two{
  {"t0", 2}, {"t1", 2}, {"t2", 2}, {"t3", 2}};

// -- checks -------------------------------------------------------------------

/// Each list sorted, only subscribed existing partitions, none twice.
/// Returns how many partitions were handed out.
size_t check_valid(const partition_counts& topics,
                   const std::vector<member_subscription>& members,
                   const group_assignment& result) {
  REQUIRE(result.size() == members.size());
  std::set<topic_partition> seen;
  for (auto& x : members) {
    auto& list = result.at(x.member_id);
    CHECK(std::is_sorted(list.begin(), list.end()));
    for (auto& p : list) {
      CHECK(std::count(x.topics.begin(), x.topics.end(), p.topic) == 1);
      REQUIRE(topics.count(p.topic) == 1);
      CHECK(p.partition >= 0);
      CHECK(p.partition < topics.at(p.topic));
      CHECK(seen.insert(p).second);
    }
  }
  return seen.size();
}

/// Every partition of every subscribed topic is assigned exactly once.
void check_complete(const partition_counts& topics,
                    const std::vector<member_subscription>& members,
                    const group_assignment& result) {
  std::set<std::string> subscribed;
  for (auto& x : members)
    subscribed.insert(x.topics.begin(), x.topics.end());
  size_t expected = 0;
  for (auto& [topic, count] : topics)
    if (subscribed.count(topic) > 0)
      expected += static_cast<size_t>(count);
  CHECK(check_valid(topics, members, result) == expected);
}

std::pair<size_t, size_t> load_range(const group_assignment& result) {
  size_t lo = SIZE_MAX;
  size_t hi = 0;
  for (auto& [id, list] : result) {
    lo = std::min(lo, list.size());
    hi = std::max(hi, list.size());
  }
  return {lo, hi};
}

/// Kafka's notion of balance: no partition could move to another subscriber
/// of its topic that has at least two fewer partitions.
void check_balanced(const std::vector<member_subscription>& members,
                    const group_assignment& result) {
  for (auto& holder : members)
    for (auto& p : result.at(holder.member_id))
      for (auto& other : members) {
        auto& ts = other.topics;
        if (std::find(ts.begin(), ts.end(), p.topic) == ts.end())
          continue;
        INFO(p.topic << p.partition << " " << holder.member_id << " -> "
                     << other.member_id);
        CHECK(result.at(holder.member_id).size()
              < result.at(other.member_id).size() + 2);
      }
}

size_t kept(const member_subscription& before, const group_assignment& now) {
  auto& list = now.at(before.member_id);
  size_t n = 0;
  for (auto& p : before.owned_partitions)
    n += std::binary_search(list.begin(), list.end(), p) ? 1 : 0;
  return n;
}

} // namespace

// -- registry -----------------------------------------------------------------

TEST_CASE("find_assignor knows Kafka's four assignor names and protocols") {
  auto range = find_assignor("range");
  REQUIRE(range != nullptr);
  CHECK(range->protocol == rebalance_protocol::eager);
  CHECK(range->assign == assign_range);
  REQUIRE(find_assignor("roundrobin") != nullptr);
  CHECK(find_assignor("roundrobin")->assign == assign_roundrobin);
  REQUIRE(find_assignor("sticky") != nullptr);
  CHECK(find_assignor("sticky")->protocol == rebalance_protocol::eager);
  auto coop = find_assignor("cooperative-sticky");
  REQUIRE(coop != nullptr);
  CHECK(coop->protocol == rebalance_protocol::cooperative);
  CHECK(coop->assign == assign_cooperative_sticky);
  CHECK(find_assignor("uniform") == nullptr);
  CHECK(find_assignor("") == nullptr);
}

TEST_CASE("every assignor returns an empty map for an empty group") {
  for (auto name : {"range", "roundrobin", "sticky", "cooperative-sticky"})
    CHECK(find_assignor(name)->assign({{"t0", 3}}, {}).empty());
}

TEST_CASE("every assignor lists members that get nothing") {
  std::vector<member_subscription> members{
    member("C0", {"t0"}), member("C1", {"t0"}), member("C2", {"unknown"})};
  for (auto name : {"range", "roundrobin", "sticky", "cooperative-sticky"}) {
    INFO(name);
    auto result = find_assignor(name)->assign({{"t0", 1}}, members);
    REQUIRE(result.size() == 3);
    CHECK(str(result["C0"]) == "t0p0");
    CHECK(result["C1"].empty());
    CHECK(result["C2"].empty());
  }
}

// -- range --------------------------------------------------------------------

TEST_CASE("range assignor gives the first members one extra partition") {
  // RangeAssignor javadoc: C0 and C1 on t0 and t1 with 3 partitions each.
  std::vector<member_subscription> members{member("C0", {"t0", "t1"}),
                                           member("C1", {"t0", "t1"})};
  auto result = assign_range({{"t0", 3}, {"t1", 3}}, members);
  CHECK(str(result["C0"]) == "t0p0 t0p1 t1p0 t1p1");
  CHECK(str(result["C1"]) == "t0p2 t1p2");
}

TEST_CASE("range assignor splits each topic only among its subscribers") {
  std::vector<member_subscription> members{
    member("C0", {"t0"}), member("C1", {"t0", "t1"}), member("C2", {"t1"})};
  auto result = assign_range({{"t0", 5}, {"t1", 2}, {"t2", 9}}, members);
  CHECK(str(result["C0"]) == "t0p0 t0p1 t0p2");
  CHECK(str(result["C1"]) == "t0p3 t0p4 t1p0");
  CHECK(str(result["C2"]) == "t1p1");
}

TEST_CASE("range assignor skips subscribed topics without metadata") {
  std::vector<member_subscription> members{member("C0", {"t0", "gone"}),
                                           member("C1", {"gone"})};
  auto result = assign_range({{"t0", 2}}, members);
  CHECK(str(result["C0"]) == "t0p0 t0p1");
  CHECK(result["C1"].empty());
}

TEST_CASE("range assignor orders static members by group instance id") {
  // KIP-345: a static member keeps its place across restarts, whatever
  // member id the coordinator hands it.
  std::vector<member_subscription> members{
    static_member("m-zzz", "instance-a", {"t0"}),
    static_member("m-aaa", "instance-b", {"t0"})};
  auto result = assign_range({{"t0", 3}}, members);
  CHECK(str(result["m-zzz"]) == "t0p0 t0p1");
  CHECK(str(result["m-aaa"]) == "t0p2");
}

TEST_CASE("range assignor puts static members before dynamic ones") {
  // Kafka's MemberInfo.compareTo: static members (by instance id) come
  // first, then dynamic members by member id.
  std::vector<member_subscription> members{
    member("m-a", {"t0"}), static_member("m-c", "z-instance", {"t0"}),
    member("m-b", {"t0"})};
  auto result = assign_range({{"t0", 3}}, members);
  CHECK(str(result["m-c"]) == "t0p0");
  CHECK(str(result["m-a"]) == "t0p1");
  CHECK(str(result["m-b"]) == "t0p2");
}

// -- roundrobin ---------------------------------------------------------------

TEST_CASE("roundrobin assignor deals sorted partitions over sorted members") {
  // RoundRobinAssignor javadoc, first example.
  std::vector<member_subscription> members{member("C1", {"t0", "t1"}),
                                           member("C0", {"t0", "t1"})};
  auto result = assign_roundrobin({{"t0", 3}, {"t1", 3}}, members);
  CHECK(str(result["C0"]) == "t0p0 t0p2 t1p1");
  CHECK(str(result["C1"]) == "t0p1 t1p0 t1p2");
}

TEST_CASE("roundrobin assignor skips members not subscribed to a topic") {
  // RoundRobinAssignor javadoc, unequal subscriptions.
  std::vector<member_subscription> members{member("C0", {"t0"}),
                                           member("C1", {"t0", "t1"}),
                                           member("C2", {"t0", "t1", "t2"})};
  auto result = assign_roundrobin({{"t0", 1}, {"t1", 2}, {"t2", 3}}, members);
  CHECK(str(result["C0"]) == "t0p0");
  CHECK(str(result["C1"]) == "t1p0");
  CHECK(str(result["C2"]) == "t1p1 t2p0 t2p1 t2p2");
}

TEST_CASE("roundrobin assignor orders static members by group instance id") {
  std::vector<member_subscription> members{static_member("m-1", "i-2", {"t0"}),
                                           static_member("m-2", "i-1", {"t0"})};
  auto result = assign_roundrobin({{"t0", 3}}, members);
  CHECK(str(result["m-2"]) == "t0p0 t0p2");
  CHECK(str(result["m-1"]) == "t0p1");
}

// -- sticky -------------------------------------------------------------------

TEST_CASE("sticky assignor starts out as balanced as round robin") {
  // StickyAssignor javadoc: C0, C1, C2 on t0..t3 with 2 partitions each.
  std::vector<member_subscription> members{
    member("C0", t0_to_t3), member("C1", t0_to_t3), member("C2", t0_to_t3)};
  auto result = assign_sticky(four_topics_of_two, members);
  CHECK(str(result["C0"]) == "t0p0 t1p1 t3p0");
  CHECK(str(result["C1"]) == "t0p1 t2p0 t3p1");
  CHECK(str(result["C2"]) == "t1p0 t2p1");
}

TEST_CASE("sticky assignor keeps all partitions of the members that stay") {
  // StickyAssignor javadoc: C1 leaves; unlike round robin, C0 and C2 keep
  // everything and split C1's partitions.
  std::vector<member_subscription> members{
    member("C0", t0_to_t3, "t0p0 t1p1 t3p0", 1),
    member("C2", t0_to_t3, "t1p0 t2p1", 1)};
  auto result = assign_sticky(four_topics_of_two, members);
  check_complete(four_topics_of_two, members, result);
  CHECK(kept(members[0], result) == 3);
  CHECK(kept(members[1], result) == 2);
  CHECK(result["C0"].size() == 4);
  CHECK(result["C2"].size() == 4);
  // troupe's placement of the moved partitions (deterministic): round robin
  // over the members below quota, in sorted order.
  CHECK(str(result["C0"]) == "t0p0 t0p1 t1p1 t3p0");
  CHECK(str(result["C2"]) == "t1p0 t2p0 t2p1 t3p1");
}

TEST_CASE("sticky assignor moves only surplus partitions to a new member") {
  std::vector<member_subscription> members{
    member("C0", t0_to_t3, "t0p0 t1p1 t3p0", 1),
    member("C1", t0_to_t3, "t0p1 t2p0 t3p1", 1),
    member("C2", t0_to_t3, "t1p0 t2p1", 1), member("C3", t0_to_t3)};
  auto result = assign_sticky(four_topics_of_two, members);
  check_complete(four_topics_of_two, members, result);
  // 8 partitions over 4 members: each keeps 2 and C3 gets the 2 surplus.
  CHECK(load_range(result) == std::make_pair(size_t{2}, size_t{2}));
  CHECK(kept(members[0], result) == 2);
  CHECK(kept(members[1], result) == 2);
  CHECK(kept(members[2], result) == 2);
  // Kafka keeps owned partitions in their original order up to the quota.
  CHECK(str(result["C0"]) == "t0p0 t1p1");
  CHECK(str(result["C1"]) == "t0p1 t2p0");
  CHECK(str(result["C3"]) == "t3p0 t3p1");
}

TEST_CASE("sticky assignor gives P % C members the larger quota") {
  // 7 partitions, 3 members: quotas 3, 2, 2 even though two members owned 3.
  partition_counts topics{{"t0", 7}};
  std::vector<member_subscription> members{
    member("C0", {"t0"}, "t0p0 t0p1 t0p2", 4),
    member("C1", {"t0"}, "t0p3 t0p4 t0p5", 4), member("C2", {"t0"}, "t0p6", 4)};
  auto result = assign_sticky(topics, members);
  check_complete(topics, members, result);
  CHECK(str(result["C0"]) == "t0p0 t0p1 t0p2");
  CHECK(str(result["C1"]) == "t0p3 t0p4");
  CHECK(str(result["C2"]) == "t0p5 t0p6");
}

TEST_CASE("sticky assignor serves partitions with fewer potential owners "
          "first") {
  // StickyAssignor javadoc, unequal subscriptions: where round robin gives
  // C1 [t1p0] and C2 [t1p1 t2p0 t2p1 t2p2], sticky balances.
  partition_counts topics{{"t0", 1}, {"t1", 2}, {"t2", 3}};
  std::vector<member_subscription> members{member("C0", {"t0"}),
                                           member("C1", {"t0", "t1"}),
                                           member("C2", {"t0", "t1", "t2"})};
  auto result = assign_sticky(topics, members);
  CHECK(str(result["C0"]) == "t0p0");
  CHECK(str(result["C1"]) == "t1p0 t1p1");
  CHECK(str(result["C2"]) == "t2p0 t2p1 t2p2");

  // Javadoc: when C0 leaves, C1 and C2 keep theirs and C1 takes t0p0.
  auto next = next_generation({members[1], members[2]}, result, 1);
  auto after = assign_sticky(topics, next);
  CHECK(str(after["C1"]) == "t0p0 t1p0 t1p1");
  CHECK(str(after["C2"]) == "t2p0 t2p1 t2p2");
}

TEST_CASE("sticky assignor gives a doubly claimed partition to the highest "
          "generation") {
  partition_counts topics{{"t0", 4}};
  std::vector<member_subscription> members{
    member("C0", {"t0"}, "t0p0 t0p1", 3),
    member("C1", {"t0"}, "t0p0 t0p1 t0p2 t0p3", 2)};
  auto result = assign_sticky(topics, members);
  CHECK(str(result["C0"]) == "t0p0 t0p1");
  CHECK(str(result["C1"]) == "t0p2 t0p3");
}

TEST_CASE("sticky assignor drops a partition claimed twice in one generation") {
  partition_counts topics{{"t0", 2}};
  std::vector<member_subscription> members{member("C0", {"t0"}, "t0p0", 5),
                                           member("C1", {"t0"}, "t0p0", 5),
                                           member("C2", {"t0"}, "", 5)};
  auto result = assign_sticky(topics, members);
  check_complete(topics, members, result);
  // Neither claim counts, so t0p0 is a free partition: round robin from C0.
  CHECK(str(result["C0"]) == "t0p0");
  CHECK(str(result["C1"]) == "t0p1");
  CHECK(result["C2"].empty());
}

TEST_CASE("sticky assignor drops owned partitions of unsubscribed or deleted "
          "topics") {
  partition_counts topics{{"t0", 2}, {"t1", 2}};
  std::vector<member_subscription> members{
    member("C0", {"t0"}, "t0p0 t1p0 t1p1 gone0p0 t0p7", 1),
    member("C1", {"t0", "t1"}, "", 1)};
  auto result = assign_sticky(topics, members);
  check_complete(topics, members, result);
  check_balanced(members, result);
  CHECK(str(result["C0"]) == "t0p0 t0p1");
  CHECK(str(result["C1"]) == "t1p0 t1p1");
}

TEST_CASE("sticky assignor rebalances differing subscriptions by moving new "
          "partitions") {
  // C0 owned all of t0 and t1; C1 joins for t1 only. C0 keeps t0 and gives
  // up t1 partitions until the loads differ by at most one.
  partition_counts topics{{"t0", 2}, {"t1", 4}};
  std::vector<member_subscription> members{
    member("C0", {"t0", "t1"}, "t0p0 t0p1 t1p0 t1p1 t1p2 t1p3", 1),
    member("C1", {"t1"})};
  auto result = assign_sticky(topics, members);
  check_complete(topics, members, result);
  check_balanced(members, result);
  CHECK(result["C0"].size() == 3);
  CHECK(result["C1"].size() == 3);
  CHECK(kept(members[0], result) == 3);
}

TEST_CASE("sticky assignor stays put when nothing changes") {
  partition_counts topics{{"a", 5}, {"b", 3}, {"c", 7}};
  std::vector<member_subscription> members{
    member("C0", {"a", "b"}), member("C1", {"b", "c"}),
    member("C2", {"a", "c"}), member("C3", {"c"})};
  auto first = assign_sticky(topics, members);
  check_complete(topics, members, first);
  check_balanced(members, first);
  auto second = assign_sticky(topics, next_generation(members, first, 1));
  CHECK(second == first);
}

// -- cooperative-sticky -------------------------------------------------------

TEST_CASE("cooperative sticky assignor withholds partitions that change "
          "owner") {
  partition_counts topics{{"t0", 4}};
  std::vector<member_subscription> members{
    member("C0", {"t0"}, "t0p0 t0p1 t0p2 t0p3", 1), member("C1", {"t0"})};
  auto first = assign_cooperative_sticky(topics, members);
  // C0 revokes t0p2 and t0p3; nobody gets them this round.
  CHECK(str(first["C0"]) == "t0p0 t0p1");
  CHECK(first["C1"].empty());

  // The follow-up rebalance: C0 no longer owns them, so C1 gets them.
  auto second =
    assign_cooperative_sticky(topics, next_generation(members, first, 2));
  CHECK(str(second["C0"]) == "t0p0 t0p1");
  CHECK(str(second["C1"]) == "t0p2 t0p3");
}

TEST_CASE("cooperative sticky assignor hands out unowned partitions at "
          "once") {
  partition_counts topics{{"t0", 4}, {"t1", 2}};
  std::vector<member_subscription> members{
    member("C0", {"t0", "t1"}, "t0p0 t0p1 t0p2 t0p3", 1),
    member("C1", {"t0", "t1"})};
  auto result = assign_cooperative_sticky(topics, members);
  // Quota 3 each: C0 keeps three, t0p3 is withheld; t1 was nobody's.
  CHECK(str(result["C0"]) == "t0p0 t0p1 t0p2");
  CHECK(str(result["C1"]) == "t1p0 t1p1");
}

TEST_CASE("cooperative sticky assignor withholds a partition claimed twice "
          "in one generation") {
  partition_counts topics{{"t0", 2}};
  std::vector<member_subscription> members{member("C0", {"t0"}, "t0p0", 5),
                                           member("C1", {"t0"}, "t0p0", 5)};
  auto result = assign_cooperative_sticky(topics, members);
  // Either claimant may still be fetching t0p0: both must revoke it first.
  CHECK(result["C0"].empty());
  CHECK(str(result["C1"]) == "t0p1");
}

TEST_CASE("cooperative sticky assignor ignores stale claims of older "
          "generations") {
  partition_counts topics{{"t0", 2}};
  std::vector<member_subscription> members{member("C0", {"t0"}, "t0p0 t0p1", 3),
                                           member("C1", {"t0"}, "t0p1", 2)};
  auto result = assign_cooperative_sticky(topics, members);
  // C0's newer claim wins; C1 would get t0p1 only after C0 revokes it.
  CHECK(str(result["C0"]) == "t0p0");
  CHECK(result["C1"].empty());
}

TEST_CASE("cooperative sticky assignor completes a rebalance in two rounds "
          "with differing subscriptions") {
  partition_counts topics{{"t0", 3}, {"t1", 6}};
  std::vector<member_subscription> members{
    member("C0", {"t0", "t1"}, "t0p0 t0p1 t0p2 t1p0 t1p1 t1p2 t1p3 t1p4 t1p5",
           1),
    member("C1", {"t1"}), member("C2", {"t1"})};
  auto first = assign_cooperative_sticky(topics, members);
  CHECK(check_valid(topics, members, first) == 3);
  CHECK(first["C1"].empty());
  CHECK(first["C2"].empty());
  auto second =
    assign_cooperative_sticky(topics, next_generation(members, first, 2));
  check_complete(topics, members, second);
  check_balanced(members, second);
  CHECK(load_range(second) == std::make_pair(size_t{3}, size_t{3}));
}

// -- properties ---------------------------------------------------------------

namespace {

partition_counts random_topics(std::mt19937& rng) {
  partition_counts topics;
  auto n = std::uniform_int_distribution<int>{1, 6}(rng);
  for (int i = 0; i < n; ++i)
    topics["topic-" + std::to_string(i)] =
      std::uniform_int_distribution<int32_t>{0, 12}(rng);
  return topics;
}

std::vector<member_subscription> random_members(std::mt19937& rng,
                                                const partition_counts& topics,
                                                bool identical) {
  std::vector<std::string> names;
  for (auto& [topic, count] : topics)
    names.push_back(topic);
  auto pick = [&] {
    std::vector<std::string> chosen;
    for (auto& name : names)
      if (std::bernoulli_distribution{0.6}(rng))
        chosen.push_back(name);
    if (chosen.empty())
      chosen.push_back(names[rng() % names.size()]);
    std::shuffle(chosen.begin(), chosen.end(), rng);
    return chosen;
  };
  auto common = pick();
  std::vector<member_subscription> members;
  auto n = std::uniform_int_distribution<int>{1, 9}(rng);
  for (int i = 0; i < n; ++i) {
    auto x =
      member("member-" + std::to_string(rng() % 1000) + "-" + std::to_string(i),
             identical ? common : pick());
    if (rng() % 3 == 0)
      x.group_instance_id = "instance-" + std::to_string(rng() % 100);
    members.push_back(std::move(x));
  }
  return members;
}

/// The group after some members left and some joined; those who stay own
/// what they were assigned.
std::vector<member_subscription> churn(std::mt19937& rng,
                                       const partition_counts& topics,
                                       std::vector<member_subscription> members,
                                       const group_assignment& last,
                                       int32_t generation, bool identical) {
  members = next_generation(std::move(members), last, generation);
  std::shuffle(members.begin(), members.end(), rng);
  members.resize(1 + rng() % members.size());
  auto joiners = random_members(rng, topics, false);
  for (auto& x : joiners) {
    x.member_id = "new" + std::to_string(generation) + "-" + x.member_id;
    if (identical)
      x.topics = members.front().topics;
  }
  joiners.resize(std::min<size_t>(joiners.size(), rng() % 3));
  members.insert(members.end(), joiners.begin(), joiners.end());
  return members;
}

bool identical_subscriptions(const std::vector<member_subscription>& members) {
  auto key = [](auto topics) {
    std::sort(topics.begin(), topics.end());
    return topics;
  };
  for (auto& x : members)
    if (key(x.topics) != key(members.front().topics))
      return false;
  return true;
}

} // namespace

TEST_CASE("range and roundrobin assign every partition exactly once") {
  std::mt19937 rng{42};
  for (int round = 0; round < 300; ++round) {
    auto topics = random_topics(rng);
    auto members = random_members(rng, topics, round % 2 == 0);
    INFO("round " << round);
    check_complete(topics, members, assign_range(topics, members));
    auto rr = assign_roundrobin(topics, members);
    check_complete(topics, members, rr);
    if (identical_subscriptions(members))
      CHECK(load_range(rr).second - load_range(rr).first <= 1);
  }
}

TEST_CASE("sticky assignor with identical subscriptions is complete "
          "balanced and sticky") {
  std::mt19937 rng{7};
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    auto topics = random_topics(rng);
    auto members = random_members(rng, topics, true);
    auto result = assign_sticky(topics, members);
    for (int32_t generation = 1; generation <= 3; ++generation) {
      check_complete(topics, members, result);
      auto [lo, hi] = load_range(result);
      CHECK(hi - lo <= 1);
      // Every member that stays keeps what it had, up to the lower quota.
      auto next = churn(rng, topics, members, result, generation, true);
      auto after = assign_sticky(topics, next);
      auto min_quota = check_valid(topics, next, after) / next.size();
      for (auto& x : next)
        CHECK(kept(x, after) >= std::min(x.owned_partitions.size(), min_quota));
      members = std::move(next);
      result = std::move(after);
    }
  }
}

TEST_CASE("sticky assignor with differing subscriptions is complete and "
          "balanced") {
  std::mt19937 rng{1234};
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    auto topics = random_topics(rng);
    auto members = random_members(rng, topics, false);
    auto result = assign_sticky(topics, members);
    for (int32_t generation = 1; generation <= 3; ++generation) {
      check_complete(topics, members, result);
      check_balanced(members, result);
      members = churn(rng, topics, members, result, generation, false);
      result = assign_sticky(topics, members);
    }
  }
}

TEST_CASE("cooperative sticky assignor never gives away owned partitions and "
          "converges") {
  std::mt19937 rng{99};
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    auto topics = random_topics(rng);
    bool identical = round % 2 == 0;
    auto members = random_members(rng, topics, identical);
    auto result = assign_cooperative_sticky(topics, members);
    for (int32_t generation = 1; generation <= 3; ++generation) {
      members = churn(rng, topics, members, result, generation, identical);
      // Rebalance until nothing is withheld; owners are never overridden.
      for (int step = 0;; ++step) {
        REQUIRE(step < 4);
        result = assign_cooperative_sticky(topics, members);
        check_valid(topics, members, result);
        for (auto& owner : members)
          for (auto& p : owner.owned_partitions)
            for (auto& other : members)
              if (other.member_id != owner.member_id) {
                auto& list = result[other.member_id];
                CHECK_FALSE(std::binary_search(list.begin(), list.end(), p));
              }
        if (result == assign_sticky(topics, members))
          break;
        members = next_generation(members, result, generation);
      }
      check_complete(topics, members, result);
      check_balanced(members, result);
    }
  }
}

TEST_CASE("sticky assignors stay complete and balanced with arbitrary owned "
          "partitions") {
  // Stale, doubly claimed, unsubscribed and nonexistent owned partitions.
  std::mt19937 rng{555};
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    auto topics = random_topics(rng);
    auto members = random_members(rng, topics, round % 2 == 0);
    for (auto& x : members) {
      x.generation = static_cast<int32_t>(rng() % 4) - 1;
      for (int n = rng() % 8; n > 0; --n) {
        auto t = rng() % (topics.size() + 1);
        auto name = t == topics.size() ? std::string{"gone"}
                                       : std::next(topics.begin(), t)->first;
        x.owned_partitions.push_back({name, static_cast<int32_t>(rng() % 14)});
      }
    }
    auto sticky = assign_sticky(topics, members);
    check_complete(topics, members, sticky);
    check_balanced(members, sticky);
    if (identical_subscriptions(members))
      CHECK(load_range(sticky).second - load_range(sticky).first <= 1);
    auto coop = assign_cooperative_sticky(topics, members);
    check_valid(topics, members, coop);
    // Cooperative only ever withholds: what it assigns is what sticky does.
    for (auto& [id, list] : coop)
      CHECK(std::includes(sticky[id].begin(), sticky[id].end(), list.begin(),
                          list.end()));
  }
}
