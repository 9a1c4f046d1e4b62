#pragma once

// The member's side of KIP-848 (Kafka's ConsumerMembershipManager, with the
// heartbeat fields of ConsumerHeartbeatRequestManager.HeartbeatState) as a
// plain class: what the next ConsumerGroupHeartbeat carries, how its answer
// moves the member, and the reconciliation the caller carries out — revoke
// first, then take the new assignment, then acknowledge it with the next
// heartbeat. No actors, no clocks: the caller sends, times and calls back.
// Comments that restate Kafka's semantics say so.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "domain/consumer_group/assignment.hpp"
#include "domain/topic_partition.hpp"
#include "domain/consumer_group/requests.hpp"

namespace troupe {

/// Kafka's MemberState (clients' consumer.internals).
enum class member_phase : uint8_t {
  /// Not in the group: before subscribing and after leaving.
  unsubscribed,
  /// The next heartbeat joins (member epoch 0).
  joining,
  /// A new target assignment waits to be reconciled.
  reconciling,
  /// Reconciled: the next heartbeat, sent at once, acknowledges it.
  acknowledging,
  stable,
  /// FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: partitions are lost.
  fenced,
  /// The next heartbeat leaves (epoch -1, or -2 for a static member).
  leaving,
  /// A non-retriable error: the member stops.
  fatal,
};

/// Kafka's names: "UNSUBSCRIBED", "JOINING", ...
std::string_view member_phase_name(member_phase phase) noexcept;

/// A consumer's group settings (Kafka's ConsumerConfig names).
struct membership_config {
  /// group.id
  std::string group_id;
  /// group.instance.id (KIP-345)
  std::optional<std::string> instance_id;
  /// client.rack
  std::optional<std::string> rack_id;
  /// subscribe(topics)
  std::vector<std::string> topics;
  /// max.poll.interval.ms, sent as the rebalance timeout.
  int32_t rebalance_timeout_ms = 300000;
  /// group.remote.assignor (null: the group's choice).
  std::optional<std::string> server_assignor;
};

/// What the caller does to reach the target assignment: give up `revoked`
/// (onPartitionsRevoked, offsets committed), then take `assigned` (the
/// whole new assignment; `added` are its new partitions), then call
/// consumer_membership::reconciled().
struct membership_reconciliation {
  std::vector<topic_partition> revoked;
  std::vector<topic_partition> added;
  std::vector<topic_partition> assigned;
};

/// How the caller goes on after a heartbeat answer.
enum class heartbeat_outcome : uint8_t {
  /// Carry on: reconcile if reconciling, heartbeat now if heartbeat_now(),
  /// else after heartbeat_interval_ms().
  ok,
  /// Back off (retry.backoff.ms), then heartbeat again.
  retry,
  /// Find the coordinator again, then heartbeat.
  coordinator_unknown,
  /// The member was fenced: call fence(), release what it returns as lost,
  /// and heartbeat at once to rejoin.
  fenced,
  /// Stop: the error is not retriable.
  fatal,
  /// The heartbeat that left the group was answered.
  left,
};

class consumer_membership {
public:
  // -- constructors ----------------------------------------------------------

  /// `member_id`: KIP-1082's client-generated member id (heartbeat v1),
  /// kept for the consumer's lifetime. The member starts joining.
  consumer_membership(membership_config config, std::string member_id);

  // -- heartbeats ------------------------------------------------------------

  /// Kafka's shouldHeartbeatNow: joining, acknowledging and leaving do not
  /// wait for the heartbeat interval.
  bool heartbeat_now() const noexcept;

  /// Kafka's shouldSkipHeartbeat: not a member, nothing to send.
  bool skip_heartbeat() const noexcept;

  /// The next heartbeat (HeartbeatState.buildRequestData: the group, member
  /// id and epoch always; the other fields when joining or when they
  /// changed since the last one sent), then onHeartbeatRequestGenerated:
  /// acknowledging moves on, leaving is done.
  consumer_group_heartbeat_request next_heartbeat();

  /// The answer to the last heartbeat (onHeartbeatSuccess, or
  /// AbstractHeartbeatRequestManager.onErrorResponse for an error).
  heartbeat_outcome on_heartbeat(const consumer_group_heartbeat_response& r);

  /// The heartbeat got no answer: the next one sends every field again. A
  /// leave heartbeat is done anyway.
  heartbeat_outcome on_heartbeat_failed();

  // -- reconciliation --------------------------------------------------------

  /// Kafka's maybeReconcile: the partitions to revoke and assign to reach
  /// the target assignment, or nullopt when there is nothing to do now
  /// (not reconciling, or only topics whose names are unknown changed:
  /// see unresolved()).
  std::optional<membership_reconciliation> reconcile();

  /// The caller revoked and assigned what reconcile() said: the new
  /// assignment is the member's; the next heartbeat acknowledges it.
  void reconciled();

  /// Topic ids of the target assignment without a known name (Kafka asks
  /// the metadata for them and reconciles the rest meanwhile).
  std::vector<uuid> unresolved() const;

  /// A topic's name, from a heartbeat answer or the metadata.
  void learn_topic(const uuid& id, const std::string& name);

  // -- fencing and leaving ----------------------------------------------------

  /// Kafka's transitionToFenced: the member epoch goes back to 0, the
  /// assignment is lost (returned, for onPartitionsLost) and the member
  /// joins again with its member id.
  std::vector<topic_partition> fence();

  /// Kafka's leaveGroup: the assignment is given up (returned, for
  /// onPartitionsRevoked) and the next heartbeat leaves with epoch -1, or
  /// -2 for a static member. Not a member: nothing to send, nothing
  /// returned.
  std::vector<topic_partition> leave();

  /// Stops for good (transitionToFatal).
  void fail() noexcept;

  // -- observers -------------------------------------------------------------

  member_phase phase() const noexcept {
    return phase_;
  }
  const std::string& member_id() const noexcept {
    return member_id_;
  }
  int32_t member_epoch() const noexcept {
    return member_epoch_;
  }
  /// The coordinator's group.consumer.heartbeat.interval.ms; 0 before the
  /// first answer.
  int32_t heartbeat_interval_ms() const noexcept {
    return heartbeat_interval_ms_;
  }
  /// The partitions the member owns now (reconciled), by name.
  std::vector<topic_partition> owned() const;
  const membership_config& config() const noexcept {
    return config_;
  }

private:
  /// Kafka's AbstractMembershipManager.LocalAssignment: partitions by topic
  /// id, with a local epoch bumped on every change (the heartbeat sends
  /// the owned partitions whenever it changed). Epoch -1: none yet.
  struct local_assignment {
    int64_t local_epoch = -1;
    partition_assignment partitions;

    bool none() const noexcept {
      return local_epoch < 0;
    }
    friend bool operator==(const local_assignment& x,
                           const local_assignment& y) {
      return x.local_epoch == y.local_epoch && x.partitions == y.partitions;
    }
    friend bool operator!=(const local_assignment& x,
                           const local_assignment& y) {
      return !(x == y);
    }
  };

  /// HeartbeatState.SentFields.
  struct sent_fields {
    int32_t rebalance_timeout_ms = -1;
    std::optional<std::set<std::string>> topics;
    std::optional<std::string> server_assignor;
    std::optional<local_assignment> assignment;
  };

  bool in_group() const noexcept;
  void transition_to_joining();
  std::vector<topic_partition> named(const partition_assignment& a) const;

  membership_config config_;
  std::string member_id_;
  int32_t member_epoch_ = 0;
  int32_t heartbeat_interval_ms_ = 0;
  member_phase phase_ = member_phase::joining;
  local_assignment current_;
  local_assignment target_;
  /// What reconcile() computed, taken over by reconciled().
  std::optional<local_assignment> reconciling_;
  sent_fields sent_;
  std::map<uuid, std::string> names_;
};

} // namespace troupe
