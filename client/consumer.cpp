#include "client/consumer.hpp"

#include <algorithm>
#include <set>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "client/heartbeat_ticker.hpp"
#include "domain/consumer_protocol.hpp"

namespace troupe {

rebalance_protocol protocol_of(const std::vector<std::string>& assignors) {
  if (assignors.empty())
    return rebalance_protocol::eager;
  for (auto& name : assignors) {
    auto a = find_assignor(name);
    if (!a || a->protocol != rebalance_protocol::cooperative)
      return rebalance_protocol::eager;
  }
  return rebalance_protocol::cooperative;
}

namespace {

void forget_positions(consumer_state& st, consumer_event_kind kind,
                      const std::vector<topic_partition>& ps);

} // namespace

void emit(consumer_ptr self, consumer_event_kind kind,
          std::vector<topic_partition> ps, error_code error) {
  auto& st = self->state;
  forget_positions(st, kind, ps);
  if (!st.listener)
    return;
  consumer_event ev;
  ev.consumer = st.display_name;
  ev.kind = kind;
  ev.member_id = st.member_id;
  ev.generation = st.generation;
  ev.leader = st.leader;
  ev.protocol = st.protocol;
  ev.partitions = std::move(ps);
  ev.error = error;
  ev.at_ms = now_ms(self);
  self->send(st.listener, std::move(ev));
}

void learn_broker(consumer_ptr self, const caf::actor& handle) {
  self->state.coordinators.learn(handle);
}

consumer_status status_of(const consumer_state& st) {
  return {st.display_name, st.member_id, st.generation, st.phase,
          st.leader,       st.protocol,  st.owned,      st.last_error};
}

namespace {

using partitions = std::vector<topic_partition>;

partitions minus(const partitions& xs, const partitions& ys) {
  std::set<topic_partition> drop(ys.begin(), ys.end());
  partitions result;
  for (auto& x : xs)
    if (!drop.count(x))
      result.push_back(x);
  return result;
}

/// No more ticks: no heartbeats, and no deadline watched.
void stop_heartbeats(consumer_ptr self) {
  auto& st = self->state;
  if (st.config->heartbeat_ticker && st.ticking)
    caf::anon_send(st.config->heartbeat_ticker, ticker_leave_atom::value,
                   self->id());
  st.ticking = false;
  ++st.heartbeat_epoch;
  st.heartbeat_sent_ms = -1;
  st.group_request_deadline_ms = -1;
}

void schedule_rejoin(consumer_ptr self, int64_t delay_ms) {
  auto epoch = ++self->state.rejoin_epoch;
  self->delayed_send(self, ms(delay_ms), rejoin_tick{epoch});
}

void drop_commits(consumer_ptr self, error_code e);

void fail(consumer_ptr self, error_code e) {
  drop_commits(self, e);
  auto& st = self->state;
  spdlog::warn("consumer {}: stopped by {}", st.display_name, error_name(e));
  st.phase = consumer_phase::failed;
  st.last_error = e;
  stop_heartbeats(self);
  ++st.join_epoch;
  ++st.rejoin_epoch;
  emit(self, consumer_event_kind::failed, {}, e);
}

/// The partitions are gone without a clean revoke (Kafka's
/// onPartitionsLost): the generation or membership is no longer valid.
void lose_partitions(consumer_ptr self) {
  auto& st = self->state;
  if (!st.owned.empty())
    emit(self, consumer_event_kind::lost, std::exchange(st.owned, {}));
}

void reset_generation(consumer_ptr self, bool reset_member_id) {
  auto& st = self->state;
  lose_partitions(self);
  st.generation = -1;
  st.protocol.clear();
  st.leader = false;
  if (reset_member_id)
    st.member_id.clear();
}

/// Kafka's markCoordinatorUnknown. A member of a generation keeps it and,
/// once it found the new coordinator (which loaded the group from
/// __consumer_offsets), goes on heartbeating there: a coordinator move is
/// no rebalance. A member that was joining joins again there.
void coordinator_unknown(consumer_ptr self) {
  auto& st = self->state;
  st.coordinator = nullptr;
  st.group = nullptr;
  if (st.phase != consumer_phase::stable)
    st.phase = consumer_phase::unjoined;
  stop_heartbeats(self);
  ++st.join_epoch;
  schedule_rejoin(self, st.config->retry_backoff_ms);
}

void join(consumer_ptr self);
void discover(consumer_ptr self);
void retry_commits(consumer_ptr self);
void expire_commits(consumer_ptr self);

/// Errors shared by every coordinator request; true when handled.
bool handle_coordinator_error(consumer_ptr self, error_code e) {
  switch (e) {
    case error_code::not_coordinator:
    case error_code::coordinator_not_available:
      coordinator_unknown(self);
      return true;
    case error_code::coordinator_load_in_progress:
      schedule_rejoin(self, self->state.config->retry_backoff_ms);
      return true;
    default:
      return false;
  }
}

/// Kafka's answer to the errors that say this membership is stale: reset
/// what is stale and rejoin. True when `e` was one of them.
bool rejoin_after(consumer_ptr self, error_code e) {
  switch (e) {
    case error_code::rebalance_in_progress:
      join(self);
      return true;
    case error_code::illegal_generation:
      reset_generation(self, false);
      join(self);
      return true;
    case error_code::unknown_member_id:
      reset_generation(self, true);
      join(self);
      return true;
    default:
      return false;
  }
}

// -- heartbeats ------------------------------------------------------------------

/// The next tick, one heartbeat.interval.ms from now; with a shared
/// ticker, nothing: it ticks on until told otherwise.
void schedule_heartbeat(consumer_ptr self) {
  auto& st = self->state;
  if (st.config->heartbeat_ticker)
    return;
  self->delayed_send(self, ms(st.config->heartbeat_interval_ms),
                     heartbeat_tick{st.heartbeat_epoch});
}

void start_heartbeats(consumer_ptr self) {
  stop_heartbeats(self);
  auto& st = self->state;
  if (st.config->heartbeat_ticker)
    caf::anon_send(st.config->heartbeat_ticker, ticker_join_atom::value,
                   caf::actor_cast<caf::actor>(self), st.heartbeat_epoch,
                   st.config->heartbeat_interval_ms);
  st.ticking = true;
  schedule_heartbeat(self);
}

/// Ticks from now on, without restarting them if they already come: a
/// rejoin keeps its ticks (and the shared ticker hears nothing).
void keep_ticking(consumer_ptr self) {
  if (!self->state.ticking)
    start_heartbeats(self);
}

void on_heartbeat(consumer_ptr self, error_code e) {
  auto& st = self->state;
  if (e == error_code::none)
    return;
  // While awaiting its SyncGroup answer the member learns of the rebalance
  // from that answer; a cooperative member keeps its partitions meanwhile.
  if (e == error_code::rebalance_in_progress
      && st.phase != consumer_phase::stable)
    return;
  if (!rejoin_after(self, e) && !handle_coordinator_error(self, e))
    fail(self, e);
}

// -- SyncGroup -------------------------------------------------------------------

void on_sync(consumer_ptr self, sync_group_response& r) {
  auto& st = self->state;
  if (r.error != error_code::none) {
    if (!rejoin_after(self, r.error)
        && !handle_coordinator_error(self, r.error))
      fail(self, r.error);
    return;
  }
  auto decoded = decode_assignment(r.assignment);
  if (!decoded) {
    // Kafka's consumer cannot use an assignment it cannot parse; rejoin
    // and let the leader try again.
    spdlog::warn("consumer {}: undecodable assignment in generation {}",
                 st.display_name, st.generation);
    st.last_error = error_code::inconsistent_group_protocol;
    st.phase = consumer_phase::joining;
    schedule_rejoin(self, st.config->retry_backoff_ms);
    return;
  }
  auto assigned = decoded->partitions;
  std::sort(assigned.begin(), assigned.end());
  auto revoked = minus(st.owned, assigned);
  st.owned = assigned;
  st.last_assignment = assigned;
  st.last_assignment_generation = st.generation;
  st.phase = consumer_phase::stable;
  st.last_error = error_code::none;
  if (!revoked.empty())
    emit(self, consumer_event_kind::revoked, revoked);
  emit(self, consumer_event_kind::assigned, assigned);
  // Cooperative: partitions given up this round are handed out in a
  // follow-up rebalance that this member starts.
  if (!revoked.empty() && st.cooperative)
    join(self);
}

void sync(consumer_ptr self, std::vector<sync_group_assignment> assignments) {
  auto& st = self->state;
  st.phase = consumer_phase::syncing;
  sync_group_request req;
  req.group_id = st.config->group_id;
  req.generation_id = st.generation;
  req.member_id = st.member_id;
  req.group_instance_id = st.config->group_instance_id;
  req.protocol_type = "consumer";
  req.protocol_name = st.protocol;
  req.assignments = std::move(assignments);
  auto epoch = st.join_epoch;
  // No CAF timeout: the ticks check request.timeout.ms (consumer_state::
  // group_request_deadline_ms).
  st.group_request_deadline_ms = now_ms(self) + st.config->request_timeout_ms;
  self->request(st.group, caf::infinite, std::move(req))
    .then(
      [self, epoch](sync_group_response& r) {
        if (epoch != self->state.join_epoch)
          return;
        self->state.group_request_deadline_ms = -1;
        on_sync(self, r);
      },
      [self, epoch](caf::error&) {
        if (epoch == self->state.join_epoch)
          coordinator_unknown(self);
      });
}

// -- the leader's assignment -------------------------------------------------------

member_subscription to_member_subscription(const join_group_member& m,
                                           const std::string& protocol) {
  member_subscription sub;
  sub.member_id = m.member_id;
  sub.group_instance_id = m.group_instance_id;
  auto decoded = decode_subscription(m.metadata);
  if (!decoded) {
    spdlog::warn("leader: undecodable subscription from member {}",
                 m.member_id);
    return sub; // subscribes to nothing: gets nothing
  }
  sub.topics = decoded->topics;
  if (protocol == "sticky") {
    if (auto ud = decode_sticky_user_data(decoded->user_data)) {
      sub.owned_partitions = ud->owned;
      sub.generation = ud->generation;
    }
  } else if (protocol == "cooperative-sticky") {
    sub.owned_partitions = decoded->owned_partitions;
    sub.generation = decoded->generation;
    if (auto g = decode_cooperative_user_data(decoded->user_data))
      sub.generation = *g;
  }
  return sub;
}

void assign_and_sync(consumer_ptr self, join_group_response& r) {
  auto& st = self->state;
  auto assignor = find_assignor(r.protocol_name);
  if (!assignor) {
    fail(self, error_code::inconsistent_group_protocol);
    return;
  }
  auto subs = std::make_shared<std::vector<member_subscription>>();
  std::set<std::string> topics;
  for (auto& m : r.members) {
    subs->push_back(to_member_subscription(m, r.protocol_name));
    topics.insert(subs->back().topics.begin(), subs->back().topics.end());
  }
  metadata_request md;
  md.topics.assign(topics.begin(), topics.end());
  auto epoch = st.join_epoch;
  if (md.topics.empty()) {
    std::vector<sync_group_assignment> empty;
    for (auto& s : *subs)
      empty.push_back({s.member_id, encode_assignment({})});
    sync(self, std::move(empty));
    return;
  }
  self->request(st.coordinator, ms(st.config->request_timeout_ms), md)
    .then(
      [self, epoch, subs, assignor](metadata_response& res) {
        if (epoch != self->state.join_epoch)
          return;
        for (auto& b : res.brokers)
          learn_broker(self, b.handle);
        partition_counts counts;
        for (auto& t : res.topics)
          if (t.error == error_code::none && t.partitions > 0)
            counts[t.name] = t.partitions;
        auto plan = assignor->assign(counts, *subs);
        std::vector<sync_group_assignment> out;
        out.reserve(plan.size());
        for (auto& [member, ps] : plan)
          out.push_back({member, encode_assignment({ps, {}})});
        sync(self, std::move(out));
      },
      [self, epoch](caf::error&) {
        if (epoch == self->state.join_epoch)
          coordinator_unknown(self);
      });
}

// -- JoinGroup -------------------------------------------------------------------

bytes subscription_for(const consumer_state& st, const std::string& assignor) {
  consumer_subscription sub;
  sub.topics = st.config->topics;
  std::sort(sub.topics.begin(), sub.topics.end());
  sub.owned_partitions = st.owned;
  sub.generation = st.generation;
  if (assignor == "sticky")
    sub.user_data = encode_sticky_user_data(st.last_assignment,
                                            st.last_assignment_generation);
  else if (assignor == "cooperative-sticky")
    sub.user_data = encode_cooperative_user_data(st.generation);
  return encode_subscription(sub, 1);
}

void on_join(consumer_ptr self, join_group_response& r) {
  auto& st = self->state;
  if (r.error == error_code::member_id_required) {
    // KIP-394: come back with the id the coordinator handed out.
    st.member_id = r.member_id;
    join(self);
    return;
  }
  if (r.error != error_code::none) {
    if (!rejoin_after(self, r.error)
        && !handle_coordinator_error(self, r.error))
      fail(self, r.error); // e.g. INCONSISTENT_GROUP_PROTOCOL, FENCED
    return;
  }
  st.member_id = r.member_id;
  st.generation = r.generation_id;
  st.protocol = r.protocol_name;
  st.leader = r.leader == r.member_id;
  st.phase = consumer_phase::syncing;
  emit(self, consumer_event_kind::joined);
  // Kafka heartbeats while waiting for the SyncGroup answer too; the ticks
  // came during the JoinGroup already.
  keep_ticking(self);
  if (st.leader)
    assign_and_sync(self, r);
  else
    sync(self, {});
}

void join(consumer_ptr self) {
  auto& st = self->state;
  if (!st.coordinator) {
    discover(self);
    return;
  }
  st.phase = consumer_phase::joining;
  // No heartbeats while the JoinGroup is in flight (Kafka's heartbeat
  // thread waits for the join too); an unanswered one is forgotten (the
  // join_epoch below makes its answer stale). The ticks go on: they watch
  // the JoinGroup's deadline.
  st.heartbeat_sent_ms = -1;
  keep_ticking(self);
  // Eager protocols give everything up before rejoining.
  if (!st.cooperative && !st.owned.empty())
    emit(self, consumer_event_kind::revoked, std::exchange(st.owned, {}));
  join_group_request req;
  req.group_id = st.config->group_id;
  req.session_timeout_ms = st.config->session_timeout_ms;
  req.rebalance_timeout_ms = st.config->max_poll_interval_ms;
  req.member_id = st.member_id;
  req.group_instance_id = st.config->group_instance_id;
  req.protocol_type = "consumer";
  req.client_id = st.config->client_id;
  req.client_host = "/127.0.0.1";
  req.require_known_member_id = true;
  for (auto& name : st.config->assignors)
    req.protocols.push_back({name, subscription_for(st, name)});
  auto epoch = ++st.join_epoch;
  // Kafka: a JoinGroup may take the whole rebalance timeout, plus slack.
  // No CAF timeout: CAF 0.17 would keep it in its clock until it fired,
  // minutes after the answer, and taking it out when the answer arrives
  // (request_then, actors/ask.hpp) wakes the clock's thread once per
  // member, which made a 10,000-member rebalance 60-90 ms slower. The
  // ticks check the deadline instead.
  st.group_request_deadline_ms =
    now_ms(self) + int64_t{st.config->max_poll_interval_ms} + 5000;
  self->request(st.group, caf::infinite, std::move(req))
    .then(
      [self, epoch](join_group_response& r) {
        if (epoch != self->state.join_epoch)
          return;
        self->state.group_request_deadline_ms = -1;
        // With delegation the group's coordinator answers directly: talk
        // to it from now on. MEMBER_ID_REQUIRED (KIP-394) comes from the
        // coordinator too, so the JoinGroup that carries the new member id
        // goes straight to it instead of through the broker and its group
        // service again.
        if (r.error == error_code::none
            || r.error == error_code::member_id_required)
          if (auto sender = self->current_sender())
            self->state.group = caf::actor_cast<group_protocol_actor>(sender);
        on_join(self, r);
      },
      [self, epoch](caf::error&) {
        if (epoch == self->state.join_epoch)
          coordinator_unknown(self);
      });
}

void discover(consumer_ptr self) {
  auto& st = self->state;
  if (st.phase != consumer_phase::stable)
    st.phase = consumer_phase::unjoined;
  auto epoch = ++st.join_epoch;
  st.coordinators.find_for_member(
    self, st.config->group_id, ms(st.config->request_timeout_ms),
    [self, epoch] { return epoch == self->state.join_epoch; },
    [self](broker_actor broker) {
      auto& st = self->state;
      st.coordinator = std::move(broker);
      st.group = st.coordinator;
      retry_commits(self);
      if (st.phase == consumer_phase::stable)
        start_heartbeats(self);
      else
        join(self);
    },
    [self] {
      expire_commits(self);
      schedule_rejoin(self, self->state.config->retry_backoff_ms);
    },
    [self](error_code e) { fail(self, e); });
}

// -- OffsetCommit ---------------------------------------------------------------

using waiting_commit = consumer_state::waiting_commit;

using client::is_coordinator_error;

void answer_commit(waiting_commit& c, error_code e) {
  offset_commit_response res;
  for (auto& p : c.request.partitions)
    res.partitions.push_back({p.topic, p.partition, e});
  c.promise.deliver(std::move(res));
}

/// Waits for the coordinator to be found again, then sends the commit again.
void park_commit(consumer_ptr self, waiting_commit c) {
  auto& st = self->state;
  st.waiting_commits.push_back(std::move(c));
  if (st.coordinator)
    coordinator_unknown(self);
}

void send_commit(consumer_ptr self, waiting_commit c) {
  auto& st = self->state;
  if (!st.coordinator) {
    park_commit(self, std::move(c));
    return;
  }
  // Always the current generation: a commit retried after a rebalance is
  // fenced or accepted as Kafka would judge it now.
  c.request.generation_id = st.generation;
  c.request.member_id = st.member_id;
  auto req = c.request;
  self->request(st.group, ms(st.config->request_timeout_ms), std::move(req))
    .then(
      [self, c](offset_commit_response& res) mutable {
        auto retry = !res.partitions.empty()
                     && is_coordinator_error(res.partitions.front().error)
                     && now_ms(self) < c.deadline_ms;
        if (retry) {
          park_commit(self, std::move(c));
          return;
        }
        // Kafka's OffsetCommitResponseHandler: a fenced commit means the
        // membership is stale; rejoin.
        for (auto& p : res.partitions) {
          if (p.error == error_code::illegal_generation
              || p.error == error_code::unknown_member_id) {
            if (self->state.phase == consumer_phase::stable) {
              reset_generation(self, p.error == error_code::unknown_member_id);
              join(self);
            }
            break;
          }
        }
        c.promise.deliver(std::move(res));
      },
      [self, c](caf::error& err) mutable {
        if (now_ms(self) < c.deadline_ms)
          park_commit(self, std::move(c));
        else
          c.promise.deliver(std::move(err));
      });
}

/// The coordinator is known again: commits waiting for it go out; those
/// past their deadline get COORDINATOR_NOT_AVAILABLE.
void retry_commits(consumer_ptr self) {
  auto waiting = std::exchange(self->state.waiting_commits, {});
  for (auto& c : waiting)
    send_commit(self, std::move(c));
}

/// The consumer stops: every commit still waiting gets `e`.
void drop_commits(consumer_ptr self, error_code e) {
  for (auto& c : std::exchange(self->state.waiting_commits, {}))
    answer_commit(c, e);
}

/// Discovery failed again: commits past their deadline give up.
void expire_commits(consumer_ptr self) {
  auto& waiting = self->state.waiting_commits;
  auto now = now_ms(self);
  for (auto i = waiting.begin(); i != waiting.end();) {
    if (now >= i->deadline_ms) {
      answer_commit(*i, error_code::coordinator_not_available);
      i = waiting.erase(i);
    } else {
      ++i;
    }
  }
}

} // namespace

// -- manual assignment and positions ---------------------------------------------

namespace {

/// Kafka's SubscriptionState: a partition that is revoked or lost loses its
/// position; a newly assigned one starts from the committed offset.
void forget_positions(consumer_state& st, consumer_event_kind kind,
                      const partitions& ps) {
  if (kind == consumer_event_kind::revoked || kind == consumer_event_kind::lost)
    for (auto& tp : ps)
      st.positions.erase(tp);
}

} // namespace

consumer_positions positions_of(consumer_state& st) {
  consumer_positions out;
  for (auto i = st.positions.begin(); i != st.positions.end();)
    if (std::binary_search(st.owned.begin(), st.owned.end(), i->first))
      ++i;
    else
      i = st.positions.erase(i);
  for (auto& tp : st.owned) {
    auto i = st.positions.find(tp);
    out.positions.push_back(
      {tp, i == st.positions.end() ? position_unknown : i->second});
  }
  return out;
}

/// Kafka's KafkaConsumer.assign(): the new partitions replace the old ones;
/// partitions that stay keep their positions.
consumer_positions assign_partitions(consumer_ptr self, partitions ps) {
  auto& st = self->state;
  if (!st.manual) {
    auto out = positions_of(st);
    out.error = error_code::invalid_request;
    return out;
  }
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  st.owned = std::move(ps);
  return positions_of(st);
}

/// Kafka's seek: only owned partitions can be sought.
consumer_positions seek_partitions(consumer_ptr self,
                                   const std::vector<partition_position>& to) {
  auto& st = self->state;
  std::vector<topic_partition> not_assigned;
  for (auto& p : to) {
    if (!std::binary_search(st.owned.begin(), st.owned.end(), p.partition)
        || p.offset < position_unknown)
      not_assigned.push_back(p.partition);
    else
      st.positions[p.partition] = p.offset;
  }
  auto out = positions_of(st);
  out.not_assigned = std::move(not_assigned);
  return out;
}

namespace {

thread_local consumer* running_consumer = nullptr;

/// The classic protocol's handlers, one copy for every consumer.
consumer_actor::behavior_type classic_behavior() {
  // The heartbeat tick first: CAF 0.17 tries a behaviour's handlers in
  // order, comparing types, and it is by far the most frequent message.
  return {
    [](heartbeat_tick& t) {
      auto self = consumer::current();
      auto& st = self->state;
      if (t.epoch != st.heartbeat_epoch)
        return;
      if (!st.coordinator) {
        stop_heartbeats(self);
        return;
      }
      auto now = now_ms(self);
      // The JoinGroup or SyncGroup in flight, past its deadline; or the
      // last heartbeat, unanswered for request.timeout.ms.
      if ((st.group_request_deadline_ms >= 0
           && now >= st.group_request_deadline_ms)
          || (st.heartbeat_sent_ms >= 0
              && now - st.heartbeat_sent_ms >= st.config->request_timeout_ms)) {
        coordinator_unknown(self);
        return;
      }
      schedule_heartbeat(self);
      // One heartbeat in flight at a time, and only from a member of a
      // generation: none while a JoinGroup is in flight or waits to be
      // sent again.
      if (st.heartbeat_sent_ms >= 0
          || (st.phase != consumer_phase::syncing
              && st.phase != consumer_phase::stable))
        return;
      heartbeat_request hb{st.config->group_id, st.generation, st.member_id,
                           st.config->group_instance_id};
      auto epoch = st.heartbeat_epoch;
      auto joined = st.join_epoch;
      st.heartbeat_sent_ms = now;
      // No CAF timeout: the ticks above time it out. A coordinator that is
      // gone answers with an error at once (the request bounces). A
      // rejoin since (join_epoch) makes the answer stale.
      self->request(st.group, caf::infinite, hb)
        .then(
          [self, epoch, joined](heartbeat_response& r) {
            auto& st = self->state;
            if (epoch != st.heartbeat_epoch || joined != st.join_epoch)
              return;
            st.heartbeat_sent_ms = -1;
            on_heartbeat(self, r.error);
          },
          [self, epoch, joined](caf::error&) {
            auto& st = self->state;
            if (epoch == st.heartbeat_epoch && joined == st.join_epoch)
              coordinator_unknown(self);
          });
    },
    consumer_handlers::status,
    [](consumer_commit& req) -> caf::result<offset_commit_response> {
      auto self = consumer::current();
      auto& st = self->state;
      offset_commit_request out;
      out.group_id = st.config->group_id;
      out.member_id = st.member_id;
      out.group_instance_id = st.config->group_instance_id;
      out.partitions = std::move(req.offsets);
      auto rp = self->make_response_promise<offset_commit_response>();
      send_commit(self, {std::move(out), rp,
                         now_ms(self) + st.config->request_timeout_ms});
      return rp;
    },
    [](consumer_close&) -> caf::result<consumer_status> {
      auto self = consumer::current();
      auto& st = self->state;
      stop_heartbeats(self);
      ++st.join_epoch;
      ++st.rejoin_epoch;
      if (!st.owned.empty())
        emit(self, consumer_event_kind::revoked, std::exchange(st.owned, {}));
      drop_commits(self, error_code::coordinator_not_available);
      auto rp = self->make_response_promise<consumer_status>();
      auto finish = [self, rp]() mutable {
        self->state.phase = consumer_phase::closed;
        emit(self, consumer_event_kind::left);
        rp.deliver(status_of(self->state));
        self->quit();
      };
      // KIP-345: a static member does not leave on close; its session
      // timeout decides.
      if (!st.coordinator || st.member_id.empty()
          || !st.config->group_instance_id.empty()) {
        finish();
        return rp;
      }
      leave_group_request leave{st.config->group_id, {{st.member_id, {}}}};
      self->request(st.group, ms(st.config->request_timeout_ms), leave)
        .then([finish](leave_group_response&) mutable { finish(); },
              [finish](caf::error&) mutable { finish(); });
      return rp;
    },
    consumer_handlers::crash,
    consumer_handlers::assign,
    consumer_handlers::seek,
    consumer_handlers::positions,
    [](rejoin_tick& t) {
      auto self = consumer::current();
      if (t.epoch == self->state.rejoin_epoch
          && self->state.phase != consumer_phase::failed)
        join(self);
    },
  };
}

} // namespace

consumer::consumer(caf::actor_config& cfg, consumer_config config,
                   broker_actor bootstrap, event_listener_actor listener)
  : consumer(cfg, std::make_shared<const consumer_config>(config), config.name,
             std::move(bootstrap), std::move(listener)) {
  // nop
}

consumer::consumer(caf::actor_config& cfg,
                   std::shared_ptr<const consumer_config> config,
                   std::string name, broker_actor bootstrap,
                   event_listener_actor listener)
  : super(cfg) {
  auto& st = state;
  st.cooperative =
    protocol_of(config->assignors) == rebalance_protocol::cooperative;
  st.config = std::move(config);
  st.display_name = std::move(name);
  st.coordinators.bootstrap(std::move(bootstrap));
  st.listener = std::move(listener);
}

consumer_ptr consumer::current() noexcept {
  return running_consumer;
}

caf::resumable::resume_result consumer::resume(caf::execution_unit* ctx,
                                               size_t max_throughput) {
  auto outer = std::exchange(running_consumer, this);
  auto result = super::resume(ctx, max_throughput);
  running_consumer = outer;
  return result;
}

consumer::behavior_type consumer::make_behavior() {
  consumer_ptr self = this;
  auto& st = state;
  for (auto& b : st.config->bootstrap_servers)
    learn_broker(self, caf::actor_cast<caf::actor>(b));
  // However the consumer ends, the shared ticker forgets it.
  if (st.config->heartbeat_ticker)
    attach_functor([t = st.config->heartbeat_ticker, id = id()] {
      caf::anon_send(t, ticker_leave_atom::value, id);
    });
  if (st.config->manual_assignment) {
    st.manual = true;
    assign_partitions(self, st.config->assignment);
  } else if (st.config->group_protocol == "consumer") {
    start_group_member(self);
    static const behavior_type kip848 = group_member_behavior();
    return kip848;
  } else {
    discover(self);
  }
  static const behavior_type classic = classic_behavior();
  return classic;
}

} // namespace troupe
