#include "examples/stress/tracker.hpp"

#include <algorithm>
#include <charconv>

namespace troupe::stress {

namespace {

int32_t parse_index(const std::string& s, size_t skip = 0) {
  int32_t value = -1;
  std::from_chars(s.data() + skip, s.data() + s.size(), value);
  return value;
}

} // namespace

void tracker_state::set_alive(size_t member, bool alive) {
  auto& m = members[member];
  if (m.alive == alive)
    return;
  auto& g = groups[static_cast<size_t>(m.group)];
  m.alive = alive;
  if (alive)
    ++m.version;
  g.alive += alive ? 1 : -1;
  if (!alive && m.generation >= 0)
    --g.at_generation[m.generation];
  g.assigned_total -= static_cast<int64_t>(m.partitions.size());
  m.partitions.clear();
  m.generation = -1;
  update(m.group);
}

void tracker_state::on(const consumer_event& e) {
  auto idx = parse_index(e.consumer);
  if (idx < 0 || static_cast<size_t>(idx) >= members.size())
    return;
  auto& m = members[static_cast<size_t>(idx)];
  auto dot = e.consumer.find('.');
  if (!m.alive || dot == std::string::npos
      || parse_index(e.consumer, dot + 1) != m.version)
    return;
  auto& g = groups[static_cast<size_t>(m.group)];
  auto drop = [&](const std::vector<topic_partition>& ps) {
    for (auto& tp : ps) {
      auto i =
        std::find(m.partitions.begin(), m.partitions.end(), tp.partition);
      if (i != m.partitions.end()) {
        m.partitions.erase(i);
        --g.assigned_total;
      }
    }
  };
  switch (e.kind) {
    case consumer_event_kind::assigned:
      if (m.generation >= 0)
        --g.at_generation[m.generation];
      m.generation = e.generation;
      ++g.at_generation[m.generation];
      g.assigned_total -= static_cast<int64_t>(m.partitions.size());
      m.partitions.clear();
      for (auto& tp : e.partitions)
        m.partitions.push_back(tp.partition);
      g.assigned_total += static_cast<int64_t>(m.partitions.size());
      break;
    case consumer_event_kind::revoked:
    case consumer_event_kind::lost:
      drop(e.partitions);
      break;
    case consumer_event_kind::failed:
      ++failures;
      break;
    default:
      return;
  }
  update(m.group);
}

void tracker_state::on(const group_event& e) {
  // Group ids are "g<index>".
  auto idx = parse_index(e.group_id, 1);
  if (idx < 0 || static_cast<size_t>(idx) >= groups.size())
    return;
  auto& g = groups[static_cast<size_t>(idx)];
  g.coordinator_state = e.to;
  // A classic group rebalances in PreparingRebalance; a KIP-848 group
  // computes a new target assignment in Assigning (its group epoch moved).
  if (e.to == any_group_state::preparing_rebalance
      || e.to == any_group_state::assigning) {
    ++g.rebalances;
    if (e.reason.rfind("session timeout", 0) == 0
        || (e.reason.rfind("the session of ", 0) == 0
            && e.reason.find(" expired") != std::string::npos))
      ++g.expiries;
  }
  update(static_cast<int32_t>(idx));
}

void tracker_state::update(int32_t group) {
  auto& g = groups[static_cast<size_t>(group)];
  // Drop generations nobody holds any more.
  while (!g.at_generation.empty() && g.at_generation.begin()->second == 0)
    g.at_generation.erase(g.at_generation.begin());
  bool stable = false;
  if (!g.at_generation.empty()) {
    auto& [generation, holders] = *g.at_generation.rbegin();
    stable = holders == g.alive && g.assigned_total == g.partitions
             && (g.coordinator_state == any_group_state::unknown
                 || g.coordinator_state == any_group_state::stable);
    if (stable && (!g.stable || g.stable_generation != generation)) {
      g.stable_since = steady::now();
      g.stable_generation = generation;
    }
  }
  g.stable = stable;
}

size_t tracker_state::ownership_violations() const {
  size_t violations = 0;
  std::vector<std::vector<int32_t>> owners(groups.size());
  for (size_t i = 0; i < groups.size(); ++i)
    owners[i].assign(static_cast<size_t>(groups[i].partitions), 0);
  for (auto& m : members) {
    if (!m.alive)
      continue;
    for (auto p : m.partitions) {
      auto& slot = owners[static_cast<size_t>(m.group)];
      if (p < 0 || static_cast<size_t>(p) >= slot.size())
        ++violations;
      else
        ++slot[static_cast<size_t>(p)];
    }
  }
  for (auto& slots : owners)
    for (auto n : slots)
      violations += n != 1;
  return violations;
}

} // namespace troupe::stress
