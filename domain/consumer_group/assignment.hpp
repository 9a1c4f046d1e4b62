#pragma once

// The vocabulary of KIP-848 assignments: partitions by topic id (Kafka's
// Map<Uuid, Set<Integer>>), and the topic metadata the coordinator learns
// from its caller (Kafka reads it from the broker's metadata image).

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "domain/uuid.hpp"

namespace troupe {

/// Topic id -> partitions. Never holds an empty set.
using partition_assignment = std::map<uuid, std::set<int32_t>>;

/// One topic as the coordinator knows it (Kafka's modern.TopicMetadata):
/// what the caller supplies for every topic of the cluster.
struct topic_info {
  uuid id;
  std::string name;
  int32_t partitions = 0;

  friend bool operator==(const topic_info& x, const topic_info& y) {
    return x.id == y.id && x.name == y.name && x.partitions == y.partitions;
  }
  friend bool operator!=(const topic_info& x, const topic_info& y) {
    return !(x == y);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_info& x) {
  return f(x.id, x.name, x.partitions);
}

/// Number of partitions in `a`.
inline size_t partition_count(const partition_assignment& a) {
  size_t n = 0;
  for (const auto& [id, ps] : a)
    n += ps.size();
  return n;
}

/// Adds a partition, keeping the "no empty set" rule.
inline void add_partition(partition_assignment& a, const uuid& topic,
                          int32_t partition) {
  a[topic].insert(partition);
}

/// Removes a partition, erasing the topic when its set empties.
inline void remove_partition(partition_assignment& a, const uuid& topic,
                             int32_t partition) {
  auto i = a.find(topic);
  if (i == a.end())
    return;
  i->second.erase(partition);
  if (i->second.empty())
    a.erase(i);
}

inline bool contains(const partition_assignment& a, const uuid& topic,
                     int32_t partition) {
  auto i = a.find(topic);
  return i != a.end() && i->second.count(partition) > 0;
}

/// Every partition of `xs` is in `ys`.
inline bool subset_of(const partition_assignment& xs,
                      const partition_assignment& ys) {
  for (const auto& [topic, ps] : xs)
    for (auto p : ps)
      if (!contains(ys, topic, p))
        return false;
  return true;
}

} // namespace troupe
