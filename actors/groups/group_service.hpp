#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "domain/cluster_config.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per broker: group coordination as its own service, as Kafka's
/// GroupCoordinatorService over its GroupMetadataManager and
/// OffsetMetadataManager (docs/ARCHITECTURE.md §3). It finds each group's
/// coordinator (the leader of __consumer_offsets partition
/// abs(hash(group)) % N), checks every group request the Kafka way, runs
/// the coordinators of the groups this broker coordinates, classic
/// (actors/groups/group_coordinator) and KIP-848
/// (actors/groups/consumer_group_coordinator), switches a group id between
/// the two protocols, loads a partition's groups when this broker's
/// replica of it starts leading, and gathers the describe and list answers
/// of its coordinators. The broker hands it every group request, the
/// leadership of __consumer_offsets, the cluster's topics and brokers, and
/// its own stop and start.
struct group_service_state {
  int32_t node_id = -1;
  cluster_config config;
  event_listener_actor listener;
  /// False after an operator stopped the broker (NOT_COORDINATOR).
  bool alive = true;
  /// Every broker of the cluster, for FindCoordinator.
  std::vector<broker_info> peers;
  /// Leader of each __consumer_offsets partition, from the controller;
  /// empty until it answered (then: COORDINATOR_NOT_AVAILABLE).
  std::vector<int32_t> offsets_leaders;
  std::unordered_map<std::string, group_coordinator_actor> groups;
  /// KIP-848 consumer groups. A group id is in at most one of `groups` and
  /// `consumer_groups`.
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
  uint64_t next_seed = 0;
  /// The cluster's topics, as the consumer groups resolve subscriptions.
  std::vector<topic_info> topics;
  /// This broker's replica of each __consumer_offsets partition, as its
  /// replica_leadership last said: where the groups write, where their
  /// replay reads, and whether it leads.
  struct offsets_replica {
    replica_actor replica;
    log_manager_actor log;
    bool leading = false;
  };
  std::map<int32_t, offsets_replica> offsets_replicas;
  /// __consumer_offsets partitions being loaded, with a token that a newer
  /// load or a resignation invalidates; `reading` once the replay started.
  struct offsets_loading {
    uint64_t token = 0;
    bool reading = false;
  };
  std::map<int32_t, offsets_loading> loading;
  uint64_t next_load = 0;
  /// The offsets expiry timer (offsets.retention.check.interval.ms) of each
  /// __consumer_offsets partition whose groups this broker serves, by the
  /// epoch its tick carries: Kafka schedules one per partition when it has
  /// loaded it and cancels it when it gives it up (GroupCoordinatorShard
  /// .onLoaded, onUnloaded).
  std::map<int32_t, uint64_t> expiry_timers;
  uint64_t next_expiry = 0;

  static inline const char* name = "group_service";
};

using group_service_ptr =
  group_service_actor::stateful_pointer<group_service_state>;

/// Spawned by the broker `node_id`, linked to it.
group_service_actor::behavior_type group_service(group_service_ptr self,
                                                 int32_t node_id,
                                                 cluster_config config,
                                                 event_listener_actor listener);

} // namespace troupe
