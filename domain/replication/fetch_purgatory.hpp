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
// Plain state shared by one broker's replica actors and Kafka listeners,
// which run on any thread: every call takes the mutex, and a wake function
// runs outside it.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

class fetch_purgatory {
public:
  using wake_fn = std::function<void()>;

  /// The change count of each partition (0 for one never changed).
  std::vector<uint64_t> versions(const std::vector<topic_partition>& tps) const;

  /// Parks a fetch on `tps` until one of them changes; `seen` holds the
  /// counts the caller read them at (from `versions`, same order). Returns
  /// the watch's id, or 0 when a partition changed since `seen`: then
  /// nothing is parked and `wake` is not called (read again now).
  uint64_t watch(const std::vector<topic_partition>& tps,
                 const std::vector<uint64_t>& seen, wake_fn wake);

  /// Drops a watch (its fetch timed out); false when it was woken already.
  bool cancel(uint64_t id);

  /// `tp` has something new for consumers: wakes each fetch watching it.
  void changed(const topic_partition& tp);

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
  };

  /// Removes `id` from its partitions' watcher lists; erases the waiter.
  wake_fn take(uint64_t id);

  mutable std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, waiter> waiters_;
  std::map<topic_partition, partition_entry> partitions_;
};

} // namespace troupe
