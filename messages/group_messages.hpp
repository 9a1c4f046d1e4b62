#pragma once

// The group protocol's requests and responses as actor messages: the
// structs are the domain's (domain/group_requests.hpp); this header adds
// the inspect() overloads CAF serializes them with, in their namespace so
// that argument-dependent lookup finds them. No CAF include here.

#include "domain/group_requests.hpp"

namespace troupe {

// -- offsets expiry (KIP-211; docs/ARCHITECTURE.md §3) --------------------------------

/// The group service's expiry timer of one __consumer_offsets partition it
/// leads (offsets.retention.check.interval.ms); stale epochs are ignored.
struct offsets_expiry_tick {
  int32_t partition = -1;
  uint64_t epoch = 0;
};

/// Group service -> a coordinator of either kind: expire what is due now.
struct offsets_expiry_check {};

/// A coordinator's answer, once the tombstones are written (a failed write
/// expired nothing).
struct offsets_expiry_result {
  int32_t expired_offsets = 0;
  /// The group was Empty with no offsets left: it is Dead, its coordinator
  /// can go.
  bool group_deleted = false;
};

// -- inspect ------------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offsets_expiry_tick& x) {
  return f(x.partition, x.epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offsets_expiry_check&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offsets_expiry_result& x) {
  return f(x.expired_offsets, x.group_deleted);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_protocol& x) {
  return f(x.name, x.metadata);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_group_request& x) {
  return f(x.group_id, x.session_timeout_ms, x.rebalance_timeout_ms,
           x.member_id, x.group_instance_id, x.protocol_type, x.protocols,
           x.client_id, x.client_host, x.require_known_member_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_group_member& x) {
  return f(x.member_id, x.group_instance_id, x.metadata);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_group_response& x) {
  return f(x.error, x.generation_id, x.protocol_type, x.protocol_name, x.leader,
           x.member_id, x.members);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        sync_group_assignment& x) {
  return f(x.member_id, x.assignment);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sync_group_request& x) {
  return f(x.group_id, x.generation_id, x.member_id, x.group_instance_id,
           x.protocol_type, x.protocol_name, x.assignments);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sync_group_response& x) {
  return f(x.error, x.protocol_type, x.protocol_name, x.assignment);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, heartbeat_request& x) {
  return f(x.group_id, x.generation_id, x.member_id, x.group_instance_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, heartbeat_response& x) {
  return f(x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, member_identity& x) {
  return f(x.member_id, x.group_instance_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, leave_group_request& x) {
  return f(x.group_id, x.members);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, member_leave_result& x) {
  return f(x.member_id, x.group_instance_id, x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, leave_group_response& x) {
  return f(x.error, x.members);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_commit_partition& x) {
  return f(x.topic, x.partition, x.offset, x.leader_epoch, x.metadata,
           x.commit_timestamp_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_commit_request& x) {
  return f(x.group_id, x.generation_id, x.member_id, x.group_instance_id,
           x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_result& x) {
  return f(x.topic, x.partition, x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_commit_response& x) {
  return f(x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offset_fetch_request& x) {
  return f(x.group_id, x.partitions, x.member_id, x.member_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_fetch_partition& x) {
  return f(x.topic, x.partition, x.offset, x.leader_epoch, x.metadata, x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_fetch_response& x) {
  return f(x.error, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        describe_groups_request& x) {
  return f(x.group_ids);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, described_member& x) {
  return f(x.member_id, x.group_instance_id, x.client_id, x.client_host,
           x.metadata, x.assignment);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, described_group& x) {
  return f(x.error, x.group_id, x.state, x.protocol_type, x.protocol_data,
           x.members, x.generation_id, x.leader);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        describe_groups_response& x) {
  return f(x.groups);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_groups_request& x) {
  return f(x.states_filter, x.types_filter);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, listed_group& x) {
  return f(x.group_id, x.protocol_type, x.state, x.group_type);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, list_groups_response& x) {
  return f(x.error, x.groups);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_groups_request& x) {
  return f(x.group_ids);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deleted_group& x) {
  return f(x.group_id, x.error);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_groups_response& x) {
  return f(x.results);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_delete_request& x) {
  return f(x.group_id, x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        offset_delete_response& x) {
  return f(x.error, x.partitions);
}

} // namespace troupe
