// The server-side range assignor, after Kafka's group-coordinator
// assignor/RangeAssignor, and the lookup of server assignors by name.

#include <algorithm>

#include "domain/consumer_group/server_assignor.hpp"

namespace troupe {

target_assignment_map assign_server_range(const assignor_spec& spec) {
  // Kafka's sortMemberIds: static members by instance id first, then the
  // dynamic ones by member id; static members keep their ranges across
  // restarts that way.
  std::vector<const assignor_member*> sorted;
  for (const auto& m : spec.members)
    sorted.push_back(&m);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const assignor_member* x, const assignor_member* y) {
                     if (x->instance_id && y->instance_id)
                       return *x->instance_id < *y->instance_id;
                     if (x->instance_id || y->instance_id)
                       return x->instance_id.has_value();
                     return x->member_id < y->member_id;
                   });
  target_assignment_map result;
  for (const auto& m : spec.members)
    result[m.member_id];
  for (const auto& [topic, count] : spec.partition_counts) {
    std::vector<const assignor_member*> subscribers;
    for (auto m : sorted)
      if (m->subscribed_topic_ids.count(topic))
        subscribers.push_back(m);
    if (subscribers.empty())
      continue;
    auto k = static_cast<int32_t>(subscribers.size());
    int32_t quota = count / k;
    int32_t extra = count % k;
    int32_t next = 0;
    for (auto m : subscribers) {
      int32_t n = quota + (extra > 0 ? 1 : 0);
      if (extra > 0)
        --extra;
      for (int32_t p = next; p < next + n; ++p)
        add_partition(result[m->member_id], topic, p);
      next += n;
    }
  }
  return result;
}

server_assign_fn find_server_assignor(std::string_view name) {
  if (name == "uniform")
    return assign_uniform;
  if (name == "range")
    return assign_server_range;
  return nullptr;
}

std::string_view server_assignor_name(std::string_view configured) {
  if (configured == "uniform"
      || configured
           == "org.apache.kafka.coordinator.group.assignor.UniformAssignor")
    return "uniform";
  if (configured == "range"
      || configured
           == "org.apache.kafka.coordinator.group.assignor.RangeAssignor")
    return "range";
  return {};
}

} // namespace troupe
