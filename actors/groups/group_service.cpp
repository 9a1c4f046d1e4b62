#include "actors/groups/group_service.hpp"

#include <algorithm>
#include <memory>
#include <random>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "actors/groups/consumer_group_coordinator.hpp"
#include "actors/groups/group_coordinator.hpp"
#include "actors/groups/offsets_load.hpp"
#include "actors/groups/offsets_writer.hpp"
#include "actors/timeouts.hpp"
#include "domain/java_hash.hpp"
#include "domain/offsets/committed_offsets.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/topic_name.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

namespace {

using self_ptr = group_service_ptr;

template <class Response>
using promise_of = caf::typed_response_promise<Response>;

// -- where a group lives ---------------------------------------------------------

/// The group's __consumer_offsets partition number.
int32_t partition_of(self_ptr self, const std::string& group_id) {
  return offsets_partition_for(
    group_id, static_cast<int32_t>(self->state.offsets_leaders.size()));
}

/// Leader of the group's __consumer_offsets partition, -1 while unknown.
int32_t coordinator_for(self_ptr self, const std::string& group_id) {
  auto& st = self->state;
  auto p = static_cast<size_t>(partition_of(self, group_id));
  return p < st.offsets_leaders.size() ? st.offsets_leaders[p] : -1;
}

/// Where the group's records are written: this broker's replica of its
/// partition (none without log.dirs).
offsets_log offsets_log_of(self_ptr self, const std::string& group_id) {
  auto& st = self->state;
  auto p = partition_of(self, group_id);
  offsets_log log;
  log.partition = {offsets_topic, p};
  log.timeout_ms = st.config.group.offset_commit_timeout_ms;
  if (auto i = st.offsets_replicas.find(p); i != st.offsets_replicas.end())
    log.replica = i->second.replica;
  return log;
}

/// Kafka's order of checks before a group request reaches its coordinator.
error_code check_group_request(self_ptr self, const std::string& group_id,
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
  if (st.loading.count(partition_of(self, group_id)))
    return error_code::coordinator_load_in_progress;
  return error_code::none;
}

group_coordinator_actor find_group(self_ptr self, const std::string& group_id) {
  auto i = self->state.groups.find(group_id);
  return i == self->state.groups.end() ? group_coordinator_actor{} : i->second;
}

consumer_group_coordinator_actor
find_consumer_group(self_ptr self, const std::string& group_id) {
  auto i = self->state.consumer_groups.find(group_id);
  return i == self->state.consumer_groups.end()
           ? consumer_group_coordinator_actor{}
           : i->second;
}

/// A seed for a new coordinator's member ids. A fixed seed (tests) still
/// differs per broker: a group that moves to another coordinator must not
/// hand out its members' ids again.
uint64_t next_group_seed(self_ptr self) {
  auto& st = self->state;
  return st.config.seed != 0 ? st.config.seed + st.next_seed++
                                 + (static_cast<uint64_t>(st.node_id) << 32)
                             : std::random_device{}();
}

/// Kafka's getOrMaybeCreateGroup: only a new member's JoinGroup or a
/// standalone commit creates a group (and loading __consumer_offsets).
group_coordinator_actor create_group(self_ptr self, const std::string& group_id,
                                     loaded_group loaded = {}) {
  auto& st = self->state;
  auto log = offsets_log_of(self, group_id);
  auto coordinator = self->spawn<caf::linked>(
    group_coordinator, group_id, st.config.group, next_group_seed(self),
    st.listener, log.replica, log.partition, std::move(loaded));
  st.groups.emplace(group_id, coordinator);
  return coordinator;
}

/// A consumer group's coordinator, with what __consumer_offsets holds of
/// the group (nothing for a new group).
consumer_group_coordinator_actor
create_consumer_group(self_ptr self, const std::string& group_id,
                      consumer_group_image loaded = {}) {
  auto& st = self->state;
  auto log = offsets_log_of(self, group_id);
  auto coordinator = self->spawn<caf::linked>(
    consumer_group_coordinator, group_id, st.config.group,
    next_group_seed(self), st.listener, log.replica, log.partition, st.topics,
    std::move(loaded));
  st.consumer_groups.emplace(group_id, coordinator);
  return coordinator;
}

// -- the switch between the protocols ----------------------------------------------

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
bool park_while_replacing(self_ptr self, const std::string& group_id,
                          std::function<void(error_code)> again) {
  auto i = self->state.replacing.find(group_id);
  if (i == self->state.replacing.end())
    return false;
  i->second.parked.push_back(std::move(again));
  return true;
}

void finish_replacement(self_ptr self, const std::string& group_id,
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
void abandon_replacements(self_ptr self) {
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
void replace_empty_group(self_ptr self, const std::string& group_id,
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
  request_then(
    self, old, cluster_request_timeout, list_groups_request{},
    [=](listed_group& listed) {
      if (!current())
        return;
      if (listed.state != any_group_state::empty) {
        finish(false, error_code::none);
        return;
      }
      request_then(
        self, old, cluster_request_timeout, offset_fetch_request{group_id, {}},
        [=](offset_fetch_response& fetched) {
          if (!current())
            return;
          auto offsets = offsets_of(fetched, wall_now_ms(self));
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
            tombstones.push_back(
              consumer_group_record_kv(group_id, group_epoch_record{0, true}));
          }
          write_offsets(
            self, offsets_log_of(self, group_id), std::move(tombstones),
            [=](error_code e) mutable {
              if (!current())
                return;
              if (e != error_code::none) {
                finish(false,
                       offsets_write_error(offsets_write::group_records, e));
                return;
              }
              auto& st = self->state;
              spdlog::info("broker {}: empty {} group {} replaced", st.node_id,
                           to_consumer ? "classic" : "consumer", group_id);
              if (to_consumer) {
                if (auto c = find_group(self, group_id))
                  self->send(c, group_shutdown{error_code::not_coordinator});
                st.groups.erase(group_id);
                consumer_group_image image;
                image.offsets = std::move(offsets);
                create_consumer_group(self, group_id, std::move(image));
              } else {
                if (auto c = find_consumer_group(self, group_id))
                  self->send(c, group_shutdown{error_code::not_coordinator});
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

// -- routing ------------------------------------------------------------------------

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
void route_consumer_heartbeat(self_ptr self,
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
void route_join(self_ptr self, join_group_request req,
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
void route_commit(self_ptr self, offset_commit_request req,
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

void route_fetch(self_ptr self, offset_fetch_request req,
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

// -- the coordinator's admin: DeleteGroups, OffsetDelete ------------------------------

/// Both kinds of coordinator delete themselves through this interface.
using group_admin_actor = caf::typed_actor<
  caf::replies_to<delete_groups_request>::with<delete_groups_response>,
  caf::replies_to<offset_delete_request>::with<offset_delete_response>>;

/// The coordinator of either kind that runs the group, null for none.
group_admin_actor find_any_group(self_ptr self, const std::string& id) {
  if (auto c = find_consumer_group(self, id))
    return caf::actor_cast<group_admin_actor>(c);
  if (auto c = find_group(self, id))
    return caf::actor_cast<group_admin_actor>(c);
  return {};
}

/// A deleted group's coordinator leaves the map at once (it stops on its
/// own too): the next commit to the id creates a new group, as Kafka's
/// removed group.
void forget_deleted(self_ptr self, const std::string& id,
                    const group_admin_actor& coordinator) {
  auto& st = self->state;
  auto forget = [&](auto& groups) {
    auto i = groups.find(id);
    if (i != groups.end() && i->second.address() == coordinator.address())
      groups.erase(i);
  };
  forget(st.groups);
  forget(st.consumer_groups);
  spdlog::info("broker {}: group {} deleted", st.node_id, id);
}

/// Kafka's GroupCoordinatorService.deleteGroups: each group by the checks
/// of its coordinator (validateGroupStatus), then by its coordinator,
/// which writes the tombstones of the group and of every offset before it
/// answers. One result per group, in request order.
void delete_groups(self_ptr self, delete_groups_request req,
                   promise_of<delete_groups_response> rp) {
  auto res = std::make_shared<delete_groups_response>();
  std::vector<std::pair<group_admin_actor, delete_groups_request>> asks;
  std::vector<size_t> slots; // the answer slot of each ask
  for (size_t i = 0; i < req.group_ids.size(); ++i) {
    auto& id = req.group_ids[i];
    res->results.push_back({id, error_code::none});
    auto& slot = res->results.back();
    // Kafka accepts the empty group id for DeleteGroups (isValidGroupId).
    if (auto e = check_group_request(self, id, true); e != error_code::none) {
      slot.error = e;
      continue;
    }
    if (self->state.replacing.count(id)) {
      // A member is joining the group of the other protocol that replaces
      // this empty one.
      slot.error = error_code::non_empty_group;
      continue;
    }
    auto c = find_any_group(self, id);
    if (!c) {
      slot.error = error_code::group_id_not_found;
      continue;
    }
    asks.emplace_back(c, delete_groups_request{{id}});
    slots.push_back(i);
  }
  auto handles = std::make_shared<std::vector<group_admin_actor>>();
  for (auto& [c, r] : asks)
    handles->push_back(c);
  ask_each<delete_groups_response>(
    self, std::move(asks), cluster_request_timeout,
    [self, res, slots, handles](size_t i,
                                caf::expected<delete_groups_response>& r) {
      auto& slot = res->results[slots[i]];
      if (!r || r->results.size() != 1)
        slot.error = error_code::not_coordinator; // it resigned meanwhile
      else
        slot.error = r->results.front().error;
      if (slot.error == error_code::none)
        forget_deleted(self, slot.group_id, (*handles)[i]);
      return false;
    },
    [rp, res]() mutable { rp.deliver(std::move(*res)); });
}

/// Kafka's GroupCoordinatorService.deleteOffsets: the group's checks, then
/// its coordinator of either kind decides per partition and writes the
/// tombstones.
void delete_offsets(self_ptr self, offset_delete_request req,
                    promise_of<offset_delete_response> rp) {
  auto refuse = [&rp](error_code e) { rp.deliver(offset_delete_response{e, {}}); };
  // OffsetDelete needs a group id (isValidGroupId).
  if (auto e = check_group_request(self, req.group_id, false);
      e != error_code::none)
    return refuse(e);
  auto id = req.group_id;
  if (park_while_replacing(self, id, [self, req, rp](error_code e) mutable {
        if (e == error_code::none)
          delete_offsets(self, std::move(req), std::move(rp));
        else
          rp.deliver(offset_delete_response{e, {}});
      }))
    return;
  auto c = find_any_group(self, id);
  if (!c)
    return refuse(error_code::group_id_not_found);
  rp.delegate(c, std::move(req));
}

// -- offsets expiry (KIP-211) ---------------------------------------------------------

void schedule_expiry(self_ptr self, int32_t partition, uint64_t epoch) {
  self->delayed_send(
    self, ms(self->state.config.group.offsets_retention_check_interval_ms),
    offsets_expiry_tick{partition, epoch});
}

/// Arms the partition's expiry timer (Kafka's scheduleGroupMetadataExpiration
/// once the partition is loaded); an earlier one goes stale.
void start_expiry(self_ptr self, int32_t partition) {
  auto& st = self->state;
  auto epoch = ++st.next_expiry;
  st.expiry_timers[partition] = epoch;
  schedule_expiry(self, partition, epoch);
}

/// A coordinator whose group offsets expiry deleted stops, unless the id
/// already has another.
template <class Groups, class Handle>
void forget_expired(self_ptr self, Groups& groups, const std::string& id,
                    const Handle& coordinator) {
  auto i = groups.find(id);
  if (i == groups.end() || i->second != coordinator)
    return;
  spdlog::info("broker {}: group {} expired", self->state.node_id, id);
  self->send(coordinator,
             group_shutdown{error_code::coordinator_not_available});
  groups.erase(i);
}

/// Asks each group of one kind (`kind`: the service's map of them) in the
/// partition to expire what is due; one that is Dead then leaves.
template <class Groups>
void expire_groups(self_ptr self, int32_t partition,
                   Groups group_service_state::*kind) {
  auto& st = self->state;
  for (auto& [id, c] : st.*kind) {
    if (partition_of(self, id) != partition || st.replacing.count(id))
      continue;
    request_then(
      self, c, cluster_request_timeout, offsets_expiry_check{},
      [self, kind, id = id, c = c](offsets_expiry_result& r) {
        if (r.group_deleted)
          forget_expired(self, self->state.*kind, id, c);
      },
      [](caf::error&) {
        // The next run asks again.
      });
  }
}

/// GroupCoordinatorShard.cleanupGroupMetadata for one partition: each of
/// its groups, of either kind, expires what is due and writes the
/// tombstones; a group that is Dead then leaves. The coordinators decide,
/// the service only asks; nothing here is on a request's path.
void expire_partition(self_ptr self, int32_t partition) {
  expire_groups(self, partition, &group_service_state::groups);
  expire_groups(self, partition, &group_service_state::consumer_groups);
}

// -- loading and resigning __consumer_offsets partitions ----------------------------

/// The stored group metadata as the group state machine rebuilds it, at
/// `now_ms` (the load).
group_snapshot to_snapshot(const stored_group& g, int64_t now_ms) {
  group_snapshot s{g.generation, g.protocol_type, g.protocol, g.leader, {}, {}};
  if (g.timestamp_ms > 0)
    s.current_state_timestamp_ms = loaded_timestamp_ms(g.timestamp_ms, now_ms);
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

/// Hands the replayed groups to new coordinators and opens the partition
/// (GroupCoordinator.onGroupLoaded).
void finish_load(self_ptr self, int32_t partition,
                 offsets_partition_state& loaded) {
  auto& st = self->state;
  auto taken = [&](const std::string& id) {
    return st.groups.count(id) || st.consumer_groups.count(id)
           || coordinator_for(self, id) != st.node_id;
  };
  size_t created = 0;
  auto now = wall_now_ms(self);
  for (auto& [id, offsets] : loaded.offsets)
    for (auto& [tp, value] : offsets)
      value.commit_timestamp_ms =
        loaded_timestamp_ms(value.commit_timestamp_ms, now);
  // KIP-848 groups first: their ids get no classic coordinator.
  auto& consumer_groups = loaded.consumer_groups;
  for (auto& [id, image] : consumer_groups) {
    if (taken(id))
      continue;
    create_consumer_group(self, id, loaded_consumer_group(loaded, id));
    ++created;
  }
  std::map<std::string, loaded_group> groups;
  for (auto& [id, offsets] : loaded.offsets)
    groups[id].offsets = offsets;
  for (auto& [id, g] : loaded.groups)
    groups[id].snapshot = to_snapshot(g, now);
  for (auto& [id, group] : groups) {
    if (consumer_groups.count(id) || taken(id))
      continue;
    create_group(self, id, std::move(group));
    ++created;
  }
  st.loading.erase(partition);
  spdlog::info("broker {}: loaded {} groups from {}-{} ({} malformed records)",
               st.node_id, created, offsets_topic, partition, loaded.malformed);
  start_expiry(self, partition);
}

/// Starts the replay of a partition being loaded once this broker's
/// replica of it leads (Kafka loads a partition's groups on becoming its
/// leader, GroupCoordinator.onElection): replica_leadership announces it,
/// nobody polls. Until then and during the replay the partition's groups
/// answer COORDINATOR_LOAD_IN_PROGRESS.
void maybe_start_replay(self_ptr self, int32_t partition) {
  auto& st = self->state;
  auto i = st.loading.find(partition);
  auto r = st.offsets_replicas.find(partition);
  if (i == st.loading.end() || i->second.reading
      || r == st.offsets_replicas.end() || !r->second.leading)
    return;
  i->second.reading = true;
  auto token = i->second.token;
  auto wanted = [self, partition, token] {
    auto i = self->state.loading.find(partition);
    return i != self->state.loading.end() && i->second.token == token;
  };
  replay_offsets_partition(self, r->second.log, partition, wanted,
                           [self, partition](offsets_partition_state& s) {
                             finish_load(self, partition, s);
                           });
}

/// Kafka's loadGroupsAndOffsets for one partition this broker now leads.
/// Without log.dirs there is nothing to load: groups live in memory.
void load_offsets_partition(self_ptr self, int32_t partition) {
  auto& st = self->state;
  if (st.config.log_dirs.empty()) {
    start_expiry(self, partition);
    return;
  }
  st.loading[partition] = {++st.next_load, false};
  maybe_start_replay(self, partition);
}

/// Resigns every group `leaves(group id)` names: its coordinator answers
/// everything parked with NOT_COORDINATOR and stops.
template <class Leaves>
void resign(self_ptr self, Leaves leaves) {
  auto& st = self->state;
  auto each = [&](auto& groups) {
    for (auto i = groups.begin(); i != groups.end();) {
      if (leaves(i->first)) {
        spdlog::info("broker {}: resigning group {}", st.node_id, i->first);
        self->send(i->second, group_shutdown{error_code::not_coordinator});
        i = groups.erase(i);
      } else {
        ++i;
      }
    }
  };
  each(st.groups);
  each(st.consumer_groups);
  abandon_replacements(self);
}

/// Takes the controller's view of __consumer_offsets leadership. Groups of
/// partitions this broker no longer leads are resigned; partitions it now
/// leads are loaded to rebuild their groups.
void update_offsets_leaders(self_ptr self,
                            const std::vector<partition_update>& parts) {
  auto& st = self->state;
  std::vector<int32_t> gained;
  for (auto& u : parts) {
    auto& p = u.state;
    if (p.partition < 0)
      continue;
    auto i = static_cast<size_t>(p.partition);
    if (i >= st.offsets_leaders.size())
      st.offsets_leaders.resize(i + 1, -1);
    if (p.leader == st.node_id && st.offsets_leaders[i] != st.node_id)
      gained.push_back(p.partition);
    if (p.leader != st.node_id) {
      st.loading.erase(p.partition);
      st.expiry_timers.erase(p.partition);
    }
    st.offsets_leaders[i] = p.leader;
  }
  resign(self, [&](const std::string& id) {
    return coordinator_for(self, id) != st.node_id;
  });
  for (auto p : gained)
    load_offsets_partition(self, p);
}

/// The operator stopped the broker: every group resigns, nothing loads.
void stop(self_ptr self) {
  auto& st = self->state;
  st.alive = false;
  for (auto& [id, c] : st.groups)
    self->send(c, group_shutdown{error_code::not_coordinator});
  st.groups.clear();
  for (auto& [id, c] : st.consumer_groups)
    self->send(c, group_shutdown{error_code::not_coordinator});
  st.consumer_groups.clear();
  abandon_replacements(self);
  st.loading.clear();
  st.expiry_timers.clear();
  st.offsets_replicas.clear();
  std::fill(st.offsets_leaders.begin(), st.offsets_leaders.end(), -1);
}

} // namespace

group_service_actor::behavior_type
group_service(group_service_ptr self, int32_t node_id, cluster_config config,
              event_listener_actor listener) {
  auto& st = self->state;
  st.node_id = node_id;
  st.config = std::move(config);
  st.listener = std::move(listener);
  // Coordinators are linked: a coordinator that ends on its own (group
  // deleted) leaves the map; the service ending (with its broker) takes
  // them all down.
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
    // -- what the broker tells ------------------------------------------------------
    [self](cluster_peers& peers) {
      self->state.peers = std::move(peers.brokers);
    },
    [self](leadership_update& update) {
      if (self->state.alive)
        update_offsets_leaders(self, update.partitions);
    },
    [self](consumer_group_topics& msg) {
      auto& st = self->state;
      st.topics = std::move(msg.topics);
      for (auto& [id, c] : st.consumer_groups)
        self->send(c, consumer_group_topics{st.topics});
    },
    [self](broker_status_change& change) {
      if (!change.alive)
        stop(self);
      else
        self->state.alive = true;
    },
    [self](offsets_expiry_tick& tick) {
      auto& st = self->state;
      auto i = st.expiry_timers.find(tick.partition);
      if (!st.alive || i == st.expiry_timers.end() || i->second != tick.epoch)
        return; // the partition was given up, or loaded again since
      expire_partition(self, tick.partition);
      schedule_expiry(self, tick.partition, tick.epoch);
    },
    [self](replica_leadership& news) {
      auto& st = self->state;
      if (!st.alive)
        return;
      auto p = news.partition.partition;
      auto& r = st.offsets_replicas[p];
      auto replica = caf::actor_cast<replica_actor>(news.replica);
      if (!news.leader) {
        // Only the replica it knows resigns: a replaced one's last words
        // may still be on their way.
        if (r.replica == replica)
          r.leading = false;
        return;
      }
      r = {replica, caf::actor_cast<log_manager_actor>(news.log), true};
      maybe_start_replay(self, p);
    },
    // -- finding the coordinator ---------------------------------------------------
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
      res.listeners = i->listeners;
      return res;
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
        self, std::move(asks), cluster_request_timeout,
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
    [self](delete_groups_request& req) -> caf::result<delete_groups_response> {
      auto rp = self->make_response_promise<delete_groups_response>();
      delete_groups(self, std::move(req), rp);
      return rp;
    },
    [self](offset_delete_request& req) -> caf::result<offset_delete_response> {
      auto rp = self->make_response_promise<offset_delete_response>();
      delete_offsets(self, std::move(req), rp);
      return rp;
    },
    [self](list_groups_request& req) -> caf::result<list_groups_response> {
      // Both kinds of coordinator list themselves through this interface.
      using lister = caf::typed_actor<
        caf::replies_to<list_groups_request>::with<listed_group>>;
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
        self, std::move(asks), cluster_request_timeout,
        [rp, filter = std::move(req),
         types](std::vector<caf::expected<listed_group>> answers) mutable {
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
    // -- the consumer group protocol (KIP-848) ---------------------------------
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
      auto rp = self->make_response_promise<consumer_group_describe_response>();
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
        self, std::move(asks), cluster_request_timeout,
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
