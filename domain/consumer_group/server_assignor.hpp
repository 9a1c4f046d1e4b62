#pragma once

// KIP-848's server-side assignors (Kafka's ConsumerGroupPartitionAssignor):
// the coordinator computes the group's target assignment itself from the
// members' subscriptions and their previous target.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "domain/consumer_group/assignment.hpp"

namespace troupe {

/// One member as an assignor sees it (Kafka's MemberSubscriptionAndAssignment).
struct assignor_member {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  /// Subscribed topics that exist (Kafka resolves names to ids first).
  std::set<uuid> subscribed_topic_ids;
  /// The member's target assignment before this computation.
  partition_assignment target;
};

/// Kafka's GroupSpec plus its SubscribedTopicDescriber.
struct assignor_spec {
  /// In member id order.
  std::vector<assignor_member> members;
  /// Subscribed topic id -> number of partitions.
  std::map<uuid, int32_t> partition_counts;

  /// Kafka's SubscriptionType.HOMOGENEOUS: every member subscribes to the
  /// same topics.
  bool homogeneous() const;
};

/// Member id -> target assignment; every member of the spec appears.
using target_assignment_map = std::map<std::string, partition_assignment>;

using server_assign_fn = target_assignment_map (*)(const assignor_spec&);

/// Kafka's UniformAssignor ("uniform", the default): every member gets
/// within one partition of the others among the members that could take
/// it, moving as few partitions away from their previous owner as that
/// allows.
target_assignment_map assign_uniform(const assignor_spec& spec);

/// Kafka's server-side RangeAssignor ("range"): per topic, the subscribed
/// members in order (static members by instance id first, then the others
/// by member id) take contiguous ranges, the first ones one extra; topics
/// with equal partition counts are assigned alike (co-partitioned).
target_assignment_map assign_server_range(const assignor_spec& spec);

/// Kafka's names "uniform" and "range"; nullptr for any other.
server_assign_fn find_server_assignor(std::string_view name);

/// The short name of an assignor as group.consumer.assignors lists it: its
/// name or Kafka's class name (org.apache.kafka.coordinator.group.assignor.
/// UniformAssignor); empty when unknown.
std::string_view server_assignor_name(std::string_view configured);

} // namespace troupe
