#include "domain/consumer_protocol.hpp"

#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace troupe;

namespace {

// -- building expected bytes by hand ------------------------------------------

bytes i16(int16_t x) {
  auto u = static_cast<uint16_t>(x);
  return {static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}

bytes i32(int32_t x) {
  auto u = static_cast<uint32_t>(x);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16),
          static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}

/// A Kafka STRING: int16 length, then the bytes.
bytes str(const std::string& x) {
  auto result = i16(static_cast<int16_t>(x.size()));
  result.insert(result.end(), x.begin(), x.end());
  return result;
}

bytes cat(std::initializer_list<bytes> parts) {
  bytes result;
  for (auto& part : parts)
    result.insert(result.end(), part.begin(), part.end());
  return result;
}

const bytes null_bytes = i32(-1);
const bytes null_string = i16(-1);

std::vector<topic_partition> tps(std::initializer_list<topic_partition> xs) {
  return xs;
}

std::vector<std::string> names(const std::vector<topic_partition>& xs) {
  std::vector<std::string> result;
  for (auto& x : xs)
    result.push_back(to_string(x));
  return result;
}

consumer_subscription full_subscription() {
  consumer_subscription x;
  x.topics = {"orders", "payments"};
  x.user_data = {0xde, 0xad, 0xbe, 0xef};
  x.owned_partitions = tps({{"orders", 0}, {"orders", 3}, {"payments", 1}});
  x.generation = 42;
  x.rack_id = "rack-a";
  return x;
}

void check_same(const consumer_subscription& x,
                const consumer_subscription& y) {
  CHECK(x.topics == y.topics);
  CHECK(x.user_data == y.user_data);
  CHECK(names(x.owned_partitions) == names(y.owned_partitions));
  CHECK(x.generation == y.generation);
  CHECK(x.rack_id == y.rack_id);
}

/// What survives encoding with `version`: newer fields take their defaults.
consumer_subscription as_of(consumer_subscription x, int16_t version) {
  if (version < 1)
    x.owned_partitions.clear();
  if (version < 2)
    x.generation = -1;
  if (version < 3)
    x.rack_id.clear();
  return x;
}

bytes prefix(const bytes& x, size_t n) {
  return bytes(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
}

} // namespace

// -- wire layout --------------------------------------------------------------

TEST_CASE("consumer protocol subscription v0 is topics then user data") {
  const bytes wire{
    0x00, 0x00,             // version 0
    0x00, 0x00, 0x00, 0x02, // 2 topics
    0x00, 0x02, 't',  '0',  // "t0"
    0x00, 0x02, 't',  '1',  // "t1"
    0x00, 0x00, 0x00, 0x03, // user data: 3 bytes
    0x01, 0x02, 0x03,
  };
  consumer_subscription x;
  x.topics = {"t0", "t1"};
  x.user_data = {1, 2, 3};
  CHECK(encode_subscription(x, 0) == wire);
  auto y = decode_subscription(wire);
  REQUIRE(y);
  check_same(*y, x);
}

TEST_CASE("consumer protocol subscription v1 groups owned partitions by "
          "topic") {
  const bytes wire{
    0x00, 0x01,             // version 1
    0x00, 0x00, 0x00, 0x01, // 1 topic
    0x00, 0x02, 't',  '0',  // "t0"
    0xff, 0xff, 0xff, 0xff, // user data: null
    0x00, 0x00, 0x00, 0x02, // owned: 2 topics
    0x00, 0x02, 't',  '0',  //   "t0"
    0x00, 0x00, 0x00, 0x02, //   2 partitions
    0x00, 0x00, 0x00, 0x00, //   0
    0x00, 0x00, 0x00, 0x01, //   1
    0x00, 0x02, 't',  '1',  //   "t1"
    0x00, 0x00, 0x00, 0x01, //   1 partition
    0x00, 0x00, 0x00, 0x02, //   2
  };
  consumer_subscription x;
  x.topics = {"t0"};
  x.owned_partitions = tps({{"t0", 0}, {"t1", 2}, {"t0", 1}});
  CHECK(encode_subscription(x) == wire);
  auto y = decode_subscription(wire);
  REQUIRE(y);
  CHECK(names(y->owned_partitions)
        == std::vector<std::string>{"t0-0", "t0-1", "t1-2"});
  CHECK(y->user_data.empty());
  CHECK(y->generation == -1);
}

TEST_CASE("consumer protocol subscription v2 appends the generation and v3 "
          "the rack id") {
  consumer_subscription x;
  x.topics = {"t"};
  x.generation = 7;
  x.rack_id = "r1";
  auto v1 = cat({i16(1), i32(1), str("t"), null_bytes, i32(0)});
  auto v2 = cat({i16(2), i32(1), str("t"), null_bytes, i32(0), i32(7)});
  auto v3 =
    cat({i16(3), i32(1), str("t"), null_bytes, i32(0), i32(7), str("r1")});
  CHECK(encode_subscription(x, 1) == v1);
  CHECK(encode_subscription(x, 2) == v2);
  CHECK(encode_subscription(x, 3) == v3);
  x.rack_id.clear();
  CHECK(encode_subscription(x, 3)
        == cat(
          {i16(3), i32(1), str("t"), null_bytes, i32(0), i32(7), null_string}));
  auto y = decode_subscription(v3);
  REQUIRE(y);
  CHECK(y->generation == 7);
  CHECK(y->rack_id == "r1");
}

TEST_CASE("consumer protocol assignment is partitions by topic then user "
          "data") {
  const bytes wire{
    0x00, 0x01,             // version 1
    0x00, 0x00, 0x00, 0x01, // 1 topic
    0x00, 0x01, 'a',        // "a"
    0x00, 0x00, 0x00, 0x02, // 2 partitions
    0x00, 0x00, 0x00, 0x04, // 4
    0x00, 0x00, 0x00, 0x09, // 9
    0x00, 0x00, 0x00, 0x01, // user data: 1 byte
    0x2a,
  };
  consumer_assignment x;
  x.partitions = tps({{"a", 4}, {"a", 9}});
  x.user_data = {42};
  CHECK(encode_assignment(x) == wire);
  auto y = decode_assignment(wire);
  REQUIRE(y);
  CHECK(names(y->partitions) == std::vector<std::string>{"a-4", "a-9"});
  CHECK(y->user_data == bytes{42});
  // Versions 0..3 share the layout; only the version field differs.
  CHECK(encode_assignment(x, 0)
        == cat({i16(0), bytes(wire.begin() + 2, wire.end())}));
}

// -- round trips --------------------------------------------------------------

TEST_CASE("consumer protocol subscription round trips in every version") {
  auto x = full_subscription();
  for (int16_t version = 0; version <= 3; ++version) {
    INFO("version " << version);
    auto wire = encode_subscription(x, version);
    CHECK(i16(version) == prefix(wire, 2));
    auto y = decode_subscription(wire);
    REQUIRE(y);
    check_same(*y, as_of(x, version));
  }
}

TEST_CASE("consumer protocol assignment round trips in every version") {
  consumer_assignment x;
  x.partitions = tps({{"a", 1}, {"a", 0}, {"b", 5}});
  x.user_data = {1, 2};
  for (int16_t version = 0; version <= 3; ++version) {
    auto y = decode_assignment(encode_assignment(x, version));
    REQUIRE(y);
    CHECK(names(y->partitions) == names(x.partitions));
    CHECK(y->user_data == x.user_data);
  }
  auto empty = decode_assignment(encode_assignment({}));
  REQUIRE(empty);
  CHECK(empty->partitions.empty());
  CHECK(empty->user_data.empty());
}

TEST_CASE("consumer protocol reads newer versions with the newest schema it "
          "knows") {
  // ConsumerProtocol parses unknown newer versions with its current format:
  // new versions only append fields, which are ignored here.
  auto wire = encode_subscription(full_subscription(), 3);
  wire[0] = 0x00;
  wire[1] = 0x09;
  auto extra = cat({wire, i32(123), str("future field")});
  auto y = decode_subscription(extra);
  REQUIRE(y);
  check_same(*y, full_subscription());

  auto assignment = cat({i16(5), i32(0), null_bytes, i32(77)});
  auto z = decode_assignment(assignment);
  REQUIRE(z);
  CHECK(z->partitions.empty());
}

TEST_CASE("consumer protocol ignores trailing bytes") {
  auto wire = cat({encode_subscription(full_subscription(), 0), bytes{1, 2}});
  auto y = decode_subscription(wire);
  REQUIRE(y);
  check_same(*y, as_of(full_subscription(), 0));
}

// -- malformed input ----------------------------------------------------------

TEST_CASE("consumer protocol rejects negative versions") {
  auto wire = encode_subscription(full_subscription(), 1);
  wire[0] = 0xff;
  wire[1] = 0xff;
  CHECK_FALSE(decode_subscription(wire));
  CHECK_FALSE(decode_assignment(cat({i16(-1), i32(0), null_bytes})));
}

TEST_CASE("consumer protocol rejects every truncated encoding") {
  for (int16_t version = 0; version <= 3; ++version) {
    auto wire = encode_subscription(full_subscription(), version);
    for (size_t n = 0; n < wire.size(); ++n) {
      INFO("version " << version << ", " << n << " of " << wire.size());
      CHECK_FALSE(decode_subscription(prefix(wire, n)));
    }
  }
  consumer_assignment x;
  x.partitions = tps({{"a", 1}, {"b", 2}});
  x.user_data = {9, 9, 9};
  auto wire = encode_assignment(x);
  for (size_t n = 0; n < wire.size(); ++n) {
    INFO(n << " of " << wire.size());
    CHECK_FALSE(decode_assignment(prefix(wire, n)));
  }
}

TEST_CASE("consumer protocol rejects negative lengths other than null") {
  auto head = cat({i16(3), i32(1), str("t")});
  auto tail = cat({i32(0), i32(1), null_string});
  // Null user data and rack id (-1) are fine.
  CHECK(decode_subscription(cat({head, null_bytes, tail})));
  CHECK_FALSE(decode_subscription(cat({head, i32(-2), tail})));
  CHECK_FALSE(
    decode_subscription(cat({head, null_bytes, i32(0), i32(1), i16(-2)})));
  // Topics, topic names and partition arrays are not nullable.
  CHECK_FALSE(decode_subscription(cat({i16(0), i32(-1), null_bytes})));
  CHECK_FALSE(decode_subscription(cat({i16(0), i32(1), i16(-1), null_bytes})));
  CHECK_FALSE(decode_subscription(cat({i16(1), i32(0), null_bytes, i32(-1)})));
  CHECK_FALSE(
    decode_assignment(cat({i16(0), i32(1), str("t"), i32(-1), null_bytes})));
  CHECK_FALSE(decode_assignment(cat({i16(0), i32(0), i32(-5)})));
}

TEST_CASE("consumer protocol rejects counts the remaining bytes cannot "
          "hold") {
  CHECK_FALSE(decode_subscription(cat({i16(0), i32(0x7fffffff), str("t")})));
  CHECK_FALSE(decode_assignment(
    cat({i16(0), i32(1), str("t"), i32(1000000), i32(0), null_bytes})));
  CHECK_FALSE(decode_assignment(cat({i16(0), i32(0x7fffffff), null_bytes})));
  CHECK_FALSE(
    decode_subscription(cat({i16(0), i32(0), i32(0x7fffffff), bytes(16, 0)})));
}

TEST_CASE("consumer protocol rejects topic names past Kafka's 249 byte limit "
          "in partition lists") {
  // Each decoded partition copies its topic name; the limit bounds that
  // copying to what a real topic can need.
  auto ok = cat(
    {i16(0), i32(1), str(std::string(249, 'x')), i32(1), i32(0), null_bytes});
  CHECK(decode_assignment(ok));
  auto too_long = cat(
    {i16(0), i32(1), str(std::string(250, 'x')), i32(1), i32(0), null_bytes});
  CHECK_FALSE(decode_assignment(too_long));
}

TEST_CASE("consumer protocol decoders survive random and mutated bytes") {
  std::mt19937 rng{20240601};
  std::vector<bytes> seeds{
    encode_subscription(full_subscription(), 0),
    encode_subscription(full_subscription(), 1),
    encode_subscription(full_subscription(), 3),
    encode_assignment({tps({{"a", 1}, {"b", 2}}), {1}}),
    encode_sticky_user_data(tps({{"a", 1}}), 3),
  };
  auto byte = [&] { return static_cast<uint8_t>(rng()); };
  for (int i = 0; i < 20000; ++i) {
    bytes buf;
    if (i % 2 == 0) {
      buf.resize(rng() % 64);
      for (auto& b : buf)
        b = rng() % 4 == 0 ? 0xff : byte() % 8; // small counts, some -1s
    } else {
      buf = seeds[rng() % seeds.size()];
      for (int edits = 1 + rng() % 3; edits > 0; --edits)
        buf[rng() % buf.size()] = byte();
      buf.resize(rng() % (buf.size() + 1));
    }
    // Under ASan/UBSan any out-of-bounds read or overflow fails here.
    auto s = decode_subscription(buf);
    auto a = decode_assignment(buf);
    auto u = decode_sticky_user_data(buf);
    auto c = decode_cooperative_user_data(buf);
    if (s)
      CHECK(decode_subscription(encode_subscription(*s, 3)));
    if (a)
      CHECK(decode_assignment(encode_assignment(*a)));
    if (u)
      CHECK(decode_sticky_user_data(
        encode_sticky_user_data(u->owned, u->generation)));
    CHECK(c.has_value() == (buf.size() >= 4));
  }
}

// -- assignor user data -------------------------------------------------------

TEST_CASE("sticky assignor user data v1 is the previous assignment and its "
          "generation") {
  auto wire = cat({i32(2), str("t0"), i32(2), i32(0), i32(2), str("t1"), i32(1),
                   i32(5), i32(9)});
  CHECK(encode_sticky_user_data(tps({{"t0", 0}, {"t1", 5}, {"t0", 2}}), 9)
        == wire);
  auto x = decode_sticky_user_data(wire);
  REQUIRE(x);
  CHECK(names(x->owned) == std::vector<std::string>{"t0-0", "t0-2", "t1-5"});
  CHECK(x->generation == 9);
}

TEST_CASE("sticky assignor user data v0 has no generation") {
  // Kafka's StickyAssignor falls back to STICKY_ASSIGNOR_USER_DATA_V0 and
  // DEFAULT_GENERATION when the V1 read fails.
  auto wire = cat({i32(1), str("t0"), i32(1), i32(3)});
  auto x = decode_sticky_user_data(wire);
  REQUIRE(x);
  CHECK(names(x->owned) == std::vector<std::string>{"t0-3"});
  CHECK(x->generation == -1);
}

TEST_CASE("sticky assignor user data truncated inside the assignment is "
          "rejected") {
  auto wire = encode_sticky_user_data(tps({{"t0", 0}, {"t1", 1}}), 4);
  auto assignment_size = wire.size() - 4;
  for (size_t n = 0; n < wire.size(); ++n) {
    INFO(n << " of " << wire.size());
    auto x = decode_sticky_user_data(prefix(wire, n));
    // Cut in the generation: read as V0, whose generation is unknown.
    CHECK(x.has_value() == (n >= assignment_size));
    if (x)
      CHECK(x->generation == -1);
  }
  CHECK_FALSE(decode_sticky_user_data(cat({i32(-1), i32(0)})));
}

TEST_CASE("cooperative sticky user data is one int32 generation") {
  CHECK(encode_cooperative_user_data(5) == bytes{0, 0, 0, 5});
  CHECK(encode_cooperative_user_data(-1) == bytes{0xff, 0xff, 0xff, 0xff});
  CHECK(decode_cooperative_user_data(bytes{0, 0, 1, 0}) == 256);
  CHECK(decode_cooperative_user_data(bytes{0x80, 0, 0, 0})
        == std::numeric_limits<int32_t>::min());
  CHECK_FALSE(decode_cooperative_user_data(bytes{0, 0, 1}));
  CHECK_FALSE(decode_cooperative_user_data(bytes{}));
}
