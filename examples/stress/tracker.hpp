#pragma once

// What the stress harness knows about every consumer and group, fed by the
// consumers' and coordinators' events. Shared between the tracker actor
// (writer) and the harness's main thread (reader) under one mutex.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "domain/group_kinds.hpp"
#include "domain/topic_partition.hpp"
#include "messages/cluster_messages.hpp"

namespace troupe::stress {

using steady = std::chrono::steady_clock;

struct member_track {
  int32_t group = 0;
  /// Bumped when the member is replaced; events of older incarnations
  /// (named "<index>.<version>") are ignored.
  int32_t version = 0;
  int32_t generation = -1;
  std::vector<int32_t> partitions; // of the group's topic, sorted
  bool alive = false;
};

struct group_track {
  int32_t partitions = 0;
  int32_t alive = 0;
  /// How many alive members hold an assignment of each generation.
  std::map<int32_t, int32_t> at_generation;
  int64_t assigned_total = 0;
  /// When the group last became stable (all alive members hold an
  /// assignment of one generation and every partition is assigned), or
  /// nullopt while it is not.
  bool stable = false;
  /// The coordinator's last reported state (unknown until it reports one: a
  /// coordinator in another process reports nothing). The members alone can
  /// look settled while a KIP-848 coordinator still waits to run its
  /// assignor (group.consumer.assignment.interval.ms), so a group that
  /// reports is stable only once its coordinator says Stable.
  any_group_state coordinator_state = any_group_state::unknown;
  steady::time_point stable_since{};
  int32_t stable_generation = -1;
  uint64_t rebalances = 0;
  uint64_t expiries = 0;
};

struct tracker_state {
  std::mutex mtx;
  std::vector<member_track> members;
  std::vector<group_track> groups;
  uint64_t failures = 0;

  void on(const consumer_event& e);
  void on(const group_event& e);
  void set_alive(size_t member, bool alive);
  /// Re-evaluates a group's stability (call under the lock).
  void update(int32_t group);

  /// Every partition of every group owned exactly once by alive members;
  /// returns the number of violations (call under the lock).
  size_t ownership_violations() const;
};

} // namespace troupe::stress
