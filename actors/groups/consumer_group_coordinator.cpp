#include "actors/groups/consumer_group_coordinator.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/groups/offsets_writer.hpp"
#include "actors/metrics.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

namespace {

using self_ptr = consumer_group_coordinator_ptr;

void count(std::atomic<uint64_t>& counter) {
  counter.fetch_add(1, std::memory_order_relaxed);
}

template <class Tick>
void arm(self_ptr self, int64_t delay_ms, Tick tick) {
  if (delay_ms <= 0)
    self->send(self, std::move(tick));
  else
    self->delayed_send(self, ms(delay_ms), std::move(tick));
}

void flush(self_ptr self);

/// Carries out what the last call into the group asked for.
void apply_effects(self_ptr self) {
  auto& st = self->state;
  auto fx = st.g->take_effects();
  if (st.log.durable())
    for (auto& r : fx.records)
      st.next.records.push_back(std::move(r));
  for (auto& t : fx.session_timers)
    arm(self, t.delay_ms,
        consumer_group_session_timeout{std::move(t.member_id), t.timer});
  for (auto& t : fx.rebalance_timers)
    arm(self, t.delay_ms,
        consumer_group_rebalance_timeout{std::move(t.member_id), t.timer});
  if (fx.assignment_timer)
    arm(self, fx.assignment_timer->delay_ms,
        consumer_group_assignment_timeout{fx.assignment_timer->timer});
  auto now = now_ms(self); // listeners' timelines: the actor clock
  for (auto& t : fx.transitions) {
    if (t.to == consumer_group_state::assigning)
      count(metrics().rebalances);
    spdlog::debug("consumer group {}: {} -> {} (epoch {}): {}", st.g->id(),
                  state_name(t.from), state_name(t.to), t.group_epoch,
                  t.reason);
    if (st.listener)
      self->send(st.listener,
                 group_event{st.g->id(), to_any(t.from), to_any(t.to),
                             t.group_epoch, t.reason, now, st.g->size(),
                             std::string{}, st.g->assignor()});
  }
}

/// Queues an answer behind the records written so far; `deliver` gets the
/// outcome of their write.
void answer_after_write(self_ptr self,
                        std::function<void(error_code)> deliver) {
  self->state.next.answers.push_back(std::move(deliver));
  flush(self);
}

/// Whether a write that failed with `e` left its records in the leader's
/// log: acks=all timed out waiting for the followers, or the ISR shrank
/// below min.insync.replicas after the append.
bool appended_anyway(error_code e) noexcept {
  return e == error_code::request_timed_out
         || e == error_code::not_enough_replicas_after_append;
}

void on_written(self_ptr self, error_code e) {
  auto& st = self->state;
  st.writing = false;
  auto done = std::exchange(st.in_flight, {});
  if (e == error_code::none || appended_anyway(e)) {
    // The records are in the log. A write that timed out is answered with
    // the error, but its state stays, as in Kafka's coordinator runtime (a
    // timed-out write event completes exceptionally and reverts nothing):
    // the records commit once the followers catch up, and a new leader
    // that truncates them unloads this coordinator. Reverting here left
    // the group behind its own log, and a coordinator that loaded the log
    // later fenced members the first one had taken back.
    for (const auto& r : done.records)
      st.durable.apply(r);
    auto error = offsets_write_error(offsets_write::group_records, e);
    if (e != error_code::none)
      spdlog::warn("consumer group {}: records appended but not replicated "
                   "in time ({}): answered {}, state kept",
                   st.g->id(), to_string(e), to_string(error));
    for (auto& deliver : done.answers)
      deliver(error);
    flush(self);
    return;
  }
  // Not appended: Kafka reverts the group to its last written state, and
  // what was computed on top of the failed write fails with it.
  auto error = offsets_write_error(offsets_write::group_records, e);
  spdlog::warn("consumer group {}: records not written ({}), back to the "
               "last written state",
               st.g->id(), to_string(e));
  auto behind = std::exchange(st.next, {});
  for (auto& deliver : done.answers)
    deliver(error);
  for (auto& deliver : behind.answers)
    deliver(error);
  st.g->restore(st.durable, wall_now_ms(self));
  apply_effects(self);
}

/// Starts the next write, or answers at once when nothing waits for one.
void flush(self_ptr self) {
  auto& st = self->state;
  if (st.writing)
    return;
  if (st.next.records.empty()) {
    auto ready = std::exchange(st.next, {});
    for (auto& deliver : ready.answers)
      deliver(error_code::none);
    return;
  }
  st.in_flight = std::exchange(st.next, {});
  st.writing = true;
  std::vector<record_kv> records;
  records.reserve(st.in_flight.records.size());
  for (const auto& r : st.in_flight.records)
    records.push_back(consumer_group_record_kv(st.g->id(), r));
  write_offsets(self, st.log, std::move(records),
                [self](error_code e) { on_written(self, e); });
}

/// Answers what waits with `reason` and stops.
void tear_down(self_ptr self, error_code reason, const caf::error& why) {
  auto& st = self->state;
  st.g->shutdown();
  apply_effects(self);
  auto waiting = std::exchange(st.in_flight, {});
  auto behind = std::exchange(st.next, {});
  for (auto& deliver : waiting.answers)
    deliver(reason);
  for (auto& deliver : behind.answers)
    deliver(reason);
  self->quit(why);
}

/// The image reads are answered from.
const consumer_group_image& readable(self_ptr self) {
  auto& st = self->state;
  return st.log.durable() ? st.durable : st.g->image();
}

} // namespace

consumer_group_coordinator_actor::behavior_type consumer_group_coordinator(
  consumer_group_coordinator_ptr self, std::string group_id,
  group_config config, uint64_t seed, event_listener_actor listener,
  replica_actor offsets_log, topic_partition offsets_partition,
  std::vector<topic_info> topics, consumer_group_image loaded) {
  auto& st = self->state;
  st.log = {std::move(offsets_log), std::move(offsets_partition),
            config.offset_commit_timeout_ms};
  st.g = std::make_unique<consumer_group>(std::move(group_id),
                                          std::move(config), seed);
  st.g->update_topics(topics);
  st.listener = std::move(listener);
  if (loaded.exists || !loaded.offsets.empty())
    st.g->restore(loaded, wall_now_ms(self));
  st.durable = std::move(loaded);
  apply_effects(self);
  // The broker links its coordinators: when it goes, they resign.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    tear_down(self, error_code::not_coordinator, msg.reason);
  });
  return {
    [self](consumer_group_heartbeat_request& req)
      -> caf::result<consumer_group_heartbeat_response> {
      // The stress harness reads the same counters as for classic groups:
      // a join is a heartbeat with member epoch 0.
      if (req.member_epoch == 0) {
        count(metrics().joins);
        metrics().last_join_ns.store(
          std::chrono::steady_clock::now().time_since_epoch().count(),
          std::memory_order_relaxed);
      } else if (req.member_epoch < 0) {
        count(metrics().leaves);
      } else {
        count(metrics().heartbeats);
      }
      auto res = self->state.g->heartbeat(req, wall_now_ms(self));
      apply_effects(self);
      if (!self->state.log.durable())
        return res;
      auto rp =
        self->make_response_promise<consumer_group_heartbeat_response>();
      answer_after_write(self, [rp, res](error_code e) mutable {
        if (e == error_code::none) {
          rp.deliver(std::move(res));
          return;
        }
        consumer_group_heartbeat_response failed;
        failed.error = e;
        rp.deliver(std::move(failed));
      });
      return rp;
    },
    [self](offset_commit_request& req) -> caf::result<offset_commit_response> {
      count(metrics().commits);
      auto res = self->state.g->commit(req, wall_now_ms(self));
      apply_effects(self);
      if (!self->state.log.durable())
        return res;
      auto rp = self->make_response_promise<offset_commit_response>();
      answer_after_write(self, [rp, res](error_code e) mutable {
        for (auto& p : res.partitions)
          if (p.error == error_code::none)
            p.error = e;
        rp.deliver(std::move(res));
      });
      return rp;
    },
    [self](offset_fetch_request& req) {
      count(metrics().fetches);
      if (self->state.g->state() == consumer_group_state::dead) {
        offset_fetch_response r;
        r.error = error_code::not_coordinator;
        return r;
      }
      return fetch_offsets(readable(self).offsets, req);
    },
    [self](consumer_group_describe_request&) {
      auto& g = *self->state.g;
      return describe_consumer_group(g.id(), readable(self), g.topics_by_id(),
                                     g.config().consumer_assignors,
                                     g.state() == consumer_group_state::dead);
    },
    [self](list_groups_request&) {
      auto& g = *self->state.g;
      return listed_group{g.id(), "consumer",
                          to_any(derive_state(readable(self))),
                          group_type::consumer};
    },
    [self](consumer_group_topics& msg) {
      self->state.g->update_topics(msg.topics);
      apply_effects(self);
    },
    [self](consumer_group_session_timeout& t) {
      self->state.g->on_session_timer(t.member_id, t.timer,
                                      wall_now_ms(self));
      apply_effects(self);
      flush(self);
    },
    [self](consumer_group_rebalance_timeout& t) {
      self->state.g->on_rebalance_timer(t.member_id, t.timer,
                                        wall_now_ms(self));
      apply_effects(self);
      flush(self);
    },
    [self](consumer_group_assignment_timeout& t) {
      self->state.g->on_assignment_timer(t.timer, wall_now_ms(self));
      apply_effects(self);
      flush(self);
    },
    [self](offsets_expiry_check&) -> caf::result<offsets_expiry_result> {
      // Kafka's offsets expiry for a consumer group (KIP-211, KIP-496 as
      // the new coordinator runs them): the tombstones go out as the
      // group's records, answered once written; a failed write restores
      // the group as it was written.
      auto& g = *self->state.g;
      auto expiry =
        g.expire_offsets(wall_now_ms(self), g.config().offsets_retention_ms);
      apply_effects(self);
      if (expiry.empty())
        return offsets_expiry_result{};
      offsets_expiry_result result{static_cast<int32_t>(expiry.offsets.size()),
                                   expiry.group_deleted};
      auto rp = self->make_response_promise<offsets_expiry_result>();
      answer_after_write(self, [self, rp, result](error_code e) mutable {
        if (e != error_code::none) {
          rp.deliver(offsets_expiry_result{});
          return;
        }
        spdlog::info("consumer group {}: {} expired offsets deleted{}",
                     self->state.g->id(), result.expired_offsets,
                     result.group_deleted ? ", group is Dead" : "");
        rp.deliver(result);
      });
      return rp;
    },
    [self](delete_groups_request&) -> caf::result<delete_groups_response> {
      // The service asks for this group only. Once its tombstones are
      // written the group is gone: the coordinator stops and its service
      // forgets it.
      auto& g = *self->state.g;
      auto id = g.id();
      auto e = g.delete_group();
      apply_effects(self);
      if (e != error_code::none)
        return delete_groups_response{{{id, e}}};
      auto rp = self->make_response_promise<delete_groups_response>();
      if (!self->state.log.durable()) {
        rp.deliver(delete_groups_response{{{id, e}}});
        self->quit();
        return rp;
      }
      answer_after_write(self, [self, rp, id](error_code e) mutable {
        rp.deliver(delete_groups_response{{{id, e}}});
        if (e == error_code::none) {
          spdlog::info("consumer group {}: deleted", id);
          self->quit();
        }
      });
      return rp;
    },
    [self](offset_delete_request& req) -> caf::result<offset_delete_response> {
      auto res = self->state.g->delete_offsets(req.partitions);
      apply_effects(self);
      if (res.error != error_code::none || !self->state.log.durable())
        return res;
      auto rp = self->make_response_promise<offset_delete_response>();
      answer_after_write(self, [rp, res](error_code e) mutable {
        if (e != error_code::none)
          res = offset_delete_response{e, {}};
        rp.deliver(std::move(res));
      });
      return rp;
    },
    [self](group_shutdown& s) {
      // A normal exit: the broker resigned the group, nothing failed.
      tear_down(self, s.reason, caf::exit_reason::normal);
    },
  };
}

} // namespace troupe
