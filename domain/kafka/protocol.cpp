#include "domain/kafka/protocol.hpp"

#include <utility>

#include "domain/kafka/field_io.hpp"

namespace troupe::wire {

namespace {

struct api_info {
  api_key key;
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible; // the schema's flexibleVersions "N+"
};

// Every version Kafka 3.9 serves of each API (its validVersions, from v0:
// the old clients Kafka 4.0 drops with KIP-896), up to Kafka 4.0's newest.
// Below Kafka 4.0's floors: Produce v0-2 (magic 0/1 message sets), Fetch
// v0-3 (answered in magic 0/1), ListOffsets v0, OffsetCommit v0-1,
// OffsetFetch v0, DeleteTopics v0, OffsetForLeaderEpoch v0-1,
// DescribeConfigs v0, CreateTopics v0-1, DescribeAcls/CreateAcls/DeleteAcls
// v0.
constexpr api_info apis[] = {
  {api_key::produce, "Produce", 0, 12, 9},
  {api_key::fetch, "Fetch", 0, 17, 12},
  {api_key::list_offsets, "ListOffsets", 0, 10, 6},
  {api_key::metadata, "Metadata", 0, 13, 9},
  {api_key::offset_commit, "OffsetCommit", 0, 9, 8},
  {api_key::offset_fetch, "OffsetFetch", 0, 9, 6},
  {api_key::find_coordinator, "FindCoordinator", 0, 6, 3},
  {api_key::join_group, "JoinGroup", 0, 9, 6},
  {api_key::heartbeat, "Heartbeat", 0, 4, 4},
  {api_key::leave_group, "LeaveGroup", 0, 5, 4},
  {api_key::sync_group, "SyncGroup", 0, 5, 4},
  {api_key::describe_groups, "DescribeGroups", 0, 6, 5},
  {api_key::list_groups, "ListGroups", 0, 5, 3},
  // Never flexible ("flexibleVersions": "none"): first past the newest.
  {api_key::sasl_handshake, "SaslHandshake", 0, 1, 2},
  {api_key::api_versions, "ApiVersions", 0, 4, 3},
  {api_key::create_topics, "CreateTopics", 0, 7, 5},
  {api_key::delete_topics, "DeleteTopics", 0, 6, 4},
  {api_key::delete_records, "DeleteRecords", 0, 2, 2},
  {api_key::init_producer_id, "InitProducerId", 0, 5, 2},
  {api_key::offset_for_leader_epoch, "OffsetForLeaderEpoch", 0, 4, 4},
  // Kafka 3.9's 0-3 (Kafka 4.0 drops v0): v0 has no pattern type, LITERAL.
  {api_key::describe_acls, "DescribeAcls", 0, 3, 2},
  {api_key::create_acls, "CreateAcls", 0, 3, 2},
  {api_key::delete_acls, "DeleteAcls", 0, 3, 2},
  {api_key::describe_configs, "DescribeConfigs", 0, 4, 4},
  {api_key::alter_configs, "AlterConfigs", 0, 2, 2},
  {api_key::describe_log_dirs, "DescribeLogDirs", 0, 4, 2},
  {api_key::sasl_authenticate, "SaslAuthenticate", 0, 2, 2},
  {api_key::create_partitions, "CreatePartitions", 0, 3, 2},
  {api_key::delete_groups, "DeleteGroups", 0, 2, 2},
  {api_key::elect_leaders, "ElectLeaders", 0, 2, 2},
  {api_key::incremental_alter_configs, "IncrementalAlterConfigs", 0, 1, 1},
  // Kafka 3.9's v0 (KIP-455), flexible from v0.
  {api_key::alter_partition_reassignments, "AlterPartitionReassignments", 0,
   0, 0},
  {api_key::list_partition_reassignments, "ListPartitionReassignments", 0, 0,
   0},
  // Never flexible ("flexibleVersions": "none").
  {api_key::offset_delete, "OffsetDelete", 0, 0, 1},
  {api_key::describe_user_scram_credentials, "DescribeUserScramCredentials", 0,
   0, 0},
  {api_key::alter_user_scram_credentials, "AlterUserScramCredentials", 0, 0,
   0},
  {api_key::describe_cluster, "DescribeCluster", 0, 2, 0},
  {api_key::consumer_group_heartbeat, "ConsumerGroupHeartbeat", 0, 1, 0},
  {api_key::consumer_group_describe, "ConsumerGroupDescribe", 0, 1, 0},
};

const api_info* find_api(int16_t key) {
  for (const auto& api : apis)
    if (static_cast<int16_t>(api.key) == key)
      return &api;
  return nullptr;
}

constexpr auto api_versions_key = static_cast<int16_t>(api_key::api_versions);

template <class T>
std::optional<request_body> wrap(std::optional<T>&& x) {
  if (!x)
    return std::nullopt;
  return request_body{std::move(*x)};
}

/// KIP-511's pattern for the client software name and version:
/// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?
bool is_software_token(std::string_view x) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9');
  };
  if (x.empty() || !alnum(x.front()) || !alnum(x.back()))
    return false;
  for (auto c : x)
    if (!alnum(c) && c != '-' && c != '.')
      return false;
  return true;
}

} // namespace

// -- field lists --------------------------------------------------------------

namespace detail {

template <class Io>
void fields(Io& io, request_header& x) {
  io.i16(x.api_key);
  io.i16(x.api_version);
  io.i32(x.correlation_id);
  // RequestHeader.json: ClientId keeps the int16 length in v2 so that any
  // broker can read the header of an ApiVersions request of any version.
  io.classic_nullable_string(x.client_id);
}

template <class Io>
void fields(Io& io, response_header& x) {
  io.i32(x.correlation_id);
}

template <class Io>
void fields(Io& io, api_versions_request& x) {
  if (io.version >= 3) {
    io.string(x.client_software_name);
    io.string(x.client_software_version);
  }
}

template <class Io>
void fields(Io& io, api_version& x) {
  io.i16(x.api_key);
  io.i16(x.min_version);
  io.i16(x.max_version);
}

template <class Io>
void fields(Io& io, supported_feature_key& x) {
  io.string(x.name);
  io.i16(x.min_version);
  io.i16(x.max_version);
}

template <class Io>
void fields(Io& io, finalized_feature_key& x) {
  io.string(x.name);
  io.i16(x.max_version_level);
  io.i16(x.min_version_level);
}

template <class Io>
void fields(Io& io, api_versions_response& x) {
  io.error(x.error);
  io.array(x.api_keys);
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  io.tags([&](auto& tag) {
    tag(0, x.supported_features);
    tag(1, x.finalized_features_epoch);
    tag(2, x.finalized_features);
    tag(3, x.zk_migration_ready);
  });
}

} // namespace detail

// -- API keys and versions ----------------------------------------------------

std::string_view api_name(int16_t key) noexcept {
  auto api = find_api(key);
  return api != nullptr ? api->name : "Unknown";
}

const std::vector<api_version>& supported_versions() {
  static const std::vector<api_version> table = [] {
    std::vector<api_version> result;
    for (const auto& api : apis)
      result.push_back(api_version{static_cast<int16_t>(api.key),
                                   api.min_version, api.max_version});
    return result;
  }();
  return table;
}

bool is_supported(int16_t key, int16_t version) noexcept {
  auto api = find_api(key);
  return api != nullptr && version >= api->min_version
         && version <= api->max_version;
}

int16_t first_flexible_version(int16_t key) noexcept {
  auto api = find_api(key);
  return api != nullptr ? api->first_flexible : -1;
}

bool is_flexible(int16_t key, int16_t version) noexcept {
  auto first = first_flexible_version(key);
  return first >= 0 && version >= first;
}

// -- headers ------------------------------------------------------------------

int16_t request_header_version(int16_t api_key, int16_t api_version) noexcept {
  return is_flexible(api_key, api_version) ? 2 : 1;
}

int16_t response_header_version(int16_t api_key, int16_t api_version) noexcept {
  // ApiKeys.API_VERSIONS: the client reads the answer before it knows which
  // versions the broker speaks, so its header never grows.
  if (api_key == api_versions_key)
    return 0;
  return is_flexible(api_key, api_version) ? 1 : 0;
}

std::optional<request_header> decode_request_header(reader& in) {
  int16_t version = 1;
  if (in.remaining() >= 4) {
    // Peek at the api key and version without consuming them.
    reader peek{in.current(), 4};
    int16_t key = 0;
    int16_t api_version = 0;
    peek.i16(key);
    peek.i16(api_version);
    version = request_header_version(key, api_version);
  }
  request_header x;
  detail::decoder io{in, version, version >= 2};
  io.structure(x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

bool encode_request_header(writer& out, const request_header& x) {
  auto version = request_header_version(x.api_key, x.api_version);
  detail::encoder io{out, version, version >= 2};
  io.structure(const_cast<request_header&>(x));
  return out.ok();
}

std::optional<response_header>
decode_response_header(reader& in, int16_t api_key, int16_t api_version) {
  auto version = response_header_version(api_key, api_version);
  response_header x;
  detail::decoder io{in, version, version >= 1};
  io.structure(x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

bool encode_response_header(writer& out, const response_header& x,
                            int16_t api_key, int16_t api_version) {
  auto version = response_header_version(api_key, api_version);
  detail::encoder io{out, version, version >= 1};
  io.structure(const_cast<response_header&>(x));
  return out.ok();
}

// -- ApiVersions --------------------------------------------------------------

bool is_valid(const api_versions_request& x, int16_t version) noexcept {
  return version < 3
         || (is_software_token(x.client_software_name)
             && is_software_token(x.client_software_version));
}

api_versions_response
unsupported_api_versions_response(const std::vector<api_version>& served) {
  api_versions_response result;
  result.error = error_code::unsupported_version;
  for (const auto& api : served)
    if (api.api_key == api_versions_key)
      result.api_keys.push_back(api);
  return result;
}

api_versions_answer
answer_api_versions(const api_versions_request& request,
                    int16_t request_version,
                    const std::vector<api_version>& served) {
  auto serves = false;
  for (const auto& api : served)
    if (api.api_key == api_versions_key && request_version >= api.min_version
        && request_version <= api.max_version)
      serves = is_supported(api_versions_key, request_version);
  if (!serves)
    return {unsupported_api_versions_response(served), 0};
  api_versions_response response;
  if (!is_valid(request, request_version)) {
    response.error = error_code::invalid_request;
    return {std::move(response), request_version};
  }
  response.api_keys = served;
  return {std::move(response), request_version};
}

TROUPE_KAFKA_DEFINE_API(api_versions, api_key::api_versions)

// -- any request --------------------------------------------------------------

std::optional<request_body> decode_request_body(reader& in,
                                                const request_header& header) {
  auto v = header.api_version;
  switch (static_cast<api_key>(header.api_key)) {
    case api_key::produce:
      return wrap(decode_produce_request(in, v));
    case api_key::fetch:
      return wrap(decode_fetch_request(in, v));
    case api_key::list_offsets:
      return wrap(decode_list_offsets_request(in, v));
    case api_key::metadata:
      return wrap(decode_metadata_request(in, v));
    case api_key::offset_commit:
      return wrap(decode_offset_commit_request(in, v));
    case api_key::offset_fetch:
      return wrap(decode_offset_fetch_request(in, v));
    case api_key::find_coordinator:
      return wrap(decode_find_coordinator_request(in, v));
    case api_key::join_group:
      return wrap(decode_join_group_request(in, v));
    case api_key::heartbeat:
      return wrap(decode_heartbeat_request(in, v));
    case api_key::leave_group:
      return wrap(decode_leave_group_request(in, v));
    case api_key::sync_group:
      return wrap(decode_sync_group_request(in, v));
    case api_key::describe_groups:
      return wrap(decode_describe_groups_request(in, v));
    case api_key::list_groups:
      return wrap(decode_list_groups_request(in, v));
    case api_key::api_versions:
      // Kafka answers versions it does not know without parsing them.
      if (!is_supported(header.api_key, v))
        return request_body{api_versions_request{}};
      return wrap(decode_api_versions_request(in, v));
    case api_key::create_topics:
      return wrap(decode_create_topics_request(in, v));
    case api_key::delete_topics:
      return wrap(decode_delete_topics_request(in, v));
    case api_key::init_producer_id:
      return wrap(decode_init_producer_id_request(in, v));
    case api_key::offset_for_leader_epoch:
      return wrap(decode_offset_for_leader_epoch_request(in, v));
    case api_key::describe_configs:
      return wrap(decode_describe_configs_request(in, v));
    case api_key::alter_configs:
      return wrap(decode_alter_configs_request(in, v));
    case api_key::incremental_alter_configs:
      return wrap(decode_incremental_alter_configs_request(in, v));
    case api_key::describe_cluster:
      return wrap(decode_describe_cluster_request(in, v));
    case api_key::consumer_group_heartbeat:
      return wrap(decode_consumer_group_heartbeat_request(in, v));
    case api_key::consumer_group_describe:
      return wrap(decode_consumer_group_describe_request(in, v));
    case api_key::describe_acls:
      return wrap(decode_describe_acls_request(in, v));
    case api_key::create_acls:
      return wrap(decode_create_acls_request(in, v));
    case api_key::delete_acls:
      return wrap(decode_delete_acls_request(in, v));
    case api_key::describe_user_scram_credentials:
      return wrap(decode_describe_user_scram_credentials_request(in, v));
    case api_key::alter_user_scram_credentials:
      return wrap(decode_alter_user_scram_credentials_request(in, v));
    case api_key::sasl_handshake:
      return wrap(decode_sasl_handshake_request(in, v));
    case api_key::sasl_authenticate:
      return wrap(decode_sasl_authenticate_request(in, v));
    case api_key::delete_groups:
      return wrap(decode_delete_groups_request(in, v));
    case api_key::offset_delete:
      return wrap(decode_offset_delete_request(in, v));
    case api_key::delete_records:
      return wrap(decode_delete_records_request(in, v));
    case api_key::describe_log_dirs:
      return wrap(decode_describe_log_dirs_request(in, v));
    case api_key::create_partitions:
      return wrap(decode_create_partitions_request(in, v));
    case api_key::elect_leaders:
      return wrap(decode_elect_leaders_request(in, v));
    case api_key::alter_partition_reassignments:
      return wrap(decode_alter_partition_reassignments_request(in, v));
    case api_key::list_partition_reassignments:
      return wrap(decode_list_partition_reassignments_request(in, v));
  }
  in.fail("unknown api key " + std::to_string(header.api_key));
  return std::nullopt;
}

} // namespace troupe::wire
