#pragma once

// KIP-848's consumer group protocol as actor messages: the requests and
// responses are the domain's (domain/consumer_group/requests.hpp), plus the
// consumer group coordinator's own messages (its timers, the topics it is
// told about). Plain structs with inspect(), in troupe's namespace so that
// argument-dependent lookup finds them; no CAF include here.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/consumer_group/assignment.hpp"
#include "domain/consumer_group/requests.hpp"

namespace troupe {

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
