#include "actors/groups/group_coordinator.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/groups/offsets_writer.hpp"
#include "actors/metrics.hpp"
#include "domain/offsets/committed_offsets.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

coordinator_metrics& metrics() {
  static coordinator_metrics instance;
  return instance;
}

namespace {

void count(std::atomic<uint64_t>& counter) {
  counter.fetch_add(1, std::memory_order_relaxed);
}

/// The last (usually the only) promise gets the answer moved: the
/// leader's JoinGroup answer carries every member's metadata.
template <class Response>
void answer_parked(
  std::unordered_map<
    std::string, std::vector<caf::typed_response_promise<Response>>>& parked,
  const std::string& member_id, Response& answer) {
  auto i = parked.find(member_id);
  if (i == parked.end())
    return;
  auto& promises = i->second;
  for (size_t k = 0; k + 1 < promises.size(); ++k)
    promises[k].deliver(answer);
  if (!promises.empty())
    promises.back().deliver(std::move(answer));
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

void apply_effects(group_coordinator_ptr self);

/// One clock entry for every session timer: a wait on the wheel's
/// earliest bucket, taken again only when an earlier one is filed.
void wait_for_sessions(group_coordinator_ptr self) {
  auto& st = self->state;
  auto next = st.session_timers.next_deadline();
  if (!next || (st.session_wake_at >= 0 && st.session_wake_at <= *next))
    return;
  st.session_wake_at = *next;
  arm(self, *next - wall_now_ms(self), session_tick{++st.session_wake});
}

/// Kafka's heartbeat expiry for every timer due: the group decides
/// (group::check_session); a member still alive gets a timer at its
/// deadline, an expired one leaves the group.
void expire_sessions(group_coordinator_ptr self) {
  auto& st = self->state;
  auto now = wall_now_ms(self);
  for (auto& [id, session] : st.session_timers.advance(now)) {
    auto i = st.sessions.find(id);
    if (i == st.sessions.end() || i->second != session)
      continue; // ended or restarted since
    count(metrics().session_checks);
    bool was_member = st.g->has_member(id);
    if (auto next = st.g->check_session(id, now)) {
      st.session_timers.schedule(now + *next, {id, session});
    } else {
      st.sessions.erase(i);
      if (was_member)
        count(metrics().session_expiries);
    }
    apply_effects(self);
  }
  wait_for_sessions(self);
}

/// Writes the group's metadata (Kafka's GroupMetadataValue) with acks=all:
/// before a new generation's assignment goes out (`generation` >= 0, the
/// group learns the outcome) and when the group empties (not awaited).
void store_group(group_coordinator_ptr self, int32_t generation) {
  auto& st = self->state;
  if (!st.log.durable())
    return;
  auto& g = *st.g;
  stored_group sg;
  sg.protocol_type = g.protocol_type();
  sg.generation = g.generation();
  sg.protocol = g.protocol_name();
  sg.leader = g.leader();
  // GroupMetadataValue's currentStateTimestamp: offsets expiry counts an
  // Empty group's time from it, on any coordinator.
  sg.timestamp_ms =
    g.current_state_timestamp_ms().value_or(wall_now_ms(self));
  for (auto m : g.members_in_join_order()) {
    auto metadata = m->metadata_for(g.protocol_name());
    sg.members.push_back({m->member_id, m->group_instance_id, m->client_id,
                          m->client_host, m->rebalance_timeout_ms,
                          m->session_timeout_ms, metadata ? *metadata : bytes{},
                          m->assignment});
  }
  auto done = [self, generation](error_code e) {
    if (e != error_code::none)
      spdlog::warn("group {}: metadata not stored: {}", self->state.g->id(),
                   to_string(e));
    if (generation >= 0) {
      self->state.g->on_group_stored(
        generation, offsets_write_error(offsets_write::group_metadata, e),
        wall_now_ms(self));
      apply_effects(self);
    }
  };
  write_offsets(self, st.log, {group_metadata_record(g.id(), sg)},
                std::move(done));
}

/// Carries out what the last call into the group asked for.
void apply_effects(group_coordinator_ptr self) {
  auto& st = self->state;
  auto fx = st.g->take_effects();
  for (auto& [id, answer] : fx.join_answers)
    answer_parked(st.joins, id, answer);
  for (auto& [id, answer] : fx.sync_answers)
    answer_parked(st.syncs, id, answer);
  if (fx.store_group)
    store_group(self, *fx.store_group);
  if (fx.join_timer)
    arm(self, fx.join_timer->delay_ms, join_timeout{fx.join_timer->epoch});
  if (fx.sync_timer)
    arm(self, fx.sync_timer->delay_ms, sync_timeout{fx.sync_timer->epoch});
  // A session ended or restarted leaves its old timer in the wheel, to be
  // dropped when it fires: a heartbeat never touches the wheel.
  for (auto& id : fx.sessions_stopped)
    st.sessions.erase(id);
  if (!fx.sessions_started.empty()) {
    auto now = wall_now_ms(self);
    for (auto& [id, delay] : fx.sessions_started) {
      auto session = ++st.next_session;
      st.sessions[id] = session;
      st.session_timers.schedule(now + delay, {id, session});
    }
    wait_for_sessions(self);
  }
  auto now = now_ms(self); // listeners' timelines: the actor clock
  for (auto& t : fx.transitions) {
    if (t.to == group_state::preparing_rebalance)
      count(metrics().rebalances);
    if (t.to == group_state::empty && t.from != group_state::empty)
      store_group(self, -1);
    spdlog::debug("group {}: {} -> {} (generation {}): {}", st.g->id(),
                  state_name(t.from), state_name(t.to), st.g->generation(),
                  t.reason);
    if (st.listener)
      self->send(st.listener,
                 group_event{st.g->id(), to_any(t.from), to_any(t.to),
                             st.g->generation(), t.reason, now, st.g->size(),
                             st.g->leader(), st.g->protocol_name()});
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
  for (auto& [id, c] : st.pending_commits) {
    for (auto& p : c.response.partitions)
      p.error = reason;
    c.promise.deliver(std::move(c.response));
  }
  st.pending_commits.clear();
  self->quit(exit_reason);
}

/// Kafka's offsets expiry for this group (KIP-211, docs/ARCHITECTURE.md §3),
/// asked by the group service every offsets.retention.check.interval.ms:
/// the group gives up what is due, the tombstones are written (the group's
/// metadata too once it is Dead), and the answer goes out once they are
/// stored. A failed write gives everything back; the next run tries again.
caf::result<offsets_expiry_result> expire_offsets(group_coordinator_ptr self) {
  auto& st = self->state;
  auto& g = *st.g;
  // A commit still being written is not expired (GroupMetadata
  // .removeExpiredOffsets skips pendingOffsetCommits).
  std::set<topic_partition> pending;
  for (auto& [id, c] : st.pending_commits)
    for (auto& p : c.response.partitions)
      pending.insert({p.topic, p.partition});
  auto expired = g.expire_offsets(wall_now_ms(self),
                                  g.config().offsets_retention_ms, pending);
  apply_effects(self);
  if (expired.empty())
    return offsets_expiry_result{};
  std::vector<record_kv> tombstones;
  for (auto& [tp, value] : expired.offsets)
    tombstones.push_back(offset_tombstone(g.id(), tp));
  if (expired.metadata_tombstone)
    tombstones.push_back(group_tombstone(g.id()));
  offsets_expiry_result result{static_cast<int32_t>(expired.offsets.size()),
                               expired.group_deleted};
  if (tombstones.empty())
    return result;
  auto rp = self->make_response_promise<offsets_expiry_result>();
  write_offsets(
    self, st.log, std::move(tombstones),
    [self, rp, result, expired = std::move(expired)](error_code e) mutable {
      auto& g = *self->state.g;
      if (e != error_code::none) {
        spdlog::warn("group {}: expired offsets not deleted: {}", g.id(),
                     to_string(e));
        g.undo_expiry(expired);
        rp.deliver(offsets_expiry_result{});
        return;
      }
      spdlog::info("group {}: {} expired offsets deleted{}", g.id(),
                   result.expired_offsets,
                   result.group_deleted ? ", group is Dead" : "");
      rp.deliver(result);
    });
  return rp;
}

/// DeleteGroups and OffsetDelete (Kafka's cleanupGroupMetadata): the
/// tombstones of what `removal` took are written, then `answer` gets
/// `none`, or the error a client understands once the group got back what
/// it gave up. A group that is Dead then stops: its service forgets it.
template <class Response, class Answer>
caf::result<Response> remove_offsets(group_coordinator_ptr self,
                                     offsets_removal removal, Answer answer) {
  auto& st = self->state;
  auto& g = *st.g;
  apply_effects(self);
  auto finish = [self](bool dead) {
    if (dead)
      self->quit();
  };
  std::vector<record_kv> tombstones;
  for (auto& [tp, value] : removal.removed.offsets)
    tombstones.push_back(offset_tombstone(g.id(), tp));
  if (removal.removed.metadata_tombstone)
    tombstones.push_back(group_tombstone(g.id()));
  if (removal.error != error_code::none || tombstones.empty()
      || !st.log.durable()) {
    // Delivered before the coordinator may stop.
    auto rp = self->make_response_promise<Response>();
    rp.deliver(answer(removal, removal.error));
    finish(removal.removed.group_deleted);
    return rp;
  }
  auto rp = self->make_response_promise<Response>();
  write_offsets(self, st.log, std::move(tombstones),
                [self, rp, removal = std::move(removal), answer,
                 finish](error_code e) mutable {
                  auto& g = *self->state.g;
                  if (e != error_code::none) {
                    spdlog::warn("group {}: offsets not deleted: {}", g.id(),
                                 to_string(e));
                    g.undo_expiry(removal.removed);
                    rp.deliver(answer(removal, offsets_write_error(
                                                 offsets_write::group_records,
                                                 e)));
                    return;
                  }
                  spdlog::info("group {}: {} offsets deleted{}", g.id(),
                               removal.removed.offsets.size(),
                               removal.removed.group_deleted
                                 ? ", group is Dead"
                                 : "");
                  rp.deliver(answer(removal, error_code::none));
                  finish(removal.removed.group_deleted);
                });
  return rp;
}

} // namespace

group_coordinator_actor::behavior_type
group_coordinator(group_coordinator_ptr self, std::string group_id,
                  group_config config, uint64_t seed,
                  event_listener_actor listener, replica_actor offsets_log,
                  topic_partition offsets_partition, loaded_group loaded) {
  auto& st = self->state;
  auto store = std::make_unique<memory_offset_store>();
  for (auto& [tp, value] : loaded.offsets)
    store->put(tp, value);
  config.store_before_sync = offsets_log != nullptr;
  st.g = std::make_unique<group>(std::move(group_id), config, std::move(store),
                                 seed);
  st.g->restore(std::move(loaded.snapshot), wall_now_ms(self));
  st.listener = std::move(listener);
  st.log = {std::move(offsets_log), std::move(offsets_partition),
            config.offset_commit_timeout_ms};
  // The broker links its coordinators: when it goes, they resign.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    tear_down(self, error_code::not_coordinator, msg.reason);
  });
  apply_effects(self); // the sessions of restored members
  // Heartbeats first: CAF 0.17 tries a behaviour's handlers in order,
  // comparing types, and they are by far the most frequent request.
  return {
    [self](heartbeat_request& req) {
      count(metrics().heartbeats);
      auto res = self->state.g->heartbeat(req, wall_now_ms(self));
      apply_effects(self);
      return res;
    },
    [self](join_group_request& req) -> caf::result<join_group_response> {
      count(metrics().joins);
      metrics().last_join_ns.store(
        std::chrono::steady_clock::now().time_since_epoch().count(),
        std::memory_order_relaxed);
      auto res = self->state.g->join(req, wall_now_ms(self));
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
      auto res = self->state.g->sync(req, wall_now_ms(self));
      if (res.parked()) {
        auto rp = self->make_response_promise<sync_group_response>();
        self->state.syncs[res.parked_member_id].push_back(rp);
        apply_effects(self);
        return rp;
      }
      apply_effects(self);
      return std::move(*res.answer);
    },
    [self](leave_group_request& req) {
      count(metrics().leaves);
      auto res = self->state.g->leave(req, wall_now_ms(self));
      apply_effects(self);
      return res;
    },
    [self](offset_commit_request& req) -> caf::result<offset_commit_response> {
      count(metrics().commits);
      auto& st = self->state;
      auto now = wall_now_ms(self);
      if (!st.log.durable()) {
        auto res = st.g->commit(req, now);
        apply_effects(self);
        return res;
      }
      // Kafka answers a commit once __consumer_offsets holds it (acks=all);
      // if that write fails the offsets before it stay in force.
      std::vector<std::pair<topic_partition, std::optional<committed_offset>>>
        before;
      for (auto& p : req.partitions) {
        topic_partition tp{p.topic, p.partition};
        before.emplace_back(tp, st.g->offsets().get(tp));
      }
      auto res = st.g->commit(req, now);
      apply_effects(self);
      std::vector<record_kv> kvs;
      for (auto& p : res.partitions) {
        if (p.error != error_code::none)
          continue;
        topic_partition tp{p.topic, p.partition};
        if (auto value = st.g->offsets().get(tp))
          kvs.push_back(offset_commit_record(st.g->id(), tp, *value));
      }
      if (kvs.empty())
        return res;
      auto rp = self->make_response_promise<offset_commit_response>();
      auto id = st.next_commit++;
      st.pending_commits.emplace(
        id, group_coordinator_state::pending_commit{rp, std::move(res)});
      // Answers the commit: as computed, or, when the write failed, with
      // the offsets from before it restored and Kafka's error for it.
      auto finish = [self, id, before](error_code e) {
        auto& pending = self->state.pending_commits;
        auto i = pending.find(id);
        if (i == pending.end())
          return; // answered by the resignation
        auto& [promise, res] = i->second;
        if (e != error_code::none) {
          for (auto& [tp, value] : before) {
            if (value)
              self->state.g->offsets().put(tp, *value);
            else
              self->state.g->offsets().erase(tp);
          }
          for (auto& p : res.partitions)
            if (p.error == error_code::none)
              p.error = offsets_write_error(offsets_write::offset_commit, e);
        }
        promise.deliver(std::move(res));
        pending.erase(i);
      };
      write_offsets(self, st.log, std::move(kvs), std::move(finish));
      return rp;
    },
    [self](offset_fetch_request& req) {
      count(metrics().fetches);
      return self->state.g->fetch(req);
    },
    [self](describe_groups_request&) { return self->state.g->describe(); },
    [self](list_groups_request&) { return self->state.g->listing(); },
    [self](session_tick& t) {
      auto& st = self->state;
      if (t.epoch == st.session_wake)
        st.session_wake_at = -1;
      expire_sessions(self);
    },
    [self](join_timeout& t) {
      self->state.g->on_join_timer(t.epoch, wall_now_ms(self));
      apply_effects(self);
    },
    [self](sync_timeout& t) {
      self->state.g->on_sync_timer(t.epoch, wall_now_ms(self));
      apply_effects(self);
    },
    [self](offsets_expiry_check&) -> caf::result<offsets_expiry_result> {
      return expire_offsets(self);
    },
    [self](delete_groups_request&) -> caf::result<delete_groups_response> {
      // The service asks for this group only.
      auto id = self->state.g->id();
      auto removal = self->state.g->delete_group(wall_now_ms(self));
      return remove_offsets<delete_groups_response>(
        self, std::move(removal), [id](const offsets_removal&, error_code e) {
          return delete_groups_response{{{id, e}}};
        });
    },
    [self](offset_delete_request& req) -> caf::result<offset_delete_response> {
      auto removal =
        self->state.g->delete_offsets(req.partitions, wall_now_ms(self));
      return remove_offsets<offset_delete_response>(
        self, std::move(removal), [](const offsets_removal& r, error_code e) {
          offset_delete_response res;
          res.error = e;
          if (e == error_code::none)
            res.partitions = r.partitions;
          return res;
        });
    },
    [self](group_shutdown& s) {
      // A normal exit: the broker resigned the group, nothing failed.
      tear_down(self, s.reason, caf::exit_reason::normal);
    },
  };
}

} // namespace troupe
