#include "actors/controller.hpp"

#include <algorithm>
#include <functional>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/metadata_view.hpp"
#include "actors/security_admin.hpp"
#include "domain/topic_name.hpp"

namespace troupe {

namespace {

void persist(controller_state& st) {
  if (!st.file)
    return;
  if (auto err = st.file->save(st.metadata, st.secured); !err.empty())
    spdlog::error("controller: metadata not saved: {}", err);
}

/// The process's doors see the ACLs and credentials as stored now.
void publish_security(controller_state& st) {
  if (!st.store)
    return;
  st.store->set_acls(st.secured.acls);
  st.store->set_scram(st.secured.scram);
}

void push_to_brokers(controller_ptr self, const leadership_update& update) {
  for (auto& b : self->state.brokers)
    if (b.handle)
      self->send(caf::actor_cast<broker_actor>(b.handle), update);
}

/// Every broker learns of changed partitions (new ones, new leaders).
void push_changes(controller_ptr self,
                  const std::vector<partition_change>& changes) {
  if (changes.empty())
    return;
  leadership_update update;
  for (auto& c : changes)
    update.partitions.push_back(
      {c.partition.topic, to_message(c.partition.partition, c.state)});
  push_to_brokers(self, update);
}

/// Every broker learns the topic's overrides (per-topic configs) and
/// applies them to its replicas of it.
void push_configs(controller_ptr self, const std::string& topic) {
  topic_config_change change{topic, self->state.metadata.configs(topic)};
  for (auto& b : self->state.brokers)
    if (b.handle)
      self->send(caf::actor_cast<broker_actor>(b.handle), change);
}

/// Creates the topic and tells the brokers to host its replicas: its
/// configs first, so that its logs open with them.
topic_result create_and_push(controller_ptr self, const new_topic& t) {
  auto& st = self->state;
  auto res = create_topic(st.metadata, st.config, st.rng, t);
  if (res.error == error_code::none && !t.validate_only) {
    persist(st);
    if (!st.metadata.configs(t.name).empty())
      push_configs(self, t.name);
    push_to_brokers(self, partitions_of(st.metadata, t.name));
  }
  return res;
}

/// Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE.
constexpr int32_t producer_id_block_size = 1000;

/// Deletes one topic, by name or by id, with Kafka's answers
/// (ControllerApis.deleteTopics, ReplicationControlManager.deleteTopic).
deleted_topic delete_one(controller_state& st, const topic_to_delete& t) {
  deleted_topic res{t.name, t.topic_id, error_code::none, {}};
  if (!t.name.empty() && !t.topic_id.is_zero()) {
    res.error = error_code::invalid_request;
    res.message = "You may not specify both topic name and topic id.";
    return res;
  }
  if (t.name.empty() && t.topic_id.is_zero()) {
    res.error = error_code::invalid_request;
    res.message = "Neither topic name nor id were specified.";
    return res;
  }
  auto name = t.name.empty() ? st.metadata.topic_name(t.topic_id) : t.name;
  if (name.empty()) {
    res.error = error_code::unknown_topic_id;
    res.message = std::string{error_message(res.error)};
    return res;
  }
  // troupe's groups live in __consumer_offsets: it stays (Kafka would
  // delete it and create it again on the next group request).
  if (name == offsets_topic) {
    res.error = error_code::invalid_request;
    res.message = "Topic " + name + " is internal and cannot be deleted.";
    return res;
  }
  res.name = name;
  res.topic_id = st.metadata.topic_id(name);
  res.error = st.metadata.delete_topic(name);
  if (res.error != error_code::none)
    res.message = std::string{error_message(res.error)};
  return res;
}

} // namespace

std::variant<cluster_metadata, std::string>
load_cluster_metadata(const cluster_config& config,
                      stored_security* security) {
  cluster_metadata metadata;
  if (!config.log_dirs.empty()) {
    metadata_file file{config.log_dirs + "/__cluster_metadata"};
    auto loaded = file.load(security);
    if (auto err = std::get_if<std::string>(&loaded))
      return *err; // refuse to invent an empty cluster over unreadable state
    if (auto& m = std::get<std::optional<cluster_metadata>>(loaded))
      metadata = std::move(*m);
  }
  for (int32_t id = 0; id < config.brokers; ++id)
    metadata.register_broker(id);
  // Kafka creates __consumer_offsets on first use; troupe at start, with a
  // start index of 0 so that partition p is led by broker p % brokers.
  if (!metadata.has_topic(offsets_topic)) {
    metadata.create_topic(offsets_topic, config.offsets_topic_num_partitions,
                          std::min(3, config.brokers), 0);
    metadata.set_configs(offsets_topic,
                         internal_topic_configs(config, offsets_topic));
  }
  return metadata;
}

embedded_controller_actor::behavior_type
controller(controller_ptr self, cluster_config config,
           cluster_metadata metadata, controller_security security) {
  auto& st = self->state;
  st.config = std::move(config);
  st.metadata = std::move(metadata);
  st.secured = std::move(security.stored);
  st.store = std::move(security.store);
  publish_security(st);
  st.rng.seed(st.config.seed != 0 ? st.config.seed : std::random_device{}());
  // Topics stored before troupe kept topic ids get one now, for good.
  for (auto& [name, partitions] : st.metadata.topics())
    if (st.metadata.topic_id(name).is_zero())
      st.metadata.set_topic_id(name, random_uuid(st.rng));
  // Kafka's cluster id, picked once (Kafka: at ZooKeeper's first broker
  // or by kafka-storage format).
  if (st.metadata.cluster_id().is_zero())
    st.metadata.set_cluster_id(random_uuid(st.rng));
  if (!st.config.log_dirs.empty())
    st.file = std::make_unique<metadata_file>(st.config.log_dirs
                                              + "/__cluster_metadata");
  persist(st);
  return {
    [self](create_topics_request& req) {
      create_topics_response res;
      for (auto& t : req.topics)
        res.topics.push_back(create_and_push(self, t));
      return res;
    },
    [self](metadata_request& req) {
      auto& st = self->state;
      metadata_response res;
      res.cluster_id = to_string(st.metadata.cluster_id());
      // Kafka's metadata cache holds the live brokers only.
      for (auto& b : st.brokers)
        if (st.metadata.is_alive(b.node_id))
          res.brokers.push_back(b);
      // The embedded controller is no broker: clients are told the first
      // live one, which shares its process.
      if (!res.brokers.empty())
        res.controller_id = res.brokers.front().node_id;
      if (req.topics.empty()) {
        for (auto& [name, partitions] : st.metadata.topics())
          res.topics.push_back(describe(st.metadata, name));
        return res;
      }
      for (auto& name : req.topics) {
        if (auto e = validate_topic_name(name); e != error_code::none) {
          res.topics.push_back({e, name, 0, {}, {}});
          continue;
        }
        if (!st.metadata.has_topic(name) && req.allow_auto_topic_creation
            && st.config.auto_create_topics)
          create_and_push(self, {name, -1, -1});
        res.topics.push_back(describe(st.metadata, name));
      }
      return res;
    },
    [self](alter_isr_request& req) {
      auto& st = self->state;
      alter_isr_response res;
      res.error =
        st.metadata.alter_isr(req.partition, req.leader, req.leader_epoch,
                              req.partition_epoch, req.isr);
      if (res.error == error_code::none) {
        spdlog::info("controller: ISR of {} is now {} members",
                     to_string(req.partition), req.isr.size());
        // A reassignment whose target replicas are all in the ISR now
        // completes (KIP-455).
        std::vector<partition_change> completed;
        st.metadata.complete_reassignments(completed);
        persist(st);
        push_changes(self, completed);
      }
      if (auto p = st.metadata.partition(req.partition))
        res.state = to_message(req.partition.partition, *p);
      return res;
    },
    [self](broker_status_change& req) {
      auto& st = self->state;
      leadership_update res;
      if (!st.metadata.brokers().count(req.broker_id)) {
        res.error = error_code::broker_not_available;
        return res;
      }
      auto unclean = st.config.unclean_leader_election;
      auto changes = req.alive
                       ? st.metadata.broker_started(req.broker_id, unclean)
                       : st.metadata.broker_stopped(req.broker_id, unclean);
      spdlog::info("controller: broker {} {}; {} partitions changed leader",
                   req.broker_id, req.alive ? "started" : "stopped",
                   changes.size());
      persist(st);
      for (auto& c : changes)
        res.partitions.push_back(
          {c.partition.topic, to_message(c.partition.partition, c.state)});
      // The broker itself first (it stops or starts), then everyone learns
      // the moved leaderships.
      for (auto& b : st.brokers)
        if (b.handle && b.node_id == req.broker_id)
          self->send(caf::actor_cast<broker_actor>(b.handle), req);
      push_to_brokers(self, res);
      return res;
    },
    [self](cluster_peers& peers) {
      auto& st = self->state;
      st.brokers = std::move(peers.brokers);
      // Each broker runs with its stored dynamic configs.
      for (auto& b : st.brokers)
        if (b.handle)
          self->send(caf::actor_cast<broker_actor>(b.handle),
                     dynamic_broker_configs{
                       st.metadata.dynamic_configs(b.node_id)});
    },
    // The new partitions and the elected leaders are stored before the
    // answer and reach every broker as a leadership change: the replicas
    // open (or change role), the group service follows __consumer_offsets'
    // leaders, and each broker's consumer group coordinators hear of the
    // new partition counts (broker.cpp announce_topics).
    [self](create_partitions_request& req) {
      auto& st = self->state;
      std::vector<partition_change> created;
      auto res = create_partitions(st.metadata, req, created);
      if (!created.empty()) {
        persist(st);
        push_changes(self, created);
      }
      return res;
    },
    [self](elect_leaders_request& req) {
      auto& st = self->state;
      std::vector<partition_change> elected;
      auto res = elect_leaders(st.metadata, req, elected);
      if (!elected.empty()) {
        persist(st);
        push_changes(self, elected);
      }
      return res;
    },
    [self](alter_partition_reassignments_request& req) {
      auto& st = self->state;
      std::vector<partition_change> changed;
      auto res = alter_partition_reassignments(st.metadata, req, changed);
      if (!changed.empty()) {
        persist(st);
        push_changes(self, changed);
      }
      return res;
    },
    [self](list_partition_reassignments_request& req) {
      return list_partition_reassignments(self->state.metadata, req);
    },
    [self](delete_topics_request& req) {
      auto& st = self->state;
      delete_topics_response res;
      topic_deletion gone;
      for (auto& t : req.topics) {
        res.topics.push_back(delete_one(st, t));
        auto& r = res.topics.back();
        if (r.error == error_code::none) {
          spdlog::info("controller: deleted topic {}", r.name);
          gone.topics.push_back(r.name);
        }
      }
      if (!gone.topics.empty()) {
        persist(st);
        for (auto& b : st.brokers)
          if (b.handle)
            self->send(caf::actor_cast<broker_actor>(b.handle), gone);
      }
      return res;
    },
    [self](alter_topic_configs_request& req) {
      auto& st = self->state;
      std::vector<partition_change> elected;
      auto res = alter_topic_configs(st.metadata, st.config, req, &elected);
      if (res.error == error_code::none && !req.validate_only) {
        // Stored before it is answered; the brokers apply it as they hear.
        persist(st);
        push_configs(self, req.topic);
        push_changes(self, elected);
      }
      return res;
    },
    // A broker's dynamic configs: stored before answered, then the broker
    // sets its replication quotas from them.
    [self](alter_broker_configs_request& req) {
      auto& st = self->state;
      alter_broker_configs_response res;
      broker_configs next;
      auto e = alter_broker_configs(req.broker_id,
                                    st.metadata.dynamic_configs(req.broker_id),
                                    req.ops, req.incremental, next);
      if (!e.ok()) {
        res.error = e.error;
        res.message = std::move(e.message);
        return res;
      }
      res.configs = next;
      if (req.validate_only)
        return res;
      st.metadata.set_dynamic_configs(req.broker_id, next);
      persist(st);
      for (auto& b : st.brokers)
        if (b.handle && b.node_id == req.broker_id)
          self->send(caf::actor_cast<broker_actor>(b.handle),
                     dynamic_broker_configs{std::move(next)});
      return res;
    },
    [self](allocate_producer_ids_request& req) {
      auto& st = self->state;
      allocate_producer_ids_response res;
      auto first = st.metadata.allocate_producer_ids(producer_id_block_size);
      if (first < 0) {
        res.error = error_code::unknown_server_error;
        return res;
      }
      // Persisted before it is handed out: no id is ever given twice.
      persist(st);
      spdlog::info("controller: producer ids {}..{} to broker {}", first,
                   first + producer_id_block_size - 1, req.broker_id);
      res.producer_id_start = first;
      res.producer_id_len = producer_id_block_size;
      return res;
    },
    // Stored before answered; the store's snapshot is replaced before the
    // answer, so the client's next request sees the change.
    [self](create_acls_request& req) {
      auto& st = self->state;
      create_acls_response res;
      if (apply_create_acls(st.secured.acls, req, res)) {
        persist(st);
        publish_security(st);
      }
      return res;
    },
    [self](delete_acls_request& req) {
      auto& st = self->state;
      delete_acls_response res;
      if (apply_delete_acls(st.secured.acls, req, res)) {
        persist(st);
        publish_security(st);
      }
      return res;
    },
    [self](alter_scram_credentials_request& req) {
      auto& st = self->state;
      std::vector<std::string> changed;
      auto res = apply_alter_scram(st.secured.scram, req, &changed);
      if (!changed.empty()) {
        spdlog::info("controller: SCRAM credentials of {} users changed",
                     changed.size());
        persist(st);
        publish_security(st);
      }
      return res;
    },
  };
}

} // namespace troupe
