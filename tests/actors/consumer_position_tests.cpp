// The client-side consumer's manual assignment (Kafka's assign()) and
// positions (seek, seekToBeginning, seekToEnd), in simulated time against
// the embedded node.

#include <catch2/catch.hpp>

#include "client/consumer.hpp"
#include "actors/node.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct positions_fixture : test::sim_fixture {
  cluster_config config;
  embedded_node node;

  positions_fixture() {
    config.seed = 5;
    config.group.initial_rebalance_delay_ms = 0;
    node = spawn_embedded_node(sys, config, listener);
    for (auto& b : node.brokers)
      to_stop.push_back(caf::actor_cast<caf::actor>(b));
    to_stop.push_back(caf::actor_cast<caf::actor>(node.controller));
    auto created = ask<create_topics_response>(
      node.brokers[0], create_topics_request{{{"orders", 4, 1}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
  }

  consumer_actor start(bool manual, std::vector<topic_partition> parts = {}) {
    consumer_config c;
    c.name = manual ? "manual" : "member";
    c.group_id = "billing";
    c.topics =
      manual ? std::vector<std::string>{} : std::vector<std::string>{"orders"};
    c.manual_assignment = manual;
    c.assignment = std::move(parts);
    c.session_timeout_ms = 10000;
    c.heartbeat_interval_ms = 3000;
    auto a = sys.spawn<consumer>(c, node.brokers[0], listener);
    to_stop.push_back(caf::actor_cast<caf::actor>(a));
    run();
    return a;
  }

  template <class Request>
  consumer_positions positions(const consumer_actor& c, Request req) {
    auto p = ask<consumer_positions>(c, std::move(req));
    REQUIRE(p.ready());
    return p.get();
  }

  consumer_status status(const consumer_actor& c) {
    auto p = ask<consumer_status>(c, consumer_status_request{});
    REQUIRE(p.ready());
    return p.get();
  }
};

} // namespace

TEST_CASE_METHOD(positions_fixture,
                 "a manually assigned consumer owns its partitions without "
                 "joining the group") {
  auto c = start(true, {{"orders", 2}, {"orders", 0}});
  advance(5000, 50);
  auto st = status(c);
  CHECK(st.assignment
        == std::vector<topic_partition>{{"orders", 0}, {"orders", 2}});
  CHECK(st.member_id.empty());
  CHECK(st.generation == -1);
  CHECK(events->groups.empty()); // no JoinGroup reached a coordinator
  auto pos = positions(c, consumer_positions_request{});
  REQUIRE(pos.positions.size() == 2);
  CHECK(pos.positions[0].offset == position_unknown);
}

TEST_CASE_METHOD(positions_fixture,
                 "assign replaces the assignment and keeps the positions of "
                 "partitions that stay") {
  auto c = start(true, {{"orders", 0}, {"orders", 1}});
  positions(c, consumer_seek{{{{"orders", 0}, 7}, {{"orders", 1}, 9}}});
  auto pos = positions(
    c, consumer_assign{{{"orders", 1}, {"orders", 3}, {"orders", 1}}});
  REQUIRE(pos.error == error_code::none);
  REQUIRE(pos.positions.size() == 2);
  CHECK(pos.positions[0].partition == topic_partition{"orders", 1});
  CHECK(pos.positions[0].offset == 9);
  CHECK(pos.positions[1].partition == topic_partition{"orders", 3});
  CHECK(pos.positions[1].offset == position_unknown);
}

TEST_CASE_METHOD(positions_fixture,
                 "seek moves owned partitions and refuses partitions the "
                 "consumer does not own") {
  auto c = start(true, {{"orders", 0}});
  auto pos = positions(
    c, consumer_seek{{{{"orders", 0}, position_earliest}, {{"orders", 3}, 5}}});
  REQUIRE(pos.positions.size() == 1);
  CHECK(pos.positions[0].offset == position_earliest);
  CHECK(pos.not_assigned == std::vector<topic_partition>{{"orders", 3}});
  pos = positions(c, consumer_seek{{{{"orders", 0}, 12}}});
  CHECK(pos.positions[0].offset == 12);
  CHECK(pos.not_assigned.empty());
}

TEST_CASE_METHOD(positions_fixture,
                 "assign on a consumer that subscribed is refused: subscribe "
                 "and assign are mutually exclusive") {
  auto c = start(false);
  advance(3000, 50);
  REQUIRE(status(c).assignment.size() == 4);
  auto pos = positions(c, consumer_assign{{{"orders", 0}}});
  CHECK(pos.error == error_code::invalid_request);
  CHECK(status(c).assignment.size() == 4);
}

TEST_CASE_METHOD(positions_fixture,
                 "partitions revoked by a rebalance lose their positions") {
  auto c = start(false);
  advance(3000, 50);
  REQUIRE(status(c).assignment.size() == 4);
  positions(c, consumer_seek{{{{"orders", 0}, 3},
                              {{"orders", 1}, 4},
                              {{"orders", 2}, 5},
                              {{"orders", 3}, 6}}});
  // A second member joins: the eager range assignor revokes everything and
  // gives this member two partitions back.
  consumer_config other;
  other.name = "other";
  other.group_id = "billing";
  other.topics = {"orders"};
  other.session_timeout_ms = 10000;
  other.heartbeat_interval_ms = 3000;
  auto o = sys.spawn<consumer>(other, node.brokers[1], listener);
  to_stop.push_back(caf::actor_cast<caf::actor>(o));
  advance(12000, 50);
  REQUIRE(status(c).assignment.size() == 2);
  auto pos = positions(c, consumer_positions_request{});
  REQUIRE(pos.positions.size() == 2);
  for (auto& p : pos.positions)
    CHECK(p.offset == position_unknown);
}
