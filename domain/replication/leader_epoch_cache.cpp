#include "domain/replication/leader_epoch_cache.hpp"

#include <algorithm>

namespace troupe {

void leader_epoch_cache::assign(int32_t epoch, int64_t start_offset) {
  if (epoch < 0 || start_offset < 0)
    return;
  if (!epochs_.empty()) {
    auto& [last_epoch, last_start] = *epochs_.rbegin();
    if (epoch <= last_epoch || start_offset < last_start)
      return;
  }
  epochs_[epoch] = start_offset;
}

int32_t leader_epoch_cache::latest_epoch() const {
  return epochs_.empty() ? undefined_epoch : epochs_.rbegin()->first;
}

std::pair<int32_t, int64_t>
leader_epoch_cache::end_offset_for(int32_t requested_epoch,
                                   int64_t log_end_offset) const {
  if (requested_epoch == undefined_epoch || epochs_.empty())
    return {undefined_epoch, undefined_epoch_offset};
  if (requested_epoch == latest_epoch())
    return {requested_epoch, log_end_offset};
  auto higher = epochs_.upper_bound(requested_epoch);
  if (higher == epochs_.end()) // newer than anything this log knows
    return {undefined_epoch, undefined_epoch_offset};
  if (higher == epochs_.begin()) // older than anything this log knows
    return {requested_epoch, higher->second};
  auto floor = std::prev(higher);
  return {floor->first, higher->second};
}

void leader_epoch_cache::truncate_from_end(int64_t end_offset) {
  for (auto i = epochs_.begin(); i != epochs_.end();) {
    if (i->second >= end_offset)
      i = epochs_.erase(i);
    else
      ++i;
  }
}

void leader_epoch_cache::truncate_from_start(int64_t start_offset) {
  // The latest epoch that began at or before the new start offset now
  // begins there; the ones before it are gone with their segments.
  auto last_before = epochs_.end();
  for (auto i = epochs_.begin();
       i != epochs_.end() && i->second <= start_offset; ++i)
    last_before = i;
  if (last_before == epochs_.end())
    return;
  auto epoch = last_before->first;
  epochs_.erase(epochs_.begin(), std::next(last_before));
  epochs_[epoch] = start_offset;
}

int64_t follower_truncation_offset(const leader_epoch_cache& follower,
                                   std::pair<int32_t, int64_t> leader_answer,
                                   int64_t follower_leo, int64_t follower_hw) {
  auto [epoch, end_offset] = leader_answer;
  if (epoch == undefined_epoch)
    return std::min(follower_hw, follower_leo); // leader knows nothing older
  if (epoch == follower.latest_epoch())
    return std::min(end_offset, follower_leo);
  // The leader's answer is for an older epoch than ours: our log diverged
  // within that epoch's successor; cut where both logs agree.
  auto ours = follower.end_offset_for(epoch, follower_leo).second;
  if (ours == undefined_epoch_offset)
    ours = follower_leo;
  return std::min({end_offset, ours, follower_leo});
}

} // namespace troupe
