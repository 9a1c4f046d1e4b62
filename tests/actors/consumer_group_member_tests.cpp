// troupe's consumer with group.protocol=consumer (KIP-848) against the
// embedded three-broker node, in simulated time: members join, the
// coordinator splits the partitions, one leaves and the others take over,
// commits carry the member epoch. Every consumer event is checked in the
// order the listener heard it: no partition is ever owned by two members.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "client/consumer.hpp"
#include "actors/node.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct member_fixture : test::sim_fixture {
  cluster_config config;
  embedded_node node;
  std::vector<consumer_actor> consumers;

  explicit member_fixture(int32_t partitions = 6) {
    config.seed = 11;
    config.group.initial_rebalance_delay_ms = 0;
    config.group.consumer_session_timeout_ms = 10000;
    config.group.consumer_heartbeat_interval_ms = 1000;
    node = spawn_embedded_node(sys, config, listener);
    for (auto& b : node.brokers)
      to_stop.push_back(caf::actor_cast<caf::actor>(b));
    to_stop.push_back(caf::actor_cast<caf::actor>(node.controller));
    auto created = ask<create_topics_response>(
      node.brokers[0], create_topics_request{{{"orders", partitions, 1}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
  }

  consumer_actor start(std::string name, std::string protocol = "consumer",
                       std::string instance = "") {
    consumer_config c;
    c.name = std::move(name);
    c.group_id = "billing";
    c.topics = {"orders"};
    c.group_protocol = std::move(protocol);
    c.assignors = {"range"};
    c.group_instance_id = std::move(instance);
    c.session_timeout_ms = 10000;
    c.heartbeat_interval_ms = 3000;
    c.max_poll_interval_ms = 20000;
    auto a = sys.spawn<consumer>(c, node.brokers[1], listener);
    consumers.push_back(a);
    to_stop.push_back(caf::actor_cast<caf::actor>(a));
    run();
    return a;
  }

  consumer_status status(const consumer_actor& c) {
    auto p = ask<consumer_status>(c, consumer_status_request{});
    REQUIRE(p.ready());
    return p.get();
  }

  /// Every member stable at one epoch and every partition owned once.
  bool settled(const std::vector<consumer_actor>& live, size_t partitions) {
    int32_t epoch = -1;
    std::set<topic_partition> owned;
    size_t total = 0;
    for (auto& c : live) {
      auto s = status(c);
      if (s.state != consumer_phase::stable
          || (epoch >= 0 && s.generation != epoch))
        return false;
      epoch = s.generation;
      owned.insert(s.assignment.begin(), s.assignment.end());
      total += s.assignment.size();
    }
    if (owned.size() != partitions || total != partitions)
      return false;
    // The members alone can look settled while the coordinator still
    // waits to run its assignor (group.consumer.assignment.interval.ms):
    // the group itself must be Stable.
    auto d = ask<consumer_group_describe_response>(
      coordinator(), consumer_group_describe_request{{"billing"}, false});
    return d.ready() && d.get().groups.size() == 1
           && d.get().groups[0].group_state == any_group_state::stable;
  }

  void settle(const std::vector<consumer_actor>& live, int64_t max_ms,
              size_t partitions = 6) {
    for (int64_t t = 0; t < max_ms && !settled(live, partitions); t += 100)
      advance(100, 10);
    REQUIRE(settled(live, partitions));
  }

  /// Consumers that crashed, by the number of events heard before: a dead
  /// process owns nothing from then on.
  std::multimap<size_t, std::string> crashes;

  void crash(const consumer_actor& c, std::string name) {
    crashes.emplace(events->consumers.size(), std::move(name));
    caf::anon_send(c, consumer_crash{});
    run();
  }

  /// Replays every consumer event in the order the listener heard it and
  /// fails at the first partition owned by two members at once.
  void check_exclusive_ownership() {
    std::map<std::string, std::set<topic_partition>> held;
    size_t step = 0;
    for (auto& ev : events->consumers) {
      auto [first, last] = crashes.equal_range(step);
      for (auto i = first; i != last; ++i)
        held[i->second].clear();
      ++step;
      auto& mine = held[ev.consumer];
      switch (ev.kind) {
        case consumer_event_kind::assigned:
          mine = {ev.partitions.begin(), ev.partitions.end()};
          for (auto& [who, theirs] : held) {
            if (who == ev.consumer)
              continue;
            for (auto& tp : mine) {
              INFO("event " << step << ": " << to_string(tp) << " assigned to "
                            << ev.consumer << " while owned by " << who);
              CHECK(theirs.count(tp) == 0);
            }
          }
          break;
        case consumer_event_kind::revoked:
        case consumer_event_kind::lost:
          for (auto& tp : ev.partitions)
            mine.erase(tp);
          break;
        case consumer_event_kind::left:
        case consumer_event_kind::failed:
          mine.clear();
          break;
        default:
          break;
      }
    }
  }

  broker_actor coordinator() {
    auto r = ask<find_coordinator_response>(
      node.brokers[0], find_coordinator_request{"billing"});
    return caf::actor_cast<broker_actor>(r.get().broker);
  }
};

} // namespace

TEST_CASE("consumer-protocol members split the partitions, each owned "
          "exactly once") {
  member_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  auto c = fx.start("c");
  fx.settle({a, b, c}, 30000);
  std::map<std::string, size_t> counts;
  for (auto& x : {a, b, c}) {
    auto s = fx.status(x);
    counts[s.consumer] = s.assignment.size();
    CHECK_FALSE(s.member_id.empty());
  }
  CHECK(counts == std::map<std::string, size_t>{{"a", 2}, {"b", 2}, {"c", 2}});
  fx.check_exclusive_ownership();
  // The coordinator describes the same assignment.
  auto described = fx.ask<consumer_group_describe_response>(
    fx.coordinator(), consumer_group_describe_request{{"billing"}, false});
  REQUIRE(described.get().groups.size() == 1);
  CHECK(described.get().groups[0].group_state == any_group_state::stable);
  CHECK(described.get().groups[0].members.size() == 3);
}

TEST_CASE("a member that leaves hands its partitions over and no partition "
          "is ever owned twice") {
  member_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  fx.settle({a, b}, 30000);
  auto c = fx.start("c");
  fx.settle({a, b, c}, 30000);
  auto epoch = fx.status(a).generation;
  auto closed = fx.ask<consumer_status>(c, consumer_close{});
  REQUIRE(closed.ready());
  CHECK(closed.get().state == consumer_phase::closed);
  CHECK(closed.get().assignment.empty());
  // The survivors learn of it with their next heartbeat (1 s).
  fx.settle({a, b}, 5000);
  CHECK(fx.status(a).generation > epoch);
  CHECK(fx.status(a).assignment.size() + fx.status(b).assignment.size() == 6);
  fx.check_exclusive_ownership();
}

TEST_CASE("a consumer-protocol member that crashes is fenced after "
          "group.consumer.session.timeout.ms and the others take over") {
  member_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  auto c = fx.start("c");
  fx.settle({a, b, c}, 30000);
  fx.crash(c, "c");
  fx.settle({a, b}, 15000);
  fx.check_exclusive_ownership();
}

TEST_CASE("a member removed by the coordinator rejoins with member epoch 0 "
          "under its member id") {
  member_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  fx.settle({a, b}, 30000);
  auto before = fx.status(b);
  // Someone sends b's leave: the coordinator forgets b, whose next
  // heartbeat gets UNKNOWN_MEMBER_ID.
  consumer_group_heartbeat_request leave;
  leave.group_id = "billing";
  leave.member_id = before.member_id;
  leave.member_epoch = -1;
  auto left =
    fx.ask<consumer_group_heartbeat_response>(fx.coordinator(), leave);
  REQUIRE(left.get().error == error_code::none);
  // a and b still look settled until b's next heartbeat (1 s) learns it.
  fx.advance(2000, 10);
  fx.settle({a, b}, 10000);
  auto after = fx.status(b);
  CHECK(after.member_id == before.member_id);
  CHECK(after.generation > before.generation);
  bool lost = false;
  for (auto& ev : fx.events->consumers)
    lost = lost || (ev.consumer == "b" && ev.kind == consumer_event_kind::lost);
  CHECK(lost);
  // No ownership check here: the coordinator hands b's partitions to a at
  // once, while b holds them until its next heartbeat hears it was removed
  // (Kafka's zombie window; b's commits in it are fenced).
}

TEST_CASE("commits carry the member epoch and resume after the partitions "
          "moved") {
  member_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  fx.settle({a, b}, 30000);
  auto b_parts = fx.status(b).assignment;
  REQUIRE_FALSE(b_parts.empty());
  auto tp = b_parts.front();
  auto first = fx.ask<offset_commit_response>(
    b, consumer_commit{{{tp.topic, tp.partition, 10, -1, "b"}}});
  REQUIRE(first.ready());
  CHECK(first.get().partitions.at(0).error == error_code::none);
  REQUIRE(fx.ask<consumer_status>(b, consumer_close{}).ready());
  fx.settle({a}, 5000);
  auto owned = fx.status(a).assignment;
  CHECK(std::find(owned.begin(), owned.end(), tp) != owned.end());
  // a takes over where b stopped and commits further, at its new epoch.
  auto fetched = fx.ask<offset_fetch_response>(
    fx.coordinator(), offset_fetch_request{"billing", {tp}});
  CHECK(fetched.get().partitions.at(0).offset == 10);
  auto next = fx.ask<offset_commit_response>(
    a, consumer_commit{{{tp.topic, tp.partition, 11, -1, "a"}}});
  REQUIRE(next.ready());
  CHECK(next.get().partitions.at(0).error == error_code::none);
  fetched = fx.ask<offset_fetch_response>(
    fx.coordinator(), offset_fetch_request{"billing", {tp}});
  CHECK(fetched.get().partitions.at(0).offset == 11);
  CHECK(fetched.get().partitions.at(0).metadata == "a");
}

TEST_CASE("a classic consumer cannot join a consumer group with members") {
  member_fixture fx;
  auto a = fx.start("a");
  fx.settle({a}, 10000);
  auto b = fx.start("b", "classic");
  fx.advance(500, 10);
  auto s = fx.status(b);
  CHECK(s.state == consumer_phase::failed);
  CHECK(s.last_error == error_code::inconsistent_group_protocol);
}
