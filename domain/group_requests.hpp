#pragma once

// The group protocol's requests and responses, field for field as Kafka's
// JoinGroup/SyncGroup/Heartbeat/LeaveGroup/OffsetCommit/OffsetFetch/
// DescribeGroups/ListGroups messages. Plain structs: the domain's group
// state machines (domain/group.hpp, domain/consumer_group/) consume and
// answer them. messages/group_messages.hpp gives them their inspect()
// overloads, which let CAF carry them between actors and nodes.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/group_kinds.hpp"
#include "domain/topic_partition.hpp"

namespace troupe {

using bytes = std::vector<uint8_t>;

// -- JoinGroup --------------------------------------------------------------------

struct join_protocol {
  std::string name;
  bytes metadata;

  friend bool operator==(const join_protocol& x, const join_protocol& y) {
    return x.name == y.name && x.metadata == y.metadata;
  }
  friend bool operator!=(const join_protocol& x, const join_protocol& y) {
    return !(x == y);
  }
};

struct join_group_request {
  std::string group_id;
  int32_t session_timeout_ms = 45000;
  /// -1: not given (JoinGroup v0); the session timeout is used.
  int32_t rebalance_timeout_ms = -1;
  /// Empty for a member joining for the first time.
  std::string member_id;
  /// group.instance.id (KIP-345); empty for a dynamic member.
  std::string group_instance_id;
  std::string protocol_type;
  std::vector<join_protocol> protocols;
  std::string client_id;
  std::string client_host;
  /// JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED and an id.
  bool require_known_member_id = true;
};

struct join_group_member {
  std::string member_id;
  std::string group_instance_id;
  bytes metadata;
};

struct join_group_response {
  error_code error = error_code::none;
  int32_t generation_id = -1;
  std::string protocol_type;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  /// Only the leader's answer carries the members and their metadata.
  std::vector<join_group_member> members;
};

// -- SyncGroup --------------------------------------------------------------------

struct sync_group_assignment {
  std::string member_id;
  bytes assignment;
};

struct sync_group_request {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::string group_instance_id;
  /// Optional (SyncGroup v5); empty means not given.
  std::string protocol_type;
  std::string protocol_name;
  /// Only the leader sends assignments.
  std::vector<sync_group_assignment> assignments;
};

struct sync_group_response {
  error_code error = error_code::none;
  std::string protocol_type;
  std::string protocol_name;
  bytes assignment;
};

// -- Heartbeat --------------------------------------------------------------------

struct heartbeat_request {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::string group_instance_id;
};

struct heartbeat_response {
  error_code error = error_code::none;
};

// -- LeaveGroup -------------------------------------------------------------------

struct member_identity {
  std::string member_id;
  std::string group_instance_id;
};

struct leave_group_request {
  std::string group_id;
  std::vector<member_identity> members;
};

struct member_leave_result {
  std::string member_id;
  std::string group_instance_id;
  error_code error = error_code::none;
};

struct leave_group_response {
  error_code error = error_code::none;
  std::vector<member_leave_result> members;
};

// -- OffsetCommit / OffsetFetch ---------------------------------------------------------

struct offset_commit_partition {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::string metadata;
  /// OffsetCommit v1's commit timestamp; -1 (every other version): the
  /// coordinator's clock (commit_timestamp_of).
  int64_t commit_timestamp_ms = -1;
};

struct offset_commit_request {
  std::string group_id;
  /// -1 with an empty member id: a standalone commit (no group membership).
  int32_t generation_id = -1;
  std::string member_id;
  std::string group_instance_id;
  std::vector<offset_commit_partition> partitions;
};

struct partition_result {
  std::string topic;
  int32_t partition = 0;
  error_code error = error_code::none;
};

struct offset_commit_response {
  std::vector<partition_result> partitions;
};

struct offset_fetch_request {
  std::string group_id;
  /// Empty: every partition the group has committed.
  std::vector<topic_partition> partitions;
  /// OffsetFetch v9 (KIP-848): a consumer group member's id and epoch,
  /// checked by its group; empty and -1 otherwise.
  std::string member_id{};
  int32_t member_epoch = -1;
};

struct offset_fetch_partition {
  std::string topic;
  int32_t partition = 0;
  /// -1 when nothing is committed.
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  error_code error = error_code::none;
};

struct offset_fetch_response {
  error_code error = error_code::none;
  std::vector<offset_fetch_partition> partitions;
};

// -- DescribeGroups / ListGroups ------------------------------------------------------

struct describe_groups_request {
  std::vector<std::string> group_ids;
};

struct described_member {
  std::string member_id;
  std::string group_instance_id;
  std::string client_id;
  std::string client_host;
  bytes metadata;   // only while Stable, as Kafka
  bytes assignment; // only while Stable, as Kafka
};

struct described_group {
  error_code error = error_code::none;
  std::string group_id;
  /// A classic group's state; unknown in an error answer.
  any_group_state state = any_group_state::unknown;
  std::string protocol_type;
  /// The chosen protocol while Stable, else empty (Kafka's protocol_data).
  std::string protocol_data;
  std::vector<described_member> members;
  // troupe's additions for operators:
  int32_t generation_id = 0;
  std::string leader;
};

struct describe_groups_response {
  std::vector<described_group> groups;
};

struct list_groups_request {
  /// Empty: all states (ListGroups v4 filter, KIP-518). The Kafka listener
  /// parses the wire's names (parse_group_state, case-insensitive); a name
  /// of no state is unknown and matches no group.
  std::vector<any_group_state> states_filter;
  /// Empty: all types (ListGroups v5, KIP-848; parse_group_type, as
  /// Kafka's case-insensitive GroupType.parse).
  std::vector<group_type> types_filter;
};

struct listed_group {
  std::string group_id;
  std::string protocol_type;
  any_group_state state = any_group_state::unknown;
  /// ListGroups v5's group type (KIP-848); a group that does not say is
  /// classic.
  troupe::group_type group_type = troupe::group_type::classic;
};

struct list_groups_response {
  error_code error = error_code::none;
  std::vector<listed_group> groups;
};

// -- DeleteGroups, OffsetDelete: the coordinator's admin --------------------------

/// Listener -> broker -> group service: delete these groups (Kafka's
/// GroupCoordinator.handleDeleteGroups). Only Empty or Dead groups go:
/// NON_EMPTY_GROUP otherwise, GROUP_ID_NOT_FOUND for a group that does not
/// exist, NOT_COORDINATOR for one this broker does not coordinate. A
/// deleted group's offsets and metadata get tombstones in
/// __consumer_offsets.
struct delete_groups_request {
  std::vector<std::string> group_ids;
};

struct deleted_group {
  std::string group_id;
  error_code error = error_code::none;
};

/// One result per requested group, in request order.
struct delete_groups_response {
  std::vector<deleted_group> results;
};

/// Listener -> broker -> group service: delete a group's committed offsets
/// of these partitions (Kafka's handleDeleteOffsets). The group's error:
/// GROUP_ID_NOT_FOUND, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
/// NON_EMPTY_GROUP for a group of another protocol type; a partition's:
/// GROUP_SUBSCRIBED_TO_TOPIC while a member subscribes to its topic.
struct offset_delete_request {
  std::string group_id;
  std::vector<topic_partition> partitions;
};

struct offset_delete_response {
  error_code error = error_code::none;
  /// One per requested partition, in request order (empty when the group's
  /// error is set).
  std::vector<partition_result> partitions;
};

} // namespace troupe
