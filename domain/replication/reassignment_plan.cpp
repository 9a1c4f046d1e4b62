#include "domain/replication/reassignment_plan.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

namespace {

bool holds(const std::vector<int32_t>& xs, int32_t x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

} // namespace

replica_plan spread_plan(const replica_plan& current,
                         const std::vector<int32_t>& brokers) {
  std::map<std::string, std::vector<topic_partition>> by_topic;
  for (auto& [tp, replicas] : current)
    by_topic[tp.topic].push_back(tp);
  auto sorted = brokers;
  std::sort(sorted.begin(), sorted.end());
  replica_plan out;
  for (auto& [topic, parts] : by_topic) {
    auto rf = static_cast<int32_t>(current.at(parts.front()).size());
    rf = std::min<int32_t>(rf, static_cast<int32_t>(sorted.size()));
    auto count = static_cast<int32_t>(parts.size());
    auto placed = assign_replicas(sorted, count, rf, 0);
    for (auto& tp : parts)
      if (tp.partition >= 0 && tp.partition < count)
        out[tp] = placed[static_cast<size_t>(tp.partition)];
  }
  return out;
}

replica_plan balanced_plan(const replica_plan& current,
                           const std::vector<int32_t>& brokers) {
  auto plan = current;
  if (brokers.empty())
    return plan;
  std::map<int32_t, size_t> load;
  for (auto b : brokers)
    load[b] = 0;
  for (auto& [tp, replicas] : plan)
    for (auto r : replicas)
      if (load.count(r))
        ++load[r];
  auto least_loaded_for = [&](const std::vector<int32_t>& replicas) {
    int32_t best = -1;
    for (auto& [b, n] : load)
      if (!holds(replicas, b) && (best < 0 || n < load[best]))
        best = b;
    return best;
  };
  // Replicas on brokers outside the list move first.
  for (auto& [tp, replicas] : plan)
    for (auto& r : replicas)
      if (!load.count(r)) {
        auto to = least_loaded_for(replicas);
        if (to < 0)
          continue; // fewer brokers than replicas: it stays
        r = to;
        ++load[to];
      }
  // Then from the most loaded broker to the least loaded one, while they
  // differ by more than one.
  for (;;) {
    auto most = std::max_element(load.begin(), load.end(),
                                 [](auto& x, auto& y) { return x.second < y.second; });
    auto fewest = std::min_element(load.begin(), load.end(),
                                   [](auto& x, auto& y) { return x.second < y.second; });
    if (most->second <= fewest->second + 1)
      break;
    bool moved = false;
    for (auto& [tp, replicas] : plan) {
      auto at = std::find(replicas.begin(), replicas.end(), most->first);
      if (at == replicas.end() || holds(replicas, fewest->first))
        continue;
      *at = fewest->first;
      --most->second;
      ++fewest->second;
      moved = true;
      break;
    }
    if (!moved)
      break; // every partition on the busiest broker already has the idlest
  }
  // Preferred leaders: each partition's first replica becomes the one of
  // its replicas that prefers the fewest partitions so far, ties kept in
  // the current order (so a balanced cluster keeps its leaders).
  std::map<int32_t, size_t> preferred;
  for (auto& [tp, replicas] : plan) {
    if (replicas.empty())
      continue;
    auto best = replicas.begin();
    for (auto i = replicas.begin(); i != replicas.end(); ++i)
      if (preferred[*i] < preferred[*best])
        best = i;
    std::rotate(replicas.begin(), best, best + 1);
    ++preferred[replicas.front()];
  }
  return plan;
}

size_t replicas_moved(const replica_plan& current,
                      const replica_plan& proposed) {
  size_t n = 0;
  for (auto& [tp, replicas] : proposed) {
    auto i = current.find(tp);
    for (auto r : replicas)
      if (i == current.end() || !holds(i->second, r))
        ++n;
  }
  return n;
}

replica_plan changed_only(const replica_plan& current,
                          const replica_plan& proposed) {
  replica_plan out;
  for (auto& [tp, replicas] : proposed) {
    auto i = current.find(tp);
    if (i == current.end() || i->second != replicas)
      out[tp] = replicas;
  }
  return out;
}

} // namespace troupe
