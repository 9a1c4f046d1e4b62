#pragma once

// Per-topic configs (Kafka's topic-level LogConfig): the overrides a topic
// carries by Kafka's names, the configs troupe supports with their broker
// synonyms and validation (LogConfig.validate's messages), Kafka's
// IncrementalAlterConfigs operations on them, and the settings a topic ends
// up with (broker config + overrides). Stored by the controller with the
// topic (docs/ARCHITECTURE.md §4; ZooKeeper mode: /config/topics/<t>, §7)
// and applied by every broker that hosts one of its replicas. Plain C++.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/cluster_config.hpp"
#include "domain/error_code.hpp"
#include "domain/log/segment_log.hpp"
#include "domain/nullable.hpp"

namespace troupe {

/// A topic's overrides by Kafka name, only those set, each value as the
/// client gave it (Kafka keeps the strings: /config/topics/<t>'s "config").
using topic_configs = std::map<std::string, std::string>;

// -- the configs troupe supports ------------------------------------------------

/// Kafka's ConfigDef.Type of a topic config.
enum class config_value_type : uint8_t {
  boolean,
  int32,   // INT
  int64,   // LONG
  float64, // DOUBLE
  string,
  list, // LIST: comma-separated
};

/// Kafka's name of the type (ConfigDef.Type): BOOLEAN, INT, LONG, DOUBLE,
/// STRING, LIST; DescribeConfigs v3+ reports it as
/// DescribeConfigsResponse.ConfigType.
std::string to_string(config_value_type type);

/// One topic config troupe supports.
struct topic_config_def {
  /// Kafka's topic-level name (TopicConfig).
  std::string_view name;
  config_value_type type;
  /// The broker properties whose value is the topic's default, in Kafka's
  /// order (ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS): the first
  /// is the config's own broker name (log.retention.ms for retention.ms),
  /// the others the coarser units that stand in when it is unset
  /// (log.retention.minutes, log.retention.hours).
  std::vector<std::string_view> synonyms;
};

/// The configs troupe supports, in the order of Kafka's LogConfig
/// definition (the order Kafka parses them in, so the first invalid one
/// reported is Kafka's): segment.bytes, segment.ms, retention.bytes,
/// retention.ms, max.message.bytes, delete.retention.ms,
/// min.compaction.lag.ms, max.compaction.lag.ms, min.cleanable.dirty.ratio,
/// cleanup.policy, unclean.leader.election.enable, min.insync.replicas,
/// message.timestamp.type, leader.replication.throttled.replicas,
/// follower.replication.throttled.replicas.
const std::vector<topic_config_def>& topic_config_defs();

/// The definition of `name`; null when troupe does not support it.
const topic_config_def* find_topic_config(std::string_view name);

// -- validation -------------------------------------------------------------------

/// Why a config change is refused: INVALID_CONFIG (Kafka's
/// InvalidConfigurationException / ConfigException) or INVALID_REQUEST,
/// with Kafka's message; error_code::none when it is accepted.
struct config_error {
  error_code error = error_code::none;
  std::string message{};

  bool ok() const noexcept {
    return error == error_code::none;
  }
};

/// Kafka's LogConfig.validate for the whole override set of `topic` on a
/// broker with `broker`: every name is known ("Unknown topic config name:
/// x"; a Kafka topic config troupe does not implement is refused by name
/// too), every value parses as its type and passes its validator ("Invalid
/// value x for configuration y: <why>", ConfigDef's words), and over the
/// effective settings min.compaction.lag.ms <= max.compaction.lag.ms
/// ("conflict topic config setting min.compaction.lag.ms (a) >
/// max.compaction.lag.ms (b)"). Configs are checked in LogConfig's
/// definition order.
config_error validate_topic_configs(const cluster_config& broker,
                                    const std::string& topic,
                                    const topic_configs& configs);

// -- changes (AlterConfigs 33, IncrementalAlterConfigs 44) ------------------------

/// Kafka's AlterConfigOp.OpType, by its wire id.
enum class config_op_type : int8_t {
  set = 0,
  remove = 1, // DELETE
  append = 2,
  subtract = 3,
};

/// SET, DELETE, APPEND, SUBTRACT (for printing, and CAF's to_string).
std::string to_string(config_op_type op);

/// One change to one config. AlterConfigs sends only `set`.
struct config_op {
  std::string name;
  config_op_type op = config_op_type::set;
  /// Nullable on the wire; ignored by DELETE.
  nullable<std::string> value;
};

/// The overrides after `ops`:
/// - incremental (IncrementalAlterConfigs, Kafka's
///   ConfigAdminManager.prepareIncrementalConfigs): each op in order on
///   `current`; SET replaces, DELETE removes, APPEND and SUBTRACT work on
///   LIST configs only (INVALID_CONFIG "Config value append is not allowed
///   for config key: x") over the current value or LogConfig's default;
/// - not incremental (AlterConfigs): the SETs become the whole set; a null
///   value is INVALID_REQUEST "Null value not supported for : a,b".
/// A name given twice is INVALID_REQUEST ("Error due to duplicate config
/// keys"). The result is validated by validate_topic_configs.
/// `out` is written only when the answer is ok.
config_error alter_topic_configs(const cluster_config& broker,
                                 const std::string& topic,
                                 const topic_configs& current,
                                 const std::vector<config_op>& ops,
                                 bool incremental, topic_configs& out);

// -- what a topic ends up with -------------------------------------------------------

/// The settings a topic's replicas run with: the broker's defaults for the
/// topic (default_log_config) with its overrides applied.
struct topic_settings {
  /// cleanup.policy, retention.*, segment.*, max.message.bytes,
  /// delete.retention.ms, *.compaction.lag.ms, min.cleanable.dirty.ratio,
  /// message.timestamp.type (log_append_time).
  log_config log;
  /// min.insync.replicas
  int32_t min_insync_replicas = 1;
  /// unclean.leader.election.enable
  bool unclean_leader_election = false;
};

/// `overrides` should be valid (validate_topic_configs); a value that does
/// not parse is skipped, keeping the broker's.
topic_settings effective_settings(const cluster_config& broker,
                                  const std::string& topic,
                                  const topic_configs& overrides);

/// unclean.leader.election.enable alone, for the controller's leader
/// election: the topic's override when it parses, else `broker_setting`.
bool unclean_leader_election_of(const topic_configs& overrides,
                                bool broker_setting);

/// The value of `name` for `topic` without an override, as Kafka writes it
/// (ConfigDef.convertToString): the broker's setting, e.g. "604800000" for
/// retention.ms, "delete" for cleanup.policy, "0.5",
/// "false". Empty for a config troupe does not support.
std::string default_config_value(const cluster_config& broker,
                                 const std::string& topic,
                                 std::string_view name);

/// The configs Kafka gives a topic it creates itself: __consumer_offsets
/// gets cleanup.policy=compact and segment.bytes=offsets.topic.segment.bytes
/// (GroupCoordinator.offsetsTopicConfigs); other topics none.
topic_configs internal_topic_configs(const cluster_config& broker,
                                     const std::string& topic);

} // namespace troupe
