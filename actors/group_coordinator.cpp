#include "actors/group_coordinator.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/member_session.hpp"
#include "actors/metrics.hpp"

namespace troupe {

coordinator_metrics& metrics() {
  static coordinator_metrics instance;
  return instance;
}

namespace {

void count(std::atomic<uint64_t>& counter) {
  counter.fetch_add(1, std::memory_order_relaxed);
}

template <class Response>
void answer_parked(
  std::unordered_map<
    std::string, std::vector<caf::typed_response_promise<Response>>>& parked,
  const std::string& member_id, const Response& answer) {
  auto i = parked.find(member_id);
  if (i == parked.end())
    return;
  for (auto& rp : i->second)
    rp.deliver(answer);
  parked.erase(i);
}

/// A timer of zero (group.initial.rebalance.delay.ms=0) fires right after
/// the messages already queued, without a trip through the clock.
template <class Tick>
void arm(group_coordinator_ptr self, int64_t delay_ms, Tick tick) {
  if (delay_ms <= 0)
    self->send(self, tick);
  else
    self->delayed_send(self, ms(delay_ms), tick);
}

/// Carries out what the last call into the group asked for.
void apply_effects(group_coordinator_ptr self) {
  auto& st = self->state;
  auto fx = st.g->take_effects();
  for (auto& [id, answer] : fx.join_answers)
    answer_parked(st.joins, id, answer);
  for (auto& [id, answer] : fx.sync_answers)
    answer_parked(st.syncs, id, answer);
  if (fx.join_timer)
    arm(self, fx.join_timer->delay_ms, join_timeout{fx.join_timer->epoch});
  if (fx.sync_timer)
    arm(self, fx.sync_timer->delay_ms, sync_timeout{fx.sync_timer->epoch});
  for (auto& id : fx.sessions_stopped) {
    auto i = st.sessions.find(id);
    if (i != st.sessions.end()) {
      self->send_exit(i->second, caf::exit_reason::user_shutdown);
      st.sessions.erase(i);
    }
  }
  for (auto& [id, delay] : fx.sessions_started) {
    auto i = st.sessions.find(id);
    if (i != st.sessions.end()) {
      self->send(i->second, session_rearm{delay});
    } else {
      auto session =
        self->spawn(member_session, group_coordinator_actor{self}, id, delay);
      st.sessions.emplace(id, std::move(session));
    }
  }
  auto now = now_ms(self);
  for (auto& t : fx.transitions) {
    if (t.to == group_state::preparing_rebalance)
      count(metrics().rebalances);
    spdlog::debug("group {}: {} -> {} (generation {}): {}", st.g->id(),
                  state_name(t.from), state_name(t.to), st.g->generation(),
                  t.reason);
    if (st.listener)
      self->send(st.listener,
                 group_event{st.g->id(), std::string{state_name(t.from)},
                             std::string{state_name(t.to)}, st.g->generation(),
                             t.reason, now, st.g->size(), st.g->leader(),
                             st.g->protocol_name()});
  }
}

/// Answers what is parked with `reason`, ends every session, and stops.
void tear_down(group_coordinator_ptr self, error_code reason,
               const caf::error& exit_reason) {
  auto& st = self->state;
  st.g->shutdown(reason);
  apply_effects(self);
  // Anything the group did not know was parked (it cannot happen, but a
  // dropped promise answers nothing) is answered too.
  join_group_response join_answer;
  join_answer.error = reason;
  for (auto& [id, promises] : st.joins)
    for (auto& rp : promises)
      rp.deliver(join_answer);
  st.joins.clear();
  for (auto& [id, promises] : st.syncs)
    for (auto& rp : promises)
      rp.deliver(sync_group_response{reason, {}, {}, {}});
  st.syncs.clear();
  self->quit(exit_reason);
}

} // namespace

group_coordinator_actor::behavior_type
group_coordinator(group_coordinator_ptr self, std::string group_id,
                  group_config config, uint64_t seed,
                  event_listener_actor listener) {
  auto& st = self->state;
  st.g = std::make_unique<group>(std::move(group_id), config, nullptr, seed);
  st.listener = std::move(listener);
  // The broker links its coordinators: when it goes, they resign.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    tear_down(self, error_code::not_coordinator, msg.reason);
  });
  return {
    [self](join_group_request& req) -> caf::result<join_group_response> {
      count(metrics().joins);
      metrics().last_join_ns.store(
        std::chrono::steady_clock::now().time_since_epoch().count(),
        std::memory_order_relaxed);
      auto res = self->state.g->join(req, now_ms(self));
      if (res.parked()) {
        auto rp = self->make_response_promise<join_group_response>();
        self->state.joins[res.parked_member_id].push_back(rp);
        apply_effects(self);
        return rp;
      }
      apply_effects(self);
      return std::move(*res.answer);
    },
    [self](sync_group_request& req) -> caf::result<sync_group_response> {
      count(metrics().syncs);
      auto res = self->state.g->sync(req, now_ms(self));
      if (res.parked()) {
        auto rp = self->make_response_promise<sync_group_response>();
        self->state.syncs[res.parked_member_id].push_back(rp);
        apply_effects(self);
        return rp;
      }
      apply_effects(self);
      return std::move(*res.answer);
    },
    [self](heartbeat_request& req) {
      count(metrics().heartbeats);
      auto res = self->state.g->heartbeat(req, now_ms(self));
      apply_effects(self);
      return res;
    },
    [self](leave_group_request& req) {
      count(metrics().leaves);
      auto res = self->state.g->leave(req, now_ms(self));
      apply_effects(self);
      return res;
    },
    [self](offset_commit_request& req) {
      count(metrics().commits);
      auto res = self->state.g->commit(req, now_ms(self));
      apply_effects(self);
      return res;
    },
    [self](offset_fetch_request& req) {
      count(metrics().fetches);
      return self->state.g->fetch(req);
    },
    [self](describe_groups_request&) { return self->state.g->describe(); },
    [self](list_groups_request&) { return self->state.g->listing(); },
    [self](session_check& req) {
      count(metrics().session_checks);
      bool was_member = self->state.g->has_member(req.member_id);
      auto next = self->state.g->check_session(req.member_id, now_ms(self));
      apply_effects(self);
      if (!next) {
        if (was_member)
          count(metrics().session_expiries);
        // The session is over; its actor quits on this verdict.
        self->state.sessions.erase(req.member_id);
        return session_verdict{-1};
      }
      return session_verdict{*next};
    },
    [self](join_timeout& t) {
      self->state.g->on_join_timer(t.epoch, now_ms(self));
      apply_effects(self);
    },
    [self](sync_timeout& t) {
      self->state.g->on_sync_timer(t.epoch, now_ms(self));
      apply_effects(self);
    },
    [self](group_shutdown& s) {
      // A normal exit: the broker resigned the group, nothing failed.
      tear_down(self, s.reason, caf::exit_reason::normal);
    },
  };
}

} // namespace troupe
