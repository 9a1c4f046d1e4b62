#pragma once

// The leader side of one partition replica, as Kafka's Partition and
// ReplicaManager keep it (docs/ARCHITECTURE.md §4), as a plain class:
// follower log end offsets and lastCaughtUpTimeMs, ISR shrink and expand,
// the high watermark, and acks=all produce requests waiting for it. Time is passed in; ISR
// changes are proposed here and applied when the controller has stored them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"

namespace troupe {

struct follower_state {
  int32_t broker_id = -1;
  int64_t log_end_offset = 0;
  int64_t last_caught_up_ms = 0;
  /// Leader's LEO and the time of this follower's previous fetch.
  int64_t last_fetch_leader_leo = 0;
  int64_t last_fetch_ms = 0;
  /// Its log start offset as its latest fetch said; -1 (Kafka's
  /// UnknownOffset) until it fetches from this leader.
  int64_t log_start_offset = -1;
};

struct partition_leader_config {
  /// replica.lag.time.max.ms
  int64_t replica_lag_time_max_ms = 30000;
  /// min.insync.replicas
  int32_t min_insync_replicas = 1;
};

/// A produce request with acks=all waiting for the high watermark.
struct pending_produce {
  uint64_t id = 0;
  /// The high watermark must reach this (the batch's last offset + 1).
  int64_t required_offset = 0;
};

struct completed_produce {
  uint64_t id = 0;
  error_code error = error_code::none;
};

class partition_leader {
public:
  // -- constructors ----------------------------------------------------------

  /// Becomes leader with `replicas` (assignment order), the current `isr`,
  /// its own log end offset and the high watermark it knew. Followers start
  /// caught up "now", as Kafka resets them on becoming leader.
  partition_leader(int32_t leader_id, int32_t leader_epoch,
                   std::vector<int32_t> replicas, std::vector<int32_t> isr,
                   int64_t log_end_offset, int64_t high_watermark,
                   partition_leader_config config, int64_t now_ms);

  // -- produce ---------------------------------------------------------------

  /// Kafka's check before appending with acks=all: NOT_ENOUGH_REPLICAS when
  /// the ISR is smaller than min.insync.replicas.
  error_code check_acks_all() const;

  /// The topic's min.insync.replicas changed (a topic config change).
  void set_min_insync_replicas(int32_t n) noexcept {
    config_.min_insync_replicas = n;
  }

  /// The leader appended; its LEO is now `log_end_offset`. The HW may move
  /// (a single-replica ISR) and waiting produces may complete.
  void on_local_append(int64_t log_end_offset);

  /// Parks an acks=all produce until the HW reaches `required_offset`.
  void add_pending(pending_produce p);

  /// The produce timed out (request.timeout.ms): removes it; true if it was
  /// still waiting (then the caller answers REQUEST_TIMED_OUT).
  bool expire_pending(uint64_t id);

  /// Produces answered since the last call: NONE once the HW passed their
  /// batch, or NOT_ENOUGH_REPLICAS_AFTER_APPEND as soon as a stored ISR
  /// shrink left fewer than min.insync.replicas (the HW cannot move then).
  std::vector<completed_produce> take_completed();

  // -- followers -------------------------------------------------------------

  /// A follower fetched from `fetch_offset` (its LEO). Updates its
  /// lastCaughtUpTimeMs by Kafka's rule, may propose adding it to the ISR
  /// (see proposed_isr()) and may advance the HW.
  void on_follower_fetch(int32_t follower, int64_t fetch_offset,
                         int64_t now_ms);

  /// The log start offset a follower's fetch carried (Kafka's
  /// Replica.updateFetchState keeps it beside the LEO).
  void on_follower_log_start(int32_t follower, int64_t log_start_offset);

  /// Kafka's Partition.lowWatermarkIfLeader: the smallest log start offset
  /// of the leader (`own_log_start_offset`) and its followers. Kafka takes
  /// every follower on a live broker; a troupe broker that stops leaves
  /// every ISR at once, so the ISR stands for the live ones. DeleteRecords
  /// completes when this reaches its offset.
  int64_t low_watermark(int64_t own_log_start_offset) const;

  /// The isr-expiration tick (every replica.lag.time.max.ms / 2): proposes
  /// dropping followers not caught up within replica.lag.time.max.ms.
  void on_isr_expiration(int64_t now_ms);

  /// An ISR change waiting to be stored by the controller, if any.
  const std::optional<std::vector<int32_t>>& proposed_isr() const noexcept {
    return proposed_isr_;
  }

  /// The controller stored `isr` (or refused: pass the ISR it holds).
  void apply_isr(std::vector<int32_t> isr);

  // -- observers -------------------------------------------------------------

  int64_t high_watermark() const noexcept {
    return high_watermark_;
  }
  int64_t log_end_offset() const noexcept {
    return log_end_offset_;
  }
  const std::vector<int32_t>& isr() const noexcept {
    return isr_;
  }
  int32_t leader_epoch() const noexcept {
    return leader_epoch_;
  }
  const follower_state* follower(int32_t broker_id) const;

private:
  /// ISR used for the HW: the stored ISR plus replicas being added (they
  /// have caught up; Kafka's "maximal ISR"). Removals count only once
  /// stored.
  std::vector<int32_t> maximal_isr() const;
  void maybe_advance_high_watermark();
  follower_state* find(int32_t broker_id);
  bool in(const std::vector<int32_t>& xs, int32_t x) const;

  int32_t leader_id_;
  int32_t leader_epoch_;
  std::vector<int32_t> replicas_;
  std::vector<int32_t> isr_;
  std::optional<std::vector<int32_t>> proposed_isr_;
  partition_leader_config config_;
  int64_t log_end_offset_;
  int64_t high_watermark_;
  std::vector<follower_state> followers_;
  std::vector<pending_produce> pending_;
  std::vector<completed_produce> completed_;
};

} // namespace troupe
