#pragma once

#include <cstdint>
#include <string>

#include "domain/group_config.hpp"
#include "domain/log/segment_log.hpp"

namespace troupe {

/// What an embedded node runs, in Kafka's property names.
struct cluster_config {
  /// How many brokers one process hosts (troupe's own setting).
  int32_t brokers = 3;
  /// offsets.topic.num.partitions
  int32_t offsets_topic_num_partitions = 50;
  /// num.partitions: partitions of an auto-created or defaulted topic.
  int32_t num_partitions = 1;
  /// default.replication.factor
  int16_t default_replication_factor = 1;
  /// auto.create.topics.enable
  bool auto_create_topics = true;
  /// log.dirs: where logs and the controller's metadata live; empty keeps
  /// everything in memory (tests).
  std::string log_dirs;
  /// unclean.leader.election.enable
  bool unclean_leader_election = false;
  /// min.insync.replicas
  int32_t min_insync_replicas = 1;
  /// replica.lag.time.max.ms
  int64_t replica_lag_time_max_ms = 30000;
  /// replica.fetch.wait.max.ms, replica.fetch.backoff.ms
  int32_t replica_fetch_wait_max_ms = 500;
  int32_t replica_fetch_backoff_ms = 1000;
  /// Run each broker's log manager (file I/O) on its own thread. Tests under
  /// CAF's deterministic test coordinator turn it off.
  bool detached_io = true;
  /// log.segment.bytes, log.retention.bytes, log.retention.ms,
  /// log.flush.interval.messages, log.flush.interval.ms, message.max.bytes
  log_config log;
  /// log.retention.check.interval.ms
  int64_t log_retention_check_interval_ms = 300000;
  /// Host each broker advertises; broker i gets port base_port + i.
  std::string advertised_host = "127.0.0.1";
  int32_t base_port = 9092;
  group_config group;
  /// Seed for member ids (0: random).
  uint64_t seed = 0;
};

} // namespace troupe
