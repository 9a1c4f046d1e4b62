#pragma once

// What Kafka's controller keeps (in ZooKeeper, /brokers,
// /brokers/topics/<t>/partitions/<p>/state and /config/topics/<t>): brokers
// and whether they are alive, topics, each partition's replicas, leader,
// leader epoch and ISR, each topic's config overrides. A plain class; the
// controller actor owns one and persists it.

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "domain/broker_config.hpp"
#include "domain/error_code.hpp"
#include "domain/topic_config.hpp"
#include "domain/topic_partition.hpp"
#include "domain/uuid.hpp"

namespace troupe {

/// Kafka's internal topic of committed offsets and group metadata.
inline const std::string offsets_topic = "__consumer_offsets";

struct partition_state {
  std::vector<int32_t> replicas; // assignment order; the first is preferred
  int32_t leader = -1;           // -1: offline
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  /// Bumped on every change (ZooKeeper's znode version), so that a stale
  /// ISR change is refused.
  int32_t partition_epoch = 0;
  /// During a reassignment (KIP-455, Kafka's ReplicaAssignment):
  /// `replicas` is the target followed by the original replicas not in it;
  /// `adding` are the target's replicas the original lacks, `removing` the
  /// original's the target lacks. Both empty otherwise.
  std::vector<int32_t> adding{};
  std::vector<int32_t> removing{};

  bool reassigning() const noexcept {
    return !adding.empty() || !removing.empty();
  }
  /// The replicas a reassignment moves to (all of them when none runs).
  std::vector<int32_t> target_replicas() const;
  /// The replicas before the reassignment (all of them when none runs).
  std::vector<int32_t> original_replicas() const;

  friend bool operator==(const partition_state& x, const partition_state& y) {
    return x.replicas == y.replicas && x.leader == y.leader
           && x.leader_epoch == y.leader_epoch && x.isr == y.isr
           && x.partition_epoch == y.partition_epoch && x.adding == y.adding
           && x.removing == y.removing;
  }
};

/// A leadership or ISR change, for the brokers to act on.
struct partition_change {
  topic_partition partition;
  partition_state state;
};

class cluster_metadata {
public:
  /// Rebuilds metadata read back from disk.
  static cluster_metadata
  restore(std::map<int32_t, bool> brokers,
          std::map<std::string, std::vector<partition_state>> topics,
          std::map<std::string, uuid> topic_ids = {},
          std::map<std::string, topic_configs> configs = {}) {
    cluster_metadata m;
    m.brokers_ = std::move(brokers);
    m.topics_ = std::move(topics);
    m.topic_ids_ = std::move(topic_ids);
    for (auto& [name, c] : configs)
      if (m.topics_.count(name) && !c.empty())
        m.configs_[name] = std::move(c);
    return m;
  }

  // -- brokers ---------------------------------------------------------------

  void register_broker(int32_t broker_id);
  bool is_alive(int32_t broker_id) const;
  std::vector<int32_t> live_brokers() const;
  const std::map<int32_t, bool>& brokers() const noexcept {
    return brokers_;
  }

  /// A broker stopped (Kafka's onBrokerFailure): it leaves the ISR of every
  /// partition it hosts at once, except where it is the last ISR member;
  /// every partition it led gets a new leader from the remaining ISR, in
  /// assignment order, with leader epoch + 1 — or, with
  /// unclean.leader.election.enable, from the live replicas; otherwise it
  /// goes offline (leader -1) keeping its ISR. Returns every partition that
  /// changed. `unclean_election` is the broker's setting; a topic's own
  /// unclean.leader.election.enable overrides it.
  std::vector<partition_change> broker_stopped(int32_t broker_id,
                                               bool unclean_election);

  /// A broker came back: offline partitions it can lead get it as leader
  /// (it must be in the ISR unless unclean election is on, by the broker's
  /// setting or the topic's).
  std::vector<partition_change> broker_started(int32_t broker_id,
                                               bool unclean_election);

  /// The topic's unclean.leader.election.enable was just turned on (Kafka's
  /// controller then elects leaders for its offline partitions,
  /// enableTopicUncleanLeaderElection): every offline partition of the
  /// topic gets the first live replica as its leader. Returns the
  /// partitions that changed.
  std::vector<partition_change> elect_offline(const std::string& topic,
                                              bool unclean_election);

  // -- topics ----------------------------------------------------------------

  /// Kafka's rack-unaware replica assignment (AdminUtils
  /// .assignReplicasToBrokers) with a fixed start index of `start_index`.
  /// Errors: TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS,
  /// INVALID_REPLICATION_FACTOR, INVALID_TOPIC_EXCEPTION.
  /// `id` is the topic id (Kafka's Uuid, random per topic); zero leaves
  /// the topic without one.
  error_code create_topic(const std::string& name, int32_t partitions,
                          int32_t replication_factor, int32_t start_index = 0,
                          uuid id = {});

  /// Replicas for `count` partitions after the topic's current ones, as
  /// AdminZkClient.createNewPartitionsAssignment places them without an
  /// assignment: assignReplicasToBrokers over the live brokers with the
  /// topic's replication factor, the start index of the first live broker
  /// whose id is not below partition 0's first replica, and the partition
  /// ids continuing the topic's. Empty for an unknown topic.
  std::vector<std::vector<int32_t>>
  assign_new_partitions(const std::string& topic, int32_t count) const;

  /// Appends partitions with these replicas (the caller validated them), as
  /// Kafka's controller brings them online (onNewPartitionCreation,
  /// initializeLeaderAndIsrForPartitions): the first live replica leads,
  /// the live replicas are the ISR, leader epoch 0. Returns them.
  std::vector<partition_change>
  add_partitions(const std::string& topic,
                 const std::vector<std::vector<int32_t>>& replicas);

  /// ElectLeaders PREFERRED (PreferredReplicaPartitionLeaderElectionStrategy):
  /// the first replica of the assignment leads, if it is alive and in the
  /// ISR, with leader epoch + 1 and the ISR unchanged.
  /// ELECTION_NOT_NEEDED when it leads already, PREFERRED_LEADER_NOT_AVAILABLE
  /// when it cannot, UNKNOWN_TOPIC_OR_PARTITION. The change goes to `changes`.
  error_code elect_preferred(const topic_partition& tp,
                             std::vector<partition_change>& changes);

  /// ElectLeaders UNCLEAN (OfflinePartitionLeaderElectionStrategy with
  /// unclean election allowed): a partition whose leader is gone gets the
  /// first live ISR replica, else the first live replica (its ISR is then
  /// that replica alone). ELECTION_NOT_NEEDED when its leader is alive,
  /// ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica is.
  error_code elect_unclean(const topic_partition& tp,
                           std::vector<partition_change>& changes);

  bool has_topic(const std::string& name) const {
    return topics_.count(name) > 0;
  }
  const std::map<std::string, std::vector<partition_state>>&
  topics() const noexcept {
    return topics_;
  }
  const partition_state* partition(const topic_partition& tp) const;

  /// A cluster's controller stores each partition's state in ZooKeeper,
  /// where its zkVersion is the partition epoch (docs/ARCHITECTURE.md §7).
  void set_partition_epoch(const topic_partition& tp, int32_t epoch);

  /// The topic's id; zero when unknown (topics created before troupe had
  /// ids get one from the controller at start).
  uuid topic_id(const std::string& name) const;
  void set_topic_id(const std::string& name, uuid id) {
    topic_ids_[name] = id;
  }
  const std::map<std::string, uuid>& topic_ids() const noexcept {
    return topic_ids_;
  }

  /// Removes the topic, its partitions, its id and its configs (Kafka's
  /// deleteTopic): UNKNOWN_TOPIC_OR_PARTITION when there is none.
  error_code delete_topic(const std::string& name);

  /// The topic's config overrides (per-topic configs); empty for a topic
  /// without any, or none.
  const topic_configs& configs(const std::string& name) const;

  /// Replaces the overrides of an existing topic; the caller validated
  /// them (validate_topic_configs).
  void set_configs(const std::string& name, topic_configs configs);

  /// Every topic's overrides, topics without any left out.
  const std::map<std::string, topic_configs>& all_configs() const noexcept {
    return configs_;
  }

  /// The topic named by this id; empty when none is.
  std::string topic_name(const uuid& id) const;

  // -- the cluster ---------------------------------------------------------------

  /// Kafka's cluster id (a Uuid); zero until the controller picks one.
  uuid cluster_id() const noexcept {
    return cluster_id_;
  }
  void set_cluster_id(uuid id) noexcept {
    cluster_id_ = id;
  }

  /// Kafka's ProducerIdControlManager: the next unallocated producer id.
  /// Blocks are handed out in ascending order and never again, so the
  /// value is persisted with the metadata.
  /// Each broker's dynamic configs (domain/broker_config.hpp), kept here
  /// by the embedded node; a cluster node keeps its own in
  /// /config/brokers/<id>.
  const broker_configs& dynamic_configs(int32_t broker) const;
  void set_dynamic_configs(int32_t broker, broker_configs configs);
  const std::map<int32_t, broker_configs>&
  all_dynamic_configs() const noexcept {
    return dynamic_configs_;
  }

  int64_t next_producer_id() const noexcept {
    return next_producer_id_;
  }
  void set_next_producer_id(int64_t id) noexcept {
    next_producer_id_ = id;
  }

  /// The first id of the next block of `count` producer ids; -1 when the
  /// ids are exhausted.
  int64_t allocate_producer_ids(int32_t count);

  // -- ISR changes (Kafka's AlterIsr) --------------------------------------------

  /// The leader asks to store `isr`. Refused with NOT_LEADER_OR_FOLLOWER when
  /// the asker is not the leader, FENCED_LEADER_EPOCH (74) for an old epoch,
  /// INVALID_UPDATE_VERSION (95) for a stale partition epoch, INVALID_REQUEST
  /// when the ISR lacks the leader or names non-replicas, INELIGIBLE_REPLICA
  /// (107) when it adds a replica whose broker is down.
  error_code alter_isr(const topic_partition& tp, int32_t leader,
                       int32_t leader_epoch, int32_t partition_epoch,
                       const std::vector<int32_t>& isr);

  // -- partition reassignment (KIP-455) ------------------------------------

  /// AlterPartitionReassignments of one partition to `target` (Kafka's
  /// ReplicaAssignment.reassignTo and the controller's first step): the
  /// replicas become the target followed by the original replicas not in
  /// it, with the adding and removing sets, and the leader epoch goes up so
  /// that every replica hears of it. A reassignment already running is
  /// replaced; its original replicas stay the original. Refused with
  /// UNKNOWN_TOPIC_OR_PARTITION, or INVALID_REPLICA_ASSIGNMENT for an
  /// empty or duplicate list or an unknown broker (`message` says which).
  /// A target the partition already has changes nothing. Then complete()
  /// runs, as Kafka checks at once whether the target is in the ISR.
  error_code reassign(const topic_partition& tp,
                      const std::vector<int32_t>& target, std::string& message,
                      std::vector<partition_change>& changes);

  /// AlterPartitionReassignments with null replicas: back to the original
  /// replicas (a reassignment to them). NO_REASSIGNMENT_IN_PROGRESS when
  /// none runs.
  error_code cancel_reassignment(const topic_partition& tp,
                                 std::vector<partition_change>& changes);

  /// Every reassignment whose target replicas are all in the ISR completes
  /// (Kafka's onPartitionReassignment, steps B3-B8): the replicas become the
  /// target, the removed ones leave the ISR, the leader moves to the first
  /// live target replica in the ISR when it is not a target replica itself,
  /// and the leader epoch goes up. Returns whether any completed.
  bool complete_reassignments(std::vector<partition_change>& changes);

  /// Brings liveness in line with the brokers that are registered (a
  /// cluster's /brokers/ids): each broker gone is handled as broker_stopped,
  /// each one back as broker_started.
  void sync_liveness(const std::vector<int32_t>& registered,
                     bool unclean_election);

private:
  std::optional<int32_t> elect(const partition_state& p,
                               bool unclean_election) const;
  /// Gives an offline partition the leader elect() picks, with leader and
  /// partition epoch + 1; false when there is none to pick.
  bool elect_offline_leader(partition_state& p, bool unclean_election) const;
  bool unclean_for(const std::string& topic, bool broker_setting) const;

  std::map<int32_t, bool> brokers_;
  std::map<std::string, std::vector<partition_state>> topics_;
  std::map<std::string, uuid> topic_ids_;
  std::map<std::string, topic_configs> configs_;
  uuid cluster_id_;
  int64_t next_producer_id_ = 0;
  std::map<int32_t, broker_configs> dynamic_configs_;
};

/// Kafka's KafkaController.checkAndTriggerAutoLeaderRebalance: for every
/// broker that is the preferred replica (the first of the assignment) of
/// some partitions, the share of those it does not lead; where that share
/// is above `percentage` / 100, each of them whose preferred replica is
/// alive and in the ISR, so a PREFERRED election can move it back. The
/// partitions of `skip` (topics being deleted) are left out, as Kafka
/// leaves out topics queued for deletion.
std::vector<topic_partition>
imbalanced_partitions(const cluster_metadata& m, int32_t percentage,
                      const std::set<std::string>& skip = {});

/// Partitions whose state differs between two versions of the metadata, or
/// that only `after` has.
std::vector<topic_partition> changed_partitions(const cluster_metadata& before,
                                                const cluster_metadata& after);

/// Topics of `after` whose overrides differ from `before`'s, or that only
/// `after` has (a new topic, with or without overrides).
/// Kafka's AdminUtils.assignReplicasToBrokers, rack-unaware, with a fixed
/// start index: `count` partitions from partition id `first_partition` over
/// `brokers` (ascending ids). The first replica walks the brokers
/// round-robin, the others follow at a shift that grows every time the
/// partition ids wrap around the brokers.
std::vector<std::vector<int32_t>>
assign_replicas(const std::vector<int32_t>& brokers, int32_t count,
                int32_t replication_factor, int32_t start_index,
                int32_t first_partition = 0);

std::vector<std::string> changed_configs(const cluster_metadata& before,
                                         const cluster_metadata& after);

} // namespace troupe
