// The uniform assignor. Facts from Kafka's UniformAssignor and its
// homogeneous and heterogeneous builders: balance first (every member
// within one partition of the others), stickiness second (a partition stays
// with its previous target owner whenever balance allows), deterministic.

#include <algorithm>
#include <numeric>

#include "domain/consumer_group/server_assignor.hpp"

namespace troupe {

namespace {

struct tp {
  uuid topic;
  int32_t partition;
};

/// Each member's previous target restricted to what it may still own:
/// subscribed topics that exist, partitions in range, each partition at
/// most once (the first member in order wins).
std::vector<std::vector<tp>> kept_partitions(const assignor_spec& spec) {
  std::vector<std::vector<tp>> kept(spec.members.size());
  std::map<uuid, std::set<int32_t>> taken;
  for (size_t i = 0; i < spec.members.size(); ++i) {
    const auto& m = spec.members[i];
    for (const auto& [topic, partitions] : m.target) {
      auto count = spec.partition_counts.find(topic);
      if (count == spec.partition_counts.end()
          || !m.subscribed_topic_ids.count(topic))
        continue;
      for (auto p : partitions)
        if (p >= 0 && p < count->second && taken[topic].insert(p).second)
          kept[i].push_back({topic, p});
    }
  }
  return kept;
}

target_assignment_map to_map(const assignor_spec& spec,
                             const std::vector<std::vector<tp>>& xs) {
  // Members come in id order: each insert goes at the end.
  target_assignment_map result;
  for (size_t i = 0; i < spec.members.size(); ++i) {
    auto& a = result
                .emplace_hint(result.end(), spec.members[i].member_id,
                              partition_assignment{})
                ->second;
    for (const auto& x : xs[i])
      add_partition(a, x.topic, x.partition);
  }
  return result;
}

/// All members subscribe to the same topics: a quota per member.
target_assignment_map assign_homogeneous(const assignor_spec& spec) {
  const auto n = spec.members.size();
  const auto& topics = spec.members.front().subscribed_topic_ids;
  size_t total = 0;
  for (const auto& t : topics) {
    auto i = spec.partition_counts.find(t);
    if (i != spec.partition_counts.end())
      total += static_cast<size_t>(i->second);
  }
  auto kept = kept_partitions(spec);
  // The members holding the most get the extra partitions: fewest moves.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return kept[x].size() > kept[y].size();
  });
  std::vector<size_t> quota(n, total / n);
  for (size_t k = 0; k < total % n; ++k)
    ++quota[order[k]];
  std::map<uuid, std::set<int32_t>> owned;
  for (size_t i = 0; i < n; ++i) {
    if (kept[i].size() > quota[i])
      kept[i].resize(quota[i]);
    for (const auto& x : kept[i])
      owned[x.topic].insert(x.partition);
  }
  std::vector<tp> unassigned;
  for (const auto& t : topics) {
    auto count = spec.partition_counts.find(t);
    if (count == spec.partition_counts.end())
      continue;
    for (int32_t p = 0; p < count->second; ++p)
      if (!owned[t].count(p))
        unassigned.push_back({t, p});
  }
  size_t next = 0;
  for (size_t i = 0; i < n && next < unassigned.size(); ++i)
    while (kept[i].size() < quota[i] && next < unassigned.size())
      kept[i].push_back(unassigned[next++]);
  return to_map(spec, kept);
}

/// Members subscribe to different topics: place each partition with its
/// least loaded subscriber, then move partitions from a subscriber to one
/// with at least two fewer until none can move.
target_assignment_map assign_heterogeneous(const assignor_spec& spec) {
  const auto n = spec.members.size();
  std::map<uuid, std::vector<size_t>> subscribers;
  for (size_t i = 0; i < n; ++i)
    for (const auto& t : spec.members[i].subscribed_topic_ids)
      if (spec.partition_counts.count(t))
        subscribers[t].push_back(i);
  auto kept = kept_partitions(spec);
  std::vector<size_t> load(n);
  // owner[topic][partition] = member index, or n when unassigned.
  std::map<uuid, std::vector<size_t>> owner;
  for (const auto& [t, subs] : subscribers)
    owner[t].assign(static_cast<size_t>(spec.partition_counts.at(t)), n);
  for (size_t i = 0; i < n; ++i) {
    load[i] = kept[i].size();
    for (const auto& x : kept[i])
      owner[x.topic][static_cast<size_t>(x.partition)] = i;
  }
  auto least_loaded = [&](const std::vector<size_t>& subs) {
    return *std::min_element(subs.begin(), subs.end(), [&](size_t x, size_t y) {
      return load[x] < load[y] || (load[x] == load[y] && x < y);
    });
  };
  // Partitions with the fewest possible owners are the hardest to place.
  std::vector<tp> unassigned;
  for (const auto& [t, owners] : owner)
    for (size_t p = 0; p < owners.size(); ++p)
      if (owners[p] == n)
        unassigned.push_back({t, static_cast<int32_t>(p)});
  std::stable_sort(
    unassigned.begin(), unassigned.end(), [&](const tp& x, const tp& y) {
      return subscribers[x.topic].size() < subscribers[y.topic].size();
    });
  for (const auto& x : unassigned) {
    auto to = least_loaded(subscribers[x.topic]);
    owner[x.topic][static_cast<size_t>(x.partition)] = to;
    ++load[to];
  }
  // Each move lowers the sum of squared loads, so this ends.
  for (bool moved = true; moved;) {
    moved = false;
    for (auto& [t, owners] : owner) {
      const auto& subs = subscribers[t];
      for (auto& o : owners) {
        auto to = least_loaded(subs);
        if (load[to] + 1 < load[o]) {
          --load[o];
          ++load[to];
          o = to;
          moved = true;
        }
      }
    }
  }
  std::vector<std::vector<tp>> result(n);
  for (const auto& [t, owners] : owner)
    for (size_t p = 0; p < owners.size(); ++p)
      result[owners[p]].push_back({t, static_cast<int32_t>(p)});
  return to_map(spec, result);
}

} // namespace

bool assignor_spec::homogeneous() const {
  for (const auto& m : members)
    if (m.subscribed_topic_ids != members.front().subscribed_topic_ids)
      return false;
  return true;
}

target_assignment_map assign_uniform(const assignor_spec& spec) {
  if (spec.members.empty())
    return {};
  if (spec.homogeneous())
    return assign_homogeneous(spec);
  return assign_heterogeneous(spec);
}

} // namespace troupe
