// What DescribeConfigs and CreateTopics v5+ report for a topic's configs
// (gateway/kafka/kafka_configs): each value with its source and synonyms as
// Kafka's ConfigHelper.createTopicConfigEntry lists them.

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "domain/cluster_config.hpp"
#include "gateway/kafka/kafka_configs.hpp"

using namespace troupe;

namespace {

const config_entry& find(const std::vector<config_entry>& entries,
                         const std::string& name) {
  auto i = std::find_if(entries.begin(), entries.end(),
                        [&](auto& e) { return e.name == name; });
  REQUIRE(i != entries.end());
  return *i;
}

} // namespace

TEST_CASE("a topic config without an override has the broker's value and "
          "DEFAULT_CONFIG, its synonym the broker setting's default") {
  cluster_config c;
  auto entries = topic_config_entries(c, "orders", {});
  auto& segment = find(entries, "segment.bytes");
  CHECK(segment.value == "1073741824");
  CHECK(segment.source == config_source::default_config);
  CHECK_FALSE(segment.read_only);
  REQUIRE(segment.synonyms.size() == 1);
  CHECK(segment.synonyms[0].name == "log.segment.bytes");
  CHECK(segment.synonyms[0].value == "1073741824");
  CHECK(segment.synonyms[0].source == config_source::default_config);
  CHECK(segment.type == config_type::int32);
  auto& policy = find(entries, "cleanup.policy");
  CHECK(policy.value == "delete");
  CHECK(policy.type == config_type::list);
  CHECK(find(entries, "min.cleanable.dirty.ratio").type
        == config_type::float64);
}

TEST_CASE("an override is TOPIC_CONFIG and comes first among the synonyms, "
          "the broker's static setting and default after it") {
  cluster_config c;
  c.log.segment_bytes = 16384; // as if log.segment.bytes=16384 were set
  auto entries = topic_config_entries(c, "orders", {{"segment.bytes", "4096"}});
  auto& segment = find(entries, "segment.bytes");
  CHECK(segment.value == "4096");
  CHECK(segment.source == config_source::topic_config);
  REQUIRE(segment.synonyms.size() == 3);
  CHECK(segment.synonyms[0].name == "segment.bytes");
  CHECK(segment.synonyms[0].source == config_source::topic_config);
  CHECK(segment.synonyms[1].name == "log.segment.bytes");
  CHECK(segment.synonyms[1].value == "16384");
  CHECK(segment.synonyms[1].source == config_source::static_broker_config);
  CHECK(segment.synonyms[2].value == "1073741824");
  CHECK(segment.synonyms[2].source == config_source::default_config);
  // Without the override the broker's static setting decides.
  auto plain = topic_config_entries(c, "orders", {});
  CHECK(find(plain, "segment.bytes").source
        == config_source::static_broker_config);
  CHECK(find(plain, "segment.bytes").value == "16384");
}

TEST_CASE("retention.ms without an override lists no synonym: Kafka's "
          "log.retention.ms has no default, and the hours are dropped") {
  cluster_config c;
  auto plain = topic_config_entries(c, "orders", {});
  auto& retention = find(plain, "retention.ms");
  CHECK(retention.value == "604800000");
  CHECK(retention.source == config_source::default_config);
  CHECK(retention.synonyms.empty());
  c.log.retention_ms = 4000;
  auto given = topic_config_entries(c, "orders", {});
  auto& set = find(given, "retention.ms");
  CHECK(set.source == config_source::static_broker_config);
  REQUIRE(set.synonyms.size() == 2);
  CHECK(set.synonyms[0].name == "log.retention.ms");
  CHECK(set.synonyms[0].value == "4000");
  CHECK(set.synonyms[1].name == "log.retention.hours");
  CHECK(set.synonyms[1].value == "168");
  CHECK(set.synonyms[1].source == config_source::default_config);
}

TEST_CASE("a topic's configs are sorted by name, and those troupe fixed are "
          "read-only") {
  cluster_config c;
  auto entries = topic_config_entries(c, "orders", {});
  CHECK(std::is_sorted(entries.begin(), entries.end(),
                       [](auto& x, auto& y) { return x.name < y.name; }));
  CHECK(find(entries, "compression.type").read_only);
  CHECK(find(entries, "flush.ms").read_only);
  CHECK_FALSE(find(entries, "retention.ms").read_only);
  CHECK_FALSE(find(entries, "unclean.leader.election.enable").read_only);
}
