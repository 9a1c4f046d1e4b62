#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "domain/log/compression.hpp"
#include "domain/log/legacy_records.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

using namespace troupe;

namespace {

using bytes = std::vector<uint8_t>;

bytes b(const std::string& s) {
  return bytes(s.begin(), s.end());
}

bytes hex(const std::string& h) {
  bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

// Kafka's layout, written out by hand; the CRCs are zlib's crc32 of the
// bytes from the magic to the end.
//   offset 5 | size 16 | crc 1fecd70a | magic 0 | attributes 0 |
//   key 1 "k" | value 1 "v"
const bytes golden_v0 = hex("0000000000000005"
                            "00000010"
                            "1fecd70a"
                            "00"
                            "00"
                            "00000001"
                            "6b"
                            "00000001"
                            "76");
//   offset 7 | size 25 | crc 1cff7dfc | magic 1 | attributes 0 |
//   timestamp 1700000000000 | key null | value 3 "abc"
const bytes golden_v1 = hex("0000000000000007"
                            "00000019"
                            "1cff7dfc"
                            "01"
                            "00"
                            "0000018bcfe56800"
                            "ffffffff"
                            "00000003"
                            "616263");

legacy_message msg(int64_t offset, int8_t magic, int64_t ts,
                   std::optional<bytes> key, std::optional<bytes> value) {
  legacy_message m;
  m.offset = offset;
  m.magic = magic;
  m.timestamp = magic == 0 ? -1 : ts;
  m.key = std::move(key);
  m.value = std::move(value);
  return m;
}

std::vector<legacy_message> three(int8_t magic, int64_t first_offset) {
  return {msg(first_offset, magic, 1000, b("a"), b("one")),
          msg(first_offset + 1, magic, 1001, std::nullopt, b("two")),
          msg(first_offset + 2, magic, 1002, b("c"), std::nullopt)};
}

void same_messages(const std::vector<legacy_message>& got,
                   const std::vector<legacy_message>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].offset == want[i].offset);
    CHECK(got[i].timestamp == want[i].timestamp);
    CHECK(got[i].key == want[i].key);
    CHECK(got[i].value == want[i].value);
  }
}

void fix_legacy_crc(bytes& m) {
  auto crc = legacy_crc32(m.data() + 16, m.size() - 16);
  for (int i = 0; i < 4; ++i)
    m[12 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
}

record rec(std::optional<bytes> key, std::optional<bytes> value, int64_t ts,
           std::vector<record_header> headers = {}) {
  return record{std::move(key), std::move(value), ts, std::move(headers)};
}

} // namespace

// -- the message layout ---------------------------------------------------------

TEST_CASE("a magic 0 message decodes with its offset, key, value and no "
          "timestamp") {
  auto set = decode_legacy(golden_v0.data(), golden_v0.size());
  REQUIRE(set.error == error_code::none);
  REQUIRE(set.messages.size() == 1);
  CHECK(set.messages[0].offset == 5);
  CHECK(set.messages[0].magic == 0);
  CHECK(set.messages[0].timestamp == -1);
  CHECK(set.messages[0].key == b("k"));
  CHECK(set.messages[0].value == b("v"));
  CHECK(set.codec == compression_codec::none);
}

TEST_CASE("a magic 1 message decodes with its CreateTime timestamp and a "
          "null key") {
  auto set = decode_legacy(golden_v1.data(), golden_v1.size());
  REQUIRE(set.error == error_code::none);
  REQUIRE(set.messages.size() == 1);
  CHECK(set.messages[0].offset == 7);
  CHECK(set.messages[0].timestamp == 1700000000000);
  CHECK_FALSE(set.messages[0].log_append_time);
  CHECK_FALSE(set.messages[0].key);
  CHECK(set.messages[0].value == b("abc"));
}

TEST_CASE("plain magic 0 and magic 1 messages encode to Kafka's bytes") {
  CHECK(encode_legacy(0, compression_codec::none,
                      {msg(5, 0, -1, b("k"), b("v"))})
        == golden_v0);
  CHECK(encode_legacy(1, compression_codec::none,
                      {msg(7, 1, 1700000000000, std::nullopt, b("abc"))})
        == golden_v1);
}

TEST_CASE("a message set of magic 0 and magic 1 messages back to back "
          "decodes in order") {
  auto set = golden_v0;
  set.insert(set.end(), golden_v1.begin(), golden_v1.end());
  auto out = decode_legacy(set.data(), set.size());
  REQUIRE(out.error == error_code::none);
  REQUIRE(out.messages.size() == 2);
  CHECK(out.messages[0].offset == 5);
  CHECK(out.messages[1].offset == 7);
}

TEST_CASE("a message cut short at the end of a set is dropped") {
  auto set = golden_v0;
  set.insert(set.end(), golden_v1.begin(), golden_v1.end() - 3);
  auto out = decode_legacy(set.data(), set.size());
  REQUIRE(out.error == error_code::none);
  REQUIRE(out.messages.size() == 1);
  CHECK(out.messages[0].offset == 5);
}

TEST_CASE("a LogAppendTime magic 1 message says so") {
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(0, 1, 5, b("k"), b("v"))}, true, 424242);
  CHECK(m[17] == 0x08);
  auto out = decode_legacy(m.data(), m.size());
  REQUIRE(out.messages.size() == 1);
  CHECK(out.messages[0].log_append_time);
  CHECK(out.messages[0].timestamp == 424242);
}

// -- refused input ------------------------------------------------------------------

TEST_CASE("a message with a wrong CRC is a corrupt message") {
  auto m = golden_v1;
  m.back() ^= 1;
  auto out = decode_legacy(m.data(), m.size());
  CHECK(out.error == error_code::corrupt_message);
  CHECK(out.messages.empty());
  m = golden_v0;
  m[12] ^= 0x80;
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a message size below the magic 0 overhead is a corrupt message") {
  auto m = golden_v0;
  m[11] = 13;
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a magic 1 message shorter than its overhead is a corrupt message") {
  auto m = golden_v0; // 16 bytes after the size: below magic 1's 22
  m[16] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a magic above 2 is a corrupt message") {
  auto m = golden_v0;
  m[16] = 3;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a key length past the end of the message is a corrupt message") {
  auto m = golden_v0;
  m[21] = 0x40; // key length 0x40000001
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
  m[18] = 0xff; // key length below -1
  m[19] = 0xff;
  m[20] = 0xff;
  m[21] = 0xfe;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a zstd wrapper in a magic 0 or 1 set is an invalid record") {
  auto m = golden_v1;
  m[17] = 4;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

TEST_CASE("a compressed wrapper with a null value is an invalid record") {
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(0, 1, 5, std::nullopt, std::nullopt)});
  m[17] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

TEST_CASE("a wrapper whose value does not decompress is a corrupt message") {
  auto m = golden_v1;
  m[17] = 1; // gzip of "abc"
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a compressed wrapper holding no messages is an invalid record") {
  auto empty = compress(compression_codec::gzip, nullptr, 0);
  REQUIRE(empty);
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(0, 1, 5, std::nullopt, *empty)});
  m[17] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

TEST_CASE("inner messages of another magic than the wrapper are an invalid "
          "record") {
  auto inner = golden_v0; // magic 0 inside a magic 1 wrapper
  auto value = compress(compression_codec::gzip, inner.data(), inner.size());
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(5, 1, 5, std::nullopt, *value)});
  m[17] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

TEST_CASE("compressed inner messages are an invalid record") {
  auto inner = encode_legacy(1, compression_codec::gzip, three(1, 0));
  auto value = compress(compression_codec::gzip, inner.data(), inner.size());
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(2, 1, 5, std::nullopt, *value)});
  m[17] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

TEST_CASE("an inner message with a wrong CRC is a corrupt message") {
  auto inner = encode_legacy(1, compression_codec::none, three(1, 0));
  inner.back() ^= 1;
  auto value = compress(compression_codec::gzip, inner.data(), inner.size());
  auto m = encode_legacy(1, compression_codec::none,
                         {msg(2, 1, 5, std::nullopt, *value)});
  m[17] = 1;
  fix_legacy_crc(m);
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::corrupt_message);
}

TEST_CASE("a magic 1 wrapper offset below its last inner offset is an "
          "invalid record") {
  auto m = encode_legacy(1, compression_codec::gzip, three(1, 0));
  // wrapper offset 2 -> 1, inner relative offsets stay 0..2
  m[7] = 1;
  CHECK(decode_legacy(m.data(), m.size()).error == error_code::invalid_record);
}

// -- compressed wrappers ----------------------------------------------------------------

TEST_CASE("compressed wrappers of gzip, snappy and lz4 open to their "
          "messages with absolute offsets") {
  for (auto codec : {compression_codec::gzip, compression_codec::snappy,
                     compression_codec::lz4})
    for (int8_t magic : {int8_t{0}, int8_t{1}}) {
      CAPTURE(static_cast<int>(codec), static_cast<int>(magic));
      auto want = three(magic, 100);
      auto set = encode_legacy(magic, codec, want);
      REQUIRE_FALSE(set.empty());
      CHECK((set[17] & 0x07) == static_cast<int>(codec));
      auto out = decode_legacy(set.data(), set.size());
      REQUIRE(out.error == error_code::none);
      CHECK(out.codec == codec);
      same_messages(out.messages, want);
    }
}

TEST_CASE("a magic 1 wrapper keeps inner offsets relative, the wrapper "
          "offset is the last absolute offset") {
  auto set = encode_legacy(1, compression_codec::gzip, three(1, 100));
  // wrapper offset
  CHECK(set[7] == 102);
  auto value_len_at = 12 + 4 + 1 + 1 + 8 + 4; // key null
  auto value = decompress(compression_codec::gzip, set.data() + value_len_at + 4,
                          set.size() - value_len_at - 4);
  REQUIRE(value);
  auto inner = decode_legacy(value->data(), value->size());
  REQUIRE(inner.messages.size() == 3);
  CHECK(inner.messages[0].offset == 0);
  CHECK(inner.messages[2].offset == 2);
}

TEST_CASE("a magic 1 wrapper with offset 0 from old librdkafka takes its "
          "inner offsets as they are") {
  auto set = encode_legacy(1, compression_codec::gzip, three(1, 0));
  set[7] = 0; // wrapper offset 2 -> 0
  auto out = decode_legacy(set.data(), set.size());
  REQUIRE(out.error == error_code::none);
  CHECK(out.messages[2].offset == 2);
}

TEST_CASE("a magic 0 wrapper keeps inner offsets absolute") {
  auto set = encode_legacy(0, compression_codec::gzip, three(0, 100));
  auto value_len_at = 12 + 4 + 1 + 1 + 4;
  auto value = decompress(compression_codec::gzip, set.data() + value_len_at + 4,
                          set.size() - value_len_at - 4);
  REQUIRE(value);
  auto inner = decode_legacy(value->data(), value->size());
  REQUIRE(inner.messages.size() == 3);
  CHECK(inner.messages[0].offset == 100);
}

TEST_CASE("a LogAppendTime wrapper gives its timestamp to every inner "
          "message") {
  auto set = encode_legacy(1, compression_codec::snappy, three(1, 0), true, 77);
  auto out = decode_legacy(set.data(), set.size());
  REQUIRE(out.messages.size() == 3);
  for (auto& m : out.messages) {
    CHECK(m.timestamp == 77);
    CHECK(m.log_append_time);
  }
}

TEST_CASE("a hand-built gzip wrapper of a magic 0 message opens") {
  // The inner set is golden_v0 (offset 5, "k", "v"); the wrapper value is
  // one gzip member written by hand: the 10-byte header (no name, mtime 0),
  // a stored deflate block, then CRC-32 and the length, little-endian.
  bytes value = hex("1f8b08000000000000ff"
                    "011c00e3ff");
  value.insert(value.end(), golden_v0.begin(), golden_v0.end());
  auto crc = legacy_crc32(golden_v0.data(), golden_v0.size());
  for (int i = 0; i < 4; ++i)
    value.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  for (uint32_t size = golden_v0.size(), i = 0; i < 4; ++i)
    value.push_back(static_cast<uint8_t>(size >> (8 * i)));
  // The deflate stored block header above: BFINAL=1, then LEN 28, NLEN.
  REQUIRE(golden_v0.size() == 28);
  auto m = encode_legacy(0, compression_codec::none,
                         {msg(5, 0, -1, std::nullopt, value)});
  m[17] = 1;
  fix_legacy_crc(m);
  auto out = decode_legacy(m.data(), m.size());
  REQUIRE(out.error == error_code::none);
  REQUIRE(out.messages.size() == 1);
  CHECK(out.messages[0].value == b("v"));
}

// -- the codecs ------------------------------------------------------------------------

TEST_CASE("xxh32 is the LZ4 frame's checksum") {
  // The LZ4 frame descriptor Kafka writes, FLG 0x60 BD 0x40, has header
  // checksum byte 0x82 (the well-known frame start 04 22 4d 18 60 40 82).
  uint8_t d[] = {0x60, 0x40};
  CHECK(((xxh32(d, 2) >> 8) & 0xff) == 0x82);
  CHECK(xxh32(nullptr, 0) == 0x02cc5d05u);
}

TEST_CASE("a magic 0 lz4 wrapper has Kafka's broken header checksum and "
          "magic 1 the correct one") {
  auto v0 = encode_legacy(0, compression_codec::lz4, three(0, 0));
  auto v1 = encode_legacy(1, compression_codec::lz4, three(1, 0));
  auto frame0 = v0.data() + 12 + 4 + 1 + 1 + 4 + 4;
  auto frame1 = v1.data() + 12 + 4 + 1 + 1 + 8 + 4 + 4;
  CHECK(frame0[6] == ((xxh32(frame0, 6) >> 8) & 0xff));
  CHECK(frame1[6] == 0x82);
  // A magic 1 reader checks it; a magic 0 reader ignores it (KAFKA-3160).
  std::string why;
  CHECK_FALSE(decompress(compression_codec::lz4, frame0, v0.size() - 26, &why,
                         lz4_header_checksum::correct));
  CHECK(decompress(compression_codec::lz4, frame1, v1.size() - 34, &why,
                   lz4_header_checksum::broken_magic0));
}

TEST_CASE("raw snappy without the xerial header decompresses") {
  auto framed = compress(compression_codec::snappy, golden_v1.data(),
                         golden_v1.size());
  REQUIRE(framed);
  REQUIRE(framed->size() > 20);
  CHECK((*framed)[0] == 0x82);
  // The first chunk's block, raw.
  bytes raw(framed->begin() + 20, framed->end());
  auto out = decompress(compression_codec::snappy, raw.data(), raw.size());
  REQUIRE(out);
  CHECK(*out == golden_v1);
}

TEST_CASE("each codec round-trips data larger than one block") {
  bytes big(300000);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<uint8_t>((i * 7) ^ (i >> 9));
  for (auto codec : {compression_codec::gzip, compression_codec::snappy,
                     compression_codec::lz4}) {
    auto c = compress(codec, big.data(), big.size());
    REQUIRE(c);
    auto d = decompress(codec, c->data(), c->size());
    REQUIRE(d);
    CHECK(*d == big);
    // cut short: refused, never a crash
    CHECK_FALSE(decompress(codec, c->data(), c->size() / 2));
  }
}

TEST_CASE("decompression stops at the size bound") {
  bytes zeros(1 << 20);
  auto c = compress(compression_codec::gzip, zeros.data(), zeros.size());
  std::string why;
  CHECK_FALSE(decompress(compression_codec::gzip, c->data(), c->size(), &why,
                         lz4_header_checksum::correct, 1000));
  CHECK(why == "decompressed data too large");
}

// -- up-conversion (Produce v0-v2) ------------------------------------------------------

TEST_CASE("a produced magic 1 set is up-converted to one v2 batch with its "
          "timestamps and count") {
  auto set = encode_legacy(1, compression_codec::none, three(1, 0));
  auto up = up_convert(set.data(), set.size());
  REQUIRE(up.error == error_code::none);
  CHECK(validate_batch(up.records.data(), up.records.size(), 1 << 20)
        == error_code::none);
  auto h = parse_header(up.records.data(), up.records.size());
  REQUIRE(h);
  CHECK(h->records_count == 3);
  CHECK(h->max_timestamp == 1002);
  CHECK(h->compression() == 0);
  auto records = decode_records(up.records.data(), up.records.size());
  REQUIRE(records);
  CHECK((*records)[0].timestamp == 1000);
  CHECK((*records)[1].key == std::nullopt);
  CHECK((*records)[2].value == std::nullopt);
  CHECK((*records)[2].offset == 2);
}

TEST_CASE("a produced magic 0 set is up-converted with no timestamps") {
  auto set = golden_v0;
  auto up = up_convert(set.data(), set.size());
  REQUIRE(up.error == error_code::none);
  auto records = decode_records(up.records.data(), up.records.size());
  REQUIRE(records);
  REQUIRE(records->size() == 1);
  CHECK((*records)[0].timestamp == -1);
  CHECK((*records)[0].key == b("k"));
}

TEST_CASE("a produced compressed set keeps its codec in the v2 batch") {
  for (auto codec : {compression_codec::gzip, compression_codec::snappy,
                     compression_codec::lz4}) {
    auto set = encode_legacy(1, codec, three(1, 0));
    auto up = up_convert(set.data(), set.size());
    REQUIRE(up.error == error_code::none);
    CHECK(validate_batch(up.records.data(), up.records.size(), 1 << 20)
          == error_code::none);
    auto h = parse_header(up.records.data(), up.records.size());
    CHECK(h->compression() == static_cast<int>(codec));
    CHECK(h->records_count == 3);
    auto records = decode_batch_records(up.records.data(), up.records.size());
    REQUIRE(records);
    CHECK((*records)[1].value == b("two"));
    CHECK((*records)[2].timestamp == 1002);
  }
}

TEST_CASE("a corrupt produced set is refused, not converted") {
  auto m = golden_v1;
  m[30] ^= 1;
  auto up = up_convert(m.data(), m.size());
  CHECK(up.error == error_code::corrupt_message);
  CHECK(up.records.empty());
}

// -- down-conversion (Fetch v0-v3) --------------------------------------------------------

namespace {

bytes log_of_two_batches(compression_codec codec) {
  auto first = encode_compressed_batch(
    codec, 10, 0,
    {rec(b("k1"), b("v1"), 5000, {{"h", b("x")}}),
     rec(std::nullopt, b("v2"), 5001)});
  auto second =
    encode_compressed_batch(codec, 12, 0, {rec(b("k3"), std::nullopt, 5002)});
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

} // namespace

TEST_CASE("v2 batches down-convert to magic 1 and back with the same "
          "offsets, keys, values and timestamps") {
  for (auto codec : {compression_codec::none, compression_codec::gzip,
                     compression_codec::snappy, compression_codec::lz4}) {
    CAPTURE(static_cast<int>(codec));
    auto log = log_of_two_batches(codec);
    auto down = down_convert(log.data(), log.size(), 1, 10);
    REQUIRE(down.error == error_code::none);
    CHECK((down.records[17] & 0x07) == static_cast<int>(codec));
    auto set = decode_legacy(down.records.data(), down.records.size());
    REQUIRE(set.error == error_code::none);
    std::vector<legacy_message> want = {
      msg(10, 1, 5000, b("k1"), b("v1")), msg(11, 1, 5001, std::nullopt, b("v2")),
      msg(12, 1, 5002, b("k3"), std::nullopt)};
    same_messages(set.messages, want);
    auto up = up_convert(down.records.data(), down.records.size());
    REQUIRE(up.error == error_code::none);
    auto back = decode_batch_records(up.records.data(), up.records.size());
    REQUIRE(back);
    REQUIRE(back->size() == 3);
    CHECK((*back)[0].key == b("k1"));
    CHECK((*back)[2].timestamp == 5002);
    CHECK((*back)[0].headers.empty());
  }
}

TEST_CASE("down-conversion to magic 0 keeps offsets, keys and values and "
          "drops timestamps") {
  auto log = log_of_two_batches(compression_codec::lz4);
  auto down = down_convert(log.data(), log.size(), 0, 10);
  REQUIRE(down.error == error_code::none);
  CHECK(down.records[16] == 0);
  auto set = decode_legacy(down.records.data(), down.records.size());
  REQUIRE(set.error == error_code::none);
  same_messages(set.messages, {msg(10, 0, -1, b("k1"), b("v1")),
                               msg(11, 0, -1, std::nullopt, b("v2")),
                               msg(12, 0, -1, b("k3"), std::nullopt)});
}

TEST_CASE("an uncompressed batch down-converts from the fetch offset, a "
          "compressed one whole") {
  auto plain = log_of_two_batches(compression_codec::none);
  auto down = down_convert(plain.data(), plain.size(), 1, 11);
  auto set = decode_legacy(down.records.data(), down.records.size());
  REQUIRE(set.messages.size() == 2);
  CHECK(set.messages[0].offset == 11);
  auto gz = log_of_two_batches(compression_codec::gzip);
  down = down_convert(gz.data(), gz.size(), 1, 11);
  set = decode_legacy(down.records.data(), down.records.size());
  REQUIRE(set.messages.size() == 3);
  CHECK(set.messages[0].offset == 10);
}

TEST_CASE("a LogAppendTime batch down-converts with the broker's timestamp") {
  auto batch = encode_batch(0, 0, {rec(b("k"), b("v"), 1), rec(b("k"), b("w"), 2)});
  set_log_append_time(batch.data(), batch.size(), 999);
  auto down = down_convert(batch.data(), batch.size(), 1, 0);
  auto set = decode_legacy(down.records.data(), down.records.size());
  REQUIRE(set.messages.size() == 2);
  CHECK(set.messages[0].timestamp == 999);
  CHECK(set.messages[1].log_append_time);
}

TEST_CASE("a zstd batch cannot be down-converted") {
  auto batch = encode_batch(0, 0, {rec(b("k"), b("v"), 1)});
  batch[22] |= 4; // attributes: zstd
  auto down = down_convert(batch.data(), batch.size(), 1, 0);
  CHECK(down.error == error_code::unsupported_compression_type);
}

TEST_CASE("control batches are skipped by down-conversion") {
  auto control = encode_batch(0, 0, {rec(b("\x00\x00\x00\x00"), b("m"), 1)});
  control[22] |= 0x30; // transactional control batch
  auto data = encode_batch(1, 0, {rec(b("k"), b("v"), 2)});
  control.insert(control.end(), data.begin(), data.end());
  auto down = down_convert(control.data(), control.size(), 1, 0);
  REQUIRE(down.error == error_code::none);
  auto set = decode_legacy(down.records.data(), down.records.size());
  REQUIRE(set.messages.size() == 1);
  CHECK(set.messages[0].offset == 1);
}

TEST_CASE("a batch cut short at the end of a read is dropped by "
          "down-conversion") {
  auto log = log_of_two_batches(compression_codec::none);
  log.resize(log.size() - 5);
  auto down = down_convert(log.data(), log.size(), 1, 0);
  REQUIRE(down.error == error_code::none);
  auto set = decode_legacy(down.records.data(), down.records.size());
  CHECK(set.messages.size() == 2);
}

TEST_CASE("whole down-converted messages are kept within a byte limit") {
  auto set = encode_legacy(1, compression_codec::none, three(1, 0));
  auto one = golden_v1.size() + 1; // each message here is 38 or so bytes
  (void)one;
  auto first = fitting_legacy_messages(set.data(), set.size(), 10, true);
  CHECK(first > 0);
  CHECK(fitting_legacy_messages(set.data(), set.size(), 10, false) == 0);
  CHECK(fitting_legacy_messages(set.data(), set.size(), 1 << 20, false)
        == set.size());
  auto two = fitting_legacy_messages(set.data(), set.size(),
                                     static_cast<int64_t>(set.size()) - 1, false);
  CHECK(two < set.size());
  CHECK(two > first);
}
