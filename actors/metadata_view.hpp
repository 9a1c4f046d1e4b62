#pragma once

// The controller's metadata as messages, and topic creation with Kafka's
// answers: shared by the embedded node's controller and a cluster node's
// (docs/ARCHITECTURE.md §4, §7). Plain functions, no actor.

#include <random>
#include <string>

#include "domain/cluster_config.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "messages/admin_messages.hpp"
#include "messages/cluster_messages.hpp"

namespace troupe {

partition_metadata to_message(int32_t partition, const partition_state& s);

/// A topic's partitions and its config overrides; UNKNOWN_TOPIC_OR_PARTITION
/// when there is none.
topic_metadata describe(const cluster_metadata& m, const std::string& name);

/// Every partition of `name`, for the brokers to host.
leadership_update partitions_of(const cluster_metadata& m,
                                const std::string& name);

/// Creates `t` with the configured defaults for -1 (num.partitions,
/// default.replication.factor), a random topic id and its config overrides
/// (INVALID_CONFIG when they are not valid, checked first as Kafka's
/// createTopics does); the answer in Kafka's words. With t.validate_only
/// every check runs and nothing is created. __consumer_offsets gets
/// Kafka's internal configs (internal_topic_configs).
topic_result create_topic(cluster_metadata& m, const cluster_config& config,
                          std::mt19937_64& rng, const new_topic& t);

/// Changes a topic's overrides as AlterConfigs / IncrementalAlterConfigs
/// ask (ZkAdminManager.alterTopicConfigs): UNKNOWN_TOPIC_OR_PARTITION "The
/// topic 'x' does not exist.", else the domain's alter_topic_configs. `m`
/// changes only when the answer is ok and the request is not
/// validate_only. A change that turns unclean.leader.election.enable on
/// elects leaders for the topic's offline partitions at once, as Kafka's
/// controller does; those partitions go to `elected`.
alter_topic_configs_response
alter_topic_configs(cluster_metadata& m, const cluster_config& config,
                    const alter_topic_configs_request& req,
                    std::vector<partition_change>* elected = nullptr);

/// CreatePartitions (ZkAdminManager.createPartitions with
/// AdminZkClient.createNewPartitionsAssignment and
/// validateReplicaAssignment, in that order, with Kafka's messages): one
/// result per topic name in the order of its first mention; a name given
/// twice gets INVALID_REQUEST "Duplicate topic in request." once. Unless
/// `req.validate_only`, `m` gets the new partitions (placed as a new
/// topic's, or as assigned) and `created` their states.
create_partitions_response
create_partitions(cluster_metadata& m, const create_partitions_request& req,
                  std::vector<partition_change>& created);

/// ElectLeaders (KafkaController.processReplicaLeaderElection): PREFERRED
/// or UNCLEAN per partition, with Kafka's answers; `all_partitions` covers
/// every partition and leaves out those that needed no election (KafkaApis
/// .handleElectLeaders). A partition named twice is elected once. The
/// elected partitions change in `m` and go to `elected`.
elect_leaders_response elect_leaders(cluster_metadata& m,
                                     const elect_leaders_request& req,
                                     std::vector<partition_change>& elected);

/// AlterPartitionReassignments (KIP-455; Kafka's controller in ZooKeeper
/// mode, KafkaController.onPartitionReassignment): each partition in
/// request order is reassigned (cluster_metadata::reassign) or, with
/// `cancel`, goes back to its original replicas; one result each with
/// Kafka's errors and messages. Partitions whose state changed go to
/// `changed` (a target already in the ISR completes at once).
alter_partition_reassignments_response
alter_partition_reassignments(cluster_metadata& m,
                              const alter_partition_reassignments_request& req,
                              std::vector<partition_change>& changed);

/// ListPartitionReassignments: the ongoing reassignments, all of them or
/// those of the partitions named (others left out, as Kafka does).
list_partition_reassignments_response
list_partition_reassignments(const cluster_metadata& m,
                             const list_partition_reassignments_request& req);

} // namespace troupe
