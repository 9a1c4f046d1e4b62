#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace troupe {

/// The timers of many members on one clock, owned by their coordinator
/// (docs/ARCHITECTURE.md §3, "Session expiry"). Kafka's coordinator keeps
/// its heartbeat timeouts in a timing wheel (SystemTimer/TimingWheel): a
/// timer goes into the bucket of its tick, and only the buckets that hold
/// something are waited on, earliest first. So does this one: a bucket per
/// tick of `tick_ms`, an ordered index of the non-empty buckets, and the
/// owner waits on one clock entry, for the earliest bucket, whatever the
/// number of timers in it.
///
/// A timer is not cancelled or moved: its owner decides, when it fires,
/// whether it still stands (a member that heartbeated since gets a new
/// timer at its new deadline; a member gone is ignored). A heartbeat
/// therefore costs the wheel nothing: the member's deadline moves in the
/// member, and the wheel sees the member once per session timeout.
///
/// Plain state on simulated or real milliseconds, the caller's clock.
template <class T>
class timer_wheel {
public:
  explicit timer_wheel(int64_t tick_ms = 1) : tick_ms_(std::max<int64_t>(1, tick_ms)) {
  }

  /// Files `item` to fire at the first tick at or after `deadline_ms`.
  /// Answers whether it moved the wheel's next deadline earlier (then the
  /// owner must wait on the new one).
  bool schedule(int64_t deadline_ms, T item) {
    auto before = next_deadline();
    auto tick = tick_of(deadline_ms);
    buckets_[tick].push_back(std::move(item));
    ++size_;
    return !before || tick * tick_ms_ < *before;
  }

  /// Removes and answers every item due at `now_ms`, in deadline order
  /// (within one tick, in the order they were filed).
  std::vector<T> advance(int64_t now_ms) {
    std::vector<T> due;
    while (!buckets_.empty() && buckets_.begin()->first * tick_ms_ <= now_ms) {
      auto& bucket = buckets_.begin()->second;
      size_ -= bucket.size();
      if (due.empty())
        due = std::move(bucket);
      else
        std::move(bucket.begin(), bucket.end(), std::back_inserter(due));
      buckets_.erase(buckets_.begin());
    }
    return due;
  }

  /// When the earliest bucket is due, if any timer is filed.
  std::optional<int64_t> next_deadline() const {
    if (buckets_.empty())
      return std::nullopt;
    return buckets_.begin()->first * tick_ms_;
  }

  /// Timers filed.
  size_t size() const {
    return size_;
  }

  /// Buckets waited on (at most one clock entry each, in turn).
  size_t buckets() const {
    return buckets_.size();
  }

  int64_t tick_ms() const {
    return tick_ms_;
  }

  void clear() {
    buckets_.clear();
    size_ = 0;
  }

private:
  /// The tick at or after `deadline_ms` (a timer never fires early).
  int64_t tick_of(int64_t deadline_ms) const {
    auto q = deadline_ms / tick_ms_;
    if (q * tick_ms_ < deadline_ms)
      ++q;
    return q;
  }

  int64_t tick_ms_;
  std::map<int64_t, std::vector<T>> buckets_;
  size_t size_ = 0;
};

} // namespace troupe
