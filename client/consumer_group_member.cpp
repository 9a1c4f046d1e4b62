// The consumer with group.protocol=consumer (KIP-848): the actor around
// troupe::consumer_membership. It finds the coordinator, sends one
// ConsumerGroupHeartbeat at a time (at once when joining, acknowledging or
// leaving, else every heartbeat interval the coordinator names), carries
// out each reconciliation (revoked partitions first, then the new
// assignment, then the acknowledging heartbeat), and commits with the
// member epoch. Kafka's AsyncKafkaConsumer with its heartbeat request
// manager and ConsumerMembershipManager.

#include <random>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "client/consumer.hpp"

namespace troupe {

namespace {

using waiting_commit = consumer_state::waiting_commit;

consumer_membership& member(consumer_ptr self) {
  return *self->state.membership;
}

/// The status every caller reads mirrors the member: its id, its epoch as
/// the generation, its phase by Kafka's name in lower case.
void sync_status(consumer_ptr self) {
  auto& st = self->state;
  auto& m = member(self);
  st.member_id = m.member_id();
  st.generation = m.member_epoch();
  if (st.phase == consumer_phase::closed || st.phase == consumer_phase::failed)
    return;
  st.phase = to_consumer_phase(m.phase());
}

/// One generator per scheduler thread, seeded once from the kernel:
/// a std::random_device per consumer opened the kernel's source each time
/// (9 % of a 10,000-member cold start).
std::mt19937_64& member_id_rng() {
  thread_local std::mt19937_64 rng{[] {
    std::random_device seed;
    return (static_cast<uint64_t>(seed()) << 32) ^ seed();
  }()};
  return rng;
}

void send_heartbeat(consumer_ptr self);
void discover_coordinator(consumer_ptr self);
void resend_commits(consumer_ptr self);

void schedule_heartbeat(consumer_ptr self, int64_t delay_ms) {
  auto epoch = ++self->state.heartbeat_epoch;
  self->delayed_send(self, ms(delay_ms), heartbeat_tick{epoch});
}

void schedule_discovery(consumer_ptr self) {
  auto epoch = ++self->state.rejoin_epoch;
  self->delayed_send(self, ms(self->state.config->retry_backoff_ms),
                     rejoin_tick{epoch});
}

/// The next heartbeat: at once, or after the coordinator's interval
/// (Kafka's heartbeat request manager polls for the same decision).
void next_heartbeat(consumer_ptr self) {
  auto& m = member(self);
  if (m.skip_heartbeat())
    return;
  if (m.heartbeat_now()) {
    send_heartbeat(self);
    return;
  }
  auto interval = m.heartbeat_interval_ms() > 0
                    ? m.heartbeat_interval_ms()
                    : self->state.config->heartbeat_interval_ms;
  schedule_heartbeat(self, interval);
}

void answer_commit(waiting_commit& c, error_code e) {
  offset_commit_response res;
  for (auto& p : c.request.partitions)
    res.partitions.push_back({p.topic, p.partition, e});
  c.promise.deliver(std::move(res));
}

void drop_commits(consumer_ptr self, error_code e) {
  for (auto& c : std::exchange(self->state.waiting_commits, {}))
    answer_commit(c, e);
}

void finish_close(consumer_ptr self) {
  auto& st = self->state;
  st.phase = consumer_phase::closed;
  ++st.heartbeat_epoch;
  emit(self, consumer_event_kind::left);
  if (st.closing.pending())
    st.closing.deliver(status_of(st));
  self->quit();
}

/// Kafka's transitionToFatal: the member stops, its partitions are lost.
void fail_member(consumer_ptr self, error_code e) {
  auto& st = self->state;
  spdlog::warn("consumer {}: stopped by {}", st.display_name, error_name(e));
  member(self).fail();
  st.phase = consumer_phase::failed;
  st.last_error = e;
  ++st.heartbeat_epoch;
  ++st.join_epoch;
  ++st.rejoin_epoch;
  drop_commits(self, e);
  if (!st.owned.empty())
    emit(self, consumer_event_kind::lost, std::exchange(st.owned, {}));
  emit(self, consumer_event_kind::failed, {}, e);
  if (st.closing.pending())
    finish_close(self);
}

// -- reconciliation ----------------------------------------------------------------

void reconcile(consumer_ptr self, bool resolve);

/// Topic names for ids the answers did not name (Kafka's metadata
/// update for unresolved topic ids); then the rest is reconciled.
void resolve_topics(consumer_ptr self) {
  auto& st = self->state;
  if (!st.coordinator)
    return;
  self
    ->request(st.coordinator, ms(st.config->request_timeout_ms),
              metadata_request{})
    .then(
      [self](metadata_response& res) {
        for (auto& t : res.topics)
          if (!t.topic_id.is_zero())
            member(self).learn_topic(t.topic_id, t.name);
        if (member(self).phase() == member_phase::reconciling) {
          reconcile(self, false);
          next_heartbeat(self);
        }
      },
      [](caf::error&) {
        // The next heartbeat answer tries again.
      });
}

/// Revoke first, then take the new assignment, then acknowledge it.
void reconcile(consumer_ptr self, bool resolve) {
  auto& st = self->state;
  auto& m = member(self);
  auto r = m.reconcile();
  if (!r) {
    if (resolve && !m.unresolved().empty())
      resolve_topics(self);
    return;
  }
  if (!r->revoked.empty())
    emit(self, consumer_event_kind::revoked, r->revoked);
  st.owned = std::move(r->assigned);
  m.reconciled();
  sync_status(self);
  emit(self, consumer_event_kind::assigned, st.owned);
}

// -- heartbeats --------------------------------------------------------------------

void on_answer(consumer_ptr self, const consumer_group_heartbeat_response& r) {
  auto& st = self->state;
  auto& m = member(self);
  auto epoch_before = m.member_epoch();
  auto outcome = m.on_heartbeat(r);
  sync_status(self);
  switch (outcome) {
    case heartbeat_outcome::ok:
      st.last_error = error_code::none;
      if (m.phase() == member_phase::reconciling)
        reconcile(self, true);
      else if (m.member_epoch() != epoch_before
               && m.phase() == member_phase::stable)
        // The same partitions, now at the new epoch (a classic member
        // gets its assignment again in every generation too).
        emit(self, consumer_event_kind::assigned, st.owned);
      resend_commits(self);
      next_heartbeat(self);
      return;
    case heartbeat_outcome::retry:
      schedule_heartbeat(self, st.config->retry_backoff_ms);
      return;
    case heartbeat_outcome::coordinator_unknown:
      discover_coordinator(self);
      return;
    case heartbeat_outcome::fenced: {
      // onPartitionsLost, then join again at once with the same id.
      st.last_error = r.error;
      auto lost = m.fence();
      st.owned.clear();
      sync_status(self);
      if (!lost.empty())
        emit(self, consumer_event_kind::lost, std::move(lost));
      send_heartbeat(self);
      return;
    }
    case heartbeat_outcome::fatal:
      fail_member(self, r.error);
      return;
    case heartbeat_outcome::left:
      finish_close(self);
      return;
  }
}

void send_heartbeat(consumer_ptr self) {
  auto& st = self->state;
  auto& m = member(self);
  if (st.heartbeat_in_flight || m.skip_heartbeat())
    return;
  if (!st.coordinator) {
    discover_coordinator(self);
    return;
  }
  auto req = m.next_heartbeat();
  req.client_id = st.config->client_id;
  req.client_host = "/127.0.0.1";
  sync_status(self);
  st.heartbeat_in_flight = true;
  ++st.heartbeat_epoch; // a scheduled heartbeat is superseded
  self
    ->request(st.coordinator, ms(st.config->request_timeout_ms), std::move(req))
    .then(
      [self](consumer_group_heartbeat_response& r) {
        self->state.heartbeat_in_flight = false;
        on_answer(self, r);
      },
      [self](caf::error&) {
        self->state.heartbeat_in_flight = false;
        if (member(self).on_heartbeat_failed() == heartbeat_outcome::left)
          finish_close(self);
        else
          discover_coordinator(self);
      });
}

// -- the coordinator ---------------------------------------------------------------

void discover_coordinator(consumer_ptr self) {
  auto& st = self->state;
  st.coordinator = nullptr;
  auto epoch = ++st.join_epoch;
  st.coordinators.find_for_member(
    self, st.config->group_id, ms(st.config->request_timeout_ms),
    [self, epoch] { return epoch == self->state.join_epoch; },
    [self](broker_actor broker) {
      self->state.coordinator = std::move(broker);
      resend_commits(self);
      next_heartbeat(self);
    },
    [self] { schedule_discovery(self); },
    [self](error_code e) { fail_member(self, e); });
}

// -- OffsetCommit ------------------------------------------------------------------

using client::is_coordinator_error;

/// Commits with the member epoch as the generation. Coordinator errors
/// wait for the coordinator, STALE_MEMBER_EPOCH for the next heartbeat
/// answer (Kafka's commitSync retries both with the latest epoch), until
/// request.timeout.ms after the commit was asked for.
void send_commit(consumer_ptr self, waiting_commit c) {
  auto& st = self->state;
  if (!st.coordinator) {
    st.waiting_commits.push_back(std::move(c));
    return;
  }
  c.request.generation_id = member(self).member_epoch();
  c.request.member_id = member(self).member_id();
  auto req = c.request;
  self
    ->request(st.coordinator, ms(st.config->request_timeout_ms), std::move(req))
    .then(
      [self, c](offset_commit_response& res) mutable {
        auto e = res.partitions.empty() ? error_code::none
                                        : res.partitions.front().error;
        bool again =
          is_coordinator_error(e) || e == error_code::stale_member_epoch;
        if (again && now_ms(self) < c.deadline_ms) {
          self->state.waiting_commits.push_back(std::move(c));
          if (is_coordinator_error(e) && self->state.coordinator)
            discover_coordinator(self);
          return;
        }
        c.promise.deliver(std::move(res));
      },
      [self, c](caf::error& err) mutable {
        if (now_ms(self) < c.deadline_ms)
          self->state.waiting_commits.push_back(std::move(c));
        else
          c.promise.deliver(std::move(err));
      });
}

void resend_commits(consumer_ptr self) {
  auto waiting = std::exchange(self->state.waiting_commits, {});
  auto now = now_ms(self);
  for (auto& c : waiting) {
    if (now >= c.deadline_ms)
      answer_commit(c, error_code::coordinator_not_available);
    else
      send_commit(self, std::move(c));
  }
}

} // namespace

void start_group_member(consumer_ptr self) {
  auto& st = self->state;
  membership_config mc;
  mc.group_id = st.config->group_id;
  if (!st.config->group_instance_id.empty())
    mc.instance_id = st.config->group_instance_id;
  if (!st.config->client_rack.empty())
    mc.rack_id = st.config->client_rack;
  mc.topics = st.config->topics;
  mc.rebalance_timeout_ms = st.config->max_poll_interval_ms;
  if (!st.config->group_remote_assignor.empty())
    mc.server_assignor = st.config->group_remote_assignor;
  // KIP-1082: the member makes up its id, and keeps it.
  st.membership = std::make_unique<consumer_membership>(
    std::move(mc), to_string(random_uuid(member_id_rng())));
  st.protocol = st.config->group_remote_assignor;
  sync_status(self);
  discover_coordinator(self);
}

consumer_actor::behavior_type group_member_behavior() {
  return {
    consumer_handlers::status,
    [](consumer_commit& req) -> caf::result<offset_commit_response> {
      auto self = consumer::current();
      auto& st = self->state;
      offset_commit_request out;
      out.group_id = st.config->group_id;
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
      auto rp = self->make_response_promise<consumer_status>();
      st.closing = rp;
      drop_commits(self, error_code::coordinator_not_available);
      // Kafka's leaveGroup: onPartitionsRevoked, then the leave heartbeat.
      auto revoked = member(self).leave();
      st.owned.clear();
      sync_status(self);
      if (!revoked.empty())
        emit(self, consumer_event_kind::revoked, std::move(revoked));
      if (member(self).phase() != member_phase::leaving || !st.coordinator) {
        finish_close(self); // not a member, or nobody to tell
        return rp;
      }
      // An answer in flight sends the leave once it arrives.
      send_heartbeat(self);
      return rp;
    },
    consumer_handlers::crash,
    // A subscribed consumer cannot assign() (INVALID_REQUEST); seek and
    // positions work on what the member owns, as with the classic protocol.
    consumer_handlers::assign,
    consumer_handlers::seek,
    consumer_handlers::positions,
    [](heartbeat_tick& t) {
      auto self = consumer::current();
      if (t.epoch == self->state.heartbeat_epoch)
        send_heartbeat(self);
    },
    [](rejoin_tick& t) {
      auto self = consumer::current();
      if (t.epoch == self->state.rejoin_epoch
          && self->state.phase != consumer_phase::failed)
        discover_coordinator(self);
    },
  };
}

} // namespace troupe
