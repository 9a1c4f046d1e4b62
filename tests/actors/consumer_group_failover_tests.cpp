// KIP-848 consumer groups across a coordinator move, on the embedded node
// with real temporary log directories in simulated time: the new
// coordinator replays __consumer_offsets and carries each consumer group
// on (Kafka's GroupMetadataManager.replay), as a consumer group.

#include <catch2/catch.hpp>

#include "client/consumer.hpp"
#include "actors/node.hpp"
#include "domain/java_hash.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

struct failover_fixture : test::sim_fixture {
  test::temp_dir dir;
  cluster_config config;
  embedded_node node;

  failover_fixture() {
    config.seed = 5;
    config.log_dirs = dir.path;
    config.detached_io = false;
    config.offsets_topic_num_partitions = 3;
    config.min_insync_replicas = 1;
    config.group.initial_rebalance_delay_ms = 0;
    config.group.consumer_session_timeout_ms = 10000;
    config.group.consumer_heartbeat_interval_ms = 1000;
    node = spawn_embedded_node(sys, config, listener);
    run();
    auto created = ask<create_topics_response>(
      node.controller, create_topics_request{{{"t", 4, 3}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
    advance(300, 10);
  }

  ~failover_fixture() {
    stop_embedded_node(node);
    run();
  }

  int32_t offsets_leader(const std::string& group) {
    auto p = offsets_partition_for(group, config.offsets_topic_num_partitions);
    auto md = ask<metadata_response>(node.controller,
                                     metadata_request{{offsets_topic}, false});
    return md.get()
      .topics.at(0)
      .partition_states.at(static_cast<size_t>(p))
      .leader;
  }

  broker_actor broker(int32_t id) {
    return node.brokers.at(static_cast<size_t>(id));
  }

  void stop_broker(int32_t id) {
    auto res =
      ask<leadership_update>(node.controller, broker_status_change{id, false});
    REQUIRE(res.ready());
    run();
  }

  /// Asks until the new coordinator has loaded the partition.
  template <class Response, class Request, class Loading>
  Response ask_loaded(const broker_actor& b, const Request& req,
                      Loading loading) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto r = ask<Response>(b, req);
      REQUIRE(r.ready());
      if (!loading(r.get()))
        return r.get();
      advance(10, 10);
    }
    FAIL("the coordinator never finished loading");
    return {};
  }

  static consumer_group_heartbeat_request joining(const std::string& group,
                                                  const std::string& member) {
    consumer_group_heartbeat_request req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = 0;
    req.rebalance_timeout_ms = 30000;
    req.subscribed_topic_names = std::vector<std::string>{"t"};
    req.topic_partitions = std::vector<consumer_group_topic_partitions>{};
    return req;
  }
};

bool loading(const consumer_group_heartbeat_response& r) {
  return r.error == error_code::coordinator_load_in_progress;
}

} // namespace

TEST_CASE("a new coordinator loads the consumer group and its members go on "
          "at their member epoch") {
  failover_fixture fx;
  auto old = fx.offsets_leader("cg");
  auto joined = fx.ask<consumer_group_heartbeat_response>(
    fx.broker(old), failover_fixture::joining("cg", "m1"));
  REQUIRE(joined.get().error == error_code::none);
  auto epoch = joined.get().member_epoch;
  auto committed = fx.ask<offset_commit_response>(
    fx.broker(old),
    offset_commit_request{"cg", epoch, "m1", "", {{"t", 3, 77, -1, ""}}});
  REQUIRE(committed.get().partitions.at(0).error == error_code::none);
  fx.stop_broker(old);
  auto next = fx.offsets_leader("cg");
  REQUIRE(next >= 0);
  REQUIRE(next != old);
  consumer_group_heartbeat_request beat;
  beat.group_id = "cg";
  beat.member_id = "m1";
  beat.member_epoch = epoch;
  auto r = fx.ask_loaded<consumer_group_heartbeat_response>(fx.broker(next),
                                                            beat, loading);
  CHECK(r.error == error_code::none);
  CHECK(r.member_epoch == epoch);
  auto listed =
    fx.ask<list_groups_response>(fx.broker(next), list_groups_request{});
  bool found = false;
  for (auto& g : listed.get().groups)
    if (g.group_id == "cg") {
      found = true;
      CHECK(g.group_type == group_type::consumer);
    }
  CHECK(found);
  auto fetched = fx.ask<offset_fetch_response>(
    fx.broker(next), offset_fetch_request{"cg", {{"t", 3}}});
  CHECK(fetched.get().partitions.at(0).offset == 77);
}

TEST_CASE("a classic group replaced by a consumer group stays replaced on "
          "the next coordinator") {
  failover_fixture fx;
  auto old = fx.offsets_leader("g");
  // A classic group with stored metadata: a member joined and synced.
  join_group_request join;
  join.group_id = "g";
  join.protocol_type = "consumer";
  join.protocols = {{"range", bytes{1}}};
  join.session_timeout_ms = 10000;
  join.rebalance_timeout_ms = 10000;
  join.require_known_member_id = false;
  auto j = fx.ask<join_group_response>(fx.broker(old), join);
  REQUIRE(j.get().error == error_code::none);
  auto s = fx.ask<sync_group_response>(
    fx.broker(old),
    sync_group_request{
      "g", j.get().generation_id, j.get().member_id, "", "", "", {}});
  REQUIRE(s.get().error == error_code::none);
  auto left = fx.ask<leave_group_response>(
    fx.broker(old), leave_group_request{"g", {{j.get().member_id, ""}}});
  REQUIRE(left.get().error == error_code::none);
  fx.advance(100, 10);
  // Now empty: a consumer group takes the id over.
  auto cg = fx.ask<consumer_group_heartbeat_response>(
    fx.broker(old), failover_fixture::joining("g", "m1"));
  REQUIRE(cg.get().error == error_code::none);
  fx.stop_broker(old);
  auto next = fx.offsets_leader("g");
  REQUIRE(next != old);
  consumer_group_heartbeat_request beat;
  beat.group_id = "g";
  beat.member_id = "m1";
  beat.member_epoch = cg.get().member_epoch;
  auto r = fx.ask_loaded<consumer_group_heartbeat_response>(fx.broker(next),
                                                            beat, loading);
  CHECK(r.error == error_code::none);
  // No classic group came back: JoinGroup meets the consumer group.
  auto again = fx.ask<join_group_response>(fx.broker(next), join);
  CHECK(again.get().error == error_code::inconsistent_group_protocol);
}

TEST_CASE("consumer-protocol members keep their epoch and partitions across "
          "a coordinator move") {
  failover_fixture fx;
  auto old = fx.offsets_leader("billing");
  std::vector<consumer_actor> members;
  for (int i = 0; i < 2; ++i) {
    consumer_config c;
    c.name = "c" + std::to_string(i);
    c.group_id = "billing";
    c.topics = {"t"};
    c.group_protocol = "consumer";
    c.max_poll_interval_ms = 20000;
    members.push_back(
      fx.sys.spawn<consumer>(c, fx.broker((old + 1) % 3), fx.listener));
    fx.to_stop.push_back(caf::actor_cast<caf::actor>(members.back()));
  }
  auto statuses = [&] {
    std::vector<consumer_status> out;
    for (auto& m : members)
      out.push_back(
        fx.ask<consumer_status>(m, consumer_status_request{}).get());
    return out;
  };
  auto stable = [&] {
    auto ss = statuses();
    size_t owned = 0;
    for (auto& s : ss) {
      // An empty member is not done: the assignor may still wait for
      // group.consumer.assignment.interval.ms.
      if (s.state != consumer_phase::stable || s.generation != ss[0].generation
          || s.assignment.empty())
        return false;
      owned += s.assignment.size();
    }
    return owned == 4;
  };
  for (int i = 0; i < 100 && !stable(); ++i)
    fx.advance(100, 10);
  REQUIRE(stable());
  auto before = statuses();
  fx.stop_broker(old);
  // Several session timeouts: a member that did not reach the new
  // coordinator would have been fenced.
  fx.advance(30000, 50);
  auto after = statuses();
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(after[i].consumer);
    CHECK(after[i].state == consumer_phase::stable);
    CHECK(after[i].generation == before[i].generation);
    CHECK(after[i].member_id == before[i].member_id);
    CHECK(after[i].assignment == before[i].assignment);
  }
}
