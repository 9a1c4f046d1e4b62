#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "domain/cluster_config.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per broker id. Finds each group's coordinator the Kafka way (the
/// leader of __consumer_offsets partition abs(hash(group)) % N), runs the
/// group_coordinator actors of the groups it coordinates, and answers
/// NOT_COORDINATOR for the others.
struct broker_state {
  int32_t node_id = -1;
  cluster_config config;
  controller_actor controller;
  event_listener_actor listener;
  /// Every broker of the cluster, this one included, by node id.
  std::vector<broker_info> peers;
  std::unordered_map<std::string, group_coordinator_actor> groups;
  /// KIP-848 consumer groups (actors/consumer_group_coordinator). A group
  /// id is in at most one of `groups` and `consumer_groups`.
  std::unordered_map<std::string, consumer_group_coordinator_actor>
    consumer_groups;
  /// A group id whose empty group of one protocol is being replaced by a
  /// group of the other (Kafka's maybeDeleteEmptyClassicGroup and
  /// maybeDeleteEmptyConsumerGroup): requests for it wait here until the
  /// tombstones are written. `done` answers the request that started it.
  struct group_replacement {
    uint64_t token = 0;
    std::function<void(bool replaced, error_code)> done;
    /// Each gets `none` to be routed again, or the error to answer.
    std::vector<std::function<void(error_code)>> parked;
  };
  std::map<std::string, group_replacement> replacing;
  uint64_t next_replacement = 0;
  /// Leader of each __consumer_offsets partition, from the controller;
  /// empty until it answered (then: COORDINATOR_NOT_AVAILABLE).
  std::vector<int32_t> offsets_leaders;
  uint64_t next_seed = 0;
  /// False after an operator stopped this broker (it answers as a broker
  /// that is down would be routed around: NOT_COORDINATOR,
  /// NOT_LEADER_OR_FOLLOWER).
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
  /// __consumer_offsets partitions being loaded, with a token that a
  /// newer load or a resignation invalidates; `reading` once the replay
  /// started (the replica leads).
  struct offsets_loading {
    uint64_t token = 0;
    bool reading = false;
  };
  std::map<int32_t, offsets_loading> loading;
  uint64_t next_load = 0;
  /// __consumer_offsets partitions whose replica here said it leads
  /// (replica_leadership).
  std::set<int32_t> leading_offsets_replicas;
  /// The block of producer ids the controller gave this broker (Kafka's
  /// RPCProducerIdManager): [next_producer_id, producer_ids_end).
  int64_t next_producer_id = 0;
  int64_t producer_ids_end = 0;
  /// InitProducerId requests waiting for the next block.
  std::vector<caf::typed_response_promise<init_producer_id_response>>
    awaiting_producer_ids;
  bool allocating_producer_ids = false;

  static inline const char* name = "broker";
};

using broker_ptr = broker_actor::stateful_pointer<broker_state>;

broker_actor::behavior_type broker(broker_ptr self, int32_t node_id,
                                   cluster_config config,
                                   controller_actor controller,
                                   event_listener_actor listener);

} // namespace troupe
