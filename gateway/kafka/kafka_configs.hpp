#pragma once

// troupe's settings as Kafka's DescribeConfigs and CreateTopics (v5+) name
// them (Kafka's ConfigHelper.describeConfigs): a topic's configs (Kafka's
// LogConfig names) with their source, the topic's own override
// (TOPIC_CONFIG) or the broker setting it falls back to
// (STATIC_BROKER_CONFIG, DEFAULT_CONFIG), and a broker's (KafkaConfig
// names, read-only but for the dynamic ones, domain/broker_config.hpp). The per-topic configs
// themselves are the domain's (domain/topic_config.hpp). Plain C++, no CAF.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/broker_config.hpp"
#include "domain/cluster_config.hpp"
#include "domain/topic_config.hpp"

namespace troupe {

/// Kafka's DescribeConfigsResponse.ConfigSource.
enum class config_source : int8_t {
  topic_config = 1, // DYNAMIC_TOPIC_CONFIG: the topic's override
  dynamic_broker_config = 2, // DYNAMIC_BROKER_CONFIG: this broker's
  static_broker_config = 4,
  default_config = 5,
};

/// Kafka's DescribeConfigsResponse.ConfigType.
enum class config_type : int8_t {
  boolean = 1,
  string = 2,
  int32 = 3,
  int16 = 4,
  int64 = 5,
  float64 = 6,
  list = 7,
};

/// DescribeConfigs' ConfigType of a topic config's ConfigDef.Type.
config_type described_type(config_value_type type);

/// One of the values a config takes its value from, by precedence
/// (Kafka's DescribeConfigsSynonym).
struct config_synonym {
  std::string name;
  std::string value;
  config_source source = config_source::default_config;
};

struct config_entry {
  std::string name;
  std::string value;
  config_type type = config_type::string;
  /// The first synonym's source, DEFAULT_CONFIG when there is none.
  config_source source = config_source::default_config;
  /// What the value comes from, in Kafka's order: the topic's override,
  /// then the broker settings that are set, then those with a default.
  std::vector<config_synonym> synonyms;
  /// true: troupe cannot change it at run time.
  bool read_only = true;
  /// troupe's description of the setting, empty when it has none.
  std::string documentation;
};

/// Topic `topic`'s configs, sorted by name: every config troupe supports
/// (domain/topic_config.hpp) with `overrides` applied, and the Kafka topic
/// configs troupe has fixed (compression.type, flush.*, ...), read-only.
std::vector<config_entry> topic_config_entries(const cluster_config& config,
                                               const std::string& topic,
                                               const topic_configs& overrides);

/// Broker `broker_id`'s configs: its settings, and over them its
/// `dynamic` configs (DYNAMIC_BROKER_CONFIG, not read-only).
std::vector<config_entry> broker_config_entries(const cluster_config& config,
                                                int32_t broker_id,
                                                const broker_configs& dynamic);

} // namespace troupe
