#pragma once

// The topic admin messages beyond CreateTopics and DeleteTopics:
// DeleteRecords (21), v0-2; DescribeLogDirs (35), v0-4; CreatePartitions
// (37), v0-3; ElectLeaders (43), v0-2 -- field for field as Kafka's JSON
// schemas. The codec is in protocol.hpp. Every member has a default
// initializer; members added after a struct's first release are appended.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"

namespace troupe::wire {

// -- DeleteRecords (21), v0-2 (flexible v2+) --------------------------------------

struct delete_records_partition {
  int32_t partition_index = 0;
  int64_t offset = 0; // delete below this; -1: the high watermark
};

struct delete_records_topic {
  std::string name{};
  std::vector<delete_records_partition> partitions{};
};

struct delete_records_request {
  std::vector<delete_records_topic> topics{};
  int32_t timeout_ms = 30000;
};

struct delete_records_partition_result {
  int32_t partition_index = 0;
  int64_t low_watermark = -1;
  error_code error = error_code::none;
};

struct delete_records_topic_result {
  std::string name{};
  std::vector<delete_records_partition_result> partitions{};
};

struct delete_records_response {
  int32_t throttle_time_ms = 0;
  std::vector<delete_records_topic_result> topics{};
};

// -- DescribeLogDirs (35), v0-4 (flexible v2+) ------------------------------------

struct describable_log_dir_topic {
  std::string topic{};
  std::vector<int32_t> partitions{};
};

struct describe_log_dirs_request {
  /// null: every partition of every log directory.
  std::optional<std::vector<describable_log_dir_topic>> topics{};
};

struct describe_log_dirs_partition {
  int32_t partition_index = 0;
  int64_t partition_size = 0;
  int64_t offset_lag = 0;
  bool is_future_key = false;
};

struct describe_log_dirs_topic {
  std::string name{};
  std::vector<describe_log_dirs_partition> partitions{};
};

struct describe_log_dirs_result {
  error_code error = error_code::none;
  std::string log_dir{};
  std::vector<describe_log_dirs_topic> topics{};
  int64_t total_bytes = -1;  // v4+
  int64_t usable_bytes = -1; // v4+
};

struct describe_log_dirs_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none; // v3+
  std::vector<describe_log_dirs_result> results{};
};

// -- CreatePartitions (37), v0-3 (flexible v2+) -----------------------------------

struct create_partitions_assignment {
  std::vector<int32_t> broker_ids{};
};

struct create_partitions_topic {
  std::string name{};
  int32_t count = 0; // the new total
  /// null: the controller places the new partitions.
  std::optional<std::vector<create_partitions_assignment>> assignments{};
};

struct create_partitions_request {
  std::vector<create_partitions_topic> topics{};
  int32_t timeout_ms = 30000;
  bool validate_only = false;
};

struct create_partitions_topic_result {
  std::string name{};
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct create_partitions_response {
  int32_t throttle_time_ms = 0;
  std::vector<create_partitions_topic_result> results{};
};

// -- ElectLeaders (43), v0-2 (flexible v2+) ---------------------------------------

struct elect_leaders_topic_partitions {
  std::string topic{};
  std::vector<int32_t> partitions{};
};

struct elect_leaders_request {
  int8_t election_type = 0; // v1+: 0 PREFERRED, 1 UNCLEAN; v0 is PREFERRED
  /// null: every partition.
  std::optional<std::vector<elect_leaders_topic_partitions>> topic_partitions{};
  int32_t timeout_ms = 60000;
};

struct elect_leaders_partition_result {
  int32_t partition_id = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct elect_leaders_replica_result {
  std::string topic{};
  std::vector<elect_leaders_partition_result> partition_result{};
};

struct elect_leaders_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none; // v1+
  std::vector<elect_leaders_replica_result> replica_election_results{};
};

// -- AlterPartitionReassignments (45), v0 (flexible) ---------------------------

struct reassignable_partition {
  int32_t partition_index = 0;
  /// null: cancel the partition's ongoing reassignment.
  std::optional<std::vector<int32_t>> replicas{};
};

struct reassignable_topic {
  std::string name{};
  std::vector<reassignable_partition> partitions{};
};

struct alter_partition_reassignments_request {
  int32_t timeout_ms = 60000;
  std::vector<reassignable_topic> topics{};
};

struct reassignable_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct reassignable_topic_response {
  std::string name{};
  std::vector<reassignable_partition_response> partitions{};
};

struct alter_partition_reassignments_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<reassignable_topic_response> responses{};
};

// -- ListPartitionReassignments (46), v0 (flexible) -----------------------------

struct list_partition_reassignments_topics {
  std::string name{};
  std::vector<int32_t> partition_indexes{};
};

struct list_partition_reassignments_request {
  int32_t timeout_ms = 60000;
  /// null: every ongoing reassignment.
  std::optional<std::vector<list_partition_reassignments_topics>> topics{};
};

struct ongoing_partition_reassignment {
  int32_t partition_index = 0;
  std::vector<int32_t> replicas{};
  std::vector<int32_t> adding_replicas{};
  std::vector<int32_t> removing_replicas{};
};

struct ongoing_topic_reassignment {
  std::string name{};
  std::vector<ongoing_partition_reassignment> partitions{};
};

struct list_partition_reassignments_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<ongoing_topic_reassignment> topics{};
};

} // namespace troupe::wire
