#pragma once

// Helpers shared by the assignors (not part of their public interface).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "domain/assignors/assignor.hpp"

namespace troupe::detail {

/// Positions in `members` in Kafka's MemberInfo order: static members first,
/// by group.instance.id; then dynamic members by member id. Each member id
/// appears once (the first occurrence wins; this only keeps the assignors
/// total on bad input).
std::vector<size_t>
member_order(const std::vector<member_subscription>& members);

/// Every member mapped to an empty list, so that all members appear in the
/// result even when they get nothing.
group_assignment
empty_assignment(const std::vector<member_subscription>& members,
                 const std::vector<size_t>& order);

/// The member at each rank of `order` mapped to lists[rank]; built in
/// member-id order with hints, in linear time when `order` is in that
/// order already (no static members), instead of a tree insert and a
/// lookup per member (at 100,000 members, the leader's largest cost).
group_assignment
assignment_from(const std::vector<member_subscription>& members,
                const std::vector<size_t>& order,
                std::vector<std::vector<topic_partition>> lists);

/// Topic -> ranks (positions in `order`) of its subscribers, ascending, for
/// the topics that have partition metadata: Kafka's assignors skip the
/// others, so their subscribers get nothing for them.
std::map<std::string, std::vector<size_t>>
subscribers_by_topic(const partition_counts& topics,
                     const std::vector<member_subscription>& members,
                     const std::vector<size_t>& order);

} // namespace troupe::detail
