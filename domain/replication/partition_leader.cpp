#include "domain/replication/partition_leader.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace troupe {

partition_leader::partition_leader(
  int32_t leader_id, int32_t leader_epoch, std::vector<int32_t> replicas,
  std::vector<int32_t> isr, int64_t log_end_offset, int64_t high_watermark,
  partition_leader_config config, int64_t now_ms)
  : leader_id_(leader_id),
    leader_epoch_(leader_epoch),
    replicas_(std::move(replicas)),
    isr_(std::move(isr)),
    config_(config),
    log_end_offset_(log_end_offset),
    high_watermark_(std::min(high_watermark, log_end_offset)) {
  for (auto id : replicas_) {
    if (id == leader_id_)
      continue;
    follower_state f;
    f.broker_id = id;
    // Kafka's Replica.resetLastCaughtUpTime on becoming leader: followers
    // in the ISR count as caught up now; their LEO is unknown (0).
    f.last_caught_up_ms = in(isr_, id) ? now_ms : 0;
    f.last_fetch_leader_leo = log_end_offset;
    f.last_fetch_ms = now_ms;
    followers_.push_back(f);
  }
  if (!in(isr_, leader_id_))
    isr_.insert(isr_.begin(), leader_id_);
  // Kafka's Partition.makeLeader ends with maybeIncrementLeaderHW: a leader
  // alone in its ISR (an unclean election, or the last replica standing)
  // serves its whole log at once instead of waiting for the next append.
  maybe_advance_high_watermark();
}

bool partition_leader::in(const std::vector<int32_t>& xs, int32_t x) const {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

follower_state* partition_leader::find(int32_t broker_id) {
  for (auto& f : followers_)
    if (f.broker_id == broker_id)
      return &f;
  return nullptr;
}

const follower_state* partition_leader::follower(int32_t broker_id) const {
  return const_cast<partition_leader*>(this)->find(broker_id);
}

// -- produce -----------------------------------------------------------------

error_code partition_leader::check_acks_all() const {
  if (static_cast<int32_t>(isr_.size()) < config_.min_insync_replicas)
    return error_code::not_enough_replicas;
  return error_code::none;
}

void partition_leader::on_local_append(int64_t log_end_offset) {
  log_end_offset_ = std::max(log_end_offset_, log_end_offset);
  maybe_advance_high_watermark();
}

void partition_leader::add_pending(pending_produce p) {
  pending_.push_back(p);
  maybe_advance_high_watermark(); // may already be reached
}

bool partition_leader::expire_pending(uint64_t id) {
  auto i = std::find_if(pending_.begin(), pending_.end(),
                        [id](auto& p) { return p.id == id; });
  if (i == pending_.end())
    return false;
  pending_.erase(i);
  return true;
}

std::vector<completed_produce> partition_leader::take_completed() {
  return std::exchange(completed_, {});
}

// -- followers ------------------------------------------------------------------

void partition_leader::on_follower_fetch(int32_t follower, int64_t fetch_offset,
                                         int64_t now_ms) {
  auto f = find(follower);
  if (!f)
    return;
  // Kafka's Replica.updateFetchState.
  if (fetch_offset >= log_end_offset_)
    f->last_caught_up_ms = std::max(f->last_caught_up_ms, now_ms);
  else if (fetch_offset >= f->last_fetch_leader_leo)
    f->last_caught_up_ms = std::max(f->last_caught_up_ms, f->last_fetch_ms);
  f->log_end_offset = fetch_offset;
  f->last_fetch_leader_leo = log_end_offset_;
  f->last_fetch_ms = now_ms;
  // Kafka's maybeExpandIsr: a follower whose LEO reached the HW rejoins.
  if (!proposed_isr_ && !in(isr_, follower)
      && f->log_end_offset >= high_watermark_) {
    auto next = isr_;
    next.push_back(follower);
    proposed_isr_ = std::move(next);
  }
  maybe_advance_high_watermark();
}

void partition_leader::on_isr_expiration(int64_t now_ms) {
  if (proposed_isr_)
    return; // one change at a time
  std::vector<int32_t> next;
  for (auto id : isr_) {
    auto f = find(id);
    bool lagging =
      f && now_ms - f->last_caught_up_ms > config_.replica_lag_time_max_ms;
    if (!lagging)
      next.push_back(id);
  }
  if (next.size() != isr_.size())
    proposed_isr_ = std::move(next);
}

void partition_leader::on_follower_log_start(int32_t follower,
                                             int64_t log_start_offset) {
  if (auto f = find(follower))
    f->log_start_offset = log_start_offset;
}

int64_t partition_leader::low_watermark(int64_t own_log_start_offset) const {
  auto low = own_log_start_offset;
  for (auto& f : followers_)
    if (in(isr_, f.broker_id))
      low = std::min(low, f.log_start_offset);
  return low;
}

void partition_leader::apply_isr(std::vector<int32_t> isr) {
  proposed_isr_.reset();
  isr_ = std::move(isr);
  if (!in(isr_, leader_id_))
    isr_.insert(isr_.begin(), leader_id_);
  if (static_cast<int32_t>(isr_.size()) < config_.min_insync_replicas) {
    // The HW stops here (docs/ARCHITECTURE.md §4), so waiting acks=all
    // produces could only time out: tell them now that their batch is
    // written to fewer in-sync replicas than required.
    for (auto& p : pending_)
      completed_.push_back(
        {p.id, error_code::not_enough_replicas_after_append});
    pending_.clear();
  }
  maybe_advance_high_watermark();
}

std::vector<int32_t> partition_leader::maximal_isr() const {
  auto result = isr_;
  if (proposed_isr_)
    for (auto id : *proposed_isr_)
      if (!in(result, id))
        result.push_back(id);
  return result;
}

void partition_leader::maybe_advance_high_watermark() {
  auto isr = maximal_isr();
  // docs/ARCHITECTURE.md §4: no progress while the ISR is below
  // min.insync.replicas.
  if (static_cast<int32_t>(isr.size()) >= config_.min_insync_replicas) {
    auto low = std::numeric_limits<int64_t>::max();
    for (auto id : isr) {
      if (id == leader_id_) {
        low = std::min(low, log_end_offset_);
      } else if (auto f = find(id)) {
        low = std::min(low, f->log_end_offset);
      }
    }
    if (low != std::numeric_limits<int64_t>::max() && low > high_watermark_)
      high_watermark_ = low; // never backwards
  }
  // Kafka's checkEnoughReplicasReachOffset for every waiting acks=all.
  for (auto i = pending_.begin(); i != pending_.end();) {
    if (high_watermark_ >= i->required_offset) {
      completed_.push_back({i->id, error_code::none});
      i = pending_.erase(i);
    } else {
      ++i;
    }
  }
}

} // namespace troupe
