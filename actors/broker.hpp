#pragma once

#include <map>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "actors/replication_quotas.hpp"
#include "domain/cluster_config.hpp"
#include "domain/replication/fetch_purgatory.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per broker id. Hosts its partitions' replicas and routes produce,
/// fetch and offset requests to them; hands every group request to its
/// group service (actors/groups/group_service, docs/ARCHITECTURE.md §3),
/// with the leadership of __consumer_offsets, the cluster's topics and
/// brokers, and its own stop and start; hands out producer ids.
struct broker_state {
  int32_t node_id = -1;
  cluster_config config;
  controller_actor controller;
  event_listener_actor listener;
  /// Every broker of the cluster, this one included, by node id.
  std::vector<broker_info> peers;
  /// Group coordination: both kinds of group, __consumer_offsets.
  group_service_actor groups;
  /// False after an operator stopped this broker (it answers as a broker
  /// that is down would be routed around: NOT_LEADER_OR_FOLLOWER; its group
  /// service NOT_COORDINATOR).
  bool alive = true;
  /// The broker's logs on disk; null without log.dirs (then offsets stay in
  /// memory and topics have no data).
  log_manager_actor log;
  /// One replica per partition this broker hosts.
  std::map<topic_partition, replica_actor> replicas;
  /// Partition count of every topic the controller told us about.
  std::map<std::string, int32_t> topics;
  /// Topic ids (Kafka's Uuid) by name, for the consumer groups.
  std::map<std::string, uuid> topic_ids;
  /// Each topic's config overrides as the controller last told them (a
  /// topic without any is absent): its log manager and replicas run with
  /// effective_settings of them (docs/ARCHITECTURE.md §4).
  std::map<std::string, topic_configs> topic_overrides;
  /// The block of producer ids the controller gave this broker (Kafka's
  /// RPCProducerIdManager): [next_producer_id, producer_ids_end).
  int64_t next_producer_id = 0;
  int64_t producer_ids_end = 0;
  /// InitProducerId requests waiting for the next block.
  std::vector<caf::typed_response_promise<init_producer_id_response>>
    awaiting_producer_ids;
  bool allocating_producer_ids = false;
  /// The broker's dynamic configs as its node's controller last told them
  /// (dynamic_broker_configs), and the replication quotas set from them,
  /// shared with its replicas (docs/ARCHITECTURE.md §7).
  broker_configs dynamic_configs;
  replication_quotas_ptr quotas;
  /// Consumer fetches waiting for data; every replica of the broker says
  /// when its partition has something new (may be null).
  std::shared_ptr<fetch_purgatory> purgatory;

  static inline const char* name = "broker";
};

using broker_ptr = broker_actor::stateful_pointer<broker_state>;

/// `purgatory` (may be null) is where its leader replicas say that
/// consumers can read something new (the Kafka listeners wait on it).
broker_actor::behavior_type broker(broker_ptr self, int32_t node_id,
                                   cluster_config config,
                                   controller_actor controller,
                                   event_listener_actor listener,
                                   std::shared_ptr<fetch_purgatory> purgatory);

} // namespace troupe
