#include "domain/kafka/protocol.hpp"

#include <utility>

namespace troupe::kafka {

namespace {

// -- field lists --------------------------------------------------------------

// One function per struct lists its fields in wire order, as in Kafka's JSON
// schema for the versions troupe speaks. The same list decodes (decoder),
// encodes (encoder) and yields the smallest encoding of an array element
// (sizer), so the three cannot drift apart. `io.version` is the API version.

template <class Io>
void fields(Io& io, int32_t& x) {
  io.i32(x);
}

template <class Io>
void fields(Io& io, std::string& x) {
  io.string(x);
}

template <class Io>
void fields(Io& io, request_header& x) {
  io.i16(x.api_key);
  io.i16(x.api_version);
  io.i32(x.correlation_id);
  io.nullable_string(x.client_id);
}

template <class Io>
void fields(Io& io, response_header& x) {
  io.i32(x.correlation_id);
}

// ApiVersions

template <class Io>
void fields(Io&, api_versions_request&) {
  // nop: no fields before v3
}

template <class Io>
void fields(Io& io, api_version& x) {
  io.i16(x.api_key);
  io.i16(x.min_version);
  io.i16(x.max_version);
}

template <class Io>
void fields(Io& io, api_versions_response& x) {
  io.error(x.error);
  io.array(x.api_keys);
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
}

// Metadata

template <class Io>
void fields(Io& io, metadata_request& x) {
  io.nullable_array(x.topics);
}

template <class Io>
void fields(Io& io, metadata_broker& x) {
  io.i32(x.node_id);
  io.string(x.host);
  io.i32(x.port);
  io.nullable_string(x.rack);
}

template <class Io>
void fields(Io& io, metadata_partition& x) {
  io.error(x.error);
  io.i32(x.partition_index);
  io.i32(x.leader_id);
  io.array(x.replica_nodes);
  io.array(x.isr_nodes);
}

template <class Io>
void fields(Io& io, metadata_topic& x) {
  io.error(x.error);
  io.string(x.name);
  io.boolean(x.is_internal);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, metadata_response& x) {
  io.array(x.brokers);
  io.i32(x.controller_id);
  io.array(x.topics);
}

// Produce

template <class Io>
void fields(Io& io, produce_partition& x) {
  io.i32(x.index);
  io.records(x.records);
}

template <class Io>
void fields(Io& io, produce_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, produce_request& x) {
  io.nullable_string(x.transactional_id);
  io.i16(x.acks);
  io.i32(x.timeout_ms);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, produce_partition_response& x) {
  io.i32(x.index);
  io.error(x.error);
  io.i64(x.base_offset);
  io.i64(x.log_append_time_ms);
}

template <class Io>
void fields(Io& io, produce_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, produce_response& x) {
  io.array(x.responses);
  io.i32(x.throttle_time_ms);
}

// Fetch

template <class Io>
void fields(Io& io, fetch_partition& x) {
  io.i32(x.partition);
  io.i64(x.fetch_offset);
  io.i32(x.partition_max_bytes);
}

template <class Io>
void fields(Io& io, fetch_topic& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, fetch_request& x) {
  io.i32(x.replica_id);
  io.i32(x.max_wait_ms);
  io.i32(x.min_bytes);
  io.i32(x.max_bytes);
  io.i8(x.isolation_level);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, aborted_transaction& x) {
  io.i64(x.producer_id);
  io.i64(x.first_offset);
}

template <class Io>
void fields(Io& io, fetch_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
  io.i64(x.high_watermark);
  io.i64(x.last_stable_offset);
  io.nullable_array(x.aborted_transactions);
  io.records(x.records);
}

template <class Io>
void fields(Io& io, fetch_topic_response& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, fetch_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.responses);
}

// ListOffsets

template <class Io>
void fields(Io& io, list_offsets_partition& x) {
  io.i32(x.partition_index);
  io.i64(x.timestamp);
}

template <class Io>
void fields(Io& io, list_offsets_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, list_offsets_request& x) {
  io.i32(x.replica_id);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, list_offsets_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
  io.i64(x.timestamp);
  io.i64(x.offset);
}

template <class Io>
void fields(Io& io, list_offsets_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, list_offsets_response& x) {
  io.array(x.topics);
}

// OffsetCommit

template <class Io>
void fields(Io& io, offset_commit_partition& x) {
  io.i32(x.partition_index);
  io.i64(x.committed_offset);
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
  io.i32(x.generation_id);
  io.string(x.member_id);
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
  io.array(x.topics);
}

// OffsetFetch

template <class Io>
void fields(Io& io, offset_fetch_topic& x) {
  io.string(x.name);
  io.array(x.partition_indexes);
}

template <class Io>
void fields(Io& io, offset_fetch_request& x) {
  io.string(x.group_id);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, offset_fetch_partition_response& x) {
  io.i32(x.partition_index);
  io.i64(x.committed_offset);
  io.nullable_string(x.metadata);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, offset_fetch_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_fetch_response& x) {
  io.array(x.topics);
}

// FindCoordinator

template <class Io>
void fields(Io& io, find_coordinator_request& x) {
  io.string(x.key);
}

template <class Io>
void fields(Io& io, find_coordinator_response& x) {
  io.error(x.error);
  io.i32(x.node_id);
  io.string(x.host);
  io.i32(x.port);
}

// JoinGroup

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
  io.string(x.protocol_type);
  io.array(x.protocols);
}

template <class Io>
void fields(Io& io, join_group_member& x) {
  io.string(x.member_id);
  io.bytes(x.metadata);
}

template <class Io>
void fields(Io& io, join_group_response& x) {
  io.error(x.error);
  io.i32(x.generation_id);
  io.string(x.protocol_name);
  io.string(x.leader);
  io.string(x.member_id);
  io.array(x.members);
}

// Heartbeat, LeaveGroup, SyncGroup

template <class Io>
void fields(Io& io, heartbeat_request& x) {
  io.string(x.group_id);
  io.i32(x.generation_id);
  io.string(x.member_id);
}

template <class Io>
void fields(Io& io, heartbeat_response& x) {
  io.error(x.error);
}

template <class Io>
void fields(Io& io, leave_group_request& x) {
  io.string(x.group_id);
  io.string(x.member_id);
}

template <class Io>
void fields(Io& io, leave_group_response& x) {
  io.error(x.error);
}

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
  io.array(x.assignments);
}

template <class Io>
void fields(Io& io, sync_group_response& x) {
  io.error(x.error);
  io.bytes(x.assignment);
}

// DescribeGroups, ListGroups

template <class Io>
void fields(Io& io, describe_groups_request& x) {
  io.array(x.groups);
}

template <class Io>
void fields(Io& io, described_group_member& x) {
  io.string(x.member_id);
  io.string(x.client_id);
  io.string(x.client_host);
  io.bytes(x.member_metadata);
  io.bytes(x.member_assignment);
}

template <class Io>
void fields(Io& io, described_group& x) {
  io.error(x.error);
  io.string(x.group_id);
  io.string(x.group_state);
  io.string(x.protocol_type);
  io.string(x.protocol_data);
  io.array(x.members);
}

template <class Io>
void fields(Io& io, describe_groups_response& x) {
  io.array(x.groups);
}

template <class Io>
void fields(Io&, list_groups_request&) {
  // nop: no fields before v4
}

template <class Io>
void fields(Io& io, listed_group& x) {
  io.string(x.group_id);
  io.string(x.protocol_type);
}

template <class Io>
void fields(Io& io, list_groups_response& x) {
  io.error(x.error);
  io.array(x.groups);
}

// CreateTopics

template <class Io>
void fields(Io& io, creatable_replica_assignment& x) {
  io.i32(x.partition_index);
  io.array(x.broker_ids);
}

template <class Io>
void fields(Io& io, creatable_topic_config& x) {
  io.string(x.name);
  io.nullable_string(x.value);
}

template <class Io>
void fields(Io& io, creatable_topic& x) {
  io.string(x.name);
  io.i32(x.num_partitions);
  io.i16(x.replication_factor);
  io.array(x.assignments);
  io.array(x.configs);
}

template <class Io>
void fields(Io& io, create_topics_request& x) {
  io.array(x.topics);
  io.i32(x.timeout_ms);
  if (io.version >= 1)
    io.boolean(x.validate_only);
}

template <class Io>
void fields(Io& io, creatable_topic_result& x) {
  io.string(x.name);
  io.error(x.error);
  if (io.version >= 1)
    io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, create_topics_response& x) {
  io.array(x.topics);
}

// -- the three walks over a field list ----------------------------------------

/// Adds up the smallest encoding of each field: empty strings and arrays.
struct sizer {
  int16_t version;
  size_t size = 0;

  void i8(int8_t) {
    size += 1;
  }
  void i16(int16_t) {
    size += 2;
  }
  void i32(int32_t) {
    size += 4;
  }
  void i64(int64_t) {
    size += 8;
  }
  void boolean(bool) {
    size += 1;
  }
  void error(error_code) {
    size += 2;
  }
  template <class T>
  void string(const T&) {
    size += 2;
  }
  template <class T>
  void nullable_string(const T&) {
    size += 2;
  }
  template <class T>
  void bytes(const T&) {
    size += 4;
  }
  template <class T>
  void records(const T&) {
    size += 4;
  }
  template <class T>
  void array(const T&) {
    size += 4;
  }
  template <class T>
  void nullable_array(const T&) {
    size += 4;
  }
};

/// The fewest bytes one T takes on the wire in `version`: the bound that lets
/// the reader refuse an array count before allocating for it.
template <class T>
size_t min_size(int16_t version) {
  sizer io{version};
  T x{};
  fields(io, x);
  return io.size;
}

/// Reads fields into a struct; the first failure sticks in the reader and
/// makes every later read a no-op.
class decoder {
public:
  static constexpr bool reading = true;

  decoder(reader& in, int16_t version) : version(version), in_(in) {
    // nop
  }

  const int16_t version;

  void i8(int8_t& x) {
    in_.i8(x);
  }
  void i16(int16_t& x) {
    in_.i16(x);
  }
  void i32(int32_t& x) {
    in_.i32(x);
  }
  void i64(int64_t& x) {
    in_.i64(x);
  }
  void boolean(bool& x) {
    in_.boolean(x);
  }
  void error(error_code& x) {
    int16_t value = 0;
    if (in_.i16(value))
      x = error_from_int(value);
  }
  void string(std::string& x) {
    in_.string(x);
  }
  void nullable_string(std::optional<std::string>& x) {
    in_.nullable_string(x);
  }
  void bytes(std::vector<uint8_t>& x) {
    in_.bytes(x);
  }

  /// Records are nullable on the wire; null reads as empty.
  void records(std::vector<uint8_t>& x) {
    std::optional<std::vector<uint8_t>> value;
    if (in_.nullable_bytes(value))
      x = value ? std::move(*value) : std::vector<uint8_t>{};
  }

  template <class T>
  void array(std::vector<T>& xs) {
    size_t n = 0;
    if (in_.array_size(n, min_size<T>(version)))
      elements(xs, n);
  }

  template <class T>
  void nullable_array(std::optional<std::vector<T>>& xs) {
    std::optional<size_t> n;
    if (!in_.nullable_array_size(n, min_size<T>(version)))
      return;
    if (!n) {
      xs.reset();
      return;
    }
    xs.emplace();
    elements(*xs, *n);
  }

private:
  // Grows one element at a time: a count that fits the bytes but whose
  // elements do not parse costs no more memory than the elements read.
  template <class T>
  void elements(std::vector<T>& xs, size_t n) {
    xs.clear();
    for (size_t i = 0; i < n && in_.ok(); ++i)
      fields(*this, xs.emplace_back());
  }

  reader& in_;
};

/// Writes the fields of a struct. It takes the struct by non-const reference
/// only to share the field lists with the decoder; it never modifies it.
class encoder {
public:
  static constexpr bool reading = false;

  encoder(writer& out, int16_t version) : version(version), out_(out) {
    // nop
  }

  const int16_t version;

  void i8(int8_t x) {
    out_.i8(x);
  }
  void i16(int16_t x) {
    out_.i16(x);
  }
  void i32(int32_t x) {
    out_.i32(x);
  }
  void i64(int64_t x) {
    out_.i64(x);
  }
  void boolean(bool x) {
    out_.boolean(x);
  }
  void error(error_code x) {
    out_.i16(to_int(x));
  }
  void string(const std::string& x) {
    out_.string(x);
  }
  void nullable_string(const std::optional<std::string>& x) {
    out_.nullable_string(x);
  }
  void bytes(const std::vector<uint8_t>& x) {
    out_.bytes(x);
  }

  /// Empty records are size 0, never null (see fetch_partition_response).
  void records(const std::vector<uint8_t>& x) {
    out_.bytes(x);
  }

  template <class T>
  void array(std::vector<T>& xs) {
    out_.array_size(xs.size());
    for (auto& x : xs)
      fields(*this, x);
  }

  template <class T>
  void nullable_array(std::optional<std::vector<T>>& xs) {
    if (xs)
      array(*xs);
    else
      out_.null_array();
  }

private:
  writer& out_;
};

// -- entry points -------------------------------------------------------------

std::string unsupported(api_key key, std::string_view kind, int16_t version) {
  std::string result{"unsupported "};
  result += api_name(static_cast<int16_t>(key));
  result += kind;
  result += " version ";
  result += std::to_string(version);
  return result;
}

template <class T>
std::optional<T> decode(reader& in, api_key key, std::string_view kind,
                        int16_t version) {
  if (!is_supported(static_cast<int16_t>(key), version)) {
    in.fail(unsupported(key, kind, version));
    return std::nullopt;
  }
  T x{};
  decoder io{in, version};
  fields(io, x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

template <class T>
bool encode(writer& out, const T& x, api_key key, std::string_view kind,
            int16_t version) {
  if (!is_supported(static_cast<int16_t>(key), version))
    return out.fail(unsupported(key, kind, version));
  encoder io{out, version};
  fields(io, const_cast<T&>(x));
  return out.ok();
}

template <class T>
std::optional<request_body> wrap(std::optional<T>&& x) {
  if (!x)
    return std::nullopt;
  return request_body{std::move(*x)};
}

struct api_info {
  api_key key;
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
};

// DESIGN.md section 5's subset; every version here is non-flexible.
constexpr api_info apis[] = {
  {api_key::produce, "Produce", 3, 3},
  {api_key::fetch, "Fetch", 4, 4},
  {api_key::list_offsets, "ListOffsets", 1, 1},
  {api_key::metadata, "Metadata", 1, 1},
  {api_key::offset_commit, "OffsetCommit", 2, 2},
  {api_key::offset_fetch, "OffsetFetch", 1, 1},
  {api_key::find_coordinator, "FindCoordinator", 0, 0},
  {api_key::join_group, "JoinGroup", 0, 1},
  {api_key::heartbeat, "Heartbeat", 0, 0},
  {api_key::leave_group, "LeaveGroup", 0, 0},
  {api_key::sync_group, "SyncGroup", 0, 0},
  {api_key::describe_groups, "DescribeGroups", 0, 0},
  {api_key::list_groups, "ListGroups", 0, 0},
  {api_key::api_versions, "ApiVersions", 0, 2},
  {api_key::create_topics, "CreateTopics", 0, 1},
};

const api_info* find_api(int16_t key) {
  for (const auto& api : apis)
    if (static_cast<int16_t>(api.key) == key)
      return &api;
  return nullptr;
}

} // namespace

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

// -- headers ------------------------------------------------------------------

std::optional<request_header> decode_request_header(reader& in) {
  request_header x;
  decoder io{in, 1};
  fields(io, x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

bool encode_request_header(writer& out, const request_header& x) {
  encoder io{out, 1};
  fields(io, const_cast<request_header&>(x));
  return out.ok();
}

std::optional<response_header> decode_response_header(reader& in) {
  response_header x;
  decoder io{in, 0};
  fields(io, x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

bool encode_response_header(writer& out, const response_header& x) {
  encoder io{out, 0};
  fields(io, const_cast<response_header&>(x));
  return out.ok();
}

// -- ApiVersions --------------------------------------------------------------

api_versions_response unsupported_api_versions_response() {
  api_versions_response result;
  result.error = error_code::unsupported_version;
  auto api = find_api(static_cast<int16_t>(api_key::api_versions));
  result.api_keys.push_back(api_version{static_cast<int16_t>(api->key),
                                        api->min_version, api->max_version});
  return result;
}

api_versions_answer answer_api_versions(int16_t request_version) {
  if (!is_supported(static_cast<int16_t>(api_key::api_versions),
                    request_version))
    return {unsupported_api_versions_response(), 0};
  api_versions_response response;
  response.api_keys = supported_versions();
  return {std::move(response), request_version};
}

// -- per-API codecs -----------------------------------------------------------

#define TROUPE_KAFKA_DEFINE_API(name, key)                                     \
  std::optional<name##_request> decode_##name##_request(reader& in,            \
                                                        int16_t version) {     \
    return decode<name##_request>(in, key, " request", version);               \
  }                                                                            \
  bool encode_##name##_request(writer& out, const name##_request& x,           \
                               int16_t version) {                              \
    return encode(out, x, key, " request", version);                           \
  }                                                                            \
  std::optional<name##_response> decode_##name##_response(reader& in,          \
                                                          int16_t version) {   \
    return decode<name##_response>(in, key, " response", version);             \
  }                                                                            \
  bool encode_##name##_response(writer& out, const name##_response& x,         \
                                int16_t version) {                             \
    return encode(out, x, key, " response", version);                          \
  }

TROUPE_KAFKA_DEFINE_API(api_versions, api_key::api_versions)
TROUPE_KAFKA_DEFINE_API(metadata, api_key::metadata)
TROUPE_KAFKA_DEFINE_API(produce, api_key::produce)
TROUPE_KAFKA_DEFINE_API(fetch, api_key::fetch)
TROUPE_KAFKA_DEFINE_API(list_offsets, api_key::list_offsets)
TROUPE_KAFKA_DEFINE_API(offset_commit, api_key::offset_commit)
TROUPE_KAFKA_DEFINE_API(offset_fetch, api_key::offset_fetch)
TROUPE_KAFKA_DEFINE_API(find_coordinator, api_key::find_coordinator)
TROUPE_KAFKA_DEFINE_API(join_group, api_key::join_group)
TROUPE_KAFKA_DEFINE_API(heartbeat, api_key::heartbeat)
TROUPE_KAFKA_DEFINE_API(leave_group, api_key::leave_group)
TROUPE_KAFKA_DEFINE_API(sync_group, api_key::sync_group)
TROUPE_KAFKA_DEFINE_API(describe_groups, api_key::describe_groups)
TROUPE_KAFKA_DEFINE_API(list_groups, api_key::list_groups)
TROUPE_KAFKA_DEFINE_API(create_topics, api_key::create_topics)

#undef TROUPE_KAFKA_DEFINE_API

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
      // Newer versions are flexible; Kafka answers them without parsing.
      if (!is_supported(header.api_key, v))
        return request_body{api_versions_request{}};
      return wrap(decode_api_versions_request(in, v));
    case api_key::create_topics:
      return wrap(decode_create_topics_request(in, v));
  }
  in.fail("unknown api key " + std::to_string(header.api_key));
  return std::nullopt;
}

} // namespace troupe::kafka
