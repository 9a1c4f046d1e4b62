#include "domain/properties.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

#include "domain/consumer_group/server_assignor.hpp"
#include "domain/log/log_defaults.hpp"

namespace troupe {

namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && ws(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && ws(s.back()))
    s.remove_suffix(1);
  return s;
}

template <class T>
bool parse_int(std::string_view text, T& out, T min, T max) {
  int64_t value = 0;
  auto [ptr, ec] =
    std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size()
      || value < static_cast<int64_t>(min) || value > static_cast<int64_t>(max))
    return false;
  out = static_cast<T>(value);
  return true;
}

/// A Java double as Kafka's ConfigDef reads it (Double.parseDouble), in
/// [min, max].
bool parse_double(std::string_view text, double& out, double min, double max) {
  std::string copy{text};
  if (copy.empty() || copy.front() == ' ')
    return false;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE
      || !(value >= min && value <= max))
    return false;
  out = value;
  return true;
}

bool parse_bool(std::string_view text, bool& out) {
  if (text == "true") {
    out = true;
    return true;
  }
  if (text == "false") {
    out = false;
    return true;
  }
  return false;
}

const std::vector<property_doc> docs = {
  {"troupe.brokers", "3", "brokers hosted by this process"},
  {"troupe.scheduler.threads", "0", "actor worker threads (0: one per core)"},
  {"troupe.scheduler.policy", "sharing", "sharing | stealing"},
  {"advertised.host", "127.0.0.1", "host each broker advertises"},
  {"port", "9092", "port of broker 0; broker i uses port + i"},
  {"offsets.topic.num.partitions", "50",
   "partitions of __consumer_offsets (coordinator lookup modulus)"},
  {"num.partitions", "1", "partitions of an auto-created topic"},
  {"default.replication.factor", "1", "replication factor of a new topic"},
  {"auto.create.topics.enable", "true", "create topics on first metadata use"},
  {"log.dirs", "/tmp/troupe-logs",
   "where logs and the controller's metadata are kept"},
  {"unclean.leader.election.enable", "false",
   "let an out-of-sync replica lead when no in-sync one is alive"},
  {"min.insync.replicas", "1", "in-sync replicas acks=all needs"},
  {"log.segment.bytes", "1073741824", "size at which a segment file rolls"},
  {"log.retention.bytes", "-1", "largest log per partition (-1: no limit)"},
  {"log.retention.ms", "604800000", "oldest data kept"},
  {"log.retention.check.interval.ms", "300000", "how often retention runs"},
  {"log.flush.interval.messages", "9223372036854775807",
   "fsync after this many messages"},
  {"log.flush.interval.ms", "9223372036854775807", "fsync after this long"},
  {"message.max.bytes", "1048588", "largest record batch accepted"},
  {"log.cleanup.policy", "delete",
   "delete | compact | compact,delete: what happens to old segments"},
  {"log.roll.ms", "604800000",
   "roll the active segment once its first batch is this old"},
  {"log.cleaner.enable", "true", "run the log cleaner on compacted topics"},
  {"log.cleaner.backoff.ms", "15000",
   "the cleaner's pause when no log needs cleaning"},
  {"log.cleaner.io.max.bytes.per.second", "1.7976931348623157E308",
   "the cleaner's read and write throttle"},
  {"log.cleaner.min.cleanable.ratio", "0.5",
   "dirty/cleanable bytes at which a log is cleaned"},
  {"log.cleaner.delete.retention.ms", "86400000",
   "how long a tombstone survives after cleaning"},
  {"log.cleaner.min.compaction.lag.ms", "0",
   "records younger than this are not compacted"},
  {"log.cleaner.max.compaction.lag.ms", "9223372036854775807",
   "records older than this are compacted whatever the dirty ratio"},
  {"offsets.topic.segment.bytes", "104857600",
   "segment size of __consumer_offsets (compacted)"},
  {"replica.lag.time.max.ms", "30000",
   "a follower not caught up for this long leaves the ISR"},
  {"group.initial.rebalance.delay.ms", "3000",
   "wait for more members before the first rebalance of an empty group"},
  {"group.min.session.timeout.ms", "6000", "smallest session timeout"},
  {"group.max.session.timeout.ms", "1800000", "largest session timeout"},
  {"group.max.size", "2147483647", "most members a group may have"},
  {"offset.metadata.max.bytes", "4096", "largest offset commit metadata"},
  {"offsets.commit.timeout.ms", "5000",
   "how long a commit waits for __consumer_offsets to hold it"},
  {"offsets.retention.minutes", "10080",
   "how long committed offsets outlive their group's last member (KIP-211) "
   "or, without a group, their commit"},
  {"offsets.retention.check.interval.ms", "600000",
   "how often the coordinators look for expired offsets"},
  {"replica.fetch.wait.max.ms", "500", "a follower's fetch long-poll"},
  {"replica.fetch.backoff.ms", "1000", "a follower's pause after an error"},
  {"broker.id", "-1",
   "this process's broker id when it joins a cluster through ZooKeeper"},
  {"zookeeper.connect", "",
   "host:port[,host:port...][/chroot]; set: one broker per process, cluster "
   "metadata in ZooKeeper; empty: the embedded node"},
  {"zookeeper.session.timeout.ms", "18000",
   "ZooKeeper session timeout: a node silent this long leaves the cluster"},
  {"listeners", "", "PLAINTEXT://host:port of the Kafka listener (cluster)"},
  {"advertised.listeners", "",
   "the listeners clients are told (default: listeners)"},
  {"offsets.topic.replication.factor", "3",
   "replication factor of __consumer_offsets in a cluster"},
  {"troupe.cluster.port", "9190",
   "port of CAF's middleman, where the other nodes connect"},
  {"troupe.cluster.heartbeat.interval.ms", "1000",
   "middleman heartbeat between nodes"},
  {"troupe.cluster.connection.timeout.ms", "6000",
   "a node that sends nothing for this long is cut off"},
  {"group.consumer.session.timeout.ms", "45000",
   "session timeout of consumer-protocol (KIP-848) group members"},
  {"group.consumer.min.session.timeout.ms", "45000",
   "smallest group.consumer.session.timeout.ms"},
  {"group.consumer.max.session.timeout.ms", "60000",
   "largest group.consumer.session.timeout.ms"},
  {"group.consumer.heartbeat.interval.ms", "5000",
   "heartbeat interval given to consumer-protocol group members"},
  {"group.consumer.min.heartbeat.interval.ms", "5000",
   "smallest group.consumer.heartbeat.interval.ms"},
  {"group.consumer.max.heartbeat.interval.ms", "15000",
   "largest group.consumer.heartbeat.interval.ms"},
  {"group.consumer.assignment.interval.ms", "1000",
   "least time between two assignor runs of a consumer-protocol group "
   "(KIP-1263); 0 runs it on every change"},
  {"group.consumer.max.size", "2147483647",
   "most members a consumer-protocol group may have"},
  {"group.consumer.assignors", "uniform,range",
   "server-side assignors (names or Kafka's class names); the first is the "
   "default"},
  {"troupe.http.admin.token", "",
   "routes that change the cluster (broker stop/start, topic creation) "
   "need Authorization: Bearer <token>"},
  {"troupe.http.admin.enable", "false",
   "without a token, allow those routes anyway (local experiments)"},
  {"consumer.instance.timeout.ms", "300000",
   "a REST consumer instance that gets no request for this long is deleted "
   "(REST Proxy's property)"},
};

/// group.consumer.assignors: a comma-separated list of names or Kafka's
/// class names, stored by name.
bool parse_assignors(std::string_view text, std::vector<std::string>& out) {
  std::vector<std::string> names;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{}
                                           : text.substr(comma + 1);
    auto name = server_assignor_name(item);
    if (name.empty())
      return false;
    names.emplace_back(name);
  }
  if (names.empty())
    return false;
  out = std::move(names);
  return true;
}

} // namespace

properties parse_properties(std::string_view text,
                            std::vector<std::string>& errors) {
  properties result;
  size_t line_no = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = trim(text.substr(0, nl));
    text =
      nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == '!')
      continue;
    auto sep = line.find_first_of("=:");
    if (sep == std::string_view::npos || sep == 0) {
      errors.push_back("line " + std::to_string(line_no)
                       + ": expected key=value, got '" + std::string{line}
                       + "'");
      continue;
    }
    result[std::string{trim(line.substr(0, sep))}] =
      std::string{trim(line.substr(sep + 1))};
  }
  return result;
}

bool parse_override(std::string_view text, properties& into) {
  auto sep = text.find('=');
  if (sep == std::string_view::npos || sep == 0)
    return false;
  into[std::string{trim(text.substr(0, sep))}] =
    std::string{trim(text.substr(sep + 1))};
  return true;
}

const std::vector<property_doc>& known_properties() {
  return docs;
}

void apply_properties(const properties& props, cluster_config& cfg,
                      std::vector<std::string>& errors) {
  constexpr auto i32max = std::numeric_limits<int32_t>::max();
  auto bad = [&](const std::string& key, const std::string& value,
                 const char* expected) {
    errors.push_back("invalid value '" + value + "' for " + key + ": expected "
                     + expected);
  };
  for (const auto& [key, value] : props) {
    bool ok = true;
    auto& g = cfg.group;
    if (key == "troupe.brokers")
      ok = parse_int<int32_t>(value, cfg.brokers, 1, 64);
    else if (key == "advertised.host")
      cfg.advertised_host = value, ok = !value.empty();
    else if (key == "port")
      ok = parse_int<int32_t>(value, cfg.base_port, 1, 65535);
    else if (key == "offsets.topic.num.partitions")
      ok =
        parse_int<int32_t>(value, cfg.offsets_topic_num_partitions, 1, 10000);
    else if (key == "num.partitions")
      ok = parse_int<int32_t>(value, cfg.num_partitions, 1, 1000000);
    else if (key == "default.replication.factor")
      ok = parse_int<int16_t>(value, cfg.default_replication_factor, 1, 64);
    else if (key == "auto.create.topics.enable")
      ok = parse_bool(value, cfg.auto_create_topics);
    else if (key == "log.dirs")
      cfg.log_dirs = value, ok = !value.empty();
    else if (key == "unclean.leader.election.enable")
      ok = parse_bool(value, cfg.unclean_leader_election);
    else if (key == "log.segment.bytes")
      ok = parse_int<uint64_t>(value, cfg.log.segment_bytes, 14, INT32_MAX);
    else if (key == "log.retention.bytes")
      ok = parse_int<int64_t>(value, cfg.log.retention_bytes, -1, INT64_MAX);
    else if (key == "log.retention.ms")
      ok = parse_int<int64_t>(value, cfg.log.retention_ms, -1, INT64_MAX);
    else if (key == "log.retention.check.interval.ms")
      ok = parse_int<int64_t>(value, cfg.log_retention_check_interval_ms, 1,
                              INT64_MAX);
    else if (key == "log.flush.interval.messages")
      ok = parse_int<int64_t>(value, cfg.log.flush_messages, 1, INT64_MAX);
    else if (key == "log.flush.interval.ms")
      ok = parse_int<int64_t>(value, cfg.log.flush_ms, 0, INT64_MAX);
    else if (key == "message.max.bytes")
      ok = parse_int<size_t>(value, cfg.log.max_batch_bytes, 64, INT32_MAX);
    else if (key == "log.cleanup.policy")
      ok = parse_cleanup_policy(value, cfg.log);
    else if (key == "log.roll.ms")
      ok = parse_int<int64_t>(value, cfg.log.segment_ms, 1, INT64_MAX);
    else if (key == "log.cleaner.enable")
      ok = parse_bool(value, cfg.log_cleaner_enable);
    else if (key == "log.cleaner.backoff.ms")
      ok = parse_int<int64_t>(value, cfg.log_cleaner_backoff_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.io.max.bytes.per.second")
      ok = parse_double(value, cfg.log_cleaner_io_max_bytes_per_second, 1e-300,
                        std::numeric_limits<double>::max());
    else if (key == "log.cleaner.min.cleanable.ratio")
      ok = parse_double(value, cfg.log.min_cleanable_dirty_ratio, 0, 1);
    else if (key == "log.cleaner.delete.retention.ms")
      ok = parse_int<int64_t>(value, cfg.log.delete_retention_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.min.compaction.lag.ms")
      ok =
        parse_int<int64_t>(value, cfg.log.min_compaction_lag_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.max.compaction.lag.ms")
      ok =
        parse_int<int64_t>(value, cfg.log.max_compaction_lag_ms, 1, INT64_MAX);
    else if (key == "offsets.topic.segment.bytes")
      ok = parse_int<uint64_t>(value, cfg.offsets_topic_segment_bytes, 14,
                               INT32_MAX);
    else if (key == "min.insync.replicas")
      ok = parse_int<int32_t>(value, cfg.min_insync_replicas, 1, 64);
    else if (key == "replica.lag.time.max.ms")
      ok = parse_int<int64_t>(value, cfg.replica_lag_time_max_ms, 1, INT64_MAX);
    else if (key == "group.initial.rebalance.delay.ms")
      ok = parse_int<int32_t>(value, g.initial_rebalance_delay_ms, 0, i32max);
    else if (key == "group.min.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.min_session_timeout_ms, 1, i32max);
    else if (key == "group.max.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.max_session_timeout_ms, 1, i32max);
    else if (key == "group.max.size")
      ok = parse_int<int32_t>(value, g.max_size, 1, i32max);
    else if (key == "offsets.commit.timeout.ms")
      ok = parse_int<int32_t>(value, g.offset_commit_timeout_ms, 1, i32max);
    else if (key == "offsets.retention.minutes") {
      int32_t minutes = 0;
      ok = parse_int<int32_t>(value, minutes, 1, i32max);
      g.offsets_retention_ms = int64_t{minutes} * 60 * 1000;
    } else if (key == "offsets.retention.check.interval.ms")
      ok = parse_int<int64_t>(value, g.offsets_retention_check_interval_ms, 1,
                              INT64_MAX);
    else if (key == "replica.fetch.wait.max.ms")
      ok = parse_int<int32_t>(value, cfg.replica_fetch_wait_max_ms, 0, i32max);
    else if (key == "replica.fetch.backoff.ms")
      ok = parse_int<int32_t>(value, cfg.replica_fetch_backoff_ms, 0, i32max);
    else if (key == "offset.metadata.max.bytes")
      ok = parse_int<int32_t>(value, g.offset_metadata_max_bytes, 0, i32max);
    else if (key == "group.consumer.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.consumer_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.min.session.timeout.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_min_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.max.session.timeout.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_max_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.heartbeat.interval.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_heartbeat_interval_ms, 1, i32max);
    else if (key == "group.consumer.min.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, g.consumer_min_heartbeat_interval_ms, 1,
                              i32max);
    else if (key == "group.consumer.max.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, g.consumer_max_heartbeat_interval_ms, 1,
                              i32max);
    else if (key == "group.consumer.assignment.interval.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_assignment_interval_ms, 0, i32max);
    else if (key == "group.consumer.max.size")
      ok = parse_int<int32_t>(value, g.consumer_max_size, 1, i32max);
    else if (key == "group.consumer.assignors")
      ok = parse_assignors(value, g.consumer_assignors);
    else if (key == "broker.id")
      ok = parse_int<int32_t>(value, cfg.zookeeper.broker_id, 0, i32max);
    else if (key == "zookeeper.connect")
      cfg.zookeeper.connect = value;
    else if (key == "zookeeper.session.timeout.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.session_timeout_ms, 100,
                              i32max);
    else if (key == "listeners")
      cfg.zookeeper.listeners = value;
    else if (key == "advertised.listeners")
      cfg.zookeeper.advertised_listeners = value;
    else if (key == "offsets.topic.replication.factor")
      ok =
        parse_int<int16_t>(value, cfg.offsets_topic_replication_factor, 1, 64);
    else if (key == "troupe.cluster.port")
      ok = parse_int<int32_t>(value, cfg.zookeeper.cluster_port, 0, 65535);
    else if (key == "troupe.cluster.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.heartbeat_interval_ms, 0,
                              i32max);
    else if (key == "troupe.cluster.connection.timeout.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.connection_timeout_ms, 0,
                              i32max);
    else if (key.rfind("troupe.scheduler.", 0) == 0
             || key.rfind("troupe.http.", 0) == 0
             || key == "consumer.instance.timeout.ms")
      continue; // process settings
    else {
      errors.push_back("unknown property: " + key);
      continue;
    }
    if (!ok)
      bad(key, value, "a value in range (see --help)");
  }
  if (cfg.zookeeper.enabled() && cfg.zookeeper.broker_id < 0)
    errors.push_back("zookeeper.connect needs broker.id: every node of a "
                     "cluster has its own");
  if (cfg.group.min_session_timeout_ms > cfg.group.max_session_timeout_ms)
    errors.push_back("group.min.session.timeout.ms must not exceed "
                     "group.max.session.timeout.ms");
  // Kafka's GroupCoordinatorConfig requirements, in its words.
  const auto& g = cfg.group;
  auto require = [&](bool holds, const char* what) {
    if (!holds)
      errors.push_back(what);
  };
  require(g.consumer_max_heartbeat_interval_ms
            >= g.consumer_min_heartbeat_interval_ms,
          "group.consumer.max.heartbeat.interval.ms must be greater than or "
          "equal to group.consumer.min.heartbeat.interval.ms");
  require(g.consumer_heartbeat_interval_ms
            >= g.consumer_min_heartbeat_interval_ms,
          "group.consumer.heartbeat.interval.ms must be greater than or equal "
          "to group.consumer.min.heartbeat.interval.ms");
  require(g.consumer_heartbeat_interval_ms
            <= g.consumer_max_heartbeat_interval_ms,
          "group.consumer.heartbeat.interval.ms must be less than or equal to "
          "group.consumer.max.heartbeat.interval.ms");
  require(g.consumer_max_session_timeout_ms
            >= g.consumer_min_session_timeout_ms,
          "group.consumer.max.session.timeout.ms must be greater than or "
          "equal to group.consumer.min.session.timeout.ms");
  require(g.consumer_session_timeout_ms >= g.consumer_min_session_timeout_ms,
          "group.consumer.session.timeout.ms must be greater than or equal to "
          "group.consumer.min.session.timeout.ms");
  require(g.consumer_session_timeout_ms <= g.consumer_max_session_timeout_ms,
          "group.consumer.session.timeout.ms must be less than or equal to "
          "group.consumer.max.session.timeout.ms");
  require(g.consumer_heartbeat_interval_ms < g.consumer_session_timeout_ms,
          "group.consumer.heartbeat.interval.ms must be less than "
          "group.consumer.session.timeout.ms");
}

void apply_process_properties(const properties& props, process_config& cfg,
                              std::vector<std::string>& errors) {
  if (auto i = props.find("troupe.scheduler.threads"); i != props.end())
    if (!parse_int<int32_t>(i->second, cfg.threads, 0, 256))
      errors.push_back("invalid value '" + i->second
                       + "' for troupe.scheduler.threads: expected 0..256");
  if (auto i = props.find("consumer.instance.timeout.ms"); i != props.end())
    if (!parse_int<int32_t>(i->second, cfg.consumer_instance_timeout_ms, 1,
                            std::numeric_limits<int32_t>::max()))
      errors.push_back("invalid value '" + i->second
                       + "' for consumer.instance.timeout.ms: expected "
                         "1..2147483647");
  if (auto i = props.find("troupe.scheduler.policy"); i != props.end()) {
    if (i->second != "sharing" && i->second != "stealing")
      errors.push_back("invalid value '" + i->second
                       + "' for troupe.scheduler.policy: expected sharing or "
                         "stealing");
    else
      cfg.scheduler_policy = i->second;
  }
  for (auto& [key, value] : props) {
    if (key.rfind("troupe.http.", 0) != 0)
      continue;
    if (key == "troupe.http.admin.token")
      cfg.http_admin_token = value;
    else if (key == "troupe.http.admin.enable") {
      if (!parse_bool(value, cfg.http_admin_enable))
        errors.push_back("invalid value '" + value
                         + "' for troupe.http.admin.enable: expected true or "
                           "false");
    } else
      errors.push_back("unknown property: " + key);
  }
}

} // namespace troupe
