#include "actors/broker.hpp"

#include <algorithm>
#include <memory>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/groups/group_service.hpp"
#include "actors/log_manager.hpp"
#include "actors/replica.hpp"
#include "actors/timeouts.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/topic_config.hpp"

namespace troupe {

namespace {

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

/// New topics or partition counts reach the group service, which passes
/// them to every consumer group coordinator.
void announce_topics(broker_ptr self) {
  self->send(self->state.groups, consumer_group_topics{cluster_topics(self)});
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
  // A log manager started again (the broker was stopped) hears the topics'
  // settings before any replica opens a log.
  for (auto& [topic, configs] : st.topic_overrides)
    self->send(st.log, topic_log_config{topic, effective_settings(st.config,
                                                                  topic, configs)
                                                 .log});
}

/// The topic's settings on this broker: the broker's config with the
/// topic's overrides (per-topic configs).
topic_settings settings_of(broker_ptr self, const std::string& topic) {
  auto& st = self->state;
  auto i = st.topic_overrides.find(topic);
  static const topic_configs none;
  return effective_settings(st.config, topic,
                            i == st.topic_overrides.end() ? none : i->second);
}

/// Whether the topic config `name` (a throttled-replica list) names the
/// replica of `partition` on this broker (Kafka's
/// parseThrottledPartitions).
bool throttled_here(broker_ptr self, const std::string& topic,
                    std::string_view name, int32_t partition) {
  auto& st = self->state;
  auto t = st.topic_overrides.find(topic);
  if (t == st.topic_overrides.end())
    return false;
  auto i = t->second.find(std::string{name});
  if (i == t->second.end())
    return false;
  auto list = parse_throttled_replicas(i->second);
  return list && list->covers(partition, st.node_id);
}

replica_config replica_config_of(broker_ptr self, const topic_partition& tp) {
  auto s = settings_of(self, tp.topic);
  return {s.min_insync_replicas, static_cast<uint64_t>(s.log.max_batch_bytes),
          throttled_here(self, tp.topic, "leader.replication.throttled.replicas",
                         tp.partition),
          throttled_here(self, tp.topic,
                         "follower.replication.throttled.replicas",
                         tp.partition)};
}

/// Kafka's TopicConfigHandler.processConfigChanges on this broker: a
/// topic's overrides changed (or are first known), so its log settings go
/// to the log manager (open and future partitions of the topic) and its
/// min.insync.replicas and max.message.bytes to each replica of it.
void apply_topic_configs(broker_ptr self, const std::string& topic,
                         topic_configs configs) {
  auto& st = self->state;
  auto i = st.topic_overrides.find(topic);
  if (i == st.topic_overrides.end() ? configs.empty() : i->second == configs)
    return;
  if (configs.empty())
    st.topic_overrides.erase(topic);
  else
    st.topic_overrides[topic] = std::move(configs);
  auto s = settings_of(self, topic);
  spdlog::info("broker {}: topic {} has new configs", st.node_id, topic);
  if (st.log)
    self->send(st.log, topic_log_config{topic, s.log});
  for (auto& [tp, r] : st.replicas)
    if (tp.topic == topic)
      self->send(r, replica_config_of(self, tp));
}

void ensure_replica(broker_ptr self, const std::string& topic,
                    const partition_metadata& p) {
  auto& st = self->state;
  if (!st.log || !st.alive)
    return;
  topic_partition tp{topic, p.partition};
  auto i = st.replicas.find(tp);
  if (std::find(p.replicas.begin(), p.replicas.end(), st.node_id)
      == p.replicas.end()) {
    // No longer a replica (a reassignment moved it away): Kafka's
    // StopReplica with deletePartition, the replica stops and its log goes.
    if (i != st.replicas.end()) {
      spdlog::info("broker {}: {} is no longer a replica here; deleting it",
                   st.node_id, to_string(tp));
      self->unlink_from(i->second);
      self->send_exit(i->second, caf::exit_reason::user_shutdown);
      st.replicas.erase(i);
      if (st.log)
        self->send(st.log, log_delete_request{{tp}});
    }
    return;
  }
  if (i == st.replicas.end()) {
    replica_fetch_config fetch{
      st.config.replica_fetch_wait_max_ms, st.config.replica_fetch_backoff_ms,
      static_cast<int32_t>(
        std::min<size_t>(st.config.log.max_batch_bytes * 2, INT32_MAX))};
    // The replicas of __consumer_offsets tell the group service when they
    // lead: the load of their groups starts then.
    replica_listener_actor listener;
    if (topic == offsets_topic)
      listener = st.groups;
    // The replica starts with the topic's own min.insync.replicas and
    // max.message.bytes.
    auto config = st.config;
    auto s = settings_of(self, topic);
    config.min_insync_replicas = s.min_insync_replicas;
    config.log = s.log;
    auto r = self->spawn<caf::linked>(replica, tp, st.node_id, config, fetch,
                                      st.log, st.controller, st.peers,
                                      std::move(listener), st.quotas,
                                      st.purgatory);
    i = st.replicas.emplace(tp, r).first;
    // Whether the topic throttles this replica, before its first role.
    self->send(r, replica_config_of(self, tp));
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
  if (topic == offsets_topic) {
    leadership_update offsets;
    for (auto& p : parts)
      offsets.partitions.push_back({topic, p});
    self->send(st.groups, std::move(offsets));
  }
  return count != before;
}

/// Takes the controller's answer for `topics` (all of them when empty),
/// with their ids.
void request_metadata(broker_ptr self, std::vector<std::string> topics) {
  auto& st = self->state;
  self
    ->request(st.controller, cluster_request_timeout,
              metadata_request{std::move(topics), false})
    .then(
      [self](metadata_response& res) {
        bool changed = false;
        for (auto& t : res.topics) {
          if (t.error != error_code::none)
            continue;
          // The configs before the partitions: logs open with them.
          apply_topic_configs(self, t.name, t.configs);
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
/// requests answered NOT_LEADER_OR_FOLLOWER), its groups resign (the
/// group service answers NOT_COORDINATOR until the broker starts again).
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
  self->send(st.groups, broker_status_change{st.node_id, false});
}

void start_broker(broker_ptr self) {
  auto& st = self->state;
  if (st.alive)
    return;
  spdlog::warn("broker {}: started", st.node_id);
  st.alive = true;
  self->send(st.groups, broker_status_change{st.node_id, true});
  start_io(self);
  request_metadata(self, {});
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
  st.topic_overrides.erase(topic);
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
    ->request(admin_controller(self), cluster_request_timeout,
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
                                   event_listener_actor listener,
                                   std::shared_ptr<fetch_purgatory> purgatory) {
  auto& st = self->state;
  st.purgatory = std::move(purgatory);
  st.node_id = node_id;
  st.config = std::move(config);
  st.controller = std::move(controller);
  st.listener = std::move(listener);
  st.quotas = std::make_shared<replication_quotas>();
  st.quotas->set(replication_rates_of(st.config, {}));
  // Group coordination runs beside the broker, linked to it
  // (docs/ARCHITECTURE.md §3): the broker hands it every group request.
  st.groups =
    self->spawn<caf::linked>(group_service, st.node_id, st.config, st.listener);
  // Replicas, the log manager and the group service are linked: their
  // failure is the broker's; the broker ending takes them down.
  self->set_exit_handler([self](caf::exit_msg& msg) {
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
      self->send(st.groups, cluster_peers{st.peers});
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
        self, std::move(asks), cluster_request_timeout,
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
      return self->delegate(self->state.groups, std::move(req));
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
    [self](alter_topic_configs_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](topic_config_change& change) {
      apply_topic_configs(self, change.topic, std::move(change.configs));
    },
    // -- dynamic broker configs: the replication quotas -------------------------
    [self](alter_broker_configs_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](dynamic_broker_configs& d) {
      auto& st = self->state;
      if (d.configs == st.dynamic_configs)
        return;
      st.dynamic_configs = std::move(d.configs);
      auto rates = replication_rates_of(st.config, st.dynamic_configs);
      st.quotas->set(rates);
      spdlog::info("broker {}: replication quotas leader {} B/s, follower {} "
                   "B/s",
                   st.node_id, rates.leader, rates.follower);
    },
    [self](dynamic_broker_configs_request&) {
      return dynamic_broker_configs{self->state.dynamic_configs};
    },
    [self](init_producer_id_request&) {
      auto rp = self->make_response_promise<init_producer_id_response>();
      self->state.awaiting_producer_ids.push_back(rp);
      serve_producer_ids(self);
      return rp;
    },
    // -- groups: the group service's (docs/ARCHITECTURE.md §3) -----------------
    [self](join_group_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](sync_group_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](heartbeat_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](leave_group_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](offset_commit_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](offset_fetch_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](describe_groups_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](list_groups_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](consumer_group_heartbeat_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](consumer_group_describe_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](delete_groups_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    [self](offset_delete_request& req) {
      return self->delegate(self->state.groups, std::move(req));
    },
    // -- topic admin: CreatePartitions, ElectLeaders, DeleteRecords,
    // DescribeLogDirs ---------------------------------------------------------
    [self](create_partitions_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](elect_leaders_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](alter_partition_reassignments_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](list_partition_reassignments_request& req) {
      return self->delegate(admin_controller(self), std::move(req));
    },
    [self](delete_records_request& req) -> caf::result<delete_records_response> {
      auto r = route(self, req.partition);
      if (auto e = std::get_if<error_code>(&r))
        return delete_records_response{*e, -1};
      return self->delegate(std::get<replica_actor>(r), std::move(req));
    },
    [self](describe_log_dirs_request& req) {
      return self->delegate(self->state.log, std::move(req));
    },
  };
}

} // namespace troupe
