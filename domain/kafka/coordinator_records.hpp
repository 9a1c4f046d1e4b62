#pragma once

// The records of __consumer_offsets in Kafka's own schemas (apache/kafka
// group-coordinator/src/main/resources/common/message/*.json, Kafka 3.9),
// so that Kafka's tools and Kafka itself read troupe's offsets topic
// (docs/ARCHITECTURE.md §3, the record format).
//
// A record's key is an int16 version, then the key struct; the key's
// version *is* the record type (Kafka's CoordinatorRecordSerde):
//   0, 1  OffsetCommitKey               5  ConsumerGroupMemberMetadataKey
//   2     GroupMetadataKey              6  ConsumerGroupTargetAssignmentMetadataKey
//   3     ConsumerGroupMetadataKey      7  ConsumerGroupTargetAssignmentMemberKey
//   4     ConsumerGroupPartitionMetadataKey   8  ConsumerGroupCurrentMemberAssignmentKey
// A value is an int16 version, then the value struct of its record type in
// that version; a tombstone has no value. Keys are never flexible; the
// ConsumerGroup* values are flexible from v0 (tagged fields), OffsetCommit-
// Value and GroupMetadataValue from v4.
//
// The field lists follow the JSON schemas' version conditions and are walked
// by the codec's one decoder/encoder (field_io.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "domain/kafka/wire.hpp"

namespace troupe::wire {

// -- OffsetCommit (record types 0 and 1) ----------------------------------------

struct offset_commit_key {
  std::string group;
  std::string topic;
  int32_t partition = 0;
};

/// v0..v4. leaderEpoch from v3, expireTimestamp only in v1 (an OffsetCommit
/// v1..v4 request with a retention time), flexible from v4.
struct offset_commit_value {
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = 0;
  int64_t expire_timestamp = -1;
};

// -- GroupMetadata (record type 2) -------------------------------------------------

struct group_metadata_key {
  std::string group;
};

struct group_member_metadata {
  std::string member_id;
  std::optional<std::string> group_instance_id; // v3+
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout = -1; // v1+
  int32_t session_timeout = 0;
  bytes subscription;
  bytes assignment;
};

/// v0..v4: currentStateTimestamp from v2, groupInstanceId from v3, flexible
/// from v4. protocol and leader are null for a group without members.
struct group_metadata_value {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t current_state_timestamp = -1;
  std::vector<group_member_metadata> members;
};

// -- KIP-848 consumer groups (record types 3..8, values v0, flexible) -----------

struct consumer_group_metadata_key {
  std::string group_id;
};

struct consumer_group_metadata_value {
  int32_t epoch = 0;
};

struct consumer_group_partition_metadata_key {
  std::string group_id;
};

struct consumer_group_partition_racks {
  int32_t partition = 0;
  std::vector<std::string> racks;
};

struct consumer_group_topic_metadata {
  uuid topic_id;
  std::string topic_name;
  int32_t num_partitions = 0;
  std::vector<consumer_group_partition_racks> partition_metadata;
};

struct consumer_group_partition_metadata_value {
  std::vector<consumer_group_topic_metadata> topics;
};

struct consumer_group_member_metadata_key {
  std::string group_id;
  std::string member_id;
};

/// Its tagged field 0 (ClassicMemberMetadata, a member that joined with the
/// classic protocol) is skipped on read: troupe's consumer groups have only
/// members of the consumer protocol.
struct consumer_group_member_metadata_value {
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
};

struct consumer_group_target_assignment_metadata_key {
  std::string group_id;
};

struct consumer_group_target_assignment_metadata_value {
  int32_t assignment_epoch = 0;
};

struct consumer_group_target_assignment_member_key {
  std::string group_id;
  std::string member_id;
};

/// TopicPartitions of the assignment records (the same fields as
/// ConsumerGroupHeartbeat's consumer_group_topic_partitions).
struct record_topic_partitions {
  uuid topic_id;
  std::vector<int32_t> partitions;
};

struct consumer_group_target_assignment_member_value {
  std::vector<record_topic_partitions> topic_partitions;
};

struct consumer_group_current_member_assignment_key {
  std::string group_id;
  std::string member_id;
};

struct consumer_group_current_member_assignment_value {
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  int8_t state = 0; // Kafka's MemberState byte
  std::vector<record_topic_partitions> assigned_partitions;
  std::vector<record_topic_partitions> partitions_pending_revocation;
};

// -- one record ------------------------------------------------------------------

/// A key, by record type: alternative i is record type i + 1, except the
/// first, OffsetCommitKey, which is record type 0 or 1.
using coordinator_key = std::variant<
  offset_commit_key, group_metadata_key, consumer_group_metadata_key,
  consumer_group_partition_metadata_key, consumer_group_member_metadata_key,
  consumer_group_target_assignment_metadata_key,
  consumer_group_target_assignment_member_key,
  consumer_group_current_member_assignment_key>;

/// A value, in the same order as coordinator_key.
using coordinator_value = std::variant<
  offset_commit_value, group_metadata_value, consumer_group_metadata_value,
  consumer_group_partition_metadata_value, consumer_group_member_metadata_value,
  consumer_group_target_assignment_metadata_value,
  consumer_group_target_assignment_member_value,
  consumer_group_current_member_assignment_value>;

/// The key's version Kafka 3.9 writes: the record type (1 for an offset
/// commit, whose type 0 Kafka only reads).
int16_t record_type(const coordinator_key& key);

/// The value's version Kafka 3.9 writes (metadata version 3.9): OffsetCommit-
/// Value v3, or v1 when it carries an expire timestamp; GroupMetadataValue
/// v3; the consumer group values v0.
int16_t value_version(const coordinator_value& value);

bytes encode_coordinator_key(const coordinator_key& key);

/// In `version`, which must be one of the value's versions.
bytes encode_coordinator_value(const coordinator_value& value, int16_t version);

inline bytes encode_coordinator_value(const coordinator_value& value) {
  return encode_coordinator_value(value, value_version(value));
}

/// A key: its version, then the key struct. nullopt, with the reason in
/// `error`, for an unknown record type (Kafka's UnknownRecordTypeException:
/// a newer Kafka's record, skipped) or bytes that do not parse.
std::optional<coordinator_key> decode_coordinator_key(const bytes& in,
                                                      std::string& error);

/// A value of `key`'s record type in any version Kafka 3.9 reads (Offset-
/// CommitValue and GroupMetadataValue v0..v4, the consumer group values
/// v0); nullopt with the reason in `error` otherwise.
std::optional<coordinator_value>
decode_coordinator_value(const coordinator_key& key, const bytes& in,
                         std::string& error);

} // namespace troupe::wire
