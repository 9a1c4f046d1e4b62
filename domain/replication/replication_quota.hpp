#pragma once

// Replication throttling (Kafka's ReplicationQuotaManager, KIP-73;
// docs/ARCHITECTURE.md §7): a broker's byte rate of throttled replication
// traffic, measured over sliding windows, against a quota in bytes per
// second; and which of a topic's replicas are throttled, from the topic
// configs leader.replication.throttled.replicas and
// follower.replication.throttled.replicas. Plain C++, time passed in.

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe {

/// The quota a broker starts with: none (Kafka's Long.MAX_VALUE default of
/// leader.replication.throttled.rate and follower.replication.throttled.rate).
inline constexpr int64_t unlimited_replication_rate =
  std::numeric_limits<int64_t>::max();

/// Kafka's ReplicationQuotaManager with its SimpleRate over
/// replication.quota.window.num (11) samples of
/// replication.quota.window.size.seconds (1 s): `record` adds the bytes of
/// a throttled fetch to the current sample; `exceeded` is true while the
/// bytes of the kept samples, over the time since the oldest one started
/// (at least one window), exceed the quota. Not thread-safe.
class replication_rate {
public:
  explicit replication_rate(
    int64_t bytes_per_second = unlimited_replication_rate, int32_t samples = 11,
    int64_t window_ms = 1000);

  /// A new quota; the measured traffic is kept (Kafka's updateQuota).
  void set_quota(int64_t bytes_per_second) noexcept {
    quota_ = bytes_per_second;
  }

  int64_t quota() const noexcept {
    return quota_;
  }

  bool unlimited() const noexcept {
    return quota_ == unlimited_replication_rate;
  }

  void record(int64_t bytes, int64_t now_ms);

  /// Bytes per second over the kept samples (SimpleRate.measure).
  double rate(int64_t now_ms);

  /// Kafka's isQuotaExceeded: never with the unlimited quota.
  bool exceeded(int64_t now_ms);

private:
  struct sample {
    int64_t start_ms;
    int64_t bytes;
  };

  void purge(int64_t now_ms);

  int64_t quota_;
  int32_t samples_;
  int64_t window_ms_;
  std::deque<sample> kept_;
};

/// A topic's throttled-replica config (leader.replication.throttled.replicas
/// or follower.replication.throttled.replicas) as Kafka's
/// ThrottledReplicaListValidator accepts it: "*" (every replica), or a
/// comma-separated list of partition:broker pairs, blanks around each
/// ignored, an empty item allowed. nullopt: the value is invalid.
struct throttled_replicas {
  bool all = false;
  /// partition, broker
  std::vector<std::pair<int32_t, int32_t>> replicas;

  /// Kafka's parseThrottledPartitions on broker `broker`: whether the
  /// replica of `partition` there is throttled.
  bool covers(int32_t partition, int32_t broker) const;
};

std::optional<throttled_replicas> parse_throttled_replicas(std::string_view);

/// The list written back, as kafka-reassign-partitions.sh builds it:
/// "p:b,p:b" in the given order.
std::string to_config_value(const throttled_replicas& t);

/// ConfigException's reason for an invalid list (after "Invalid value
/// [..] for configuration <name>: ").
inline constexpr std::string_view throttled_replicas_rule =
  "Must be the literal '*' or a list of replicas in the following format: "
  "[partitionId]:[brokerId],[partitionId]:[brokerId],...";

} // namespace troupe
