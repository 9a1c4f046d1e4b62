#pragma once

// The Kafka wire protocol subset of DESIGN.md section 5 (what librdkafka and
// kafkajs need): request header v1, response header v0, and non-flexible
// versions of the APIs below, field for field as in Kafka's message schemas
// (clients/src/main/resources/common/message/*.json). Plain structs, no
// networking. Field names follow the schemas, snake_cased.
//
// Every API has four functions, all driven by one field list per struct:
//   std::optional<X_request> decode_X_request(reader&, int16_t version)
//   bool encode_X_request(writer&, const X_request&, int16_t version)
//   std::optional<X_response> decode_X_response(reader&, int16_t version)
//   bool encode_X_response(writer&, const X_response&, int16_t version)
// for X in api_versions, metadata, produce, fetch, list_offsets,
// offset_commit, offset_fetch, find_coordinator, join_group, heartbeat,
// leave_group, sync_group, describe_groups, list_groups, create_topics.
// Decoders return nullopt on malformed input or an unsupported version, and
// the reader's error() says why; like Kafka, they ignore trailing bytes.
// Encoders return false (and the writer's error() says why) for an
// unsupported version or a value the wire cannot carry.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::kafka {

// -- API keys and versions ----------------------------------------------------

/// Kafka's API keys, by Kafka's numbers (ApiKeys.java).
enum class api_key : int16_t {
  produce = 0,
  fetch = 1,
  list_offsets = 2,
  metadata = 3,
  offset_commit = 8,
  offset_fetch = 9,
  find_coordinator = 10,
  join_group = 11,
  heartbeat = 12,
  leave_group = 13,
  sync_group = 14,
  describe_groups = 15,
  list_groups = 16,
  api_versions = 18,
  create_topics = 19,
};

/// Kafka's name of the API, e.g. "JoinGroup"; "Unknown" for other keys.
std::string_view api_name(int16_t key) noexcept;

/// One entry of an ApiVersions response.
struct api_version {
  int16_t api_key = 0;
  int16_t min_version = 0;
  int16_t max_version = 0;
};

/// What troupe answers ApiVersions with: every API above, ascending by key.
const std::vector<api_version>& supported_versions();

/// True when supported_versions() lists the key with this version.
bool is_supported(int16_t key, int16_t version) noexcept;

// -- headers ------------------------------------------------------------------

/// Request header v1. ClientId is nullable on the wire.
struct request_header {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;
};

/// Response header v0.
struct response_header {
  int32_t correlation_id = 0;
};

std::optional<request_header> decode_request_header(reader& in);
bool encode_request_header(writer& out, const request_header& x);
std::optional<response_header> decode_response_header(reader& in);
bool encode_response_header(writer& out, const response_header& x);

// -- ApiVersions (18), v0-2 ---------------------------------------------------

struct api_versions_request {};

struct api_versions_response {
  error_code error = error_code::none;
  std::vector<api_version> api_keys;
  int32_t throttle_time_ms = 0; // v1+
};

/// Kafka's answer (KIP-511) to an ApiVersions request of a version it does not
/// know: UNSUPPORTED_VERSION listing only ApiVersions' own range, so the
/// client retries with a version both sides speak.
api_versions_response unsupported_api_versions_response();

struct api_versions_answer {
  api_versions_response response;
  int16_t version = 0; // the version to encode the response with
};

/// The answer to an ApiVersions request of any version: troupe's table in
/// the request's version when supported, otherwise the unsupported answer in
/// the v0 layout, the one every client falls back to parsing. Newer requests
/// are flexible and are not parsed at all, as in Kafka's RequestContext.
api_versions_answer answer_api_versions(int16_t request_version);

// -- Metadata (3), v1 ---------------------------------------------------------

struct metadata_request {
  std::optional<std::vector<std::string>> topics; // null: every topic
};

struct metadata_broker {
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
};

struct metadata_partition {
  error_code error = error_code::none;
  int32_t partition_index = 0;
  int32_t leader_id = -1;
  std::vector<int32_t> replica_nodes;
  std::vector<int32_t> isr_nodes;
};

struct metadata_topic {
  error_code error = error_code::none;
  std::string name;
  bool is_internal = false;
  std::vector<metadata_partition> partitions;
};

struct metadata_response {
  std::vector<metadata_broker> brokers;
  int32_t controller_id = -1;
  std::vector<metadata_topic> topics;
};

// -- Produce (0), v3 ----------------------------------------------------------

/// Records are a RecordBatch run, kept as raw bytes (see domain/log); a null
/// records field reads as empty.
struct produce_partition {
  int32_t index = 0;
  bytes records;
};

struct produce_topic {
  std::string name;
  std::vector<produce_partition> partitions;
};

struct produce_request {
  std::optional<std::string> transactional_id;
  int16_t acks = -1;
  int32_t timeout_ms = 0;
  std::vector<produce_topic> topics;
};

struct produce_partition_response {
  int32_t index = 0;
  error_code error = error_code::none;
  int64_t base_offset = -1;
  int64_t log_append_time_ms = -1; // -1 for CreateTime topics
};

struct produce_topic_response {
  std::string name;
  std::vector<produce_partition_response> partitions;
};

struct produce_response {
  std::vector<produce_topic_response> responses;
  int32_t throttle_time_ms = 0;
};

// -- Fetch (1), v4 ------------------------------------------------------------

struct fetch_partition {
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t partition_max_bytes = 0;
};

struct fetch_topic {
  std::string topic;
  std::vector<fetch_partition> partitions;
};

struct fetch_request {
  int32_t replica_id = -1; // -1 for consumers
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int8_t isolation_level = 0; // 0 read_uncommitted, 1 read_committed
  std::vector<fetch_topic> topics;
};

struct aborted_transaction {
  int64_t producer_id = 0;
  int64_t first_offset = 0;
};

/// Empty records are written with size 0, never as null: librdkafka fails
/// the whole response on a negative MessageSetSize. Aborted transactions
/// default to an empty array rather than null for the same caution.
struct fetch_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  std::optional<std::vector<aborted_transaction>> aborted_transactions =
    std::vector<aborted_transaction>{};
  bytes records;
};

struct fetch_topic_response {
  std::string topic;
  std::vector<fetch_partition_response> partitions;
};

struct fetch_response {
  int32_t throttle_time_ms = 0;
  std::vector<fetch_topic_response> responses;
};

// -- ListOffsets (2), v1 ------------------------------------------------------

/// Kafka's special timestamps of ListOffsets.
constexpr int64_t latest_timestamp = -1;
constexpr int64_t earliest_timestamp = -2;

struct list_offsets_partition {
  int32_t partition_index = 0;
  int64_t timestamp = latest_timestamp;
};

struct list_offsets_topic {
  std::string name;
  std::vector<list_offsets_partition> partitions;
};

struct list_offsets_request {
  int32_t replica_id = -1;
  std::vector<list_offsets_topic> topics;
};

struct list_offsets_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
  int64_t timestamp = -1;
  int64_t offset = -1;
};

struct list_offsets_topic_response {
  std::string name;
  std::vector<list_offsets_partition_response> partitions;
};

struct list_offsets_response {
  std::vector<list_offsets_topic_response> topics;
};

// -- OffsetCommit (8), v2 -----------------------------------------------------

struct offset_commit_partition {
  int32_t partition_index = 0;
  int64_t committed_offset = 0;
  std::optional<std::string> committed_metadata;
};

struct offset_commit_topic {
  std::string name;
  std::vector<offset_commit_partition> partitions;
};

struct offset_commit_request {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  int64_t retention_time_ms = -1; // -1: the broker's default
  std::vector<offset_commit_topic> topics;
};

struct offset_commit_partition_response {
  int32_t partition_index = 0;
  error_code error = error_code::none;
};

struct offset_commit_topic_response {
  std::string name;
  std::vector<offset_commit_partition_response> partitions;
};

struct offset_commit_response {
  std::vector<offset_commit_topic_response> topics;
};

// -- OffsetFetch (9), v1 ------------------------------------------------------

struct offset_fetch_topic {
  std::string name;
  std::vector<int32_t> partition_indexes;
};

struct offset_fetch_request {
  std::string group_id;
  std::vector<offset_fetch_topic> topics;
};

struct offset_fetch_partition_response {
  int32_t partition_index = 0;
  int64_t committed_offset = -1; // -1: nothing committed
  std::optional<std::string> metadata;
  error_code error = error_code::none;
};

struct offset_fetch_topic_response {
  std::string name;
  std::vector<offset_fetch_partition_response> partitions;
};

struct offset_fetch_response {
  std::vector<offset_fetch_topic_response> topics;
};

// -- FindCoordinator (10), v0 -------------------------------------------------

struct find_coordinator_request {
  std::string key; // the group id
};

struct find_coordinator_response {
  error_code error = error_code::none;
  int32_t node_id = -1;
  std::string host;
  int32_t port = -1;
};

// -- JoinGroup (11), v0-1 -----------------------------------------------------

struct join_group_protocol {
  std::string name;
  bytes metadata;
};

struct join_group_request {
  std::string group_id;
  int32_t session_timeout_ms = 0;
  /// v1+; decoding v0 sets it to the session timeout, as Kafka does.
  int32_t rebalance_timeout_ms = -1;
  std::string member_id;
  std::string protocol_type;
  std::vector<join_group_protocol> protocols;
};

struct join_group_member {
  std::string member_id;
  bytes metadata;
};

struct join_group_response {
  error_code error = error_code::none;
  int32_t generation_id = -1;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  std::vector<join_group_member> members;
};

// -- Heartbeat (12), v0 -------------------------------------------------------

struct heartbeat_request {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
};

struct heartbeat_response {
  error_code error = error_code::none;
};

// -- LeaveGroup (13), v0 ------------------------------------------------------

struct leave_group_request {
  std::string group_id;
  std::string member_id;
};

struct leave_group_response {
  error_code error = error_code::none;
};

// -- SyncGroup (14), v0 -------------------------------------------------------

struct sync_group_assignment {
  std::string member_id;
  bytes assignment;
};

struct sync_group_request {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::vector<sync_group_assignment> assignments;
};

struct sync_group_response {
  error_code error = error_code::none;
  bytes assignment;
};

// -- DescribeGroups (15), v0 --------------------------------------------------

struct describe_groups_request {
  std::vector<std::string> groups;
};

struct described_group_member {
  std::string member_id;
  std::string client_id;
  std::string client_host;
  bytes member_metadata;
  bytes member_assignment;
};

struct described_group {
  error_code error = error_code::none;
  std::string group_id;
  std::string group_state;
  std::string protocol_type;
  std::string protocol_data;
  std::vector<described_group_member> members;
};

struct describe_groups_response {
  std::vector<described_group> groups;
};

// -- ListGroups (16), v0 ------------------------------------------------------

struct list_groups_request {};

struct listed_group {
  std::string group_id;
  std::string protocol_type;
};

struct list_groups_response {
  error_code error = error_code::none;
  std::vector<listed_group> groups;
};

// -- CreateTopics (19), v0-1 --------------------------------------------------

struct creatable_replica_assignment {
  int32_t partition_index = 0;
  std::vector<int32_t> broker_ids;
};

struct creatable_topic_config {
  std::string name;
  std::optional<std::string> value;
};

struct creatable_topic {
  std::string name;
  int32_t num_partitions = -1;     // -1: the broker's default
  int16_t replication_factor = -1; // -1: the broker's default
  std::vector<creatable_replica_assignment> assignments;
  std::vector<creatable_topic_config> configs;
};

struct create_topics_request {
  std::vector<creatable_topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false; // v1+
};

struct creatable_topic_result {
  std::string name;
  error_code error = error_code::none;
  std::optional<std::string> error_message; // v1+
};

struct create_topics_response {
  std::vector<creatable_topic_result> topics;
};

// -- per-API codecs -----------------------------------------------------------

#define TROUPE_KAFKA_DECLARE_API(name)                                         \
  std::optional<name##_request> decode_##name##_request(reader& in,            \
                                                        int16_t version);      \
  bool encode_##name##_request(writer& out, const name##_request& x,           \
                               int16_t version);                               \
  std::optional<name##_response> decode_##name##_response(reader& in,          \
                                                          int16_t version);    \
  bool encode_##name##_response(writer& out, const name##_response& x,         \
                                int16_t version);

TROUPE_KAFKA_DECLARE_API(api_versions)
TROUPE_KAFKA_DECLARE_API(metadata)
TROUPE_KAFKA_DECLARE_API(produce)
TROUPE_KAFKA_DECLARE_API(fetch)
TROUPE_KAFKA_DECLARE_API(list_offsets)
TROUPE_KAFKA_DECLARE_API(offset_commit)
TROUPE_KAFKA_DECLARE_API(offset_fetch)
TROUPE_KAFKA_DECLARE_API(find_coordinator)
TROUPE_KAFKA_DECLARE_API(join_group)
TROUPE_KAFKA_DECLARE_API(heartbeat)
TROUPE_KAFKA_DECLARE_API(leave_group)
TROUPE_KAFKA_DECLARE_API(sync_group)
TROUPE_KAFKA_DECLARE_API(describe_groups)
TROUPE_KAFKA_DECLARE_API(list_groups)
TROUPE_KAFKA_DECLARE_API(create_topics)

#undef TROUPE_KAFKA_DECLARE_API

// -- any request --------------------------------------------------------------

using request_body =
  std::variant<produce_request, fetch_request, list_offsets_request,
               metadata_request, offset_commit_request, offset_fetch_request,
               find_coordinator_request, join_group_request, heartbeat_request,
               leave_group_request, sync_group_request, describe_groups_request,
               list_groups_request, api_versions_request,
               create_topics_request>;

/// Decodes the body that follows `header` by its API key and version; nullopt
/// for unknown keys and unsupported versions, except that an ApiVersions
/// request of any version gives an (unparsed) api_versions_request, to be
/// answered with answer_api_versions(header.api_version).
std::optional<request_body> decode_request_body(reader& in,
                                                const request_header& header);

} // namespace troupe::kafka
