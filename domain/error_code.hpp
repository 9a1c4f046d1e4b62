#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace troupe {

/// Kafka's error codes, by Kafka's numbers. The one error vocabulary from the
/// group state machine to the REST body and the wire.
enum class error_code : int16_t {
  unknown_server_error = -1,
  none = 0,
  offset_out_of_range = 1,
  corrupt_message = 2,
  unknown_topic_or_partition = 3,
  invalid_fetch_size = 4,
  leader_not_available = 5,
  not_leader_or_follower = 6,
  request_timed_out = 7,
  broker_not_available = 8,
  replica_not_available = 9,
  message_too_large = 10,
  stale_controller_epoch = 11,
  offset_metadata_too_large = 12,
  network_exception = 13,
  coordinator_load_in_progress = 14,
  coordinator_not_available = 15,
  not_coordinator = 16,
  invalid_topic_exception = 17,
  record_list_too_large = 18,
  not_enough_replicas = 19,
  not_enough_replicas_after_append = 20,
  invalid_required_acks = 21,
  illegal_generation = 22,
  inconsistent_group_protocol = 23,
  invalid_group_id = 24,
  unknown_member_id = 25,
  invalid_session_timeout = 26,
  rebalance_in_progress = 27,
  invalid_commit_offset_size = 28,
  topic_authorization_failed = 29,
  group_authorization_failed = 30,
  cluster_authorization_failed = 31,
  unsupported_sasl_mechanism = 33,
  illegal_sasl_state = 34,
  unsupported_version = 35,
  topic_already_exists = 36,
  invalid_partitions = 37,
  invalid_replication_factor = 38,
  invalid_replica_assignment = 39,
  invalid_config = 40,
  not_controller = 41,
  invalid_request = 42,
  policy_violation = 44,
  out_of_order_sequence_number = 45,
  duplicate_sequence_number = 46,
  invalid_producer_epoch = 47,
  invalid_txn_state = 48,
  invalid_producer_id_mapping = 49,
  invalid_transaction_timeout = 50,
  concurrent_transactions = 51,
  transactional_id_authorization_failed = 53,
  security_disabled = 54,
  kafka_storage_error = 56,
  sasl_authentication_failed = 58,
  unknown_producer_id = 59,
  reassignment_in_progress = 60,
  non_empty_group = 68,
  group_id_not_found = 69,
  fetch_session_id_not_found = 70,
  invalid_fetch_session_epoch = 71,
  fenced_leader_epoch = 74,
  unknown_leader_epoch = 75,
  unsupported_compression_type = 76,
  member_id_required = 79,
  preferred_leader_not_available = 80,
  group_max_size_reached = 81,
  fenced_instance_id = 82,
  eligible_leaders_not_available = 83,
  election_not_needed = 84,
  no_reassignment_in_progress = 85,
  group_subscribed_to_topic = 86,
  invalid_record = 87,
  producer_fenced = 90,
  resource_not_found = 91,
  duplicate_resource = 92,
  unacceptable_credential = 93,
  invalid_update_version = 95,
  unknown_topic_id = 100,
  inconsistent_topic_id = 103,
  fetch_session_topic_id_error = 106,
  ineligible_replica = 107,
  fenced_member_epoch = 110,
  unreleased_instance_id = 111,
  unsupported_assignor = 112,
  stale_member_epoch = 113,
  mismatched_endpoint_type = 114,
  unsupported_endpoint_type = 115,
  transaction_abortable = 120,
  invalid_regular_expression = 128,
};

/// Kafka's upper-case name, e.g. "ILLEGAL_GENERATION".
std::string_view error_name(error_code code) noexcept;

/// Kafka's one-line description of the error.
std::string_view error_message(error_code code) noexcept;

/// Maps a wire value back; unknown numbers give unknown_server_error.
error_code error_from_int(int16_t value) noexcept;

constexpr int16_t to_int(error_code code) noexcept {
  return static_cast<int16_t>(code);
}

/// For printing (CAF's to_string of messages picks this up).
inline std::string to_string(error_code code) {
  return std::string{error_name(code)};
}

/// True for errors after which a Kafka client retries the same request.
bool is_retriable(error_code code) noexcept;

} // namespace troupe
