#include "domain/consumer_group/consumer_group.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace troupe {

namespace {

/// A broken invariant is a bug in this class, never a consequence of
/// input: stop loudly, naming the group (Redpanda's style).
[[noreturn]] void invariant_failed(const std::string& group_id,
                                   const std::string& what) {
  std::fprintf(stderr, "troupe: consumer group %s: %s\n", group_id.c_str(),
               what.c_str());
  std::abort();
}

/// Kafka's Utils.throwIfEmptyString: present but blank.
bool blank(const nullable<std::string>& x) {
  return x && x->find_first_not_of(" \t\r\n") == std::string::npos;
}

std::string partition_name(const uuid& topic, int32_t partition) {
  return to_string(topic) + "-" + std::to_string(partition);
}

} // namespace

std::string_view state_name(consumer_group_state state) noexcept {
  switch (state) {
    case consumer_group_state::empty:
      return "Empty";
    case consumer_group_state::assigning:
      return "Assigning";
    case consumer_group_state::reconciling:
      return "Reconciling";
    case consumer_group_state::stable:
      return "Stable";
    case consumer_group_state::dead:
      return "Dead";
  }
  return "Unknown";
}

consumer_group_state derive_state(const consumer_group_image& image) {
  if (image.members.empty())
    return consumer_group_state::empty;
  if (image.group_epoch > image.assignment_epoch)
    return consumer_group_state::assigning;
  for (const auto& [id, m] : image.members)
    if (!m.is_reconciled_to(image.assignment_epoch))
      return consumer_group_state::reconciling;
  return consumer_group_state::stable;
}

std::string preferred_assignor(const std::map<std::string, int>& counts,
                               const std::vector<std::string>& configured) {
  // Kafka takes the maximum count in hash order; ties go to the configured
  // order here so that the choice is deterministic.
  auto rank = [&](const std::string& name) {
    auto i = std::find(configured.begin(), configured.end(), name);
    return static_cast<size_t>(i - configured.begin());
  };
  const std::string* best = nullptr;
  int best_count = 0;
  for (const auto& [name, n] : counts) {
    if (n <= 0)
      continue;
    if (!best || n > best_count
        || (n == best_count && rank(name) < rank(*best))) {
      best = &name;
      best_count = n;
    }
  }
  if (best)
    return *best;
  return configured.empty() ? std::string{"uniform"} : configured.front();
}

// -- constructors ---------------------------------------------------------------

consumer_group::consumer_group(std::string group_id, group_config config,
                               uint64_t seed)
  : group_id_(std::move(group_id)), config_(std::move(config)), rng_(seed) {
  // nop
}

// -- observers ------------------------------------------------------------------

const consumer_member*
consumer_group::member(const std::string& member_id) const {
  auto i = image_.members.find(member_id);
  return i == image_.members.end() ? nullptr : &i->second;
}

const partition_assignment&
consumer_group::target_of(const std::string& member_id) const {
  static const partition_assignment none;
  auto i = image_.target_assignment.find(member_id);
  return i == image_.target_assignment.end() ? none : i->second;
}

std::string consumer_group::assignor() const {
  return preferred_assignor(server_assignors_, config_.consumer_assignors);
}

// -- ConsumerGroupHeartbeat -------------------------------------------------------

consumer_group_heartbeat_response
consumer_group::answer(const failure& f) const {
  consumer_group_heartbeat_response r;
  r.error = f.error;
  if (!f.message.empty())
    r.error_message = f.message;
  return r;
}

std::optional<consumer_group_heartbeat_response>
check_consumer_group_heartbeat(const consumer_group_heartbeat_request& req,
                               const group_config& config) {
  // Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid, in its order.
  auto refuse = [](error_code e, std::string message) {
    consumer_group_heartbeat_response r;
    r.error = e;
    r.error_message = std::move(message);
    return r;
  };
  auto invalid = [&](std::string message) {
    return refuse(error_code::invalid_request, std::move(message));
  };
  bool id_required = req.api_version >= 1 || req.member_epoch > 0
                     || req.member_epoch == leave_group_member_epoch;
  if (id_required
      && req.member_id.find_first_not_of(" \t\r\n") == std::string::npos)
    return invalid("MemberId can't be empty.");
  if (req.group_id.find_first_not_of(" \t\r\n") == std::string::npos)
    return invalid("GroupId can't be empty.");
  if (blank(req.instance_id))
    return invalid("InstanceId can't be empty.");
  if (blank(req.rack_id))
    return invalid("RackId can't be empty.");
  // troupe resolves no regular expressions; Kafka before 4.0 answers so.
  if (req.subscribed_topic_regex)
    return invalid("SubscribedTopicRegex is not supported yet.");
  if (req.member_epoch == 0) {
    if (req.rebalance_timeout_ms == -1)
      return invalid("RebalanceTimeoutMs must be provided in first request.");
    if (!req.topic_partitions || !req.topic_partitions->empty())
      return invalid("TopicPartitions must be empty when (re-)joining.");
    if (!req.subscribed_topic_names)
      return invalid("Either SubscribedTopicNames or SubscribedTopicRegex "
                     "must be non-null when (re-)joining.");
  } else if (req.member_epoch == leave_group_static_member_epoch) {
    if (!req.instance_id)
      return invalid("InstanceId can't be null.");
  } else if (req.member_epoch < leave_group_static_member_epoch) {
    return invalid("MemberEpoch is invalid.");
  }
  // group.consumer.assignors lists the assignors a member may ask for.
  const auto& names = config.consumer_assignors;
  if (req.server_assignor
      && std::find(names.begin(), names.end(), *req.server_assignor)
           == names.end()) {
    std::string supported;
    for (const auto& name : names)
      supported += (supported.empty() ? "" : ", ") + name;
    return refuse(error_code::unsupported_assignor,
                  "ServerAssignor " + *req.server_assignor
                    + " is not supported. Supported assignors: " + supported
                    + ".");
  }
  return std::nullopt;
}

consumer_group_heartbeat_response
consumer_group::heartbeat(const consumer_group_heartbeat_request& req,
                          int64_t now_ms) {
  if (state_ == consumer_group_state::dead)
    return answer({error_code::not_coordinator, {}});
  if (auto refused = check_consumer_group_heartbeat(req, config_))
    return *refused;
  if (req.group_id != group_id_)
    return answer({error_code::invalid_group_id,
                   "Group " + req.group_id + " is not coordinated here."});
  consumer_group_heartbeat_response result;
  auto records = effects_.records.size();
  if (req.member_epoch == leave_group_member_epoch
      || req.member_epoch == leave_group_static_member_epoch)
    result = leave(req);
  else
    result = join_or_heartbeat(req, now_ms);
  // The state follows the records: without one, it stays.
  if (effects_.records.size() != records)
    update_state(result.error == error_code::none
                   ? "heartbeat of " + result.member_id.value_or("")
                   : "failed heartbeat");
  return result;
}

std::optional<consumer_group::failure> consumer_group::check_member_epoch(
  const consumer_member& m, int32_t received,
  const std::optional<partition_assignment>& owned) const {
  // Kafka's throwIfConsumerGroupMemberEpochIsInvalid: an older epoch is
  // accepted only if it is the previous one and the member owns nothing
  // beyond its current assignment (the answer with the new epoch was lost).
  // Epoch 0 is a member that rejoins after it was fenced, keeping its
  // member id as KIP-848 says it must (KAFKA-19233): it is taken, and the
  // owned partitions it reports (none, after a fence) reconcile it.
  // Fencing it again left it fenced until its session expired.
  if (received == 0)
    return std::nullopt;
  auto fenced = [&](const char* which) {
    return failure{error_code::fenced_member_epoch,
                   std::string{"The consumer group member has a "} + which
                     + " member epoch (" + std::to_string(received)
                     + ") than the one known by the group coordinator ("
                     + std::to_string(m.member_epoch)
                     + "). The member must abandon all its partitions and "
                       "rejoin."};
  };
  if (received > m.member_epoch)
    return fenced("greater");
  if (received < m.member_epoch) {
    bool subset = owned.has_value();
    if (owned)
      for (const auto& [t, ps] : *owned)
        for (auto p : ps)
          subset = subset && contains(m.assigned, t, p);
    if (received != m.previous_member_epoch || !subset)
      return fenced("smaller");
  }
  return std::nullopt;
}

std::variant<consumer_member, consumer_group::failure>
consumer_group::find_or_create_member(
  const consumer_group_heartbeat_request& req, const std::string& member_id,
  const std::optional<partition_assignment>& owned) {
  bool create = req.member_epoch == 0;
  auto fresh = [&] {
    consumer_member m;
    m.member_id = member_id;
    return m;
  };
  if (!req.instance_id) {
    // getOrMaybeSubscribeDynamicConsumerGroupMember.
    auto existing = member(member_id);
    if (!existing && !create)
      return failure{error_code::unknown_member_id,
                     "Member " + member_id + " is not a member of group "
                       + group_id_ + "."};
    auto m = existing ? *existing : fresh();
    if (auto f = check_member_epoch(m, req.member_epoch, owned))
      return *f;
    return m;
  }
  // getOrMaybeSubscribeStaticConsumerGroupMember.
  const auto& instance = *req.instance_id;
  auto s = static_members_.find(instance);
  const consumer_member* existing =
    s == static_members_.end() ? nullptr : member(s->second);
  if (create) {
    if (!existing) {
      auto known = member(member_id);
      return known ? *known : fresh();
    }
    // The instance comes back: only once its previous incarnation left
    // with epoch -2 (Kafka's throwIfInstanceIdIsUnreleased).
    if (existing->member_epoch != leave_group_static_member_epoch)
      return failure{error_code::unreleased_instance_id,
                     "Static member " + member_id + " with instance id "
                       + instance
                       + " cannot join the group because the instance id "
                         "is owned by "
                       + existing->member_id + " member."};
    // It takes over its predecessor's assignment under its own id.
    consumer_member m = *existing;
    m.member_id = member_id;
    m.member_epoch = 0;
    m.previous_member_epoch = 0;
    auto old_id = existing->member_id;
    replace_member(old_id, m);
    return m;
  }
  if (!existing)
    return failure{error_code::unknown_member_id,
                   "Instance id " + instance + " is unknown."};
  if (existing->member_id != member_id)
    return failure{error_code::fenced_instance_id,
                   "Static member " + member_id + " with instance id "
                     + instance + " was fenced by member " + existing->member_id
                     + "."};
  if (auto f = check_member_epoch(*existing, req.member_epoch, owned))
    return *f;
  return *existing;
}

consumer_group_heartbeat_response
consumer_group::join_or_heartbeat(const consumer_group_heartbeat_request& req,
                                  int64_t now_ms) {
  // Kafka's GroupMetadataManager.consumerGroupHeartbeat.
  bool create = req.member_epoch == 0;
  if (!image_.exists && !create)
    return answer({error_code::group_id_not_found,
                   "Consumer group " + group_id_ + " not found."});
  if (image_.members.size() >= static_cast<size_t>(config_.consumer_max_size)
      && (req.member_id.empty() || !member(req.member_id)))
    return answer({error_code::group_max_size_reached,
                   "The consumer group has reached its maximum capacity of "
                     + std::to_string(config_.consumer_max_size)
                     + " members."});
  auto member_id = req.member_id.empty() ? generate_member_id() : req.member_id;
  const auto epoch_before = image_.group_epoch;
  auto owned = resolve(req.topic_partitions);
  auto found = find_or_create_member(req, member_id, owned);
  if (auto f = std::get_if<failure>(&found))
    return answer(*f);
  const auto before = std::get<consumer_member>(std::move(found));
  bool is_new = member(member_id) == nullptr;

  // 1. The member's subscription; a change bumps the group epoch.
  auto updated = before;
  if (req.instance_id)
    updated.instance_id = *req.instance_id;
  if (req.rack_id)
    updated.rack_id = *req.rack_id;
  if (req.rebalance_timeout_ms != -1)
    updated.rebalance_timeout_ms = req.rebalance_timeout_ms;
  if (req.server_assignor)
    updated.server_assignor = *req.server_assignor;
  if (req.subscribed_topic_names)
    updated.subscribed_topic_names = {req.subscribed_topic_names->begin(),
                                      req.subscribed_topic_names->end()};
  updated.client_id = req.client_id;
  updated.client_host = req.client_host;
  // A newly created group must move away from epoch 0.
  bool bump = image_.group_epoch == 0;
  if (is_new || !updated.same_metadata(before)) {
    append(metadata_record_of(updated));
    if (updated.subscribed_topic_names != before.subscribed_topic_names
        || updated.subscribed_topic_regex != before.subscribed_topic_regex)
      bump = true;
  }
  int32_t epoch = image_.group_epoch;
  // The last epoch change before this heartbeat's own.
  const auto changed_before = last_epoch_bump_ms_;
  if (bump || metadata_refresh_needed_) {
    auto metadata = compute_subscription_metadata();
    if (metadata != image_.subscription_metadata) {
      subscription_metadata_record r;
      for (auto& [name, t] : metadata)
        r.topics.push_back(t);
      append(std::move(r));
      bump = true;
    }
    if (bump) {
      epoch += 1;
      append(group_epoch_record{epoch, false});
      last_epoch_bump_ms_ = now_ms;
    }
    metadata_refresh_needed_ = false;
  }

  // 2. A new group epoch gets a new target assignment, at most once per
  // group.consumer.assignment.interval.ms; a joiner may get its share at
  // once (assign_joiner).
  maybe_update_target_assignment(now_ms, is_new ? &member_id : nullptr);

  // 3. The member moves towards its target.
  if (!maybe_reconcile(member_id, owned))
    return answer({error_code::fenced_member_epoch,
                   "The consumer group member is in a unknown state. The "
                   "member must abandon all its partitions and rejoin."});
  schedule_session(member_id, now_ms);

  const auto& now = *member(member_id);
  consumer_group_heartbeat_response r;
  r.member_id = member_id;
  r.member_epoch = now.member_epoch;
  r.heartbeat_interval_ms = heartbeat_interval_for(
    now, now_ms,
    image_.group_epoch != epoch_before ? changed_before : last_epoch_bump_ms_);
  // Kafka sends the assignment on a full request (join, or all of the
  // fields a member sends after an error) and whenever it changed.
  bool full = req.member_epoch == 0
              || (req.rebalance_timeout_ms != -1 && req.subscribed_topic_names
                  && req.topic_partitions);
  if (full || now.assigned != before.assigned)
    r.assignment = to_wire(now.assigned);
  return r;
}

/// The HeartbeatIntervalMs a member is told (the response's field; clients
/// schedule their next heartbeat by it). Kafka answers the group's
/// group.consumer.heartbeat.interval.ms always, so a member learns of a new
/// target up to a whole interval after the assignor ran. troupe asks a
/// member back sooner when its assignment is about to move
/// (docs/ARCHITECTURE.md §3, "KIP-848 heartbeat interval"):
/// - while an assignor run waits for group.consumer.assignment.interval.ms,
///   every member comes back just after it runs;
/// - a member with partitions to revoke, and one at its target epoch that
///   waits for partitions others still own, come back after a tenth of the
///   interval (at least 100 ms): the Java consumer acknowledges a
///   revocation at once, but not every client does (@platformatic/kafka
///   waits for its next heartbeat), and the members waiting for the
///   partitions learn that they are free only by asking;
/// - while joins keep coming (the group epoch moved, by another member's
///   heartbeat, less than that tenth ago), every member comes back after
///   the tenth too: the next joiner may take a partition from it
///   (assign_joiner), and it learns so only by asking. A lone join into a
///   quiet group changes nothing for the joiner itself; a storm of joins
///   costs each member one extra heartbeat per tenth while it lasts.
/// Never longer than the configured interval. `epoch_moved_ms`: when the
/// group epoch last moved before this heartbeat's own change.
int32_t consumer_group::heartbeat_interval_for(
  const consumer_member& m, int64_t now_ms,
  std::optional<int64_t> epoch_moved_ms) const {
  int64_t interval = config_.consumer_heartbeat_interval_ms;
  const int64_t soon = std::max<int64_t>(100, interval / 10);
  if (m.state == member_state::unreleased_partitions
      || m.state == member_state::unrevoked_partitions)
    interval = std::min(interval, soon);
  // While joins keep moving the group epoch, a member may have to give up
  // a partition to the next joiner: it comes back soon, and once a whole
  // window passes without a change the group is told its usual interval.
  if (epoch_moved_ms && now_ms - *epoch_moved_ms < soon)
    interval = std::min(interval, soon);
  if (assignment_timer_ != 0 && last_assignment_ms_) {
    auto run_at =
      *last_assignment_ms_ + config_.consumer_assignment_interval_ms;
    // At least 10 ms: a run overdue (its timer queued behind other work)
    // must not draw a storm of heartbeats.
    interval = std::min(interval, std::max<int64_t>(10, run_at - now_ms + 1));
  }
  return static_cast<int32_t>(interval);
}

consumer_group_heartbeat_response
consumer_group::leave(const consumer_group_heartbeat_request& req) {
  // Kafka's consumerGroupLeave.
  if (!image_.exists)
    return answer({error_code::group_id_not_found,
                   "Consumer group " + group_id_ + " not found."});
  consumer_group_heartbeat_response r;
  r.member_id = req.member_id;
  r.member_epoch = req.member_epoch;
  if (!req.instance_id) {
    if (!member(req.member_id))
      return answer({error_code::unknown_member_id,
                     "Member " + req.member_id + " is not a member of group "
                       + group_id_ + "."});
    fence_member(req.member_id, "member " + req.member_id + " left");
    return r;
  }
  auto s = static_members_.find(*req.instance_id);
  if (s == static_members_.end())
    return answer({error_code::unknown_member_id,
                   "Instance id " + *req.instance_id + " is unknown."});
  if (s->second != req.member_id)
    return answer({error_code::fenced_instance_id,
                   "Static member " + req.member_id + " with instance id "
                     + *req.instance_id + " was fenced by member " + s->second
                     + "."});
  if (req.member_epoch == leave_group_static_member_epoch) {
    // consumerGroupStaticMemberGroupLeave: the instance keeps its
    // partitions for its session timeout, marked with epoch -2.
    auto m = *member(req.member_id);
    m.member_epoch = leave_group_static_member_epoch;
    m.pending_revocation.clear();
    append(assignment_record_of(m));
    return r;
  }
  fence_member(req.member_id, "static member " + *req.instance_id + " left");
  return r;
}

// -- group changes -----------------------------------------------------------------

void consumer_group::remove_member(const std::string& member_id) {
  // Kafka's removeMember; the order matters for the replay.
  current_assignment_record current;
  current.member_id = member_id;
  current.tombstone = true;
  append(std::move(current));
  target_assignment_record target;
  target.member_id = member_id;
  target.tombstone = true;
  append(std::move(target));
  member_metadata_record metadata;
  metadata.member_id = member_id;
  metadata.tombstone = true;
  append(std::move(metadata));
}

void consumer_group::replace_member(const std::string& old_id,
                                    const consumer_member& m) {
  // Kafka's replaceMember: the new incarnation inherits the old one's
  // target assignment and current assignment.
  auto target = target_of(old_id);
  remove_member(old_id);
  timers_.erase(old_id);
  append(metadata_record_of(m));
  append(target_assignment_record{m.member_id, std::move(target), false});
  append(assignment_record_of(m));
}

void consumer_group::fence_member(const std::string& member_id,
                                  const std::string& reason) {
  // Kafka's consumerGroupFenceMember: the member goes, and the group epoch
  // moves on; the next heartbeat computes the new target.
  remove_member(member_id);
  auto metadata = compute_subscription_metadata();
  if (metadata != image_.subscription_metadata) {
    subscription_metadata_record r;
    for (auto& [name, t] : metadata)
      r.topics.push_back(t);
    append(std::move(r));
  }
  append(group_epoch_record{image_.group_epoch + 1, false});
  timers_.erase(member_id);
  update_state(reason);
}

std::map<std::string, topic_info>
consumer_group::compute_subscription_metadata() const {
  // Kafka's computeSubscriptionMetadata: the subscribed topics that exist.
  std::map<std::string, topic_info> result;
  for (const auto& [name, count] : subscribed_topics_) {
    if (count <= 0)
      continue;
    auto i = topics_by_name_.find(name);
    if (i != topics_by_name_.end())
      result.emplace(name, i->second);
  }
  return result;
}

void consumer_group::update_target_assignment(int32_t epoch) {
  // Kafka's TargetAssignmentBuilder.build: run the assignor over every
  // member and write the members whose target changed, then the epoch.
  // Members and targets are both in member id order: walk them together.
  static const partition_assignment none;
  assignor_spec spec;
  for (const auto& [name, t] : image_.subscription_metadata)
    spec.partition_counts[t.id] = t.partitions;
  spec.members.reserve(image_.members.size());
  auto target = image_.target_assignment.begin();
  const auto targets_end = image_.target_assignment.end();
  for (const auto& [id, m] : image_.members) {
    while (target != targets_end && target->first < id)
      ++target;
    assignor_member am;
    am.member_id = id;
    am.instance_id = m.instance_id;
    am.rack_id = m.rack_id;
    for (const auto& name : m.subscribed_topic_names) {
      auto t = image_.subscription_metadata.find(name);
      if (t != image_.subscription_metadata.end())
        am.subscribed_topic_ids.insert(t->second.id);
    }
    if (target != targets_end && target->first == id)
      am.target = target->second;
    spec.members.push_back(std::move(am));
  }
  auto name = assignor();
  auto assign = find_server_assignor(name);
  if (!assign)
    invariant_failed(group_id_, "assignor " + name + " is not known");
  auto result = assign(spec);
  std::vector<target_assignment_record> changed;
  target = image_.target_assignment.begin();
  for (auto& [id, partitions] : result) {
    while (target != targets_end && target->first < id)
      ++target;
    bool same = target != targets_end && target->first == id
                && target->second == partitions;
    if (!same)
      changed.push_back({id, std::move(partitions), false});
  }
  for (auto& r : changed)
    append(std::move(r));
  append(target_assignment_epoch_record{epoch, false});
}

void consumer_group::maybe_update_target_assignment(int64_t now_ms,
                                                    const std::string* joined) {
  if (image_.group_epoch <= image_.assignment_epoch)
    return;
  auto interval = config_.consumer_assignment_interval_ms;
  if (interval > 0 && last_assignment_ms_
      && now_ms - *last_assignment_ms_ < interval) {
    if (joined && assign_joiner(*joined))
      return;
    // One timer per interval: every change within it shares the next run.
    if (assignment_timer_ == 0) {
      assignment_timer_ = ++next_timer_;
      effects_.assignment_timer = consumer_group_timer{
        {}, assignment_timer_, *last_assignment_ms_ + interval - now_ms};
    }
    return;
  }
  update_target_assignment(image_.group_epoch);
  last_assignment_ms_ = now_ms;
}

namespace {

/// The most partitions an incremental join may write in target records
/// (the joiner's and its donors' whole targets). A 10,000-partition group
/// stays within it from its second member; a 100,000-partition one once
/// it has about 800 (docs/ARCHITECTURE.md §3, "KIP-848 incremental joins").
constexpr size_t incremental_join_budget = 16384;

} // namespace

bool consumer_group::assign_joiner(const std::string& member_id) {
  // Only this join since the last target, by the uniform assignor.
  if (image_.group_epoch != image_.assignment_epoch + 1
      || assignor() != "uniform" || image_.target_assignment.count(member_id))
    return false;
  const auto n = image_.members.size();
  // Homogeneous: every subscribed name is named by every member.
  if (subscribed_topics_.empty())
    return false;
  for (const auto& [name, count] : subscribed_topics_)
    if (static_cast<size_t>(count) != n)
      return false;
  std::map<uuid, int32_t> counts;
  size_t total = 0;
  for (const auto& [name, t] : image_.subscription_metadata) {
    counts[t.id] = t.partitions;
    total += static_cast<size_t>(std::max(t.partitions, 0));
  }
  auto& idx = target_counts_;
  if (!idx.valid || idx.partition_counts != counts) {
    // Build the index, and check that the target is one balanced
    // assignment of exactly these partitions to the other members.
    idx = {};
    std::set<std::pair<uuid, int32_t>> seen;
    auto target = image_.target_assignment.begin();
    const auto targets_end = image_.target_assignment.end();
    for (const auto& [id, m] : image_.members) {
      if (id == member_id)
        continue;
      while (target != targets_end && target->first < id)
        ++target;
      size_t c = 0;
      if (target != targets_end && target->first == id) {
        for (const auto& [t, ps] : target->second) {
          auto count = counts.find(t);
          for (auto p : ps)
            if (count == counts.end() || p < 0 || p >= count->second
                || !seen.emplace(t, p).second)
              return false;
          c += ps.size();
        }
      }
      idx.by_count[c].insert(id);
      idx.total += c;
    }
    if (idx.total != total)
      return false;
    idx.partition_counts = std::move(counts);
    idx.valid = true;
  }
  size_t indexed = 0;
  for (const auto& [c, ids] : idx.by_count)
    indexed += ids.size();
  if (indexed + 1 != n || idx.by_count.empty()
      || idx.by_count.rbegin()->first > idx.by_count.begin()->first + 1) {
    idx.valid = false;
    return false;
  }
  // UniformAssignor's quota: floor(total / n) for the joiner (the extra
  // partitions stay with those holding the most). Taking one at a time
  // from a member holding the most leaves everyone within one partition.
  const size_t quota = idx.total / n;
  // Each donor's record carries its whole new target: a join into a small
  // group of many partitions rewrites nearly all of them. Past the budget
  // the join waits for the interval's one run, which pays that once for
  // every join it covers.
  const size_t most = idx.by_count.rbegin()->first;
  if (quota + std::min(quota, n - 1) * most > incremental_join_budget)
    return false;
  std::map<std::string, partition_assignment> changed;
  auto& mine = changed[member_id];
  for (size_t k = 0; k < quota; ++k) {
    auto top = std::prev(idx.by_count.end());
    auto c = top->first;
    auto donor = std::move(top->second.extract(top->second.begin()).value());
    if (top->second.empty())
      idx.by_count.erase(top);
    auto d = changed.find(donor);
    if (d == changed.end())
      d = changed.emplace(donor, target_of(donor)).first;
    // The donor's last partition: its first ones stay, as the assignor
    // keeps a member's first partitions up to its quota.
    auto last = std::prev(d->second.end());
    auto topic = last->first;
    auto partition = *last->second.rbegin();
    remove_partition(d->second, topic, partition);
    add_partition(mine, topic, partition);
    idx.by_count[c - 1].insert(std::move(donor));
  }
  idx.by_count[quota].insert(member_id);
  assigning_joiner_ = true;
  for (auto& [id, partitions] : changed)
    append(target_assignment_record{id, std::move(partitions), false});
  append(target_assignment_epoch_record{image_.group_epoch, false});
  assigning_joiner_ = false;
  return true;
}

void consumer_group::on_assignment_timer(uint64_t timer, int64_t now_ms) {
  if (timer != assignment_timer_)
    return;
  assignment_timer_ = 0;
  if (state_ == consumer_group_state::dead)
    return;
  auto records = effects_.records.size();
  maybe_update_target_assignment(now_ms);
  if (effects_.records.size() != records)
    update_state("assignment interval elapsed");
}

namespace {

/// The part of `target` in topics the member subscribes to. Kafka 4.3
/// (KIP-1263): the target may lag behind a subscription change, and the
/// member lets go of a topic it left without waiting for the next run.
partition_assignment
subscribed_part(const partition_assignment& target, const consumer_member& m,
                const std::map<std::string, topic_info>& metadata) {
  std::set<uuid> subscribed;
  for (const auto& name : m.subscribed_topic_names)
    if (auto t = metadata.find(name); t != metadata.end())
      subscribed.insert(t->second.id);
  partition_assignment result;
  for (const auto& [t, ps] : target)
    if (subscribed.count(t))
      result.emplace(t, ps);
  return result;
}

} // namespace

bool consumer_group::maybe_reconcile(
  const std::string& member_id,
  const std::optional<partition_assignment>& owned) {
  const auto& m = *member(member_id);
  auto target =
    subscribed_part(target_of(member_id), m, image_.subscription_metadata);
  if (m.is_reconciled_to(image_.assignment_epoch)
      && subset_of(m.assigned, target))
    return true;
  auto next = reconcile(
    m, image_.assignment_epoch, target,
    [this](const uuid& t, int32_t p) { return current_partition_epoch(t, p); },
    owned);
  if (!next)
    return false;
  if (next->same_assignment(m))
    return true;
  append(assignment_record_of(*next));
  // Kafka's maybeReconcile: a member asked to revoke has its rebalance
  // timeout to do so; otherwise the timer is off.
  if (next->state == member_state::unrevoked_partitions)
    schedule_rebalance(member_id, next->member_epoch,
                       next->rebalance_timeout_ms);
  else
    cancel_rebalance(member_id);
  return true;
}

// -- records --------------------------------------------------------------------

void consumer_group::unindex(const consumer_member& m) {
  auto drop = [&](const partition_assignment& a) {
    for (const auto& [t, ps] : a) {
      auto& owners = partition_owners_[t];
      for (auto p : ps) {
        auto i = owners.find(p);
        // Kafka's removePartitionEpochs.
        if (i == owners.end() || i->second.member_id != m.member_id
            || i->second.epoch != m.member_epoch)
          invariant_failed(group_id_, "cannot release " + partition_name(t, p)
                                        + " for " + m.member_id
                                        + ": it is not owned at epoch "
                                        + std::to_string(m.member_epoch));
        owners.erase(i);
      }
      if (owners.empty())
        partition_owners_.erase(t);
    }
  };
  drop(m.assigned);
  drop(m.pending_revocation);
  if (m.state == member_state::stable) {
    auto i = stable_at_epoch_.find(m.member_epoch);
    if (i != stable_at_epoch_.end() && --i->second == 0)
      stable_at_epoch_.erase(i);
  }
  if (m.instance_id) {
    auto s = static_members_.find(*m.instance_id);
    if (s != static_members_.end() && s->second == m.member_id)
      static_members_.erase(s);
  }
  for (const auto& name : m.subscribed_topic_names)
    if (--subscribed_topics_[name] <= 0)
      subscribed_topics_.erase(name);
  if (m.server_assignor)
    if (--server_assignors_[*m.server_assignor] <= 0)
      server_assignors_.erase(*m.server_assignor);
}

void consumer_group::index(const consumer_member& m) {
  auto take = [&](const partition_assignment& a) {
    for (const auto& [t, ps] : a)
      for (auto p : ps) {
        // Kafka's addPartitionEpochs: a partition has one owner at a time.
        auto [i, added] = partition_owners_[t].emplace(
          p, partition_owner{m.member_id, m.member_epoch});
        if (!added)
          invariant_failed(group_id_, "cannot give " + partition_name(t, p)
                                        + " to " + m.member_id
                                        + ": it is still owned by "
                                        + i->second.member_id);
      }
  };
  take(m.assigned);
  take(m.pending_revocation);
  if (m.state == member_state::stable)
    ++stable_at_epoch_[m.member_epoch];
  if (m.instance_id)
    static_members_[*m.instance_id] = m.member_id;
  for (const auto& name : m.subscribed_topic_names)
    ++subscribed_topics_[name];
  if (m.server_assignor)
    ++server_assignors_[*m.server_assignor];
}

void consumer_group::rebuild_indexes() {
  partition_owners_.clear();
  stable_at_epoch_.clear();
  static_members_.clear();
  subscribed_topics_.clear();
  server_assignors_.clear();
  for (const auto& [id, m] : image_.members)
    index(m);
}

void consumer_group::append(consumer_group_record r) {
  // Member records change the indexes: take the member out, replay, put it
  // back in.
  const std::string* member_id = nullptr;
  if (auto x = std::get_if<member_metadata_record>(&r))
    member_id = &x->member_id;
  else if (auto y = std::get_if<current_assignment_record>(&r))
    member_id = &y->member_id;
  if (member_id) {
    auto id = *member_id;
    if (auto m = member(id))
      unindex(*m);
    image_.apply(r);
    if (auto m = member(id))
      index(*m);
  } else {
    if (!assigning_joiner_
        && (std::holds_alternative<target_assignment_record>(r)
            || std::holds_alternative<target_assignment_epoch_record>(r)))
      target_counts_.valid = false;
    image_.apply(r);
  }
  effects_.records.push_back(std::move(r));
}

int32_t consumer_group::current_partition_epoch(const uuid& topic,
                                                int32_t partition) const {
  auto t = partition_owners_.find(topic);
  if (t == partition_owners_.end())
    return -1;
  auto p = t->second.find(partition);
  return p == t->second.end() ? -1 : p->second.epoch;
}

// -- timers ---------------------------------------------------------------------

void consumer_group::schedule_session(const std::string& member_id,
                                      int64_t now_ms) {
  // Kafka reschedules the session timeout on every heartbeat; here the
  // deadline moves and one timer per member checks it when it fires.
  auto& t = timers_[member_id];
  t.session_deadline_ms = now_ms + config_.consumer_session_timeout_ms;
  if (t.session_timer != 0)
    return;
  t.session_timer = ++next_timer_;
  effects_.session_timers.push_back(
    {member_id, t.session_timer, config_.consumer_session_timeout_ms});
}

void consumer_group::schedule_rebalance(const std::string& member_id,
                                        int32_t epoch, int32_t timeout_ms) {
  auto& t = timers_[member_id];
  t.rebalance_timer = ++next_timer_;
  t.rebalance_epoch = epoch;
  effects_.rebalance_timers.push_back(
    {member_id, t.rebalance_timer, std::max<int64_t>(timeout_ms, 0)});
}

void consumer_group::cancel_rebalance(const std::string& member_id) {
  auto i = timers_.find(member_id);
  if (i != timers_.end())
    i->second.rebalance_timer = 0;
}

void consumer_group::on_session_timer(const std::string& member_id,
                                      uint64_t timer, int64_t now_ms) {
  auto i = timers_.find(member_id);
  if (state_ == consumer_group_state::dead || i == timers_.end()
      || i->second.session_timer != timer || !member(member_id))
    return;
  auto& t = i->second;
  if (now_ms < t.session_deadline_ms) {
    t.session_timer = ++next_timer_;
    effects_.session_timers.push_back(
      {member_id, t.session_timer, t.session_deadline_ms - now_ms});
    return;
  }
  fence_member(member_id, "the session of " + member_id + " expired");
}

void consumer_group::on_rebalance_timer(const std::string& member_id,
                                        uint64_t timer, int64_t) {
  auto i = timers_.find(member_id);
  if (state_ == consumer_group_state::dead || i == timers_.end()
      || i->second.rebalance_timer != timer)
    return;
  auto m = member(member_id);
  // Kafka's scheduleConsumerGroupRebalanceTimeout: only a member still in
  // the epoch it had to leave is fenced.
  if (!m || m->member_epoch != i->second.rebalance_epoch)
    return;
  fence_member(member_id, member_id
                            + " failed to revoke its partitions within its "
                              "rebalance timeout in epoch "
                            + std::to_string(m->member_epoch));
}

// -- OffsetCommit / OffsetFetch ----------------------------------------------------

offset_commit_response consumer_group::commit(const offset_commit_request& req,
                                              int64_t now_ms) {
  offset_commit_response result;
  auto all = [&](error_code e) {
    for (const auto& p : req.partitions)
      result.partitions.push_back({p.topic, p.partition, e});
    return result;
  };
  if (state_ == consumer_group_state::dead)
    return all(error_code::not_coordinator);
  // Kafka's ConsumerGroup.validateOffsetCommit: epoch -1 commits (admin
  // tools, consumers without group management) only while the group has
  // no members; otherwise the member must exist and send its current
  // member epoch.
  if (!(req.generation_id < 0 && image_.members.empty())) {
    auto m = member(req.member_id);
    if (!m)
      return all(error_code::unknown_member_id);
    if (req.generation_id != m->member_epoch)
      return all(error_code::stale_member_epoch);
  }
  for (const auto& p : req.partitions) {
    auto e = error_code::none;
    if (p.metadata.size()
        > static_cast<size_t>(config_.offset_metadata_max_bytes))
      e = error_code::offset_metadata_too_large;
    else if (p.topic.empty() || p.partition < 0)
      e = error_code::unknown_topic_or_partition;
    else
      append(offset_record{{p.topic, p.partition},
                           {p.offset, p.leader_epoch, p.metadata,
                            commit_timestamp_of(p, now_ms)},
                           false});
    result.partitions.push_back({p.topic, p.partition, e});
  }
  return result;
}

offset_fetch_response
consumer_group::fetch(const offset_fetch_request& req) const {
  if (state_ == consumer_group_state::dead) {
    offset_fetch_response r;
    r.error = error_code::not_coordinator;
    return r;
  }
  return fetch_offsets(image_.offsets, req);
}

// -- describe -------------------------------------------------------------------------

namespace {

consumer_group_assignment
wire_assignment(const partition_assignment& a,
                const std::map<uuid, topic_info>& topics_by_id,
                bool known_only) {
  consumer_group_assignment result;
  for (const auto& [t, ps] : a) {
    auto i = topics_by_id.find(t);
    // Kafka's describe leaves out topics its metadata no longer knows.
    if (known_only && i == topics_by_id.end())
      continue;
    result.topic_partitions.push_back(
      {t, i == topics_by_id.end() ? std::string{} : i->second.name,
       std::vector<int32_t>(ps.begin(), ps.end())});
  }
  return result;
}

} // namespace

consumer_group_assignment
consumer_group::to_wire(const partition_assignment& assignment) const {
  return wire_assignment(assignment, topics_by_id_, false);
}

consumer_group_described_group
describe_consumer_group(const std::string& group_id,
                        const consumer_group_image& image,
                        const std::map<uuid, topic_info>& topics_by_id,
                        const std::vector<std::string>& assignors, bool dead) {
  // Kafka's ConsumerGroup.asDescribedGroup.
  consumer_group_described_group d;
  d.group_id = group_id;
  if (!image.exists && !dead) {
    d.error = error_code::group_id_not_found;
    d.error_message = "Group " + group_id + " not found.";
    return d;
  }
  d.group_state =
    to_any(dead ? consumer_group_state::dead : derive_state(image));
  d.group_epoch = image.group_epoch;
  d.assignment_epoch = image.assignment_epoch;
  std::map<std::string, int> counts;
  for (const auto& [id, m] : image.members)
    if (m.server_assignor)
      ++counts[*m.server_assignor];
  d.assignor_name = preferred_assignor(counts, assignors);
  static const partition_assignment none;
  for (const auto& [id, m] : image.members) {
    consumer_group_described_member dm;
    dm.member_id = id;
    if (m.instance_id)
      dm.instance_id = *m.instance_id;
    if (m.rack_id)
      dm.rack_id = *m.rack_id;
    dm.member_epoch = m.member_epoch;
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    dm.subscribed_topic_names.assign(m.subscribed_topic_names.begin(),
                                     m.subscribed_topic_names.end());
    if (m.subscribed_topic_regex)
      dm.subscribed_topic_regex = *m.subscribed_topic_regex;
    dm.assignment = wire_assignment(m.assigned, topics_by_id, true);
    auto t = image.target_assignment.find(id);
    dm.target_assignment =
      wire_assignment(t == image.target_assignment.end() ? none : t->second,
                      topics_by_id, true);
    dm.previous_member_epoch = m.previous_member_epoch;
    dm.state = m.state;
    dm.partitions_pending_revocation =
      wire_assignment(m.pending_revocation, topics_by_id, true);
    d.members.push_back(std::move(dm));
  }
  return d;
}

consumer_group_described_group consumer_group::describe() const {
  return describe_consumer_group(group_id_, image_, topics_by_id_,
                                 config_.consumer_assignors,
                                 state_ == consumer_group_state::dead);
}

listed_group consumer_group::listing() const {
  return {group_id_, "consumer", to_any(state_)};
}

// -- cluster metadata ----------------------------------------------------------------

void consumer_group::update_topics(const std::vector<topic_info>& topics) {
  topics_by_name_.clear();
  topics_by_id_.clear();
  for (const auto& t : topics) {
    topics_by_name_[t.name] = t;
    topics_by_id_[t.id] = t;
  }
  if (compute_subscription_metadata() != image_.subscription_metadata)
    metadata_refresh_needed_ = true;
}

// -- offsets expiry -------------------------------------------------------------------

consumer_group_expiry consumer_group::expire_offsets(int64_t now_ms,
                                                     int64_t retention_ms) {
  consumer_group_expiry result;
  if (state_ == consumer_group_state::dead)
    return result;
  // ConsumerGroup.offsetExpirationCondition counts from the commit, for
  // the topics the group does not subscribe to (cleanupExpiredOffsets).
  bool all_expired = true;
  for (const auto& [tp, value] : image_.offsets) {
    if (!is_subscribed_to_topic(tp.topic)
        && now_ms - value.commit_timestamp_ms >= retention_ms)
      result.offsets.push_back(tp);
    else
      all_expired = false;
  }
  for (const auto& tp : result.offsets)
    append(offset_record{tp, {}, true});
  if (!all_expired || !image_.members.empty())
    return result;
  // GroupMetadataManager.maybeDeleteGroup of an Empty group.
  bury("offsets expired, group is empty");
  result.group_deleted = true;
  return result;
}

void consumer_group::bury(const char* reason) {
  // ConsumerGroup.createGroupTombstoneRecords of an Empty group, in its
  // order (the members' own records went with each member). Until they
  // are written the group is Dead; restore brings it back if they are not.
  std::vector<std::string> targets;
  for (const auto& [id, a] : image_.target_assignment)
    targets.push_back(id);
  for (const auto& id : targets)
    append(target_assignment_record{id, {}, true});
  append(target_assignment_epoch_record{0, true});
  append(subscription_metadata_record{{}, true});
  append(group_epoch_record{0, true});
  timers_.clear();
  effects_.transitions.push_back({state_, consumer_group_state::dead,
                                  image_.group_epoch, image_.assignment_epoch,
                                  reason});
  state_ = consumer_group_state::dead;
  expired_ = true;
}

// -- the coordinator's admin ----------------------------------------------------------

error_code consumer_group::delete_group() {
  // GroupCoordinatorShard.deleteGroups: validateDeleteGroup, then
  // OffsetMetadataManager.deleteAllOffsets and the group's tombstones.
  if (state_ == consumer_group_state::dead)
    return error_code::group_id_not_found;
  if (!image_.members.empty())
    return error_code::non_empty_group;
  std::vector<topic_partition> committed;
  for (const auto& [tp, value] : image_.offsets)
    committed.push_back(tp);
  for (const auto& tp : committed)
    append(offset_record{tp, {}, true});
  bury("group deleted");
  return error_code::none;
}

offset_delete_response
consumer_group::delete_offsets(const std::vector<topic_partition>& partitions) {
  // OffsetMetadataManager.deleteOffsets: a topic a member subscribes to
  // keeps its offsets; every other partition asked is answered NONE and
  // gets a tombstone if something is committed. The group stays, even
  // without offsets (expiry deletes it later).
  offset_delete_response result;
  if (state_ == consumer_group_state::dead) {
    result.error = error_code::group_id_not_found;
    return result;
  }
  for (const auto& tp : partitions) {
    if (is_subscribed_to_topic(tp.topic)) {
      result.partitions.push_back(
        {tp.topic, tp.partition, error_code::group_subscribed_to_topic});
      continue;
    }
    result.partitions.push_back({tp.topic, tp.partition, error_code::none});
    if (image_.offsets.count(tp))
      append(offset_record{tp, {}, true});
  }
  return result;
}

// -- loading and teardown -----------------------------------------------------------

void consumer_group::restore(consumer_group_image image, int64_t now_ms) {
  if (expired_) {
    // The expiry's tombstones were not written: the group is back.
    expired_ = false;
    state_ = consumer_group_state::empty;
  }
  image_ = std::move(image);
  rebuild_indexes();
  target_counts_ = {};
  timers_.clear();
  // The group's next change runs the assignor at once, as a new
  // coordinator's does.
  last_assignment_ms_.reset();
  assignment_timer_ = 0;
  for (const auto& [id, m] : image_.members) {
    schedule_session(id, now_ms);
    if (m.state == member_state::unrevoked_partitions)
      schedule_rebalance(id, m.member_epoch, m.rebalance_timeout_ms);
  }
  metadata_refresh_needed_ = true;
  update_state("loaded from __consumer_offsets");
}

void consumer_group::shutdown() {
  if (state_ == consumer_group_state::dead)
    return;
  timers_.clear();
  effects_.transitions.push_back({state_, consumer_group_state::dead,
                                  image_.group_epoch, image_.assignment_epoch,
                                  "coordinator gave up the group"});
  state_ = consumer_group_state::dead;
}

// -- helpers ----------------------------------------------------------------------------

void consumer_group::update_state(const std::string& reason) {
  if (state_ == consumer_group_state::dead)
    return;
  // derive_state without its walk over the members: the members stable
  // at the assignment epoch are counted as the records come.
  auto next = consumer_group_state::stable;
  if (image_.members.empty()) {
    next = consumer_group_state::empty;
  } else if (image_.group_epoch > image_.assignment_epoch) {
    next = consumer_group_state::assigning;
  } else {
    auto i = stable_at_epoch_.find(image_.assignment_epoch);
    if (i == stable_at_epoch_.end() || i->second != image_.members.size())
      next = consumer_group_state::reconciling;
  }
  if (next == state_)
    return;
  effects_.transitions.push_back(
    {state_, next, image_.group_epoch, image_.assignment_epoch, reason});
  state_ = next;
}

std::string consumer_group::generate_member_id() {
  // Kafka: Uuid.randomUuid().toString(); unique within the group.
  for (;;) {
    auto id = to_string(random_uuid(rng_));
    if (!member(id))
      return id;
  }
}

std::optional<partition_assignment> consumer_group::resolve(
  const nullable<std::vector<consumer_group_topic_partitions>>& xs) const {
  if (!xs)
    return std::nullopt;
  partition_assignment result;
  for (const auto& x : *xs) {
    auto id = x.topic_id;
    // troupe's own clients may name a topic without its id.
    if (id.is_zero() && !x.topic_name.empty()) {
      auto i = topics_by_name_.find(x.topic_name);
      if (i != topics_by_name_.end())
        id = i->second.id;
    }
    for (auto p : x.partitions)
      add_partition(result, id, p);
  }
  return result;
}

} // namespace troupe
