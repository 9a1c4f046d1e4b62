// The broker and group coordinator actors under simulated time: the
// rebalance barrier as parked response promises, timers as delayed sends,
// member sessions as the coordinator's timer wheel.

#include <catch2/catch.hpp>

#include "actors/broker.hpp"
#include "actors/node.hpp"
#include "domain/java_hash.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct node_fixture : test::sim_fixture {
  cluster_config config;
  embedded_node node;

  explicit node_fixture(int32_t initial_delay_ms = 0) {
    config.seed = 7;
    config.group.initial_rebalance_delay_ms = initial_delay_ms;
    node = spawn_embedded_node(sys, config, listener);
    for (auto& b : node.brokers)
      to_stop.push_back(caf::actor_cast<caf::actor>(b));
    to_stop.push_back(caf::actor_cast<caf::actor>(node.controller));
    run();
  }

  /// The broker that coordinates `group`.
  broker_actor coordinator_of(const std::string& group) {
    auto p = offsets_partition_for(group, config.offsets_topic_num_partitions);
    return node.brokers[static_cast<size_t>(p) % node.brokers.size()];
  }

  /// A broker that does not coordinate `group`.
  broker_actor other_than_coordinator(const std::string& group) {
    auto c = coordinator_of(group);
    for (auto& b : node.brokers)
      if (b != c)
        return b;
    return c;
  }

  join_group_request join_req(std::string member_id = "",
                              std::string protocol = "range",
                              std::string group = "g") {
    join_group_request r;
    r.group_id = std::move(group);
    r.member_id = std::move(member_id);
    r.protocol_type = "consumer";
    r.protocols = {{std::move(protocol), bytes{1, 2, 3}}};
    r.session_timeout_ms = 10000;
    r.rebalance_timeout_ms = 5000;
    r.client_id = "c";
    r.require_known_member_id = false;
    return r;
  }

  auto join(join_group_request r) {
    return ask<join_group_response>(coordinator_of(r.group_id), r);
  }

  auto sync(const std::string& member, int32_t gen,
            std::vector<sync_group_assignment> a = {}) {
    sync_group_request r;
    r.group_id = "g";
    r.member_id = member;
    r.generation_id = gen;
    r.assignments = std::move(a);
    return ask<sync_group_response>(coordinator_of("g"), r);
  }

  error_code heartbeat(const std::string& member, int32_t gen) {
    auto p = ask<heartbeat_response>(coordinator_of("g"),
                                     heartbeat_request{"g", gen, member, ""});
    REQUIRE(p.ready());
    return p.get().error;
  }

  /// Two members of group "g" in one generation, both synced now (their
  /// sessions start here): the leader and the other.
  struct two_members {
    std::string leader;
    std::string other;
    int32_t generation = -1;
  };
  two_members join_two() {
    auto a = join(join_req());
    run();
    auto leader = a.get().member_id;
    auto b = join(join_req());
    heartbeat(leader, 1);
    auto a2 = join(join_req(leader));
    REQUIRE(b.ready());
    two_members m{leader, b.get().member_id, a2.get().generation_id};
    sync(m.leader, m.generation, {});
    sync(m.other, m.generation);
    return m;
  }
};

} // namespace

TEST_CASE("FindCoordinator names the leader of the group's offsets "
          "partition") {
  node_fixture fx;
  for (std::string group : {"my-group", "orders", "g", "polygenelubricants"}) {
    auto partition = offsets_partition_for(group, 50);
    for (auto& b : fx.node.brokers) {
      auto res =
        fx.ask<find_coordinator_response>(b, find_coordinator_request{group});
      REQUIRE(res.ready());
      CHECK(res.get().error == error_code::none);
      CHECK(res.get().node_id == partition % 3);
      CHECK(res.get().port == 9092 + partition % 3);
      CHECK(res.get().broker
            == caf::actor_cast<caf::actor>(fx.coordinator_of(group)));
    }
  }
}

TEST_CASE("a group request to a broker that is not the coordinator gets "
          "NOT_COORDINATOR") {
  node_fixture fx;
  auto wrong = fx.other_than_coordinator("g");
  auto j = fx.ask<join_group_response>(wrong, fx.join_req());
  CHECK(j.get().error == error_code::not_coordinator);
  auto h =
    fx.ask<heartbeat_response>(wrong, heartbeat_request{"g", 1, "m", ""});
  CHECK(h.get().error == error_code::not_coordinator);
  auto c = fx.ask<offset_commit_response>(
    wrong, offset_commit_request{"g", -1, "", "", {{"t", 0, 1, -1, ""}}});
  CHECK(c.get().partitions.at(0).error == error_code::not_coordinator);
}

TEST_CASE("JoinGroup barrier answers every parked promise when the initial "
          "rebalance delay ends") {
  node_fixture fx{3000};
  auto a = fx.join(fx.join_req());
  auto b = fx.join(fx.join_req());
  CHECK_FALSE(a.ready()); // parked
  CHECK_FALSE(b.ready());
  // b arrived during the first 3 s delay, so Kafka re-arms it with
  // min(3000, remaining 2000): the barrier completes at the 5 s rebalance
  // timeout.
  fx.advance(4999, 1);
  CHECK_FALSE(a.ready());
  fx.advance(1, 1);
  REQUIRE(a.ready());
  REQUIRE(b.ready());
  CHECK(a.get().error == error_code::none);
  CHECK(a.get().generation_id == 1);
  CHECK(a.get().leader == a.get().member_id);
  CHECK(a.get().members.size() == 2); // only the leader gets the list
  CHECK(b.get().members.empty());
  REQUIRE(!fx.events->groups.empty());
  CHECK(fx.events->groups.back().to == any_group_state::completing_rebalance);
}

TEST_CASE("the leader's SyncGroup assignment reaches the parked follower "
          "through the actors") {
  node_fixture fx;
  auto a = fx.join(fx.join_req());
  fx.run();
  REQUIRE(a.ready());
  auto gen = a.get().generation_id;
  auto leader = a.get().member_id;
  // A second member: the leader learns of the rebalance by heartbeat.
  auto b = fx.join(fx.join_req());
  CHECK(fx.heartbeat(leader, gen) == error_code::rebalance_in_progress);
  auto a2 = fx.join(fx.join_req(leader));
  REQUIRE(a2.ready());
  REQUIRE(b.ready());
  gen = a2.get().generation_id;
  auto follower = b.get().member_id;
  auto fs = fx.sync(follower, gen);
  CHECK_FALSE(fs.ready()); // parked until the leader syncs
  auto ls = fx.sync(leader, gen, {{leader, bytes{1}}, {follower, bytes{2, 2}}});
  REQUIRE(fs.ready());
  REQUIRE(ls.ready());
  CHECK(fs.get().assignment == bytes{2, 2});
  CHECK(ls.get().assignment == bytes{1});
}

TEST_CASE("member session expiry removes a silent member and rebalances the "
          "rest") {
  node_fixture fx;
  auto [leader, silent, gen] = fx.join_two();
  // The leader heartbeats every 3 s; the other member never does.
  for (int i = 0; i < 3; ++i) {
    fx.advance(3000, 10);
    CHECK(fx.heartbeat(leader, gen) == error_code::none);
  }
  fx.advance(1000, 10); // 10 s of silence: the member session expires
  CHECK(fx.heartbeat(leader, gen) == error_code::rebalance_in_progress);
  auto a3 = fx.join(fx.join_req(leader));
  REQUIRE(a3.ready());
  CHECK(a3.get().generation_id == gen + 1);
  CHECK(a3.get().members.size() == 1);
}

TEST_CASE("a silent member's session expires exactly at its session "
          "timeout, not a millisecond before") {
  node_fixture fx;
  auto [leader, other, gen] = fx.join_two(); // sessions of 10 s from here
  // The leader heartbeats every second; the other member never does.
  for (int i = 0; i < 9; ++i) {
    fx.advance(1000);
    REQUIRE(fx.heartbeat(leader, gen) == error_code::none);
  }
  fx.advance(999);
  CHECK(fx.heartbeat(leader, gen) == error_code::none);
  fx.advance(1);
  CHECK(fx.heartbeat(leader, gen) == error_code::rebalance_in_progress);
}

TEST_CASE("many members whose sessions end on one tick expire together and "
          "the group empties") {
  node_fixture fx{3000}; // every join lands before the first barrier
  constexpr int n = 50;
  std::vector<decltype(fx.join(fx.join_req()))> joins;
  for (int i = 0; i < n; ++i)
    joins.push_back(fx.join(fx.join_req()));
  fx.advance(5000, 10);
  std::string leader;
  for (auto& j : joins) {
    REQUIRE(j.ready());
    leader = j.get().leader;
  }
  auto gen = joins[0].get().generation_id;
  for (auto& j : joins)
    fx.sync(j.get().member_id, gen); // every session restarts on this tick
  auto describe = [&] {
    return fx
      .ask<describe_groups_response>(fx.coordinator_of("g"),
                                     describe_groups_request{{"g"}})
      .get()
      .groups.at(0);
  };
  fx.advance(9999);
  CHECK(describe().state == any_group_state::stable);
  CHECK(describe().members.size() == n);
  fx.advance(1);
  CHECK(describe().state == any_group_state::empty);
  CHECK(describe().members.empty());
}

TEST_CASE("a member that left is not expired again when its old session "
          "timer fires") {
  node_fixture fx;
  auto [leader, other, gen] = fx.join_two();
  fx.advance(2000);
  auto left = fx.ask<leave_group_response>(
    fx.coordinator_of("g"), leave_group_request{"g", {{other, ""}}});
  REQUIRE(left.get().error == error_code::none);
  auto a3 = fx.join(fx.join_req(leader));
  REQUIRE(a3.ready());
  auto gen2 = a3.get().generation_id;
  CHECK(a3.get().members.size() == 1);
  fx.sync(leader, gen2, {});
  // Past the departed member's old deadline, with the leader heartbeating:
  // the group stays in its generation.
  for (int i = 0; i < 12; ++i) {
    fx.advance(1000, 10);
    REQUIRE(fx.heartbeat(leader, gen2) == error_code::none);
  }
}

TEST_CASE("every parked promise is answered when the coordinating broker "
          "stops") {
  node_fixture fx{3000};
  auto a = fx.join(fx.join_req());
  auto b = fx.join(fx.join_req());
  REQUIRE_FALSE(a.ready());
  caf::anon_send_exit(fx.coordinator_of("g"), caf::exit_reason::user_shutdown);
  fx.run();
  REQUIRE(a.ready());
  REQUIRE(b.ready());
  CHECK(a.get().error == error_code::not_coordinator);
  CHECK(b.get().error == error_code::not_coordinator);
}

TEST_CASE("bad group requests get Kafka errors from the broker") {
  node_fixture fx;
  auto any = fx.node.brokers[0];
  SECTION("empty group id") {
    auto r = fx.join_req("", "range", "");
    CHECK(fx.ask<join_group_response>(any, r).get().error
          == error_code::invalid_group_id);
  }
  SECTION("over-long group id") {
    auto r = fx.join_req("", "range", std::string(40000, 'g'));
    CHECK(fx.ask<join_group_response>(any, r).get().error
          == error_code::invalid_group_id);
  }
  SECTION("unknown member of an unknown group") {
    auto r = fx.join_req("ghost", "range", "nobody-here");
    CHECK(fx.ask<join_group_response>(fx.coordinator_of("nobody-here"), r)
            .get()
            .error
          == error_code::unknown_member_id);
  }
  SECTION("a commit with a generation for a group that does not exist") {
    auto c = fx.ask<offset_commit_response>(
      fx.coordinator_of("g"),
      offset_commit_request{"g", 3, "m", "", {{"t", 0, 1, -1, ""}}});
    CHECK(c.get().partitions.at(0).error == error_code::illegal_generation);
  }
  SECTION("offsets of a group that does not exist are -1") {
    auto f = fx.ask<offset_fetch_response>(
      fx.coordinator_of("g"), offset_fetch_request{"g", {{"t", 0}}});
    CHECK(f.get().partitions.at(0).offset == -1);
  }
  SECTION("describing an unknown group says Dead") {
    auto d = fx.ask<describe_groups_response>(fx.coordinator_of("zz"),
                                              describe_groups_request{{"zz"}});
    CHECK(d.get().groups.at(0).state == any_group_state::dead);
  }
}

TEST_CASE("a standalone commit is stored and fetched back through the broker") {
  node_fixture fx;
  auto c = fx.ask<offset_commit_response>(
    fx.coordinator_of("g"),
    offset_commit_request{"g", -1, "", "", {{"t", 0, 41, -1, "m"}}});
  CHECK(c.get().partitions.at(0).error == error_code::none);
  auto f = fx.ask<offset_fetch_response>(fx.coordinator_of("g"),
                                         offset_fetch_request{"g", {}});
  REQUIRE(f.get().partitions.size() == 1);
  CHECK(f.get().partitions[0].offset == 41);
  auto l =
    fx.ask<list_groups_response>(fx.coordinator_of("g"), list_groups_request{});
  REQUIRE(l.get().groups.size() == 1);
  CHECK(l.get().groups[0].state == any_group_state::empty);
}

TEST_CASE("a broker that loses leadership of a group's offsets partition "
          "resigns the group and FindCoordinator names the new leader") {
  node_fixture fx{3000};
  auto old = fx.coordinator_of("g");
  auto a = fx.join(fx.join_req());
  REQUIRE_FALSE(a.ready()); // parked in the initial delay
  auto leader = fx.ask<find_coordinator_response>(
    fx.node.brokers[0], find_coordinator_request{"g"});
  auto old_id = leader.get().node_id;
  auto update = fx.ask<leadership_update>(fx.node.controller,
                                          broker_status_change{old_id, false});
  REQUIRE(update.ready());
  fx.run();
  REQUIRE(a.ready());
  CHECK(a.get().error == error_code::not_coordinator);
  // A stopped broker names no coordinator; ask a live one.
  auto live = fx.node.brokers[static_cast<size_t>((old_id + 1) % 3)];
  auto moved =
    fx.ask<find_coordinator_response>(live, find_coordinator_request{"g"});
  CHECK(moved.get().error == error_code::none);
  CHECK(moved.get().node_id != old_id);
  auto again = fx.ask<join_group_response>(old, fx.join_req());
  CHECK(again.get().error == error_code::not_coordinator);
}

TEST_CASE("__consumer_offsets exists from the start with replication factor "
          "min(3, brokers)") {
  node_fixture fx;
  auto md = fx.ask<metadata_response>(
    fx.node.brokers[0], metadata_request{{"__consumer_offsets"}, false});
  REQUIRE(md.get().topics.size() == 1);
  auto& t = md.get().topics[0];
  CHECK(t.error == error_code::none);
  CHECK(t.partitions == 50);
  CHECK(t.partition_states.at(7).replicas.size() == 3);
  CHECK(t.partition_states.at(7).leader == 7 % 3);
}
