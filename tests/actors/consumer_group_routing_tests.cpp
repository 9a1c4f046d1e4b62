// The broker's routing of KIP-848 consumer groups on the embedded node in
// simulated time: ConsumerGroupHeartbeat reaches the group's coordinator
// (created by a joining member), a group id belongs to one protocol at a
// time as in Kafka's GroupMetadataManager, offsets, describe and list go
// to the coordinators of either kind, and new topics reach the groups.

#include <catch2/catch.hpp>

#include "actors/node.hpp"
#include "domain/java_hash.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct routing_fixture : test::sim_fixture {
  cluster_config config;
  embedded_node node;

  routing_fixture() {
    config.seed = 7;
    config.group.initial_rebalance_delay_ms = 0;
    node = spawn_embedded_node(sys, config, listener);
    for (auto& b : node.brokers)
      to_stop.push_back(caf::actor_cast<caf::actor>(b));
    to_stop.push_back(caf::actor_cast<caf::actor>(node.controller));
    auto created = ask<create_topics_response>(
      node.brokers[0], create_topics_request{{{"orders", 6, 1}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
  }

  /// The broker coordinating `group`.
  broker_actor coordinator(const std::string& group) {
    auto r = ask<find_coordinator_response>(node.brokers[0],
                                            find_coordinator_request{group});
    REQUIRE(r.get().error == error_code::none);
    return caf::actor_cast<broker_actor>(r.get().broker);
  }

  /// A broker that does not coordinate `group`.
  broker_actor other_than(const std::string& group) {
    auto c = coordinator(group);
    for (auto& b : node.brokers)
      if (b != c)
        return b;
    FAIL("one broker only");
    return {};
  }

  static consumer_group_heartbeat_request
  joining(const std::string& group, const std::string& member,
          std::vector<std::string> topics = {"orders"}) {
    consumer_group_heartbeat_request req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = 0;
    req.rebalance_timeout_ms = 30000;
    req.subscribed_topic_names = std::move(topics);
    req.topic_partitions = std::vector<consumer_group_topic_partitions>{};
    req.client_id = "test";
    req.client_host = "/127.0.0.1";
    return req;
  }

  static consumer_group_heartbeat_request
  beat(const std::string& group, const std::string& member, int32_t epoch) {
    consumer_group_heartbeat_request req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = epoch;
    return req;
  }

  consumer_group_heartbeat_response
  heartbeat(const broker_actor& b, consumer_group_heartbeat_request req) {
    auto r = ask<consumer_group_heartbeat_response>(b, std::move(req));
    REQUIRE(r.ready());
    return r.get();
  }

  join_group_response join_classic(const std::string& group) {
    join_group_request req;
    req.group_id = group;
    req.protocol_type = "consumer";
    req.protocols = {{"range", bytes{1, 2, 3}}};
    req.session_timeout_ms = 10000;
    req.rebalance_timeout_ms = 10000;
    req.require_known_member_id = false;
    auto r = ask<join_group_response>(coordinator(group), std::move(req));
    REQUIRE(r.ready());
    return r.get();
  }

  list_groups_response list(const std::string& group,
                            std::vector<group_type> types = {}) {
    list_groups_request req;
    req.types_filter = std::move(types);
    auto r = ask<list_groups_response>(coordinator(group), std::move(req));
    REQUIRE(r.ready());
    return r.get();
  }

  static size_t assigned(const consumer_group_heartbeat_response& r) {
    size_t n = 0;
    if (r.assignment)
      for (auto& t : r.assignment->topic_partitions)
        n += t.partitions.size();
    return n;
  }
};

} // namespace

TEST_CASE("a joining member's heartbeat creates the consumer group on its "
          "coordinator and nowhere else") {
  routing_fixture fx;
  auto wrong = fx.heartbeat(fx.other_than("cg"), fx.joining("cg", "m1"));
  CHECK(wrong.error == error_code::not_coordinator);
  auto r = fx.heartbeat(fx.coordinator("cg"), fx.joining("cg", "m1"));
  REQUIRE(r.error == error_code::none);
  CHECK(r.member_id == std::string{"m1"});
  CHECK(r.member_epoch >= 1);
  CHECK(routing_fixture::assigned(r) == 6);
  // The answer names the topics as well as their ids.
  REQUIRE(r.assignment);
  CHECK(r.assignment->topic_partitions.at(0).topic_name == "orders");
  CHECK_FALSE(r.assignment->topic_partitions.at(0).topic_id.is_zero());
}

TEST_CASE("a heartbeat of a member of an unknown consumer group gets "
          "GROUP_ID_NOT_FOUND") {
  routing_fixture fx;
  auto c = fx.coordinator("cg");
  auto r = fx.heartbeat(c, routing_fixture::beat("cg", "m1", 3));
  CHECK(r.error == error_code::group_id_not_found);
  CHECK(r.error_message == std::string{"Consumer group cg not found."});
  auto leave = fx.heartbeat(c, routing_fixture::beat("cg", "m1", -1));
  CHECK(leave.error == error_code::group_id_not_found);
  // Nothing was created: the group is not listed.
  CHECK(fx.list("cg").groups.empty());
}

TEST_CASE("a malformed joining heartbeat is refused before any group "
          "exists") {
  routing_fixture fx;
  auto req = fx.joining("cg", "m1");
  req.rebalance_timeout_ms = -1;
  auto r = fx.heartbeat(fx.coordinator("cg"), req);
  CHECK(r.error == error_code::invalid_request);
  CHECK(r.error_message
        == std::string{"RebalanceTimeoutMs must be provided in first "
                       "request."});
  CHECK(fx.list("cg").groups.empty());
}

TEST_CASE("a consumer group heartbeat for a classic group with members gets "
          "GROUP_ID_NOT_FOUND") {
  routing_fixture fx;
  auto joined = fx.join_classic("g");
  REQUIRE(joined.error == error_code::none);
  auto r = fx.heartbeat(fx.coordinator("g"), fx.joining("g", "m1"));
  CHECK(r.error == error_code::group_id_not_found);
  CHECK(r.error_message == std::string{"Group g is not a consumer group"});
  auto listed = fx.list("g");
  REQUIRE(listed.groups.size() == 1);
  CHECK(listed.groups[0].group_type == group_type::classic);
}

TEST_CASE("an empty classic group gives way to a consumer group, which keeps "
          "its committed offsets") {
  routing_fixture fx;
  auto c = fx.coordinator("g");
  // A standalone commit creates an empty classic group holding offsets.
  auto committed = fx.ask<offset_commit_response>(
    c, offset_commit_request{"g", -1, "", "", {{"orders", 2, 40, -1, "m"}}});
  REQUIRE(committed.get().partitions.at(0).error == error_code::none);
  REQUIRE(fx.list("g").groups.at(0).group_type == group_type::classic);
  auto r = fx.heartbeat(c, fx.joining("g", "m1"));
  REQUIRE(r.error == error_code::none);
  auto listed = fx.list("g");
  REQUIRE(listed.groups.size() == 1);
  CHECK(listed.groups[0].group_type == group_type::consumer);
  CHECK(listed.groups[0].protocol_type == "consumer");
  auto fetched = fx.ask<offset_fetch_response>(
    c, offset_fetch_request{"g", {{"orders", 2}}});
  REQUIRE(fetched.ready());
  CHECK(fetched.get().partitions.at(0).offset == 40);
  CHECK(fetched.get().partitions.at(0).metadata == "m");
}

TEST_CASE("JoinGroup for a consumer group with members gets "
          "INCONSISTENT_GROUP_PROTOCOL") {
  routing_fixture fx;
  REQUIRE(fx.heartbeat(fx.coordinator("cg"), fx.joining("cg", "m1")).error
          == error_code::none);
  auto joined = fx.join_classic("cg");
  CHECK(joined.error == error_code::inconsistent_group_protocol);
}

TEST_CASE("an empty consumer group gives way to a classic group") {
  routing_fixture fx;
  auto c = fx.coordinator("cg");
  auto r = fx.heartbeat(c, fx.joining("cg", "m1"));
  REQUIRE(r.error == error_code::none);
  auto committed = fx.ask<offset_commit_response>(
    c, offset_commit_request{
         "cg", r.member_epoch, "m1", "", {{"orders", 1, 9, -1, ""}}});
  REQUIRE(committed.get().partitions.at(0).error == error_code::none);
  auto left = fx.heartbeat(c, routing_fixture::beat("cg", "m1", -1));
  REQUIRE(left.error == error_code::none);
  auto joined = fx.join_classic("cg");
  CHECK(joined.error == error_code::none);
  auto listed = fx.list("cg");
  REQUIRE(listed.groups.size() == 1);
  CHECK(listed.groups[0].group_type == group_type::classic);
  auto fetched = fx.ask<offset_fetch_response>(
    c, offset_fetch_request{"cg", {{"orders", 1}}});
  CHECK(fetched.get().partitions.at(0).offset == 9);
}

TEST_CASE("offset commits to a consumer group carry the member epoch as "
          "their generation") {
  routing_fixture fx;
  auto c = fx.coordinator("cg");
  auto r = fx.heartbeat(c, fx.joining("cg", "m1"));
  REQUIRE(r.error == error_code::none);
  auto stale = fx.ask<offset_commit_response>(
    c, offset_commit_request{
         "cg", r.member_epoch - 1, "m1", "", {{"orders", 0, 5, -1, ""}}});
  CHECK(stale.get().partitions.at(0).error == error_code::stale_member_epoch);
  auto unknown = fx.ask<offset_commit_response>(
    c, offset_commit_request{
         "cg", r.member_epoch, "nobody", "", {{"orders", 0, 5, -1, ""}}});
  CHECK(unknown.get().partitions.at(0).error == error_code::unknown_member_id);
  auto ok = fx.ask<offset_commit_response>(
    c, offset_commit_request{
         "cg", r.member_epoch, "m1", "", {{"orders", 0, 5, -1, ""}}});
  CHECK(ok.get().partitions.at(0).error == error_code::none);
  auto fetched =
    fx.ask<offset_fetch_response>(c, offset_fetch_request{"cg", {}});
  REQUIRE(fetched.get().partitions.size() == 1);
  CHECK(fetched.get().partitions[0].offset == 5);
}

TEST_CASE("ConsumerGroupDescribe answers consumer groups and refuses classic "
          "and unknown ones, DescribeGroups sees a consumer group as Dead") {
  routing_fixture fx;
  REQUIRE(fx.heartbeat(fx.coordinator("cg"), fx.joining("cg", "m1")).error
          == error_code::none);
  REQUIRE(fx.join_classic("g").error == error_code::none);
  // Ask the coordinator of each group its own question.
  auto described = fx.ask<consumer_group_describe_response>(
    fx.coordinator("cg"), consumer_group_describe_request{{"cg"}, false});
  REQUIRE(described.get().groups.size() == 1);
  auto& cg = described.get().groups[0];
  CHECK(cg.error == error_code::none);
  CHECK(cg.group_id == "cg");
  CHECK(cg.group_state == any_group_state::stable);
  REQUIRE(cg.members.size() == 1);
  CHECK(cg.members[0].member_id == "m1");
  CHECK(cg.members[0].assignment.topic_partitions.at(0).topic_name == "orders");
  auto classic = fx.ask<consumer_group_describe_response>(
    fx.coordinator("g"), consumer_group_describe_request{{"g", "nope"}, false});
  REQUIRE(classic.get().groups.size() == 2);
  CHECK(classic.get().groups[0].error == error_code::group_id_not_found);
  CHECK(classic.get().groups[0].error_message
        == std::string{"Group g is not a consumer group"});
  // "nope" may live elsewhere: then NOT_COORDINATOR, else not found.
  auto nope = classic.get().groups[1].error;
  CHECK((nope == error_code::group_id_not_found
         || nope == error_code::not_coordinator));
  auto dg = fx.ask<describe_groups_response>(fx.coordinator("cg"),
                                             describe_groups_request{{"cg"}});
  REQUIRE(dg.get().groups.size() == 1);
  CHECK(dg.get().groups[0].error == error_code::none);
  CHECK(dg.get().groups[0].state == any_group_state::dead);
}

TEST_CASE("ListGroups lists consumer groups with their type and honours the "
          "types filter") {
  routing_fixture fx;
  // Two groups on one coordinator: find a classic id that shares it.
  auto c = fx.coordinator("cg");
  std::string classic;
  for (int i = 0; classic.empty(); ++i) {
    auto id = "g" + std::to_string(i);
    if (fx.coordinator(id) == c)
      classic = id;
  }
  REQUIRE(fx.heartbeat(c, fx.joining("cg", "m1")).error == error_code::none);
  REQUIRE(fx.join_classic(classic).error == error_code::none);
  auto all = fx.list("cg");
  CHECK(all.groups.size() == 2);
  auto consumers = fx.list("cg", {group_type::consumer});
  REQUIRE(consumers.groups.size() == 1);
  CHECK(consumers.groups[0].group_id == "cg");
  CHECK(consumers.groups[0].state == any_group_state::stable);
  auto classics = fx.list("cg", {group_type::classic});
  REQUIRE(classics.groups.size() == 1);
  CHECK(classics.groups[0].group_id == classic);
  list_groups_request stable_only;
  stable_only.states_filter = {any_group_state::stable};
  auto stable =
    fx.ask<list_groups_response>(c, std::move(stable_only)).get().groups;
  REQUIRE(stable.size() == 1);
  CHECK(stable[0].group_id == "cg");
}

TEST_CASE("a topic created after the group joined reaches its coordinator "
          "and is assigned") {
  routing_fixture fx;
  auto c = fx.coordinator("cg");
  auto r = fx.heartbeat(c, fx.joining("cg", "m1", {"later"}));
  REQUIRE(r.error == error_code::none);
  CHECK(routing_fixture::assigned(r) == 0);
  auto created = fx.ask<create_topics_response>(
    fx.node.brokers[0], create_topics_request{{{"later", 4, 1}}});
  REQUIRE(created.get().topics.at(0).error == error_code::none);
  fx.run();
  // Past group.consumer.assignment.interval.ms since the group's first
  // assignment, the heartbeat that notices the topic runs the assignor.
  fx.advance(1000, 100);
  auto next =
    fx.heartbeat(c, routing_fixture::beat("cg", "m1", r.member_epoch));
  REQUIRE(next.error == error_code::none);
  CHECK(next.member_epoch > r.member_epoch);
  CHECK(routing_fixture::assigned(next) == 4);
}
