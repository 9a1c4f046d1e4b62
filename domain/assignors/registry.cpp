#include "domain/assignors/assignor.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace troupe {

namespace detail {

// Shared by range.cpp, roundrobin.cpp and sticky.cpp, which declare them
// locally (assignor.hpp stays the only public interface of the assignors).
std::vector<size_t>
member_order(const std::vector<member_subscription>& members);
group_assignment
empty_assignment(const std::vector<member_subscription>& members,
                 const std::vector<size_t>& order);

namespace {

/// The key a member sorts by: group.instance.id for static members (so a
/// restarted static member keeps its place, KIP-345), else the member id.
const std::string& sort_key(const member_subscription& x) {
  return x.group_instance_id.empty() ? x.member_id : x.group_instance_id;
}

} // namespace

/// Positions in `members` in assignor order, each member id once (the first
/// occurrence wins; a group never has duplicates, this only keeps the
/// assignors total on bad input).
std::vector<size_t>
member_order(const std::vector<member_subscription>& members) {
  std::vector<size_t> order;
  order.reserve(members.size());
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < members.size(); ++i)
    if (seen.insert(members[i].member_id).second)
      order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const auto& a = members[x];
    const auto& b = members[y];
    if (int c = sort_key(a).compare(sort_key(b)); c != 0)
      return c < 0;
    return a.member_id < b.member_id;
  });
  return order;
}

/// Every member mapped to an empty list, so that all members appear in the
/// result even when they get nothing.
group_assignment
empty_assignment(const std::vector<member_subscription>& members,
                 const std::vector<size_t>& order) {
  group_assignment result;
  for (auto i : order)
    result.emplace(members[i].member_id, std::vector<topic_partition>{});
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
