#pragma once

// The messages of the data path: Produce (0), Fetch (1), ListOffsets (2),
// Metadata (3), InitProducerId (22) and OffsetForLeaderEpoch (23), field for
// field as Kafka's JSON schemas, with the versions each field exists in. The
// codec is in protocol.hpp; members added after the first release of a struct
// are appended to it, so positional initializers keep their meaning.
//
// Members added after a struct's first release are appended, and every member
// has a default initializer: a positional initializer naming only the first
// members keeps its meaning and compiles without -Wmissing-field-initializers.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire {

/// Kafka's "not requested" value of the authorized-operations bit fields
/// (MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED).
constexpr int32_t authorized_operations_omitted =
  std::numeric_limits<int32_t>::min();

/// A broker as the KIP-951 tagged fields and Metadata name it.
struct node_endpoint {
  int32_t node_id = 0;
  std::string host{};
  int32_t port = 0;
  std::optional<std::string> rack{};
};

/// The leader a partition moved to (KIP-951), in Produce and Fetch answers.
struct leader_id_and_epoch {
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
};

// -- Metadata (3), v0-13 ------------------------------------------------------

struct metadata_request_topic {
  uuid topic_id{};                   // v10+
  std::optional<std::string> name{}; // null only in v10+ (asking by id)
};

struct metadata_request {
  /// v1+: null is every topic, empty is none; v0: empty is every topic and
  /// null is malformed (MetadataRequest.json).
  std::optional<std::vector<metadata_request_topic>> topics{};
  bool allow_auto_topic_creation = true;              // v4+
  bool include_cluster_authorized_operations = false; // v8-10
  bool include_topic_authorized_operations = false;   // v8+
};

struct metadata_broker {
  int32_t node_id = 0;
  std::string host{};
  int32_t port = 0;
  std::optional<std::string> rack{}; // v1+
};

struct metadata_partition {
  error_code error = error_code::none;
  int32_t partition_index = 0;
  int32_t leader_id = -1;
  std::vector<int32_t> replica_nodes{};
  std::vector<int32_t> isr_nodes{};
  int32_t leader_epoch = -1;               // v7+
  std::vector<int32_t> offline_replicas{}; // v5+
};

struct metadata_topic {
  error_code error = error_code::none;
  /// Null only in v12+, for a topic id the cluster does not know.
  std::optional<std::string> name{};
  bool is_internal = false; // v1+
  std::vector<metadata_partition> partitions{};
  uuid topic_id{};                                                     // v10+
  int32_t topic_authorized_operations = authorized_operations_omitted; // v8+
};

struct metadata_response {
  std::vector<metadata_broker> brokers{};
  int32_t controller_id = -1; // v1+
  std::vector<metadata_topic> topics{};
  int32_t throttle_time_ms = 0;            // v3+
  std::optional<std::string> cluster_id{}; // v2+
  int32_t cluster_authorized_operations =  // v8-10
    authorized_operations_omitted;
  error_code error = error_code::none; // v13+ (KIP-1102)
};

// -- Produce (0), v0-12 -------------------------------------------------------

/// Records are a RecordBatch run (v3+) or a magic 0/1 message set (v0-2),
/// kept as raw bytes (see domain/log); a null records field reads as empty.
struct produce_partition {
  int32_t index = 0;
  bytes records{};
};

struct produce_topic {
  std::string name{};
  std::vector<produce_partition> partitions{};
};

struct produce_request {
  std::optional<std::string> transactional_id{}; // v3+
  int16_t acks = -1;
  int32_t timeout_ms = 0;
  std::vector<produce_topic> topics{};
};

struct batch_index_and_error_message {
  int32_t batch_index = 0;
  std::optional<std::string> batch_index_error_message{};
};

struct produce_partition_response {
  int32_t index = 0;
  error_code error = error_code::none;
  int64_t base_offset = -1;
  int64_t log_append_time_ms = -1; // v2+; -1 for CreateTime topics
  int64_t log_start_offset = -1;   // v5+
  std::vector<batch_index_and_error_message> record_errors{}; // v8+
  std::optional<std::string> error_message{};                 // v8+
  std::optional<leader_id_and_epoch> current_leader{};        // v10+, tag 0
};

struct produce_topic_response {
  std::string name{};
  std::vector<produce_partition_response> partitions{};
};

struct produce_response {
  std::vector<produce_topic_response> responses{};
  int32_t throttle_time_ms = 0;                               // v1+
  std::optional<std::vector<node_endpoint>> node_endpoints{}; // v10+, tag 0
};

// -- Fetch (1), v0-17 ---------------------------------------------------------

struct fetch_partition {
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t partition_max_bytes = 0;
  int32_t current_leader_epoch = -1;          // v9+
  int32_t last_fetched_epoch = -1;            // v12+
  int64_t log_start_offset = -1;              // v5+
  std::optional<uuid> replica_directory_id{}; // v17+, tag 0
};

struct fetch_topic {
  std::string topic{}; // v0-12
  std::vector<fetch_partition> partitions{};
  uuid topic_id{}; // v13+, instead of the name
};

/// A fetch session's partitions to drop (KIP-227), v7+.
struct forgotten_topic {
  std::string topic{}; // v7-12
  uuid topic_id{};     // v13+
  std::vector<int32_t> partitions{};
};

/// A follower's id and broker epoch (KIP-903), v15+.
struct fetch_replica_state {
  int32_t replica_id = -1;
  int64_t replica_epoch = -1;
};

struct fetch_request {
  int32_t replica_id = -1; // v0-14; -1 for consumers
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff; // v3+
  int8_t isolation_level = 0;     // v4+; 0 read_uncommitted, 1 read_committed
  std::vector<fetch_topic> topics{};
  int32_t session_id = 0;                               // v7+
  int32_t session_epoch = -1;                           // v7+
  std::vector<forgotten_topic> forgotten_topics_data{}; // v7+
  std::string rack_id{};                                // v11+
  std::optional<std::string> cluster_id{};              // v12+, tag 0
  std::optional<fetch_replica_state> replica_state{};   // v15+, tag 1
};

struct aborted_transaction {
  int64_t producer_id = 0;
  int64_t first_offset = 0;
};

/// The last offset of the epoch a follower diverged at (KIP-595), v12+.
struct epoch_end_offset {
  int32_t epoch = -1;
  int64_t end_offset = -1;
};

/// The snapshot a KRaft follower must fetch first, v12+.
struct fetch_snapshot_id {
  int64_t end_offset = -1;
  int32_t epoch = -1;
};

/// Empty records are written with size 0, never as null: librdkafka fails
/// the whole response on a negative MessageSetSize. Aborted transactions
/// default to an empty array rather than null for the same caution.
struct fetch_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;                                       // v4+
  std::optional<std::vector<aborted_transaction>> aborted_transactions = // v4+
    std::vector<aborted_transaction>{};
  /// RecordBatch v2 (v4+), magic 1 (v2-3) or magic 0 (v0-1) messages.
  bytes records{};
  int64_t log_start_offset = -1;                       // v5+
  int32_t preferred_read_replica = -1;                 // v11+
  std::optional<epoch_end_offset> diverging_epoch{};   // v12+, tag 0
  std::optional<leader_id_and_epoch> current_leader{}; // v12+, tag 1
  std::optional<fetch_snapshot_id> snapshot_id{};      // v12+, tag 2
};

struct fetch_topic_response {
  std::string topic{}; // v0-12
  std::vector<fetch_partition_response> partitions{};
  uuid topic_id{}; // v13+
};

struct fetch_response {
  int32_t throttle_time_ms = 0; // v1+
  std::vector<fetch_topic_response> responses{};
  error_code error = error_code::none;                        // v7+
  int32_t session_id = 0;                                     // v7+
  std::optional<std::vector<node_endpoint>> node_endpoints{}; // v16+, tag 0
};

// -- ListOffsets (2), v0-10 ---------------------------------------------------

/// Kafka's special timestamps of ListOffsets.
constexpr int64_t latest_timestamp = -1;
constexpr int64_t earliest_timestamp = -2;

struct list_offsets_partition {
  int32_t partition_index = 0;
  int64_t timestamp = latest_timestamp;
  int32_t current_leader_epoch = -1; // v4+
  int32_t max_num_offsets = 1;       // v0 only
};

struct list_offsets_topic {
  std::string name{};
  std::vector<list_offsets_partition> partitions{};
};

struct list_offsets_request {
  int32_t replica_id = -1;
  std::vector<list_offsets_topic> topics{};
  int8_t isolation_level = 0; // v2+
  int32_t timeout_ms = 0;     // v10+ (KIP-1075)
};

struct list_offsets_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
  int64_t timestamp = -1;    // v1+
  int64_t offset = -1;       // v1+
  int32_t leader_epoch = -1; // v4+
  std::vector<int64_t> old_style_offsets{}; // v0 only
};

struct list_offsets_topic_response {
  std::string name{};
  std::vector<list_offsets_partition_response> partitions{};
};

struct list_offsets_response {
  std::vector<list_offsets_topic_response> topics{};
  int32_t throttle_time_ms = 0; // v2+
};

// -- InitProducerId (22), v0-5 ------------------------------------------------

struct init_producer_id_request {
  std::optional<std::string> transactional_id{}; // null: idempotence only
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;    // v3+: the current id, to bump its epoch
  int16_t producer_epoch = -1; // v3+
};

struct init_producer_id_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;
};

// -- OffsetForLeaderEpoch (23), v0-4 ------------------------------------------

struct offset_for_leader_partition {
  int32_t partition = 0;
  int32_t current_leader_epoch = -1; // v2+
  int32_t leader_epoch = 0;
};

struct offset_for_leader_topic {
  std::string topic{};
  std::vector<offset_for_leader_partition> partitions{};
};

struct offset_for_leader_epoch_request {
  int32_t replica_id = -2; // v3+; -1 for consumers, -2 for debugging
  std::vector<offset_for_leader_topic> topics{};
};

struct offset_for_leader_partition_result {
  error_code error = error_code::none;
  int32_t partition = 0;
  int32_t leader_epoch = -1; // v1+
  int64_t end_offset = -1;
};

struct offset_for_leader_topic_result {
  std::string topic{};
  std::vector<offset_for_leader_partition_result> partitions{};
};

struct offset_for_leader_epoch_response {
  int32_t throttle_time_ms = 0; // v2+
  std::vector<offset_for_leader_topic_result> topics{};
};

} // namespace troupe::wire
