#include "domain/error_code.hpp"

namespace troupe {

namespace {

struct error_info {
  error_code code;
  std::string_view name;
  std::string_view message;
  bool retriable;
};

// Names and messages as Kafka's org.apache.kafka.common.protocol.Errors.
constexpr error_info errors[] = {
  {error_code::unknown_server_error, "UNKNOWN_SERVER_ERROR",
   "The server experienced an unexpected error when processing the request.",
   false},
  {error_code::none, "NONE", "", false},
  {error_code::offset_out_of_range, "OFFSET_OUT_OF_RANGE",
   "The requested offset is not within the range of offsets maintained by "
   "the server.",
   false},
  {error_code::corrupt_message, "CORRUPT_MESSAGE",
   "This message has failed its CRC checksum, exceeds the valid size, has a "
   "null key for a compacted topic, or is otherwise corrupt.",
   true},
  {error_code::unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION",
   "This server does not host this topic-partition.", true},
  {error_code::invalid_fetch_size, "INVALID_FETCH_SIZE",
   "The requested fetch size is invalid.", false},
  {error_code::leader_not_available, "LEADER_NOT_AVAILABLE",
   "There is no leader for this topic-partition as we are in the middle of a "
   "leadership election.",
   true},
  {error_code::not_leader_or_follower, "NOT_LEADER_OR_FOLLOWER",
   "For requests intended only for the leader, this error indicates that the "
   "broker is not the current leader.",
   true},
  {error_code::request_timed_out, "REQUEST_TIMED_OUT", "The request timed out.",
   true},
  {error_code::broker_not_available, "BROKER_NOT_AVAILABLE",
   "The broker is not available.", false},
  {error_code::replica_not_available, "REPLICA_NOT_AVAILABLE",
   "The replica is not available for the requested topic-partition.", true},
  {error_code::message_too_large, "MESSAGE_TOO_LARGE",
   "The request included a message larger than the max message size the "
   "server will accept.",
   false},
  {error_code::stale_controller_epoch, "STALE_CONTROLLER_EPOCH",
   "The controller moved to another broker.", false},
  {error_code::offset_metadata_too_large, "OFFSET_METADATA_TOO_LARGE",
   "The metadata field of the offset request was too large.", false},
  {error_code::network_exception, "NETWORK_EXCEPTION",
   "The server disconnected before a response was received.", true},
  {error_code::coordinator_load_in_progress, "COORDINATOR_LOAD_IN_PROGRESS",
   "The coordinator is loading and hence can't process requests.", true},
  {error_code::coordinator_not_available, "COORDINATOR_NOT_AVAILABLE",
   "The coordinator is not available.", true},
  {error_code::not_coordinator, "NOT_COORDINATOR",
   "This is not the correct coordinator.", true},
  {error_code::invalid_topic_exception, "INVALID_TOPIC_EXCEPTION",
   "The request attempted to perform an operation on an invalid topic.", false},
  {error_code::record_list_too_large, "RECORD_LIST_TOO_LARGE",
   "The request included message batch larger than the configured segment "
   "size on the server.",
   false},
  {error_code::not_enough_replicas, "NOT_ENOUGH_REPLICAS",
   "Messages are rejected since there are fewer in-sync replicas than "
   "required.",
   true},
  {error_code::not_enough_replicas_after_append,
   "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
   "Messages are written to the log, but to fewer in-sync replicas than "
   "required.",
   true},
  {error_code::invalid_required_acks, "INVALID_REQUIRED_ACKS",
   "Produce request specified an invalid value for required acks.", false},
  {error_code::illegal_generation, "ILLEGAL_GENERATION",
   "Specified group generation id is not valid.", false},
  {error_code::inconsistent_group_protocol, "INCONSISTENT_GROUP_PROTOCOL",
   "The group member's supported protocols are incompatible with those of "
   "existing members or first group member tried to join with empty "
   "protocol type or empty protocol list.",
   false},
  {error_code::invalid_group_id, "INVALID_GROUP_ID",
   "The configured groupId is invalid.", false},
  {error_code::unknown_member_id, "UNKNOWN_MEMBER_ID",
   "The coordinator is not aware of this member.", false},
  {error_code::invalid_session_timeout, "INVALID_SESSION_TIMEOUT",
   "The session timeout is not within the range allowed by the broker (as "
   "configured by group.min.session.timeout.ms and "
   "group.max.session.timeout.ms).",
   false},
  {error_code::rebalance_in_progress, "REBALANCE_IN_PROGRESS",
   "The group is rebalancing, so a rejoin is needed.", false},
  {error_code::invalid_commit_offset_size, "INVALID_COMMIT_OFFSET_SIZE",
   "The committing offset data size is not valid.", false},
  {error_code::unsupported_version, "UNSUPPORTED_VERSION",
   "The version of API is not supported.", false},
  {error_code::topic_already_exists, "TOPIC_ALREADY_EXISTS",
   "Topic with this name already exists.", false},
  {error_code::invalid_partitions, "INVALID_PARTITIONS",
   "Number of partitions is below 1.", false},
  {error_code::invalid_replication_factor, "INVALID_REPLICATION_FACTOR",
   "Replication factor is below 1 or larger than the number of available "
   "brokers.",
   false},
  {error_code::not_controller, "NOT_CONTROLLER",
   "This is not the correct controller for this cluster.", true},
  {error_code::kafka_storage_error, "KAFKA_STORAGE_ERROR",
   "Disk error when trying to access log file on the disk.", true},
  {error_code::policy_violation, "POLICY_VIOLATION",
   "Request parameters do not satisfy the configured policy.", false},
  {error_code::invalid_request, "INVALID_REQUEST",
   "This most likely occurs because of a request being malformed by the "
   "client library or the message was sent to an incompatible broker.",
   false},
  {error_code::topic_authorization_failed, "TOPIC_AUTHORIZATION_FAILED",
   "Topic authorization failed.", false},
  {error_code::group_authorization_failed, "GROUP_AUTHORIZATION_FAILED",
   "Group authorization failed.", false},
  {error_code::cluster_authorization_failed, "CLUSTER_AUTHORIZATION_FAILED",
   "Cluster authorization failed.", false},
  {error_code::unsupported_sasl_mechanism, "UNSUPPORTED_SASL_MECHANISM",
   "The broker does not support the requested SASL mechanism.", false},
  {error_code::illegal_sasl_state, "ILLEGAL_SASL_STATE",
   "Request is not valid given the current SASL state.", false},
  {error_code::security_disabled, "SECURITY_DISABLED",
   "Security features are disabled.", false},
  {error_code::sasl_authentication_failed, "SASL_AUTHENTICATION_FAILED",
   "SASL Authentication failed.", false},
  {error_code::resource_not_found, "RESOURCE_NOT_FOUND",
   "A request illegally referred to a resource that does not exist.", false},
  {error_code::duplicate_resource, "DUPLICATE_RESOURCE",
   "A request illegally referred to the same resource twice.", false},
  {error_code::unacceptable_credential, "UNACCEPTABLE_CREDENTIAL",
   "Requested credential would not meet criteria for acceptability.", false},
  {error_code::reassignment_in_progress, "REASSIGNMENT_IN_PROGRESS",
   "A partition reassignment is in progress.", false},
  {error_code::preferred_leader_not_available,
   "PREFERRED_LEADER_NOT_AVAILABLE",
   "The preferred leader was not available.", true},
  {error_code::eligible_leaders_not_available,
   "ELIGIBLE_LEADERS_NOT_AVAILABLE",
   "Eligible topic partition leaders are not available.", true},
  {error_code::election_not_needed, "ELECTION_NOT_NEEDED",
   "Leader election not needed for topic partition.", true},
  {error_code::no_reassignment_in_progress, "NO_REASSIGNMENT_IN_PROGRESS",
   "No partition reassignment is in progress.", false},
  {error_code::group_subscribed_to_topic, "GROUP_SUBSCRIBED_TO_TOPIC",
   "Deleting offsets of a topic is forbidden while the consumer group is "
   "actively subscribed to it.",
   false},
  {error_code::non_empty_group, "NON_EMPTY_GROUP", "The group is not empty.",
   false},
  {error_code::group_id_not_found, "GROUP_ID_NOT_FOUND",
   "The group id does not exist.", false},
  {error_code::fenced_leader_epoch, "FENCED_LEADER_EPOCH",
   "The leader epoch in the request is older than the epoch on the broker.",
   true},
  {error_code::unknown_leader_epoch, "UNKNOWN_LEADER_EPOCH",
   "The leader epoch in the request is newer than the epoch on the broker.",
   true},
  {error_code::unsupported_compression_type, "UNSUPPORTED_COMPRESSION_TYPE",
   "The requesting client does not support the compression type of given "
   "partition.",
   false},
  {error_code::member_id_required, "MEMBER_ID_REQUIRED",
   "The group member needs to have a valid member id before actually "
   "entering a consumer group.",
   false},
  {error_code::group_max_size_reached, "GROUP_MAX_SIZE_REACHED",
   "The consumer group has reached its max size.", false},
  {error_code::fenced_instance_id, "FENCED_INSTANCE_ID",
   "The broker rejected this static consumer since another consumer with the "
   "same group.instance.id has registered with a different member.id.",
   false},
  {error_code::invalid_record, "INVALID_RECORD",
   "This record has failed the validation on broker and hence will be "
   "rejected.",
   false},
  {error_code::invalid_update_version, "INVALID_UPDATE_VERSION",
   "The given update version was invalid.", false},
  {error_code::ineligible_replica, "INELIGIBLE_REPLICA",
   "The new ISR contains at least one ineligible replica.", false},
  {error_code::invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT",
   "Replica assignment is invalid.", false},
  {error_code::invalid_config, "INVALID_CONFIG", "Configuration is invalid.",
   false},
  {error_code::out_of_order_sequence_number, "OUT_OF_ORDER_SEQUENCE_NUMBER",
   "The broker received an out of order sequence number.", false},
  {error_code::duplicate_sequence_number, "DUPLICATE_SEQUENCE_NUMBER",
   "The broker received a duplicate sequence number.", false},
  {error_code::invalid_producer_epoch, "INVALID_PRODUCER_EPOCH",
   "Producer attempted to produce with an old epoch.", false},
  {error_code::invalid_txn_state, "INVALID_TXN_STATE",
   "The producer attempted a transactional operation in an invalid state.",
   false},
  {error_code::invalid_producer_id_mapping, "INVALID_PRODUCER_ID_MAPPING",
   "The producer attempted to use a producer id which is not currently "
   "assigned to its transactional id.",
   false},
  {error_code::invalid_transaction_timeout, "INVALID_TRANSACTION_TIMEOUT",
   "The transaction timeout is larger than the maximum value allowed by the "
   "broker (as configured by transaction.max.timeout.ms).",
   false},
  {error_code::concurrent_transactions, "CONCURRENT_TRANSACTIONS",
   "The producer attempted to update a transaction while another concurrent "
   "operation on the same transaction was ongoing.",
   true},
  {error_code::transactional_id_authorization_failed,
   "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
   "Transactional Id authorization failed.", false},
  {error_code::unknown_producer_id, "UNKNOWN_PRODUCER_ID",
   "This exception is raised by the broker if it could not locate the "
   "producer metadata associated with the producerId in question. This could "
   "happen if, for instance, the producer's records were deleted because "
   "their retention time had elapsed. Once the last records of the producerId "
   "are removed, the producer's metadata is removed from the broker, and "
   "future appends by the producer will return this exception.",
   false},
  {error_code::fetch_session_id_not_found, "FETCH_SESSION_ID_NOT_FOUND",
   "The fetch session ID was not found.", true},
  {error_code::invalid_fetch_session_epoch, "INVALID_FETCH_SESSION_EPOCH",
   "The fetch session epoch is invalid.", true},
  {error_code::producer_fenced, "PRODUCER_FENCED",
   "There is a newer producer with the same transactionalId which fences the "
   "current one.",
   false},
  {error_code::unknown_topic_id, "UNKNOWN_TOPIC_ID",
   "This server does not host this topic ID.", true},
  {error_code::inconsistent_topic_id, "INCONSISTENT_TOPIC_ID",
   "The log's topic ID did not match the topic ID in the request.", true},
  {error_code::fetch_session_topic_id_error, "FETCH_SESSION_TOPIC_ID_ERROR",
   "The fetch session encountered inconsistent topic ID usage.", true},
  {error_code::fenced_member_epoch, "FENCED_MEMBER_EPOCH",
   "The member epoch is fenced by the group coordinator. The member must "
   "abandon all its partitions and rejoin.",
   false},
  {error_code::unreleased_instance_id, "UNRELEASED_INSTANCE_ID",
   "The instance ID is still used by another member in the consumer group. "
   "That member must leave first.",
   false},
  {error_code::unsupported_assignor, "UNSUPPORTED_ASSIGNOR",
   "The assignor or its version range is not supported by the consumer "
   "group.",
   false},
  {error_code::stale_member_epoch, "STALE_MEMBER_EPOCH",
   "The member epoch is stale. The member must retry after receiving its "
   "updated member epoch via the ConsumerGroupHeartbeat API.",
   false},
  {error_code::invalid_regular_expression, "INVALID_REGULAR_EXPRESSION",
   "The regular expression is not valid.", false},
  {error_code::mismatched_endpoint_type, "MISMATCHED_ENDPOINT_TYPE",
   "The request was sent to an endpoint of the wrong type.", false},
  {error_code::unsupported_endpoint_type, "UNSUPPORTED_ENDPOINT_TYPE",
   "This endpoint type is not supported yet.", false},
  {error_code::transaction_abortable, "TRANSACTION_ABORTABLE",
   "The server encountered an error with the transaction. The client can "
   "abort the transaction to continue using this transactional ID.",
   false},
};

const error_info* find(error_code code) noexcept {
  for (const auto& e : errors)
    if (e.code == code)
      return &e;
  return nullptr;
}

} // namespace

std::string_view error_name(error_code code) noexcept {
  auto e = find(code);
  return e ? e->name : "UNKNOWN_SERVER_ERROR";
}

std::string_view error_message(error_code code) noexcept {
  auto e = find(code);
  return e ? e->message : errors[0].message;
}

error_code error_from_int(int16_t value) noexcept {
  auto code = static_cast<error_code>(value);
  return find(code) ? code : error_code::unknown_server_error;
}

bool is_retriable(error_code code) noexcept {
  auto e = find(code);
  return e && e->retriable;
}

} // namespace troupe
