#include "actors/broker.hpp"

#include <algorithm>
#include <memory>
#include <random>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "actors/consumer_group_coordinator.hpp"
#include "actors/groups/offsets_writer.hpp"
#include "actors/group_coordinator.hpp"
#include "actors/log_manager.hpp"
#include "actors/replica.hpp"
#include "domain/java_hash.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/topic_name.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

namespace {

constexpr auto internal_timeout = std::chrono::seconds(30);

/// Leader of the group's __consumer_offsets partition, -1 while unknown.
int32_t coordinator_for(broker_ptr self, const std::string& group_id) {
  auto& st = self->state;
  auto p = static_cast<size_t>(offsets_partition_for(
    group_id, static_cast<int32_t>(st.offsets_leaders.size())));
  return p < st.offsets_leaders.size() ? st.offsets_leaders[p] : -1;
}

void load_offsets_partition(broker_ptr self, int32_t partition);
void abandon_replacements(broker_ptr self);

/// Takes the controller's view of __consumer_offsets leadership. Groups of
/// partitions this broker no longer leads are resigned: their coordinators
/// answer everything parked with NOT_COORDINATOR and stop. Partitions it
/// now leads are replayed to rebuild their groups.
void update_offsets_leaders(broker_ptr self,
                            const std::vector<partition_metadata>& parts) {
  auto& st = self->state;
  std::vector<int32_t> gained;
  for (auto& p : parts) {
    if (p.partition < 0)
      continue;
    auto i = static_cast<size_t>(p.partition);
    if (i >= st.offsets_leaders.size())
      st.offsets_leaders.resize(i + 1, -1);
    if (p.leader == st.node_id && st.offsets_leaders[i] != st.node_id)
      gained.push_back(p.partition);
    if (p.leader != st.node_id)
      st.loading.erase(p.partition);
    st.offsets_leaders[i] = p.leader;
  }
  auto resign = [&](auto& groups) {
    for (auto i = groups.begin(); i != groups.end();) {
      if (coordinator_for(self, i->first) != st.node_id) {
        spdlog::info("broker {}: resigning group {}", st.node_id, i->first);
        self->send(i->second, group_shutdown{error_code::not_coordinator});
        i = groups.erase(i);
      } else {
        ++i;
      }
    }
  };
  resign(st.groups);
  resign(st.consumer_groups);
  abandon_replacements(self);
  for (auto p : gained)
    load_offsets_partition(self, p);
}

group_coordinator_actor find_group(broker_ptr self,
                                   const std::string& group_id) {
  auto i = self->state.groups.find(group_id);
  return i == self->state.groups.end() ? group_coordinator_actor{} : i->second;
}

/// A seed for a new coordinator's member ids. A fixed seed (tests) still
/// differs per broker: a group that moves to another coordinator must not
/// hand out its members' ids again.
uint64_t next_group_seed(broker_ptr self) {
  auto& st = self->state;
  return st.config.seed != 0 ? st.config.seed + st.next_seed++
                                 + (static_cast<uint64_t>(st.node_id) << 32)
                             : std::random_device{}();
}

/// The group's __consumer_offsets partition.
topic_partition offsets_partition_of(broker_ptr self,
                                     const std::string& group_id) {
  return {offsets_topic, offsets_partition_for(
                           group_id, static_cast<int32_t>(
                                       self->state.offsets_leaders.size()))};
}

/// This broker's replica of `tp`; null without log.dirs.
replica_actor replica_of(broker_ptr self, const topic_partition& tp) {
  auto i = self->state.replicas.find(tp);
  return i == self->state.replicas.end() ? replica_actor{} : i->second;
}

/// Kafka's getOrMaybeCreateGroup: only a new member's JoinGroup or a
/// standalone commit creates a group (and loading __consumer_offsets).
group_coordinator_actor create_group(broker_ptr self,
                                     const std::string& group_id,
                                     loaded_group loaded = {}) {
  auto& st = self->state;
  auto tp = offsets_partition_of(self, group_id);
  auto coordinator = self->spawn<caf::linked>(
    group_coordinator, group_id, st.config.group, next_group_seed(self),
    st.listener, replica_of(self, tp), tp, std::move(loaded));
  st.groups.emplace(group_id, coordinator);
  return coordinator;
}

/// Kafka's order of checks before a group request reaches its coordinator.
error_code check_group_request(broker_ptr self, const std::string& group_id,
                               bool allow_empty_id) {
  if (auto e = validate_group_id(group_id, allow_empty_id);
      e != error_code::none)
    return e;
  auto& st = self->state;
  if (!st.alive)
    return error_code::not_coordinator;
  auto leader = coordinator_for(self, group_id);
  if (leader < 0)
    return error_code::coordinator_not_available;
  if (leader != st.node_id)
    return error_code::not_coordinator;
  auto p = offsets_partition_for(
    group_id, static_cast<int32_t>(st.offsets_leaders.size()));
  if (st.loading.count(p))
    return error_code::coordinator_load_in_progress;
  return error_code::none;
}

offset_commit_response commit_error(const offset_commit_request& req,
                                    error_code e) {
  offset_commit_response res;
  for (auto& p : req.partitions)
    res.partitions.push_back({p.topic, p.partition, e});
  return res;
}

leave_group_response leave_error(const leave_group_request& req, error_code e) {
  leave_group_response res;
  for (auto& m : req.members)
    res.members.push_back({m.member_id, m.group_instance_id, e});
  if (res.members.size() == 1 || req.members.empty())
    res.error = e;
  return res;
}

// -- KIP-848 consumer groups -------------------------------------------------------

template <class Response>
using promise_of = caf::typed_response_promise<Response>;

/// Every topic of the cluster with its id and partition count: what the
/// consumer group coordinators resolve subscriptions against (Kafka's
/// metadata image). Topics whose id is not known yet are left out.
std::vector<topic_info> cluster_topics(broker_ptr self) {
  auto& st = self->state;
  std::vector<topic_info> result;
  for (auto& [name, count] : st.topics)
    if (auto i = st.topic_ids.find(name); i != st.topic_ids.end())
      result.push_back({i->second, name, count});
  return result;
}

/// New topics or partition counts reach every consumer group coordinator.
void announce_topics(broker_ptr self) {
  auto& st = self->state;
  if (st.consumer_groups.empty())
    return;
  consumer_group_topics msg{cluster_topics(self)};
  for (auto& [id, c] : st.consumer_groups)
    self->send(c, msg);
}

consumer_group_coordinator_actor
find_consumer_group(broker_ptr self, const std::string& group_id) {
  auto i = self->state.consumer_groups.find(group_id);
  return i == self->state.consumer_groups.end()
           ? consumer_group_coordinator_actor{}
           : i->second;
}

/// A consumer group's coordinator, with what __consumer_offsets holds of
/// the group (nothing for a new group).
consumer_group_coordinator_actor
create_consumer_group(broker_ptr self, const std::string& group_id,
                      consumer_group_image loaded = {}) {
  auto& st = self->state;
  auto tp = offsets_partition_of(self, group_id);
  auto coordinator = self->spawn<caf::linked>(
    consumer_group_coordinator, group_id, st.config.group,
    next_group_seed(self), st.listener, replica_of(self, tp), tp,
    cluster_topics(self), std::move(loaded));
  st.consumer_groups.emplace(group_id, coordinator);
  return coordinator;
}

/// Writes `records` to the group's __consumer_offsets partition (acks=all);
/// `done` gets the error a group client understands. Without log.dirs
/// nothing is written and `done` runs at once.
void write_group_records(broker_ptr self, const std::string& group_id,
                         std::vector<record_kv> records,
                         std::function<void(error_code)> done) {
  auto tp = offsets_partition_of(self, group_id);
  offsets_log log{replica_of(self, tp), tp,
                  self->state.config.group.offset_commit_timeout_ms};
  write_offsets(self, log, std::move(records),
                [done](error_code e) { done(coordinator_write_error(e)); });
}

/// The committed offsets of a group as an OffsetFetch of all of them
/// answered: what the group that replaces it starts from (Kafka keeps
/// offsets apart from groups, so they survive the change of protocol).
std::map<topic_partition, committed_offset>
offsets_of(const offset_fetch_response& res, int64_t now) {
  std::map<topic_partition, committed_offset> result;
  for (auto& p : res.partitions)
    if (p.error == error_code::none && p.offset >= 0)
      result[{p.topic, p.partition}] = {p.offset, p.leader_epoch, p.metadata,
                                        now};
  return result;
}

/// While the group id is being replaced, `again` waits for the outcome
/// (`none`: route the request again); true when it waits.
bool park_while_replacing(broker_ptr self, const std::string& group_id,
                          std::function<void(error_code)> again) {
  auto i = self->state.replacing.find(group_id);
  if (i == self->state.replacing.end())
    return false;
  i->second.parked.push_back(std::move(again));
  return true;
}

void finish_replacement(broker_ptr self, const std::string& group_id,
                        uint64_t token, bool replaced, error_code e) {
  auto& st = self->state;
  auto i = st.replacing.find(group_id);
  if (i == st.replacing.end() || i->second.token != token)
    return; // resigned meanwhile: everything was answered then
  auto r = std::move(i->second);
  st.replacing.erase(i);
  r.done(replaced, e);
  for (auto& again : r.parked)
    again(e);
}

/// Groups of partitions this broker no longer coordinates stop waiting:
/// what waits gets NOT_COORDINATOR.
void abandon_replacements(broker_ptr self) {
  auto& st = self->state;
  for (auto i = st.replacing.begin(); i != st.replacing.end();) {
    if (st.alive && coordinator_for(self, i->first) == st.node_id) {
      ++i;
      continue;
    }
    auto r = std::move(i->second);
    i = st.replacing.erase(i);
    r.done(false, error_code::not_coordinator);
    for (auto& again : r.parked)
      again(error_code::not_coordinator);
  }
}

/// Kafka's maybeDeleteEmptyClassicGroup (`to_consumer`) and
/// maybeDeleteEmptyConsumerGroup: if the group of the other protocol is
/// empty, its tombstones are written and a group of the new protocol takes
/// its place with its committed offsets; `done(true, none)` then. A group
/// with members stays: `done(false, none)`.
void replace_empty_group(broker_ptr self, const std::string& group_id,
                         bool to_consumer,
                         std::function<void(bool, error_code)> done) {
  auto& st = self->state;
  auto token = ++st.next_replacement;
  st.replacing[group_id] = {token, std::move(done), {}};
  auto finish = [self, group_id, token](bool replaced, error_code e) {
    finish_replacement(self, group_id, token, replaced, e);
  };
  auto current = [self, group_id, token] {
    auto i = self->state.replacing.find(group_id);
    return i != self->state.replacing.end() && i->second.token == token;
  };
  // The group being replaced answers through this interface; both kinds
  // of coordinator speak it.
  using reader = caf::typed_actor<
    caf::replies_to<list_groups_request>::with<listed_group>,
    caf::replies_to<offset_fetch_request>::with<offset_fetch_response>>;
  auto old = to_consumer
               ? caf::actor_cast<reader>(find_group(self, group_id))
               : caf::actor_cast<reader>(find_consumer_group(self, group_id));
  auto failed = [finish](caf::error&) {
    finish(false, error_code::coordinator_not_available);
  };
  self->request(old, internal_timeout, list_groups_request{})
    .then(
      [=](listed_group& listed) {
        if (!current())
          return;
        if (listed.state != any_group_state::empty) {
          finish(false, error_code::none);
          return;
        }
        self->request(old, internal_timeout, offset_fetch_request{group_id, {}})
          .then(
            [=](offset_fetch_response& fetched) {
              if (!current())
                return;
              auto offsets = offsets_of(fetched, now_ms(self));
              std::vector<record_kv> tombstones;
              if (to_consumer) {
                tombstones.push_back(group_tombstone(group_id));
              } else {
                // ConsumerGroup.createGroupTombstoneRecords of an empty
                // group.
                tombstones.push_back(consumer_group_record_kv(
                  group_id, target_assignment_epoch_record{0, true}));
                tombstones.push_back(consumer_group_record_kv(
                  group_id, subscription_metadata_record{{}, true}));
                tombstones.push_back(consumer_group_record_kv(
                  group_id, group_epoch_record{0, true}));
              }
              write_group_records(
                self, group_id, std::move(tombstones),
                [=](error_code e) mutable {
                  if (!current())
                    return;
                  if (e != error_code::none) {
                    finish(false, e);
                    return;
                  }
                  auto& st = self->state;
                  spdlog::info("broker {}: empty {} group {} replaced",
                               st.node_id, to_consumer ? "classic" : "consumer",
                               group_id);
                  if (to_consumer) {
                    if (auto c = find_group(self, group_id))
                      self->send(c,
                                 group_shutdown{error_code::not_coordinator});
                    st.groups.erase(group_id);
                    consumer_group_image image;
                    image.offsets = std::move(offsets);
                    create_consumer_group(self, group_id, std::move(image));
                  } else {
                    if (auto c = find_consumer_group(self, group_id))
                      self->send(c,
                                 group_shutdown{error_code::not_coordinator});
                    st.consumer_groups.erase(group_id);
                    create_group(self, group_id,
                                 loaded_group{{}, std::move(offsets)});
                  }
                  finish(true, error_code::none);
                });
            },
            failed);
      },
      failed);
}

consumer_group_heartbeat_response heartbeat_error(error_code e,
                                                  std::string message = {}) {
  consumer_group_heartbeat_response res;
  res.error = e;
  if (!message.empty())
    res.error_message = std::move(message);
  return res;
}

/// ConsumerGroupHeartbeat to the group's coordinator, created by a member
/// joining (epoch 0) as Kafka's getOrMaybeCreateConsumerGroup.
void route_consumer_heartbeat(broker_ptr self,
                              consumer_group_heartbeat_request req,
                              promise_of<consumer_group_heartbeat_response> rp,
                              bool replace_classic = true) {
  auto& st = self->state;
  // Routing first, then the request itself (Kafka validates it in the
  // coordinator's shard).
  if (auto e = check_group_request(self, req.group_id, true);
      e != error_code::none) {
    rp.deliver(heartbeat_error(e));
    return;
  }
  if (auto refused = check_consumer_group_heartbeat(req, st.config.group)) {
    rp.deliver(std::move(*refused));
    return;
  }
  auto id = req.group_id;
  if (park_while_replacing(self, id, [self, req, rp](error_code e) mutable {
        if (e == error_code::none)
          route_consumer_heartbeat(self, std::move(req), std::move(rp));
        else
          rp.deliver(heartbeat_error(e));
      }))
    return;
  if (auto c = find_consumer_group(self, id)) {
    rp.delegate(c, std::move(req));
    return;
  }
  bool classic = static_cast<bool>(find_group(self, id));
  bool leaving = req.member_epoch < 0;
  if (req.member_epoch != 0 || (classic && !replace_classic)) {
    // Kafka's consumerGroup / getOrMaybeCreateConsumerGroup without
    // creating: a classic group is no consumer group, else there is none.
    if (classic)
      rp.deliver(heartbeat_error(error_code::group_id_not_found,
                                 "Group " + id + " is not a consumer group"));
    else
      rp.deliver(heartbeat_error(error_code::group_id_not_found,
                                 leaving
                                   ? "Group " + id + " not found."
                                   : "Consumer group " + id + " not found."));
    return;
  }
  if (classic) {
    replace_empty_group(
      self, id, true, [self, req, rp](bool, error_code e) mutable {
        if (e != error_code::none)
          rp.deliver(heartbeat_error(e));
        else
          route_consumer_heartbeat(self, std::move(req), std::move(rp), false);
      });
    return;
  }
  rp.delegate(create_consumer_group(self, id), std::move(req));
}

join_group_response join_error(const join_group_request& req, error_code e) {
  join_group_response res;
  res.error = e;
  res.member_id = req.member_id;
  return res;
}

/// JoinGroup: a classic group's, or a new one's (Kafka's classicGroupJoin).
/// An empty consumer group gives way to it; one with members does not:
/// troupe's consumer groups have no classic members, so the classic
/// protocol is inconsistent with the group (Kafka's
/// throwIfClassicProtocolIsNotSupported).
void route_join(broker_ptr self, join_group_request req,
                promise_of<join_group_response> rp,
                bool replace_consumer = true) {
  if (auto e = check_group_request(self, req.group_id, false);
      e != error_code::none) {
    rp.deliver(join_error(req, e));
    return;
  }
  auto id = req.group_id;
  if (park_while_replacing(self, id, [self, req, rp](error_code e) mutable {
        if (e == error_code::none)
          route_join(self, std::move(req), std::move(rp));
        else
          rp.deliver(join_error(req, e));
      }))
    return;
  if (find_consumer_group(self, id)) {
    if (!replace_consumer) {
      rp.deliver(join_error(req, error_code::inconsistent_group_protocol));
      return;
    }
    replace_empty_group(
      self, id, false, [self, req, rp](bool, error_code e) mutable {
        if (e != error_code::none)
          rp.deliver(join_error(req, e));
        else
          route_join(self, std::move(req), std::move(rp), false);
      });
    return;
  }
  auto c = find_group(self, id);
  if (!c) {
    if (!req.member_id.empty()) {
      rp.deliver(join_error(req, error_code::unknown_member_id));
      return;
    }
    c = create_group(self, id);
  }
  rp.delegate(c, std::move(req));
}

/// OffsetCommit to the group's coordinator of either protocol (a consumer
/// group's checks the member epoch as the generation).
void route_commit(broker_ptr self, offset_commit_request req,
                  promise_of<offset_commit_response> rp) {
  // Kafka accepts the empty group id for offset APIs.
  if (auto e = check_group_request(self, req.group_id, true);
      e != error_code::none) {
    rp.deliver(commit_error(req, e));
    return;
  }
  auto id = req.group_id;
  if (park_while_replacing(self, id, [self, req, rp](error_code e) mutable {
        if (e == error_code::none)
          route_commit(self, std::move(req), std::move(rp));
        else
          rp.deliver(commit_error(req, e));
      }))
    return;
  if (auto c = find_consumer_group(self, id)) {
    rp.delegate(c, std::move(req));
    return;
  }
  auto c = find_group(self, id);
  if (!c) {
    // No group: a standalone commit creates it; a commit that claims a
    // generation comes from an old generation of a gone group.
    if (req.generation_id >= 0) {
      rp.deliver(commit_error(req, error_code::illegal_generation));
      return;
    }
    c = create_group(self, id);
  }
  rp.delegate(c, std::move(req));
}

offset_fetch_response fetch_error(error_code e) {
  offset_fetch_response res;
  res.error = e;
  return res;
}

void route_fetch(broker_ptr self, offset_fetch_request req,
                 promise_of<offset_fetch_response> rp) {
  if (auto e = check_group_request(self, req.group_id, true);
      e != error_code::none) {
    rp.deliver(fetch_error(e));
    return;
  }
  auto id = req.group_id;
  if (park_while_replacing(self, id, [self, req, rp](error_code e) mutable {
        if (e == error_code::none)
          route_fetch(self, std::move(req), std::move(rp));
        else
          rp.deliver(fetch_error(e));
      }))
    return;
  if (auto c = find_consumer_group(self, id)) {
    rp.delegate(c, std::move(req));
    return;
  }
  if (auto c = find_group(self, id)) {
    rp.delegate(c, std::move(req));
    return;
  }
  // Kafka: an unknown group has nothing committed.
  offset_fetch_response res;
  for (auto& tp : req.partitions)
    res.partitions.push_back(
      {tp.topic, tp.partition, -1, -1, {}, error_code::none});
  rp.deliver(std::move(res));
}

/// ListGroups' filters as Kafka's GroupMetadataManager.listGroups applies
/// them: states and types, empty for all (the Kafka listener parses the
/// names case-insensitively).
bool listed(const list_groups_request& filter, const listed_group& g) {
  auto in = [](const auto& xs, auto x) {
    return xs.empty() || std::find(xs.begin(), xs.end(), x) != xs.end();
  };
  return in(filter.states_filter, g.state)
         && in(filter.types_filter, g.group_type);
}

// -- replicas and logs ---------------------------------------------------------------

/// Opens the broker's log directory: a log manager on its own thread (file
/// I/O blocks), which recovers each partition's log on first use.
void start_io(broker_ptr self) {
  auto& st = self->state;
  if (st.config.log_dirs.empty() || st.log)
    return;
  auto dir = st.config.log_dirs + "/broker-" + std::to_string(st.node_id);
  st.log =
    st.config.detached_io
      ? self->spawn<caf::detached + caf::linked>(log_manager, dir, st.config)
      : self->spawn<caf::linked>(log_manager, dir, st.config);
}

void ensure_replica(broker_ptr self, const std::string& topic,
                    const partition_metadata& p) {
  auto& st = self->state;
  if (!st.log || !st.alive)
    return;
  if (std::find(p.replicas.begin(), p.replicas.end(), st.node_id)
      == p.replicas.end())
    return;
  topic_partition tp{topic, p.partition};
  auto i = st.replicas.find(tp);
  if (i == st.replicas.end()) {
    replica_fetch_config fetch{
      st.config.replica_fetch_wait_max_ms, st.config.replica_fetch_backoff_ms,
      static_cast<int32_t>(
        std::min<size_t>(st.config.log.max_batch_bytes * 2, INT32_MAX))};
    // The replicas of __consumer_offsets tell the broker when they lead:
    // the load of their groups starts then.
    replica_listener_actor listener;
    if (topic == offsets_topic)
      listener = broker_actor{self};
    auto r = self->spawn<caf::linked>(replica, tp, st.node_id, st.config, fetch,
                                      st.log, st.controller, st.peers,
                                      std::move(listener));
    i = st.replicas.emplace(tp, r).first;
  }
  self->send(i->second, partition_update{topic, p});
}

/// Takes the controller's description of partitions: replicas to host,
/// roles to take, __consumer_offsets leadership to follow. True when the
/// topic is new or has more partitions than before.
bool apply_partitions(broker_ptr self, const std::string& topic,
                      const std::vector<partition_metadata>& parts,
                      int32_t partition_count = -1) {
  auto& st = self->state;
  auto known = st.topics.find(topic);
  auto before = known == st.topics.end() ? -1 : known->second;
  auto& count = st.topics[topic];
  count = std::max(count, partition_count);
  for (auto& p : parts) {
    count = std::max(count, p.partition + 1);
    ensure_replica(self, topic, p);
  }
  if (topic == offsets_topic)
    update_offsets_leaders(self, parts);
  return count != before;
}

/// Takes the controller's answer for `topics` (all of them when empty),
/// with their ids.
void request_metadata(broker_ptr self, std::vector<std::string> topics) {
  auto& st = self->state;
  self
    ->request(st.controller, internal_timeout,
              metadata_request{std::move(topics), false})
    .then(
      [self](metadata_response& res) {
        bool changed = false;
        for (auto& t : res.topics) {
          if (t.error != error_code::none)
            continue;
          if (!t.topic_id.is_zero()) {
            auto& id = self->state.topic_ids[t.name];
            changed = changed || id != t.topic_id;
            id = t.topic_id;
          }
          changed =
            apply_partitions(self, t.name, t.partition_states, t.partitions)
            || changed;
        }
        if (changed)
          announce_topics(self);
      },
      [self](caf::error& err) {
        // A cluster node has none before the active controller's first
        // snapshot, which brings every partition anyway.
        if (err == caf::sec::request_receiver_down)
          spdlog::debug("broker {}: no metadata yet", self->state.node_id);
        else
          spdlog::error("broker {}: no metadata from the controller: {}",
                        self->state.node_id, caf::to_string(err));
      });
}

/// The operator stopped this broker: its replicas and logs close (parked
/// requests answered NOT_LEADER_OR_FOLLOWER), its groups resign.
void stop_broker(broker_ptr self) {
  auto& st = self->state;
  spdlog::warn("broker {}: stopped", st.node_id);
  st.alive = false;
  for (auto& [tp, r] : st.replicas) {
    self->unlink_from(r);
    self->send_exit(r, caf::exit_reason::user_shutdown);
  }
  st.replicas.clear();
  if (st.log) {
    self->unlink_from(st.log);
    self->send_exit(st.log, caf::exit_reason::user_shutdown);
    st.log = nullptr;
  }
  for (auto& [id, c] : st.groups)
    self->send(c, group_shutdown{error_code::not_coordinator});
  st.groups.clear();
  for (auto& [id, c] : st.consumer_groups)
    self->send(c, group_shutdown{error_code::not_coordinator});
  st.consumer_groups.clear();
  abandon_replacements(self);
  st.loading.clear();
  st.leading_offsets_replicas.clear();
  std::fill(st.offsets_leaders.begin(), st.offsets_leaders.end(), -1);
}

void start_broker(broker_ptr self) {
  auto& st = self->state;
  if (st.alive)
    return;
  spdlog::warn("broker {}: started", st.node_id);
  st.alive = true;
  start_io(self);
  request_metadata(self, {});
}

// -- replaying __consumer_offsets ------------------------------------------------------

struct offsets_load {
  int32_t partition = 0;
  uint64_t token = 0;
  offsets_partition_state state;
  int64_t next_offset = 0;
};

bool still_loading(broker_ptr self, const offsets_load& load) {
  auto i = self->state.loading.find(load.partition);
  return i != self->state.loading.end() && i->second.token == load.token;
}

/// The stored group metadata as the group state machine rebuilds it.
group_snapshot to_snapshot(const stored_group& g) {
  group_snapshot s{g.generation, g.protocol_type, g.protocol, g.leader, {}};
  for (auto& m : g.members) {
    group_member gm;
    gm.member_id = m.member_id;
    gm.group_instance_id = m.group_instance_id;
    gm.client_id = m.client_id;
    gm.client_host = m.client_host;
    gm.protocol_type = g.protocol_type;
    gm.protocols = {{g.protocol, m.subscription}};
    gm.session_timeout_ms = m.session_timeout_ms;
    gm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    gm.assignment = m.assignment;
    s.members.push_back(std::move(gm));
  }
  return s;
}

/// Hands the replayed groups to new coordinators and opens the partition.
void finish_load(broker_ptr self, std::shared_ptr<offsets_load> load) {
  auto& st = self->state;
  auto taken = [&](const std::string& id) {
    return st.groups.count(id) || st.consumer_groups.count(id)
           || coordinator_for(self, id) != st.node_id;
  };
  size_t created = 0;
  // KIP-848 groups first: their ids get no classic coordinator.
  auto& consumer_groups = load->state.consumer_groups;
  for (auto& [id, image] : consumer_groups) {
    if (taken(id))
      continue;
    create_consumer_group(self, id, loaded_consumer_group(load->state, id));
    ++created;
  }
  std::map<std::string, loaded_group> groups;
  for (auto& [id, offsets] : load->state.offsets)
    groups[id].offsets = offsets;
  for (auto& [id, g] : load->state.groups)
    groups[id].snapshot = to_snapshot(g);
  for (auto& [id, loaded] : groups) {
    if (consumer_groups.count(id) || taken(id))
      continue;
    create_group(self, id, std::move(loaded));
    ++created;
  }
  st.loading.erase(load->partition);
  spdlog::info("broker {}: loaded {} groups from {}-{} ({} malformed records)",
               st.node_id, created, offsets_topic, load->partition,
               load->state.malformed);
}

/// Reads the partition from its start in chunks and replays every record.
void read_offsets_chunk(broker_ptr self, std::shared_ptr<offsets_load> load) {
  auto& st = self->state;
  if (!still_loading(self, *load) || !st.log)
    return;
  log_read_request req{
    {offsets_topic, load->partition}, load->next_offset, 1 << 20, -1};
  self->request(st.log, caf::infinite, req)
    .then(
      [self, load](log_read_response& res) {
        if (!still_loading(self, *load))
          return;
        if (res.error == error_code::offset_out_of_range
            && load->next_offset < res.log_start_offset) {
          load->next_offset = res.log_start_offset; // retention moved on
          read_offsets_chunk(self, load);
          return;
        }
        if (res.error != error_code::none || res.records.empty()) {
          if (res.error != error_code::none)
            spdlog::error("broker {}: reading {}-{}: {}", self->state.node_id,
                          offsets_topic, load->partition, to_string(res.error));
          finish_load(self, load);
          return;
        }
        auto& r = res.records;
        size_t pos = 0;
        while (pos < r.size()) {
          auto size = next_batch_size(r.data() + pos, r.size() - pos);
          auto h = parse_header(r.data() + pos, r.size() - pos);
          if (!size || !h || pos + *size > r.size())
            break;
          if (auto records = decode_records(r.data() + pos, *size)) {
            for (auto& rec : *records)
              load->state.apply(
                record_kv{rec.key.value_or(bytes{}), rec.value});
          } else {
            ++load->state.malformed;
          }
          load->next_offset = h->base_offset + h->last_offset_delta + 1;
          pos += *size;
        }
        read_offsets_chunk(self, load);
      },
      [self, load](caf::error& err) {
        spdlog::error("broker {}: replay of {}-{} failed: {}",
                      self->state.node_id, offsets_topic, load->partition,
                      caf::to_string(err));
        if (still_loading(self, *load))
          finish_load(self, load);
      });
}

/// Starts the replay of a partition being loaded once this broker's
/// replica of it leads (Kafka loads a partition's groups on becoming its
/// leader, GroupCoordinator.onElection); until then and during the replay
/// its groups answer COORDINATOR_LOAD_IN_PROGRESS.
void maybe_start_replay(broker_ptr self, int32_t partition) {
  auto& st = self->state;
  auto i = st.loading.find(partition);
  if (i == st.loading.end() || i->second.reading
      || !st.leading_offsets_replicas.count(partition) || !st.log)
    return;
  i->second.reading = true;
  auto load = std::make_shared<offsets_load>();
  load->partition = partition;
  load->token = i->second.token;
  read_offsets_chunk(self, load);
}

/// Kafka's loadGroupsAndOffsets for one partition this broker now leads.
void load_offsets_partition(broker_ptr self, int32_t partition) {
  auto& st = self->state;
  if (!st.log)
    return;
  st.loading[partition] = {++st.next_load, false};
  maybe_start_replay(self, partition);
}

// -- admin: topic deletion, producer ids ---------------------------------------------

/// The controller's admin interface; a controller that lacks it answers
/// with an error.
admin_controller_actor admin_controller(broker_ptr self) {
  return caf::actor_cast<admin_controller_actor>(self->state.controller);
}

/// Kafka's StopReplica with deletePartition: the topic's replicas on this
/// broker stop (answering what waits NOT_LEADER_OR_FOLLOWER) and their logs
/// are removed.
void delete_topic_replicas(broker_ptr self, const std::string& topic) {
  auto& st = self->state;
  st.topics.erase(topic);
  log_delete_request gone;
  for (auto i = st.replicas.begin(); i != st.replicas.end();) {
    if (i->first.topic != topic) {
      ++i;
      continue;
    }
    self->unlink_from(i->second);
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
    gone.partitions.push_back(i->first);
    i = st.replicas.erase(i);
  }
  if (st.log && !gone.partitions.empty())
    self->send(st.log, std::move(gone));
}

/// Hands out the next producer id of the broker's block, asking the
/// controller for a new block when it is used up (Kafka's
/// RPCProducerIdManager); requests wait for the block meanwhile.
void serve_producer_ids(broker_ptr self) {
  auto& st = self->state;
  while (!st.awaiting_producer_ids.empty()
         && st.next_producer_id < st.producer_ids_end) {
    st.awaiting_producer_ids.front().deliver(
      init_producer_id_response{error_code::none, st.next_producer_id++, 0});
    st.awaiting_producer_ids.erase(st.awaiting_producer_ids.begin());
  }
  if (st.awaiting_producer_ids.empty() || st.allocating_producer_ids)
    return;
  st.allocating_producer_ids = true;
  self
    ->request(admin_controller(self), internal_timeout,
              allocate_producer_ids_request{st.node_id})
    .then(
      [self](allocate_producer_ids_response& res) {
        auto& st = self->state;
        st.allocating_producer_ids = false;
        if (res.error != error_code::none) {
          for (auto& rp : std::exchange(st.awaiting_producer_ids, {}))
            rp.deliver(init_producer_id_response{res.error, -1, -1});
          return;
        }
        st.next_producer_id = res.producer_id_start;
        st.producer_ids_end = res.producer_id_start + res.producer_id_len;
        serve_producer_ids(self);
      },
      [self](caf::error& err) {
        self->state.allocating_producer_ids = false;
        spdlog::warn("broker {}: no producer ids from the controller: {}",
                     self->state.node_id, caf::to_string(err));
        // Kafka's RPCProducerIdManager answers COORDINATOR_LOAD_IN_PROGRESS
        // while it has no block; the producer retries.
        for (auto& rp : std::exchange(self->state.awaiting_producer_ids, {}))
          rp.deliver(init_producer_id_response{
            error_code::coordinator_load_in_progress, -1, -1});
      });
}

/// The replica of `tp` on this broker, or the error a client gets instead.
std::variant<replica_actor, error_code> route(broker_ptr self,
                                              const topic_partition& tp) {
  auto& st = self->state;
  if (!st.alive)
    return error_code::not_leader_or_follower;
  auto t = st.topics.find(tp.topic);
  if (t == st.topics.end() || tp.partition < 0 || tp.partition >= t->second)
    return error_code::unknown_topic_or_partition;
  if (!st.log)
    return error_code::kafka_storage_error; // no log.dirs: no data path
  auto i = st.replicas.find(tp);
  if (i == st.replicas.end())
    return error_code::not_leader_or_follower;
  return i->second;
}

} // namespace

broker_actor::behavior_type broker(broker_ptr self, int32_t node_id,
                                   cluster_config config,
                                   controller_actor controller,
                                   event_listener_actor listener) {
  auto& st = self->state;
  st.node_id = node_id;
  st.config = std::move(config);
  st.controller = std::move(controller);
  st.listener = std::move(listener);
  // Coordinators are linked: a coordinator that ends on its own (group
  // deleted) leaves the map; the broker ending takes them all down.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto forget = [&](auto& groups) {
      for (auto i = groups.begin(); i != groups.end(); ++i) {
        if (i->second.address() == msg.source) {
          groups.erase(i);
          return true;
        }
      }
      return false;
    };
    if (forget(self->state.groups) || forget(self->state.consumer_groups))
      return;
    // A coordinator it resigned ends normally; anyone else's failure is
    // ours too.
    if (msg.reason != caf::exit_reason::normal)
      self->quit(msg.reason);
  });
  return {
    // -- cluster ------------------------------------------------------------
    [self](cluster_peers& peers) {
      auto& st = self->state;
      st.peers = std::move(peers.brokers);
      std::sort(st.peers.begin(), st.peers.end(),
                [](auto& x, auto& y) { return x.node_id < y.node_id; });
      for (auto& [tp, r] : st.replicas)
        self->send(r, cluster_peers{st.peers});
      start_io(self);
      request_metadata(self, {});
    },
    [self](leadership_update& update) {
      if (!self->state.alive)
        return;
      std::map<std::string, std::vector<partition_metadata>> by_topic;
      for (auto& p : update.partitions)
        by_topic[p.topic].push_back(p.state);
      bool changed = false;
      std::vector<std::string> without_id;
      for (auto& [topic, parts] : by_topic) {
        changed = apply_partitions(self, topic, parts) || changed;
        if (!self->state.topic_ids.count(topic))
          without_id.push_back(topic);
      }
      // Leadership updates name topics, not their ids: a new topic's id
      // comes from the controller before the consumer groups hear of it.
      if (!without_id.empty())
        request_metadata(self, std::move(without_id));
      else if (changed)
        announce_topics(self);
    },
    [self](replica_leadership& news) {
      // Only the replica this broker hosts now counts: a stopped one's
      // last words may still be on their way.
      auto& st = self->state;
      auto r = replica_of(self, news.partition);
      if (!r || caf::actor_cast<caf::actor>(r) != news.replica)
        return;
      auto p = news.partition.partition;
      if (!news.leader) {
        st.leading_offsets_replicas.erase(p);
        return;
      }
      st.leading_offsets_replicas.insert(p);
      maybe_start_replay(self, p);
    },
    [self](broker_status_change& change) {
      if (change.broker_id != self->state.node_id)
        return;
      if (change.alive)
        start_broker(self);
      else
        stop_broker(self);
    },
    [self](broker_status_request&) -> caf::result<replica_statuses> {
      auto& st = self->state;
      auto rp = self->make_response_promise<replica_statuses>();
      std::vector<std::pair<replica_actor, replica_status_request>> asks;
      for (auto& [tp, r] : st.replicas)
        asks.emplace_back(r, replica_status_request{});
      ask_all<replica_status>(
        self, std::move(asks), internal_timeout,
        [rp, id = st.node_id, alive = st.alive](
          std::vector<caf::expected<replica_status>> answers) mutable {
          replica_statuses res{id, alive, {}};
          for (auto& s : answers)
            if (s)
              res.replicas.push_back(std::move(*s));
          rp.deliver(std::move(res));
        });
      return rp;
    },
    // -- partitions -----------------------------------------------------------------
    [self](produce_request& req) -> caf::result<produce_response> {
      auto r = route(self, req.partition);
      if (auto e = std::get_if<error_code>(&r))
        return produce_response{*e, -1, -1};
      return self->delegate(std::get<replica_actor>(r), std::move(req));
    },
    [self](fetch_request& req) -> caf::result<fetch_response> {
      auto r = route(self, req.partition);
      if (auto e = std::get_if<error_code>(&r))
        return fetch_response{*e, -1, -1, -1, {}};
      return self->delegate(std::get<replica_actor>(r), std::move(req));
    },
    [self](list_offsets_request& req) -> caf::result<list_offsets_response> {
      auto r = route(self, req.partition);
      if (auto e = std::get_if<error_code>(&r))
        return list_offsets_response{*e, -1, -1};
      return self->delegate(std::get<replica_actor>(r), std::move(req));
    },
    [self](
      epoch_end_offset_request& req) -> caf::result<epoch_end_offset_response> {
      auto r = route(self, req.partition);
      if (auto e = std::get_if<error_code>(&r))
        return epoch_end_offset_response{*e, -1, -1};
      return self->delegate(std::get<replica_actor>(r), std::move(req));
    },
    [self](find_coordinator_request& req) {
      auto& st = self->state;
      find_coordinator_response res;
      if (auto e = validate_group_id(req.key, true); e != error_code::none) {
        res.error = e;
        return res;
      }
      if (!st.alive) {
        res.error = error_code::coordinator_not_available;
        return res;
      }
      auto leader = coordinator_for(self, req.key);
      auto i = std::find_if(st.peers.begin(), st.peers.end(),
                            [&](auto& b) { return b.node_id == leader; });
      if (i == st.peers.end() || !i->handle) {
        res.error = error_code::coordinator_not_available;
        return res;
      }
      res.node_id = i->node_id;
      res.host = i->host;
      res.port = i->port;
      res.broker = i->handle;
      return res;
    },
    [self](metadata_request& req) -> caf::result<metadata_response> {
      // A stopped broker is down for its clients: they see its connection
      // fail and ask a live broker, whose answer lists only live brokers.
      if (!self->state.alive)
        return caf::make_error(caf::sec::request_receiver_down);
      return self->delegate(self->state.controller, std::move(req));
    },
    [self](create_topics_request& req) {
      return self->delegate(self->state.controller, std::move(req));
    },
    // -- admin ---------------------------------------------------------------
    [self](delete_topics_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](topic_deletion& gone) {
      for (auto& t : gone.topics)
        delete_topic_replicas(self, t);
    },
    [self](init_producer_id_request&) {
      auto rp = self->make_response_promise<init_producer_id_response>();
      self->state.awaiting_producer_ids.push_back(rp);
      serve_producer_ids(self);
      return rp;
    },
    // -- the group protocol ------------------------------------------------------
    [self](join_group_request& req) -> caf::result<join_group_response> {
      auto rp = self->make_response_promise<join_group_response>();
      route_join(self, std::move(req), rp);
      return rp;
    },
    [self](sync_group_request& req) -> caf::result<sync_group_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c) {
        sync_group_response res;
        res.error = e != error_code::none ? e : error_code::unknown_member_id;
        return res;
      }
      return self->delegate(c, std::move(req));
    },
    [self](heartbeat_request& req) -> caf::result<heartbeat_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c)
        return heartbeat_response{
          e != error_code::none ? e : error_code::unknown_member_id};
      return self->delegate(c, std::move(req));
    },
    [self](leave_group_request& req) -> caf::result<leave_group_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c)
        return leave_error(
          req, e != error_code::none ? e : error_code::unknown_member_id);
      return self->delegate(c, std::move(req));
    },
    [self](offset_commit_request& req) -> caf::result<offset_commit_response> {
      auto rp = self->make_response_promise<offset_commit_response>();
      route_commit(self, std::move(req), rp);
      return rp;
    },
    [self](offset_fetch_request& req) -> caf::result<offset_fetch_response> {
      auto rp = self->make_response_promise<offset_fetch_response>();
      route_fetch(self, std::move(req), rp);
      return rp;
    },
    [self](
      describe_groups_request& req) -> caf::result<describe_groups_response> {
      auto rp = self->make_response_promise<describe_groups_response>();
      auto res = std::make_shared<describe_groups_response>();
      res->groups.resize(req.group_ids.size());
      std::vector<std::pair<group_coordinator_actor, describe_groups_request>>
        asks;
      std::vector<size_t> slots; // the answer slot of each ask
      for (size_t i = 0; i < req.group_ids.size(); ++i) {
        auto& id = req.group_ids[i];
        auto& slot = res->groups[i];
        slot.group_id = id;
        if (auto e = check_group_request(self, id, true);
            e != error_code::none) {
          slot.error = e;
          continue;
        }
        auto c = find_group(self, id);
        if (!c) {
          // Kafka's answer for an unknown group, and for a consumer group
          // (GroupMetadataManager.describeGroups finds no classic group).
          slot.state = any_group_state::dead;
          continue;
        }
        asks.emplace_back(c, describe_groups_request{{id}});
        slots.push_back(i);
      }
      ask_each<described_group>(
        self, std::move(asks), internal_timeout,
        [res, slots](size_t i, caf::expected<described_group>& g) {
          auto& slot = res->groups[slots[i]];
          if (g)
            slot = std::move(*g);
          else
            slot.error = error_code::not_coordinator;
          return false;
        },
        [rp, res]() mutable { rp.deliver(std::move(*res)); });
      return rp;
    },
    [self](list_groups_request& req) -> caf::result<list_groups_response> {
      // Both kinds of coordinator list themselves through this interface.
      using lister =
        caf::typed_actor<caf::replies_to<list_groups_request>::with<listed_group>>;
      auto rp = self->make_response_promise<list_groups_response>();
      std::vector<std::pair<lister, list_groups_request>> asks;
      std::vector<group_type> types;
      for (auto& [id, c] : self->state.groups) {
        asks.emplace_back(caf::actor_cast<lister>(c), list_groups_request{});
        types.push_back(group_type::classic);
      }
      for (auto& [id, c] : self->state.consumer_groups) {
        asks.emplace_back(caf::actor_cast<lister>(c), list_groups_request{});
        types.push_back(group_type::consumer);
      }
      ask_all<listed_group>(
        self, std::move(asks), internal_timeout,
        [rp, filter = std::move(req), types](
          std::vector<caf::expected<listed_group>> answers) mutable {
          list_groups_response res;
          for (size_t i = 0; i < answers.size(); ++i) {
            if (!answers[i])
              continue;
            auto& g = *answers[i];
            g.group_type = types[i];
            if (listed(filter, g))
              res.groups.push_back(std::move(g));
          }
          rp.deliver(std::move(res));
        });
      return rp;
    },
    // -- the consumer group protocol (KIP-848) -----------------------------------
    [self](consumer_group_heartbeat_request& req)
      -> caf::result<consumer_group_heartbeat_response> {
      auto rp =
        self->make_response_promise<consumer_group_heartbeat_response>();
      route_consumer_heartbeat(self, std::move(req), rp);
      return rp;
    },
    [self](consumer_group_describe_request& req)
      -> caf::result<consumer_group_describe_response> {
      // Kafka's GroupCoordinatorService.consumerGroupDescribe: each group
      // from its coordinator, in the order asked.
      auto rp =
        self->make_response_promise<consumer_group_describe_response>();
      auto res = std::make_shared<consumer_group_describe_response>();
      res->groups.resize(req.group_ids.size());
      std::vector<std::pair<consumer_group_coordinator_actor,
                            consumer_group_describe_request>>
        asks;
      std::vector<size_t> slots; // the answer slot of each ask
      for (size_t i = 0; i < req.group_ids.size(); ++i) {
        auto& id = req.group_ids[i];
        auto& slot = res->groups[i];
        slot.group_id = id;
        if (auto e = check_group_request(self, id, false);
            e != error_code::none) {
          slot.error = e;
          continue;
        }
        auto c = find_consumer_group(self, id);
        if (!c) {
          slot.error = error_code::group_id_not_found;
          slot.error_message = find_group(self, id)
                                 ? "Group " + id + " is not a consumer group"
                                 : "Group " + id + " not found.";
          continue;
        }
        asks.emplace_back(c, consumer_group_describe_request{{id}, false});
        slots.push_back(i);
      }
      ask_each<consumer_group_described_group>(
        self, std::move(asks), internal_timeout,
        [res, slots](size_t i,
                     caf::expected<consumer_group_described_group>& g) {
          auto& slot = res->groups[slots[i]];
          if (g)
            slot = std::move(*g);
          else
            slot.error = error_code::not_coordinator;
          return false;
        },
        [rp, res]() mutable { rp.deliver(std::move(*res)); });
      return rp;
    },
  };
}

} // namespace troupe
