#pragma once

// A broker's dynamic configs (Kafka's DynamicBrokerConfig, per broker):
// the broker configs troupe changes at run time through AlterConfigs and
// IncrementalAlterConfigs on a BROKER resource, how a change applies, and
// the values the broker runs with. Stored by the embedded controller in
// its metadata and by a cluster node in /config/brokers/<id>
// (docs/ARCHITECTURE.md §7). Plain C++.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/cluster_config.hpp"
#include "domain/topic_config.hpp"

namespace troupe {

/// A broker's dynamic configs by Kafka name, only those set.
using broker_configs = std::map<std::string, std::string>;

inline constexpr std::string_view leader_replication_throttled_rate =
  "leader.replication.throttled.rate";
inline constexpr std::string_view follower_replication_throttled_rate =
  "follower.replication.throttled.rate";

/// Whether troupe changes broker config `name` at run time: the
/// replication quotas (Kafka's DynamicConfig.Broker names).
bool dynamic_broker_config(std::string_view name);

/// The broker's dynamic configs after `ops` (Kafka's
/// ConfigAdminManager.prepareIncrementalConfigs, or with `incremental`
/// false AlterConfigs' whole new set), then validated as Kafka's
/// DynamicBrokerConfig.validateConfigs does:
/// - a name troupe cannot change at run time: INVALID_REQUEST "Cannot
///   update these configs dynamically: Set(a, b)";
/// - APPEND or SUBTRACT (no LIST among them): INVALID_CONFIG "Config value
///   append is not allowed for config key: x";
/// - a value that is not a LONG of at least 0: INVALID_REQUEST "Invalid
///   config value for resource ConfigResource(type=BROKER, name='<id>'):
///   Invalid value x for configuration y: Not a number of type LONG".
/// `out` is written only when the answer is ok.
config_error alter_broker_configs(int32_t broker_id,
                                  const broker_configs& current,
                                  const std::vector<config_op>& ops,
                                  bool incremental, broker_configs& out);

/// The replication quotas a broker runs with: each dynamic value that
/// parses, else the static setting.
struct replication_rates {
  int64_t leader = INT64_MAX;
  int64_t follower = INT64_MAX;
};

replication_rates replication_rates_of(const cluster_config& config,
                                       const broker_configs& dynamic);

} // namespace troupe
