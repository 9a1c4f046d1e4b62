#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "actors/groups/offsets_writer.hpp"
#include "domain/group.hpp"
#include "domain/timer_wheel.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per consumer group. Thin: the Kafka semantics live in troupe::group;
/// this actor owns what a plain class cannot — the parked JoinGroup and
/// SyncGroup response promises (the rebalance barrier), the join and sync
/// timers, and the members' session timers: a timer wheel, waited on with
/// one clock entry for the whole group (docs/ARCHITECTURE.md §3).
struct group_coordinator_state {
  std::unique_ptr<group> g;
  /// Parked requests by member id. A member may retry while parked; every
  /// parked request gets the same answer.
  std::unordered_map<
    std::string, std::vector<caf::typed_response_promise<join_group_response>>>
    joins;
  std::unordered_map<
    std::string, std::vector<caf::typed_response_promise<sync_group_response>>>
    syncs;
  /// Session timers: (member id, session number). A member's session
  /// number changes when the group restarts its session; a timer of an
  /// older number, or of a member whose session ended, is dropped when it
  /// fires.
  timer_wheel<std::pair<std::string, uint64_t>> session_timers;
  std::unordered_map<std::string, uint64_t> sessions;
  uint64_t next_session = 0;
  /// The wait on the wheel's earliest bucket: when it is due (-1: none)
  /// and its number.
  int64_t session_wake_at = -1;
  uint64_t session_wake = 0;
  event_listener_actor listener;
  /// Where commits and group metadata are written (acks=all); without a
  /// replica offsets stay in memory only (no log.dirs).
  offsets_log log;
  /// Commits waiting for __consumer_offsets, with the answer they get once
  /// it holds them; a resigning coordinator answers them NOT_COORDINATOR.
  struct pending_commit {
    caf::typed_response_promise<offset_commit_response> promise;
    offset_commit_response response;
  };
  std::map<uint64_t, pending_commit> pending_commits;
  uint64_t next_commit = 0;

  static inline const char* name = "group_coordinator";
};

using group_coordinator_ptr =
  group_coordinator_actor::stateful_pointer<group_coordinator_state>;

/// What a coordinator taking over a group loads from __consumer_offsets.
struct loaded_group {
  /// The group metadata last stored, with its members (none: only offsets
  /// were committed, a standalone group).
  group_snapshot snapshot;
  std::map<topic_partition, committed_offset> offsets;
};

/// `listener` (may be null) receives every state transition. With an
/// `offsets_log`, commits are durable (see group_coordinator_state).
group_coordinator_actor::behavior_type
group_coordinator(group_coordinator_ptr self, std::string group_id,
                  group_config config, uint64_t seed,
                  event_listener_actor listener, replica_actor offsets_log,
                  topic_partition offsets_partition, loaded_group loaded);

} // namespace troupe
