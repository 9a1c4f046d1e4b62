#pragma once

#include <string>

#include "messages/interfaces.hpp"

namespace troupe {

/// One per member (and per KIP-394 pending member) of a group: owns the
/// member's session timer. When it fires, the coordinator decides (the
/// member may have heartbeated since); the verdict re-arms or ends the
/// session. delayed_send cannot be cancelled, so ticks carry an epoch and
/// stale ones are ignored.
struct member_session_state {
  std::string member_id;
  group_coordinator_actor coordinator;
  uint64_t epoch = 0;

  static inline const char* name = "member_session";
};

using member_session_ptr =
  member_session_actor::stateful_pointer<member_session_state>;

member_session_actor::behavior_type
member_session(member_session_ptr self, group_coordinator_actor coordinator,
               std::string member_id, int64_t first_check_ms);

} // namespace troupe
