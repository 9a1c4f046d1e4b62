#pragma once

// Kafka's LeaderEpochFileCache in memory: for each leader epoch the offset at
// which it began in this replica's log. A follower of a new leader asks for
// the end offset of its own latest epoch and truncates its log there, which
// drops a divergent tail written under a deposed leader (KIP-101/279).

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace troupe {

constexpr int32_t undefined_epoch = -1;
constexpr int64_t undefined_epoch_offset = -1;

class leader_epoch_cache {
public:
  /// The log got its first record of `epoch` at `start_offset`. Epochs and
  /// offsets only grow; an older or equal epoch is ignored, as Kafka does.
  void assign(int32_t epoch, int64_t start_offset);

  int32_t latest_epoch() const;

  /// Kafka's endOffsetFor(requestedEpoch, logEndOffset): the epoch this log
  /// has at or below the requested one, and the offset where the next
  /// higher epoch starts (the log end offset for the latest epoch).
  std::pair<int32_t, int64_t> end_offset_for(int32_t requested_epoch,
                                             int64_t log_end_offset) const;

  /// The log was truncated to `end_offset`: epochs starting at or after it
  /// are forgotten.
  void truncate_from_end(int64_t end_offset);

  /// Old segments were deleted: the earliest epoch now starts at
  /// `start_offset` (later epochs keep theirs).
  void truncate_from_start(int64_t start_offset);

  const std::map<int32_t, int64_t>& entries() const noexcept {
    return epochs_;
  }

private:
  std::map<int32_t, int64_t> epochs_; // epoch -> start offset
};

/// What a follower truncates to after asking the new leader for the end of
/// its latest epoch (Kafka's ReplicaFetcherThread truncation):
/// `leader_answer` is the leader's end_offset_for(follower's latest epoch).
int64_t follower_truncation_offset(const leader_epoch_cache& follower,
                                   std::pair<int32_t, int64_t> leader_answer,
                                   int64_t follower_leo, int64_t follower_hw);

} // namespace troupe
