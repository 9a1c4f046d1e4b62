// Per-topic configs: Kafka's LogConfig validation and its messages,
// IncrementalAlterConfigs' operations, the settings a topic ends up with,
// the controller's per-topic unclean leader election, and the znodes of
// /config/topics and /config/changes byte for byte.

#include <catch2/catch.hpp>

#include <string>

#include "domain/replication/cluster_metadata.hpp"
#include "domain/topic_config.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"

using namespace troupe;

namespace {

config_error check(const topic_configs& configs,
                   const std::string& topic = "t") {
  cluster_config broker;
  return validate_topic_configs(broker, topic, configs);
}

config_op set(std::string name, std::string value) {
  return {std::move(name), config_op_type::set, std::move(value)};
}

config_op op(config_op_type type, std::string name, std::string value = {}) {
  return {std::move(name), type, std::move(value)};
}

} // namespace

// -- validation -----------------------------------------------------------------

TEST_CASE("every topic config troupe supports is accepted with a valid value") {
  CHECK(check({{"cleanup.policy", "compact,delete"},
               {"retention.ms", "-1"},
               {"retention.bytes", "-1"},
               {"segment.bytes", "1048576"},
               {"segment.ms", "60000"},
               {"min.insync.replicas", "2"},
               {"max.message.bytes", "2097152"},
               {"delete.retention.ms", "0"},
               {"min.compaction.lag.ms", "1000"},
               {"max.compaction.lag.ms", "2000"},
               {"min.cleanable.dirty.ratio", "0.1"},
               {"message.timestamp.type", "LogAppendTime"},
               {"unclean.leader.election.enable", "TRUE"}})
          .ok());
  CHECK(topic_config_defs().size() == 15);
}

TEST_CASE("an unknown topic config name is INVALID_CONFIG with Kafka's "
          "message") {
  auto e = check({{"retention.msec", "1"}});
  CHECK(e.error == error_code::invalid_config);
  CHECK(e.message == "Unknown topic config name: retention.msec");
}

TEST_CASE("a Kafka topic config troupe does not implement is refused by name") {
  auto e = check({{"compression.type", "lz4"}});
  CHECK(e.error == error_code::invalid_config);
  CHECK(e.message
        == "Topic config compression.type is not supported by troupe");
}

TEST_CASE("values that do not parse as their type get ConfigDef's message") {
  CHECK(check({{"retention.ms", "abc"}}).message
        == "Invalid value abc for configuration retention.ms: Not a number of "
           "type LONG");
  CHECK(check({{"segment.bytes", "4294967296"}}).message
        == "Invalid value 4294967296 for configuration segment.bytes: Not a "
           "number of type INT");
  CHECK(check({{"min.cleanable.dirty.ratio", "half"}}).message
        == "Invalid value half for configuration min.cleanable.dirty.ratio: "
           "Not a number of type DOUBLE");
  CHECK(check({{"unclean.leader.election.enable", "yes"}}).message
        == "Invalid value yes for configuration "
           "unclean.leader.election.enable: Expected value to be either true "
           "or false");
  CHECK(check({{"retention.ms", "abc"}}).error == error_code::invalid_config);
  // Java trims before parsing.
  CHECK(check({{"retention.ms", " 1000 "}}).ok());
}

TEST_CASE("values outside their range get Range's message with the parsed "
          "value") {
  CHECK(check({{"retention.ms", "-2"}}).message
        == "Invalid value -2 for configuration retention.ms: Value must be at "
           "least -1");
  CHECK(check({{"min.insync.replicas", "+0"}}).message
        == "Invalid value 0 for configuration min.insync.replicas: Value must "
           "be at least 1");
  CHECK(check({{"segment.ms", "0"}}).message
        == "Invalid value 0 for configuration segment.ms: Value must be at "
           "least 1");
  CHECK(check({{"segment.bytes", "13"}}).message
        == "Invalid value 13 for configuration segment.bytes: Value must be "
           "at least 14");
  // A DOUBLE is printed as Java's Double.toString prints it.
  CHECK(check({{"min.cleanable.dirty.ratio", "2"}}).message
        == "Invalid value 2.0 for configuration min.cleanable.dirty.ratio: "
           "Value must be no more than 1");
  CHECK(check({{"min.cleanable.dirty.ratio", "-0.25"}}).message
        == "Invalid value -0.25 for configuration min.cleanable.dirty.ratio: "
           "Value must be at least 0");
}

TEST_CASE("cleanup.policy and message.timestamp.type take only Kafka's "
          "strings") {
  CHECK(check({{"cleanup.policy", "compact, foo"}}).message
        == "Invalid value foo for configuration cleanup.policy: String must "
           "be one of: compact, delete");
  CHECK(check({{"message.timestamp.type", "logappendtime"}}).message
        == "Invalid value logappendtime for configuration "
           "message.timestamp.type: String must be one of: CreateTime, "
           "LogAppendTime");
  CHECK(check({{"cleanup.policy", "delete , compact"}}).ok());
  CHECK(check({{"cleanup.policy", ""}}).ok()); // the empty list
}

TEST_CASE("min.compaction.lag.ms above max.compaction.lag.ms is a conflict, "
          "the broker's values included") {
  auto e = check(
    {{"min.compaction.lag.ms", "5000"}, {"max.compaction.lag.ms", "4000"}});
  CHECK(e.error == error_code::invalid_config);
  CHECK(e.message
        == "conflict topic config setting min.compaction.lag.ms (5000) > "
           "max.compaction.lag.ms (4000)");
  cluster_config broker;
  broker.log.max_compaction_lag_ms = 3000;
  e = validate_topic_configs(broker, "t", {{"min.compaction.lag.ms", "5000"}});
  CHECK(e.message
        == "conflict topic config setting min.compaction.lag.ms (5000) > "
           "max.compaction.lag.ms (3000)");
}

TEST_CASE("configs are checked in LogConfig's order: the first invalid one "
          "is reported") {
  auto e = check({{"retention.ms", "x"}, {"segment.bytes", "y"}});
  CHECK(e.message
        == "Invalid value y for configuration segment.bytes: Not a number of "
           "type INT");
}

// -- IncrementalAlterConfigs and AlterConfigs --------------------------------------

TEST_CASE("IncrementalAlterConfigs SET and DELETE change only the named "
          "configs") {
  cluster_config broker;
  topic_configs out;
  auto e = alter_topic_configs(
    broker, "t", {{"retention.ms", "1000"}, {"segment.ms", "60000"}},
    {set("cleanup.policy", "compact"),
     op(config_op_type::remove, "segment.ms")},
    true, out);
  REQUIRE(e.ok());
  CHECK(
    out
    == topic_configs{{"cleanup.policy", "compact"}, {"retention.ms", "1000"}});
}

TEST_CASE("APPEND and SUBTRACT work on cleanup.policy from its default") {
  cluster_config broker;
  topic_configs out;
  REQUIRE(alter_topic_configs(
            broker, "t", {},
            {op(config_op_type::append, "cleanup.policy", "compact")}, true,
            out)
            .ok());
  CHECK(out.at("cleanup.policy") == "delete,compact");
  topic_configs after;
  REQUIRE(alter_topic_configs(
            broker, "t", out,
            {op(config_op_type::subtract, "cleanup.policy", "delete")}, true,
            after)
            .ok());
  CHECK(after.at("cleanup.policy") == "compact");
  // Appending what is there keeps the list distinct.
  REQUIRE(alter_topic_configs(
            broker, "t", after,
            {op(config_op_type::append, "cleanup.policy", "compact")}, true,
            out)
            .ok());
  CHECK(out.at("cleanup.policy") == "compact");
}

TEST_CASE("APPEND to a config that is not a list is INVALID_CONFIG") {
  cluster_config broker;
  topic_configs out{{"x", "y"}};
  auto e = alter_topic_configs(
    broker, "t", {}, {op(config_op_type::append, "retention.ms", "5")}, true,
    out);
  CHECK(e.error == error_code::invalid_config);
  CHECK(e.message
        == "Config value append is not allowed for config key: retention.ms");
  CHECK(out == topic_configs{{"x", "y"}}); // untouched on error
}

TEST_CASE("AlterConfigs replaces the whole set and refuses null values") {
  cluster_config broker;
  topic_configs out;
  REQUIRE(alter_topic_configs(
            broker, "t",
            {{"retention.ms", "1000"}, {"cleanup.policy", "compact"}},
            {set("segment.ms", "60000")}, false, out)
            .ok());
  CHECK(out == topic_configs{{"segment.ms", "60000"}});
  auto e = alter_topic_configs(broker, "t", {},
                               {{"retention.ms", config_op_type::set, {}},
                                {"segment.ms", config_op_type::set, {}}},
                               false, out);
  CHECK(e.error == error_code::invalid_request);
  CHECK(e.message == "Null value not supported for : retention.ms,segment.ms");
}

TEST_CASE("an invalid result of the changes is refused as a whole") {
  cluster_config broker;
  topic_configs out;
  auto e = alter_topic_configs(
    broker, "t", {{"retention.ms", "1000"}},
    {set("min.compaction.lag.ms", "10"), set("max.compaction.lag.ms", "5")},
    true, out);
  CHECK(e.error == error_code::invalid_config);
  CHECK(out.empty());
  e = alter_topic_configs(broker, "t", {},
                          {set("retention.ms", "1"), set("retention.ms", "2")},
                          true, out);
  CHECK(e.error == error_code::invalid_request);
  CHECK(e.message == "Error due to duplicate config keys");
  e =
    alter_topic_configs(broker, "", {}, {set("retention.ms", "1")}, true, out);
  CHECK(e.message == "Default topic resources are not allowed.");
}

// -- what a topic ends up with ------------------------------------------------------

TEST_CASE("a topic's effective settings are the broker's with its overrides") {
  cluster_config broker;
  broker.log.retention_ms = 5000;
  broker.min_insync_replicas = 2;
  auto plain = effective_settings(broker, "t", {});
  CHECK(plain.log.retention_ms == 5000);
  CHECK(plain.min_insync_replicas == 2);
  CHECK_FALSE(plain.log.compact);
  CHECK(plain.log.delete_policy);
  auto s = effective_settings(broker, "t",
                              {{"retention.ms", "100"},
                               {"cleanup.policy", "compact, delete"},
                               {"segment.bytes", "1048576"},
                               {"segment.ms", "60000"},
                               {"max.message.bytes", "2048"},
                               {"min.insync.replicas", "3"},
                               {"delete.retention.ms", "10"},
                               {"min.compaction.lag.ms", "11"},
                               {"max.compaction.lag.ms", "12"},
                               {"min.cleanable.dirty.ratio", "0.75"},
                               {"message.timestamp.type", "LogAppendTime"},
                               {"retention.bytes", "999"},
                               {"unclean.leader.election.enable", "true"}});
  CHECK(s.log.retention_ms == 100);
  CHECK(s.log.compact);
  CHECK(s.log.delete_policy);
  CHECK(s.log.segment_bytes == 1048576);
  CHECK(s.log.segment_ms == 60000);
  CHECK(s.log.max_batch_bytes == 2048);
  CHECK(s.min_insync_replicas == 3);
  CHECK(s.log.delete_retention_ms == 10);
  CHECK(s.log.min_compaction_lag_ms == 11);
  CHECK(s.log.max_compaction_lag_ms == 12);
  CHECK(s.log.min_cleanable_dirty_ratio == 0.75);
  CHECK(s.log.log_append_time);
  CHECK(s.log.retention_bytes == 999);
  CHECK(s.unclean_leader_election);
  // An empty cleanup.policy neither deletes nor compacts.
  auto none = effective_settings(broker, "t", {{"cleanup.policy", ""}});
  CHECK_FALSE(none.log.compact);
  CHECK_FALSE(none.log.delete_policy);
}

TEST_CASE("without an override a config has the broker's value in Kafka's "
          "words") {
  cluster_config broker;
  CHECK(default_config_value(broker, "t", "retention.ms") == "604800000");
  CHECK(default_config_value(broker, "t", "cleanup.policy") == "delete");
  CHECK(default_config_value(broker, "t", "min.cleanable.dirty.ratio")
        == "0.5");
  CHECK(default_config_value(broker, "t", "max.compaction.lag.ms")
        == "9223372036854775807");
  CHECK(default_config_value(broker, "t", "message.timestamp.type")
        == "CreateTime");
  CHECK(default_config_value(broker, "t", "unclean.leader.election.enable")
        == "false");
  CHECK(default_config_value(broker, "t", "max.message.bytes") == "1048588");
  CHECK(default_config_value(broker, offsets_topic, "cleanup.policy")
        == "compact");
  CHECK(default_config_value(broker, "t", "compression.type").empty());
}

TEST_CASE("__consumer_offsets is created with Kafka's internal configs") {
  cluster_config broker;
  CHECK(internal_topic_configs(broker, offsets_topic)
        == topic_configs{{"cleanup.policy", "compact"},
                         {"segment.bytes", "104857600"}});
  CHECK(internal_topic_configs(broker, "t").empty());
}

TEST_CASE("a topic with unclean.leader.election.enable elects a live replica "
          "outside the ISR, others stay offline") {
  cluster_metadata m;
  for (int i = 0; i < 3; ++i)
    m.register_broker(i);
  REQUIRE(m.create_topic("lossy", 1, 2, 0) == error_code::none);
  REQUIRE(m.create_topic("safe", 1, 2, 0) == error_code::none);
  m.set_configs("lossy", {{"unclean.leader.election.enable", "true"}});
  auto lossy = *m.partition({"lossy", 0});
  auto safe = *m.partition({"safe", 0});
  REQUIRE(lossy.replicas == safe.replicas);
  auto leader = lossy.leader;
  auto follower = lossy.replicas.at(1);
  // The follower falls out of the ISR, then the leader stops.
  REQUIRE(m.alter_isr({"lossy", 0}, leader, 0, 0, {leader})
          == error_code::none);
  REQUIRE(m.alter_isr({"safe", 0}, leader, 0, 0, {leader}) == error_code::none);
  m.broker_stopped(leader, false);
  CHECK(m.partition({"lossy", 0})->leader == follower);
  CHECK(m.partition({"lossy", 0})->isr == std::vector<int32_t>{follower});
  CHECK(m.partition({"safe", 0})->leader == -1);
  // Deleting the topic drops its configs.
  REQUIRE(m.delete_topic("lossy") == error_code::none);
  CHECK(m.configs("lossy").empty());
  CHECK(m.all_configs().empty());
}

// -- /config/topics/<t> and /config/changes -----------------------------------------

// Expected strings were written by Jackson 2.14 from a java.util.Properties
// on OpenJDK 17, as Kafka's ConfigEntityZNode.encode writes them.

TEST_CASE("/config/topics/<t> is written byte for byte as Kafka writes it") {
  using zk::encode_topic_config;
  CHECK(zk::topic_config_path("orders") == "/config/topics/orders");
  CHECK(encode_topic_config({}) == R"({"version":1,"config":{}})");
  CHECK(encode_topic_config({{"retention.ms", "1000"}})
        == R"({"version":1,"config":{"retention.ms":"1000"}})");
  CHECK(encode_topic_config(
          {{"cleanup.policy", "compact"}, {"segment.bytes", "104857600"}})
        == R"({"version":1,"config":{"cleanup.policy":"compact",)"
           R"("segment.bytes":"104857600"}})");
  // Eleven keys: one table of 16 bins.
  topic_configs eleven{{"cleanup.policy", "x"},
                       {"delete.retention.ms", "1"},
                       {"max.compaction.lag.ms", "2"},
                       {"max.message.bytes", "3"},
                       {"message.timestamp.type", "CreateTime"},
                       {"min.cleanable.dirty.ratio", "0.1"},
                       {"min.compaction.lag.ms", "4"},
                       {"min.insync.replicas", "2"},
                       {"retention.bytes", "5"},
                       {"retention.ms", "6"},
                       {"segment.bytes", "7"}};
  CHECK(encode_topic_config(eleven)
        == R"({"version":1,"config":{"cleanup.policy":"x",)"
           R"("max.compaction.lag.ms":"2","max.message.bytes":"3",)"
           R"("min.compaction.lag.ms":"4","message.timestamp.type":)"
           R"("CreateTime","min.insync.replicas":"2","retention.ms":"6",)"
           R"("segment.bytes":"7","min.cleanable.dirty.ratio":"0.1",)"
           R"("delete.retention.ms":"1","retention.bytes":"5"}})");
  // Twelve and thirteen: the table doubled, its bins split.
  auto twelve = eleven;
  twelve["segment.ms"] = "8";
  CHECK(encode_topic_config(twelve)
        == R"({"version":1,"config":{"max.compaction.lag.ms":"2",)"
           R"("max.message.bytes":"3","min.compaction.lag.ms":"4",)"
           R"("message.timestamp.type":"CreateTime",)"
           R"("min.insync.replicas":"2","min.cleanable.dirty.ratio":"0.1",)"
           R"("delete.retention.ms":"1","retention.bytes":"5",)"
           R"("cleanup.policy":"x","retention.ms":"6","segment.bytes":"7",)"
           R"("segment.ms":"8"}})");
  auto thirteen = twelve;
  thirteen["unclean.leader.election.enable"] = "true";
  CHECK(encode_topic_config(thirteen)
        == R"({"version":1,"config":{"max.compaction.lag.ms":"2",)"
           R"("max.message.bytes":"3","min.compaction.lag.ms":"4",)"
           R"("message.timestamp.type":"CreateTime",)"
           R"("min.insync.replicas":"2","min.cleanable.dirty.ratio":"0.1",)"
           R"("unclean.leader.election.enable":"true",)"
           R"("delete.retention.ms":"1","retention.bytes":"5",)"
           R"("cleanup.policy":"x","retention.ms":"6","segment.bytes":"7",)"
           R"("segment.ms":"8"}})");
  // Jackson's escapes; non-ASCII as is.
  CHECK(encode_topic_config({{"a\"b", "v\xc3\xa9\n"}})
        == "{\"version\":1,\"config\":{\"a\\\"b\":\"v\xc3\xa9\\n\"}}");
}

TEST_CASE("/config/topics/<t> is read back, Kafka's own included") {
  auto c = zk::decode_topic_config(
    R"({"version":1,"config":{"compression.type":"producer",)"
    R"("cleanup.policy":"compact","segment.bytes":"104857600"}})");
  REQUIRE(c);
  CHECK(*c
        == topic_configs{{"cleanup.policy", "compact"},
                         {"compression.type", "producer"},
                         {"segment.bytes", "104857600"}});
  topic_configs all{{"retention.ms", "1"}, {"cleanup.policy", "compact"}};
  CHECK(*zk::decode_topic_config(zk::encode_topic_config(all)) == all);
  CHECK(zk::decode_topic_config("")->empty());
  CHECK(zk::decode_topic_config(R"({"version":1})")->empty());
  CHECK_FALSE(zk::decode_topic_config(R"({"version":1,"config":{"a":1}})"));
  CHECK_FALSE(zk::decode_topic_config("{"));
}

TEST_CASE("a config change notification is Kafka's version 2, and version 1 "
          "is read too") {
  CHECK(zk::config_change_prefix == "/config/changes/config_change_");
  CHECK(zk::encode_config_change(zk::topic_entity_path("t1"))
        == R"({"version":2,"entity_path":"topics/t1"})");
  CHECK(*zk::decode_config_change(R"({"version":2,"entity_path":"topics/t1"})")
        == "topics/t1");
  CHECK(*zk::decode_config_change(
          R"({"version":1,"entity_type":"topics","entity_name":"t2"})")
        == "topics/t2");
  CHECK_FALSE(zk::decode_config_change(R"({"version":3})"));
  CHECK(zk::topic_of_entity_path("topics/t1") == "t1");
  CHECK(zk::topic_of_entity_path("clients/c").empty());
}
