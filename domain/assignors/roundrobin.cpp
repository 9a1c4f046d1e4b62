#include "domain/assignors/assignor.hpp"
#include "domain/assignors/member_order.hpp"

#include <algorithm>

namespace troupe {

namespace {

/// The subscriber Kafka's CircularIterator stops at: the first one at or
/// after `cursor`, wrapping around. A binary search instead of stepping
/// member by member, so sparse subscriptions do not cost O(members).
size_t next_subscriber(const std::vector<size_t>& ranks, size_t cursor) {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), cursor);
  return it != ranks.end() ? *it : ranks.front();
}

} // namespace

// Kafka's RoundRobinAssignor: all partitions sorted by (topic, partition)
// dealt over the sorted members in a circle, skipping members that do not
// subscribe to the partition's topic.
group_assignment
assign_roundrobin(const partition_counts& topics,
                  const std::vector<member_subscription>& members) {
  auto order = detail::member_order(members);
  std::vector<std::vector<topic_partition>> lists(order.size());
  size_t cursor = 0;
  for (auto& [topic, ranks] :
       detail::subscribers_by_topic(topics, members, order))
    for (int32_t p = 0; p < topics.at(topic); ++p) {
      auto rank = next_subscriber(ranks, cursor);
      lists[rank].push_back(topic_partition{topic, p});
      cursor = (rank + 1) % order.size();
    }
  return detail::assignment_from(members, order, std::move(lists));
}

} // namespace troupe
