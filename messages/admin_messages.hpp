#pragma once

// The admin client's requests that change the cluster beyond creating
// topics: DeleteTopics (the controller drops the topic, every broker stops
// its replicas and removes their logs), AlterConfigs and
// IncrementalAlterConfigs of a topic (the controller stores the topic's
// overrides, every broker applies them), and InitProducerId (producer ids
// for idempotent producers, handed out by the controller in blocks as
// Kafka's AllocateProducerIds does). Plain structs with inspect().

#include <cstdint>
#include <string>
#include <vector>

#include "domain/broker_config.hpp"
#include "domain/error_code.hpp"
#include "domain/topic_config.hpp"
#include "domain/topic_partition.hpp"
#include "domain/uuid.hpp"

namespace troupe {

// -- DeleteTopics -------------------------------------------------------------

/// A topic by name or, with an empty name, by topic id.
struct topic_to_delete {
  std::string name{};
  uuid topic_id{};
};

struct delete_topics_request {
  std::vector<topic_to_delete> topics;
};

struct deleted_topic {
  /// Empty when asked by an id the controller does not know.
  std::string name{};
  uuid topic_id{};
  error_code error = error_code::none;
  std::string message{};
};

/// One result per requested topic, in request order.
struct delete_topics_response {
  std::vector<deleted_topic> topics;
};

/// Controller -> every broker: these topics are gone; their replicas stop
/// and their logs are removed (Kafka's StopReplica with deletePartition).
struct topic_deletion {
  std::vector<std::string> topics;
};

/// Broker -> its log manager: close the partitions' logs and remove them
/// from disk.
struct log_delete_request {
  std::vector<topic_partition> partitions;
};

// -- topic configs (AlterConfigs 33, IncrementalAlterConfigs 44) ------------

/// Listener -> broker -> controller: change one topic's overrides (the
/// domain's alter_topic_configs says how). With validate_only nothing is
/// stored; the answer is what a real change would get.
struct alter_topic_configs_request {
  std::string topic;
  std::vector<config_op> ops;
  /// false: AlterConfigs, the SETs replace the whole set.
  bool incremental = true;
  bool validate_only = false;
};

/// UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG, INVALID_REQUEST,
/// NOT_CONTROLLER, ... with Kafka's message; the topic's overrides as
/// stored afterwards (with validate_only: as they would be).
struct alter_topic_configs_response {
  error_code error = error_code::none;
  std::string message{};
  topic_configs configs{};
};

/// Controller -> every broker: a topic's overrides changed (or were set at
/// its creation); each broker that hosts a replica of it applies them (its
/// log manager's topic_log_config, its replicas' replica_config).
struct topic_config_change {
  std::string topic;
  topic_configs configs;
};

// -- dynamic broker configs (AlterConfigs 33, IncrementalAlterConfigs 44) -----

/// Listener -> broker -> its node's controller: change the broker's dynamic
/// configs (the domain's alter_broker_configs says which and how). The
/// embedded controller keeps them in its metadata, a cluster node in
/// /config/brokers/<id>. With validate_only nothing is stored.
struct alter_broker_configs_request {
  int32_t broker_id = -1;
  std::vector<config_op> ops;
  /// false: AlterConfigs, the SETs replace the whole set.
  bool incremental = true;
  bool validate_only = false;
};

/// INVALID_REQUEST, INVALID_CONFIG, ... with Kafka's message; the broker's
/// dynamic configs as stored afterwards.
struct alter_broker_configs_response {
  error_code error = error_code::none;
  std::string message{};
  broker_configs configs{};
};

/// Node's controller -> broker: the broker's dynamic configs, at its start
/// and after every change (it sets its replication quotas from them); also
/// the broker's answer to dynamic_broker_configs_request.
struct dynamic_broker_configs {
  broker_configs configs;
};

/// Listener -> broker: its dynamic configs (DescribeConfigs).
struct dynamic_broker_configs_request {
  // nop
};

// -- producer ids (KIP-98) ----------------------------------------------------

/// Listener -> broker: a producer id for an idempotent producer (no
/// transactional id; the listener refuses those).
struct init_producer_id_request {
  // nop
};

struct init_producer_id_response {
  error_code error = error_code::none;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

/// Broker -> controller: the next block of producer ids (Kafka's
/// AllocateProducerIds, API 67).
struct allocate_producer_ids_request {
  int32_t broker_id = -1;
};

struct allocate_producer_ids_response {
  error_code error = error_code::none;
  int64_t producer_id_start = -1;
  int32_t producer_id_len = 0;
};

// -- CreatePartitions (37), ElectLeaders (43) ---------------------------------

/// One topic of a CreatePartitions request: grow it to `count` partitions.
/// `assignments`, when not empty, gives the replicas of each new partition
/// (count - current entries); empty: the controller places them as it
/// places a new topic's.
struct new_partitions {
  std::string topic;
  int32_t count = 0;
  std::vector<std::vector<int32_t>> assignments{};
};

/// Listener -> broker -> controller (Kafka's
/// AdminManager/ControllerApis.createPartitions). With validate_only
/// nothing changes; the answer is what a real change would get.
struct create_partitions_request {
  std::vector<new_partitions> topics;
  bool validate_only = false;
};

/// INVALID_PARTITIONS (count not above the current one, with Kafka's
/// message), INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION,
/// INVALID_REQUEST, NOT_CONTROLLER, ...
struct create_partitions_result {
  std::string topic;
  error_code error = error_code::none;
  std::string message{};
};

/// One result per requested topic, in request order.
struct create_partitions_response {
  std::vector<create_partitions_result> results;
};

/// Listener -> broker -> controller: elect leaders (ElectLeaders). Type 0
/// is PREFERRED (the first replica of the assignment, if in the ISR and
/// alive), 1 UNCLEAN. With `all_partitions` every partition of every topic
/// (Kafka: a null topic list) and `partitions` is ignored.
struct elect_leaders_request {
  int8_t election_type = 0;
  bool all_partitions = false;
  std::vector<topic_partition> partitions{};
};

/// ELECTION_NOT_NEEDED (already led by its preferred replica),
/// PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
/// UNKNOWN_TOPIC_OR_PARTITION, ...
struct elected_leader {
  topic_partition partition;
  error_code error = error_code::none;
  std::string message{};
};

/// The request's error (NOT_CONTROLLER, INVALID_REQUEST for an unknown
/// election type, ...) and one result per partition: the requested ones in
/// request order, or every partition considered for `all_partitions`
/// (Kafka leaves out those that need no election then).
struct elect_leaders_response {
  error_code error = error_code::none;
  std::vector<elected_leader> results{};
};

// -- AlterPartitionReassignments (45), ListPartitionReassignments (46) --------

/// One partition of an AlterPartitionReassignments (KIP-455): move it onto
/// `replicas` (the target, in preference order), or with `cancel` (Kafka's
/// null replicas) stop its ongoing reassignment and go back to the
/// replicas it had before.
struct reassignment_target {
  topic_partition partition;
  bool cancel = false;
  std::vector<int32_t> replicas{};
};

/// Listener -> broker -> controller.
struct alter_partition_reassignments_request {
  int32_t timeout_ms = 60000;
  std::vector<reassignment_target> partitions{};
};

/// NO_REASSIGNMENT_IN_PROGRESS (cancel of a partition not moving),
/// INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION, ...
struct reassignment_result {
  topic_partition partition;
  error_code error = error_code::none;
  std::string message{};
};

/// The request's error (NOT_CONTROLLER, ...) and one result per requested
/// partition, in request order.
struct alter_partition_reassignments_response {
  error_code error = error_code::none;
  std::string message{};
  std::vector<reassignment_result> results{};
};

/// With `all_partitions` (Kafka: null topics) every ongoing reassignment,
/// else those of `partitions` that are ongoing.
struct list_partition_reassignments_request {
  int32_t timeout_ms = 60000;
  bool all_partitions = true;
  std::vector<topic_partition> partitions{};
};

/// One ongoing reassignment: the full replica set while it moves (target
/// and original), the replicas being added and those to be removed.
struct ongoing_reassignment {
  topic_partition partition;
  std::vector<int32_t> replicas{};
  std::vector<int32_t> adding{};
  std::vector<int32_t> removing{};
};

struct list_partition_reassignments_response {
  error_code error = error_code::none;
  std::string message{};
  std::vector<ongoing_reassignment> partitions{};
};

// -- DeleteRecords (21), DescribeLogDirs (35) ---------------------------------

/// Listener -> broker -> the partition's leader replica: move the log
/// start offset up to `offset` (-1: the high watermark), on the leader at
/// once and on every follower (Kafka's ReplicaManager.deleteRecords). The
/// answer comes once every replica in the ISR has moved its log start
/// offset (the low watermark), or at the timeout.
struct delete_records_request {
  topic_partition partition;
  int64_t offset = -1;
  int32_t timeout_ms = 30000;
};

/// OFFSET_OUT_OF_RANGE for an offset above the high watermark,
/// NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION
/// for a compacted topic, REQUEST_TIMED_OUT; low_watermark: the smallest
/// log start offset among the replicas afterwards.
struct delete_records_response {
  error_code error = error_code::none;
  int64_t low_watermark = -1;
};

/// Listener -> broker -> its log manager: the broker's log directories and
/// the partitions in them. `all`: every partition; otherwise only these.
struct describe_log_dirs_request {
  bool all = true;
  std::vector<topic_partition> partitions{};
};

struct log_dir_partition {
  topic_partition partition;
  int64_t size = 0;       // bytes on disk of the partition's segments
  int64_t offset_lag = 0; // 0: no future replica
};

struct log_dir_description {
  std::string path;
  error_code error = error_code::none; // KAFKA_STORAGE_ERROR when offline
  std::vector<log_dir_partition> partitions{};
  int64_t total_bytes = -1;  // the file system's size
  int64_t usable_bytes = -1; // its space left
};

struct describe_log_dirs_response {
  std::vector<log_dir_description> dirs;
};

// -- inspect ------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_to_delete& x) {
  return f(x.name, x.topic_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_topics_request& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deleted_topic& x) {
  return f(x.name, x.topic_id, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_topics_response& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_deletion& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_delete_request& x) {
  return f(x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, config_op& x) {
  return f(x.name, x.op, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_topic_configs_request& x) {
  return f(x.topic, x.ops, x.incremental, x.validate_only);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_topic_configs_response& x) {
  return f(x.error, x.message, x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_config_change& x) {
  return f(x.topic, x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_broker_configs_request& x) {
  return f(x.broker_id, x.ops, x.incremental, x.validate_only);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_broker_configs_response& x) {
  return f(x.error, x.message, x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        dynamic_broker_configs& x) {
  return f(x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        dynamic_broker_configs_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        init_producer_id_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        init_producer_id_response& x) {
  return f(x.error, x.producer_id, x.producer_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        allocate_producer_ids_request& x) {
  return f(x.broker_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        allocate_producer_ids_response& x) {
  return f(x.error, x.producer_id_start, x.producer_id_len);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, new_partitions& x) {
  return f(x.topic, x.count, x.assignments);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_partitions_request& x) {
  return f(x.topics, x.validate_only);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_partitions_result& x) {
  return f(x.topic, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_partitions_response& x) {
  return f(x.results);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        elect_leaders_request& x) {
  return f(x.election_type, x.all_partitions, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, elected_leader& x) {
  return f(x.partition, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        elect_leaders_response& x) {
  return f(x.error, x.results);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reassignment_target& x) {
  return f(x.partition, x.cancel, x.replicas);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, alter_partition_reassignments_request& x) {
  return f(x.timeout_ms, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reassignment_result& x) {
  return f(x.partition, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, alter_partition_reassignments_response& x) {
  return f(x.error, x.message, x.results);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, list_partition_reassignments_request& x) {
  return f(x.timeout_ms, x.all_partitions, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ongoing_reassignment& x) {
  return f(x.partition, x.replicas, x.adding, x.removing);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, list_partition_reassignments_response& x) {
  return f(x.error, x.message, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_records_request& x) {
  return f(x.partition, x.offset, x.timeout_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_records_response& x) {
  return f(x.error, x.low_watermark);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        describe_log_dirs_request& x) {
  return f(x.all, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_dir_partition& x) {
  return f(x.partition, x.size, x.offset_lag);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_dir_description& x) {
  return f(x.path, x.error, x.partitions, x.total_bytes, x.usable_bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        describe_log_dirs_response& x) {
  return f(x.dirs);
}

} // namespace troupe
