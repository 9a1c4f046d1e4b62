#include "actors/replica.hpp"

#include <algorithm>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "actors/metrics.hpp"
#include "actors/timeouts.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace {

using role = replica_state::role;

/// Kafka's producer.id.expiration.ms default.
constexpr int64_t producer_id_expiration_ms = 86400000;

void after_leader_change(replica_ptr self);
void fetch_from_leader(replica_ptr self);
void become(replica_ptr self);

bool stale(replica_ptr self, uint64_t role_epoch) {
  return self->state.role_epoch != role_epoch;
}

/// Kafka's internal topics (Topic.isInternal), whose records DeleteRecords
/// refuses to delete.
bool internal_topic(const std::string& topic) {
  return topic == "__consumer_offsets" || topic == "__transaction_state";
}

/// Every request of this replica to the broker's log manager. A replica of
/// an internal topic asks with high priority: the group and transaction
/// coordinators' writes and reads then do not wait behind the log actor's
/// backlog for other partitions (creating the logs of thousands of new
/// partitions takes seconds; docs/ARCHITECTURE.md, storage). All of one
/// replica's requests share one priority, so the log manager still sees
/// them in the order sent (an epoch before the appends of that epoch).
template <class... Ts>
auto ask_log(replica_ptr self, Ts&&... xs) {
  auto& st = self->state;
  if (internal_topic(st.partition.topic))
    return self->template request<caf::message_priority::high>(
      st.log, caf::infinite, std::forward<Ts>(xs)...);
  return self->request(st.log, caf::infinite, std::forward<Ts>(xs)...);
}

/// A follower's request to its leader goes out; its answer counts while
/// `abandoned` is false.
uint64_t send_to_leader(replica_state& st, const broker_actor& leader) {
  st.fetching = true;
  st.fetch_target = leader.address();
  return ++st.fetch_id;
}

bool abandoned(replica_ptr self, uint64_t fetch_id) {
  auto& st = self->state;
  if (st.fetch_id != fetch_id)
    return true;
  st.fetch_target = nullptr;
  return false;
}

broker_actor leader_broker(replica_state& st) {
  if (!st.metadata)
    return {};
  for (auto& b : st.peers)
    if (b.node_id == st.metadata->leader)
      return caf::actor_cast<broker_actor>(b.handle);
  return {};
}

/// Kafka's check of a request's current leader epoch against ours.
error_code check_leader(const replica_state& st, int32_t current_epoch) {
  if (st.current != role::leader)
    return error_code::not_leader_or_follower;
  if (current_epoch >= 0) {
    auto ours = st.leader->leader_epoch();
    if (current_epoch < ours)
      return error_code::fenced_leader_epoch;
    if (current_epoch > ours)
      return error_code::unknown_leader_epoch;
  }
  return error_code::none;
}

fetch_response fetch_answer(const replica_state& st, error_code e) {
  return {e, st.high_watermark, st.log_start_offset, st.log_end_offset, {}};
}

/// Publishes to the broker's purgatory what a consumer caught up to the
/// high watermark hears from this replica now (nothing while it does not
/// lead), if that changed: the Kafka listener answers such fetches from it
/// without asking (docs/ARCHITECTURE.md §5), and fetches waiting on the
/// partition wake (Kafka's DelayedFetch: the HW moved, or case A, the
/// leadership ended).
void publish_view(replica_ptr self) {
  auto& st = self->state;
  if (!st.purgatory)
    return;
  std::optional<fetch_purgatory::leader_view> view;
  if (st.current == role::leader && st.leader)
    view = fetch_purgatory::leader_view{st.high_watermark, st.log_start_offset,
                                        st.leader->leader_epoch()};
  if (view == st.published_view)
    return;
  st.published_view = view;
  st.purgatory->publish(st.partition, self->id(), view);
}

// -- role changes ---------------------------------------------------------------

/// Tells the leadership listener, if any, that this replica now leads in
/// `epoch` (or, with -1, no longer leads).
void announce_leadership(replica_ptr self, int32_t epoch) {
  auto& st = self->state;
  if (st.leadership_listener)
    self->send(st.leadership_listener,
               replica_leadership{st.partition, epoch, epoch >= 0,
                                  caf::actor_cast<caf::actor>(self),
                                  caf::actor_cast<caf::actor>(st.log)});
}

/// Ends the current role: whatever waits on it is answered
/// NOT_LEADER_OR_FOLLOWER, and answers still underway are ignored.
void reset_role(replica_ptr self) {
  auto& st = self->state;
  if (st.current == role::leader)
    announce_leadership(self, -1);
  ++st.role_epoch;
  for (auto& [id, p] : st.produces)
    p.promise.deliver(
      produce_response{error_code::not_leader_or_follower, -1, -1});
  st.produces.clear();
  for (auto& [id, f] : st.fetches)
    f.promise.deliver(fetch_answer(st, error_code::not_leader_or_follower));
  st.fetches.clear();
  for (auto& p : st.parked_produces)
    p.promise.deliver(
      produce_response{error_code::not_leader_or_follower, -1, -1, {}});
  st.parked_produces.clear();
  for (auto& [id, d] : st.deletions)
    d.promise.deliver(
      delete_records_response{error_code::not_leader_or_follower, -1});
  st.deletions.clear();
  st.producers_loading = false;
  st.leader.reset();
  st.alter_isr_in_flight = false;
  st.fetching = false;
  st.fetch_target = nullptr;
  // Consumer fetches waiting here read again and hear that it no longer
  // leads (Kafka's DelayedFetch, case A).
  publish_view(self);
}

void become_leader(replica_ptr self, const partition_metadata& m) {
  auto& st = self->state;
  // The copies or the cut a follower's log operation still out brings are
  // not in `producers` yet: a retried batch among them must be found as a
  // duplicate, and a cut one must not be. The rebuild reads the log after
  // that operation (the log manager answers in order).
  if (st.follower_log_ops > 0 && !st.producers_loading)
    st.producers_current = false;
  st.current = role::leader;
  partition_leader_config cfg{st.config.replica_lag_time_max_ms,
                              st.config.min_insync_replicas};
  st.high_watermark = std::min(st.high_watermark, st.log_end_offset);
  st.leader.emplace(st.broker_id, m.leader_epoch, m.replicas, m.isr,
                    st.log_end_offset, st.high_watermark, cfg, now_ms(self));
  st.latest_epoch = std::max(st.latest_epoch, m.leader_epoch);
  // The new epoch starts at our log end (Kafka: leaderEpochCache.assign on
  // makeLeader), so followers can find where our logs diverge. Sent before
  // any append of this epoch; the log manager handles them in order.
  ask_log(self, log_epoch_request{st.partition, -1, m.leader_epoch})
    .then([](log_epoch_response&) {}, [](caf::error&) {});
  spdlog::info("replica {} on broker {}: leader in epoch {} at offset {}",
               to_string(st.partition), st.broker_id, m.leader_epoch,
               st.log_end_offset);
  self->delayed_send(
    self, ms(std::max<int64_t>(1, st.config.replica_lag_time_max_ms / 2)),
    isr_expiration_tick{st.role_epoch});
  after_leader_change(self);
  announce_leadership(self, m.leader_epoch);
}

/// A log operation asked in an earlier role (a follower's append or
/// truncation) answered after the role changed. The log is what it says all
/// the same, so what the replica knows of it follows (docs/ARCHITECTURE.md
/// §4): its end offset, and its producer state, which may now miss the
/// copies just written or hold batches just cut (rebuilt from the log when
/// next needed: a retried batch must be found, or not, as it is in the
/// log). A leader whose log turned out shorter than it led from leads
/// again from the log as it is.
void log_changed_under_role(replica_ptr self, int64_t log_start,
                            int64_t log_end, int32_t latest_epoch) {
  auto& st = self->state;
  if (!st.producers_loading)
    st.producers_current = false;
  bool shrank = log_end < st.log_end_offset;
  st.log_start_offset = log_start;
  st.log_end_offset = log_end;
  st.latest_epoch = std::max(st.latest_epoch, latest_epoch);
  st.high_watermark = std::min(st.high_watermark, st.log_end_offset);
  if (st.current != role::leader || !st.leader || !st.metadata)
    return;
  if (shrank) {
    spdlog::warn("replica {} on broker {}: log end {} below where it began "
                 "to lead; leading again from there",
                 to_string(st.partition), st.broker_id, log_end);
    auto m = *st.metadata;
    reset_role(self);
    become_leader(self, m);
  } else {
    st.leader->on_local_append(log_end);
    after_leader_change(self);
  }
}

/// After a failed step of the follower loop: the next attempt after
/// replica.fetch.backoff.ms, unless the role changed meanwhile.
void retry_later(replica_ptr self, uint64_t role_epoch) {
  if (stale(self, role_epoch))
    return;
  self->state.fetching = false;
  self->delayed_send(self, ms(self->state.fetch.backoff_ms),
                     follower_fetch_tick{role_epoch});
}

/// A follower's log operation failed: its producer state is no longer
/// known to match the log; try again later.
template <class Backoff>
auto log_op_failed(replica_ptr self, Backoff backoff) {
  return [self, backoff](caf::error&) {
    --self->state.follower_log_ops;
    self->state.producers_current = false;
    backoff();
  };
}

/// A request to the leader failed: try again later, unless it was given up.
template <class Backoff>
auto leader_unanswered(replica_ptr self, uint64_t id, Backoff backoff) {
  return [self, id, backoff](caf::error&) {
    if (!abandoned(self, id))
      backoff();
  };
}

/// Kafka's truncation on becoming a follower: ask the leader where our
/// latest epoch ends in its log and cut our log there, then fetch.
void truncate_then_fetch(replica_ptr self) {
  auto& st = self->state;
  auto epoch = st.role_epoch;
  auto backoff = [self, epoch] { retry_later(self, epoch); };
  auto leader = leader_broker(st);
  if (!leader) {
    backoff();
    return;
  }
  auto id = send_to_leader(st, leader);
  epoch_end_offset_request req{st.partition, st.latest_epoch,
                               st.metadata->leader_epoch};
  request_then(
    self, leader, cluster_request_timeout, req,
    [self, epoch, id, backoff](epoch_end_offset_response& r) {
      if (stale(self, epoch) || abandoned(self, id))
        return;
      auto& st = self->state;
      if (r.error != error_code::none) {
        st.fetching = false;
        backoff();
        return;
      }
      log_diverge_request cut{st.partition, r.leader_epoch, r.end_offset,
                              st.high_watermark};
      ++st.follower_log_ops;
      ask_log(self, cut).then(
        [self, epoch, backoff](log_epoch_response& l) {
          --self->state.follower_log_ops;
          if (stale(self, epoch)) {
            if (l.error == error_code::none)
              log_changed_under_role(self, l.log_start_offset, l.log_end_offset,
                                     l.latest_epoch);
            return;
          }
          auto& st = self->state;
          st.fetching = false;
          if (l.error != error_code::none) {
            spdlog::error("replica {} on broker {}: truncation failed: {}",
                          to_string(st.partition), st.broker_id,
                          to_string(l.error));
            backoff();
            return;
          }
          // A truncated log has lost batches the producer state
          // remembers: it is replayed again when next needed.
          if (l.log_end_offset < st.log_end_offset)
            st.producers_current = false;
          st.log_start_offset = l.log_start_offset;
          st.log_end_offset = l.log_end_offset;
          st.latest_epoch = l.latest_epoch;
          st.high_watermark =
            std::min(std::max(st.high_watermark, st.log_start_offset),
                     st.log_end_offset);
          st.truncated = true;
          fetch_from_leader(self);
        },
        log_op_failed(self, backoff));
    },
    leader_unanswered(self, id, backoff));
}

void become_follower(replica_ptr self) {
  auto& st = self->state;
  st.current = role::follower;
  st.truncated = false;
  spdlog::info("replica {} on broker {}: follower of broker {} in epoch {}",
               to_string(st.partition), st.broker_id, st.metadata->leader,
               st.metadata->leader_epoch);
  truncate_then_fetch(self);
}

/// Takes the role the latest metadata names (once the log is loaded).
void become(replica_ptr self) {
  auto& st = self->state;
  if (st.current == role::loading || !st.metadata)
    return;
  auto& m = *st.metadata;
  bool hosted = std::find(m.replicas.begin(), m.replicas.end(), st.broker_id)
                != m.replicas.end();
  if (m.leader == st.broker_id) {
    if (st.current == role::leader
        && st.leader->leader_epoch() == m.leader_epoch)
      return; // same leadership (an ISR change we already applied)
    reset_role(self);
    become_leader(self, m);
  } else if (m.leader >= 0 && hosted) {
    reset_role(self);
    become_follower(self);
  } else {
    reset_role(self);
    st.current = role::offline;
  }
}

// -- leader ------------------------------------------------------------------------

void read_for(replica_ptr self, fetch_request req,
              caf::typed_response_promise<fetch_response> rp) {
  auto& st = self->state;
  log_read_request r{st.partition, req.offset, req.max_bytes,
                     req.replica_id >= 0 ? -1 : st.high_watermark};
  ask_log(self, r)
    .then(
      [self, rp, follower = req.replica_id >= 0, offset = req.offset](
        log_read_response& res) mutable {
        auto& st = self->state;
        if (res.error == error_code::offset_out_of_range)
          spdlog::info("replica {} on broker {}: read at offset {} out of the "
                       "log's range [{}, {}]",
                       to_string(st.partition), st.broker_id, offset,
                       res.log_start_offset, res.log_end_offset);
        auto answer = fetch_answer(st, res.error);
        answer.records = std::move(res.records);
        // KafkaApis records what a throttled partition served to any
        // follower against the leader quota.
        if (follower && st.leader_throttled && st.quotas)
          st.quotas->record(replication_quotas::leader,
                            static_cast<int64_t>(answer.records.size()),
                            now_ms(self));
        rp.deliver(std::move(answer));
      },
      [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
}

/// Kafka's ReplicaManager.shouldLeaderThrottle: a follower out of the ISR
/// fetching a throttled partition while the leader quota is exceeded gets
/// no data.
bool leader_throttles(replica_ptr self, const fetch_request& req) {
  auto& st = self->state;
  if (req.replica_id < 0 || !st.leader_throttled || !st.quotas || !st.leader)
    return false;
  auto& isr = st.leader->isr();
  if (std::find(isr.begin(), isr.end(), req.replica_id) != isr.end())
    return false;
  return st.quotas->exceeded(replication_quotas::leader, now_ms(self));
}

bool has_data(const replica_state& st, const fetch_request& req) {
  auto limit = req.replica_id >= 0 ? st.log_end_offset : st.high_watermark;
  return req.offset < limit;
}

/// Answers the parked fetches that now have something to read.
void wake_fetches(replica_ptr self) {
  auto& st = self->state;
  for (auto i = st.fetches.begin(); i != st.fetches.end();) {
    if (!i->second.throttled && has_data(st, i->second.request)) {
      read_for(self, i->second.request, i->second.promise);
      i = st.fetches.erase(i);
    } else {
      ++i;
    }
  }
}

void send_alter_isr(replica_ptr self) {
  auto& st = self->state;
  auto& L = *st.leader;
  st.alter_isr_in_flight = true;
  auto epoch = st.role_epoch;
  auto before = L.isr().size();
  alter_isr_request req{st.partition, st.broker_id, L.leader_epoch(),
                        st.metadata->partition_epoch, *L.proposed_isr()};
  request_then(
    self, st.controller, cluster_request_timeout, req,
    [self, epoch, before](alter_isr_response& r) {
      if (stale(self, epoch))
        return;
      auto& st = self->state;
      st.alter_isr_in_flight = false;
      auto& L = *st.leader;
      if (r.state.leader != st.broker_id
          || r.state.leader_epoch != L.leader_epoch())
        return; // leadership moved; the controller's update follows
      if (r.state.partition_epoch < st.metadata->partition_epoch) {
        after_leader_change(self); // a newer state arrived first
        return;
      }
      if (r.error == error_code::none) {
        auto after = r.state.isr.size();
        (after < before ? metrics().isr_shrinks : metrics().isr_expands)++;
        spdlog::info("replica {}: ISR {} to {} replicas",
                     to_string(st.partition),
                     after < before ? "shrinks" : "expands", after);
      }
      st.metadata = r.state;
      L.apply_isr(r.state.isr);
      after_leader_change(self);
    },
    [self, epoch](caf::error&) {
      if (!stale(self, epoch))
        self->state.alter_isr_in_flight = false; // the next tick retries
    });
}

/// Carries out what the partition_leader decided: answers produces whose
/// batch the HW passed, wakes consumers when the HW moved, sends an ISR
/// change to the controller.
void after_leader_change(replica_ptr self) {
  auto& st = self->state;
  auto& L = *st.leader;
  if (L.high_watermark() > st.high_watermark) {
    st.high_watermark = L.high_watermark();
    wake_fetches(self);
  }
  publish_view(self);
  for (auto& c : L.take_completed()) {
    auto i = st.produces.find(c.id);
    if (i == st.produces.end())
      continue;
    auto base = c.error == error_code::none ? i->second.base_offset : -1;
    i->second.promise.deliver(
      produce_response{c.error, base, st.log_start_offset});
    st.produces.erase(i);
  }
  // Kafka's DelayedDeleteRecords.tryComplete: done once the low watermark
  // reaches the offset.
  if (!st.deletions.empty()) {
    auto low = L.low_watermark(st.log_start_offset);
    for (auto i = st.deletions.begin(); i != st.deletions.end();) {
      if (low >= i->second.required_offset) {
        i->second.promise.deliver(delete_records_response{error_code::none, low});
        i = st.deletions.erase(i);
      } else {
        ++i;
      }
    }
  }
  if (L.proposed_isr() && !st.alter_isr_in_flight)
    send_alter_isr(self);
}

// -- idempotent producers ---------------------------------------------------------

void produce(replica_ptr self, produce_request req,
             caf::typed_response_promise<produce_response> rp);

/// Hands the produces that waited on the producer state back to produce();
/// those of `producer_id` only, or all for -1.
void release_parked(replica_ptr self, int64_t producer_id = -1) {
  auto& st = self->state;
  std::vector<replica_state::parked_produce> ready;
  auto& parked = st.parked_produces;
  for (auto i = parked.begin(); i != parked.end();) {
    auto h = parse_header(i->request.batch.data(), i->request.batch.size());
    if (producer_id < 0 || (h && h->producer_id == producer_id)) {
      ready.push_back(std::move(*i));
      i = parked.erase(i);
    } else {
      ++i;
    }
  }
  for (auto& p : ready)
    produce(self, std::move(p.request), std::move(p.promise));
}

/// The producer fields of every batch with a producer id in `records`
/// that starts at or after `from` (a follower skips batches it holds).
std::vector<std::pair<producer_batch, int64_t>>
producer_batches_in(const bytes& records, int64_t from) {
  std::vector<std::pair<producer_batch, int64_t>> out;
  for (auto& b : record_batches{records}) {
    auto& h = b.header;
    if (h.producer_id >= 0 && h.base_offset >= from
        && (h.attributes & batch_layout::control_flag) == 0)
      out.emplace_back(producer_batch::of(h), h.base_offset);
  }
  return out;
}

void replay_producers(replica_state& st, const bytes& records, int64_t from) {
  for (auto& [b, base] : producer_batches_in(records, from))
    st.producers.replay(b, base, base + b.offset_delta);
}

/// Kafka rebuilds a log's producer state from its segments (and
/// snapshots) when it loads the log: troupe replays the batch headers from
/// the log start, once the leader first needs them.
void read_producers(replica_ptr self, uint64_t epoch, int64_t offset) {
  auto& st = self->state;
  log_read_request r{st.partition, offset, 1 << 20, -1};
  ask_log(self, r)
    .then(
      [self, epoch, offset](log_read_response& res) {
        if (stale(self, epoch))
          return;
        auto& st = self->state;
        if (res.error == error_code::offset_out_of_range
            && offset < res.log_start_offset) {
          read_producers(self, epoch, res.log_start_offset);
          return;
        }
        int64_t next = offset;
        auto& rs = res.records;
        for (auto& b : record_batches{rs})
          next = b.next_offset();
        replay_producers(st, rs, offset);
        if (res.error == error_code::none && next > offset
            && next < res.log_end_offset) {
          read_producers(self, epoch, next);
          return;
        }
        if (res.error != error_code::none)
          spdlog::error("replica {}: producer state not rebuilt: {}",
                        to_string(st.partition), to_string(res.error));
        st.producers_loading = false;
        st.producers_current = res.error == error_code::none;
        spdlog::info("replica {} on broker {}: {} producers rebuilt from the "
                     "log",
                     to_string(st.partition), st.broker_id,
                     st.producers.size());
        if (st.producers_current) {
          release_parked(self);
        } else {
          for (auto& p : std::exchange(st.parked_produces, {}))
            p.promise.deliver(produce_response{res.error, -1, -1, {}});
        }
      },
      [self, epoch](caf::error& err) {
        if (stale(self, epoch))
          return;
        auto& st = self->state;
        st.producers_loading = false;
        for (auto& p : std::exchange(st.parked_produces, {}))
          p.promise.deliver(err);
      });
}

void load_producers(replica_ptr self) {
  auto& st = self->state;
  if (st.producers_loading)
    return;
  st.producers_loading = true;
  st.producers.clear();
  read_producers(self, st.role_epoch, st.log_start_offset);
}

/// A retried batch already in the log: answered with the original's
/// offsets once the high watermark passed it (acks=all), as Kafka answers
/// a duplicate (UnifiedLog.analyzeAndValidateProducerState).
void answer_duplicate(replica_ptr self, const produce_request& req,
                      caf::typed_response_promise<produce_response>& rp,
                      const producer_batch_metadata& original) {
  auto& st = self->state;
  metrics().produces++;
  if (req.acks != -1 || st.high_watermark > original.last_offset) {
    rp.deliver(produce_response{error_code::none, original.first_offset,
                                st.log_start_offset, {}});
    return;
  }
  auto id = st.next_id++;
  st.produces.emplace(id,
                      replica_state::waiting_produce{rp, original.first_offset});
  st.leader->add_pending({id, original.last_offset + 1});
  self->delayed_send(self, ms(std::max(0, req.timeout_ms)),
                     produce_timeout{id});
  after_leader_change(self);
}

// -- produce -----------------------------------------------------------------------

void produce(replica_ptr self, produce_request req,
             caf::typed_response_promise<produce_response> rp) {
  auto& st = self->state;
  auto refuse = [&rp](error_code e, std::string message = {}) {
    rp.deliver(produce_response{e, -1, -1, std::move(message)});
  };
  if (req.acks != 0 && req.acks != 1 && req.acks != -1)
    return refuse(error_code::invalid_required_acks);
  if (auto e = check_leader(st, -1); e != error_code::none)
    return refuse(e);
  if (req.batch.size() > st.config.log.max_batch_bytes)
    return refuse(error_code::message_too_large);
  if (req.acks == -1)
    if (auto e = st.leader->check_acks_all(); e != error_code::none)
      return refuse(e);
  // A batch with a producer id is checked against the producer's state
  // before it is appended and recorded in it after (KIP-98).
  std::optional<producer_batch> idempotent;
  if (auto h = parse_header(req.batch.data(), req.batch.size());
      h && h->producer_id >= 0) {
    if (!st.producers_current) {
      st.parked_produces.push_back({std::move(req), std::move(rp)});
      load_producers(self);
      return;
    }
    auto b = producer_batch::of(*h);
    auto v = st.producers.check(b, to_string(st.partition));
    switch (v.what) {
      case producer_state::outcome::refused:
        return refuse(v.error, std::move(v.message));
      case producer_state::outcome::duplicate_pending:
        st.parked_produces.push_back({std::move(req), std::move(rp)});
        return;
      case producer_state::outcome::duplicate:
        answer_duplicate(self, req, rp, v.original);
        return;
      case producer_state::outcome::append:
        st.producers.begin_append(b);
        idempotent = b;
        break;
    }
  }
  metrics().produces++;
  auto acks = req.acks;
  auto timeout = req.timeout_ms;
  auto epoch = st.role_epoch;
  auto id = st.next_id++;
  if (acks == 0)
    rp.deliver(produce_response{error_code::none, -1, st.log_start_offset, {}});
  else
    st.appending.emplace(id, rp);
  // The promise of an append underway; empty once answered elsewhere (the
  // replica stopped) or for acks=0.
  auto take = [self, id] {
    std::optional<caf::typed_response_promise<produce_response>> p;
    auto& waiting = self->state.appending;
    if (auto i = waiting.find(id); i != waiting.end()) {
      p = std::move(i->second);
      waiting.erase(i);
    }
    return p;
  };
  // The producer state learns the outcome whatever the role is by now:
  // the batch is in the log or it is not.
  auto settle = [self, idempotent](const log_append_response* a) {
    if (!idempotent)
      return;
    auto& st = self->state;
    if (a && a->error == error_code::none)
      st.producers.complete_append(*idempotent, a->base_offset,
                                   a->base_offset + idempotent->offset_delta);
    else
      st.producers.abort_append(*idempotent);
    release_parked(self, idempotent->producer_id);
  };
  log_append_request append{st.partition, st.leader->leader_epoch(),
                            std::move(req.batch), false, st.high_watermark};
  ask_log(self, std::move(append))
    .then(
      [self, take, settle, id, acks, timeout, epoch](log_append_response& a) {
        auto& st = self->state;
        auto rp = take();
        auto answer = [&](produce_response r) {
          if (rp)
            rp->deliver(std::move(r));
        };
        if (a.error != error_code::none) {
          answer({a.error, -1, st.log_start_offset, a.error_message});
          settle(&a);
          return;
        }
        if (stale(self, epoch)) {
          // Written under a leadership that has ended: only acks=1 holds.
          answer(acks == 1 ? produce_response{error_code::none, a.base_offset,
                                              st.log_start_offset, {}}
                           : produce_response{
                             error_code::not_leader_or_follower, -1, -1, {}});
          settle(&a);
          return;
        }
        st.log_end_offset = std::max(st.log_end_offset, a.log_end_offset);
        st.latest_epoch = std::max(st.latest_epoch, st.leader->leader_epoch());
        st.leader->on_local_append(a.log_end_offset);
        if (acks == 1)
          answer({error_code::none, a.base_offset, st.log_start_offset, {}});
        if (acks == -1 && rp) {
          st.produces.emplace(
            id, replica_state::waiting_produce{*rp, a.base_offset});
          st.leader->add_pending({id, a.log_end_offset});
          self->delayed_send(self, ms(std::max(0, timeout)),
                             produce_timeout{id});
        }
        settle(&a);
        after_leader_change(self);
        wake_fetches(self);
      },
      [self, take, settle](caf::error& err) {
        spdlog::error("replica {}: append failed: {}",
                      to_string(self->state.partition), caf::to_string(err));
        if (auto rp = take())
          rp->deliver(
            produce_response{error_code::kafka_storage_error, -1, -1, {}});
        settle(nullptr);
      });
}

caf::result<fetch_response> fetch(replica_ptr self, fetch_request& req) {
  auto& st = self->state;
  if (auto e = check_leader(st, req.current_leader_epoch);
      e != error_code::none)
    return fetch_answer(st, e);
  if (req.max_bytes < 0)
    return fetch_answer(st, error_code::invalid_request);
  if (req.offset < st.log_start_offset || req.offset > st.log_end_offset) {
    // Rare and decisive for a consumer (it resets to auto.offset.reset):
    // said once per fetch, with what the leader knew.
    spdlog::info("replica {} on broker {}: fetch by {} at offset {} out of "
                 "range [{}, {}] (high watermark {}, epoch {})",
                 to_string(st.partition), st.broker_id,
                 req.replica_id >= 0 ? "broker " + std::to_string(req.replica_id)
                                     : std::string{"a consumer"},
                 req.offset, st.log_start_offset, st.log_end_offset,
                 st.high_watermark, st.latest_epoch);
    return fetch_answer(st, error_code::offset_out_of_range);
  }
  if (req.replica_id >= 0) {
    auto& m = *st.metadata;
    if (std::find(m.replicas.begin(), m.replicas.end(), req.replica_id)
          == m.replicas.end()
        || req.replica_id == st.broker_id)
      return fetch_answer(st, error_code::not_leader_or_follower);
    st.leader->on_follower_fetch(req.replica_id, req.offset, now_ms(self));
    st.leader->on_follower_log_start(req.replica_id, req.log_start_offset);
    after_leader_change(self);
  } else {
    metrics().record_fetches++;
  }
  auto throttled = leader_throttles(self, req);
  if (throttled && req.max_wait_ms <= 0)
    return fetch_answer(st, error_code::none);
  auto rp = self->make_response_promise<fetch_response>();
  if (!throttled
      && (has_data(st, req) || req.max_wait_ms <= 0 || req.min_bytes <= 0)) {
    read_for(self, req, rp);
    return rp;
  }
  // Long-poll: park until data arrives or max_wait_ms passes. An idle
  // partition costs one timer per waiting fetcher, nothing more.
  auto id = st.next_id++;
  auto wait = req.max_wait_ms;
  st.fetches.emplace(id,
                     replica_state::parked_fetch{rp, std::move(req), throttled});
  self->delayed_send(self, ms(wait), fetch_timeout{id});
  return rp;
}

// -- DeleteRecords -----------------------------------------------------------------

/// The leader moved its own log start offset: answered now if the low
/// watermark is there already, else parked until the followers follow.
void park_deletion(replica_ptr self, int64_t offset, int32_t timeout_ms,
                   caf::typed_response_promise<delete_records_response> rp) {
  auto& st = self->state;
  auto low = st.leader->low_watermark(st.log_start_offset);
  if (low >= offset) {
    rp.deliver(delete_records_response{error_code::none, low});
    return;
  }
  auto id = st.next_id++;
  st.deletions.emplace(id, replica_state::waiting_deletion{rp, offset, low});
  self->delayed_send(self, ms(std::max(0, timeout_ms)), produce_timeout{id});
}

/// Kafka's ReplicaManager.deleteRecords and Partition.deleteRecordsOnLeader:
/// internal topics refused, then leadership, cleanup.policy (the log's,
/// asked first), the offset (-1: the high watermark; never above it); the
/// log start offset moves and the answer waits for the low watermark.
caf::result<delete_records_response>
delete_records(replica_ptr self, const delete_records_request& req) {
  auto& st = self->state;
  if (internal_topic(st.partition.topic))
    return delete_records_response{error_code::invalid_topic_exception, -1};
  if (st.current != role::leader)
    return delete_records_response{error_code::not_leader_or_follower, -1};
  auto rp = self->make_response_promise<delete_records_response>();
  auto epoch = st.role_epoch;
  auto offset = req.offset == -1 ? st.high_watermark : req.offset;
  auto timeout = req.timeout_ms;
  auto failed = [rp](caf::error& err) mutable { rp.deliver(std::move(err)); };
  // The check alone (offset -1 to the log manager): the topic's policy.
  ask_log(self, delete_records_request{st.partition, -1, 0})
    .then(
      [self, rp, epoch, offset, timeout, failed](delete_records_response& c) mutable {
        auto& st = self->state;
        if (stale(self, epoch))
          { rp.deliver(delete_records_response{error_code::not_leader_or_follower, -1}); return; }
        if (c.error != error_code::none)
          { rp.deliver(delete_records_response{c.error, -1}); return; }
        if (offset < 0 || offset > st.high_watermark)
          { rp.deliver(delete_records_response{error_code::offset_out_of_range, -1}); return; }
        ask_log(self, delete_records_request{st.partition, offset, 0})
          .then(
            [self, rp, epoch, offset, timeout](delete_records_response& r) mutable {
              auto& st = self->state;
              if (r.error != error_code::none)
                { rp.deliver(delete_records_response{r.error, -1}); return; }
              st.log_start_offset = std::max(st.log_start_offset, r.low_watermark);
              publish_view(self);
              if (stale(self, epoch))
                { rp.deliver(delete_records_response{error_code::not_leader_or_follower, -1}); return; }
              spdlog::info("replica {} on broker {}: log start offset {} "
                           "(DeleteRecords)",
                           to_string(st.partition), st.broker_id,
                           st.log_start_offset);
              park_deletion(self, offset, timeout, rp);
            },
            failed);
      },
      failed);
  return rp;
}

// -- follower ----------------------------------------------------------------------

/// Kafka's follower maybeIncrementLogStartOffset: the leader's log start
/// offset, up to this replica's high watermark, becomes its own before the
/// next fetch tells the leader.
void follow_log_start(replica_ptr self, uint64_t epoch, int64_t leader_start) {
  auto& st = self->state;
  auto target = std::min(leader_start, st.high_watermark);
  if (target <= st.log_start_offset) {
    fetch_from_leader(self);
    return;
  }
  st.fetching = true;
  ask_log(self, delete_records_request{st.partition, target, 0})
    .then(
      [self, epoch](delete_records_response& r) {
        if (stale(self, epoch))
          return;
        auto& st = self->state;
        st.fetching = false;
        if (r.error == error_code::none)
          st.log_start_offset = std::max(st.log_start_offset, r.low_watermark);
        else
          spdlog::error("replica {} on broker {}: log start not moved: {}",
                        to_string(st.partition), st.broker_id,
                        to_string(r.error));
        fetch_from_leader(self);
      },
      [self, epoch](caf::error&) { retry_later(self, epoch); });
}

/// Kafka's fetchOffsetAndTruncate when the leader's log starts past this
/// replica's end (DeleteRecords or retention while it was away):
/// truncateFullyAndStartAt the leader's log start offset.
void start_at_leader_start(replica_ptr self, uint64_t epoch,
                           int64_t leader_start) {
  auto& st = self->state;
  st.fetching = true;
  ask_log(self, delete_records_request{st.partition, leader_start, 0})
    .then(
      [self, epoch](delete_records_response& r) {
        if (stale(self, epoch))
          return;
        auto& st = self->state;
        st.fetching = false;
        if (r.error != error_code::none) {
          st.truncated = false;
          retry_later(self, epoch);
          return;
        }
        spdlog::info("replica {} on broker {}: log starts again at the "
                     "leader's log start offset {}",
                     to_string(st.partition), st.broker_id, r.low_watermark);
        st.log_start_offset = st.log_end_offset = r.low_watermark;
        st.high_watermark = r.low_watermark;
        st.latest_epoch = -1;
        st.producers_current = false;
        fetch_from_leader(self);
      },
      [self, epoch](caf::error&) { retry_later(self, epoch); });
}

/// The highest partition leader epoch among the batches.
int32_t max_epoch_in(const bytes& records, int32_t floor) {
  for (auto& b : record_batches{records})
    floor = std::max(floor, b.header.partition_leader_epoch);
  return floor;
}

bool follower_throttles(replica_ptr self) {
  auto& st = self->state;
  if (!st.follower_throttled || !st.quotas || !st.metadata)
    return false;
  auto& isr = st.metadata->isr;
  if (std::find(isr.begin(), isr.end(), st.broker_id) != isr.end())
    return false;
  return st.quotas->exceeded(replication_quotas::follower, now_ms(self));
}

void fetch_from_leader(replica_ptr self) {
  auto& st = self->state;
  if (st.current != role::follower || st.fetching || !st.truncated)
    return;
  auto epoch = st.role_epoch;
  auto backoff = [self, epoch] { retry_later(self, epoch); };
  auto leader = leader_broker(st);
  if (!leader) {
    backoff();
    return;
  }
  // Kafka's ReplicaFetcherThread.shouldFollowerThrottle: a throttled
  // replica out of the ISR skips its fetch while the follower quota is
  // exceeded, and the fetcher backs off.
  if (follower_throttles(self)) {
    backoff();
    return;
  }
  auto id = send_to_leader(st, leader);
  fetch_request req{st.partition,
                    st.broker_id,
                    st.log_end_offset,
                    st.fetch.max_bytes,
                    st.fetch.wait_max_ms,
                    1,
                    st.metadata->leader_epoch,
                    st.log_start_offset};
  request_then(
    self, leader, ms(st.fetch.wait_max_ms) + cluster_request_timeout, req,
    [self, epoch, id, backoff](fetch_response& r) {
      if (stale(self, epoch) || abandoned(self, id))
        return;
      auto& st = self->state;
      st.fetching = false;
      if (r.error == error_code::offset_out_of_range
          && r.log_start_offset > st.log_end_offset) {
        start_at_leader_start(self, epoch, r.log_start_offset);
        return;
      }
      if (r.error != error_code::none) {
        if (r.error == error_code::offset_out_of_range)
          st.truncated = false; // find the divergence again
        backoff();
        return;
      }
      auto leader_hw = r.high_watermark;
      auto leader_start = r.log_start_offset;
      if (r.records.empty()) {
        st.high_watermark =
          std::max(st.high_watermark, std::min(leader_hw, st.log_end_offset));
        follow_log_start(self, epoch, leader_start);
        return;
      }
      if (st.follower_throttled && st.quotas)
        st.quotas->record(replication_quotas::follower,
                          static_cast<int64_t>(r.records.size()), now_ms(self));
      st.fetching = true;
      auto next_epoch = max_epoch_in(r.records, st.latest_epoch);
      // A follower keeps the producer state of its copies (Kafka's
      // AppendOrigin.REPLICATION), so that it can lead without a replay.
      std::vector<std::pair<producer_batch, int64_t>> copies;
      if (st.producers_current)
        copies = producer_batches_in(r.records, st.log_end_offset);
      log_append_request append{st.partition, -1, std::move(r.records), true,
                                st.high_watermark};
      ++st.follower_log_ops;
      ask_log(self, std::move(append))
        .then(
          [self, epoch, backoff, leader_hw, leader_start, next_epoch,
           copies = std::move(copies)](log_append_response& a) {
            --self->state.follower_log_ops;
            if (stale(self, epoch)) {
              // The copies are in the log (or some are, on an error).
              auto& st = self->state;
              log_changed_under_role(
                self, st.log_start_offset,
                std::max(st.log_end_offset, a.log_end_offset), next_epoch);
              return;
            }
            auto& st = self->state;
            st.fetching = false;
            st.log_end_offset = std::max(st.log_end_offset, a.log_end_offset);
            if (a.error != error_code::none) {
              spdlog::error("replica {} on broker {}: follower append: {}",
                            to_string(st.partition), st.broker_id,
                            to_string(a.error));
              st.truncated = false;
              st.producers_current = false; // some copies may be in
              backoff();
              return;
            }
            if (st.producers_current)
              for (auto& [b, base] : copies)
                st.producers.replay(b, base, base + b.offset_delta);
            st.latest_epoch = next_epoch;
            st.high_watermark = std::max(
              st.high_watermark, std::min(leader_hw, st.log_end_offset));
            follow_log_start(self, epoch, leader_start);
          },
          log_op_failed(self, backoff));
    },
    leader_unanswered(self, id, backoff));
}

} // namespace

replica_actor::behavior_type
replica(replica_ptr self, topic_partition partition, int32_t broker_id,
        cluster_config config, replica_fetch_config fetch_cfg,
        log_manager_actor log, controller_actor controller,
        std::vector<broker_info> peers,
        replica_listener_actor leadership_listener,
        replication_quotas_ptr quotas,
        std::shared_ptr<fetch_purgatory> purgatory) {
  auto& st = self->state;
  st.leadership_listener = std::move(leadership_listener);
  st.quotas = std::move(quotas);
  st.purgatory = std::move(purgatory);
  st.partition = std::move(partition);
  // However it ends, a replica that led leaves no view behind it.
  if (st.purgatory)
    self->attach_functor([p = st.purgatory, tp = st.partition, id = self->id()] {
      p->publish(tp, id, std::nullopt);
    });
  st.broker_id = broker_id;
  st.config = std::move(config);
  st.fetch = fetch_cfg;
  st.log = std::move(log);
  st.controller = std::move(controller);
  st.peers = std::move(peers);
  // A stopped broker ends its replicas: what waits is answered first.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    reset_role(self);
    for (auto& [id, rp] : self->state.appending)
      rp.deliver(produce_response{error_code::not_leader_or_follower, -1, -1});
    self->state.appending.clear();
    self->quit(msg.reason);
  });
  // Open (and recover) the log first; the role waits for it.
  ask_log(self, log_epoch_request{st.partition, -1, -1})
    .then(
      [self](log_epoch_response& l) {
        auto& st = self->state;
        if (l.error != error_code::none) {
          spdlog::error("replica {} on broker {}: log unavailable: {}",
                        to_string(st.partition), st.broker_id,
                        to_string(l.error));
          st.current = role::offline;
          return;
        }
        st.log_start_offset = l.log_start_offset;
        st.log_end_offset = l.log_end_offset;
        st.latest_epoch = l.latest_epoch;
        // Kafka's UnifiedLog.updateHighWatermark: never below the log start
        // offset (a DeleteRecords' log-start-offset-checkpoint), never above
        // the log end.
        // The checkpointed high watermark (Kafka's
        // replication-offset-checkpoint): a replica opened again starts
        // where its last run's left off, not at the log start.
        st.high_watermark = std::min(
          std::max({st.high_watermark, l.high_watermark, st.log_start_offset}),
          st.log_end_offset);
        st.current = role::offline;
        become(self);
      },
      [self](caf::error& err) {
        spdlog::error("replica {}: log manager gone: {}",
                      to_string(self->state.partition), caf::to_string(err));
        self->state.current = role::offline;
      });
  return {
    [self](produce_request& req) {
      auto rp = self->make_response_promise<produce_response>();
      produce(self, std::move(req), rp);
      return rp;
    },
    [self](fetch_request& req) { return fetch(self, req); },
    [self](list_offsets_request& req) -> caf::result<list_offsets_response> {
      auto& st = self->state;
      if (auto e = check_leader(st, req.current_leader_epoch);
          e != error_code::none)
        return list_offsets_response{e, -1, -1};
      // Kafka's Partition.fetchOffsetForTimestamp; without tiered storage
      // the earliest local offset is the log start and nothing is tiered.
      if (req.timestamp == -2 || req.timestamp == earliest_local_timestamp)
        return list_offsets_response{error_code::none, -1, st.log_start_offset};
      if (req.timestamp == -1)
        return list_offsets_response{error_code::none, -1, st.high_watermark,
                                     st.leader->leader_epoch()};
      if (req.timestamp == latest_tiered_timestamp)
        return list_offsets_response{error_code::none, -1, -1, -1};
      if (req.timestamp < 0 && req.timestamp != max_timestamp_lookup)
        return list_offsets_response{error_code::invalid_request, -1, -1};
      auto rp = self->make_response_promise<list_offsets_response>();
      ask_log(self, req)
        .then(
          [self, rp](list_offsets_response& r) mutable {
            // Only what consumers may read: below the high watermark.
            if (r.offset >= self->state.high_watermark)
              r = list_offsets_response{r.error, -1, -1};
            rp.deliver(r);
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [self](
      epoch_end_offset_request& req) -> caf::result<epoch_end_offset_response> {
      auto& st = self->state;
      if (auto e = check_leader(st, req.current_leader_epoch);
          e != error_code::none)
        return epoch_end_offset_response{e, -1, -1};
      auto rp = self->make_response_promise<epoch_end_offset_response>();
      ask_log(self, log_epoch_request{st.partition, req.leader_epoch, -1})
        .then(
          [rp](log_epoch_response& l) mutable {
            rp.deliver(
              epoch_end_offset_response{l.error, l.epoch, l.end_offset});
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [self](replica_status_request&) {
      auto& st = self->state;
      replica_status s;
      s.partition = st.partition;
      s.broker_id = st.broker_id;
      s.role = st.current;
      if (st.metadata) {
        s.leader = st.metadata->leader;
        s.leader_epoch = st.metadata->leader_epoch;
        s.isr = st.metadata->isr;
      }
      if (st.leader)
        s.isr = st.leader->isr();
      s.log_start_offset = st.log_start_offset;
      s.log_end_offset = st.log_end_offset;
      s.high_watermark = st.high_watermark;
      return s;
    },
    [self](partition_update& u) {
      auto& st = self->state;
      if (st.metadata && u.state.leader_epoch < st.metadata->leader_epoch)
        return; // older than what we know
      bool same_leadership =
        st.metadata && st.metadata->leader == u.state.leader
        && st.metadata->leader_epoch == u.state.leader_epoch
        && (st.current == role::leader || st.current == role::follower);
      if (st.metadata && same_leadership
          && u.state.partition_epoch < st.metadata->partition_epoch)
        return; // an ISR change we already know a newer one of
      st.metadata = std::move(u.state);
      if (!same_leadership) {
        become(self);
      } else if (st.current == role::leader) {
        // The controller changed the ISR itself (a broker stopped): the
        // high watermark moves over the remaining ISR at once.
        st.leader->apply_isr(st.metadata->isr);
        after_leader_change(self);
      }
    },
    [self](isr_expiration_tick& t) {
      auto& st = self->state;
      if (stale(self, t.role_epoch) || st.current != role::leader)
        return;
      st.leader->on_isr_expiration(now_ms(self));
      // producer.id.expiration.ms (Kafka's default: one day), checked at
      // this tick rather than producer.id.expiration.check.interval.ms.
      st.producers.remove_expired(now_ms(self), producer_id_expiration_ms);
      after_leader_change(self);
      self->delayed_send(
        self, ms(std::max<int64_t>(1, st.config.replica_lag_time_max_ms / 2)),
        isr_expiration_tick{t.role_epoch});
    },
    [self](produce_timeout& t) {
      auto& st = self->state;
      if (auto d = st.deletions.find(t.id); d != st.deletions.end()) {
        // Kafka's DelayedDeleteRecords expired: REQUEST_TIMED_OUT with the
        // low watermark of the leader's own deletion.
        d->second.promise.deliver(delete_records_response{
          error_code::request_timed_out, d->second.low_watermark});
        st.deletions.erase(d);
        return;
      }
      auto i = st.produces.find(t.id);
      if (i == st.produces.end() || !st.leader
          || !st.leader->expire_pending(t.id))
        return;
      i->second.promise.deliver(
        produce_response{error_code::request_timed_out, -1, -1});
      st.produces.erase(i);
    },
    [self](fetch_timeout& t) {
      auto& st = self->state;
      auto i = st.fetches.find(t.id);
      if (i == st.fetches.end())
        return;
      i->second.promise.deliver(fetch_answer(st, error_code::none));
      st.fetches.erase(i);
    },
    [self](cluster_peers& peers) {
      // The brokers of a cluster come and go (a restarted node has new
      // handles); the next fetch goes to the leader's current one.
      auto& st = self->state;
      st.peers = std::move(peers.brokers);
      // CAF 0.17 drops what a proxy held when its node link went down,
      // requests included: give up on one sent to a handle that is gone
      // and ask the current one, rather than wait for its timeout.
      if (st.fetch_target && leader_broker(st).address() != st.fetch_target) {
        ++st.fetch_id;
        st.fetch_target = nullptr;
        retry_later(self, st.role_epoch);
      }
    },
    [self](follower_fetch_tick& t) {
      auto& st = self->state;
      if (stale(self, t.role_epoch) || st.current != role::follower)
        return;
      if (!st.truncated)
        truncate_then_fetch(self);
      else
        fetch_from_leader(self);
    },
    [self](delete_records_request& req) { return delete_records(self, req); },
    [self](replica_config& c) {
      // The topic's configs changed (per-topic configs): the next produce
      // is checked against them, and a leader's ISR against the new
      // min.insync.replicas.
      auto& st = self->state;
      st.config.min_insync_replicas = c.min_insync_replicas;
      st.config.log.max_batch_bytes = static_cast<size_t>(c.max_message_bytes);
      st.leader_throttled = c.leader_throttled;
      st.follower_throttled = c.follower_throttled;
      if (st.leader)
        st.leader->set_min_insync_replicas(c.min_insync_replicas);
    },
  };
}

} // namespace troupe
