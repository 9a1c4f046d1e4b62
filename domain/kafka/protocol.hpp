#pragma once

// Kafka's wire protocol as troupe's codec speaks it (docs/ARCHITECTURE.md §5):
// for every API below, every version from Kafka 4.0's baseline (KIP-896: the
// versions Kafka 2.1 clients use) through Kafka 4.0's newest, plus the older
// ones librdkafka 2.0.2 and kafkajs still send; flexible versions (KIP-482)
// included. Field for field as Kafka's message schemas
// (clients/src/main/resources/common/message/*.json); plain structs, no
// networking. Field names follow the schemas, snake_cased; the structs are
// in data_messages.hpp, group_messages.hpp, admin_messages.hpp and
// acl_messages.hpp.
//
// Every API has four functions, all driven by one field list per struct:
//   std::optional<X_request> decode_X_request(reader&, int16_t version)
//   bool encode_X_request(writer&, const X_request&, int16_t version)
//   std::optional<X_response> decode_X_response(reader&, int16_t version)
//   bool encode_X_response(writer&, const X_response&, int16_t version)
// for every X declared at the end of this file. Decoders return nullopt on
// malformed input or an unsupported version, and the reader's error() says
// why; like Kafka, they ignore trailing bytes and skip tagged fields they do
// not know. Encoders return false (and the writer's error() says why) for an
// unsupported version or a value the wire cannot carry. Known tagged fields
// are std::optional members: decoded when present, encoded when set.
//
// Headers follow each API's flexible versions: request header v2 (v1 plus a
// tagged-field section; ClientId keeps its int16 length) in flexible
// versions, v1 before; response header v1 (correlation id plus tagged
// fields) in flexible versions, v0 before; except that the ApiVersions
// response always has header v0, so that a client that does not yet know
// the broker's versions can read it (Kafka's ApiKeys.responseHeaderVersion).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/acl_messages.hpp"
#include "domain/kafka/admin_messages.hpp"
#include "domain/kafka/data_messages.hpp"
#include "domain/kafka/group_admin_messages.hpp"
#include "domain/kafka/group_messages.hpp"
#include "domain/kafka/sasl_messages.hpp"
#include "domain/kafka/topic_admin_messages.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire {

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
  sasl_handshake = 17,
  api_versions = 18,
  create_topics = 19,
  delete_topics = 20,
  delete_records = 21,
  init_producer_id = 22,
  offset_for_leader_epoch = 23,
  sasl_authenticate = 36,
  create_partitions = 37,
  delete_groups = 42,
  elect_leaders = 43,
  describe_acls = 29,
  create_acls = 30,
  delete_acls = 31,
  describe_configs = 32,
  alter_configs = 33,
  describe_log_dirs = 35,
  incremental_alter_configs = 44,
  alter_partition_reassignments = 45,
  list_partition_reassignments = 46,
  offset_delete = 47,
  describe_user_scram_credentials = 50,
  alter_user_scram_credentials = 51,
  describe_cluster = 60,
  consumer_group_heartbeat = 68,
  consumer_group_describe = 69,
};

/// Kafka's name of the API, e.g. "JoinGroup"; "Unknown" for other keys.
std::string_view api_name(int16_t key) noexcept;

/// One entry of an ApiVersions response.
struct api_version {
  int16_t api_key = 0;
  int16_t min_version = 0;
  int16_t max_version = 0;
};

/// Every API and version the codec decodes and encodes, ascending by key.
/// The Kafka listener may serve (and advertise) a narrower table: it passes
/// its own to answer_api_versions.
const std::vector<api_version>& supported_versions();

/// True when supported_versions() lists the key with this version.
bool is_supported(int16_t key, int16_t version) noexcept;

/// The first flexible version of an API (its schema's flexibleVersions), or
/// -1 for an unknown key.
int16_t first_flexible_version(int16_t key) noexcept;

/// True when this version of the API is flexible (KIP-482). Versions past
/// the codec's newest count as flexible, as every flexibleVersions is "N+".
bool is_flexible(int16_t key, int16_t version) noexcept;

// -- headers ------------------------------------------------------------------

/// 2 in the API's flexible versions, else 1 (unknown keys: 1).
int16_t request_header_version(int16_t api_key, int16_t api_version) noexcept;

/// 1 in the API's flexible versions, else 0; always 0 for ApiVersions.
int16_t response_header_version(int16_t api_key, int16_t api_version) noexcept;

/// Request header v1/v2. ClientId is nullable on the wire.
struct request_header {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id{};
};

/// Response header v0/v1.
struct response_header {
  int32_t correlation_id = 0;
};

/// Reads the api key and version first and then the header version they
/// call for, as Kafka's RequestHeader.parse does.
std::optional<request_header> decode_request_header(reader& in);

/// Writes the header version that x.api_key and x.api_version call for.
bool encode_request_header(writer& out, const request_header& x);

/// The response header to a request of this key and version.
std::optional<response_header>
decode_response_header(reader& in, int16_t api_key, int16_t api_version);
bool encode_response_header(writer& out, const response_header& x,
                            int16_t api_key, int16_t api_version);

// -- ApiVersions (18), v0-4 ---------------------------------------------------

struct api_versions_request {
  std::string client_software_name{};    // v3+ (KIP-511)
  std::string client_software_version{}; // v3+
};

/// Kafka's ApiVersionsRequest.isValid: in v3+, the client software name and
/// version match [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?.
bool is_valid(const api_versions_request& x, int16_t version) noexcept;

struct supported_feature_key {
  std::string name{};
  int16_t min_version = 0;
  int16_t max_version = 0;
};

struct finalized_feature_key {
  std::string name{};
  int16_t max_version_level = 0;
  int16_t min_version_level = 0;
};

struct api_versions_response {
  error_code error = error_code::none;
  std::vector<api_version> api_keys{};
  int32_t throttle_time_ms = 0; // v1+
  std::optional<std::vector<supported_feature_key>>
    supported_features{};                            // tag 0
  std::optional<int64_t> finalized_features_epoch{}; // tag 1
  std::optional<std::vector<finalized_feature_key>>
    finalized_features{};                   // tag 2
  std::optional<bool> zk_migration_ready{}; // tag 3
};

/// Kafka's answer (KIP-511) to an ApiVersions request of a version the
/// broker does not serve: UNSUPPORTED_VERSION listing only ApiVersions' own
/// range in `served`, so the client retries with a version both sides speak.
api_versions_response
unsupported_api_versions_response(const std::vector<api_version>& served);

struct api_versions_answer {
  api_versions_response response;
  int16_t version = 0; // the version to encode the response with
};

/// The answer to an ApiVersions request of any version, as Kafka's
/// KafkaApis.handleApiVersionsRequest: `served` (a subset of
/// supported_versions()) in the request's version when served; otherwise
/// the unsupported answer in the v0 layout, the one every client falls back
/// to parsing (newer requests are not parsed at all, as in Kafka's
/// RequestContext); INVALID_REQUEST without a table when a v3+ request's
/// client software fails is_valid.
api_versions_answer answer_api_versions(const api_versions_request& request,
                                        int16_t request_version,
                                        const std::vector<api_version>& served);

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
TROUPE_KAFKA_DECLARE_API(delete_topics)
TROUPE_KAFKA_DECLARE_API(init_producer_id)
TROUPE_KAFKA_DECLARE_API(offset_for_leader_epoch)
TROUPE_KAFKA_DECLARE_API(describe_configs)
TROUPE_KAFKA_DECLARE_API(alter_configs)
TROUPE_KAFKA_DECLARE_API(incremental_alter_configs)
TROUPE_KAFKA_DECLARE_API(describe_cluster)
TROUPE_KAFKA_DECLARE_API(consumer_group_heartbeat)
TROUPE_KAFKA_DECLARE_API(consumer_group_describe)
TROUPE_KAFKA_DECLARE_API(describe_acls)
TROUPE_KAFKA_DECLARE_API(create_acls)
TROUPE_KAFKA_DECLARE_API(delete_acls)
TROUPE_KAFKA_DECLARE_API(describe_user_scram_credentials)
TROUPE_KAFKA_DECLARE_API(alter_user_scram_credentials)
TROUPE_KAFKA_DECLARE_API(sasl_handshake)
TROUPE_KAFKA_DECLARE_API(sasl_authenticate)
TROUPE_KAFKA_DECLARE_API(delete_groups)
TROUPE_KAFKA_DECLARE_API(offset_delete)
TROUPE_KAFKA_DECLARE_API(delete_records)
TROUPE_KAFKA_DECLARE_API(describe_log_dirs)
TROUPE_KAFKA_DECLARE_API(create_partitions)
TROUPE_KAFKA_DECLARE_API(elect_leaders)
TROUPE_KAFKA_DECLARE_API(alter_partition_reassignments)
TROUPE_KAFKA_DECLARE_API(list_partition_reassignments)

#undef TROUPE_KAFKA_DECLARE_API

// -- any request --------------------------------------------------------------

using request_body =
  std::variant<produce_request, fetch_request, list_offsets_request,
               metadata_request, offset_commit_request, offset_fetch_request,
               find_coordinator_request, join_group_request, heartbeat_request,
               leave_group_request, sync_group_request, describe_groups_request,
               list_groups_request, api_versions_request, create_topics_request,
               delete_topics_request, init_producer_id_request,
               offset_for_leader_epoch_request, describe_configs_request,
               alter_configs_request, incremental_alter_configs_request,
               describe_cluster_request, consumer_group_heartbeat_request,
               consumer_group_describe_request, describe_acls_request,
               create_acls_request, delete_acls_request,
               describe_user_scram_credentials_request,
               alter_user_scram_credentials_request, sasl_handshake_request,
               sasl_authenticate_request, delete_groups_request,
               offset_delete_request, delete_records_request,
               describe_log_dirs_request, create_partitions_request,
               elect_leaders_request, alter_partition_reassignments_request,
               list_partition_reassignments_request>;

/// Decodes the body that follows `header` by its API key and version; nullopt
/// for unknown keys and unsupported versions, except that an ApiVersions
/// request of a version newer than the codec's gives an (unparsed)
/// api_versions_request, to be answered with answer_api_versions.
std::optional<request_body> decode_request_body(reader& in,
                                                const request_header& header);

} // namespace troupe::wire
