#pragma once

// The messages of consumer groups: OffsetCommit (8), OffsetFetch (9),
// FindCoordinator (10), the classic group protocol (JoinGroup 11, Heartbeat
// 12, LeaveGroup 13, SyncGroup 14, DescribeGroups 15, ListGroups 16) and
// KIP-848's (ConsumerGroupHeartbeat 68, ConsumerGroupDescribe 69), field for
// field as Kafka's JSON schemas. The codec is in protocol.hpp; members added
// after the first release of a struct are appended to it, so positional
// initializers keep their meaning.
//
// Members added after a struct's first release are appended, and every member
// has a default initializer: a positional initializer naming only the first
// members keeps its meaning and compiles without -Wmissing-field-initializers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/data_messages.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire {

// -- OffsetCommit (8), v0-9 ---------------------------------------------------

struct offset_commit_partition {
  int32_t partition_index = 0;
  int64_t committed_offset = 0;
  std::optional<std::string> committed_metadata{};
  int32_t committed_leader_epoch = -1; // v6+
  int64_t commit_timestamp = -1;       // v1 only; -1: the broker's clock
};

struct offset_commit_topic {
  std::string name{};
  std::vector<offset_commit_partition> partitions{};
};

struct offset_commit_request {
  std::string group_id{};
  /// GenerationIdOrMemberEpoch: the member epoch for KIP-848 groups (v9+).
  /// v1+; v0 commits as generation -1 with no member (a simple commit).
  int32_t generation_id = -1;
  std::string member_id{};        // v1+
  int64_t retention_time_ms = -1; // v2-4; -1: the broker's default
  std::vector<offset_commit_topic> topics{};
  std::optional<std::string> group_instance_id{}; // v7+
};

struct offset_commit_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
};

struct offset_commit_topic_response {
  std::string name{};
  std::vector<offset_commit_partition_response> partitions{};
};

struct offset_commit_response {
  std::vector<offset_commit_topic_response> topics{};
  int32_t throttle_time_ms = 0; // v3+
};

// -- OffsetFetch (9), v0-9 (v0's layout is v1's) ----------------------------

struct offset_fetch_topic {
  std::string name{};
  std::vector<int32_t> partition_indexes{};
};

/// One group of a batched OffsetFetch (KIP-709), v8+.
struct offset_fetch_group {
  std::string group_id{};
  std::optional<std::string> member_id{};                  // v9+ (KIP-848)
  int32_t member_epoch = -1;                               // v9+
  std::optional<std::vector<offset_fetch_topic>> topics{}; // null: every topic
};

struct offset_fetch_request {
  std::string group_id{}; // v1-7
  /// v1-7; null (v2+) asks for every topic of the group.
  std::optional<std::vector<offset_fetch_topic>> topics =
    std::vector<offset_fetch_topic>{};
  bool require_stable = false;              // v7+
  std::vector<offset_fetch_group> groups{}; // v8+
};

struct offset_fetch_partition_response {
  int32_t partition_index = 0;
  int64_t committed_offset = -1; // -1: nothing committed
  std::optional<std::string> metadata{};
  error_code error = error_code::none;
  int32_t committed_leader_epoch = -1; // v5+
};

struct offset_fetch_topic_response {
  std::string name{};
  std::vector<offset_fetch_partition_response> partitions{};
};

struct offset_fetch_group_response {
  std::string group_id{};
  std::vector<offset_fetch_topic_response> topics{};
  error_code error = error_code::none;
};

struct offset_fetch_response {
  std::vector<offset_fetch_topic_response> topics{}; // v1-7
  int32_t throttle_time_ms = 0;                      // v3+
  error_code error = error_code::none;               // v2-7
  std::vector<offset_fetch_group_response> groups{}; // v8+
};

// -- FindCoordinator (10), v0-6 -----------------------------------------------

/// KeyType of FindCoordinator.
constexpr int8_t coordinator_key_group = 0;
constexpr int8_t coordinator_key_transaction = 1;

struct find_coordinator_request {
  std::string key{};                           // v0-3: the group id
  int8_t key_type = coordinator_key_group;     // v1+
  std::vector<std::string> coordinator_keys{}; // v4+ (KIP-699)
};

struct found_coordinator {
  std::string key{};
  int32_t node_id = -1;
  std::string host{};
  int32_t port = -1;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct find_coordinator_response {
  error_code error = error_code::none;           // v0-3
  int32_t node_id = -1;                          // v0-3
  std::string host{};                            // v0-3
  int32_t port = -1;                             // v0-3
  int32_t throttle_time_ms = 0;                  // v1+
  std::optional<std::string> error_message{};    // v1-3
  std::vector<found_coordinator> coordinators{}; // v4+
};

// -- JoinGroup (11), v0-9 -----------------------------------------------------

struct join_group_protocol {
  std::string name{};
  bytes metadata{};
};

struct join_group_request {
  std::string group_id{};
  int32_t session_timeout_ms = 0;
  /// v1+; decoding v0 sets it to the session timeout, as Kafka does.
  int32_t rebalance_timeout_ms = -1;
  std::string member_id{};
  std::string protocol_type{};
  std::vector<join_group_protocol> protocols{};
  std::optional<std::string> group_instance_id{}; // v5+ (KIP-345)
  std::optional<std::string> reason{};            // v8+ (KIP-800)
};

struct join_group_member {
  std::string member_id{};
  bytes metadata{};
  std::optional<std::string> group_instance_id{}; // v5+
};

struct join_group_response {
  error_code error = error_code::none;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_name{}; // null only in v7+
  std::string leader{};
  std::string member_id{};
  std::vector<join_group_member> members{};
  int32_t throttle_time_ms = 0;               // v2+
  std::optional<std::string> protocol_type{}; // v7+
  bool skip_assignment = false;               // v9+ (KIP-814)
};

// -- Heartbeat (12), v0-4 -----------------------------------------------------

struct heartbeat_request {
  std::string group_id{};
  int32_t generation_id = -1;
  std::string member_id{};
  std::optional<std::string> group_instance_id{}; // v3+
};

struct heartbeat_response {
  error_code error = error_code::none;
  int32_t throttle_time_ms = 0; // v1+
};

// -- LeaveGroup (13), v0-5 ----------------------------------------------------

/// One member of a batched LeaveGroup (KIP-345), v3+.
struct member_identity {
  std::string member_id{};
  std::optional<std::string> group_instance_id{};
  std::optional<std::string> reason{}; // v5+ (KIP-800)
};

struct leave_group_request {
  std::string group_id{};
  std::string member_id{};                // v0-2
  std::vector<member_identity> members{}; // v3+
};

struct leave_group_member_response {
  std::string member_id{};
  std::optional<std::string> group_instance_id{};
  error_code error = error_code::none;
};

struct leave_group_response {
  error_code error = error_code::none;
  int32_t throttle_time_ms = 0;                       // v1+
  std::vector<leave_group_member_response> members{}; // v3+
};

// -- SyncGroup (14), v0-5 -----------------------------------------------------

struct sync_group_assignment {
  std::string member_id{};
  bytes assignment{};
};

struct sync_group_request {
  std::string group_id{};
  int32_t generation_id = -1;
  std::string member_id{};
  std::vector<sync_group_assignment> assignments{};
  std::optional<std::string> group_instance_id{}; // v3+
  std::optional<std::string> protocol_type{};     // v5+ (KIP-559)
  std::optional<std::string> protocol_name{};     // v5+
};

struct sync_group_response {
  error_code error = error_code::none;
  bytes assignment{};
  int32_t throttle_time_ms = 0;               // v1+
  std::optional<std::string> protocol_type{}; // v5+
  std::optional<std::string> protocol_name{}; // v5+
};

// -- DescribeGroups (15), v0-6 ------------------------------------------------

struct describe_groups_request {
  std::vector<std::string> groups{};
  bool include_authorized_operations = false; // v3+
};

struct described_group_member {
  std::string member_id{};
  std::string client_id{};
  std::string client_host{};
  bytes member_metadata{};
  bytes member_assignment{};
  std::optional<std::string> group_instance_id{}; // v4+
};

struct described_group {
  error_code error = error_code::none;
  std::string group_id{};
  std::string group_state{};
  std::string protocol_type{};
  std::string protocol_data{};
  std::vector<described_group_member> members{};
  int32_t authorized_operations = authorized_operations_omitted; // v3+
  std::optional<std::string> error_message{}; // v6+ (KIP-1043)
};

struct describe_groups_response {
  std::vector<described_group> groups{};
  int32_t throttle_time_ms = 0; // v1+
};

// -- ListGroups (16), v0-5 ----------------------------------------------------

struct list_groups_request {
  std::vector<std::string> states_filter{}; // v4+ (KIP-518)
  std::vector<std::string> types_filter{};  // v5+ (KIP-848)
};

struct listed_group {
  std::string group_id{};
  std::string protocol_type{};
  std::string group_state{}; // v4+
  std::string group_type{};  // v5+
};

struct list_groups_response {
  error_code error = error_code::none;
  std::vector<listed_group> groups{};
  int32_t throttle_time_ms = 0; // v1+
};

// -- ConsumerGroupHeartbeat (68), v0-1 ----------------------------------------

struct consumer_group_topic_partitions {
  uuid topic_id{};
  std::vector<int32_t> partitions{};
};

struct consumer_group_heartbeat_request {
  std::string group_id{};
  std::string member_id{};
  /// 0 joins, -1 leaves, -2 leaves as a static member that will rejoin.
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id{};
  std::optional<std::string> rack_id{};
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_topic_names{};
  std::optional<std::string> subscribed_topic_regex{}; // v1+
  std::optional<std::string> server_assignor{};
  std::optional<std::vector<consumer_group_topic_partitions>>
    topic_partitions{};
};

struct consumer_group_heartbeat_assignment {
  std::vector<consumer_group_topic_partitions> topic_partitions{};
};

struct consumer_group_heartbeat_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::optional<std::string> member_id{};
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  /// Null when the assignment did not change since the last heartbeat.
  std::optional<consumer_group_heartbeat_assignment> assignment{};
};

// -- ConsumerGroupDescribe (69), v0-1 -----------------------------------------

struct consumer_group_describe_request {
  std::vector<std::string> group_ids{};
  bool include_authorized_operations = false;
};

struct described_topic_partitions {
  uuid topic_id{};
  std::string topic_name{};
  std::vector<int32_t> partitions{};
};

struct described_assignment {
  std::vector<described_topic_partitions> topic_partitions{};
};

/// MemberType of ConsumerGroupDescribe v1 (KIP-1099).
constexpr int8_t member_type_unknown = -1;
constexpr int8_t member_type_classic = 0;
constexpr int8_t member_type_consumer = 1;

struct described_consumer_group_member {
  std::string member_id{};
  std::optional<std::string> instance_id{};
  std::optional<std::string> rack_id{};
  int32_t member_epoch = 0;
  std::string client_id{};
  std::string client_host{};
  std::vector<std::string> subscribed_topic_names{};
  std::optional<std::string> subscribed_topic_regex{};
  described_assignment assignment{};
  described_assignment target_assignment{};
  int8_t member_type = member_type_unknown; // v1+
};

struct described_consumer_group {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::string group_id{};
  std::string group_state{};
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor_name{};
  std::vector<described_consumer_group_member> members{};
  int32_t authorized_operations = authorized_operations_omitted;
};

struct consumer_group_describe_response {
  int32_t throttle_time_ms = 0;
  std::vector<described_consumer_group> groups{};
};

} // namespace troupe::wire
