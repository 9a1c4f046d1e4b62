#pragma once

// Client-side partition assignors, as in Kafka's consumer: the group leader's
// consumer runs one of these over the members' subscriptions and sends the
// result in its SyncGroup; the coordinator only relays it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

/// One member's decoded subscription (Kafka's ConsumerProtocolSubscription
/// plus what the assignor's user data carries).
struct member_subscription {
  std::string member_id;
  /// group.instance.id; empty for a dynamic member.
  std::string group_instance_id;
  std::vector<std::string> topics;
  /// Partitions the member owned in the previous generation (from the
  /// subscription's owned partitions, or the sticky assignor's user data).
  std::vector<topic_partition> owned_partitions;
  /// Generation in which owned_partitions were assigned; -1 if unknown.
  int32_t generation = -1;
};

/// Topic name -> number of partitions, for the topics the group subscribes to.
using partition_counts = std::map<std::string, int32_t>;

/// Member id -> assigned partitions (sorted). Every member of the input
/// appears, possibly with an empty list.
using group_assignment = std::map<std::string, std::vector<topic_partition>>;

/// Rebalance protocol of an assignor (Kafka's ConsumerPartitionAssignor
/// .RebalanceProtocol).
enum class rebalance_protocol { eager, cooperative };

// -- assignors, matching Kafka's outputs --------------------------------------

/// RangeAssignor: per topic, members sorted (by group.instance.id when set,
/// else member id) take contiguous ranges; the first n % m get one extra.
group_assignment assign_range(const partition_counts& topics,
                              const std::vector<member_subscription>& members);

/// RoundRobinAssignor: all partitions sorted by topic then partition, dealt
/// round-robin over the sorted members, skipping members not subscribed.
group_assignment
assign_roundrobin(const partition_counts& topics,
                  const std::vector<member_subscription>& members);

/// StickyAssignor (eager): balanced, and keeps as many previously owned
/// partitions as balance allows.
group_assignment assign_sticky(const partition_counts& topics,
                               const std::vector<member_subscription>& members);

/// CooperativeStickyAssignor: the sticky assignment, minus every partition
/// that moves to a new owner this round; those are revoked by their owner
/// and handed out in the follow-up rebalance.
group_assignment
assign_cooperative_sticky(const partition_counts& topics,
                          const std::vector<member_subscription>& members);

// -- lookup by protocol name --------------------------------------------------

using assign_fn = group_assignment (*)(const partition_counts&,
                                       const std::vector<member_subscription>&);

struct assignor_info {
  std::string_view
    name; // "range", "roundrobin", "sticky", "cooperative-sticky"
  rebalance_protocol protocol;
  assign_fn assign;
};

/// Kafka's protocol names; nullptr when the name is unknown.
const assignor_info* find_assignor(std::string_view name);

} // namespace troupe
