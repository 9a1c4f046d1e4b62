// libFuzzer target: the input is a byte stream from a Kafka client. Every
// frame in it goes through what the listener does (frame, header, body), and
// the input is also fed to every request decoder at every supported version.
// A body that decodes must encode, and that encoding must decode to the same
// bytes again.

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"

using namespace troupe::kafka;

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
  // As the body of every supported request.
  for (const auto& api : supported_versions()) {
    for (auto v = api.min_version; v <= api.max_version; ++v) {
      reader in{data, size};
      decode_and_check(in, request_header{api.api_key, v, 0, {}});
    }
  }
  return 0;
}
