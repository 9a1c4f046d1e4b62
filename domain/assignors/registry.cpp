#include "domain/assignors/assignor.hpp"
#include "domain/assignors/member_order.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_set>

namespace troupe {

namespace detail {

std::vector<size_t>
member_order(const std::vector<member_subscription>& members) {
  std::vector<size_t> order;
  order.reserve(members.size());
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < members.size(); ++i)
    if (seen.insert(members[i].member_id).second)
      order.push_back(i);
  // Kafka's AbstractPartitionAssignor.MemberInfo.compareTo (KIP-345).
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const auto& a = members[x];
    const auto& b = members[y];
    bool a_static = !a.group_instance_id.empty();
    bool b_static = !b.group_instance_id.empty();
    if (a_static != b_static)
      return a_static;
    if (a_static && a.group_instance_id != b.group_instance_id)
      return a.group_instance_id < b.group_instance_id;
    return a.member_id < b.member_id;
  });
  return order;
}

std::map<std::string, std::vector<size_t>>
subscribers_by_topic(const partition_counts& topics,
                     const std::vector<member_subscription>& members,
                     const std::vector<size_t>& order) {
  std::map<std::string, std::vector<size_t>> result;
  for (size_t rank = 0; rank < order.size(); ++rank)
    for (auto& topic : members[order[rank]].topics)
      if (topics.count(topic) > 0) {
        auto& ranks = result[topic];
        if (ranks.empty() || ranks.back() != rank) // a topic listed twice
          ranks.push_back(rank);
      }
  return result;
}

/// Every member mapped to an empty list, so that all members appear in the
/// result even when they get nothing.
group_assignment
empty_assignment(const std::vector<member_subscription>& members,
                 const std::vector<size_t>& order) {
  return assignment_from(members, order,
                         std::vector<std::vector<topic_partition>>(
                           order.size()));
}

group_assignment
assignment_from(const std::vector<member_subscription>& members,
                const std::vector<size_t>& order,
                std::vector<std::vector<topic_partition>> lists) {
  std::vector<size_t> ranks(order.size());
  std::iota(ranks.begin(), ranks.end(), size_t{0});
  auto by_id = [&](size_t x, size_t y) {
    return members[order[x]].member_id < members[order[y]].member_id;
  };
  if (!std::is_sorted(ranks.begin(), ranks.end(), by_id))
    std::sort(ranks.begin(), ranks.end(), by_id);
  group_assignment result;
  for (auto rank : ranks)
    result.emplace_hint(result.end(), members[order[rank]].member_id,
                        std::move(lists[rank]));
  return result;
}

} // namespace detail

namespace {

// Names as Kafka's assignors report them in ConsumerPartitionAssignor.name().
constexpr assignor_info assignors[] = {
  {"range", rebalance_protocol::eager, assign_range},
  {"roundrobin", rebalance_protocol::eager, assign_roundrobin},
  {"sticky", rebalance_protocol::eager, assign_sticky},
  {"cooperative-sticky", rebalance_protocol::cooperative,
   assign_cooperative_sticky},
};

} // namespace

const assignor_info* find_assignor(std::string_view name) {
  for (const auto& x : assignors)
    if (x.name == name)
      return &x;
  return nullptr;
}

} // namespace troupe
