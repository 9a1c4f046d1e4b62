#include "gateway/kafka/kafka_configs.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "domain/properties.hpp"

namespace troupe {

namespace {

const property_doc* doc_of(std::string_view name) {
  for (auto& p : known_properties())
    if (p.name == name)
      return &p;
  return nullptr;
}

/// The broker settings that stand in for a topic config when its own broker
/// setting is unset, with Kafka's defaults (KafkaConfig): troupe reads only
/// the first synonym, so these are never set and only their defaults show.
std::optional<std::string_view> coarser_default(std::string_view name) {
  if (name == "log.retention.hours" || name == "log.roll.hours")
    return "168";
  return std::nullopt;
}

/// Kafka has no default for these (they fall back to their coarser units),
/// so DescribeConfigs lists no DEFAULT_CONFIG synonym for them.
bool kafka_defaults(std::string_view name) {
  return name != "log.retention.ms" && name != "log.roll.ms";
}

/// A broker setting's synonyms (Kafka's ConfigHelper.configSynonyms): the
/// setting as the properties file or --override set it
/// (STATIC_BROKER_CONFIG), then its default (DEFAULT_CONFIG). troupe keeps
/// no record of which properties were given, so one given with its default
/// value counts as not set.
void add_synonyms(std::vector<config_synonym>& statics,
                  std::vector<config_synonym>& defaults, std::string_view name,
                  const std::string& value) {
  auto doc = doc_of(name);
  if (doc && doc->default_value != value)
    statics.push_back(
      {std::string{name}, value, config_source::static_broker_config});
  if (doc && kafka_defaults(name))
    defaults.push_back({std::string{name}, std::string{doc->default_value},
                        config_source::default_config});
  else if (!doc && kafka_defaults(name))
    defaults.push_back(
      {std::string{name}, value, config_source::default_config});
}

config_source source_of(const std::vector<config_synonym>& synonyms) {
  return synonyms.empty() ? config_source::default_config
                          : synonyms.front().source;
}

/// A broker setting as Kafka's createBrokerConfigEntry describes it.
config_entry broker_entry(std::string name, std::string value,
                          config_type type) {
  config_entry e;
  std::vector<config_synonym> defaults;
  add_synonyms(e.synonyms, defaults, name, value);
  e.synonyms.insert(e.synonyms.end(), defaults.begin(), defaults.end());
  e.source = source_of(e.synonyms);
  if (auto doc = doc_of(name))
    e.documentation = std::string{doc->description};
  e.name = std::move(name);
  e.type = type;
  e.value = std::move(value);
  return e;
}

/// A behaviour troupe has and cannot change: Kafka's default.
config_entry fixed_entry(std::string name, std::string synonym,
                         std::string value, config_type type, std::string why) {
  config_entry e;
  e.name = std::move(name);
  e.value = value;
  e.type = type;
  e.synonyms.push_back(
    {std::move(synonym), std::move(value), config_source::default_config});
  e.documentation = std::move(why);
  return e;
}

/// A Kafka topic config that troupe has but does not let a topic override:
/// the broker setting `synonym` for every topic.
config_entry fixed_topic_entry(std::string name, std::string synonym,
                               std::string value, config_type type) {
  auto e = broker_entry(std::move(synonym), std::move(value), type);
  e.name = std::move(name);
  return e;
}

/// Kafka's createTopicConfigEntry: the override first (TOPIC_CONFIG), then
/// the broker synonyms that are set, then those with a default, from the
/// config's own broker setting on (ConfigHelper drops the coarser units
/// listed before it).
config_entry topic_entry(const cluster_config& c, const std::string& topic,
                         const topic_config_def& def,
                         const topic_configs& overrides) {
  config_entry e;
  e.name = std::string{def.name};
  e.type = described_type(def.type);
  e.read_only = false;
  auto own = overrides.find(e.name);
  auto broker_value = default_config_value(c, topic, def.name);
  if (own != overrides.end())
    e.synonyms.push_back({e.name, own->second, config_source::topic_config});
  std::vector<config_synonym> statics;
  std::vector<config_synonym> defaults;
  for (size_t i = 0; i < def.synonyms.size(); ++i) {
    auto name = def.synonyms[i];
    if (i == 0) {
      add_synonyms(statics, defaults, name, broker_value);
    } else if (auto value = coarser_default(name)) {
      defaults.push_back({std::string{name}, std::string{*value},
                          config_source::default_config});
    }
  }
  statics.insert(statics.end(), defaults.begin(), defaults.end());
  auto first = def.synonyms.empty() ? std::string_view{} : def.synonyms.front();
  auto kept = std::find_if(statics.begin(), statics.end(),
                           [&](auto& s) { return s.name == first; });
  e.synonyms.insert(e.synonyms.end(), kept, statics.end());
  e.source = source_of(e.synonyms);
  e.value = own != overrides.end() ? own->second : broker_value;
  if (!def.synonyms.empty())
    if (auto doc = doc_of(def.synonyms.front()))
      e.documentation = std::string{doc->description};
  return e;
}

std::string str(bool x) {
  return x ? "true" : "false";
}

template <class Int>
std::string str(Int x) {
  return std::to_string(x);
}

} // namespace

config_type described_type(config_value_type type) {
  switch (type) {
    case config_value_type::boolean:
      return config_type::boolean;
    case config_value_type::int32:
      return config_type::int32;
    case config_value_type::int64:
      return config_type::int64;
    case config_value_type::float64:
      return config_type::float64;
    case config_value_type::list:
      return config_type::list;
    case config_value_type::string:
      break;
  }
  return config_type::string;
}

std::vector<config_entry> topic_config_entries(const cluster_config& c,
                                               const std::string& topic,
                                               const topic_configs& overrides) {
  using t = config_type;
  auto& log = c.log;
  std::vector<config_entry> out{
    fixed_entry("compression.type", "compression.type", "producer", t::string,
                "batches are kept as the producer compressed them"),
    fixed_topic_entry("flush.messages", "log.flush.interval.messages",
                      str(log.flush_messages), t::int64),
    fixed_topic_entry("flush.ms", "log.flush.interval.ms", str(log.flush_ms),
                      t::int64),
    fixed_topic_entry("index.interval.bytes", "log.index.interval.bytes",
                      str(log.index_interval_bytes), t::int32),
  };
  for (auto& def : topic_config_defs())
    out.push_back(topic_entry(c, topic, def, overrides));
  std::sort(out.begin(), out.end(),
            [](auto& x, auto& y) { return x.name < y.name; });
  return out;
}

std::vector<config_entry> broker_config_entries(const cluster_config& c,
                                                int32_t broker_id,
                                                const broker_configs& dynamic) {
  using t = config_type;
  auto& g = c.group;
  auto& log = c.log;
  auto listener = "PLAINTEXT://" + c.advertised_host + ":"
                  + std::to_string(c.base_port + broker_id);
  // Set for each broker by troupe itself: from the node's settings.
  auto given = [](std::string name, std::string value, config_type type) {
    auto e = broker_entry(name, value, type);
    e.synonyms = {{name, value, config_source::static_broker_config}};
    e.source = config_source::static_broker_config;
    return e;
  };
  auto id = given("broker.id", str(broker_id), t::int32);
  auto advertised = given("advertised.listeners", listener, t::list);
  // The broker settings behind the topic configs that troupe added with
  // the topic configs, as a topic without overrides gets them.
  auto topic_default = [&](std::string name, std::string_view config,
                           config_type type) {
    return broker_entry(std::move(name), default_config_value(c, "", config),
                        type);
  };
  auto dirs = broker_entry(
    "log.dirs", c.log_dirs + "/broker-" + std::to_string(broker_id), t::string);
  std::vector<config_entry> out{
    advertised,
    broker_entry("auto.create.topics.enable", str(c.auto_create_topics),
                 t::boolean),
    id,
    broker_entry("default.replication.factor",
                 str(c.default_replication_factor), t::int32),
    fixed_entry("delete.topic.enable", "delete.topic.enable", "true",
                t::boolean, "DeleteTopics removes topics and their logs"),
    broker_entry("group.consumer.assignment.interval.ms",
                 str(g.consumer_assignment_interval_ms), t::int32),
    broker_entry("group.consumer.heartbeat.interval.ms",
                 str(g.consumer_heartbeat_interval_ms), t::int32),
    broker_entry("group.consumer.max.heartbeat.interval.ms",
                 str(g.consumer_max_heartbeat_interval_ms), t::int32),
    broker_entry("group.consumer.max.session.timeout.ms",
                 str(g.consumer_max_session_timeout_ms), t::int32),
    broker_entry("group.consumer.max.size", str(g.consumer_max_size), t::int32),
    broker_entry("group.consumer.min.heartbeat.interval.ms",
                 str(g.consumer_min_heartbeat_interval_ms), t::int32),
    broker_entry("group.consumer.min.session.timeout.ms",
                 str(g.consumer_min_session_timeout_ms), t::int32),
    broker_entry("group.consumer.session.timeout.ms",
                 str(g.consumer_session_timeout_ms), t::int32),
    broker_entry("group.initial.rebalance.delay.ms",
                 str(g.initial_rebalance_delay_ms), t::int32),
    broker_entry("group.max.session.timeout.ms", str(g.max_session_timeout_ms),
                 t::int32),
    broker_entry("group.max.size", str(g.max_size), t::int32),
    broker_entry("group.min.session.timeout.ms", str(g.min_session_timeout_ms),
                 t::int32),
    dirs,
    topic_default("log.cleaner.delete.retention.ms", "delete.retention.ms",
                  t::int64),
    topic_default("log.cleaner.max.compaction.lag.ms", "max.compaction.lag.ms",
                  t::int64),
    topic_default("log.cleaner.min.cleanable.ratio",
                  "min.cleanable.dirty.ratio", t::float64),
    topic_default("log.cleaner.min.compaction.lag.ms", "min.compaction.lag.ms",
                  t::int64),
    topic_default("log.cleanup.policy", "cleanup.policy", t::list),
    broker_entry("log.flush.interval.messages", str(log.flush_messages),
                 t::int64),
    broker_entry("log.flush.interval.ms", str(log.flush_ms), t::int64),
    broker_entry("log.index.interval.bytes", str(log.index_interval_bytes),
                 t::int32),
    broker_entry("log.retention.bytes", str(log.retention_bytes), t::int64),
    broker_entry("log.retention.check.interval.ms",
                 str(c.log_retention_check_interval_ms), t::int64),
    broker_entry("log.retention.ms", str(log.retention_ms), t::int64),
    topic_default("log.message.timestamp.type", "message.timestamp.type",
                  t::string),
    topic_default("log.roll.ms", "segment.ms", t::int64),
    broker_entry("log.segment.bytes", str(log.segment_bytes), t::int32),
    broker_entry("message.max.bytes", str(log.max_batch_bytes), t::int32),
    broker_entry("min.insync.replicas", str(c.min_insync_replicas), t::int32),
    broker_entry("num.partitions", str(c.num_partitions), t::int32),
    broker_entry("offset.metadata.max.bytes", str(g.offset_metadata_max_bytes),
                 t::int32),
    broker_entry("offsets.commit.timeout.ms", str(g.offset_commit_timeout_ms),
                 t::int32),
    broker_entry("offsets.topic.num.partitions",
                 str(c.offsets_topic_num_partitions), t::int32),
    broker_entry("offsets.topic.replication.factor",
                 str(c.offsets_topic_replication_factor), t::int16),
    broker_entry("replica.fetch.backoff.ms", str(c.replica_fetch_backoff_ms),
                 t::int32),
    broker_entry("replica.fetch.wait.max.ms", str(c.replica_fetch_wait_max_ms),
                 t::int32),
    broker_entry("replica.lag.time.max.ms", str(c.replica_lag_time_max_ms),
                 t::int64),
    broker_entry("unclean.leader.election.enable",
                 str(c.unclean_leader_election), t::boolean),
    broker_entry(std::string{leader_replication_throttled_rate},
                 str(c.leader_replication_throttled_rate), t::int64),
    broker_entry(std::string{follower_replication_throttled_rate},
                 str(c.follower_replication_throttled_rate), t::int64),
  };
  // ConfigHelper.createBrokerConfigEntry: a dynamic value first
  // (DYNAMIC_BROKER_CONFIG), then the static and default synonyms.
  for (auto& e : out) {
    if (!dynamic_broker_config(e.name))
      continue;
    e.read_only = false;
    auto i = dynamic.find(e.name);
    if (i == dynamic.end())
      continue;
    e.value = i->second;
    e.synonyms.insert(e.synonyms.begin(), {e.name, i->second,
                                           config_source::dynamic_broker_config});
    e.source = config_source::dynamic_broker_config;
  }
  std::sort(out.begin(), out.end(),
            [](auto& x, auto& y) { return x.name < y.name; });
  return out;
}

} // namespace troupe
