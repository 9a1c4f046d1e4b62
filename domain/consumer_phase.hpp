#pragma once

// Where a client-side consumer stands in its group, as consumer_status
// reports it: troupe's consumer of the classic protocol
// (client/consumer.cpp) and KIP-848's group member
// (client/consumer_group_member.cpp, whose phase is the domain's
// member_phase, Kafka's MemberState). The names, lower case,
// are for the edges (REST/JSON, logs) only.

#include <cstdint>
#include <string>
#include <string_view>

#include "domain/consumer_group/membership.hpp"

namespace troupe {

enum class consumer_phase : uint8_t {
  // -- the classic protocol's consumer
  /// Not in a group: before the first JoinGroup, and between rebalances
  /// when an error sent it back.
  unjoined,
  /// JoinGroup sent (both protocols: KIP-848's JOINING).
  joining,
  /// SyncGroup sent.
  syncing,
  /// Member of the current generation (both protocols: KIP-848's STABLE).
  stable,
  // -- KIP-848's member (Kafka's MemberState, member_phase)
  unsubscribed,
  reconciling,
  acknowledging,
  fenced,
  leaving,
  fatal,
  // -- either, once stopped
  /// Left the group and stopped (consumer_close).
  closed,
  /// Stopped by a fatal error.
  failed,
};

/// "unjoined", "joining", "syncing", "stable", "unsubscribed",
/// "reconciling", "acknowledging", "fenced", "leaving", "fatal", "closed",
/// "failed".
constexpr std::string_view consumer_phase_name(consumer_phase p) noexcept {
  switch (p) {
    case consumer_phase::unjoined:
      return "unjoined";
    case consumer_phase::joining:
      return "joining";
    case consumer_phase::syncing:
      return "syncing";
    case consumer_phase::stable:
      return "stable";
    case consumer_phase::unsubscribed:
      return "unsubscribed";
    case consumer_phase::reconciling:
      return "reconciling";
    case consumer_phase::acknowledging:
      return "acknowledging";
    case consumer_phase::fenced:
      return "fenced";
    case consumer_phase::leaving:
      return "leaving";
    case consumer_phase::fatal:
      return "fatal";
    case consumer_phase::closed:
      return "closed";
    case consumer_phase::failed:
      return "failed";
  }
  return "unknown";
}

/// A KIP-848 member's phase as its consumer reports it.
constexpr consumer_phase to_consumer_phase(member_phase p) noexcept {
  switch (p) {
    case member_phase::unsubscribed:
      return consumer_phase::unsubscribed;
    case member_phase::joining:
      return consumer_phase::joining;
    case member_phase::reconciling:
      return consumer_phase::reconciling;
    case member_phase::acknowledging:
      return consumer_phase::acknowledging;
    case member_phase::stable:
      return consumer_phase::stable;
    case member_phase::fenced:
      return consumer_phase::fenced;
    case member_phase::leaving:
      return consumer_phase::leaving;
    case member_phase::fatal:
      return consumer_phase::fatal;
  }
  return consumer_phase::failed;
}

/// For printing (logs, and CAF's to_string of messages picks this up).
inline std::string to_string(consumer_phase p) {
  return std::string{consumer_phase_name(p)};
}

} // namespace troupe
