// libFuzzer target: the input is a byte stream from a Kafka client. Every
// frame in it goes through what the listener does (frame, header, body).
// The input is also one body: its first byte picks an API version among all
// the codec supports, flexible ones (KIP-482) included, its second byte a
// request or a response decoder (and a response header version), the rest is
// the body (make_seeds writes seeds of that shape). A body that decodes must
// encode, and that encoding must decode to the same bytes again.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"

using namespace troupe::wire;

namespace {

constexpr size_t max_request_bytes = 1 << 20;

// -- one encoder name for every request type ----------------------------------

#define TROUPE_FUZZ_ENCODE(name)                                               \
  bool encode(writer& out, const name##_request& x, int16_t version) {         \
    return encode_##name##_request(out, x, version);                           \
  }

TROUPE_FUZZ_ENCODE(api_versions)
TROUPE_FUZZ_ENCODE(metadata)
TROUPE_FUZZ_ENCODE(produce)
TROUPE_FUZZ_ENCODE(fetch)
TROUPE_FUZZ_ENCODE(list_offsets)
TROUPE_FUZZ_ENCODE(offset_commit)
TROUPE_FUZZ_ENCODE(offset_fetch)
TROUPE_FUZZ_ENCODE(find_coordinator)
TROUPE_FUZZ_ENCODE(join_group)
TROUPE_FUZZ_ENCODE(heartbeat)
TROUPE_FUZZ_ENCODE(leave_group)
TROUPE_FUZZ_ENCODE(sync_group)
TROUPE_FUZZ_ENCODE(describe_groups)
TROUPE_FUZZ_ENCODE(list_groups)
TROUPE_FUZZ_ENCODE(create_topics)
TROUPE_FUZZ_ENCODE(delete_topics)
TROUPE_FUZZ_ENCODE(init_producer_id)
TROUPE_FUZZ_ENCODE(offset_for_leader_epoch)
TROUPE_FUZZ_ENCODE(describe_configs)
TROUPE_FUZZ_ENCODE(alter_configs)
TROUPE_FUZZ_ENCODE(incremental_alter_configs)
TROUPE_FUZZ_ENCODE(describe_cluster)
TROUPE_FUZZ_ENCODE(consumer_group_heartbeat)
TROUPE_FUZZ_ENCODE(consumer_group_describe)
TROUPE_FUZZ_ENCODE(describe_acls)
TROUPE_FUZZ_ENCODE(create_acls)
TROUPE_FUZZ_ENCODE(delete_acls)
TROUPE_FUZZ_ENCODE(describe_user_scram_credentials)
TROUPE_FUZZ_ENCODE(alter_user_scram_credentials)
TROUPE_FUZZ_ENCODE(sasl_handshake)
TROUPE_FUZZ_ENCODE(sasl_authenticate)
TROUPE_FUZZ_ENCODE(delete_groups)
TROUPE_FUZZ_ENCODE(offset_delete)
TROUPE_FUZZ_ENCODE(delete_records)
TROUPE_FUZZ_ENCODE(describe_log_dirs)
TROUPE_FUZZ_ENCODE(create_partitions)
TROUPE_FUZZ_ENCODE(elect_leaders)
TROUPE_FUZZ_ENCODE(alter_partition_reassignments)
TROUPE_FUZZ_ENCODE(list_partition_reassignments)

#undef TROUPE_FUZZ_ENCODE

bytes encode_body(const request_body& body, int16_t version) {
  bytes buf;
  writer out{buf};
  auto ok =
    std::visit([&](const auto& x) { return encode(out, x, version); }, body);
  if (!ok)
    __builtin_trap(); // whatever decodes must encode
  return buf;
}

/// Decodes a body; when it decodes, checks that encoding is stable.
void decode_and_check(reader& in, const request_header& header) {
  auto body = decode_request_body(in, header);
  if (!body) {
    if (in.error().empty())
      __builtin_trap(); // a refusal always has a reason
    return;
  }
  if (!is_supported(header.api_key, header.api_version))
    return; // an unparsed ApiVersions request of a newer version
  auto first = encode_body(*body, header.api_version);
  reader again{first};
  auto decoded = decode_request_body(again, header);
  if (!decoded || again.remaining() != 0)
    __builtin_trap();
  if (encode_body(*decoded, header.api_version) != first)
    __builtin_trap();
}

/// The same for one response decoder.
template <class Response>
void check_response(const uint8_t* data, size_t size, int16_t version,
                    std::optional<Response> (*decode)(reader&, int16_t),
                    bool (*encode)(writer&, const Response&, int16_t)) {
  reader in{data, size};
  auto x = decode(in, version);
  if (!x) {
    if (in.error().empty())
      __builtin_trap();
    return;
  }
  bytes first;
  writer out{first};
  if (!encode(out, *x, version))
    __builtin_trap();
  reader again{first};
  auto y = decode(again, version);
  if (!y || again.remaining() != 0)
    __builtin_trap();
  bytes second;
  writer out2{second};
  if (!encode(out2, *y, version) || second != first)
    __builtin_trap();
}

void check_response(int16_t key, int16_t v, const uint8_t* data, size_t size) {
#define TROUPE_FUZZ_RESPONSE(name)                                             \
  case api_key::name:                                                          \
    check_response(data, size, v, decode_##name##_response,                    \
                   encode_##name##_response);                                  \
    return;
  switch (static_cast<api_key>(key)) {
    TROUPE_FUZZ_RESPONSE(api_versions)
    TROUPE_FUZZ_RESPONSE(metadata)
    TROUPE_FUZZ_RESPONSE(produce)
    TROUPE_FUZZ_RESPONSE(fetch)
    TROUPE_FUZZ_RESPONSE(list_offsets)
    TROUPE_FUZZ_RESPONSE(offset_commit)
    TROUPE_FUZZ_RESPONSE(offset_fetch)
    TROUPE_FUZZ_RESPONSE(find_coordinator)
    TROUPE_FUZZ_RESPONSE(join_group)
    TROUPE_FUZZ_RESPONSE(heartbeat)
    TROUPE_FUZZ_RESPONSE(leave_group)
    TROUPE_FUZZ_RESPONSE(sync_group)
    TROUPE_FUZZ_RESPONSE(describe_groups)
    TROUPE_FUZZ_RESPONSE(list_groups)
    TROUPE_FUZZ_RESPONSE(create_topics)
    TROUPE_FUZZ_RESPONSE(delete_topics)
    TROUPE_FUZZ_RESPONSE(init_producer_id)
    TROUPE_FUZZ_RESPONSE(offset_for_leader_epoch)
    TROUPE_FUZZ_RESPONSE(describe_configs)
    TROUPE_FUZZ_RESPONSE(alter_configs)
    TROUPE_FUZZ_RESPONSE(incremental_alter_configs)
    TROUPE_FUZZ_RESPONSE(describe_cluster)
    TROUPE_FUZZ_RESPONSE(consumer_group_heartbeat)
    TROUPE_FUZZ_RESPONSE(consumer_group_describe)
    TROUPE_FUZZ_RESPONSE(describe_acls)
    TROUPE_FUZZ_RESPONSE(create_acls)
    TROUPE_FUZZ_RESPONSE(delete_acls)
    TROUPE_FUZZ_RESPONSE(describe_user_scram_credentials)
    TROUPE_FUZZ_RESPONSE(alter_user_scram_credentials)
    TROUPE_FUZZ_RESPONSE(sasl_handshake)
    TROUPE_FUZZ_RESPONSE(sasl_authenticate)
    TROUPE_FUZZ_RESPONSE(delete_groups)
    TROUPE_FUZZ_RESPONSE(offset_delete)
    TROUPE_FUZZ_RESPONSE(delete_records)
    TROUPE_FUZZ_RESPONSE(describe_log_dirs)
    TROUPE_FUZZ_RESPONSE(create_partitions)
    TROUPE_FUZZ_RESPONSE(elect_leaders)
    TROUPE_FUZZ_RESPONSE(alter_partition_reassignments)
    TROUPE_FUZZ_RESPONSE(list_partition_reassignments)
  }
#undef TROUPE_FUZZ_RESPONSE
  __builtin_trap(); // supported_versions() lists only keys handled above
}

/// Every (key, version) the codec supports, in supported_versions() order:
/// the first input byte indexes it (make_seeds computes the same index).
const std::vector<std::pair<int16_t, int16_t>>& targets() {
  static const auto result = [] {
    std::vector<std::pair<int16_t, int16_t>> xs;
    for (const auto& api : supported_versions())
      for (auto v = api.min_version; v <= api.max_version; ++v)
        xs.emplace_back(api.api_key, v);
    return xs;
  }();
  return result;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As a stream of frames.
  size_t at = 0;
  while (at < size) {
    auto f = decode_frame(data + at, size - at, max_request_bytes);
    if (f.status != frame_status::complete)
      break;
    reader in{f.data, f.size};
    if (auto header = decode_request_header(in))
      decode_and_check(in, *header);
    at += f.consumed;
  }
  // As one request or response body of the version the first byte picks.
  if (size < 2)
    return 0;
  auto [key, version] = targets()[data[0] % targets().size()];
  auto body = data + 2;
  auto body_size = size - 2;
  if (data[1] & 1) {
    check_response(key, version, body, body_size);
  } else {
    reader in{body, body_size};
    decode_and_check(in, request_header{key, version, 0, {}});
  }
  if (data[1] & 2) {
    reader in{body, body_size};
    if (!decode_response_header(in, key, version) && in.error().empty())
      __builtin_trap();
  }
  return 0;
}
