#include "domain/replication/fetch_purgatory.hpp"

#include <algorithm>

namespace troupe {

std::vector<fetch_purgatory::snapshot_entry>
fetch_purgatory::snapshot(const std::vector<topic_partition>& tps) const {
  std::vector<snapshot_entry> result;
  result.reserve(tps.size());
  std::lock_guard<std::mutex> guard{mutex_};
  for (auto& tp : tps) {
    auto i = partitions_.find(tp);
    if (i == partitions_.end())
      result.emplace_back();
    else
      result.push_back({i->second.version, i->second.view});
  }
  return result;
}

uint64_t fetch_purgatory::watch(const std::vector<topic_partition>& tps,
                                const std::vector<uint64_t>& seen,
                                wake_fn wake) {
  std::lock_guard<std::mutex> guard{mutex_};
  for (size_t i = 0; i < tps.size(); ++i) {
    auto p = partitions_.find(tps[i]);
    auto now = p == partitions_.end() ? 0 : p->second.version;
    if (i < seen.size() && now != seen[i])
      return 0;
  }
  auto id = next_id_++;
  for (auto& tp : tps)
    partitions_[tp].watchers.push_back(id);
  waiters_.emplace(id, waiter{tps, std::move(wake)});
  return id;
}

fetch_purgatory::wake_fn fetch_purgatory::take(uint64_t id) {
  auto w = waiters_.find(id);
  if (w == waiters_.end())
    return nullptr;
  for (auto& tp : w->second.partitions) {
    auto p = partitions_.find(tp);
    if (p == partitions_.end())
      continue;
    auto& ids = p->second.watchers;
    ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
  }
  auto wake = std::move(w->second.wake);
  waiters_.erase(w);
  return wake;
}

bool fetch_purgatory::cancel(uint64_t id) {
  std::lock_guard<std::mutex> guard{mutex_};
  return take(id) != nullptr;
}

void fetch_purgatory::bump(partition_entry& entry, std::vector<wake_fn>& woken) {
  ++entry.version;
  auto ids = std::move(entry.watchers);
  entry.watchers.clear();
  for (auto id : ids)
    if (auto wake = take(id))
      woken.push_back(std::move(wake));
}

void fetch_purgatory::publish(const topic_partition& tp, uint64_t owner,
                              std::optional<leader_view> view) {
  std::vector<wake_fn> woken;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    auto i = partitions_.find(tp);
    if (!view && (i == partitions_.end() || i->second.owner != owner))
      return;
    auto& entry = i != partitions_.end() ? i->second : partitions_[tp];
    entry.owner = view ? owner : 0;
    if (entry.view == view)
      return;
    entry.view = view;
    bump(entry, woken);
  }
  for (auto& wake : woken)
    wake();
}

size_t fetch_purgatory::waiting() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return waiters_.size();
}

} // namespace troupe
