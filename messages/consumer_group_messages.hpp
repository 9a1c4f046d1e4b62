#pragma once

// KIP-848's consumer group protocol: ConsumerGroupHeartbeat (API 68) and
// ConsumerGroupDescribe (API 69), field for field as Kafka 4.0's schemas
// (clients/src/main/resources/common/message/ConsumerGroup*.json), plus the
// consumer group coordinator's own messages. Plain structs with inspect();
// no CAF include here.
//
// Topics are identified by topic id (a Uuid) on the wire. Inside troupe a
// topic partitions entry also carries the topic's name where troupe knows
// it; the Kafka listener ignores it when encoding a heartbeat answer.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "domain/consumer_group/assignment.hpp"
#include "domain/error_code.hpp"
#include "domain/nullable.hpp"
#include "domain/uuid.hpp"

namespace troupe {

/// Kafka's TopicPartitions of ConsumerGroupHeartbeat and
/// ConsumerGroupDescribe.
struct consumer_group_topic_partitions {
  uuid topic_id;
  /// ConsumerGroupDescribe's TopicName; troupe also fills it in heartbeat
  /// answers (the wire has no such field there).
  std::string topic_name;
  std::vector<int32_t> partitions;
};

/// Kafka's Assignment struct (heartbeat answer and describe).
struct consumer_group_assignment {
  std::vector<consumer_group_topic_partitions> topic_partitions;
};

// -- ConsumerGroupHeartbeat (API 68, v0-v1) -----------------------------------

struct consumer_group_heartbeat_request {
  std::string group_id;
  /// v0: empty on the first heartbeat, the coordinator generates it. v1+
  /// (KIP-1082): the client generates it and keeps it for its lifetime.
  std::string member_id;
  /// 0 to join, -1 to leave, -2 for a static member leaving temporarily.
  int32_t member_epoch = 0;
  /// null: not provided, or unchanged since the last heartbeat.
  nullable<std::string> instance_id;
  nullable<std::string> rack_id;
  /// -1: unchanged since the last heartbeat.
  int32_t rebalance_timeout_ms = -1;
  /// null: unchanged since the last heartbeat.
  nullable<std::vector<std::string>> subscribed_topic_names;
  /// v1+. troupe does not resolve regular expressions: a non-null value is
  /// answered INVALID_REQUEST, as Kafka before 4.0.
  nullable<std::string> subscribed_topic_regex;
  /// null: the group's current choice.
  nullable<std::string> server_assignor;
  /// null: unchanged since the last heartbeat; otherwise what the member
  /// owns now.
  nullable<std::vector<consumer_group_topic_partitions>> topic_partitions;

  // From the request header and connection (Kafka's RequestContext), not
  // the body:
  int16_t api_version = 1;
  std::string client_id;
  /// Kafka's InetAddress.toString(), e.g. "/127.0.0.1".
  std::string client_host;
};

struct consumer_group_heartbeat_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  nullable<std::string> error_message;
  nullable<std::string> member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  /// null: unchanged; otherwise the partitions the member may use now.
  nullable<consumer_group_assignment> assignment;
};

// -- ConsumerGroupDescribe (API 69, v0-v1) ------------------------------------

struct consumer_group_describe_request {
  std::vector<std::string> group_ids;
  bool include_authorized_operations = false;
};

struct consumer_group_described_member {
  std::string member_id;
  nullable<std::string> instance_id;
  nullable<std::string> rack_id;
  int32_t member_epoch = 0;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;
  nullable<std::string> subscribed_topic_regex;
  /// The current assignment (what the member may use).
  consumer_group_assignment assignment;
  consumer_group_assignment target_assignment;
  /// v1 (KIP-1099): -1 unknown, 0 classic, 1 consumer.
  int8_t member_type = 1;
  // troupe's additions for operators and the dashboard:
  int32_t previous_member_epoch = 0;
  /// "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS".
  std::string state;
  consumer_group_assignment partitions_pending_revocation;
};

struct consumer_group_described_group {
  error_code error = error_code::none;
  nullable<std::string> error_message;
  std::string group_id;
  /// "Empty", "Assigning", "Reconciling", "Stable" or "Dead".
  std::string group_state;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor_name;
  std::vector<consumer_group_described_member> members;
  int32_t authorized_operations = std::numeric_limits<int32_t>::min();
};

struct consumer_group_describe_response {
  int32_t throttle_time_ms = 0;
  std::vector<consumer_group_described_group> groups;
};

// -- consumer group coordinator internals --------------------------------------

/// Caller -> coordinator: every topic of the cluster with its id and
/// partition count. The coordinator resolves subscriptions against the
/// latest one; it is sent on spawn and whenever topics change.
struct consumer_group_topics {
  std::vector<topic_info> topics;
};

/// A member's session timer fired; `timer` tells stale arms apart.
struct consumer_group_session_timeout {
  std::string member_id;
  uint64_t timer = 0;
};

/// A member's rebalance (revocation) timer fired.
struct consumer_group_rebalance_timeout {
  std::string member_id;
  uint64_t timer = 0;
};

/// The group's assignment timer fired: group.consumer.assignment.interval.ms
/// has passed since the last target assignment (KIP-1263's batching).
struct consumer_group_assignment_timeout {
  uint64_t timer = 0;
};

// -- inspect --------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_topic_partitions& x) {
  return f(x.topic_id, x.topic_name, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_assignment& x) {
  return f(x.topic_partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_heartbeat_request& x) {
  return f(x.group_id, x.member_id, x.member_epoch, x.instance_id, x.rack_id,
           x.rebalance_timeout_ms, x.subscribed_topic_names,
           x.subscribed_topic_regex, x.server_assignor, x.topic_partitions,
           x.api_version, x.client_id, x.client_host);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_heartbeat_response& x) {
  return f(x.throttle_time_ms, x.error, x.error_message, x.member_id,
           x.member_epoch, x.heartbeat_interval_ms, x.assignment);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_describe_request& x) {
  return f(x.group_ids, x.include_authorized_operations);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_described_member& x) {
  return f(x.member_id, x.instance_id, x.rack_id, x.member_epoch, x.client_id,
           x.client_host, x.subscribed_topic_names, x.subscribed_topic_regex,
           x.assignment, x.target_assignment, x.member_type,
           x.previous_member_epoch, x.state, x.partitions_pending_revocation);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_described_group& x) {
  return f(x.error, x.error_message, x.group_id, x.group_state, x.group_epoch,
           x.assignment_epoch, x.assignor_name, x.members,
           x.authorized_operations);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_describe_response& x) {
  return f(x.throttle_time_ms, x.groups);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_topics& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_session_timeout& x) {
  return f(x.member_id, x.timer);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_rebalance_timeout& x) {
  return f(x.member_id, x.timer);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        consumer_group_assignment_timeout& x) {
  return f(x.timer);
}

} // namespace troupe
