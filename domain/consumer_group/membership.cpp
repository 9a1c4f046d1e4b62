#include "domain/consumer_group/membership.hpp"

#include <algorithm>

#include "domain/consumer_group/member.hpp"

namespace troupe {

std::string_view member_phase_name(member_phase phase) noexcept {
  switch (phase) {
    case member_phase::unsubscribed:
      return "UNSUBSCRIBED";
    case member_phase::joining:
      return "JOINING";
    case member_phase::reconciling:
      return "RECONCILING";
    case member_phase::acknowledging:
      return "ACKNOWLEDGING";
    case member_phase::stable:
      return "STABLE";
    case member_phase::fenced:
      return "FENCED";
    case member_phase::leaving:
      return "LEAVING";
    case member_phase::fatal:
      return "FATAL";
  }
  return "UNKNOWN";
}

// -- constructors ---------------------------------------------------------------

consumer_membership::consumer_membership(membership_config config,
                                         std::string member_id)
  : config_(std::move(config)), member_id_(std::move(member_id)) {
  // nop
}

// -- heartbeats -----------------------------------------------------------------

bool consumer_membership::in_group() const noexcept {
  // Kafka's isNotInGroup, negated.
  return phase_ != member_phase::unsubscribed && phase_ != member_phase::fenced
         && phase_ != member_phase::fatal;
}

bool consumer_membership::heartbeat_now() const noexcept {
  return phase_ == member_phase::acknowledging
         || phase_ == member_phase::leaving || phase_ == member_phase::joining;
}

bool consumer_membership::skip_heartbeat() const noexcept {
  return phase_ == member_phase::unsubscribed || phase_ == member_phase::fatal
         || phase_ == member_phase::fenced;
}

consumer_group_heartbeat_request consumer_membership::next_heartbeat() {
  consumer_group_heartbeat_request req;
  req.group_id = config_.group_id;
  req.member_id = member_id_;
  req.member_epoch = member_epoch_;
  if (config_.instance_id)
    req.instance_id = *config_.instance_id;
  bool all = phase_ == member_phase::joining;
  if (all && config_.rack_id)
    req.rack_id = *config_.rack_id;
  if (all || sent_.rebalance_timeout_ms != config_.rebalance_timeout_ms) {
    req.rebalance_timeout_ms = config_.rebalance_timeout_ms;
    sent_.rebalance_timeout_ms = config_.rebalance_timeout_ms;
  }
  std::set<std::string> topics(config_.topics.begin(), config_.topics.end());
  if (all || sent_.topics != topics) {
    req.subscribed_topic_names =
      std::vector<std::string>(topics.begin(), topics.end());
    sent_.topics = std::move(topics);
  }
  if (config_.server_assignor
      && (all || sent_.server_assignor != config_.server_assignor)) {
    req.server_assignor = *config_.server_assignor;
    sent_.server_assignor = config_.server_assignor;
  }
  // Kafka sends the owned partitions when joining and with the first
  // heartbeat after every reconciliation (the local epoch changed).
  if (all || sent_.assignment != current_) {
    std::vector<consumer_group_topic_partitions> owned;
    for (const auto& [id, ps] : current_.partitions) {
      auto name = names_.find(id);
      owned.push_back({id, name == names_.end() ? std::string{} : name->second,
                       std::vector<int32_t>(ps.begin(), ps.end())});
    }
    req.topic_partitions = std::move(owned);
    sent_.assignment = current_;
  }
  // Kafka's onHeartbeatRequestGenerated.
  if (phase_ == member_phase::acknowledging)
    phase_ =
      current_ == target_ ? member_phase::stable : member_phase::reconciling;
  else if (phase_ == member_phase::leaving)
    phase_ = member_phase::unsubscribed;
  return req;
}

heartbeat_outcome
consumer_membership::on_heartbeat(const consumer_group_heartbeat_response& r) {
  if (r.error != error_code::none) {
    // Kafka's AbstractHeartbeatRequestManager.onErrorResponse: the next
    // heartbeat sends every field again.
    sent_ = {};
    if (phase_ == member_phase::unsubscribed)
      return heartbeat_outcome::left; // the leave is done either way
    bool fenced = r.error == error_code::fenced_member_epoch
                  || r.error == error_code::unknown_member_id;
    if (fenced && phase_ == member_phase::leaving) {
      // transitionToFenced while leaving: out of the group already, no
      // leave heartbeat needed.
      phase_ = member_phase::unsubscribed;
      return heartbeat_outcome::left;
    }
    switch (r.error) {
      case error_code::not_coordinator:
      case error_code::coordinator_not_available:
        return heartbeat_outcome::coordinator_unknown;
      case error_code::coordinator_load_in_progress:
        return heartbeat_outcome::retry;
      case error_code::fenced_member_epoch:
      case error_code::unknown_member_id:
        return heartbeat_outcome::fenced;
      default:
        phase_ = member_phase::fatal;
        return heartbeat_outcome::fatal;
    }
  }
  // Kafka's ConsumerMembershipManager.onHeartbeatSuccess.
  if (phase_ == member_phase::leaving)
    return heartbeat_outcome::ok;
  if (phase_ == member_phase::unsubscribed)
    return heartbeat_outcome::left;
  if (!in_group())
    return heartbeat_outcome::ok;
  if (r.member_id)
    member_id_ = *r.member_id;
  member_epoch_ = r.member_epoch;
  if (r.heartbeat_interval_ms > 0)
    heartbeat_interval_ms_ = r.heartbeat_interval_ms;
  if (!r.assignment)
    return heartbeat_outcome::ok;
  // processAssignmentReceived: a different target gets a new local epoch.
  partition_assignment next;
  for (const auto& t : r.assignment->topic_partitions) {
    if (!t.topic_name.empty())
      names_[t.topic_id] = t.topic_name;
    for (auto p : t.partitions)
      add_partition(next, t.topic_id, p);
  }
  if (target_.none() || next != target_.partitions)
    target_ = {target_.local_epoch + 1, std::move(next)};
  if (current_ != target_)
    phase_ = member_phase::reconciling;
  else if (phase_ == member_phase::reconciling
           || phase_ == member_phase::joining)
    phase_ = member_phase::stable;
  return heartbeat_outcome::ok;
}

heartbeat_outcome consumer_membership::on_heartbeat_failed() {
  sent_ = {};
  if (phase_ == member_phase::unsubscribed)
    return heartbeat_outcome::left;
  return heartbeat_outcome::coordinator_unknown;
}

// -- reconciliation --------------------------------------------------------------

std::vector<uuid> consumer_membership::unresolved() const {
  std::vector<uuid> result;
  for (const auto& [id, ps] : target_.partitions)
    if (!names_.count(id))
      result.push_back(id);
  return result;
}

void consumer_membership::learn_topic(const uuid& id, const std::string& name) {
  if (!name.empty())
    names_[id] = name;
}

std::vector<topic_partition>
consumer_membership::named(const partition_assignment& a) const {
  std::vector<topic_partition> result;
  for (const auto& [id, ps] : a) {
    auto name = names_.find(id);
    if (name == names_.end())
      continue;
    for (auto p : ps)
      result.push_back({name->second, p});
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::optional<membership_reconciliation> consumer_membership::reconcile() {
  // Kafka's maybeReconcile: only the part of the target whose topic names
  // are known, the rest once the metadata names them.
  if (phase_ != member_phase::reconciling || current_ == target_)
    return std::nullopt;
  local_assignment resolved{target_.local_epoch, {}};
  for (const auto& [id, ps] : target_.partitions)
    if (names_.count(id))
      resolved.partitions.emplace(id, ps);
  if (!current_.none() && resolved.partitions == current_.partitions) {
    // Nothing resolvable changed: acknowledge the new local epoch.
    current_ = std::move(resolved);
    phase_ = member_phase::acknowledging;
    return std::nullopt;
  }
  auto owned = named(current_.partitions);
  auto assigned = named(resolved.partitions);
  membership_reconciliation r;
  std::set_difference(owned.begin(), owned.end(), assigned.begin(),
                      assigned.end(), std::back_inserter(r.revoked));
  std::set_difference(assigned.begin(), assigned.end(), owned.begin(),
                      owned.end(), std::back_inserter(r.added));
  r.assigned = std::move(assigned);
  reconciling_ = std::move(resolved);
  return r;
}

void consumer_membership::reconciled() {
  // revokeAndAssign's completion: the assignment is the member's, and the
  // next heartbeat (sent at once) makes it effective on the coordinator.
  if (!reconciling_ || phase_ != member_phase::reconciling) {
    reconciling_.reset();
    return;
  }
  current_ = std::move(*reconciling_);
  reconciling_.reset();
  phase_ = member_phase::acknowledging;
}

// -- fencing and leaving ----------------------------------------------------------

void consumer_membership::transition_to_joining() {
  member_epoch_ = 0;
  current_ = {};
  target_ = {};
  reconciling_.reset();
  sent_ = {};
  phase_ = member_phase::joining;
}

std::vector<topic_partition> consumer_membership::fence() {
  if (!in_group() && phase_ != member_phase::fenced)
    return {};
  auto lost = owned();
  transition_to_joining();
  return lost;
}

std::vector<topic_partition> consumer_membership::leave() {
  if (!in_group() || phase_ == member_phase::leaving)
    return {};
  auto revoked = owned();
  // transitionToSendingLeaveGroup: the leave epoch, no assignment.
  member_epoch_ = config_.instance_id ? leave_group_static_member_epoch
                                      : leave_group_member_epoch;
  current_ = {};
  reconciling_.reset();
  phase_ = member_phase::leaving;
  return revoked;
}

void consumer_membership::fail() noexcept {
  phase_ = member_phase::fatal;
}

std::vector<topic_partition> consumer_membership::owned() const {
  return named(current_.partitions);
}

} // namespace troupe
