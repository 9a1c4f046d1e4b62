#include "domain/assignors/assignor.hpp"
#include "domain/assignors/member_order.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <list>
#include <optional>
#include <set>
#include <utility>

// Kafka's StickyAssignor and CooperativeStickyAssignor, after their shared
// org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor: keep
// what members owned where it is still valid, and stay balanced.

namespace troupe {

namespace {

constexpr size_t npos = std::numeric_limits<size_t>::max();

/// Partitions as dense ids: topic k's partition p is offsets[k] + p. Topics
/// are sorted, so ids sort like (topic, partition).
struct partition_space {
  std::vector<std::string> topics;
  std::vector<size_t> offsets{0};

  size_t size() const {
    return offsets.back();
  }

  std::optional<size_t> topic_index(const std::string& topic) const {
    auto it = std::lower_bound(topics.begin(), topics.end(), topic);
    if (it == topics.end() || *it != topic)
      return std::nullopt;
    return static_cast<size_t>(it - topics.begin());
  }

  size_t topic_of(size_t id) const {
    auto it = std::upper_bound(offsets.begin(), offsets.end(), id);
    return static_cast<size_t>(it - offsets.begin()) - 1;
  }

  /// The id of `tp`, if its topic is known and the partition exists.
  std::optional<size_t> id_of(const topic_partition& tp) const {
    auto t = topic_index(tp.topic);
    if (!t || tp.partition < 0)
      return std::nullopt;
    auto id = offsets[*t] + static_cast<size_t>(tp.partition);
    if (id >= offsets[*t + 1])
      return std::nullopt;
    return id;
  }

  topic_partition at(size_t id) const {
    auto t = topic_of(id);
    return topic_partition{topics[t], static_cast<int32_t>(id - offsets[t])};
  }
};

/// Everything both sticky algorithms start from. Members are referred to by
/// rank: their position in assignor order.
struct sticky_input {
  const std::vector<member_subscription>* members = nullptr;
  std::vector<size_t> order;
  partition_space space;
  /// Per rank: the subscribed topics that exist, as sorted topic indexes.
  std::vector<std::vector<size_t>> member_topics;
  /// Per rank: its valid previously owned partitions, in its original order.
  std::vector<std::vector<size_t>> owned;
  /// Per partition: the rank that validly owned it, or npos.
  std::vector<size_t> prev_owner;
  /// Per partition: claimed by several members of the highest generation.
  std::vector<bool> contested;
  /// Whether all members subscribe to the same topics (Kafka's
  /// allSubscriptionsEqual, which picks the constrained algorithm).
  bool identical = true;

  const member_subscription& member(size_t rank) const {
    return (*members)[order[rank]];
  }
};

std::vector<std::string> unique_topics(const member_subscription& x) {
  auto topics = x.topics;
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  return topics;
}

/// Builds the partition space over the subscribed topics that exist, and
/// each member's topic indexes; notes whether subscriptions are identical.
void index_topics(const partition_counts& counts, sticky_input& in) {
  std::vector<std::vector<std::string>> subscribed;
  std::set<std::string> all;
  for (size_t rank = 0; rank < in.order.size(); ++rank) {
    subscribed.push_back(unique_topics(in.member(rank)));
    in.identical = in.identical && subscribed.back() == subscribed.front();
    for (auto& topic : subscribed.back())
      if (counts.count(topic) > 0)
        all.insert(topic);
  }
  for (auto& topic : all) {
    in.space.topics.push_back(topic);
    auto n = std::max(counts.at(topic), int32_t{0});
    in.space.offsets.push_back(in.space.offsets.back()
                               + static_cast<size_t>(n));
  }
  for (auto& topics : subscribed) {
    in.member_topics.emplace_back();
    for (auto& topic : topics)
      if (auto t = in.space.topic_index(topic))
        in.member_topics.back().push_back(*t);
  }
}

/// The partition id of `tp` if `rank` may keep it: it exists and the member
/// still subscribes to its topic.
std::optional<size_t> keepable(const sticky_input& in, size_t rank,
                               const topic_partition& tp) {
  auto id = in.space.id_of(tp);
  if (!id)
    return std::nullopt;
  auto& topics = in.member_topics[rank];
  if (!std::binary_search(topics.begin(), topics.end(), in.space.topic_of(*id)))
    return std::nullopt;
  return id;
}

/// Resolves claims on owned partitions as Kafka's allSubscriptionsEqual
/// does: the claim of the highest generation wins; several claims at that
/// generation invalidate the partition for all of them.
void resolve_owners(sticky_input& in) {
  auto n = in.space.size();
  std::vector<int64_t> best(n, std::numeric_limits<int64_t>::min());
  std::vector<size_t> claimant(n, npos);
  in.contested.assign(n, false);
  for (size_t rank = 0; rank < in.order.size(); ++rank) {
    int64_t generation = in.member(rank).generation;
    for (auto& tp : in.member(rank).owned_partitions) {
      auto id = keepable(in, rank, tp);
      if (!id || generation < best[*id] || claimant[*id] == rank)
        continue;
      in.contested[*id] = generation == best[*id];
      best[*id] = generation;
      claimant[*id] = rank;
    }
  }
  in.prev_owner.resize(n);
  for (size_t id = 0; id < n; ++id)
    in.prev_owner[id] = in.contested[id] ? npos : claimant[id];
}

/// Each member's valid owned partitions, once each, in the member's order.
void collect_owned(sticky_input& in) {
  std::vector<bool> seen(in.space.size(), false);
  in.owned.resize(in.order.size());
  for (size_t rank = 0; rank < in.order.size(); ++rank)
    for (auto& tp : in.member(rank).owned_partitions) {
      auto id = keepable(in, rank, tp);
      if (id && in.prev_owner[*id] == rank && !seen[*id]) {
        seen[*id] = true;
        in.owned[rank].push_back(*id);
      }
    }
}

sticky_input prepare(const partition_counts& counts,
                     const std::vector<member_subscription>& members) {
  sticky_input in;
  in.members = &members;
  in.order = detail::member_order(members);
  index_topics(counts, in);
  resolve_owners(in);
  collect_owned(in);
  return in;
}

// -- identical subscriptions --------------------------------------------------

/// AbstractStickyAssignor's ConstrainedAssignmentBuilder: every member ends
/// with minQuota or maxQuota partitions, exactly P % C of them with maxQuota.
/// Linear in members and partitions after sorting the members.
class constrained_builder {
public:
  explicit constrained_builder(const sticky_input& in)
    : in_(in),
      members_(in.order.size()),
      min_quota_(in.space.size() / members_),
      max_quota_((in.space.size() + members_ - 1) / members_),
      expected_over_(in.space.size() % members_),
      lists_(members_),
      assigned_(in.space.size(), false) {}

  std::vector<std::vector<size_t>> build() {
    for (size_t rank = 0; rank < members_; ++rank)
      keep_owned(rank);
    fill_round_robin();
    return std::move(lists_);
  }

private:
  void keep(size_t rank, size_t n) {
    auto& owned = in_.owned[rank];
    for (size_t i = 0; i < n; ++i) {
      lists_[rank].push_back(owned[i]);
      assigned_[owned[i]] = true;
    }
  }

  // Kafka's assignOwnedPartitions: keep everything below minQuota; keep
  // maxQuota while fewer than P % C members have it; else keep minQuota.
  // The surplus is revoked and becomes unassigned. Members are visited in
  // assignor order, Kafka's own order being a HashMap's.
  void keep_owned(size_t rank) {
    auto owned = in_.owned[rank].size();
    if (owned < min_quota_) {
      keep(rank, owned);
      under_min_.push_back(rank);
    } else if (owned >= max_quota_ && over_ < expected_over_) {
      keep(rank, max_quota_);
      if (++over_ == expected_over_)
        at_min_.clear();
    } else {
      keep(rank, min_quota_);
      if (over_ < expected_over_)
        at_min_.push_back(rank);
    }
  }

  // Kafka's assignRoundRobin: unassigned partitions in (topic, partition)
  // order, dealt round-robin over the members still under minQuota; once
  // none is left, one each to members at minQuota that may reach maxQuota.
  void fill_round_robin() {
    auto next = under_min_.begin();
    for (size_t id = 0; id < in_.space.size(); ++id) {
      if (assigned_[id])
        continue;
      if (next == under_min_.end())
        next = under_min_.begin();
      if (next != under_min_.end()) {
        auto rank = *next;
        lists_[rank].push_back(id);
        if (lists_[rank].size() == min_quota_) {
          next = under_min_.erase(next);
          at_min_.push_back(rank);
        } else {
          ++next;
        }
      } else {
        lists_[pop_at_min()].push_back(id);
      }
    }
  }

  size_t pop_at_min() {
    if (at_min_.empty()) // unreachable: the quotas add up to P exactly
      return least_loaded();
    auto rank = at_min_.front();
    at_min_.pop_front();
    return rank;
  }

  size_t least_loaded() const {
    auto it =
      std::min_element(lists_.begin(), lists_.end(),
                       [](auto& x, auto& y) { return x.size() < y.size(); });
    return static_cast<size_t>(it - lists_.begin());
  }

  const sticky_input& in_;
  size_t members_;
  size_t min_quota_;
  size_t max_quota_;
  size_t expected_over_;
  size_t over_ = 0;
  std::list<size_t> under_min_;
  std::deque<size_t> at_min_;
  std::vector<std::vector<size_t>> lists_;
  std::vector<bool> assigned_;
};

// -- differing subscriptions --------------------------------------------------

/// The general case (Kafka's GeneralAssignmentBuilder, simplified): keep
/// valid owned partitions, give each unassigned partition to its least
/// loaded subscriber, then move partitions from a holder to a subscriber
/// with at least two fewer until no such move exists. Each move lowers the
/// sum of squared loads, so this ends; each costs O(topics * log members).
class general_builder {
public:
  explicit general_builder(const sticky_input& in)
    : in_(in),
      count_(in.order.size(), 0),
      eligible_(in.space.topics.size()),
      holders_(in.space.topics.size()),
      held_(in.order.size()) {
    for (size_t rank = 0; rank < count_.size(); ++rank)
      for (auto t : in_.member_topics[rank])
        eligible_[t].emplace(0, rank);
  }

  std::vector<std::vector<size_t>> build() {
    for (size_t rank = 0; rank < count_.size(); ++rank)
      for (auto id : in_.owned[rank])
        give(id, rank);
    assign_unassigned();
    balance();
    return lists();
  }

private:
  /// Partitions a member holds of one topic: those it owned before, and
  /// those new to it (moved first when rebalancing, to stay sticky).
  struct held {
    std::set<size_t> kept;
    std::set<size_t> moved;
    bool empty() const {
      return kept.empty() && moved.empty();
    }
  };

  /// (load, rank) of members, least loaded first, ties in assignor order.
  using ranking = std::set<std::pair<size_t, size_t>>;

  void set_count(size_t rank, size_t count) {
    for (auto t : in_.member_topics[rank]) {
      eligible_[t].erase({count_[rank], rank});
      eligible_[t].emplace(count, rank);
      if (held_[rank].count(t) > 0) {
        holders_[t].erase({count_[rank], rank});
        holders_[t].emplace(count, rank);
      }
    }
    count_[rank] = count;
  }

  void give(size_t id, size_t rank) {
    auto t = in_.space.topic_of(id);
    auto& h = held_[rank][t];
    if (h.empty())
      holders_[t].emplace(count_[rank], rank);
    (in_.prev_owner[id] == rank ? h.kept : h.moved).insert(id);
    set_count(rank, count_[rank] + 1);
  }

  size_t take(size_t rank, size_t t) {
    auto it = held_[rank].find(t);
    auto& h = it->second;
    auto& from = h.moved.empty() ? h.kept : h.moved;
    auto id = *from.begin();
    from.erase(from.begin());
    if (h.empty()) {
      holders_[t].erase({count_[rank], rank});
      held_[rank].erase(it);
    }
    set_count(rank, count_[rank] - 1);
    return id;
  }

  // Partitions with the fewest potential members go first, as in Kafka's
  // sortPartitions, so flexible partitions are left to even out the loads.
  void assign_unassigned() {
    std::vector<bool> assigned(in_.space.size(), false);
    for (auto& ids : in_.owned)
      for (auto id : ids)
        assigned[id] = true;
    std::vector<std::pair<size_t, size_t>> todo; // (subscribers, id)
    for (size_t id = 0; id < in_.space.size(); ++id)
      if (!assigned[id])
        todo.emplace_back(eligible_[in_.space.topic_of(id)].size(), id);
    std::sort(todo.begin(), todo.end());
    for (auto& [subscribers, id] : todo)
      give(id, eligible_[in_.space.topic_of(id)].begin()->second);
  }

  /// Moves one partition of topic `t` from its most loaded holder to its
  /// least loaded subscriber if they differ by two or more.
  std::optional<std::pair<size_t, size_t>> improve(size_t t) {
    if (holders_[t].empty())
      return std::nullopt;
    auto [high, from] = *holders_[t].rbegin();
    auto [low, to] = *eligible_[t].begin();
    if (high < low + 2)
      return std::nullopt;
    give(take(from, t), to);
    return std::make_pair(from, to);
  }

  // A topic is revisited only when the load of one of its subscribers
  // changed, which is the only way it can gain an improving move.
  void balance() {
    auto topics = in_.space.topics.size();
    std::deque<size_t> work;
    std::vector<bool> queued(topics, true);
    for (size_t t = 0; t < topics; ++t)
      work.push_back(t);
    auto enqueue = [&](size_t rank) {
      for (auto t : in_.member_topics[rank])
        if (!queued[t]) {
          queued[t] = true;
          work.push_back(t);
        }
    };
    while (!work.empty()) {
      auto t = work.front();
      work.pop_front();
      queued[t] = false;
      while (auto move = improve(t)) {
        enqueue(move->first);
        enqueue(move->second);
      }
    }
  }

  std::vector<std::vector<size_t>> lists() const {
    std::vector<std::vector<size_t>> result(count_.size());
    for (size_t rank = 0; rank < count_.size(); ++rank)
      for (auto& [t, h] : held_[rank]) {
        result[rank].insert(result[rank].end(), h.kept.begin(), h.kept.end());
        result[rank].insert(result[rank].end(), h.moved.begin(), h.moved.end());
      }
    return result;
  }

  const sticky_input& in_;
  std::vector<size_t> count_;
  std::vector<ranking> eligible_;
  std::vector<ranking> holders_;
  std::vector<std::map<size_t, held>> held_;
};

// -- both assignors -----------------------------------------------------------

std::vector<std::vector<size_t>> sticky_lists(const sticky_input& in) {
  if (in.order.empty())
    return {};
  if (in.identical)
    return constrained_builder{in}.build();
  return general_builder{in}.build();
}

/// A partition another member still owns must be revoked by that member
/// before anyone else may take it (KIP-429). A contested partition may still
/// be held by several members, so it waits too: Kafka's constrained path
/// puts partitionsWithMultiplePreviousOwners among the partitions
/// transferring ownership.
bool owned_by_other(const sticky_input& in, size_t rank, size_t id) {
  auto owner = in.prev_owner[id];
  return in.contested[id] || (owner != npos && owner != rank);
}

group_assignment to_assignment(const sticky_input& in,
                               std::vector<std::vector<size_t>> lists) {
  auto result = detail::empty_assignment(*in.members, in.order);
  for (size_t rank = 0; rank < lists.size(); ++rank) {
    auto& ids = lists[rank];
    std::sort(ids.begin(), ids.end());
    auto& out = result[in.member(rank).member_id];
    out.reserve(ids.size());
    for (auto id : ids)
      out.push_back(in.space.at(id));
  }
  return result;
}

} // namespace

group_assignment
assign_sticky(const partition_counts& topics,
              const std::vector<member_subscription>& members) {
  auto in = prepare(topics, members);
  return to_assignment(in, sticky_lists(in));
}

// CooperativeStickyAssignor: the sticky assignment minus the partitions that
// change owner; their owners revoke them and the follow-up rebalance (with
// the updated owned partitions) hands them out.
group_assignment
assign_cooperative_sticky(const partition_counts& topics,
                          const std::vector<member_subscription>& members) {
  auto in = prepare(topics, members);
  auto lists = sticky_lists(in);
  for (size_t rank = 0; rank < lists.size(); ++rank) {
    auto& ids = lists[rank];
    ids.erase(
      std::remove_if(ids.begin(), ids.end(),
                     [&](size_t id) { return owned_by_other(in, rank, id); }),
      ids.end());
  }
  return to_assignment(in, std::move(lists));
}

} // namespace troupe
