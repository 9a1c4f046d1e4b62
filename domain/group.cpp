#include "domain/group.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "domain/consumer_protocol.hpp"
#include "domain/offsets/committed_offsets.hpp"

namespace troupe {

namespace {

const char* no_member = "";

/// Invariant check in Redpanda's style: a broken invariant is a bug in this
/// class, never a consequence of input, so it stops the process loudly.
[[noreturn]] void invariant_failed(const std::string& group_id,
                                   const std::string& what) {
  std::fprintf(stderr, "troupe: group %s: %s\n", group_id.c_str(),
               what.c_str());
  std::abort();
}

bool valid_previous_state(group_state from, group_state to) {
  // Kafka's GroupState.validPreviousStates.
  switch (to) {
    case group_state::dead:
      return true;
    case group_state::completing_rebalance:
      return from == group_state::preparing_rebalance;
    case group_state::stable:
      return from == group_state::completing_rebalance;
    case group_state::preparing_rebalance:
      return from == group_state::stable
             || from == group_state::completing_rebalance
             || from == group_state::empty;
    case group_state::empty:
      return from == group_state::preparing_rebalance;
  }
  return false;
}

join_group_response join_error(const std::string& member_id, error_code e) {
  join_group_response r;
  r.error = e;
  r.member_id = member_id;
  return r;
}

sync_group_response sync_error(error_code e) {
  sync_group_response r;
  r.error = e;
  return r;
}

} // namespace

std::string_view state_name(group_state state) noexcept {
  switch (state) {
    case group_state::empty:
      return "Empty";
    case group_state::preparing_rebalance:
      return "PreparingRebalance";
    case group_state::completing_rebalance:
      return "CompletingRebalance";
    case group_state::stable:
      return "Stable";
    case group_state::dead:
      return "Dead";
  }
  return "Unknown";
}

const bytes*
group_member::metadata_for(std::string_view protocol) const noexcept {
  for (const auto& p : protocols)
    if (p.name == protocol)
      return &p.metadata;
  return nullptr;
}

// -- constructors ---------------------------------------------------------------

group::group(std::string group_id, group_config config,
             std::unique_ptr<offset_store> offsets, uint64_t seed)
  : group_id_(std::move(group_id)),
    config_(config),
    offsets_(offsets ? std::move(offsets)
                     : std::make_unique<memory_offset_store>()),
    rng_(seed) {
  // nop
}

// -- observers ------------------------------------------------------------------

const group_member* group::member(const std::string& member_id) const {
  auto i = members_.find(member_id);
  return i == members_.end() ? nullptr : &i->second;
}

group_member* group::find_member(const std::string& member_id) {
  auto i = members_.find(member_id);
  return i == members_.end() ? nullptr : &i->second;
}

std::vector<const group_member*> group::members_in_join_order() const {
  std::vector<const group_member*> result;
  result.reserve(members_.size());
  for (const auto& [seq, m] : join_order_)
    result.push_back(m);
  return result;
}

int32_t group::rebalance_timeout_ms() const {
  int32_t result = 0;
  for (const auto& [id, m] : members_)
    result = std::max(result, m.rebalance_timeout_ms);
  return result;
}

// -- JoinGroup ------------------------------------------------------------------

error_code group::validate_ids(const std::string& member_id,
                               const std::string& instance_id) const {
  auto limit = static_cast<size_t>(config_.max_id_length);
  if (member_id.size() > limit || instance_id.size() > limit)
    return error_code::invalid_request;
  return error_code::none;
}

maybe_parked<join_group_response> group::join(const join_group_request& req,
                                              int64_t now_ms) {
  auto reject = [&](error_code e) {
    return maybe_parked<join_group_response>{join_error(req.member_id, e), {}};
  };
  // Kafka's handleJoinGroup checks, in Kafka's order.
  if (req.group_id != group_id_ || req.group_id.empty()
      || req.group_id.size() > static_cast<size_t>(config_.max_id_length))
    return reject(error_code::invalid_group_id);
  if (state_ == group_state::dead)
    return reject(error_code::coordinator_not_available);
  if (req.session_timeout_ms < config_.min_session_timeout_ms
      || req.session_timeout_ms > config_.max_session_timeout_ms)
    return reject(error_code::invalid_session_timeout);
  // -1 means "not given" (JoinGroup v0): the session timeout is used.
  if (req.rebalance_timeout_ms < -1)
    return reject(error_code::invalid_request);
  if (auto e = validate_ids(req.member_id, req.group_instance_id);
      e != error_code::none)
    return reject(e);
  if (!accept_joining_member(req.member_id, req.group_instance_id)) {
    // Kafka removes a known member that no longer fits.
    if (has_member(req.member_id))
      remove_member_and_update_group(req.member_id, "group.max.size reached",
                                     now_ms);
    return {join_error(no_member, error_code::group_max_size_reached), {}};
  }
  auto result = req.member_id.empty() ? join_new_member(req, now_ms)
                                      : join_current_member(req, now_ms);
  // Kafka: attempt to complete the JoinGroup barrier after every join.
  if (state_ == group_state::preparing_rebalance)
    try_complete_join(now_ms);
  return result;
}

maybe_parked<join_group_response>
group::join_new_member(const join_group_request& req, int64_t now_ms) {
  if (!supports_protocols(req.protocol_type, req.protocols))
    return {join_error(no_member, error_code::inconsistent_group_protocol), {}};
  auto prefix =
    req.group_instance_id.empty() ? req.client_id : req.group_instance_id;
  auto new_member_id = generate_member_id(prefix);
  // A UUID never repeats in practice; a group loaded from another
  // coordinator must not hand out an id it already holds even then.
  while (has_member(new_member_id) || is_pending_member(new_member_id))
    new_member_id = generate_member_id(prefix);
  if (!req.group_instance_id.empty()) {
    // KIP-345: a static member is known by its instance id; it never needs
    // MEMBER_ID_REQUIRED.
    if (static_members_.count(req.group_instance_id))
      return update_static_member_and_rebalance(new_member_id, req, now_ms);
    return add_member_and_rebalance(new_member_id, req, now_ms);
  }
  if (req.require_known_member_id) {
    // KIP-394: hand out the id and let the member come back with it.
    pending_members_.emplace(new_member_id,
                             std::make_pair(now_ms, req.session_timeout_ms));
    start_session(new_member_id, req.session_timeout_ms);
    return {join_error(new_member_id, error_code::member_id_required), {}};
  }
  return add_member_and_rebalance(new_member_id, req, now_ms);
}

maybe_parked<join_group_response>
group::join_current_member(const join_group_request& req, int64_t now_ms) {
  auto reject = [&](error_code e) {
    return maybe_parked<join_group_response>{join_error(req.member_id, e), {}};
  };
  if (!supports_protocols(req.protocol_type, req.protocols))
    return reject(error_code::inconsistent_group_protocol);
  if (is_pending_member(req.member_id)) {
    // A pending id belongs to a dynamic member; a static join with it is
    // malformed.
    if (!req.group_instance_id.empty())
      return reject(error_code::unknown_member_id);
    return add_member_and_rebalance(req.member_id, req, now_ms);
  }
  if (is_static_member_fenced(req.member_id, req.group_instance_id))
    return reject(error_code::fenced_instance_id);
  auto m = find_member(req.member_id);
  if (!m
      || (!req.group_instance_id.empty()
          && !static_members_.count(req.group_instance_id)))
    return reject(error_code::unknown_member_id);
  switch (state_) {
    case group_state::preparing_rebalance:
      return update_member_and_rebalance(*m, req, "member rejoining", now_ms);
    case group_state::completing_rebalance: {
      // A retry during CompletingRebalance with unchanged metadata gets the
      // same answer again; changed metadata starts a new rebalance.
      if (m->protocols == req.protocols)
        return {current_join_answer(*m), {}};
      return update_member_and_rebalance(*m, req, "member changed metadata",
                                         now_ms);
    }
    case group_state::stable:
      if (m->member_id == leader_ || m->protocols != req.protocols)
        return update_member_and_rebalance(*m, req,
                                           m->member_id == leader_
                                             ? "leader rejoining"
                                             : "member changed metadata",
                                           now_ms);
      return {current_join_answer(*m), {}};
    case group_state::empty:
    case group_state::dead:
      break;
  }
  return reject(error_code::unknown_member_id);
}

join_group_response group::current_join_answer(const group_member& m) const {
  join_group_response r;
  r.generation_id = generation_;
  r.protocol_type = protocol_type_;
  r.protocol_name = protocol_name_;
  r.leader = leader_;
  r.member_id = m.member_id;
  if (m.member_id == leader_) {
    for (auto* other : members_in_join_order()) {
      auto md = other->metadata_for(protocol_name_);
      r.members.push_back(
        {other->member_id, other->group_instance_id, md ? *md : bytes{}});
    }
  }
  return r;
}

maybe_parked<join_group_response>
group::add_member_and_rebalance(const std::string& member_id,
                                const join_group_request& req, int64_t now_ms) {
  group_member m;
  m.member_id = member_id;
  m.group_instance_id = req.group_instance_id;
  m.client_id = req.client_id;
  m.client_host = req.client_host;
  m.protocol_type = req.protocol_type;
  m.protocols = req.protocols;
  m.session_timeout_ms = req.session_timeout_ms;
  m.rebalance_timeout_ms = req.rebalance_timeout_ms < 0
                             ? req.session_timeout_ms
                             : req.rebalance_timeout_ms;
  m.last_heartbeat_ms = now_ms;
  m.is_new = true;
  // Kafka: only a group at generation 0 lets new members extend the initial
  // rebalance delay.
  if (state_ == group_state::preparing_rebalance && generation_ == 0)
    new_member_added_ = true;
  bool was_pending = pending_members_.erase(member_id) > 0;
  auto& added = add_member(std::move(m));
  set_awaiting_join(added, true);
  if (added.is_static())
    static_members_[added.group_instance_id] = member_id;
  if (!was_pending)
    start_session(member_id, config_.new_member_join_timeout_ms);
  maybe_prepare_rebalance("adding new member " + member_id, now_ms);
  return {std::nullopt, member_id};
}

maybe_parked<join_group_response>
group::update_member_and_rebalance(group_member& m,
                                   const join_group_request& req,
                                   const char* reason, int64_t now_ms) {
  update_member_protocols(m, req.protocols);
  m.rebalance_timeout_ms = req.rebalance_timeout_ms < 0
                             ? req.session_timeout_ms
                             : req.rebalance_timeout_ms;
  if (req.session_timeout_ms < m.session_timeout_ms)
    start_session(m.member_id, req.session_timeout_ms); // check sooner
  m.session_timeout_ms = req.session_timeout_ms;
  set_awaiting_join(m, true);
  maybe_prepare_rebalance(std::string{reason} + " " + m.member_id, now_ms);
  return {std::nullopt, m.member_id};
}

maybe_parked<join_group_response>
group::update_static_member_and_rebalance(const std::string& new_member_id,
                                          const join_group_request& req,
                                          int64_t now_ms) {
  // Kafka's replaceStaticMember: the instance keeps its place and its
  // assignment under a new member id; the old id is fenced.
  auto old_id = static_members_.at(req.group_instance_id);
  auto old_leader = leader_;
  auto node = members_.extract(old_id);
  auto& old = node.mapped();
  if (old.awaiting_join) {
    effects_.join_answers.emplace_back(
      old_id, join_error(old_id, error_code::fenced_instance_id));
  }
  if (old.awaiting_sync) {
    old.awaiting_sync = false;
    effects_.sync_answers.emplace_back(
      old_id, sync_error(error_code::fenced_instance_id));
  }
  node.key() = new_member_id;
  node.mapped().member_id = new_member_id;
  // The node keeps its element: join_order_ still points at it.
  auto& m = members_.insert(std::move(node)).position->second;
  if (leader_ == old_id)
    leader_ = new_member_id;
  static_members_[req.group_instance_id] = new_member_id;
  stop_session(old_id);
  start_session(new_member_id, req.session_timeout_ms);
  m.last_heartbeat_ms = now_ms;
  m.client_id = req.client_id;
  m.client_host = req.client_host;
  m.session_timeout_ms = req.session_timeout_ms;
  m.rebalance_timeout_ms = req.rebalance_timeout_ms < 0
                             ? req.session_timeout_ms
                             : req.rebalance_timeout_ms;
  update_member_protocols(m, req.protocols);
  // The replaced member's parked join (if any) was answered above; the new
  // id now waits in its place.
  if (!m.awaiting_join)
    set_awaiting_join(m, true);
  switch (state_) {
    case group_state::stable: {
      // Kafka: no rebalance when the protocol the group would choose stays
      // the same; the member gets the current generation and keeps its
      // assignment. The old leader id is returned so that the rejoined
      // member does not run a trivial assignment.
      if (select_protocol() == protocol_name_) {
        set_awaiting_join(m, false);
        join_group_response r;
        r.generation_id = generation_;
        r.protocol_type = protocol_type_;
        r.protocol_name = protocol_name_;
        r.leader = old_leader;
        r.member_id = new_member_id;
        return {std::move(r), {}};
      }
      maybe_prepare_rebalance(
        "static member " + req.group_instance_id + " changed protocol", now_ms);
      break;
    }
    case group_state::completing_rebalance:
      // The leader may already have assigned to the old id.
      prepare_rebalance("static member " + req.group_instance_id
                          + " replaced during CompletingRebalance",
                        now_ms);
      break;
    case group_state::preparing_rebalance:
      break;
    case group_state::empty:
    case group_state::dead:
      invariant_failed(group_id_, "static member replaced in state "
                                    + std::string{state_name(state_)});
  }
  return {std::nullopt, new_member_id};
}

// -- rebalance barrier -----------------------------------------------------------

bool group::can_rebalance() const noexcept {
  return valid_previous_state(state_, group_state::preparing_rebalance);
}

void group::maybe_prepare_rebalance(const std::string& reason, int64_t now_ms) {
  if (can_rebalance())
    prepare_rebalance(reason, now_ms);
}

void group::prepare_rebalance(const std::string& reason, int64_t now_ms) {
  // Kafka: members waiting for their SyncGroup answer must rejoin.
  if (state_ == group_state::completing_rebalance)
    reset_and_propagate_assignment_error(error_code::rebalance_in_progress);
  cancel_sync_timer();
  if (state_ == group_state::empty) {
    // InitialDelayedJoin(delay, remaining = max(rebalanceTimeout - delay, 0))
    initial_delay_ms_ = config_.initial_rebalance_delay_ms;
    initial_remaining_ms_ = std::max<int64_t>(
      rebalance_timeout_ms() - config_.initial_rebalance_delay_ms, 0);
    transition_to(group_state::preparing_rebalance, reason, now_ms);
    arm_join_timer(initial_delay_ms_, true);
  } else {
    transition_to(group_state::preparing_rebalance, reason, now_ms);
    arm_join_timer(rebalance_timeout_ms(), false);
  }
}

void group::arm_join_timer(int64_t delay_ms, bool initial) {
  join_timer_initial_ = initial;
  effects_.join_timer = timer_request{++join_epoch_, delay_ms};
}

void group::arm_sync_timer(int64_t delay_ms) {
  effects_.sync_timer = timer_request{++sync_epoch_, delay_ms};
}

bool group::all_members_joined() const noexcept {
  return members_.size() == num_awaiting_join_ && pending_members_.empty();
}

void group::try_complete_join(int64_t now_ms) {
  // The initial delay never completes early (InitialDelayedJoin.tryComplete
  // is false); the rebalance timeout completes as soon as all have joined.
  if (state_ == group_state::preparing_rebalance && !join_timer_initial_
      && all_members_joined())
    complete_join(now_ms);
}

void group::on_join_timer(uint64_t epoch, int64_t now_ms) {
  if (epoch != join_epoch_ || state_ != group_state::preparing_rebalance)
    return;
  if (join_timer_initial_ && new_member_added_ && initial_remaining_ms_ != 0) {
    // Kafka's InitialDelayedJoin.onComplete: re-arm with min(delay,
    // remaining) while new members keep arriving, bounded in total by the
    // rebalance timeout.
    new_member_added_ = false;
    auto delay = std::min<int64_t>(config_.initial_rebalance_delay_ms,
                                   initial_remaining_ms_);
    initial_remaining_ms_ =
      std::max<int64_t>(initial_remaining_ms_ - initial_delay_ms_, 0);
    initial_delay_ms_ = delay;
    arm_join_timer(delay, true);
    return;
  }
  complete_join(now_ms);
}

void group::complete_join(int64_t now_ms) {
  // Kafka's onCompleteJoin. Dynamic members that did not rejoin are gone;
  // static ones stay (they may come back with their instance id).
  std::vector<std::string> not_rejoined;
  for (const auto& [seq, m] : join_order_)
    if (!m->awaiting_join && !m->is_static())
      not_rejoined.push_back(m->member_id);
  for (const auto& id : not_rejoined) {
    stop_session(id);
    remove_member(id);
  }
  if (state_ == group_state::dead)
    return;
  if (!maybe_elect_new_joined_leader() && !members_.empty()) {
    // Nobody rejoined: wait another rebalance timeout for sessions to
    // expire the silent members.
    arm_join_timer(rebalance_timeout_ms(), false);
    return;
  }
  init_next_generation(now_ms);
  if (state_ == group_state::empty)
    return;
  for (const auto& [seq, mp] : join_order_) {
    auto& m = *mp;
    if (m.awaiting_join)
      answer_join(m, current_join_answer(m));
    m.last_heartbeat_ms = now_ms;
    if (m.is_new) {
      // From now on the session timeout applies, not the new-member one.
      m.is_new = false;
      start_session(m.member_id, m.session_timeout_ms);
    }
    set_pending_sync(m, true);
  }
  arm_sync_timer(rebalance_timeout_ms());
}

bool group::maybe_elect_new_joined_leader() {
  if (leader_.empty())
    return false;
  if (members_.at(leader_).awaiting_join)
    return true;
  for (const auto& [seq, m] : join_order_) {
    if (m->awaiting_join) {
      leader_ = m->member_id;
      return true;
    }
  }
  return false;
}

void group::init_next_generation(int64_t now_ms) {
  ++generation_;
  num_pending_sync_ = 0; // the marks of the last generation are stale now
  if (!members_.empty()) {
    protocol_name_ = select_protocol();
    subscribed_topics_ = compute_subscribed_topics();
    transition_to(group_state::completing_rebalance,
                  "all members joined or rebalance timeout", now_ms);
  } else {
    protocol_name_.clear();
    subscribed_topics_ = compute_subscribed_topics();
    transition_to(group_state::empty, "no members left", now_ms);
  }
}

std::string group::select_protocol() const {
  // Kafka's selectProtocol: candidates are the protocols every member
  // supports; each member votes for its first candidate; most votes wins.
  // Kafka breaks ties by hash order; troupe by the leader's preference, so
  // the choice is deterministic.
  auto is_candidate = [this](const std::string& name) {
    auto i = supported_protocols_.find(name);
    return i != supported_protocols_.end() && i->second == members_.size();
  };
  std::unordered_map<std::string, size_t> votes;
  for (const auto& [id, m] : members_) {
    for (const auto& p : m.protocols) {
      if (is_candidate(p.name)) {
        ++votes[p.name];
        break;
      }
    }
  }
  const auto& ranking = members_.at(leader_).protocols;
  std::string best;
  size_t best_votes = 0;
  for (const auto& p : ranking) {
    auto i = votes.find(p.name);
    if (i != votes.end() && i->second > best_votes) {
      best = p.name;
      best_votes = i->second;
    }
  }
  return best;
}

// -- SyncGroup ------------------------------------------------------------------

maybe_parked<sync_group_response> group::sync(const sync_group_request& req,
                                              int64_t now_ms) {
  auto reject = [](error_code e) {
    return maybe_parked<sync_group_response>{sync_error(e), {}};
  };
  if (req.group_id != group_id_)
    return reject(error_code::invalid_group_id);
  if (state_ == group_state::dead)
    return reject(error_code::coordinator_not_available);
  if (is_static_member_fenced(req.member_id, req.group_instance_id))
    return reject(error_code::fenced_instance_id);
  auto m = find_member(req.member_id);
  if (!m)
    return reject(error_code::unknown_member_id);
  if (req.generation_id != generation_)
    return reject(error_code::illegal_generation);
  if ((!req.protocol_type.empty() && req.protocol_type != protocol_type_)
      || (!req.protocol_name.empty() && req.protocol_name != protocol_name_))
    return reject(error_code::inconsistent_group_protocol);
  switch (state_) {
    case group_state::empty:
      return reject(error_code::unknown_member_id);
    case group_state::preparing_rebalance:
      return reject(error_code::rebalance_in_progress);
    case group_state::completing_rebalance: {
      m->awaiting_sync = true;
      set_pending_sync(*m, false);
      if (m->member_id == leader_) {
        if (config_.store_before_sync) {
          // Kafka's doSyncGroup: the group and its assignment are stored
          // first; the members get it (and the group becomes Stable) once
          // that write is acknowledged (on_group_stored).
          if (storing_generation_ != generation_) {
            set_assignment(req.assignments);
            storing_generation_ = generation_;
            effects_.store_group = generation_;
          }
        } else {
          set_assignment(req.assignments);
          propagate_assignment(error_code::none, now_ms);
          transition_to(group_state::stable, "leader sent the assignment",
                        now_ms);
        }
      }
      return {std::nullopt, req.member_id};
    }
    case group_state::stable: {
      set_pending_sync(*m, false);
      m->last_heartbeat_ms = now_ms;
      sync_group_response r;
      r.protocol_type = protocol_type_;
      r.protocol_name = protocol_name_;
      r.assignment = m->assignment;
      return {std::move(r), {}};
    }
    case group_state::dead:
      break;
  }
  return reject(error_code::coordinator_not_available);
}

void group::set_assignment(const std::vector<sync_group_assignment>& given) {
  // The leader's assignment is relayed as given; members it left out get
  // an empty assignment, entries for non-members are dropped, and of two
  // entries for one member the last counts.
  for (auto& [id, m] : members_)
    m.assignment.clear();
  for (const auto& a : given)
    if (auto m = find_member(a.member_id))
      m->assignment = a.assignment;
}

void group::set_pending_sync(group_member& m, bool pending) {
  if (pending_sync(m) == pending)
    return;
  m.pending_sync_generation = pending ? generation_ : -1;
  if (pending)
    ++num_pending_sync_;
  else
    --num_pending_sync_;
}

void group::on_group_stored(int32_t generation, error_code error,
                            int64_t now_ms) {
  if (!storing_generation_ || *storing_generation_ != generation)
    return;
  storing_generation_.reset();
  if (state_ != group_state::completing_rebalance || generation != generation_)
    return; // the group moved on meanwhile
  if (error == error_code::none) {
    propagate_assignment(error_code::none, now_ms);
    transition_to(group_state::stable, "leader sent the assignment", now_ms);
    return;
  }
  reset_and_propagate_assignment_error(error);
  maybe_prepare_rebalance("error when storing group assignment during "
                          "SyncGroup",
                          now_ms);
}

void group::reset_and_propagate_assignment_error(error_code error) {
  for (auto& [id, m] : members_)
    m.assignment.clear();
  propagate_assignment(error, -1);
}

void group::propagate_assignment(error_code error, int64_t now_ms) {
  for (const auto& [seq, mp] : join_order_) {
    auto& m = *mp;
    if (!m.awaiting_sync)
      continue;
    sync_group_response r;
    r.error = error;
    r.protocol_type = protocol_type_;
    r.protocol_name = protocol_name_;
    r.assignment = m.assignment;
    answer_sync(m, std::move(r));
    if (now_ms >= 0)
      m.last_heartbeat_ms = now_ms;
  }
}

void group::on_sync_timer(uint64_t epoch, int64_t now_ms) {
  if (epoch != sync_epoch_)
    return;
  if (state_ != group_state::completing_rebalance
      && state_ != group_state::stable)
    return;
  if (num_pending_sync_ == 0)
    return;
  // Kafka's onExpirePendingSync: members that never sent SyncGroup are
  // removed, and the rest rebalance without them.
  std::vector<std::string> expired;
  for (const auto& [id, m] : members_)
    if (pending_sync(m))
      expired.push_back(id);
  std::sort(expired.begin(), expired.end());
  std::string names;
  for (const auto& id : expired) {
    names += names.empty() ? id : ", " + id;
    stop_session(id);
    remove_member(id); // each one no longer pending
  }
  maybe_prepare_rebalance(
    "removing " + names + " on pending sync request expiration", now_ms);
  try_complete_join(now_ms);
}

// -- Heartbeat ------------------------------------------------------------------

heartbeat_response group::heartbeat(const heartbeat_request& req,
                                    int64_t now_ms) {
  auto answer = [](error_code e) { return heartbeat_response{e}; };
  if (req.group_id != group_id_)
    return answer(error_code::invalid_group_id);
  if (state_ == group_state::dead)
    return answer(error_code::coordinator_not_available);
  if (is_static_member_fenced(req.member_id, req.group_instance_id))
    return answer(error_code::fenced_instance_id);
  auto m = find_member(req.member_id);
  if (!m)
    return answer(error_code::unknown_member_id);
  if (req.generation_id != generation_)
    return answer(error_code::illegal_generation);
  switch (state_) {
    case group_state::empty:
      return answer(error_code::unknown_member_id);
    case group_state::completing_rebalance:
    case group_state::stable:
      m->last_heartbeat_ms = now_ms;
      return answer(error_code::none);
    case group_state::preparing_rebalance:
      m->last_heartbeat_ms = now_ms;
      return answer(error_code::rebalance_in_progress);
    case group_state::dead:
      break;
  }
  return answer(error_code::coordinator_not_available);
}

// -- member sessions -------------------------------------------------------------

std::optional<int64_t> group::check_session(const std::string& member_id,
                                            int64_t now_ms) {
  if (auto i = pending_members_.find(member_id); i != pending_members_.end()) {
    // KIP-394: a pending member that does not come back within its session
    // timeout is forgotten.
    auto deadline = i->second.first + i->second.second;
    if (now_ms < deadline)
      return deadline - now_ms;
    pending_members_.erase(i);
    try_complete_join(now_ms);
    return std::nullopt;
  }
  auto m = find_member(member_id);
  if (!m)
    return std::nullopt;
  int64_t timeout =
    m->is_new ? config_.new_member_join_timeout_ms : m->session_timeout_ms;
  auto deadline = m->last_heartbeat_ms + timeout;
  if (now_ms < deadline)
    return deadline - now_ms;
  // Kafka's hasSatisfiedHeartbeat: members waiting in a barrier count as
  // alive; the barrier resets their session when it completes.
  if (!m->is_new && (m->awaiting_join || m->awaiting_sync))
    return timeout;
  remove_member_and_update_group(member_id, "session timeout of " + member_id,
                                 now_ms);
  return std::nullopt;
}

// -- LeaveGroup -----------------------------------------------------------------

leave_group_response group::leave(const leave_group_request& req,
                                  int64_t now_ms) {
  leave_group_response result;
  if (req.group_id != group_id_) {
    result.error = error_code::invalid_group_id;
    return result;
  }
  if (state_ == group_state::dead) {
    result.error = error_code::coordinator_not_available;
    return result;
  }
  for (const auto& who : req.members) {
    member_leave_result r{who.member_id, who.group_instance_id,
                          error_code::none};
    if (who.member_id.empty()) {
      // KIP-345: administrative removal by instance id.
      auto i = static_members_.find(who.group_instance_id);
      if (who.group_instance_id.empty() || i == static_members_.end())
        r.error = error_code::unknown_member_id;
      else
        remove_member_and_update_group(
          i->second, "static member " + who.group_instance_id + " removed",
          now_ms);
    } else if (is_pending_member(who.member_id)) {
      pending_members_.erase(who.member_id);
      stop_session(who.member_id);
      try_complete_join(now_ms);
    } else if (is_static_member_fenced(who.member_id, who.group_instance_id)) {
      r.error = error_code::fenced_instance_id;
    } else if (has_member(who.member_id)) {
      remove_member_and_update_group(
        who.member_id, "member " + who.member_id + " left", now_ms);
    } else {
      r.error = error_code::unknown_member_id;
    }
    result.members.push_back(std::move(r));
  }
  // LeaveGroup v0-v2 carry one member and report its error at the top.
  if (result.members.size() == 1)
    result.error = result.members.front().error;
  return result;
}

// -- offsets ----------------------------------------------------------------------

offset_commit_response group::commit(const offset_commit_request& req,
                                     int64_t now_ms) {
  offset_commit_response result;
  auto all = [&](error_code e) {
    for (const auto& p : req.partitions)
      result.partitions.push_back({p.topic, p.partition, e});
    return result;
  };
  // Kafka's validateOffsetCommit.
  if (state_ == group_state::dead)
    return all(error_code::coordinator_not_available);
  if (req.generation_id < 0 && state_ == group_state::empty) {
    // The admin client or a consumer without group management: an Empty
    // group takes its commit, whatever member id it names.
  } else if (req.generation_id >= 0 || !req.member_id.empty()
      || !req.group_instance_id.empty()) {
    if (is_static_member_fenced(req.member_id, req.group_instance_id))
      return all(error_code::fenced_instance_id);
    if (!has_member(req.member_id))
      return all(error_code::unknown_member_id);
    if (req.generation_id != generation_)
      return all(error_code::illegal_generation);
  } else if (state_ != group_state::empty) {
    // A non-empty group takes commits from its members only.
    return all(error_code::unknown_member_id);
  }
  switch (state_) {
    case group_state::completing_rebalance:
      // The member has the new generation but no assignment yet.
      return all(error_code::rebalance_in_progress);
    case group_state::stable:
    case group_state::preparing_rebalance:
      // Commits still count as liveness; the rebalance is signalled through
      // the heartbeat.
      find_member(req.member_id)->last_heartbeat_ms = now_ms;
      break;
    case group_state::empty:
    case group_state::dead:
      break;
  }
  for (const auto& p : req.partitions) {
    auto e = error_code::none;
    if (p.metadata.size()
        > static_cast<size_t>(config_.offset_metadata_max_bytes))
      e = error_code::offset_metadata_too_large;
    else if (p.topic.empty() || p.partition < 0)
      e = error_code::unknown_topic_or_partition;
    else
      offsets_->put({p.topic, p.partition},
                    {p.offset, p.leader_epoch, p.metadata,
                     commit_timestamp_of(p, now_ms)});
    result.partitions.push_back({p.topic, p.partition, e});
  }
  return result;
}

offset_fetch_response group::fetch(const offset_fetch_request& req) const {
  return fetch_offsets(offsets_->entries(), req);
}

// -- offsets expiry (KIP-211, KIP-496) ---------------------------------------------

std::optional<std::set<std::string>> group::compute_subscribed_topics() const {
  // Kafka's computeSubscribedTopics: known only for the consumer protocol;
  // each member's subscription is read with schema version 0, the prefix
  // of every version.
  if (protocol_type_ != consumer_protocol_type)
    return std::nullopt;
  if (members_.empty())
    return std::set<std::string>{};
  if (protocol_name_.empty())
    return std::nullopt;
  std::set<std::string> topics;
  for (const auto& [id, m] : members_) {
    auto md = m.metadata_for(protocol_name_);
    auto sub = md ? decode_subscription(*md) : std::nullopt;
    if (!sub)
      return std::nullopt; // Kafka: not aware of the subscribed topics
    topics.insert(sub->topics.begin(), sub->topics.end());
  }
  return topics;
}

bool group::is_subscribed_to_topic(const std::string& topic) const {
  // Kafka's ClassicGroup.isSubscribedToTopic: unknown subscriptions count
  // as subscribed for the consumer protocol.
  if (subscribed_topics_)
    return subscribed_topics_->count(topic) > 0;
  return protocol_type_ == consumer_protocol_type;
}

expired_offsets
group::expire_offsets(int64_t now_ms, int64_t retention_ms,
                      const std::set<topic_partition>& pending_commits) {
  expired_offsets result;
  if (state_ == group_state::dead)
    return result;
  // Kafka's ClassicGroup.offsetExpirationCondition: the time an offset's
  // retention counts from, or none while members are rebalancing.
  std::optional<int64_t> since_state;
  bool expires = false;
  if (protocol_type_.empty()) {
    // No protocol: a group used for offset storage only (manual
    // assignment, admin tools); each offset counts from its commit.
    expires = true;
  } else if (state_ == group_state::empty) {
    // No members: from when the group became Empty (records without a
    // state timestamp: from each commit).
    expires = true;
    since_state = current_state_timestamp_ms_;
  } else if (state_ == group_state::stable
             && protocol_type_ == consumer_protocol_type
             && subscribed_topics_) {
    // KIP-496: a Stable consumer group keeps the offsets of the topics it
    // subscribes to; the others count from their commit.
    expires = true;
  }
  if (expires) {
    // Kafka's OffsetMetadataManager.cleanupExpiredOffsets: a partition
    // whose commit is still being written is left for the next run.
    std::vector<topic_partition> gone;
    for (const auto& [tp, value] : offsets_->entries()) {
      if (is_subscribed_to_topic(tp.topic) || pending_commits.count(tp))
        continue;
      auto base = since_state.value_or(value.commit_timestamp_ms);
      if (now_ms - base >= retention_ms) {
        result.offsets.emplace_back(tp, value);
        gone.push_back(tp);
      }
    }
    for (const auto& tp : gone)
      offsets_->erase(tp);
  }
  // GroupMetadataManager.cleanupGroupMetadata: an Empty group with no
  // offsets left is Dead. Its metadata tombstone is skipped at generation
  // 0, a group that only stored offsets and never stored metadata.
  if (state_ == group_state::empty && offsets_->entries().empty()) {
    result.group_deleted = true;
    result.metadata_tombstone = generation_ > 0;
    result.state_timestamp_ms = current_state_timestamp_ms_;
    transition_to(group_state::dead, "offsets expired, group is empty", now_ms);
  }
  return result;
}

void group::undo_expiry(const expired_offsets& expired) {
  // The tombstones were not written: the group is as it was before, as
  // Kafka's coordinator reverts to its last committed state. An offset
  // committed since stays.
  for (const auto& [tp, value] : expired.offsets)
    if (!offsets_->get(tp))
      offsets_->put(tp, value);
  if (expired.group_deleted && state_ == group_state::dead) {
    // Not a transition of Kafka's state machine: the deletion is undone.
    state_ = group_state::empty;
    current_state_timestamp_ms_ = expired.state_timestamp_ms;
  }
}

// -- the coordinator's admin ----------------------------------------------------------

namespace {

/// GroupMetadataManager.cleanupGroupMetadata after the selector ran: the
/// tombstone of the group's metadata is skipped at generation 0, a group
/// that only stored offsets.
void mark_deleted(expired_offsets& removed, int32_t generation,
                  std::optional<int64_t> state_timestamp_ms) {
  removed.group_deleted = true;
  removed.metadata_tombstone = generation > 0;
  removed.state_timestamp_ms = state_timestamp_ms;
}

} // namespace

offsets_removal group::delete_group(int64_t now_ms) {
  offsets_removal result;
  switch (state_) {
    case group_state::dead:
      // Kafka: a Dead group is one that does not exist (groupNotExists).
      result.error = error_code::group_id_not_found;
      return result;
    case group_state::empty:
      break;
    default:
      result.error = error_code::non_empty_group;
      return result;
  }
  // handleDeleteGroups: Empty -> Dead, then removeAllOffsets.
  for (const auto& [tp, value] : offsets_->entries())
    result.removed.offsets.emplace_back(tp, value);
  offsets_->clear();
  mark_deleted(result.removed, generation_, current_state_timestamp_ms_);
  transition_to(group_state::dead, "group deleted", now_ms);
  return result;
}

offsets_removal
group::delete_offsets(const std::vector<topic_partition>& partitions,
                      int64_t now_ms) {
  offsets_removal result;
  std::vector<topic_partition> eligible;
  switch (state_) {
    case group_state::dead:
      result.error = error_code::group_id_not_found;
      return result;
    case group_state::empty:
      eligible = partitions;
      break;
    default:
      // Only a group of the consumer protocol says what its members
      // consume (GroupMetadata.isConsumerGroup).
      if (protocol_type_ != consumer_protocol_type) {
        result.error = error_code::non_empty_group;
        return result;
      }
      for (const auto& tp : partitions)
        if (!is_subscribed_to_topic(tp.topic))
          eligible.push_back(tp);
      break;
  }
  std::set<topic_partition> removable{eligible.begin(), eligible.end()};
  for (const auto& tp : partitions)
    result.partitions.push_back(
      {tp.topic, tp.partition,
       removable.count(tp) ? error_code::none
                           : error_code::group_subscribed_to_topic});
  // GroupMetadata.removeOffsets: what was committed goes, once each.
  for (const auto& tp : removable) {
    if (auto value = offsets_->get(tp)) {
      result.removed.offsets.emplace_back(tp, *value);
      offsets_->erase(tp);
    }
  }
  if (state_ == group_state::empty && offsets_->entries().empty()) {
    mark_deleted(result.removed, generation_, current_state_timestamp_ms_);
    transition_to(group_state::dead, "offsets deleted, group is empty", now_ms);
  }
  return result;
}

// -- describe -----------------------------------------------------------------------

described_group group::describe() const {
  // Kafka's GroupMetadata.summary: metadata and assignments only while
  // Stable.
  described_group d;
  d.group_id = group_id_;
  d.state = to_any(state_);
  d.protocol_type = protocol_type_;
  d.generation_id = generation_;
  d.leader = leader_;
  bool stable = state_ == group_state::stable;
  if (stable)
    d.protocol_data = protocol_name_;
  for (auto* m : members_in_join_order()) {
    described_member dm;
    dm.member_id = m->member_id;
    dm.group_instance_id = m->group_instance_id;
    dm.client_id = m->client_id;
    dm.client_host = m->client_host;
    if (stable) {
      if (auto md = m->metadata_for(protocol_name_))
        dm.metadata = *md;
      dm.assignment = m->assignment;
    }
    d.members.push_back(std::move(dm));
  }
  return d;
}

listed_group group::listing() const {
  return {group_id_, protocol_type_, to_any(state_), group_type::classic};
}

// -- teardown ---------------------------------------------------------------------

void group::shutdown(error_code reason) {
  if (state_ == group_state::dead)
    return;
  transition_to(group_state::dead, "coordinator gave up the group", -1);
  for (auto& [id, m] : members_) {
    if (m.awaiting_join)
      answer_join(m, join_error(id, reason));
    if (m.awaiting_sync)
      answer_sync(m, sync_error(reason));
    stop_session(id);
  }
  for (const auto& [id, since] : pending_members_)
    stop_session(id);
  ++join_epoch_;
  cancel_sync_timer();
}

// -- membership -------------------------------------------------------------------

void group::restore(group_snapshot snapshot, int64_t now_ms) {
  if (!members_.empty() || state_ != group_state::empty)
    invariant_failed(group_id_, "restore into a group that is in use");
  generation_ = snapshot.generation;
  protocol_type_ = std::move(snapshot.protocol_type);
  // Kafka's loadGroup: the state timestamp as stored (none in records
  // without one: expiry then counts from each commit).
  current_state_timestamp_ms_ = snapshot.current_state_timestamp_ms;
  if (snapshot.members.empty() || snapshot.protocol_name.empty()) {
    // Kafka loads a group without members as Empty.
    subscribed_topics_ = compute_subscribed_topics();
    return;
  }
  for (auto& m : snapshot.members) {
    m.last_heartbeat_ms = now_ms;
    m.awaiting_join = m.awaiting_sync = m.is_new = false;
    if (m.is_static())
      static_members_[m.group_instance_id] = m.member_id;
    auto timeout = m.session_timeout_ms;
    auto& added = add_member(std::move(m));
    start_session(added.member_id, timeout);
  }
  protocol_name_ = std::move(snapshot.protocol_name);
  leader_ = has_member(snapshot.leader)
              ? snapshot.leader
              : members_in_join_order().front()->member_id;
  // Loading sets the state directly, as Kafka's loadGroup does: no
  // transition happened on this coordinator.
  state_ = group_state::stable;
  subscribed_topics_ = compute_subscribed_topics();
}

group_member& group::add_member(group_member m) {
  if (members_.empty())
    protocol_type_ = m.protocol_type;
  if (leader_.empty())
    leader_ = m.member_id;
  m.join_seq = next_join_seq_++;
  m.pending_sync_generation = -1;
  for (const auto& p : m.protocols)
    ++supported_protocols_[p.name];
  auto id = m.member_id;
  auto& added = members_.emplace(std::move(id), std::move(m)).first->second;
  join_order_.emplace(added.join_seq, &added);
  return added;
}

void group::remove_member(const std::string& member_id) {
  auto i = members_.find(member_id);
  if (i == members_.end())
    return;
  auto& m = i->second;
  for (const auto& p : m.protocols)
    --supported_protocols_[p.name];
  if (m.awaiting_join)
    --num_awaiting_join_;
  if (m.is_static()) {
    auto s = static_members_.find(m.group_instance_id);
    if (s != static_members_.end() && s->second == member_id)
      static_members_.erase(s);
  }
  join_order_.erase(m.join_seq);
  set_pending_sync(m, false);
  // Kafka: the leader leaving hands leadership to another member.
  if (leader_ == member_id)
    leader_ = join_order_.empty() ? std::string{}
                                  : join_order_.begin()->second->member_id;
  members_.erase(i);
}

void group::remove_member_and_update_group(const std::string& member_id,
                                           const std::string& reason,
                                           int64_t now_ms) {
  auto m = find_member(member_id);
  if (!m)
    return;
  // A removed member's parked requests learn that it is gone.
  if (m->awaiting_join)
    answer_join(*m, join_error(member_id, error_code::unknown_member_id));
  if (m->awaiting_sync)
    answer_sync(*m, sync_error(error_code::unknown_member_id));
  stop_session(member_id);
  remove_member(member_id);
  switch (state_) {
    case group_state::stable:
    case group_state::completing_rebalance:
      maybe_prepare_rebalance(reason, now_ms);
      try_complete_join(now_ms);
      break;
    case group_state::preparing_rebalance:
      try_complete_join(now_ms);
      break;
    case group_state::empty:
    case group_state::dead:
      break;
  }
}

void group::update_member_protocols(group_member& m,
                                    std::vector<join_protocol> protocols) {
  for (const auto& p : m.protocols)
    --supported_protocols_[p.name];
  m.protocols = std::move(protocols);
  for (const auto& p : m.protocols)
    ++supported_protocols_[p.name];
}

void group::set_awaiting_join(group_member& m, bool value) {
  if (m.awaiting_join == value)
    return;
  m.awaiting_join = value;
  if (value)
    ++num_awaiting_join_;
  else
    --num_awaiting_join_;
}

bool group::supports_protocols(
  const std::string& type, const std::vector<join_protocol>& protocols) const {
  // Kafka's supportsProtocols: an empty group takes any non-empty type and
  // protocol list; otherwise the type must match and at least one protocol
  // must be supported by every current member.
  if (type.empty() || protocols.empty())
    return false;
  if (members_.empty())
    return true;
  if (type != protocol_type_)
    return false;
  for (const auto& p : protocols) {
    auto i = supported_protocols_.find(p.name);
    if (i != supported_protocols_.end() && i->second == members_.size())
      return true;
  }
  return false;
}

bool group::accept_joining_member(const std::string& member_id,
                                  const std::string& instance_id) const {
  // Kafka's acceptJoiningMember, plus: a static member replacing its own
  // instance does not grow the group.
  if (!instance_id.empty() && static_members_.count(instance_id))
    return true;
  auto max = static_cast<size_t>(config_.max_size);
  switch (state_) {
    case group_state::empty:
    case group_state::dead:
      return true;
    case group_state::preparing_rebalance: {
      auto m = member(member_id);
      return (m && m->awaiting_join) || num_awaiting_join_ < max;
    }
    case group_state::completing_rebalance:
    case group_state::stable:
      return has_member(member_id) || members_.size() < max;
  }
  return false;
}

bool group::is_static_member_fenced(const std::string& member_id,
                                    const std::string& instance_id) const {
  if (instance_id.empty())
    return false;
  auto i = static_members_.find(instance_id);
  return i != static_members_.end() && i->second != member_id;
}

std::string group::generate_member_id(const std::string& prefix) {
  // Kafka: clientId (or group.instance.id) + "-" + a random UUID (v4).
  auto a = rng_();
  auto b = rng_();
  a = (a & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull; // version 4
  b = (b & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull; // variant 1
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  id.reserve(prefix.size() + 37);
  id += prefix;
  id += '-';
  auto put = [&](uint64_t x, int digits) {
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
      id += hex[(x >> shift) & 0xF];
  };
  put(a >> 32, 8);
  id += '-';
  put((a >> 16) & 0xFFFF, 4);
  id += '-';
  put(a & 0xFFFF, 4);
  id += '-';
  put(b >> 48, 4);
  id += '-';
  put(b & 0xFFFFFFFFFFFFull, 12);
  return id;
}

// -- helpers --------------------------------------------------------------------

void group::transition_to(group_state target, std::string reason,
                          int64_t now_ms) {
  if (!valid_previous_state(state_, target))
    invariant_failed(group_id_, "invalid state transition from "
                                  + std::string{state_name(state_)} + " to "
                                  + std::string{state_name(target)});
  effects_.transitions.push_back(
    {state_, target, generation_, std::move(reason)});
  state_ = target;
  // Kafka's transitionTo sets currentStateTimestamp; a teardown (-1) has
  // no clock and the Dead group no use for it.
  if (now_ms >= 0)
    current_state_timestamp_ms_ = now_ms;
}

void group::answer_join(group_member& m, join_group_response answer) {
  set_awaiting_join(m, false);
  effects_.join_answers.emplace_back(m.member_id, std::move(answer));
}

void group::answer_sync(group_member& m, sync_group_response answer) {
  m.awaiting_sync = false;
  effects_.sync_answers.emplace_back(m.member_id, std::move(answer));
}

void group::start_session(const std::string& member_id,
                          int64_t first_check_ms) {
  effects_.sessions_started.emplace_back(member_id, first_check_ms);
}

void group::stop_session(const std::string& member_id) {
  effects_.sessions_stopped.push_back(member_id);
}

} // namespace troupe
