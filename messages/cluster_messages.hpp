#pragma once

// Messages about the cluster (coordinator lookup, topic metadata) and the
// actors' own bookkeeping (timers, member sessions, client events). Plain
// structs with inspect(); actor handles travel as caf::actor so that they
// serialize across nodes.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "domain/consumer_phase.hpp"
#include "domain/error_code.hpp"
#include "domain/group_kinds.hpp"
#include "domain/topic_config.hpp"
#include "domain/topic_partition.hpp"
#include "domain/uuid.hpp"
#include "messages/group_messages.hpp"

namespace troupe {

// -- FindCoordinator --------------------------------------------------------------

struct find_coordinator_request {
  /// The group id (key type 0: GROUP).
  std::string key;
};

/// One of a broker's advertised listeners (`advertised.listeners`): the
/// Kafka handlers answer the endpoint of the listener the client came in on,
/// as Kafka does (docs/ARCHITECTURE.md §9).
struct listener_address {
  std::string name;
  std::string host;
  int32_t port = -1;
};

/// The endpoint a client that came in on listener `name` is told for a
/// broker: that listener's among `listeners`, else `host` and `port`.
inline listener_address
endpoint_for(const std::vector<listener_address>& listeners,
             const std::string& host, int32_t port, const std::string& name) {
  for (auto& l : listeners)
    if (l.name == name)
      return l;
  return {name, host, port};
}

struct find_coordinator_response {
  error_code error = error_code::none;
  int32_t node_id = -1;
  std::string host;
  int32_t port = -1;
  /// The coordinating broker's actor (a troupe::broker_actor).
  caf::actor broker;
  /// Its endpoint per listener (empty: host and port only).
  std::vector<listener_address> listeners{};
};

// -- brokers and topics -------------------------------------------------------------

struct broker_info {
  int32_t node_id = -1;
  std::string host;
  int32_t port = -1;
  caf::actor handle;
  /// Its endpoint per listener (empty: host and port only).
  std::vector<listener_address> listeners{};
  /// Registered but fenced by the active controller (listed only when a
  /// metadata_request asks for fenced brokers).
  bool fenced = false;
};

/// Sent by the node to every broker once all brokers exist.
struct cluster_peers {
  std::vector<broker_info> brokers;
};

struct metadata_request {
  /// Empty: every topic.
  std::vector<std::string> topics;
  bool allow_auto_topic_creation = false;
  /// DescribeCluster v2's IncludeFencedBrokers (KIP-1073): the brokers
  /// also lists registered brokers the controller fenced, marked so.
  bool include_fenced = false;
};

struct partition_metadata {
  int32_t partition = 0;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;
};

struct topic_metadata {
  error_code error = error_code::none;
  std::string name;
  int32_t partitions = 0;
  std::vector<partition_metadata> partition_states;
  /// Kafka's topic id; zero for an unknown topic.
  uuid topic_id;
  /// The topic's overrides (per-topic configs), only those set: what
  /// DescribeConfigs reports as TOPIC_CONFIG.
  topic_configs configs{};
};

struct metadata_response {
  std::vector<broker_info> brokers;
  std::vector<topic_metadata> topics;
  /// The broker Kafka clients are told is the controller (-1: none).
  int32_t controller_id = -1;
  /// Kafka's cluster id (a Uuid's string); empty when the controller has
  /// none.
  std::string cluster_id{};
};

struct new_topic {
  std::string name;
  /// -1: num.partitions.
  int32_t num_partitions = -1;
  /// -1: default.replication.factor.
  int16_t replication_factor = -1;
  /// CreateTopics' configs: the topic's overrides, validated by the
  /// controller (INVALID_CONFIG).
  topic_configs configs{};
  /// CreateTopics' validate_only: checked and answered, not created.
  bool validate_only = false;
};

struct create_topics_request {
  std::vector<new_topic> topics;
};

struct topic_result {
  std::string name;
  error_code error = error_code::none;
  std::string message;
};

struct create_topics_response {
  std::vector<topic_result> topics;
};

/// A partition leader asks the controller to store a new ISR (Kafka's
/// AlterIsr).
struct alter_isr_request {
  topic_partition partition;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  int32_t partition_epoch = 0;
  std::vector<int32_t> isr;
};

struct alter_isr_response {
  error_code error = error_code::none;
  /// The partition as the controller now holds it.
  partition_metadata state;
};

/// An operator stops or restarts a broker (the admin message; an endpoint
/// once the gateway exists).
struct broker_status_change {
  int32_t broker_id = -1;
  bool alive = false;
};

struct partition_update {
  std::string topic;
  partition_metadata state;
};

/// Broker -> each of its replicas of a topic: the topic's settings that
/// the replica enforces (per-topic configs, domain/topic_config.hpp), at
/// its start and after every change.
struct replica_config {
  /// min.insync.replicas: acks=all needs this many in the ISR.
  int32_t min_insync_replicas = 1;
  /// max.message.bytes: the largest batch a produce may carry.
  uint64_t max_message_bytes = 1048588;
  /// leader.replication.throttled.replicas names this replica (this
  /// partition on this broker): while it leads, what it serves to
  /// followers out of the ISR counts against the broker's leader quota.
  bool leader_throttled = false;
  /// follower.replication.throttled.replicas names it: while it follows
  /// out of the ISR, its fetches wait for the broker's follower quota.
  bool follower_throttled = false;
};

/// The leaderships the change moved, for the brokers to act on.
struct leadership_update {
  error_code error = error_code::none;
  std::vector<partition_update> partitions;
};

// -- group coordinator internals ------------------------------------------------------

/// The join timer (initial rebalance delay or rebalance timeout) fired.
struct join_timeout {
  uint64_t epoch = 0;
};

/// The pending-sync timer fired.
struct sync_timeout {
  uint64_t epoch = 0;
};

/// The coordinator's session timers are due (its timer wheel's earliest
/// bucket). `epoch` names the wait; a superseded one finds little to do.
struct session_tick {
  uint64_t epoch = 0;
};

/// Ends a group coordinator: every parked request is answered with `reason`.
struct group_shutdown {
  error_code reason = error_code::not_coordinator;
};

/// A state transition of a group, for timelines, metrics and tests. Either
/// kind of group reports through it, so the states are any_group_state
/// (never unknown); listeners write their names (state_name()) at the edge.
struct group_event {
  std::string group_id;
  any_group_state from = any_group_state::unknown;
  any_group_state to = any_group_state::unknown;
  int32_t generation = 0;
  std::string reason;
  int64_t at_ms = 0;
  size_t members = 0;
  std::string leader;
  std::string protocol;
};

// -- partition logs ---------------------------------------------------------------

/// Append a producer's batch; the log assigns its offsets.
struct log_append_request {
  topic_partition partition;
  int32_t leader_epoch = 0;
  bytes batch;
  /// A follower's append: `batch` holds whole batches from the leader, kept
  /// with their offsets and leader epochs; the first must start at the log
  /// end offset.
  bool as_follower = false;
  /// The replica's high watermark (-1: unknown): the log cleaner cleans
  /// only below it, as Kafka's never passes the last stable offset.
  int64_t high_watermark = -1;
};

struct log_append_response {
  error_code error = error_code::none;
  int64_t base_offset = -1;
  int64_t log_end_offset = -1;
  /// Why, for INVALID_RECORD (Produce's ErrorMessage).
  std::string error_message{};
};

/// Whole batches from the one holding `offset`, at least one.
struct log_read_request {
  topic_partition partition;
  int64_t offset = 0;
  int32_t max_bytes = 1048576;
  /// Batches starting at or after this offset are left out (a consumer's
  /// fetch stops at the high watermark); -1: no limit.
  int64_t max_offset = -1;
};

struct log_read_response {
  error_code error = error_code::none;
  bytes records;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
};

/// Drops everything at and after `offset` (follower truncation).
struct log_truncate_request {
  topic_partition partition;
  int64_t offset = 0;
};

/// Retention and flush for every log (log.retention.check.interval.ms).
struct log_maintenance_tick {
  // nop
};

// -- the client-side consumer ---------------------------------------------------------

/// What a consumer reports to its listener.
enum class consumer_event_kind : uint8_t {
  joined,   // JoinGroup answered: generation, leader
  assigned, // SyncGroup answered: partitions added
  revoked,  // partitions given up for a rebalance
  lost,     // partitions lost without a clean revoke (fenced / expired)
  left,     // LeaveGroup sent, consumer closed
  failed,   // fatal error: the consumer stopped
};

struct consumer_event {
  std::string consumer;
  consumer_event_kind kind = consumer_event_kind::joined;
  std::string member_id;
  int32_t generation = -1;
  bool leader = false;
  std::string protocol;
  std::vector<topic_partition> partitions;
  error_code error = error_code::none;
  int64_t at_ms = 0;
};

struct consumer_status_request {
  // nop
};

struct consumer_status {
  std::string consumer;
  std::string member_id;
  int32_t generation = -1;
  consumer_phase state = consumer_phase::unjoined;
  bool leader = false;
  std::string protocol;
  std::vector<topic_partition> assignment;
  error_code last_error = error_code::none;
};

/// Commit offsets for the consumer's current generation.
struct consumer_commit {
  std::vector<offset_commit_partition> offsets;
};

/// LeaveGroup and stop.
struct consumer_close {
  // nop
};

/// Stop at once without a word to the coordinator, like a killed process.
struct consumer_crash {
  // nop
};

/// Consumer-internal ticks.
struct heartbeat_tick {
  uint64_t epoch = 0;
};
struct rejoin_tick {
  uint64_t epoch = 0;
};

/// Where a consumer reads next in one partition (Kafka's SubscriptionState
/// position): an offset >= 0, or one of the markers below.
struct partition_position {
  topic_partition partition;
  int64_t offset = -3;
};

/// seekToEnd: resolved to the high watermark (ListOffsets -1) when read.
constexpr int64_t position_latest = -1;
/// seekToBeginning: resolved to the log start (ListOffsets -2) when read.
constexpr int64_t position_earliest = -2;
/// Not known yet: the committed offset, else auto.offset.reset.
constexpr int64_t position_unknown = -3;

/// Kafka's KafkaConsumer.assign() for a consumer spawned with a manual
/// assignment: replaces the partitions it owns (no group membership).
struct consumer_assign {
  std::vector<topic_partition> partitions;
};

/// Kafka's seek / seekToBeginning / seekToEnd for owned partitions.
struct consumer_seek {
  std::vector<partition_position> positions;
};

struct consumer_positions_request {
  // nop
};

/// The answer to assign, seek and positions: one position per owned
/// partition. `not_assigned` lists sought partitions the consumer does not
/// own (Kafka's client throws IllegalStateException for them);
/// `error` is INVALID_REQUEST for assign on a group member (Kafka: assign
/// and subscribe are mutually exclusive).
struct consumer_positions {
  error_code error = error_code::none;
  std::vector<partition_position> positions;
  std::vector<topic_partition> not_assigned;
};

// -- inspect ------------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        find_coordinator_request& x) {
  return f(x.key);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, listener_address& x) {
  return f(x.name, x.host, x.port);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        find_coordinator_response& x) {
  return f(x.error, x.node_id, x.host, x.port, x.broker, x.listeners);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_info& x) {
  return f(x.node_id, x.host, x.port, x.handle, x.listeners, x.fenced);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_peers& x) {
  return f(x.brokers);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metadata_request& x) {
  return f(x.topics, x.allow_auto_topic_creation, x.include_fenced);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_metadata& x) {
  return f(x.partition, x.leader, x.leader_epoch, x.replicas, x.isr,
           x.partition_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_config& x) {
  return f(x.min_insync_replicas, x.max_message_bytes, x.leader_throttled,
           x.follower_throttled);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_metadata& x) {
  return f(x.error, x.name, x.partitions, x.partition_states, x.topic_id,
           x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metadata_response& x) {
  return f(x.brokers, x.topics, x.controller_id, x.cluster_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, new_topic& x) {
  return f(x.name, x.num_partitions, x.replication_factor, x.configs,
           x.validate_only);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_topics_request& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_result& x) {
  return f(x.name, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_topics_response& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_append_request& x) {
  return f(x.partition, x.leader_epoch, x.batch, x.as_follower,
           x.high_watermark);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_append_response& x) {
  return f(x.error, x.base_offset, x.log_end_offset, x.error_message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_read_request& x) {
  return f(x.partition, x.offset, x.max_bytes, x.max_offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_read_response& x) {
  return f(x.error, x.records, x.log_start_offset, x.log_end_offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_truncate_request& x) {
  return f(x.partition, x.offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_maintenance_tick&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alter_isr_request& x) {
  return f(x.partition, x.leader, x.leader_epoch, x.partition_epoch, x.isr);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alter_isr_response& x) {
  return f(x.error, x.state);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_status_change& x) {
  return f(x.broker_id, x.alive);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_update& x) {
  return f(x.topic, x.state);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, leadership_update& x) {
  return f(x.error, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_timeout& x) {
  return f(x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sync_timeout& x) {
  return f(x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_tick& x) {
  return f(x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_shutdown& x) {
  return f(x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_event& x) {
  return f(x.group_id, x.from, x.to, x.generation, x.reason, x.at_ms, x.members,
           x.leader, x.protocol);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_event& x) {
  return f(x.consumer, x.kind, x.member_id, x.generation, x.leader, x.protocol,
           x.partitions, x.error, x.at_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_status_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_status& x) {
  return f(x.consumer, x.member_id, x.generation, x.state, x.leader, x.protocol,
           x.assignment, x.last_error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_commit& x) {
  return f(x.offsets);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_close&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_crash&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, heartbeat_tick& x) {
  return f(x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, rejoin_tick& x) {
  return f(x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_position& x) {
  return f(x.partition, x.offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_assign& x) {
  return f(x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_seek& x) {
  return f(x.positions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_positions_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, consumer_positions& x) {
  return f(x.error, x.positions, x.not_assigned);
}

} // namespace troupe
