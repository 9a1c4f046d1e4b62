#pragma once

// One member of a KIP-848 consumer group as the records describe it
// (Kafka's modern.consumer.ConsumerGroupMember): its subscription from the
// ConsumerGroupMemberMetadata record and its epochs and current assignment
// from the ConsumerGroupCurrentMemberAssignment record.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "domain/consumer_group/assignment.hpp"

namespace troupe {

/// Kafka's modern.MemberState, with Kafka's byte values (stored in the
/// current assignment record).
enum class member_state : int8_t {
  /// Reconciled to its current epoch's target.
  stable = 0,
  /// Must revoke partitions_pending_revocation before it moves on.
  unrevoked_partitions = 1,
  /// At the target epoch, but waits for partitions others still own.
  unreleased_partitions = 2,
  unknown = 127,
};

/// "STABLE", "UNREVOKED_PARTITIONS", ...
std::string_view member_state_name(member_state s) noexcept;

/// For printing (CAF's to_string of messages picks this up).
inline std::string to_string(member_state s) {
  return std::string{member_state_name(s)};
}

/// Maps a stored byte back; unknown values give member_state::unknown.
member_state member_state_from_int(int8_t value) noexcept;

/// The epoch a member sends to leave; -2 for a static member that comes
/// back within its session timeout (Kafka's ConsumerGroupHeartbeatRequest
/// LEAVE_GROUP_MEMBER_EPOCH / LEAVE_GROUP_STATIC_MEMBER_EPOCH).
constexpr int32_t leave_group_member_epoch = -1;
constexpr int32_t leave_group_static_member_epoch = -2;

struct consumer_member {
  std::string member_id;

  // -- subscription (ConsumerGroupMemberMetadataValue) --
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::set<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;

  // -- assignment (ConsumerGroupCurrentMemberAssignmentValue) --
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  member_state state = member_state::stable;
  partition_assignment assigned;
  partition_assignment pending_revocation;

  /// Kafka's ModernGroupMember.isReconciledTo.
  bool is_reconciled_to(int32_t assignment_epoch) const noexcept {
    return state == member_state::stable && member_epoch == assignment_epoch;
  }

  bool is_static() const noexcept {
    return instance_id.has_value();
  }

  /// Equal subscriptions: a change means a new member metadata record.
  bool same_metadata(const consumer_member& other) const {
    return instance_id == other.instance_id && rack_id == other.rack_id
           && client_id == other.client_id && client_host == other.client_host
           && subscribed_topic_names == other.subscribed_topic_names
           && subscribed_topic_regex == other.subscribed_topic_regex
           && rebalance_timeout_ms == other.rebalance_timeout_ms
           && server_assignor == other.server_assignor;
  }

  /// Equal epochs, state and partitions: a change means a new current
  /// assignment record.
  bool same_assignment(const consumer_member& other) const {
    return member_epoch == other.member_epoch
           && previous_member_epoch == other.previous_member_epoch
           && state == other.state && assigned == other.assigned
           && pending_revocation == other.pending_revocation;
  }
};

} // namespace troupe
