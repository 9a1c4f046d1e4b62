#pragma once

// KIP-848's consumer group protocol: ConsumerGroupHeartbeat (API 68) and
// ConsumerGroupDescribe (API 69), field for field as Kafka 4.0's schemas
// (clients/src/main/resources/common/message/ConsumerGroup*.json). Plain
// structs: the domain's consumer group (consumer_group.hpp) and member
// (membership.hpp) consume and answer them. messages/
// consumer_group_messages.hpp gives them their inspect() overloads.
//
// Topics are identified by topic id (a Uuid) on the wire. Inside troupe a
// topic partitions entry also carries the topic's name where troupe knows
// it; the Kafka listener ignores it when encoding a heartbeat answer.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "domain/consumer_group/member.hpp"
#include "domain/error_code.hpp"
#include "domain/group_kinds.hpp"
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
  /// Kafka's modern MemberState: STABLE, UNREVOKED_PARTITIONS,
  /// UNRELEASED_PARTITIONS.
  member_state state = member_state::stable;
  consumer_group_assignment partitions_pending_revocation;
};

struct consumer_group_described_group {
  error_code error = error_code::none;
  nullable<std::string> error_message;
  std::string group_id;
  /// Empty, Assigning, Reconciling, Stable or Dead; unknown in an error
  /// answer.
  any_group_state group_state = any_group_state::unknown;
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

} // namespace troupe
