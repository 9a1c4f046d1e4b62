// The flexible versions of the Kafka protocol (KIP-482), byte for byte:
// unsigned varints, compact strings, bytes and arrays, UUIDs, tagged fields,
// request header v2 and response header v1, in frames assembled by hand from
// Kafka's JSON schemas (clients/src/main/resources/common/message/*.json).

#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

constexpr int32_t omitted = std::numeric_limits<int32_t>::min();

/// Splits a frame into its header and body as the listener does.
struct split_request {
  request_header header;
  bytes body;
};

split_request split(const bytes& wire) {
  auto f = decode_frame(wire.data(), wire.size(), 1 << 20);
  REQUIRE(f.status == frame_status::complete);
  reader in{f.data, f.size};
  auto header = decode_request_header(in);
  INFO(in.error());
  REQUIRE(header);
  return {*header, bytes(in.current(), in.current() + in.remaining())};
}

} // namespace

// -- primitives ---------------------------------------------------------------

TEST_CASE("unsigned varints are Kafka's: 7 bits a byte, at most 5 bytes",
          "[kafka]") {
  for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 0xffffffffu}) {
    bytes buf;
    writer out{buf};
    out.unsigned_varint(v);
    CHECK(buf == uv(v));
    reader in{buf};
    uint32_t x = 0;
    REQUIRE(in.unsigned_varint(x));
    CHECK(x == v);
    CHECK(in.remaining() == 0);
  }
  CHECK(uv(300) == bytes{0xac, 0x02});
  bytes overlong(6, 0x80);
  reader bad{overlong};
  uint32_t x = 0;
  CHECK_FALSE(bad.unsigned_varint(x));
  CHECK(bad.error() == "malformed unsigned varint at byte 0");
  bytes cut{0x80};
  reader short_in{cut};
  CHECK_FALSE(short_in.unsigned_varint(x));
}

TEST_CASE("compact strings, bytes and arrays carry length + 1, and 0 is "
          "null",
          "[kafka]") {
  bytes buf;
  writer out{buf};
  out.compact_string("abc");
  out.compact_nullable_string(std::nullopt);
  out.compact_nullable_string(std::string{});
  out.compact_bytes(bytes{1, 2});
  out.compact_nullable_bytes(std::nullopt);
  out.compact_array_size(3);
  out.compact_null_array();
  REQUIRE(out.ok());
  CHECK(buf
        == cat({cstr("abc"), cnull(), cstr(""), cblob({1, 2}), cnull(), carr(3),
                cnull()}));
  reader in{buf};
  std::string s;
  std::optional<std::string> ns{"x"};
  std::optional<std::string> empty;
  bytes blob_value;
  std::optional<bytes> null_blob{bytes{9}};
  size_t n = 0;
  std::optional<size_t> null_n{7};
  CHECK(in.compact_string(s));
  CHECK(s == "abc");
  CHECK(in.compact_nullable_string(ns));
  CHECK_FALSE(ns);
  CHECK(in.compact_nullable_string(empty));
  CHECK(empty == "");
  CHECK(in.compact_bytes(blob_value));
  CHECK(blob_value == bytes{1, 2});
  CHECK(in.compact_nullable_bytes(null_blob));
  CHECK_FALSE(null_blob);
  CHECK(in.compact_array_size(n, 0));
  CHECK(n == 3);
  CHECK(in.compact_nullable_array_size(null_n, 1));
  CHECK_FALSE(null_n);
  CHECK(in.remaining() == 0);
}

TEST_CASE("compact fields refuse null where not nullable, lengths past the "
          "frame and strings over 32767 bytes",
          "[kafka]") {
  SECTION("null for a non-nullable compact string") {
    auto wire = cnull();
    reader in{wire};
    std::string s;
    CHECK_FALSE(in.compact_string(s));
    CHECK(in.error() == "null string at byte 1");
  }
  SECTION("a compact string longer than the frame") {
    auto wire = cat({uv(101), b("abc")});
    reader in{wire};
    std::string s;
    CHECK_FALSE(in.compact_string(s));
    CHECK(in.error()
          == "string length 100 exceeds the remaining 3 bytes at byte 1");
  }
  SECTION("a compact string over Kafka's 32767 bytes") {
    auto wire = cat({uv(32769), bytes(32768, 'x')});
    reader in{wire};
    std::string s;
    CHECK_FALSE(in.compact_string(s));
    CHECK(in.error().find("string length 32768 exceeds 32767") == 0);
    bytes out_buf;
    writer out{out_buf};
    out.compact_string(std::string(32768, 'x'));
    CHECK(out.error() == "string longer than 32767 bytes");
  }
  SECTION("a compact array count the remaining bytes cannot hold") {
    auto wire = cat({carr(4), bytes(7, 0)});
    reader in{wire};
    size_t n = 0;
    CHECK_FALSE(in.compact_array_size(n, 2));
    CHECK(in.error()
          == "array length 4 exceeds the remaining 7 bytes at byte 1");
  }
  SECTION("a compact length of 2^32 - 1 is refused, not allocated") {
    auto wire = uv(0xffffffffu);
    reader in{wire};
    bytes x;
    CHECK_FALSE(in.compact_bytes(x));
    CHECK(in.error().find("bytes length 4294967294 exceeds 2147483647") == 0);
  }
}

TEST_CASE("UUIDs are 16 bytes, most significant half first, and print as "
          "Kafka's URL-safe base64",
          "[kafka]") {
  uuid id{0x0123456789abcdefull, 0xfedcba9876543210ull};
  bytes buf;
  writer out{buf};
  out.uuid(id);
  CHECK(buf
        == bytes{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc,
                 0xba, 0x98, 0x76, 0x54, 0x32, 0x10});
  reader in{buf};
  uuid back;
  REQUIRE(in.uuid(back));
  CHECK(back == id);
  // Kafka's Uuid.ZERO_UUID and Uuid.METADATA_TOPIC_ID (0, 1).
  CHECK(to_string(uuid{}) == "AAAAAAAAAAAAAAAAAAAAAA");
  CHECK(to_string(uuid{0, 1}) == "AAAAAAAAAAAAAAAAAAAAAQ");
  CHECK(to_string(id) == "ASNFZ4mrze_-3LqYdlQyEA");
  CHECK(uuid_from_string("ASNFZ4mrze_-3LqYdlQyEA") == id);
  CHECK(uuid_from_string("AAAAAAAAAAAAAAAAAAAAAQ") == uuid{0, 1});
  CHECK_FALSE(uuid_from_string("AAAAAAAAAAAAAAAAAAAAAB")); // stray low bits
  CHECK_FALSE(uuid_from_string("AAAAAAAAAAAAAAAAAAAAA"));
  CHECK_FALSE(uuid_from_string("AAAAAAAAAAAAAAAAAAAAA+"));
  CHECK(uuid{}.is_zero());
  CHECK_FALSE(id.is_zero());
}

// -- headers ------------------------------------------------------------------

TEST_CASE("request header v2 keeps the int16 client id and adds tagged "
          "fields, skipping unknown ones",
          "[kafka]") {
  bytes buf;
  writer out{buf};
  REQUIRE(encode_request_header(out, {11, 9, 5, std::string{"consumer-1"}}));
  CHECK(buf == cat({i16(11), i16(9), i32(5), str("consumer-1"), no_tags()}));
  // An unknown header tag (Kafka has none for clients yet) is skipped.
  auto wire = cat({i16(11), i16(9), i32(5), i16(-1), uv(1), uv(3), uv(2),
                   bytes{0xaa, 0xbb}, b("body")});
  reader in{wire};
  auto h = decode_request_header(in);
  INFO(in.error());
  REQUIRE(h);
  CHECK(h->correlation_id == 5);
  CHECK_FALSE(h->client_id);
  CHECK(in.remaining() == 4);
  // JoinGroup v5 is not flexible: header v1, nothing after the client id.
  bytes v1;
  writer w1{v1};
  REQUIRE(encode_request_header(w1, {11, 5, 5, std::string{"c"}}));
  CHECK(v1 == cat({i16(11), i16(5), i32(5), str("c")}));
}

TEST_CASE("response header v1 is the correlation id and tagged fields",
          "[kafka]") {
  bytes buf;
  writer out{buf};
  REQUIRE(encode_response_header(out, {42}, key_of(api_key::fetch), 12));
  CHECK(buf == cat({i32(42), no_tags()}));
  auto wire = cat({i32(42), uv(1), uv(0), uv(1), i8(7)});
  reader in{wire};
  auto h = decode_response_header(in, key_of(api_key::fetch), 12);
  REQUIRE(h);
  CHECK(h->correlation_id == 42);
  CHECK(in.remaining() == 0);
  bytes v0;
  writer w0{v0};
  REQUIRE(encode_response_header(w0, {42}, key_of(api_key::fetch), 11));
  CHECK(v0 == i32(42));
}

// -- requests -----------------------------------------------------------------

TEST_CASE("JoinGroup v9 request is compact, with instance id and reason, "
          "byte for byte",
          "[kafka]") {
  auto body = cat({cstr("payments"), i32(45000), i32(300000), cstr(""), cnull(),
                   cstr("consumer"), carr(2), cstr("range"), cblob({0, 1}),
                   no_tags(), cstr("cooperative-sticky"), cblob({}), no_tags(),
                   cstr("rejoin"), no_tags()});
  auto wire =
    framed(cat({i16(11), i16(9), i32(5), str("consumer-1"), no_tags(), body}));
  auto [header, rest] = split(wire);
  CHECK(header.api_version == 9);
  CHECK(header.client_id == "consumer-1");
  auto x = decode_all(decode_join_group_request, rest, 9);
  CHECK(x.group_id == "payments");
  CHECK(x.session_timeout_ms == 45000);
  CHECK(x.rebalance_timeout_ms == 300000);
  CHECK(x.member_id.empty());
  CHECK_FALSE(x.group_instance_id);
  CHECK(x.protocol_type == "consumer");
  REQUIRE(x.protocols.size() == 2);
  CHECK(x.protocols[0].metadata == bytes{0, 1});
  CHECK(x.protocols[1].name == "cooperative-sticky");
  CHECK(x.reason == "rejoin");
  CHECK(request_frame(api_key::join_group, 9, encode_join_group_request, x, 5)
        == framed(
          cat({i16(11), i16(9), i32(5), str("troupe-test"), no_tags(), body})));
}

TEST_CASE("Fetch v13 request names topics by id, with session, epochs and "
          "rack, byte for byte",
          "[kafka]") {
  uuid topic{0x1111, 0x2222};
  uuid gone{0x3333, 0x4444};
  auto body = cat({i32(-1),
                   i32(500),
                   i32(1),
                   i32(52428800),
                   i8(1),
                   i32(77),
                   i32(3),
                   carr(1),
                   uuid_bytes(topic),
                   carr(1),
                   i32(0),
                   i32(4),
                   i64(100),
                   i32(3),
                   i64(-1),
                   i32(1048576),
                   no_tags(),
                   no_tags(),
                   carr(1),
                   uuid_bytes(gone),
                   carr(2),
                   i32(1),
                   i32(2),
                   no_tags(),
                   cstr("rack-a"),
                   no_tags()});
  auto x = decode_all(decode_fetch_request, body, 13);
  CHECK(x.replica_id == -1);
  CHECK(x.max_wait_ms == 500);
  CHECK(x.isolation_level == 1);
  CHECK(x.session_id == 77);
  CHECK(x.session_epoch == 3);
  REQUIRE(x.topics.size() == 1);
  CHECK(x.topics[0].topic_id == topic);
  CHECK(x.topics[0].topic.empty()); // names are gone from v13
  auto& p = x.topics[0].partitions.at(0);
  CHECK(p.current_leader_epoch == 4);
  CHECK(p.fetch_offset == 100);
  CHECK(p.last_fetched_epoch == 3);
  CHECK(p.partition_max_bytes == 1048576);
  CHECK_FALSE(p.replica_directory_id);
  REQUIRE(x.forgotten_topics_data.size() == 1);
  CHECK(x.forgotten_topics_data[0].topic_id == gone);
  CHECK(x.forgotten_topics_data[0].partitions == std::vector<int32_t>{1, 2});
  CHECK(x.rack_id == "rack-a");
  CHECK_FALSE(x.cluster_id);
  CHECK(encode_body(encode_fetch_request, x, 13) == body);
  // v12 has the same layout with topic names instead of ids.
  x.topics[0].topic = "orders";
  x.forgotten_topics_data[0].topic = "old";
  auto v12 = encode_body(encode_fetch_request, x, 12);
  CHECK(v12.size() == body.size() - 16 + 7 - 16 + 4);
}

TEST_CASE("Fetch v15+ request writes its known tags in ascending order",
          "[kafka]") {
  fetch_request x;
  x.replica_state = fetch_replica_state{2, 9};
  x.cluster_id = "c1";
  fetch_topic t;
  t.topic_id = uuid{0, 5};
  fetch_partition p;
  p.replica_directory_id = uuid{0, 6};
  t.partitions = {p};
  x.topics = {t};
  auto body = encode_body(encode_fetch_request, x, 17);
  // No replica id from v15: it moved into the ReplicaState tag.
  auto expected = cat(
    {i32(0), i32(0), i32(0x7fffffff), i8(0), i32(0), i32(-1), carr(1),
     uuid_bytes(uuid{0, 5}), carr(1), i32(0), i32(-1), i64(0), i32(-1), i64(-1),
     i32(0),
     // the partition's tag 0, ReplicaDirectoryId: 16 bytes
     uv(1), uv(0), uv(16), uuid_bytes(uuid{0, 6}), no_tags(), carr(0), cstr(""),
     // tag 0 ClusterId (a compact string), then tag 1 ReplicaState
     uv(2), uv(0), uv(3), cstr("c1"), uv(1), uv(13), i32(2), i64(9),
     no_tags()});
  CHECK(body == expected);
  auto y = decode_all(decode_fetch_request, body, 17);
  CHECK(y.cluster_id == "c1");
  REQUIRE(y.replica_state);
  CHECK(y.replica_state->replica_epoch == 9);
  CHECK(y.topics[0].partitions[0].replica_directory_id == uuid{0, 6});
  // v14 has neither the replica state tag nor the directory id.
  auto v14 = encode_body(encode_fetch_request, x, 14);
  auto z = decode_all(decode_fetch_request, v14, 14);
  CHECK_FALSE(z.replica_state);
  CHECK(z.replica_id == -1);
  CHECK(z.cluster_id == "c1");
  CHECK_FALSE(z.topics[0].partitions[0].replica_directory_id);
}

TEST_CASE("tagged fields the decoder does not know are skipped, in messages "
          "and nested structs",
          "[kafka]") {
  // Heartbeat v4 with two unknown tags at the end of the message.
  auto hb = cat({cstr("g"), i32(3), cstr("m"), cnull(), uv(2), uv(5), uv(3),
                 b("xyz"), uv(9), uv(0)});
  auto x = decode_all(decode_heartbeat_request, hb, 4);
  CHECK(x.group_id == "g");
  CHECK(x.generation_id == 3);
  CHECK(x.member_id == "m");
  CHECK_FALSE(x.group_instance_id);
  CHECK(encode_body(encode_heartbeat_request, x, 4)
        == cat({cstr("g"), i32(3), cstr("m"), cnull(), no_tags()}));
  // An unknown tag inside one JoinGroup protocol entry.
  auto join = cat({cstr("g"), i32(10), i32(10), cstr("m"), cnull(),
                   cstr("consumer"), carr(1), cstr("range"), cblob({}), uv(1),
                   uv(42), uv(2), bytes{1, 2}, cnull(), no_tags()});
  auto y = decode_all(decode_join_group_request, join, 8);
  REQUIRE(y.protocols.size() == 1);
  CHECK(y.protocols[0].name == "range");
  CHECK_FALSE(y.reason);
  // A tag whose size runs past the frame is malformed.
  auto bad =
    cat({cstr("g"), i32(3), cstr("m"), cnull(), uv(1), uv(5), uv(9), b("xyz")});
  reader in{bad};
  CHECK_FALSE(decode_heartbeat_request(in, 4));
  CHECK(in.error().find("truncated tagged field") == 0);
}

TEST_CASE("OffsetFetch v8 request batches groups, each with null topics for "
          "every topic",
          "[kafka]") {
  offset_fetch_request x;
  x.groups = {{"g1", std::nullopt, -1, std::nullopt},
              {"g2", std::nullopt, -1,
               std::vector<offset_fetch_topic>{{"orders", {0, 1}}}}};
  x.require_stable = true;
  auto expected = cat({carr(2), cstr("g1"), cnull(), no_tags(), cstr("g2"),
                       carr(1), cstr("orders"), carr(2), i32(0), i32(1),
                       no_tags(), no_tags(), i8(1), no_tags()});
  CHECK(encode_body(encode_offset_fetch_request, x, 8) == expected);
  // v9 adds the KIP-848 member id and epoch to each group.
  x.groups[0].member_id = "m";
  x.groups[0].member_epoch = 4;
  auto v9 = encode_body(encode_offset_fetch_request, x, 9);
  auto y = decode_all(decode_offset_fetch_request, v9, 9);
  CHECK(y.groups[0].member_id == "m");
  CHECK(y.groups[0].member_epoch == 4);
  CHECK_FALSE(y.groups[0].topics);
  CHECK(y.groups[1].topics->at(0).partition_indexes
        == std::vector<int32_t>{0, 1});
  CHECK(y.require_stable);
  // v7: one group, topics nullable since v2; v1 refuses null.
  offset_fetch_request all;
  all.group_id = "g";
  all.topics = std::nullopt;
  CHECK(encode_body(encode_offset_fetch_request, all, 7)
        == cat({cstr("g"), cnull(), i8(0), no_tags()}));
  CHECK(encode_body(encode_offset_fetch_request, all, 2)
        == cat({str("g"), i32(-1)}));
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_offset_fetch_request(w, all, 1));
  CHECK(w.error() == "null array in a version where it is not nullable");
}

TEST_CASE("LeaveGroup v3+ request removes a batch of members, with a reason "
          "from v5",
          "[kafka]") {
  leave_group_request x;
  x.group_id = "g";
  x.members = {{"m-1", std::nullopt, "shutdown"},
               {"", std::string{"instance-2"}, std::nullopt}};
  CHECK(encode_body(encode_leave_group_request, x, 3)
        == cat(
          {str("g"), i32(2), str("m-1"), i16(-1), str(""), str("instance-2")}));
  CHECK(encode_body(encode_leave_group_request, x, 5)
        == cat({cstr("g"), carr(2), cstr("m-1"), cnull(), cstr("shutdown"),
                no_tags(), cstr(""), cstr("instance-2"), cnull(), no_tags(),
                no_tags()}));
  // v0-2 name the one leaving member instead.
  x.member_id = "m-1";
  CHECK(encode_body(encode_leave_group_request, x, 2)
        == cat({str("g"), str("m-1")}));
}

TEST_CASE("ConsumerGroupHeartbeat v1 request carries the subscription, regex "
          "and owned partitions, byte for byte",
          "[kafka]") {
  consumer_group_heartbeat_request x;
  x.group_id = "g";
  x.member_id = "m";
  x.member_epoch = 0;
  x.rebalance_timeout_ms = 300000;
  x.subscribed_topic_names = std::vector<std::string>{"orders"};
  x.subscribed_topic_regex = "pay.*";
  x.server_assignor = "uniform";
  x.topic_partitions =
    std::vector<consumer_group_topic_partitions>{{uuid{0, 9}, {0, 2}}};
  auto expected = cat({cstr("g"), cstr("m"), i32(0), cnull(), cnull(),
                       i32(300000), carr(1), cstr("orders"), cstr("pay.*"),
                       cstr("uniform"), carr(1), uuid_bytes(uuid{0, 9}),
                       carr(2), i32(0), i32(2), no_tags(), no_tags()});
  CHECK(encode_body(encode_consumer_group_heartbeat_request, x, 1) == expected);
  auto y = decode_all(decode_consumer_group_heartbeat_request, expected, 1);
  CHECK(y.subscribed_topic_regex == "pay.*");
  CHECK(y.topic_partitions->at(0).partitions == std::vector<int32_t>{0, 2});
  // v0 has no regex; null lists mean "unchanged since the last heartbeat".
  consumer_group_heartbeat_request same;
  same.group_id = "g";
  same.member_id = "m";
  same.member_epoch = 5;
  CHECK(encode_body(encode_consumer_group_heartbeat_request, same, 0)
        == cat({cstr("g"), cstr("m"), i32(5), cnull(), cnull(), i32(-1),
                cnull(), cnull(), cnull(), no_tags()}));
}

// -- responses ----------------------------------------------------------------

TEST_CASE("Metadata v12 response carries topic ids and nullable topic "
          "names, byte for byte",
          "[kafka]") {
  uuid orders{0xabcdef, 0x123456};
  uuid unknown{7, 7};
  auto expected =
    cat({i32(0),
         // brokers
         carr(1), i32(1), cstr("broker-1"), i32(9092), cnull(), no_tags(),
         cstr("cluster-a"), i32(1),
         // topics
         carr(2), i16(0), cstr("orders"), uuid_bytes(orders), i8(0), carr(1),
         i16(0), i32(0), i32(1), i32(5), carr(1), i32(1), carr(1), i32(1),
         carr(0), no_tags(), i32(omitted), no_tags(),
         // an id nobody knows: no name
         i16(100), cnull(), uuid_bytes(unknown), i8(0), carr(0), i32(omitted),
         no_tags(), no_tags()});
  metadata_response x;
  x.brokers = {{1, "broker-1", 9092, std::nullopt}};
  x.cluster_id = "cluster-a";
  x.controller_id = 1;
  metadata_topic t;
  t.name = "orders";
  t.topic_id = orders;
  metadata_partition p;
  p.leader_id = 1;
  p.leader_epoch = 5;
  p.replica_nodes = {1};
  p.isr_nodes = {1};
  t.partitions = {p};
  metadata_topic missing;
  missing.error = error_code::unknown_topic_id;
  missing.topic_id = unknown;
  x.topics = {t, missing};
  CHECK(encode_body(encode_metadata_response, x, 12) == expected);
  auto y = decode_all(decode_metadata_response, expected, 12);
  CHECK(y.topics[0].topic_id == orders);
  CHECK(y.topics[0].partitions[0].leader_epoch == 5);
  CHECK_FALSE(y.topics[1].name);
  CHECK(y.topics[1].error == error_code::unknown_topic_id);
  // v13 appends KIP-1102's top-level error code before the tags.
  auto v13 = encode_body(encode_metadata_response, x, 13);
  CHECK(bytes(v13.end() - 3, v13.end()) == cat({i16(0), no_tags()}));
  CHECK(v13.size() == expected.size() + 2);
  // Before v12 a topic name may not be null.
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_metadata_response(w, x, 11));
  CHECK(w.error() == "null string in a version where it is not nullable");
}

TEST_CASE("Produce v10 response carries KIP-951's current leader and node "
          "endpoints as tagged fields",
          "[kafka]") {
  produce_response x;
  produce_partition_response p;
  p.index = 2;
  p.error = error_code::not_leader_or_follower;
  p.current_leader = leader_id_and_epoch{3, 8};
  x.responses = {{"orders", {p}}};
  x.node_endpoints =
    std::vector<node_endpoint>{{3, "broker-3", 9094, std::string{"r"}}};
  auto expected =
    cat({carr(1), cstr("orders"), carr(1), i32(2), i16(6), i64(-1), i64(-1),
         i64(-1), carr(0), cnull(),
         // partition tag 0: LeaderIdAndEpoch, 8 bytes plus its empty tags
         uv(1), uv(0), uv(9), i32(3), i32(8), no_tags(), no_tags(), i32(0),
         // response tag 0: one NodeEndpoint
         uv(1), uv(0), uv(21), carr(1), i32(3), cstr("broker-3"), i32(9094),
         cstr("r"), no_tags()});
  CHECK(encode_body(encode_produce_response, x, 10) == expected);
  auto y = decode_all(decode_produce_response, expected, 12);
  REQUIRE(y.responses[0].partitions[0].current_leader);
  CHECK(y.responses[0].partitions[0].current_leader->leader_epoch == 8);
  CHECK(y.node_endpoints->at(0).host == "broker-3");
  // v9 is flexible but predates KIP-951: the tags are not written ...
  auto v9 = encode_body(encode_produce_response, x, 9);
  auto z = decode_all(decode_produce_response, v9, 9);
  CHECK_FALSE(z.responses[0].partitions[0].current_leader);
  CHECK_FALSE(z.node_endpoints);
  // ... and a v9 decoder skips them as unknown.
  auto w = decode_all(decode_produce_response, expected, 9);
  CHECK_FALSE(w.node_endpoints);
}

TEST_CASE("Fetch v12 response partitions write diverging epoch, current "
          "leader and snapshot id as tags 0, 1, 2",
          "[kafka]") {
  fetch_response x;
  x.session_id = 12;
  fetch_partition_response p;
  p.partition_index = 0;
  p.high_watermark = 10;
  p.last_stable_offset = 10;
  p.log_start_offset = 0;
  p.diverging_epoch = epoch_end_offset{2, 7};
  p.current_leader = leader_id_and_epoch{1, 3};
  p.snapshot_id = fetch_snapshot_id{5, 1};
  p.records = {0xaa};
  x.responses = {{"orders", {p}, uuid{}}};
  auto expected =
    cat({i32(0),    i16(0),        i32(12), carr(1), cstr("orders"), carr(1),
         i32(0),    i16(0),        i64(10), i64(10), i64(0),         carr(0),
         i32(-1),   cblob({0xaa}), uv(3),   uv(0),   uv(13),         i32(2),
         i64(7),    no_tags(),     uv(1),   uv(9),   i32(1),         i32(3),
         no_tags(), uv(2),         uv(13),  i64(5),  i32(1),         no_tags(),
         no_tags(), no_tags()});
  CHECK(encode_body(encode_fetch_response, x, 12) == expected);
  auto y = decode_all(decode_fetch_response, expected, 12);
  auto& q = y.responses[0].partitions[0];
  CHECK(q.diverging_epoch->end_offset == 7);
  CHECK(q.current_leader->leader_id == 1);
  CHECK(q.snapshot_id->end_offset == 5);
  CHECK(q.records == bytes{0xaa});
}

TEST_CASE("ConsumerGroupHeartbeat response writes a null assignment as the "
          "marker -1 and a present one as 1",
          "[kafka]") {
  consumer_group_heartbeat_response x;
  x.member_id = "m";
  x.member_epoch = 3;
  x.heartbeat_interval_ms = 5000;
  CHECK(encode_body(encode_consumer_group_heartbeat_response, x, 1)
        == cat({i32(0), i16(0), cnull(), cstr("m"), i32(3), i32(5000), i8(-1),
                no_tags()}));
  x.error = error_code::fenced_member_epoch;
  x.assignment =
    consumer_group_heartbeat_assignment{{{uuid{0, 4}, {1}}, {uuid{0, 5}, {}}}};
  auto expected =
    cat({i32(0), i16(110), cnull(), cstr("m"), i32(3), i32(5000), i8(1),
         carr(2), uuid_bytes(uuid{0, 4}), carr(1), i32(1), no_tags(),
         uuid_bytes(uuid{0, 5}), carr(0), no_tags(), no_tags(), no_tags()});
  CHECK(encode_body(encode_consumer_group_heartbeat_response, x, 0)
        == expected);
  auto y = decode_all(decode_consumer_group_heartbeat_response, expected, 0);
  CHECK(y.error == error_code::fenced_member_epoch);
  REQUIRE(y.assignment);
  CHECK(y.assignment->topic_partitions[1].topic_id == uuid{0, 5});
}

TEST_CASE("FindCoordinator v4 response answers a batch of keys", "[kafka]") {
  find_coordinator_response x;
  x.coordinators = {{"g1", 2, "broker-2", 9093, error_code::none, std::nullopt},
                    {"g2", -1, "", -1, error_code::coordinator_not_available,
                     std::string{"loading"}}};
  auto expected =
    cat({i32(0), carr(2), cstr("g1"), i32(2), cstr("broker-2"), i32(9093),
         i16(0), cnull(), no_tags(), cstr("g2"), i32(-1), cstr(""), i32(-1),
         i16(15), cstr("loading"), no_tags(), no_tags()});
  CHECK(encode_body(encode_find_coordinator_response, x, 4) == expected);
  find_coordinator_request r;
  r.key_type = coordinator_key_group;
  r.coordinator_keys = {"g1", "g2"};
  CHECK(encode_body(encode_find_coordinator_request, r, 4)
        == cat({i8(0), carr(2), cstr("g1"), cstr("g2"), no_tags()}));
  // v3: one key, error message, flexible.
  r.key = "g1";
  CHECK(encode_body(encode_find_coordinator_request, r, 3)
        == cat({cstr("g1"), i8(0), no_tags()}));
}

TEST_CASE("DescribeGroups v6 answers an error message per group (KIP-1043)",
          "[kafka]") {
  describe_groups_response x;
  described_group g;
  g.error = error_code::group_id_not_found;
  g.error_message = "Group gone not found.";
  g.group_id = "gone";
  g.group_state = "Dead";
  x.groups = {g};
  CHECK(encode_body(encode_describe_groups_response, x, 6)
        == cat({i32(0), carr(1), i16(69), cstr("Group gone not found."),
                cstr("gone"), cstr("Dead"), cstr(""), cstr(""), carr(0),
                i32(omitted), no_tags(), no_tags()}));
  auto v5 = encode_body(encode_describe_groups_response, x, 5);
  CHECK_FALSE(
    decode_all(decode_describe_groups_response, v5, 5).groups[0].error_message);
}

TEST_CASE("CreateTopics v7 response returns the topic id, configs and the "
          "tagged config error",
          "[kafka]") {
  create_topics_response x;
  creatable_topic_result t;
  t.name = "orders";
  t.topic_id = uuid{1, 2};
  t.num_partitions = 6;
  t.replication_factor = 3;
  t.configs = std::vector<creatable_topic_configs>{
    {"cleanup.policy", std::string{"delete"}, false, 5, false}};
  t.topic_config_error = error_code::invalid_config;
  x.topics = {t};
  auto expected = cat({i32(0),         carr(1),
                       cstr("orders"), uuid_bytes(uuid{1, 2}),
                       i16(0),         cnull(),
                       i32(6),         i16(3),
                       carr(1),        cstr("cleanup.policy"),
                       cstr("delete"), i8(0),
                       i8(5),          i8(0),
                       no_tags(),      uv(1),
                       uv(0),          uv(2),
                       i16(40),        no_tags()});
  CHECK(encode_body(encode_create_topics_response, x, 7) == expected);
  auto y = decode_all(decode_create_topics_response, expected, 7);
  CHECK(y.topics[0].topic_config_error == error_code::invalid_config);
  CHECK(y.topics[0].configs->at(0).config_source == 5);
}

TEST_CASE("DeleteTopics v6 deletes by name or by topic id", "[kafka]") {
  delete_topics_request x;
  x.topics = {{std::string{"orders"}, uuid{}}, {std::nullopt, uuid{0, 3}}};
  x.timeout_ms = 30000;
  CHECK(encode_body(encode_delete_topics_request, x, 6)
        == cat({carr(2), cstr("orders"), uuid_bytes(uuid{}), no_tags(), cnull(),
                uuid_bytes(uuid{0, 3}), no_tags(), i32(30000), no_tags()}));
  x.topic_names = {"orders"};
  CHECK(encode_body(encode_delete_topics_request, x, 5)
        == cat({carr(1), cstr("orders"), i32(30000), no_tags()}));
  CHECK(encode_body(encode_delete_topics_request, x, 3)
        == cat({i32(1), str("orders"), i32(30000)}));
  delete_topics_response r;
  r.responses = {{std::nullopt, uuid{0, 3}, error_code::unknown_topic_id,
                  std::string{"no such id"}}};
  CHECK(encode_body(encode_delete_topics_response, r, 6)
        == cat({i32(0), carr(1), cnull(), uuid_bytes(uuid{0, 3}), i16(100),
                cstr("no such id"), no_tags(), no_tags()}));
}

TEST_CASE("DescribeCluster v2 lists fenced brokers on request (KIP-1073)",
          "[kafka]") {
  describe_cluster_request q;
  q.include_fenced_brokers = true;
  CHECK(encode_body(encode_describe_cluster_request, q, 2)
        == cat({i8(0), i8(1), i8(1), no_tags()}));
  CHECK(encode_body(encode_describe_cluster_request, q, 0)
        == cat({i8(0), no_tags()}));
  describe_cluster_response x;
  x.cluster_id = "c";
  x.controller_id = 1;
  x.brokers = {{1, "h", 9092, std::nullopt, true}};
  CHECK(encode_body(encode_describe_cluster_response, x, 2)
        == cat({i32(0), i16(0), cnull(), i8(1), cstr("c"), i32(1), carr(1),
                i32(1), cstr("h"), i32(9092), cnull(), i8(1), no_tags(),
                i32(omitted), no_tags()}));
}

TEST_CASE("InitProducerId v4 request and response, idempotence without a "
          "transactional id",
          "[kafka]") {
  init_producer_id_request x;
  x.transaction_timeout_ms = 60000;
  CHECK(encode_body(encode_init_producer_id_request, x, 4)
        == cat({cnull(), i32(60000), i64(-1), i16(-1), no_tags()}));
  CHECK(encode_body(encode_init_producer_id_request, x, 1)
        == cat({i16(-1), i32(60000)}));
  init_producer_id_response r{0, error_code::none, 4000, 0};
  CHECK(encode_body(encode_init_producer_id_response, r, 4)
        == cat({i32(0), i16(0), i64(4000), i16(0), no_tags()}));
}
