#include "gateway/kafka/kafka_configs.hpp"

#include "domain/properties.hpp"

namespace troupe {

namespace {

const property_doc* doc_of(const std::string& name) {
  for (auto& p : known_properties())
    if (p.name == name)
      return &p;
  return nullptr;
}

/// A broker setting: its default where troupe's default applies, else set
/// in the properties file or by --override (Kafka's STATIC_BROKER_CONFIG).
config_entry broker_entry(std::string name, std::string value,
                          config_type type) {
  config_entry e;
  e.name = name;
  e.type = type;
  e.synonym = name;
  auto doc = doc_of(name);
  e.source = doc && doc->default_value != value
               ? config_source::static_broker_config
               : config_source::default_config;
  if (doc)
    e.documentation = std::string{doc->description};
  e.value = std::move(value);
  return e;
}

/// A topic config with the value of broker setting `synonym`.
config_entry topic_entry(std::string name, std::string synonym,
                         std::string value, config_type type) {
  auto e = broker_entry(synonym, std::move(value), type);
  e.name = std::move(name);
  return e;
}

/// A behaviour troupe has and cannot change: Kafka's default.
config_entry fixed_entry(std::string name, std::string synonym,
                         std::string value, config_type type, std::string why) {
  config_entry e;
  e.name = std::move(name);
  e.value = std::move(value);
  e.type = type;
  e.synonym = std::move(synonym);
  e.documentation = std::move(why);
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

std::vector<config_entry> topic_config_entries(const cluster_config& c) {
  using t = config_type;
  auto& log = c.log;
  return {
    fixed_entry("cleanup.policy", "log.cleanup.policy", "delete", t::list,
                "troupe deletes old segments; it does not compact"),
    fixed_entry("compression.type", "compression.type", "producer", t::string,
                "batches are kept as the producer compressed them"),
    topic_entry("flush.messages", "log.flush.interval.messages",
                str(log.flush_messages), t::int64),
    topic_entry("flush.ms", "log.flush.interval.ms", str(log.flush_ms),
                t::int64),
    topic_entry("index.interval.bytes", "log.index.interval.bytes",
                str(log.index_interval_bytes), t::int32),
    topic_entry("max.message.bytes", "message.max.bytes",
                str(log.max_batch_bytes), t::int32),
    fixed_entry("message.timestamp.type", "log.message.timestamp.type",
                "CreateTime", t::string,
                "batches keep the producer's timestamps"),
    topic_entry("min.insync.replicas", "min.insync.replicas",
                str(c.min_insync_replicas), t::int32),
    topic_entry("retention.bytes", "log.retention.bytes",
                str(log.retention_bytes), t::int64),
    topic_entry("retention.ms", "log.retention.ms", str(log.retention_ms),
                t::int64),
    topic_entry("segment.bytes", "log.segment.bytes", str(log.segment_bytes),
                t::int32),
    topic_entry("unclean.leader.election.enable",
                "unclean.leader.election.enable",
                str(c.unclean_leader_election), t::boolean),
  };
}

std::vector<config_entry> broker_configs(const cluster_config& c,
                                         int32_t broker_id) {
  using t = config_type;
  auto& g = c.group;
  auto& log = c.log;
  auto listener = "PLAINTEXT://" + c.advertised_host + ":"
                  + std::to_string(c.base_port + broker_id);
  auto id = broker_entry("broker.id", str(broker_id), t::int32);
  id.source = config_source::static_broker_config;
  auto advertised = broker_entry("advertised.listeners", listener, t::list);
  advertised.source = config_source::static_broker_config;
  auto dirs = broker_entry(
    "log.dirs", c.log_dirs + "/broker-" + std::to_string(broker_id), t::string);
  return {
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
    broker_entry("log.flush.interval.messages", str(log.flush_messages),
                 t::int64),
    broker_entry("log.flush.interval.ms", str(log.flush_ms), t::int64),
    broker_entry("log.index.interval.bytes", str(log.index_interval_bytes),
                 t::int32),
    broker_entry("log.retention.bytes", str(log.retention_bytes), t::int64),
    broker_entry("log.retention.check.interval.ms",
                 str(c.log_retention_check_interval_ms), t::int64),
    broker_entry("log.retention.ms", str(log.retention_ms), t::int64),
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
  };
}

} // namespace troupe
