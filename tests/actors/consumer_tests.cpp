// Client-side consumer actors against the embedded three-broker node, in
// simulated time: they find the coordinator, join, the leader assigns,
// heartbeats keep them in, and they rebalance when members come and go.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "client/consumer.hpp"
#include "actors/node.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct consumers_fixture : test::sim_fixture {
  cluster_config config;
  embedded_node node;
  std::vector<consumer_actor> consumers;

  consumers_fixture(int32_t partitions = 6) {
    config.seed = 11;
    config.group.initial_rebalance_delay_ms = 0;
    node = spawn_embedded_node(sys, config, listener);
    for (auto& b : node.brokers)
      to_stop.push_back(caf::actor_cast<caf::actor>(b));
    to_stop.push_back(caf::actor_cast<caf::actor>(node.controller));
    auto created = ask<create_topics_response>(
      node.brokers[0], create_topics_request{{{"orders", partitions, 1}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
  }

  consumer_actor start(std::string name,
                       std::vector<std::string> assignors = {"range"},
                       std::string instance = "") {
    consumer_config c;
    c.name = std::move(name);
    c.group_id = "billing";
    c.topics = {"orders"};
    c.assignors = std::move(assignors);
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

  /// Owner of each partition across the live consumers; fails on a
  /// partition owned twice.
  std::map<topic_partition, std::string>
  owners(const std::vector<consumer_actor>& live) {
    std::map<topic_partition, std::string> result;
    for (auto& c : live) {
      auto s = status(c);
      for (auto& tp : s.assignment) {
        auto [it, fresh] = result.emplace(tp, s.consumer);
        INFO(to_string(tp) << " owned by " << s.consumer << " and "
                           << it->second);
        CHECK(fresh);
      }
    }
    return result;
  }

  /// All stable in one generation, at least `min_generation`.
  bool all_stable(const std::vector<consumer_actor>& live,
                  int32_t min_generation = 0) {
    int32_t gen = -2;
    for (auto& c : live) {
      auto s = status(c);
      if (s.state != consumer_phase::stable || s.generation < min_generation)
        return false;
      if (gen != -2 && s.generation != gen)
        return false;
      gen = s.generation;
    }
    return true;
  }

  void settle(const std::vector<consumer_actor>& live, int64_t max_ms,
              int32_t min_generation = 0) {
    for (int64_t t = 0; t < max_ms && !all_stable(live, min_generation);
         t += 100)
      advance(100, 10);
    REQUIRE(all_stable(live, min_generation));
  }
};

} // namespace

TEST_CASE("consumers split the topic's partitions, each owned exactly once") {
  consumers_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  auto c = fx.start("c");
  fx.settle({a, b, c}, 30000);
  auto owners = fx.owners({a, b, c});
  CHECK(owners.size() == 6);
  std::map<std::string, int> counts;
  for (auto& [tp, who] : owners)
    ++counts[who];
  CHECK(counts == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}});
  CHECK(fx.status(a).protocol == "range");
}

TEST_CASE("a consumer that stops heartbeating is expired and the rest take "
          "its partitions") {
  consumers_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  auto c = fx.start("c");
  fx.settle({a, b, c}, 30000);
  auto gen = fx.status(a).generation;
  caf::anon_send(c, consumer_crash{});
  fx.run();
  // Within session.timeout.ms (10 s) plus a heartbeat interval the
  // coordinator expires c and the survivors rebalance.
  fx.advance(9000, 10);
  CHECK(fx.status(a).generation == gen);
  fx.settle({a, b}, 10000, gen + 1);
  CHECK(fx.owners({a, b}).size() == 6);
}

TEST_CASE("a closing consumer leaves the group and the rest rebalance at "
          "once") {
  consumers_fixture fx;
  auto a = fx.start("a");
  auto b = fx.start("b");
  fx.settle({a, b}, 30000);
  auto gen = fx.status(a).generation;
  auto closed = fx.ask<consumer_status>(b, consumer_close{});
  REQUIRE(closed.ready());
  CHECK(closed.get().state == consumer_phase::closed);
  // No session timeout needed: the next heartbeat (3 s) learns of it.
  fx.settle({a}, 4000, gen + 1);
  CHECK(fx.status(a).generation == gen + 1);
  CHECK(fx.status(a).assignment.size() == 6);
}

TEST_CASE("cooperative-sticky moves only the partitions that change owner, "
          "in two rebalances") {
  consumers_fixture fx;
  std::vector<std::string> coop{"cooperative-sticky"};
  auto a = fx.start("a", coop);
  auto b = fx.start("b", coop);
  fx.settle({a, b}, 30000);
  auto before = fx.owners({a, b});
  REQUIRE(before.size() == 6);
  auto gen = fx.status(a).generation;
  fx.events->consumers.clear();
  auto c = fx.start("c", coop);
  fx.settle({a, b, c}, 30000, gen + 2);
  auto after = fx.owners({a, b, c});
  CHECK(after.size() == 6);
  // a and b never gave up a partition that stayed theirs.
  for (auto& ev : fx.events->consumers) {
    if (ev.kind != consumer_event_kind::revoked)
      continue;
    for (auto& tp : ev.partitions)
      CHECK(after[tp] != ev.consumer);
  }
  // First rebalance revokes, the second assigns what was revoked.
  CHECK(fx.status(a).generation >= gen + 2);
  size_t moved = 0;
  for (auto& [tp, who] : after)
    moved += before[tp] != who;
  CHECK(moved == 2);
}

TEST_CASE("a restarted static member keeps its assignment without a "
          "rebalance") {
  consumers_fixture fx;
  auto a = fx.start("a", {"range"}, "host-a");
  auto b = fx.start("b", {"range"}, "host-b");
  fx.settle({a, b}, 30000);
  auto gen = fx.status(a).generation;
  auto a_parts = fx.status(a).assignment;
  auto b_parts = fx.status(b).assignment;
  REQUIRE(b_parts.size() == 3);
  caf::anon_send(b, consumer_crash{});
  fx.run();
  auto b2 = fx.start("b2", {"range"}, "host-b");
  fx.advance(500, 10);
  auto s = fx.status(b2);
  CHECK(s.state == consumer_phase::stable);
  CHECK(s.generation == gen);
  auto sorted = [](std::vector<topic_partition> tps) {
    std::sort(tps.begin(), tps.end());
    return tps;
  };
  // KIP-345: the coordinator hands the returning instance the assignment
  // its previous incarnation held, and nobody else's changes.
  CHECK(sorted(s.assignment) == sorted(b_parts));
  CHECK(fx.status(a).generation == gen);
  CHECK(sorted(fx.status(a).assignment) == sorted(a_parts));
}

TEST_CASE("consumers with no common assignor: the newcomer fails with "
          "INCONSISTENT_GROUP_PROTOCOL") {
  consumers_fixture fx;
  auto a = fx.start("a", {"range"});
  fx.settle({a}, 10000);
  auto b = fx.start("b", {"roundrobin"});
  fx.advance(100, 10);
  auto s = fx.status(b);
  CHECK(s.state == consumer_phase::failed);
  CHECK(s.last_error == error_code::inconsistent_group_protocol);
}

TEST_CASE("a consumer commits offsets for its generation and reads them "
          "back") {
  consumers_fixture fx;
  auto a = fx.start("a");
  fx.settle({a}, 10000);
  auto res = fx.ask<offset_commit_response>(
    a, consumer_commit{{{"orders", 0, 17, -1, "done"}}});
  REQUIRE(res.ready());
  CHECK(res.get().partitions.at(0).error == error_code::none);
  auto any = fx.node.brokers[0];
  auto coord =
    fx.ask<find_coordinator_response>(any, find_coordinator_request{"billing"});
  auto fetched = fx.ask<offset_fetch_response>(
    caf::actor_cast<broker_actor>(coord.get().broker),
    offset_fetch_request{"billing", {{"orders", 0}}});
  CHECK(fetched.get().partitions.at(0).offset == 17);
  CHECK(fetched.get().partitions.at(0).metadata == "done");
}
