#pragma once

// troupe's settings as Kafka's DescribeConfigs and CreateTopics (v5+) name
// them: a topic's configs (Kafka's LogConfig names, from the broker-wide
// values: troupe has no per-topic overrides) and a broker's (KafkaConfig
// names). All read-only: troupe cannot alter them at run time. Plain C++,
// no CAF.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/cluster_config.hpp"

namespace troupe {

/// Kafka's DescribeConfigsResponse.ConfigSource.
enum class config_source : int8_t {
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
  list = 7,
};

struct config_entry {
  std::string name;
  std::string value;
  config_type type = config_type::string;
  config_source source = config_source::default_config;
  /// The broker setting a topic config comes from (Kafka's synonym), or
  /// the entry's own name for broker configs.
  std::string synonym;
  /// troupe's description of the setting, empty when it has none.
  std::string documentation;
};

/// A topic's configs: every topic has the broker-wide values.
std::vector<config_entry> topic_config_entries(const cluster_config& config);

/// Broker `broker_id`'s configs.
std::vector<config_entry> broker_configs(const cluster_config& config,
                                         int32_t broker_id);

} // namespace troupe
