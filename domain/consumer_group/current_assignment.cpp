#include "domain/consumer_group/current_assignment.hpp"

namespace troupe {

namespace {

/// Kafka's ownsRevokedPartitions: a member that did not report what it owns
/// is assumed to still own everything.
bool owns_any(const std::optional<partition_assignment>& owned,
              const partition_assignment& partitions) {
  if (!owned)
    return true;
  for (const auto& [topic, ps] : *owned)
    for (auto p : ps)
      if (contains(partitions, topic, p))
        return true;
  return false;
}

void set_epoch(consumer_member& m, int32_t epoch) {
  // Kafka's Builder.updateMemberEpoch keeps the epoch it replaces.
  m.previous_member_epoch = m.member_epoch;
  m.member_epoch = epoch;
}

/// Kafka's computeNextAssignment.
consumer_member
next_assignment(const consumer_member& member, int32_t member_epoch,
                int32_t target_epoch, const partition_assignment& target,
                const partition_epoch_fn& partition_epoch,
                const std::optional<partition_assignment>& owned) {
  bool has_unreleased = false;
  partition_assignment assigned;
  partition_assignment pending_revocation;
  partition_assignment pending_assignment;
  std::set<uuid> topics;
  for (const auto& [t, ps] : target)
    topics.insert(t);
  for (const auto& [t, ps] : member.assigned)
    topics.insert(t);
  static const std::set<int32_t> none;
  for (const auto& t : topics) {
    auto ti = target.find(t);
    const auto& want = ti == target.end() ? none : ti->second;
    auto ci = member.assigned.find(t);
    const auto& have = ci == member.assigned.end() ? none : ci->second;
    for (auto p : have) {
      // Kept: assigned and still in the target; the rest is revoked.
      if (want.count(p))
        add_partition(assigned, t, p);
      else
        add_partition(pending_revocation, t, p);
    }
    for (auto p : want) {
      if (have.count(p))
        continue;
      // Not yet released by its previous owner: wait for it.
      if (partition_epoch(t, p) != -1)
        has_unreleased = true;
      else
        add_partition(pending_assignment, t, p);
    }
  }
  consumer_member next = member;
  if (!pending_revocation.empty() && owns_any(owned, pending_revocation)) {
    // Revoke first: the member stays in its epoch until it has let go.
    next.state = member_state::unrevoked_partitions;
    set_epoch(next, member_epoch);
    next.assigned = std::move(assigned);
    next.pending_revocation = std::move(pending_revocation);
    return next;
  }
  for (const auto& [t, ps] : pending_assignment)
    assigned[t].insert(ps.begin(), ps.end());
  next.state =
    has_unreleased ? member_state::unreleased_partitions : member_state::stable;
  set_epoch(next, target_epoch);
  next.assigned = std::move(assigned);
  next.pending_revocation.clear();
  return next;
}

} // namespace

std::optional<consumer_member>
reconcile(const consumer_member& member, int32_t target_epoch,
          const partition_assignment& target,
          const partition_epoch_fn& current_partition_epoch,
          const std::optional<partition_assignment>& owned) {
  switch (member.state) {
    case member_state::stable:
      // At the target's epoch, a stable member is done unless it holds a
      // partition the target no longer gives it (a topic it unsubscribed
      // from while the next assignment waits: KIP-1263).
      if (member.member_epoch == target_epoch
          && subset_of(member.assigned, target))
        return member;
      return next_assignment(member, member.member_epoch, target_epoch, target,
                             current_partition_epoch, owned);
    case member_state::unrevoked_partitions:
      if (owns_any(owned, member.pending_revocation))
        return member;
      return next_assignment(member, member.member_epoch + 1, target_epoch,
                             target, current_partition_epoch, owned);
    case member_state::unreleased_partitions:
      return next_assignment(member, member.member_epoch, target_epoch, target,
                             current_partition_epoch, owned);
    case member_state::unknown:
      // A state from a newer coordinator: start over from scratch, unless
      // the member still holds partitions (then it must be fenced).
      if (!owned || !owned->empty())
        return std::nullopt;
      return next_assignment(member, target_epoch, target_epoch, target,
                             current_partition_epoch, owned);
  }
  return member;
}

} // namespace troupe
