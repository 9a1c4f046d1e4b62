#pragma once

// Shared by the Kafka codec tests: expected bytes built by hand from Kafka's
// JSON schemas (classic and compact encodings), and the codec's encode,
// frame and round-trip steps.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"

namespace kafka_test {

using troupe::wire::bytes;

// -- building expected bytes by hand ------------------------------------------

inline bytes i8(int8_t x) {
  return {static_cast<uint8_t>(x)};
}

inline bytes i16(int16_t x) {
  auto u = static_cast<uint16_t>(x);
  return {static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}

inline bytes i32(int32_t x) {
  auto u = static_cast<uint32_t>(x);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16),
          static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}

inline bytes i64(int64_t x) {
  auto u = static_cast<uint64_t>(x);
  bytes result;
  for (int shift = 56; shift >= 0; shift -= 8)
    result.push_back(static_cast<uint8_t>(u >> shift));
  return result;
}

inline bytes cat(std::initializer_list<bytes> parts) {
  bytes result;
  for (auto& part : parts)
    result.insert(result.end(), part.begin(), part.end());
  return result;
}

inline bytes b(const std::string& s) {
  return bytes(s.begin(), s.end());
}

/// A Kafka STRING: int16 length, then the bytes.
inline bytes str(const std::string& x) {
  return cat({i16(static_cast<int16_t>(x.size())), b(x)});
}

/// Kafka BYTES: int32 length, then the bytes.
inline bytes blob(const bytes& x) {
  return cat({i32(static_cast<int32_t>(x.size())), x});
}

/// An int32 size prefix, then the request or response.
inline bytes framed(const bytes& x) {
  return cat({i32(static_cast<int32_t>(x.size())), x});
}

/// An UNSIGNED_VARINT, 7 bits a byte, least significant first.
inline bytes uv(uint32_t x) {
  bytes result;
  for (; x >= 0x80; x >>= 7)
    result.push_back(static_cast<uint8_t>(x | 0x80));
  result.push_back(static_cast<uint8_t>(x));
  return result;
}

/// A COMPACT_STRING: varint length + 1, then the bytes.
inline bytes cstr(const std::string& x) {
  return cat({uv(static_cast<uint32_t>(x.size() + 1)), b(x)});
}

/// COMPACT_NULLABLE_STRING, COMPACT_ARRAY, COMPACT_BYTES null: length 0.
inline bytes cnull() {
  return {0};
}

/// COMPACT_BYTES: varint length + 1, then the bytes.
inline bytes cblob(const bytes& x) {
  return cat({uv(static_cast<uint32_t>(x.size() + 1)), x});
}

/// The count of a COMPACT_ARRAY of n elements.
inline bytes carr(uint32_t n) {
  return uv(n + 1);
}

/// An empty tagged-field section.
inline bytes no_tags() {
  return {0};
}

inline bytes uuid_bytes(const troupe::wire::uuid& x) {
  return cat(
    {i64(static_cast<int64_t>(x.high)), i64(static_cast<int64_t>(x.low))});
}

inline int16_t key_of(troupe::wire::api_key key) {
  return static_cast<int16_t>(key);
}

// -- encoding with the codec --------------------------------------------------

template <class T>
using encode_fn = bool (*)(troupe::wire::writer&, const T&, int16_t);

template <class T>
using decode_fn = std::optional<T> (*)(troupe::wire::reader&, int16_t);

template <class T>
bytes encode_body(encode_fn<T> encode, const T& x, int16_t version) {
  bytes buf;
  troupe::wire::writer out{buf};
  INFO("version " << version);
  REQUIRE(encode(out, x, version));
  return buf;
}

/// A whole request frame: size prefix, the header its version calls for,
/// body.
template <class T>
bytes request_frame(troupe::wire::api_key key, int16_t version,
                    encode_fn<T> encode, const T& x,
                    int32_t correlation_id = 1) {
  bytes buf;
  troupe::wire::writer out{buf};
  auto mark = out.begin_frame();
  REQUIRE(troupe::wire::encode_request_header(
    out, troupe::wire::request_header{key_of(key), version, correlation_id,
                                      "troupe-test"}));
  REQUIRE(encode(out, x, version));
  REQUIRE(out.end_frame(mark));
  return buf;
}

/// Encodes, decodes, and checks that the decoded value encodes to the same
/// bytes and that the decoder consumed every byte. Every field of the
/// version is on the wire, so equal bytes mean equal fields.
template <class T>
T round_trip(encode_fn<T> encode, decode_fn<T> decode, const T& x,
             int16_t version) {
  auto first = encode_body(encode, x, version);
  troupe::wire::reader in{first};
  auto y = decode(in, version);
  INFO("version " << version << ": " << in.error());
  REQUIRE(y);
  CHECK(in.remaining() == 0);
  CHECK(encode_body(encode, *y, version) == first);
  return *y;
}

/// Decodes `wire` as a whole body of `version`, requiring every byte used.
template <class T>
T decode_all(decode_fn<T> decode, const bytes& wire, int16_t version) {
  troupe::wire::reader in{wire};
  auto y = decode(in, version);
  INFO("version " << version << ": " << in.error());
  REQUIRE(y);
  CHECK(in.remaining() == 0);
  return *y;
}

/// Decodes a response body of any API; false (with the reader's reason)
/// when it does not decode.
inline bool decode_response(troupe::wire::api_key key, int16_t v,
                            troupe::wire::reader& in) {
  using troupe::wire::api_key;
#define TROUPE_TEST_RESPONSE(name)                                             \
  case api_key::name:                                                          \
    return troupe::wire::decode_##name##_response(in, v).has_value();
  switch (key) {
    TROUPE_TEST_RESPONSE(produce)
    TROUPE_TEST_RESPONSE(fetch)
    TROUPE_TEST_RESPONSE(list_offsets)
    TROUPE_TEST_RESPONSE(metadata)
    TROUPE_TEST_RESPONSE(offset_commit)
    TROUPE_TEST_RESPONSE(offset_fetch)
    TROUPE_TEST_RESPONSE(find_coordinator)
    TROUPE_TEST_RESPONSE(join_group)
    TROUPE_TEST_RESPONSE(heartbeat)
    TROUPE_TEST_RESPONSE(leave_group)
    TROUPE_TEST_RESPONSE(sync_group)
    TROUPE_TEST_RESPONSE(describe_groups)
    TROUPE_TEST_RESPONSE(list_groups)
    TROUPE_TEST_RESPONSE(api_versions)
    TROUPE_TEST_RESPONSE(create_topics)
    TROUPE_TEST_RESPONSE(delete_topics)
    TROUPE_TEST_RESPONSE(init_producer_id)
    TROUPE_TEST_RESPONSE(offset_for_leader_epoch)
    TROUPE_TEST_RESPONSE(describe_configs)
    TROUPE_TEST_RESPONSE(alter_configs)
    TROUPE_TEST_RESPONSE(incremental_alter_configs)
    TROUPE_TEST_RESPONSE(describe_cluster)
    TROUPE_TEST_RESPONSE(consumer_group_heartbeat)
    TROUPE_TEST_RESPONSE(consumer_group_describe)
    TROUPE_TEST_RESPONSE(describe_acls)
    TROUPE_TEST_RESPONSE(create_acls)
    TROUPE_TEST_RESPONSE(delete_acls)
    TROUPE_TEST_RESPONSE(describe_user_scram_credentials)
    TROUPE_TEST_RESPONSE(alter_user_scram_credentials)
    TROUPE_TEST_RESPONSE(sasl_handshake)
    TROUPE_TEST_RESPONSE(sasl_authenticate)
    TROUPE_TEST_RESPONSE(delete_groups)
    TROUPE_TEST_RESPONSE(offset_delete)
    TROUPE_TEST_RESPONSE(delete_records)
    TROUPE_TEST_RESPONSE(describe_log_dirs)
    TROUPE_TEST_RESPONSE(create_partitions)
    TROUPE_TEST_RESPONSE(elect_leaders)
    TROUPE_TEST_RESPONSE(alter_partition_reassignments)
    TROUPE_TEST_RESPONSE(list_partition_reassignments)
  }
#undef TROUPE_TEST_RESPONSE
  return false;
}

/// Runs a frame through everything a listener does with it: split, header,
/// body. Returns whether the request decoded; `error` gets the reason when
/// not.
inline bool decode_request_frame(const bytes& stream, std::string& error) {
  using namespace troupe::wire;
  auto f = decode_frame(stream.data(), stream.size(), 1 << 20);
  if (f.status != frame_status::complete) {
    error = f.status == frame_status::error ? f.error : "need more";
    return false;
  }
  reader in{f.data, f.size};
  auto header = decode_request_header(in);
  if (!header) {
    error = in.error();
    return false;
  }
  auto body = decode_request_body(in, *header);
  if (!body) {
    error = in.error();
    return false;
  }
  return true;
}

} // namespace kafka_test
