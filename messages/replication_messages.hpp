#pragma once

// Produce, fetch and the replicas' own bookkeeping: what Kafka's
// ReplicaManager, Partition and ReplicaFetcherThread exchange, as plain
// structs with inspect(). Record batches travel as RecordBatch v2 bytes,
// untouched, so the Kafka listener can pass them through.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/log/segment_log.hpp"
#include "domain/replication/replica_role.hpp"
#include "domain/topic_partition.hpp"
#include "messages/cluster_messages.hpp"

namespace troupe {

/// Kafka's Produce for one partition: one RecordBatch v2.
struct produce_request {
  topic_partition partition;
  /// 0: no answer needed, 1: the leader wrote it, -1: the ISR has it.
  int16_t acks = -1;
  /// request.timeout.ms for acks=-1.
  int32_t timeout_ms = 30000;
  bytes batch;
};

struct produce_response {
  error_code error = error_code::none;
  /// Offset of the batch's first record; -1 on error and for acks=0.
  int64_t base_offset = -1;
  int64_t log_start_offset = -1;
  /// Why, for the errors Kafka explains (Produce v8+ ErrorMessage):
  /// OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, INVALID_RECORD.
  std::string error_message{};
};

/// Kafka's Fetch for one partition, from a consumer (replica_id -1) or a
/// follower replica (its broker id).
struct fetch_request {
  topic_partition partition;
  int32_t replica_id = -1;
  int64_t offset = 0;
  int32_t max_bytes = 1048576;
  /// Long-poll: wait up to max_wait_ms for min_bytes to be available.
  int32_t max_wait_ms = 500;
  int32_t min_bytes = 1;
  /// The leader epoch the fetcher believes current (-1: unchecked).
  int32_t current_leader_epoch = -1;
  /// A follower's own log start offset (Kafka's FetchRequest
  /// log_start_offset): the leader's DeleteRecords low watermark.
  int64_t log_start_offset = -1;
};

struct fetch_response {
  error_code error = error_code::none;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  /// Whole batches; empty when nothing is available.
  bytes records;
};

/// Kafka's ListOffsets for one partition: -1 latest (the HW a consumer can
/// read to), -2 earliest, otherwise the first offset whose batch has a
/// timestamp at or after it.
struct list_offsets_request {
  topic_partition partition;
  int64_t timestamp = -1;
  /// The leader epoch the client believes current (-1: unchecked), as
  /// ListOffsets v4+ (KIP-320).
  int32_t current_leader_epoch = -1;
};

/// Kafka's special timestamps beyond latest and earliest: the record with
/// the largest timestamp (KIP-734), the earliest local offset (KIP-405) and
/// the latest tiered one (KIP-1005); troupe has no tiered storage.
constexpr int64_t max_timestamp_lookup = -3;
constexpr int64_t earliest_local_timestamp = -4;
constexpr int64_t latest_tiered_timestamp = -5;

struct list_offsets_response {
  error_code error = error_code::none;
  int64_t timestamp = -1;
  int64_t offset = -1;
  /// The leader epoch of the offset found (-1: unknown), ListOffsets v4+.
  int32_t leader_epoch = -1;
};

/// Kafka's OffsetsForLeaderEpoch: a follower asks the leader where its own
/// latest epoch ends in the leader's log.
struct epoch_end_offset_request {
  topic_partition partition;
  int32_t leader_epoch = -1;
  int32_t current_leader_epoch = -1;
};

struct epoch_end_offset_response {
  error_code error = error_code::none;
  int32_t leader_epoch = -1;
  int64_t end_offset = -1;
};

/// Replica -> its broker's log manager: the log's offsets and leader epochs
/// (also opens and recovers the log). `requested_epoch` >= 0 asks for the
/// end of that epoch; `assign_epoch` >= 0 first records that a new leader
/// epoch starts at the log end offset.
struct log_epoch_request {
  topic_partition partition;
  int32_t requested_epoch = -1;
  int32_t assign_epoch = -1;
};

struct log_epoch_response {
  error_code error = error_code::none;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  int32_t latest_epoch = -1;
  /// end_offset_for(requested_epoch): the epoch found and where it ends.
  int32_t epoch = -1;
  int64_t end_offset = -1;
  /// The highest high watermark the log manager knows for the partition,
  /// from its replication-offset-checkpoint when the log was opened (Kafka's
  /// high watermark checkpoint); -1 when none. A replica that opens its log
  /// starts from it.
  int64_t high_watermark = -1;
};

/// A follower's divergence check: truncate to Kafka's rule given the
/// leader's answer for the follower's latest epoch.
struct log_diverge_request {
  topic_partition partition;
  int32_t leader_epoch = -1;
  int64_t leader_end_offset = -1;
  int64_t high_watermark = 0;
};

// -- replica timers (stale role epochs are ignored) ----------------------------

struct isr_expiration_tick {
  uint64_t role_epoch = 0;
};

struct produce_timeout {
  uint64_t id = 0;
};

struct fetch_timeout {
  uint64_t id = 0;
};

struct follower_fetch_tick {
  uint64_t role_epoch = 0;
};

/// Operator -> node: the state of one partition replica, for the gateway and
/// tests.
struct replica_status_request {
  // nop
};

struct replica_status {
  topic_partition partition;
  int32_t broker_id = -1;
  replica_role role = replica_role::loading;
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> isr;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  int64_t high_watermark = -1;
};

/// A replica tells its leadership listener (the group coordination of a
/// __consumer_offsets partition) each time it starts or stops leading, as
/// Kafka's onElection / onResignation (docs/ARCHITECTURE.md §3): the load
/// of the partition's groups starts on this event, no one polls for it.
struct replica_leadership {
  topic_partition partition;
  /// The epoch it leads in; -1 when it stopped leading.
  int32_t leader_epoch = -1;
  bool leader = false;
  /// The replica itself (where the groups write), and the log manager
  /// holding its log (where their replay reads).
  caf::actor replica;
  caf::actor log;
};

/// Every replica a broker hosts.
struct replica_statuses {
  int32_t broker_id = -1;
  bool alive = true;
  std::vector<replica_status> replicas;
};

/// Asks a broker for its replica_statuses.
struct broker_status_request {
  // nop
};

/// The log settings of a topic's partitions on this broker (Kafka's
/// LogConfig after a topic config change, TopicConfigHandler): the log
/// manager applies them to every open partition of the topic and to those
/// it opens later, until the next one. Without one, a topic has
/// default_log_config (domain/log/log_defaults.hpp).
struct topic_log_config {
  std::string topic;
  log_config config;
};

/// The log manager's cleaner runs one bounded slice of a clean per tick and
/// sends itself the next (docs/ARCHITECTURE.md §4): appends and fetches
/// queued meanwhile go first.
struct log_cleaner_tick {
  // nop
};

// -- inspect ------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_config& x) {
  return f(x.segment_bytes, x.index_interval_bytes, x.retention_bytes,
           x.retention_ms, x.flush_messages, x.flush_ms, x.max_batch_bytes,
           x.compact, x.delete_policy, x.segment_ms, x.delete_retention_ms,
           x.min_compaction_lag_ms, x.max_compaction_lag_ms,
           x.min_cleanable_dirty_ratio, x.log_append_time);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_log_config& x) {
  return f(x.topic, x.config);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_cleaner_tick&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, produce_request& x) {
  return f(x.partition, x.acks, x.timeout_ms, x.batch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, produce_response& x) {
  return f(x.error, x.base_offset, x.log_start_offset, x.error_message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_request& x) {
  return f(x.partition, x.replica_id, x.offset, x.max_bytes, x.max_wait_ms,
           x.min_bytes, x.current_leader_epoch, x.log_start_offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_response& x) {
  return f(x.error, x.high_watermark, x.log_start_offset, x.log_end_offset,
           x.records);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_offsets_request& x) {
  return f(x.partition, x.timestamp, x.current_leader_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        list_offsets_response& x) {
  return f(x.error, x.timestamp, x.offset, x.leader_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        epoch_end_offset_request& x) {
  return f(x.partition, x.leader_epoch, x.current_leader_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        epoch_end_offset_response& x) {
  return f(x.error, x.leader_epoch, x.end_offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_epoch_request& x) {
  return f(x.partition, x.requested_epoch, x.assign_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_epoch_response& x) {
  return f(x.error, x.log_start_offset, x.log_end_offset, x.latest_epoch,
           x.epoch, x.end_offset, x.high_watermark);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_diverge_request& x) {
  return f(x.partition, x.leader_epoch, x.leader_end_offset, x.high_watermark);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, isr_expiration_tick& x) {
  return f(x.role_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, produce_timeout& x) {
  return f(x.id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fetch_timeout& x) {
  return f(x.id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, follower_fetch_tick& x) {
  return f(x.role_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_status_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_status& x) {
  return f(x.partition, x.broker_id, x.role, x.leader, x.leader_epoch, x.isr,
           x.log_start_offset, x.log_end_offset, x.high_watermark);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_statuses& x) {
  return f(x.broker_id, x.alive, x.replicas);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_status_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_leadership& x) {
  return f(x.partition, x.leader_epoch, x.leader, x.replica, x.log);
}

} // namespace troupe
