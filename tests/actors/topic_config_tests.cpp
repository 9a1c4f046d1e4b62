// Per-topic configs on the embedded node: CreateTopics' configs and
// AlterConfigs reach the controller's metadata (and its file), every broker
// applies them to its log manager and replicas (min.insync.replicas,
// max.message.bytes, segment.bytes), and bad changes get Kafka's errors.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "actors/node.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

struct topic_config_fixture : test::sim_fixture {
  test::temp_dir dir;
  cluster_config config;
  embedded_node node;

  topic_config_fixture() {
    config.seed = 11;
    config.log_dirs = dir.path;
    config.detached_io = false;
    config.offsets_topic_num_partitions = 1;
    start();
  }

  ~topic_config_fixture() {
    stop();
  }

  void start() {
    node = spawn_embedded_node(sys, config, listener);
    run();
    advance(200, 10);
  }

  void stop() {
    stop_embedded_node(node);
    run();
  }

  topic_result create(const std::string& name, int32_t partitions, int16_t rf,
                      topic_configs configs = {}, bool validate_only = false) {
    new_topic t{name, partitions, rf, std::move(configs), validate_only};
    auto created = ask<create_topics_response>(node.brokers.at(0),
                                               create_topics_request{{t}});
    REQUIRE(created.ready());
    advance(200, 10);
    return created.get().topics.at(0);
  }

  alter_topic_configs_response alter(alter_topic_configs_request req,
                                     size_t via = 1) {
    auto res =
      ask<alter_topic_configs_response>(node.brokers.at(via), std::move(req));
    REQUIRE(res.ready());
    advance(200, 10);
    return res.get();
  }

  topic_metadata describe(const std::string& name, size_t via = 0) {
    auto md = ask<metadata_response>(node.brokers.at(via),
                                     metadata_request{{name}, false});
    REQUIRE(md.ready());
    return md.get().topics.at(0);
  }

  broker_actor leader_of(const std::string& topic) {
    auto l = describe(topic).partition_states.at(0).leader;
    return node.brokers.at(static_cast<size_t>(l));
  }

  produce_response produce(const std::string& topic, int16_t acks,
                           size_t value_bytes = 1) {
    auto batch =
      encode_batch(0, 0, {{std::nullopt, bytes(value_bytes, 'x'), 1, {}}});
    auto res = ask<produce_response>(
      leader_of(topic), produce_request{{topic, 0}, acks, 30000, batch});
    REQUIRE(res.ready());
    return res.get();
  }

  size_t segment_files(int32_t broker, const std::string& partition) {
    size_t n = 0;
    auto path =
      dir.path + "/broker-" + std::to_string(broker) + "/" + partition;
    for (auto& e : std::filesystem::directory_iterator(path))
      if (e.path().extension() == ".log")
        ++n;
    return n;
  }
};

config_op set(std::string name, std::string value) {
  return {std::move(name), config_op_type::set, std::move(value)};
}

} // namespace

TEST_CASE("CreateTopics stores the topic's configs and Metadata answers "
          "them on every broker") {
  topic_config_fixture fx;
  auto r = fx.create("compacted", 1, 3,
                     {{"cleanup.policy", "compact"}, {"retention.ms", "1000"}});
  CHECK(r.error == error_code::none);
  for (size_t b = 0; b < 3; ++b)
    CHECK(fx.describe("compacted", b).configs
          == topic_configs{{"cleanup.policy", "compact"},
                           {"retention.ms", "1000"}});
  // __consumer_offsets carries Kafka's internal configs.
  CHECK(fx.describe(offsets_topic).configs.at("cleanup.policy") == "compact");
}

TEST_CASE("CreateTopics with an invalid config is INVALID_CONFIG and creates "
          "nothing, validate_only creates nothing either") {
  topic_config_fixture fx;
  auto r = fx.create("bad", 1, 3, {{"retention.ms", "soon"}});
  CHECK(r.error == error_code::invalid_config);
  CHECK(r.message
        == "Invalid value soon for configuration retention.ms: Not a number "
           "of type LONG");
  CHECK(fx.describe("bad").error == error_code::unknown_topic_or_partition);
  auto v = fx.create("checked", 1, 3, {{"retention.ms", "5"}}, true);
  CHECK(v.error == error_code::none);
  CHECK(fx.describe("checked").error == error_code::unknown_topic_or_partition);
  // validate_only runs every check: an existing topic is still refused.
  fx.create("taken", 1, 1);
  CHECK(fx.create("taken", 1, 1, {}, true).error
        == error_code::topic_already_exists);
}

TEST_CASE("a topic's min.insync.replicas refuses acks=all with "
          "NOT_ENOUGH_REPLICAS, and altering it takes effect at once") {
  topic_config_fixture fx;
  fx.create("strict", 1, 3, {{"min.insync.replicas", "3"}});
  fx.create("lenient", 1, 3);
  REQUIRE(fx.produce("strict", -1).error == error_code::none);
  // A broker that leads neither partition stops; both ISRs shrink to two.
  auto a = fx.describe("strict").partition_states.at(0).leader;
  auto b = fx.describe("lenient").partition_states.at(0).leader;
  int32_t victim = 0;
  while (victim == a || victim == b)
    ++victim;
  auto stopped = fx.ask<leadership_update>(fx.node.controller,
                                           broker_status_change{victim, false});
  REQUIRE(stopped.ready());
  fx.advance(200, 10);
  REQUIRE(fx.describe("strict").partition_states.at(0).isr.size() == 2);
  CHECK(fx.produce("strict", -1).error == error_code::not_enough_replicas);
  CHECK(fx.produce("strict", 1).error == error_code::none); // acks=1 is not
  CHECK(fx.produce("lenient", -1).error == error_code::none);
  auto res =
    fx.alter({"strict", {set("min.insync.replicas", "2")}, true, false});
  CHECK(res.error == error_code::none);
  CHECK(fx.produce("strict", -1).error == error_code::none);
}

TEST_CASE("a topic's max.message.bytes refuses a larger batch with "
          "MESSAGE_TOO_LARGE on its leader only") {
  topic_config_fixture fx;
  fx.create("small", 1, 3, {{"max.message.bytes", "200"}});
  fx.create("big", 1, 3);
  CHECK(fx.produce("small", -1, 500).error == error_code::message_too_large);
  CHECK(fx.produce("small", -1, 10).error == error_code::none);
  CHECK(fx.produce("big", -1, 500).error == error_code::none);
  // Raised live: the next produce passes.
  fx.alter({"small", {set("max.message.bytes", "4096")}, true, false});
  CHECK(fx.produce("small", -1, 500).error == error_code::none);
}

TEST_CASE("a topic config change reaches every broker's log manager: "
          "segment.bytes rolls that topic's segments on every replica") {
  topic_config_fixture fx;
  fx.create("rolling", 1, 3);
  fx.create("steady", 1, 3);
  auto res = fx.alter({"rolling", {set("segment.bytes", "200")}, true, false});
  REQUIRE(res.error == error_code::none);
  for (int i = 0; i < 5; ++i) {
    REQUIRE(fx.produce("rolling", -1, 100).error == error_code::none);
    REQUIRE(fx.produce("steady", -1, 100).error == error_code::none);
  }
  fx.advance(2000, 10); // the followers fetch
  for (int32_t b = 0; b < 3; ++b) {
    INFO("broker " << b);
    CHECK(fx.segment_files(b, "rolling-0") >= 4);
    CHECK(fx.segment_files(b, "steady-0") == 1);
  }
}

TEST_CASE("AlterConfigs errors: an unknown topic, an invalid value, "
          "validate_only stores nothing") {
  topic_config_fixture fx;
  fx.create("t", 1, 3, {{"retention.ms", "1000"}});
  auto unknown = fx.alter({"nope", {set("retention.ms", "1")}, true, false});
  CHECK(unknown.error == error_code::unknown_topic_or_partition);
  CHECK(unknown.message == "The topic 'nope' does not exist.");
  auto bad = fx.alter({"t", {set("cleanup.policy", "shred")}, true, false});
  CHECK(bad.error == error_code::invalid_config);
  CHECK(bad.message
        == "Invalid value shred for configuration cleanup.policy: String must "
           "be one of: compact, delete");
  auto dry = fx.alter({"t", {set("retention.ms", "5")}, true, true});
  CHECK(dry.error == error_code::none);
  CHECK(dry.configs == topic_configs{{"retention.ms", "5"}});
  CHECK(fx.describe("t").configs == topic_configs{{"retention.ms", "1000"}});
  // AlterConfigs (not incremental) replaces the set.
  auto replaced = fx.alter({"t", {set("segment.ms", "60000")}, false, false});
  CHECK(replaced.error == error_code::none);
  CHECK(fx.describe("t").configs == topic_configs{{"segment.ms", "60000"}});
}

TEST_CASE("topic configs survive a restart of the node") {
  topic_config_fixture fx;
  fx.create("kept", 1, 3, {{"cleanup.policy", "compact"}});
  fx.alter({"kept", {set("min.insync.replicas", "2")}, true, false});
  fx.stop();
  fx.start();
  CHECK(fx.describe("kept").configs
        == topic_configs{{"cleanup.policy", "compact"},
                         {"min.insync.replicas", "2"}});
}

TEST_CASE("turning on a topic's unclean.leader.election.enable elects a "
          "leader for its offline partitions at once") {
  topic_config_fixture fx;
  fx.create("lossy", 1, 2);
  auto p = fx.describe("lossy").partition_states.at(0);
  auto leader = p.leader;
  auto follower =
    p.replicas.at(0) == leader ? p.replicas.at(1) : p.replicas.at(0);
  // The follower stops (the ISR shrinks to the leader), then the leader:
  // the partition is offline, and the follower, back but out of sync,
  // may not lead it cleanly.
  fx.ask<leadership_update>(fx.node.controller,
                            broker_status_change{follower, false});
  fx.advance(200, 10);
  fx.ask<leadership_update>(fx.node.controller,
                            broker_status_change{leader, false});
  fx.advance(200, 10);
  fx.ask<leadership_update>(fx.node.controller,
                            broker_status_change{follower, true});
  fx.advance(200, 10);
  auto via = static_cast<size_t>(follower);
  REQUIRE(fx.describe("lossy", via).partition_states.at(0).leader == -1);
  auto res = fx.alter(
    {"lossy", {set("unclean.leader.election.enable", "true")}, true, false},
    via);
  REQUIRE(res.error == error_code::none);
  auto now = fx.describe("lossy", via).partition_states.at(0);
  CHECK(now.leader == follower);
  CHECK(now.isr == std::vector<int32_t>{follower});
  CHECK(now.leader_epoch > p.leader_epoch);
  // The new leader serves.
  auto written = fx.ask<produce_response>(
    fx.node.brokers.at(via),
    produce_request{{"lossy", 0},
                    1,
                    30000,
                    encode_batch(0, 0, {{std::nullopt, bytes{'x'}, 1, {}}})});
  REQUIRE(written.ready());
  CHECK(written.get().error == error_code::none);
}
