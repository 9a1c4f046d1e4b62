#include <catch2/catch.hpp>

#include <climits>
#include <random>
#include <string>
#include <vector>

#include "domain/log/crc32c.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;

namespace {

using bytes = std::vector<uint8_t>;

bytes b(const std::string& s) {
  return bytes(s.begin(), s.end());
}

record rec(std::optional<bytes> key, std::optional<bytes> value,
           int64_t timestamp, std::vector<record_header> headers = {}) {
  return record{std::move(key), std::move(value), timestamp,
                std::move(headers)};
}

/// Recomputes the CRC after a test edits CRC-covered bytes on purpose, so
/// the check under test is the one that fires.
void fix_crc(bytes& batch) {
  uint32_t c = crc32c(batch.data() + 21, batch.size() - 21);
  for (int i = 0; i < 4; ++i)
    batch[17 + i] = static_cast<uint8_t>(c >> (24 - 8 * i));
}

void store_be32(bytes& batch, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    batch[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

bytes varint(int32_t v) {
  bytes out;
  put_varint(out, v);
  return out;
}

bytes varlong(int64_t v) {
  bytes out;
  put_varlong(out, v);
  return out;
}

constexpr size_t max_bytes = 1048588;

bytes sample_batch() {
  return encode_batch(0, 0,
                      {rec(b("k1"), b("value one"), 1000,
                           {{"trace", b("abc")}, {"empty", bytes{}}}),
                       rec(std::nullopt, b("v2"), 1001),
                       rec(b(""), std::nullopt, 999, {{"n", std::nullopt}})});
}

} // namespace

TEST_CASE("a v2 record batch has Kafka's 61-byte big-endian header and "
          "CRC-32C over attributes to the end") {
  auto batch = encode_batch(0x0102030405060708, 0x0A0B0C0D,
                            {rec(b("k"), std::nullopt, 1000, {{"h", b("x")}}),
                             rec(std::nullopt, b("v"), 1005)},
                            0x1112131415161718, 0x2122, 0x31323334);
  // Worked out by hand from DefaultRecordBatch/DefaultRecord; the CRC from
  // a bitwise CRC-32C of bytes 21..80.
  const bytes expected = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // @0  baseOffset
    0x00, 0x00, 0x00, 0x45,                         // @8  batchLength 69
    0x0A, 0x0B, 0x0C, 0x0D,                         // @12 partitionLeaderEpoch
    0x02,                                           // @16 magic
    0x5E, 0xF3, 0xFB, 0x57,                         // @17 crc
    0x00, 0x00,                                     // @21 attributes
    0x00, 0x00, 0x00, 0x01,                         // @23 lastOffsetDelta
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8, // @27 baseTimestamp 1000
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xED, // @35 maxTimestamp 1005
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, // @43 producerId
    0x21, 0x22,                                     // @51 producerEpoch
    0x31, 0x32, 0x33, 0x34,                         // @53 baseSequence
    0x00, 0x00, 0x00, 0x02,                         // @57 records count
    // record 0: length 11, attributes, tsDelta 0, offsetDelta 0,
    // key "k", value null, 1 header "h" = "x"
    0x16, 0x00, 0x00, 0x00, 0x02, 'k', 0x01, 0x02, 0x02, 'h', 0x02, 'x',
    // record 1: length 7, attributes, tsDelta 5, offsetDelta 1,
    // key null, value "v", no headers
    0x0E, 0x00, 0x0A, 0x02, 0x01, 0x02, 'v', 0x00};
  CHECK(batch == expected);

  auto h = parse_header(batch.data(), batch.size());
  REQUIRE(h);
  CHECK(h->base_offset == 0x0102030405060708);
  CHECK(h->batch_length == 69);
  CHECK(h->partition_leader_epoch == 0x0A0B0C0D);
  CHECK(h->magic == 2);
  CHECK(h->crc == 0x5EF3FB57);
  CHECK(h->attributes == 0);
  CHECK(h->last_offset_delta == 1);
  CHECK(h->base_timestamp == 1000);
  CHECK(h->max_timestamp == 1005);
  CHECK(h->producer_id == 0x1112131415161718);
  CHECK(h->producer_epoch == 0x2122);
  CHECK(h->base_sequence == 0x31323334);
  CHECK(h->records_count == 2);
  CHECK(h->size_in_bytes() == 81);
  CHECK(validate_batch(batch.data(), batch.size(), max_bytes)
        == error_code::none);
  CHECK_FALSE(parse_header(batch.data(), 60));
}

TEST_CASE("a producer's batch defaults to no producer id, epoch or sequence") {
  auto batch = encode_batch(0, -1, {rec(std::nullopt, b("v"), 5)});
  auto h = parse_header(batch.data(), batch.size());
  REQUIRE(h);
  CHECK(h->producer_id == -1);
  CHECK(h->producer_epoch == -1);
  CHECK(h->base_sequence == -1);
  CHECK(h->partition_leader_epoch == -1);
  CHECK(h->last_offset_delta == 0);
  CHECK(h->records_count == 1);
}

TEST_CASE("an empty record list is not a batch") {
  CHECK(encode_batch(0, 0, {}).empty());
}

TEST_CASE("varints are zigzag, seven bits a byte, low group first, as "
          "Kafka's ByteUtils") {
  CHECK(varint(0) == bytes{0x00});
  CHECK(varint(-1) == bytes{0x01});
  CHECK(varint(1) == bytes{0x02});
  CHECK(varint(63) == bytes{0x7E});
  CHECK(varint(-64) == bytes{0x7F});
  CHECK(varint(64) == bytes{0x80, 0x01});
  CHECK(varint(300) == bytes{0xD8, 0x04});
  CHECK(varint(INT32_MAX) == bytes{0xFE, 0xFF, 0xFF, 0xFF, 0x0F});
  CHECK(varint(INT32_MIN) == bytes{0xFF, 0xFF, 0xFF, 0xFF, 0x0F});
  CHECK(varlong(0) == bytes{0x00});
  CHECK(varlong(-1) == bytes{0x01});
  CHECK(varlong(300) == bytes{0xD8, 0x04});
  CHECK(varlong(INT64_MAX)
        == bytes{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01});
  CHECK(varlong(INT64_MIN)
        == bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01});
}

TEST_CASE("varints read back what was written and refuse overlong or "
          "truncated encodings") {
  for (int64_t v :
       {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{63}, int64_t{-64},
        int64_t{64}, int64_t{300}, int64_t{INT32_MIN}, int64_t{INT32_MAX}}) {
    auto enc = varint(static_cast<int32_t>(v));
    const uint8_t* p = enc.data();
    CHECK(get_varint(p, enc.data() + enc.size()) == v);
    CHECK(p == enc.data() + enc.size());
    p = enc.data();
    CHECK_FALSE(get_varint(p, enc.data() + enc.size() - 1));
    CHECK(p == enc.data()); // nothing consumed on failure
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, INT64_MIN, INT64_MAX,
                    int64_t{1} << 40, -(int64_t{1} << 40)}) {
    auto enc = varlong(v);
    const uint8_t* p = enc.data();
    CHECK(get_varlong(p, enc.data() + enc.size()) == v);
    p = enc.data();
    CHECK_FALSE(get_varlong(p, enc.data() + enc.size() - 1));
  }
  // Kafka throws past 5 (varint) or 10 (varlong) bytes.
  bytes six = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  const uint8_t* p = six.data();
  CHECK_FALSE(get_varint(p, six.data() + six.size()));
  bytes eleven(10, 0x80);
  eleven.push_back(0x00);
  p = eleven.data();
  CHECK_FALSE(get_varlong(p, eleven.data() + eleven.size()));
}

TEST_CASE("records round-trip with null and empty keys, values and headers") {
  std::vector<record> in = {
    rec(b("key"), b("value"), 1'700'000'000'000),
    rec(std::nullopt, std::nullopt, 1'700'000'000'005),
    rec(bytes{}, bytes{}, 1'699'999'999'000), // earlier: negative delta
    rec(std::nullopt, b("v"), 1'700'000'000'001,
        {{"a", b("1")}, {"", bytes{}}, {"null", std::nullopt}}),
    rec(bytes(300, 0x5A), bytes(20000, 0xA5), -1), // multi-byte lengths
  };
  auto batch = encode_batch(1000, 7, in);
  REQUIRE(validate_batch(batch.data(), batch.size(), max_bytes)
          == error_code::none);
  auto h = parse_header(batch.data(), batch.size());
  CHECK(h->base_timestamp == 1'700'000'000'000);
  CHECK(h->max_timestamp == 1'700'000'000'005);
  auto out = decode_records(batch.data(), batch.size());
  REQUIRE(out);
  REQUIRE(out->size() == in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("record " << i);
    CHECK((*out)[i].offset == 1000 + static_cast<int64_t>(i));
    CHECK((*out)[i].timestamp == in[i].timestamp);
    CHECK((*out)[i].key == in[i].key);
    CHECK((*out)[i].value == in[i].value);
    CHECK((*out)[i].headers == in[i].headers);
  }
}

TEST_CASE("the leader assigns base offset and leader epoch in place, outside "
          "the CRC") {
  auto batch = sample_batch();
  auto crc_before = parse_header(batch.data(), batch.size())->crc;
  set_base_offset(batch.data(), 123456789012);
  set_leader_epoch(batch.data(), 42);
  auto h = parse_header(batch.data(), batch.size());
  CHECK(h->base_offset == 123456789012);
  CHECK(h->partition_leader_epoch == 42);
  CHECK(h->crc == crc_before);
  CHECK(validate_batch(batch.data(), batch.size(), max_bytes)
        == error_code::none);
  auto out = decode_records(batch.data(), batch.size());
  REQUIRE(out);
  CHECK(out->front().offset == 123456789012);
  CHECK(out->back().offset == 123456789014);
}

TEST_CASE("flipping any byte the CRC covers makes the batch CORRUPT_MESSAGE") {
  auto batch = sample_batch();
  for (size_t i = 21; i < batch.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xFF}) {
      auto bad = batch;
      bad[i] ^= mask;
      INFO("byte " << i << " mask " << int{mask});
      REQUIRE(validate_batch(bad.data(), bad.size(), max_bytes)
              == error_code::corrupt_message);
    }
  }
  // And the CRC field itself, magic and batchLength.
  for (size_t i : {8, 9, 10, 11, 16, 17, 18, 19, 20}) {
    auto bad = batch;
    bad[i] ^= 0x01;
    INFO("byte " << i);
    CHECK(validate_batch(bad.data(), bad.size(), max_bytes)
          == error_code::corrupt_message);
  }
}

TEST_CASE("every truncation of a valid batch is rejected") {
  auto batch = sample_batch();
  for (size_t n = 0; n < batch.size(); ++n) {
    INFO("first " << n << " bytes");
    REQUIRE(validate_batch(batch.data(), n, max_bytes)
            == error_code::corrupt_message);
    REQUIRE_FALSE(decode_records(batch.data(), n));
  }
  // Extra bytes after the batch are no better.
  batch.push_back(0);
  CHECK(validate_batch(batch.data(), batch.size(), max_bytes)
        == error_code::corrupt_message);
}

TEST_CASE("a batch larger than max.message.bytes is MESSAGE_TOO_LARGE") {
  auto batch = encode_batch(0, 0, {rec(std::nullopt, bytes(2000, 1), 0)});
  CHECK(validate_batch(batch.data(), batch.size(), batch.size())
        == error_code::none);
  CHECK(validate_batch(batch.data(), batch.size(), batch.size() - 1)
        == error_code::message_too_large);
}

TEST_CASE("a batch with a bad magic, length, count or offset deltas is "
          "CORRUPT_MESSAGE even with a matching CRC") {
  auto batch = sample_batch(); // 3 records, lastOffsetDelta 2
  auto expect_corrupt = [&](auto&& edit) {
    auto bad = batch;
    edit(bad);
    fix_crc(bad);
    CHECK(validate_batch(bad.data(), bad.size(), max_bytes)
          == error_code::corrupt_message);
  };
  SECTION("magic 1") {
    expect_corrupt([](bytes& x) { x[16] = 1; });
  }
  SECTION("batchLength below the 49-byte minimum") {
    expect_corrupt([](bytes& x) { store_be32(x, 8, 48); });
  }
  SECTION("records count below lastOffsetDelta + 1") {
    expect_corrupt([](bytes& x) { store_be32(x, 57, 2); });
  }
  SECTION("records count above lastOffsetDelta + 1") {
    expect_corrupt([](bytes& x) { store_be32(x, 57, 4); });
  }
  SECTION("negative records count") {
    expect_corrupt([](bytes& x) { store_be32(x, 57, 0xFFFFFFFF); });
  }
  SECTION("lastOffsetDelta disagreeing with the records' offset deltas") {
    expect_corrupt([](bytes& x) {
      store_be32(x, 23, 3);
      store_be32(x, 57, 4);
    });
  }
  SECTION("an unknown compression codec") {
    expect_corrupt([](bytes& x) { x[22] = 5; });
  }
  SECTION("a record length that overruns the batch") {
    expect_corrupt([](bytes& x) { x[61] = 0x7E; });
  }
  SECTION("an offset delta out of sequence") {
    // Record 0: length, attributes, tsDelta (1 byte: 0), offsetDelta.
    expect_corrupt([](bytes& x) { x[64] = 0x02; });
  }
}

TEST_CASE("a compressed batch is checked by header and CRC only and its "
          "records are not decoded") {
  auto batch = sample_batch();
  batch[22] = 0x04; // zstd; the bytes after the header stay opaque
  fix_crc(batch);
  CHECK(validate_batch(batch.data(), batch.size(), max_bytes)
        == error_code::none);
  std::string reason;
  CHECK_FALSE(decode_records(batch.data(), batch.size(), &reason));
  CHECK(reason.find("compressed") != std::string::npos);
  batch[30] ^= 1;
  CHECK(validate_batch(batch.data(), batch.size(), max_bytes)
        == error_code::corrupt_message);
}

TEST_CASE("a huge declared record or header count is refused without "
          "allocating for it") {
  auto batch = encode_batch(0, 0, {rec(std::nullopt, b("v"), 0)});
  auto bad = batch;
  store_be32(bad, 57, INT32_MAX);
  store_be32(bad, 23, INT32_MAX - 1);
  fix_crc(bad);
  CHECK(validate_batch(bad.data(), bad.size(), max_bytes)
        == error_code::corrupt_message);
  CHECK_FALSE(decode_records(bad.data(), bad.size()));
  // Header count (last byte of the only record) set to a 5-byte INT32_MAX.
  bad = batch;
  bad.pop_back();
  for (uint8_t x : varint(INT32_MAX))
    bad.push_back(x);
  bad[61] = static_cast<uint8_t>(bad[61] + 8); // record length grows by 4
  store_be32(bad, 8, static_cast<uint32_t>(bad.size() - 12));
  fix_crc(bad);
  CHECK(validate_batch(bad.data(), bad.size(), max_bytes)
        == error_code::corrupt_message);
  CHECK_FALSE(decode_records(bad.data(), bad.size()));
}

TEST_CASE("hostile bytes never crash, overread or over-allocate in the batch "
          "parser") {
  std::mt19937_64 rng{20240601};
  auto base = sample_batch();
  auto big =
    encode_batch(5, 1,
                 {rec(b("a"), bytes(700, 3), 10, {{"x", b("y")}}),
                  rec(std::nullopt, b("b"), 11), rec(b("c"), std::nullopt, 9)});
  size_t valid = 0;
  auto exercise = [&](const bytes& in) {
    // Copy to an exactly sized heap buffer so ASan catches any overread.
    std::unique_ptr<uint8_t[]> buf{new uint8_t[in.size() + 1]};
    std::copy(in.begin(), in.end(), buf.get());
    parse_header(buf.get(), in.size());
    next_batch_size(buf.get(), in.size());
    if (validate_batch(buf.get(), in.size(), max_bytes) == error_code::none) {
      ++valid;
      std::string why;
      auto decoded = decode_records(buf.get(), in.size(), &why);
      INFO(why);
      bool compressed = (buf[22] & 7) != 0;
      REQUIRE(bool(decoded) != compressed); // valid and plain => decodable
    } else {
      decode_records(buf.get(), in.size());
    }
  };
  for (int i = 0; i < 10000; ++i) { // random bytes, random lengths
    bytes in(rng() % 200);
    for (auto& x : in)
      x = static_cast<uint8_t>(rng());
    if (in.size() >= 17 && rng() % 2)
      in[16] = 2; // get past the magic check more often
    exercise(in);
  }
  for (int i = 0; i < 30000; ++i) { // mutations of valid batches
    auto in = (i % 2) ? base : big;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 4) {
        case 0:
          in[rng() % in.size()] = static_cast<uint8_t>(rng());
          break;
        case 1:
          in[rng() % in.size()] ^= 1 << (rng() % 8);
          break;
        case 2:
          in.resize(rng() % (in.size() + 1));
          break;
        case 3:
          in.insert(in.begin() + rng() % (in.size() + 1),
                    static_cast<uint8_t>(rng()));
      }
      if (in.empty())
        break;
    }
    if (in.size() >= 21 && rng() % 4 != 0)
      fix_crc(in); // reach the record parser, not just the CRC check
    if (in.size() >= 12 && rng() % 2)
      store_be32(in, 8, static_cast<uint32_t>(in.size() - 12));
    if (in.size() >= 21 && rng() % 2)
      fix_crc(in);
    exercise(in);
  }
  CHECK(valid > 0); // some mutations (e.g. in baseOffset) stay valid
}
