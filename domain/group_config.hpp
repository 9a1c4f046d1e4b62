#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace troupe {

/// Broker-side group settings, named and defaulted as Kafka's.
struct group_config {
  /// group.min.session.timeout.ms
  int32_t min_session_timeout_ms = 6000;
  /// group.max.session.timeout.ms
  int32_t max_session_timeout_ms = 1800000;
  /// group.initial.rebalance.delay.ms
  int32_t initial_rebalance_delay_ms = 3000;
  /// group.max.size
  int32_t max_size = std::numeric_limits<int32_t>::max();
  /// offset.metadata.max.bytes
  int32_t offset_metadata_max_bytes = 4096;
  /// offsets.commit.timeout.ms: how long a commit waits for
  /// __consumer_offsets to hold it (acks=all) before it fails.
  int32_t offset_commit_timeout_ms = 5000;
  /// offsets.retention.minutes (7 days) in ms: how long a group's committed
  /// offsets outlive the group's last member (Kafka's KIP-211), or a
  /// commit made without a group membership (docs/ARCHITECTURE.md §3).
  int64_t offsets_retention_ms = int64_t{10080} * 60 * 1000;
  /// offsets.retention.check.interval.ms: how often each led
  /// __consumer_offsets partition looks for expired offsets.
  int64_t offsets_retention_check_interval_ms = 600000;
  /// Store the group metadata (durably, by the coordinator) before a
  /// SyncGroup assignment goes out, as Kafka does; off when offsets live in
  /// memory only.
  bool store_before_sync = false;
  /// How long a new member's pending JoinGroup may wait before it is dropped
  /// (Kafka's GroupCoordinator.NewMemberJoinTimeoutMs, not configurable).
  int32_t new_member_join_timeout_ms = 300000;
  /// Longest group id / member id / instance id accepted: Kafka's strings
  /// are int16-length prefixed.
  int32_t max_id_length = 32767;

  // -- the consumer group protocol (KIP-848), Kafka's group.consumer.* --

  /// group.consumer.session.timeout.ms
  int32_t consumer_session_timeout_ms = 45000;
  /// group.consumer.min.session.timeout.ms
  int32_t consumer_min_session_timeout_ms = 45000;
  /// group.consumer.max.session.timeout.ms
  int32_t consumer_max_session_timeout_ms = 60000;
  /// group.consumer.heartbeat.interval.ms
  int32_t consumer_heartbeat_interval_ms = 5000;
  /// group.consumer.min.heartbeat.interval.ms
  int32_t consumer_min_heartbeat_interval_ms = 5000;
  /// group.consumer.max.heartbeat.interval.ms
  int32_t consumer_max_heartbeat_interval_ms = 15000;
  /// group.consumer.assignment.interval.ms (Kafka 4.3, KIP-1263): the
  /// least time between two runs of the assignor for a group; a change
  /// within it waits, and the changes of the interval share one run. 0
  /// runs the assignor on every change (Kafka 4.0 to 4.2).
  int32_t consumer_assignment_interval_ms = 1000;
  /// group.consumer.max.size
  int32_t consumer_max_size = std::numeric_limits<int32_t>::max();
  /// group.consumer.assignors: server-side assignors by name; the first is
  /// the default when no member names one.
  std::vector<std::string> consumer_assignors{"uniform", "range"};
};

} // namespace troupe
