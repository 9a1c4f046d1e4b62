#include "domain/assignors/assignor.hpp"
#include "domain/assignors/member_order.hpp"

#include <algorithm>

namespace troupe {

namespace {

/// Kafka's RangeAssignor on one topic: subscriber i takes a contiguous range
/// of n / c partitions, and the first n % c subscribers one more.
void assign_topic_range(const std::string& topic, int32_t partitions,
                        const std::vector<size_t>& subscribers,
                        std::vector<std::vector<topic_partition>>& lists) {
  auto n = static_cast<size_t>(std::max(partitions, int32_t{0}));
  auto c = subscribers.size();
  auto per = n / c;
  auto extra = n % c;
  for (size_t i = 0; i < c; ++i) {
    auto first = i * per + std::min(i, extra);
    auto length = per + (i < extra ? 1 : 0);
    auto& list = lists[subscribers[i]];
    for (auto p = first; p < first + length; ++p)
      list.push_back(topic_partition{topic, static_cast<int32_t>(p)});
  }
}

} // namespace

group_assignment assign_range(const partition_counts& topics,
                              const std::vector<member_subscription>& members) {
  auto order = detail::member_order(members);
  std::vector<std::vector<topic_partition>> lists(order.size());
  // Topics in name order and ranges ascending: each list comes out sorted.
  for (auto& [topic, subscribers] :
       detail::subscribers_by_topic(topics, members, order))
    assign_topic_range(topic, topics.at(topic), subscribers, lists);
  return detail::assignment_from(members, order, std::move(lists));
}

} // namespace troupe
