// Field lists of group_messages.hpp, in wire order as Kafka's JSON schemas
// (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/group_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

// -- OffsetCommit -------------------------------------------------------------

template <class Io>
void fields(Io& io, offset_commit_partition& x) {
  io.i32(x.partition_index);
  io.i64(x.committed_offset);
  if (io.version >= 6)
    io.i32(x.committed_leader_epoch);
  // CommitTimestamp: v1 only, not ignorable.
  if (io.version == 1)
    io.i64(x.commit_timestamp);
  else
    io.absent(x.commit_timestamp, int64_t{-1}, "CommitTimestamp");
  io.nullable_string(x.committed_metadata);
}

template <class Io>
void fields(Io& io, offset_commit_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_commit_request& x) {
  io.string(x.group_id);
  if (io.version >= 1) { // ignorable: v0 is generation -1, no member
    io.i32(x.generation_id);
    io.string(x.member_id);
  }
  if (io.version >= 7)
    io.nullable_string(x.group_instance_id);
  if (io.version >= 2 && io.version <= 4) // ignorable
    io.i64(x.retention_time_ms);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, offset_commit_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, offset_commit_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_commit_response& x) {
  if (io.version >= 3)
    io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

// -- OffsetFetch --------------------------------------------------------------

template <class Io>
void fields(Io& io, offset_fetch_topic& x) {
  io.string(x.name);
  io.array(x.partition_indexes);
}

template <class Io>
void fields(Io& io, offset_fetch_group& x) {
  io.string(x.group_id);
  if (io.version >= 9) {
    io.nullable_string(x.member_id);
    io.i32(x.member_epoch);
  }
  io.nullable_array(x.topics);
}

template <class Io>
void fields(Io& io, offset_fetch_request& x) {
  if (io.version <= 7) {
    io.string(x.group_id);
    io.nullable_array(x.topics, io.version >= 2);
  }
  if (io.version >= 8)
    io.array(x.groups);
  if (io.version >= 7)
    io.boolean(x.require_stable);
}

template <class Io>
void fields(Io& io, offset_fetch_partition_response& x) {
  io.i32(x.partition_index);
  io.i64(x.committed_offset);
  if (io.version >= 5)
    io.i32(x.committed_leader_epoch);
  io.nullable_string(x.metadata);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, offset_fetch_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_fetch_group_response& x) {
  io.string(x.group_id);
  io.array(x.topics);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, offset_fetch_response& x) {
  if (io.version >= 3)
    io.i32(x.throttle_time_ms);
  if (io.version <= 7)
    io.array(x.topics);
  if (io.version >= 2 && io.version <= 7)
    io.error(x.error);
  if (io.version >= 8)
    io.array(x.groups);
}

// -- FindCoordinator ----------------------------------------------------------

template <class Io>
void fields(Io& io, find_coordinator_request& x) {
  if (io.version <= 3)
    io.string(x.key);
  if (io.version >= 1)
    io.i8(x.key_type);
  if (io.version >= 4)
    io.array(x.coordinator_keys);
}

template <class Io>
void fields(Io& io, found_coordinator& x) {
  io.string(x.key);
  io.i32(x.node_id);
  io.string(x.host);
  io.i32(x.port);
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, find_coordinator_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  if (io.version <= 3) {
    io.error(x.error);
    if (io.version >= 1)
      io.nullable_string(x.error_message);
    io.i32(x.node_id);
    io.string(x.host);
    io.i32(x.port);
  }
  if (io.version >= 4)
    io.array(x.coordinators);
}

// -- JoinGroup ----------------------------------------------------------------

template <class Io>
void fields(Io& io, join_group_protocol& x) {
  io.string(x.name);
  io.bytes(x.metadata);
}

template <class Io>
void fields(Io& io, join_group_request& x) {
  io.string(x.group_id);
  io.i32(x.session_timeout_ms);
  if (io.version >= 1)
    io.i32(x.rebalance_timeout_ms);
  else if constexpr (Io::reading)
    x.rebalance_timeout_ms = x.session_timeout_ms; // Kafka's v0 behaviour
  io.string(x.member_id);
  if (io.version >= 5)
    io.nullable_string(x.group_instance_id);
  io.string(x.protocol_type);
  io.array(x.protocols);
  if (io.version >= 8)
    io.nullable_string(x.reason);
}

template <class Io>
void fields(Io& io, join_group_member& x) {
  io.string(x.member_id);
  if (io.version >= 5)
    io.nullable_string(x.group_instance_id);
  io.bytes(x.metadata);
}

template <class Io>
void fields(Io& io, join_group_response& x) {
  if (io.version >= 2)
    io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.i32(x.generation_id);
  if (io.version >= 7)
    io.nullable_string(x.protocol_type);
  io.nullable_string(x.protocol_name, io.version >= 7);
  io.string(x.leader);
  if (io.version >= 9)
    io.boolean(x.skip_assignment);
  io.string(x.member_id);
  io.array(x.members);
}

// -- Heartbeat ----------------------------------------------------------------

template <class Io>
void fields(Io& io, heartbeat_request& x) {
  io.string(x.group_id);
  io.i32(x.generation_id);
  io.string(x.member_id);
  if (io.version >= 3)
    io.nullable_string(x.group_instance_id);
}

template <class Io>
void fields(Io& io, heartbeat_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.error(x.error);
}

// -- LeaveGroup ---------------------------------------------------------------

template <class Io>
void fields(Io& io, member_identity& x) {
  io.string(x.member_id);
  io.nullable_string(x.group_instance_id);
  if (io.version >= 5)
    io.nullable_string(x.reason);
}

template <class Io>
void fields(Io& io, leave_group_request& x) {
  io.string(x.group_id);
  if (io.version <= 2)
    io.string(x.member_id);
  else
    io.array(x.members);
}

template <class Io>
void fields(Io& io, leave_group_member_response& x) {
  io.string(x.member_id);
  io.nullable_string(x.group_instance_id);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, leave_group_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.error(x.error);
  if (io.version >= 3)
    io.array(x.members);
}

// -- SyncGroup ----------------------------------------------------------------

template <class Io>
void fields(Io& io, sync_group_assignment& x) {
  io.string(x.member_id);
  io.bytes(x.assignment);
}

template <class Io>
void fields(Io& io, sync_group_request& x) {
  io.string(x.group_id);
  io.i32(x.generation_id);
  io.string(x.member_id);
  if (io.version >= 3)
    io.nullable_string(x.group_instance_id);
  if (io.version >= 5) {
    io.nullable_string(x.protocol_type);
    io.nullable_string(x.protocol_name);
  }
  io.array(x.assignments);
}

template <class Io>
void fields(Io& io, sync_group_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.error(x.error);
  if (io.version >= 5) {
    io.nullable_string(x.protocol_type);
    io.nullable_string(x.protocol_name);
  }
  io.bytes(x.assignment);
}

// -- DescribeGroups -----------------------------------------------------------

template <class Io>
void fields(Io& io, describe_groups_request& x) {
  io.array(x.groups);
  if (io.version >= 3)
    io.boolean(x.include_authorized_operations);
}

template <class Io>
void fields(Io& io, described_group_member& x) {
  io.string(x.member_id);
  if (io.version >= 4)
    io.nullable_string(x.group_instance_id);
  io.string(x.client_id);
  io.string(x.client_host);
  io.bytes(x.member_metadata);
  io.bytes(x.member_assignment);
}

template <class Io>
void fields(Io& io, described_group& x) {
  io.error(x.error);
  if (io.version >= 6)
    io.nullable_string(x.error_message);
  io.string(x.group_id);
  io.string(x.group_state);
  io.string(x.protocol_type);
  io.string(x.protocol_data);
  io.array(x.members);
  if (io.version >= 3)
    io.i32(x.authorized_operations);
}

template <class Io>
void fields(Io& io, describe_groups_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.array(x.groups);
}

// -- ListGroups ---------------------------------------------------------------

template <class Io>
void fields(Io& io, list_groups_request& x) {
  if (io.version >= 4)
    io.array(x.states_filter);
  if (io.version >= 5)
    io.array(x.types_filter);
}

template <class Io>
void fields(Io& io, listed_group& x) {
  io.string(x.group_id);
  io.string(x.protocol_type);
  if (io.version >= 4)
    io.string(x.group_state);
  if (io.version >= 5)
    io.string(x.group_type);
}

template <class Io>
void fields(Io& io, list_groups_response& x) {
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.array(x.groups);
}

// -- ConsumerGroupHeartbeat ---------------------------------------------------

template <class Io>
void fields(Io& io, consumer_group_topic_partitions& x) {
  io.uuid(x.topic_id);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, consumer_group_heartbeat_request& x) {
  io.string(x.group_id);
  io.string(x.member_id);
  io.i32(x.member_epoch);
  io.nullable_string(x.instance_id);
  io.nullable_string(x.rack_id);
  io.i32(x.rebalance_timeout_ms);
  io.nullable_array(x.subscribed_topic_names);
  if (io.version >= 1)
    io.nullable_string(x.subscribed_topic_regex);
  io.nullable_string(x.server_assignor);
  io.nullable_array(x.topic_partitions);
}

template <class Io>
void fields(Io& io, consumer_group_heartbeat_assignment& x) {
  io.array(x.topic_partitions);
}

template <class Io>
void fields(Io& io, consumer_group_heartbeat_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.nullable_string(x.member_id);
  io.i32(x.member_epoch);
  io.i32(x.heartbeat_interval_ms);
  io.nullable_struct(x.assignment);
}

// -- ConsumerGroupDescribe ----------------------------------------------------

template <class Io>
void fields(Io& io, consumer_group_describe_request& x) {
  io.array(x.group_ids);
  io.boolean(x.include_authorized_operations);
}

template <class Io>
void fields(Io& io, described_topic_partitions& x) {
  io.uuid(x.topic_id);
  io.string(x.topic_name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, described_assignment& x) {
  io.array(x.topic_partitions);
}

template <class Io>
void fields(Io& io, described_consumer_group_member& x) {
  io.string(x.member_id);
  io.nullable_string(x.instance_id);
  io.nullable_string(x.rack_id);
  io.i32(x.member_epoch);
  io.string(x.client_id);
  io.string(x.client_host);
  io.array(x.subscribed_topic_names);
  io.nullable_string(x.subscribed_topic_regex);
  io.nested(x.assignment);
  io.nested(x.target_assignment);
  if (io.version >= 1)
    io.i8(x.member_type);
}

template <class Io>
void fields(Io& io, described_consumer_group& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.string(x.group_id);
  io.string(x.group_state);
  io.i32(x.group_epoch);
  io.i32(x.assignment_epoch);
  io.string(x.assignor_name);
  io.array(x.members);
  io.i32(x.authorized_operations);
}

template <class Io>
void fields(Io& io, consumer_group_describe_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.groups);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(offset_commit, api_key::offset_commit)
TROUPE_KAFKA_DEFINE_API(offset_fetch, api_key::offset_fetch)
TROUPE_KAFKA_DEFINE_API(find_coordinator, api_key::find_coordinator)
TROUPE_KAFKA_DEFINE_API(join_group, api_key::join_group)
TROUPE_KAFKA_DEFINE_API(heartbeat, api_key::heartbeat)
TROUPE_KAFKA_DEFINE_API(leave_group, api_key::leave_group)
TROUPE_KAFKA_DEFINE_API(sync_group, api_key::sync_group)
TROUPE_KAFKA_DEFINE_API(describe_groups, api_key::describe_groups)
TROUPE_KAFKA_DEFINE_API(list_groups, api_key::list_groups)
TROUPE_KAFKA_DEFINE_API(consumer_group_heartbeat,
                        api_key::consumer_group_heartbeat)
TROUPE_KAFKA_DEFINE_API(consumer_group_describe,
                        api_key::consumer_group_describe)

} // namespace troupe::wire
