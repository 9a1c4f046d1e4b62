#pragma once

#include <cstdint>
#include <string>

#include "domain/group_config.hpp"
#include "domain/log/segment_log.hpp"
#include "domain/security/security_config.hpp"

namespace troupe {

/// A node of a cluster of processes (docs/ARCHITECTURE.md §7): one broker,
/// cluster metadata in ZooKeeper, peers over CAF's middleman. Off while
/// zookeeper.connect is empty (the embedded node).
struct zookeeper_mode {
  /// broker.id
  int32_t broker_id = -1;
  /// zookeeper.connect: host:port[,host:port...][/chroot]
  std::string connect;
  /// zookeeper.session.timeout.ms
  int32_t session_timeout_ms = 18000;
  /// listeners / advertised.listeners (Kafka's NAME://host:port lists); the
  /// PLAINTEXT one is the Kafka listener. Empty: port and advertised.host.
  std::string listeners;
  std::string advertised_listeners;
  /// troupe.cluster.port: where CAF's middleman listens for the other nodes
  /// (published as the TROUPE listener in /brokers/ids/<id>).
  int32_t cluster_port = 9190;
  /// troupe.cluster.heartbeat.interval.ms and
  /// troupe.cluster.connection.timeout.ms: CAF 0.17's middleman
  /// heartbeat-interval and connection-timeout (off by default in CAF), so
  /// that a hung peer is noticed.
  int32_t heartbeat_interval_ms = 1000;
  int32_t connection_timeout_ms = 6000;
  /// broker.heartbeat.interval.ms and broker.session.timeout.ms (KIP-631):
  /// every broker heartbeats the active controller over its node link; one
  /// silent for the session timeout, or whose link closed, is fenced (out
  /// of every ISR, its leaderships moved). Kafka's KRaft defaults are 2000
  /// and 9000; troupe's are measured in README "Failover".
  int32_t broker_heartbeat_interval_ms = 200;
  int32_t broker_session_timeout_ms = 2000;

  bool enabled() const noexcept {
    return !connect.empty();
  }
};

/// What an embedded node runs, in Kafka's property names.
struct cluster_config {
  /// How many brokers one process hosts (troupe's own setting).
  int32_t brokers = 3;
  /// offsets.topic.num.partitions
  int32_t offsets_topic_num_partitions = 50;
  /// offsets.topic.replication.factor: with ZooKeeper, __consumer_offsets is
  /// created once this many brokers are registered (Kafka's rule); the
  /// embedded node uses min(3, brokers).
  int16_t offsets_topic_replication_factor = 3;
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
  /// auto.leader.rebalance.enable, leader.imbalance.per.broker.percentage,
  /// leader.imbalance.check.interval.seconds: the active controller of a
  /// cluster moves leadership back to preferred replicas (the first of
  /// each assignment) when a broker leads fewer than it should by more
  /// than the percentage, checked every interval (Kafka's defaults).
  bool auto_leader_rebalance = true;
  int32_t leader_imbalance_per_broker_percentage = 10;
  int64_t leader_imbalance_check_interval_seconds = 300;
  /// min.insync.replicas
  int32_t min_insync_replicas = 1;
  /// replica.lag.time.max.ms
  int64_t replica_lag_time_max_ms = 30000;
  /// replica.fetch.wait.max.ms, replica.fetch.backoff.ms
  int32_t replica_fetch_wait_max_ms = 500;
  int32_t replica_fetch_backoff_ms = 1000;
  /// max.incremental.fetch.session.cache.slots: fetch sessions (KIP-227)
  /// each broker keeps for its consumers; 0 keeps none.
  int32_t max_incremental_fetch_session_cache_slots = 1000;
  /// leader.replication.throttled.rate, follower.replication.throttled.rate
  /// (bytes/s): the broker's quotas for throttled replication traffic
  /// (domain/replication/replication_quota.hpp); INT64_MAX is none. A
  /// dynamic broker config of the same name overrides them at run time.
  int64_t leader_replication_throttled_rate = INT64_MAX;
  int64_t follower_replication_throttled_rate = INT64_MAX;
  /// Run each broker's log manager (file I/O) on its own thread. Tests under
  /// CAF's deterministic test coordinator turn it off.
  bool detached_io = true;
  /// log.segment.bytes, log.retention.bytes, log.retention.ms,
  /// log.flush.interval.messages, log.flush.interval.ms, message.max.bytes,
  /// log.cleanup.policy, log.roll.ms, log.cleaner.min.cleanable.ratio,
  /// log.cleaner.delete.retention.ms, log.cleaner.min/max.compaction.lag.ms:
  /// the broker's defaults for every topic (default_log_config).
  log_config log;
  /// log.retention.check.interval.ms
  int64_t log_retention_check_interval_ms = 300000;
  /// log.cleaner.enable: run the log cleaner on compacted topics (the
  /// broker's log manager, docs/ARCHITECTURE.md §4).
  bool log_cleaner_enable = true;
  /// log.cleaner.backoff.ms: how long the cleaner sleeps when no log needs
  /// cleaning, and before it looks at a log again.
  int64_t log_cleaner_backoff_ms = 15000;
  /// log.cleaner.io.max.bytes.per.second: the cleaner's read and write
  /// throttle (Kafka's default Double.MaxValue: none).
  double log_cleaner_io_max_bytes_per_second = 1.7976931348623157e308;
  /// offsets.topic.segment.bytes: segment.bytes of __consumer_offsets,
  /// which is compacted (cleanup.policy=compact), never deleted by age.
  uint64_t offsets_topic_segment_bytes = 104857600;
  /// Host each broker advertises; broker i gets port base_port + i.
  std::string advertised_host = "127.0.0.1";
  int32_t base_port = 9092;
  group_config group;
  /// Seed for member ids (0: random).
  uint64_t seed = 0;
  zookeeper_mode zookeeper;
  /// Listeners, TLS, SASL, the authorizer (docs/ARCHITECTURE.md §9).
  security::security_config security;
};

} // namespace troupe
