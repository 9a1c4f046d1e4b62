#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "domain/group.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per consumer group. Thin: the Kafka semantics live in troupe::group;
/// this actor owns what a plain class cannot — the parked JoinGroup and
/// SyncGroup response promises (the rebalance barrier), the join and sync
/// timers, and one member_session actor per member.
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
  std::unordered_map<std::string, member_session_actor> sessions;
  event_listener_actor listener;

  static inline const char* name = "group_coordinator";
};

using group_coordinator_ptr =
  group_coordinator_actor::stateful_pointer<group_coordinator_state>;

/// `listener` (may be null) receives every state transition.
group_coordinator_actor::behavior_type
group_coordinator(group_coordinator_ptr self, std::string group_id,
                  group_config config, uint64_t seed,
                  event_listener_actor listener);

} // namespace troupe
