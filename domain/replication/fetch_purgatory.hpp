#pragma once

// Consumer fetches waiting for data (docs/ARCHITECTURE.md §5), Kafka's
// DelayedFetch purgatory keyed by partition: a Kafka listener that read
// less than a fetch's min.bytes watches the fetch's partitions, and a
// partition's leader replica says when consumers can read something new
// (its high watermark moved) or must hear an error (it stopped leading).
// The first change on any watched partition wakes the fetch, once; the
// listener then reads again. Each partition also has a change count, so a
// listener that snapshots the counts before a read and watches with them
// misses no change that came between the read and the watch.
//
// A leader replica also publishes here what a consumer that has read all
// it may read would be told (its leader view: high watermark, log start
// offset, leader epoch). A listener asked for a partition at exactly that
// high watermark answers from the view, without a round trip to the
// replica: the answer would be empty, and the replica's own would say the
// same (Kafka reads the Partition's state in place for the same reason).
//
// Plain state shared by one broker's replica actors and Kafka listeners,
// which run on any thread: every call takes the mutex, and a wake function
// runs outside it.

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

class fetch_purgatory {
public:
  using wake_fn = std::function<void()>;

  /// What the leader of a partition answers a consumer's fetch that finds
  /// nothing to read, and the epoch it leads in.
  struct leader_view {
    int64_t high_watermark = -1;
    int64_t log_start_offset = -1;
    int32_t leader_epoch = -1;
    bool operator==(const leader_view& x) const {
      return high_watermark == x.high_watermark
             && log_start_offset == x.log_start_offset
             && leader_epoch == x.leader_epoch;
    }
    bool operator!=(const leader_view& x) const { return !(*this == x); }
  };

  /// A partition's change count with its leader view, read together.
  struct snapshot_entry {
    uint64_t version = 0;
    std::optional<leader_view> view; // none: no replica here says it leads
  };

  /// The change count (0 for one never changed) and leader view of each
  /// partition, under one lock.
  std::vector<snapshot_entry>
  snapshot(const std::vector<topic_partition>& tps) const;

  /// The replica `owner` (an id unique among a broker's replicas) leads
  /// `tp` as `view`, or with none no longer leads it. A view that differs
  /// from the last one is a change (wakes the fetches watching `tp`). A
  /// withdrawal by an owner that is not the publisher is ignored, so a
  /// replica that ends after its successor began leaves the view alone.
  void publish(const topic_partition& tp, uint64_t owner,
               std::optional<leader_view> view);

  /// Parks a fetch on `tps` until one of them changes; `seen` holds the
  /// counts the caller read them at (from `snapshot`, same order). Returns
  /// the watch's id, or 0 when a partition changed since `seen`: then
  /// nothing is parked and `wake` is not called (read again now).
  uint64_t watch(const std::vector<topic_partition>& tps,
                 const std::vector<uint64_t>& seen, wake_fn wake);

  /// Drops a watch (its fetch timed out); false when it was woken already.
  bool cancel(uint64_t id);

  /// Fetches parked now (for metrics and tests).
  size_t waiting() const;

private:
  struct waiter {
    std::vector<topic_partition> partitions;
    wake_fn wake;
  };
  struct partition_entry {
    uint64_t version = 0;
    std::vector<uint64_t> watchers;
    std::optional<leader_view> view;
    uint64_t owner = 0;
  };

  /// Removes `id` from its partitions' watcher lists; erases the waiter.
  wake_fn take(uint64_t id);

  /// Counts a change on `entry` and takes the fetches watching it (to be
  /// woken outside the lock).
  void bump(partition_entry& entry, std::vector<wake_fn>& woken);

  /// Every fetch looks up each of its partitions: hashed, not compared
  /// name by name (all of a topic's partitions share the name).
  struct partition_hash {
    size_t operator()(const topic_partition& tp) const noexcept {
      return std::hash<std::string>{}(tp.topic) * 31
             + static_cast<size_t>(static_cast<uint32_t>(tp.partition));
    }
  };

  mutable std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, waiter> waiters_;
  std::unordered_map<topic_partition, partition_entry, partition_hash>
    partitions_;
};

} // namespace troupe
