#include "domain/replication/fetch_purgatory.hpp"

#include <algorithm>

namespace troupe {

std::vector<uint64_t>
fetch_purgatory::versions(const std::vector<topic_partition>& tps) const {
  std::vector<uint64_t> result;
  result.reserve(tps.size());
  std::lock_guard<std::mutex> guard{mutex_};
  for (auto& tp : tps) {
    auto i = partitions_.find(tp);
    result.push_back(i == partitions_.end() ? 0 : i->second.version);
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

void fetch_purgatory::changed(const topic_partition& tp) {
  std::vector<wake_fn> woken;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    auto& entry = partitions_[tp];
    ++entry.version;
    auto ids = std::move(entry.watchers);
    entry.watchers.clear();
    for (auto id : ids)
      if (auto wake = take(id))
        woken.push_back(std::move(wake));
  }
  for (auto& wake : woken)
    wake();
}

size_t fetch_purgatory::waiting() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return waiters_.size();
}

} // namespace troupe
