#include "actors/controller.hpp"

#include <algorithm>
#include <functional>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/metadata_view.hpp"
#include "domain/topic_name.hpp"

namespace troupe {

namespace {

void persist(controller_state& st) {
  if (!st.file)
    return;
  if (auto err = st.file->save(st.metadata); !err.empty())
    spdlog::error("controller: metadata not saved: {}", err);
}

void push_to_brokers(controller_ptr self, const leadership_update& update) {
  for (auto& b : self->state.brokers)
    if (b.handle)
      self->send(caf::actor_cast<broker_actor>(b.handle), update);
}

/// Creates the topic and tells the brokers to host its replicas.
topic_result create_and_push(controller_ptr self, const new_topic& t) {
  auto& st = self->state;
  auto res = create_topic(st.metadata, st.config, st.rng, t);
  if (res.error == error_code::none) {
    persist(st);
    push_to_brokers(self, partitions_of(st.metadata, t.name));
  }
  return res;
}

} // namespace

std::variant<cluster_metadata, std::string>
load_cluster_metadata(const cluster_config& config) {
  cluster_metadata metadata;
  if (!config.log_dirs.empty()) {
    metadata_file file{config.log_dirs + "/__cluster_metadata"};
    auto loaded = file.load();
    if (auto err = std::get_if<std::string>(&loaded))
      return *err; // refuse to invent an empty cluster over unreadable state
    if (auto& m = std::get<std::optional<cluster_metadata>>(loaded))
      metadata = std::move(*m);
  }
  for (int32_t id = 0; id < config.brokers; ++id)
    metadata.register_broker(id);
  // Kafka creates __consumer_offsets on first use; troupe at start, with a
  // start index of 0 so that partition p is led by broker p % brokers.
  if (!metadata.has_topic(offsets_topic))
    metadata.create_topic(offsets_topic, config.offsets_topic_num_partitions,
                          std::min(3, config.brokers), 0);
  return metadata;
}

controller_actor::behavior_type controller(controller_ptr self,
                                           cluster_config config,
                                           cluster_metadata metadata) {
  auto& st = self->state;
  st.config = std::move(config);
  st.metadata = std::move(metadata);
  st.rng.seed(st.config.seed != 0 ? st.config.seed : std::random_device{}());
  // Topics stored before troupe kept topic ids get one now, for good.
  for (auto& [name, partitions] : st.metadata.topics())
    if (st.metadata.topic_id(name).is_zero())
      st.metadata.set_topic_id(name, random_uuid(st.rng));
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
        persist(st);
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
      self->state.brokers = std::move(peers.brokers);
    },
  };
}

} // namespace troupe
