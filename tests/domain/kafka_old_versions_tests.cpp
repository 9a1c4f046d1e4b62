// The versions Kafka 3.9 serves below Kafka 4.0's floor (KIP-896): Produce
// v0-2, Fetch v0-3, ListOffsets v0, OffsetCommit v0-1, OffsetFetch v0,
// DeleteTopics v0, OffsetForLeaderEpoch v0-1 and DescribeConfigs v0, each a
// version of the same field list as the newer ones.
//
// Two independent sources of bytes, named at each vector:
// - kafka-python 2.0.2 (Debian's python3-kafka), its own protocol classes
//   run once by hand: `X[v](...).encode().hex()` (the body only);
// - Kafka's message JSON (apache/kafka
//   clients/src/main/resources/common/message/*.json, 3.9), written field
//   by field with every field commented (OffsetForLeaderEpoch, which
//   kafka-python lacks, and the fields that differ between versions).
//
// A request decodes to its fields, uses every byte and encodes back to the
// same bytes; a response encodes from a struct to the bytes and decodes back.
// The fields a version lacks read as their defaults, and a non-default
// value of a field that is not ignorable refuses to encode, as Kafka's
// generated writers throw UnsupportedVersionException.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"
#include "domain/log/compression.hpp"
#include "domain/log/crc32c.hpp"
#include "domain/log/legacy_records.hpp"
#include "domain/log/record_batch.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

bytes unhex(std::string_view hex) {
  auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c - 'a' + 10;
  };
  REQUIRE(hex.size() % 2 == 0);
  bytes out;
  for (size_t i = 0; i < hex.size(); i += 2)
    out.push_back(static_cast<uint8_t>(digit(hex[i]) * 16 + digit(hex[i + 1])));
  return out;
}

std::string hex(const bytes& x) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto c : x) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

/// A request body: decodes with every byte used, and encodes back.
template <class T>
T golden_request(std::string_view h, int16_t v, encode_fn<T> encode,
                 decode_fn<T> decode) {
  auto golden = unhex(h);
  auto x = decode_all(decode, golden, v);
  CHECK(hex(encode_body(encode, x, v)) == hex(golden));
  return x;
}

/// A response body: `x` encodes to the bytes, which decode back.
template <class T>
T golden_response(std::string_view h, int16_t v, encode_fn<T> encode,
                  decode_fn<T> decode, const T& x) {
  auto golden = unhex(h);
  CHECK(hex(encode_body(encode, x, v)) == hex(golden));
  return decode_all(decode, golden, v);
}

/// Whether `x` refuses to encode at `v` (a non-ignorable field).
template <class T>
bool refuses(encode_fn<T> encode, const T& x, int16_t v) {
  bytes buf;
  writer out{buf};
  return !encode(out, x, v);
}

} // namespace

// -- the table ------------------------------------------------------------------

TEST_CASE("ApiVersions lists Kafka 3.9's floors", "[kafka][old]") {
  auto floor = [](api_key key) {
    for (auto& v : supported_versions())
      if (v.api_key == key_of(key))
        return v.min_version;
    return int16_t{-1};
  };
  for (auto key :
       {api_key::produce, api_key::fetch, api_key::list_offsets,
        api_key::offset_commit, api_key::offset_fetch, api_key::delete_topics,
        api_key::offset_for_leader_epoch, api_key::describe_configs}) {
    INFO(api_name(key_of(key)));
    CHECK(floor(key) == 0);
  }
  for (auto& v : supported_versions()) {
    INFO(api_name(v.api_key));
    CHECK(v.min_version == 0);
  }
}

// -- Produce --------------------------------------------------------------------

// kafka-python ProduceRequest_v0(required_acks=1, timeout=1000,
// topics=[("t", [(0, b"\x01\x02")])]): no TransactionalId before v3.
constexpr std::string_view kp_produce_v0_request =
  "0001"          // acks: 1
  "000003e8"      // timeout_ms: 1000
  "00000001"      // topics: 1
  "000174"        //   name: "t"
  "00000001"      //   partitions: 1
  "00000000"      //     index: 0
  "000000020102"; //     records: 2 bytes

TEST_CASE("Produce v0-2 requests carry no transactional id", "[kafka][old]") {
  auto x = golden_request(kp_produce_v0_request, 0, encode_produce_request,
                          decode_produce_request);
  CHECK_FALSE(x.transactional_id);
  CHECK(x.acks == 1);
  CHECK(x.timeout_ms == 1000);
  REQUIRE(x.topics.size() == 1);
  CHECK(x.topics[0].name == "t");
  REQUIRE(x.topics[0].partitions.size() == 1);
  CHECK(x.topics[0].partitions[0].records == bytes{1, 2});
  // v1 and v2 are v0's layout (ProduceRequest_v2 from kafka-python, acks -1).
  auto y =
    golden_request("ffff000003e8000000010001740000000100000000000000020102", 2,
                   encode_produce_request, decode_produce_request);
  CHECK(y.acks == -1);
  // TransactionalId is not ignorable: v0-2 cannot say one.
  x.transactional_id = "tx";
  CHECK(refuses(encode_produce_request, x, 2));
  CHECK_FALSE(refuses(encode_produce_request, x, 3));
}

TEST_CASE("Produce v0-2 responses: throttle time from v1, log append time "
          "from v2",
          "[kafka][old]") {
  produce_response x;
  x.responses = {{"t", {{0, error_code::none, 42, 1700000000000, 7}}}};
  x.throttle_time_ms = 5;
  // kafka-python ProduceResponse_v0/v1/v2 with (partition 0, error 0,
  // offset 42[, timestamp 1700000000000]) and throttle 5.
  auto v0 =
    golden_response("0000000100017400000001000000000000000000000000002a", 0,
                    encode_produce_response, decode_produce_response, x);
  CHECK(v0.throttle_time_ms == 0);
  CHECK(v0.responses[0].partitions[0].base_offset == 42);
  CHECK(v0.responses[0].partitions[0].log_append_time_ms == -1);
  auto v1 = golden_response(
    "0000000100017400000001000000000000000000000000002a00000005", 1,
    encode_produce_response, decode_produce_response, x);
  CHECK(v1.throttle_time_ms == 5);
  auto v2 =
    golden_response("0000000100017400000001000000000000000000000000002a"
                    "0000018bcfe5680000000005",
                    2, encode_produce_response, decode_produce_response, x);
  CHECK(v2.responses[0].partitions[0].log_append_time_ms == 1700000000000);
  CHECK(v2.responses[0].partitions[0].log_start_offset == -1); // v5+
}

// -- Fetch ----------------------------------------------------------------------

TEST_CASE("Fetch v0-3 requests: max bytes from v3, no isolation level",
          "[kafka][old]") {
  // kafka-python FetchRequest_v0(replica_id=-1, max_wait_time=100,
  // min_bytes=1, topics=[("t", [(0, 5, 1024)])]).
  auto v0 = golden_request("ffffffff0000006400000001"
                           "000000010001740000000100000000"
                           "000000000000000500000400",
                           0, encode_fetch_request, decode_fetch_request);
  CHECK(v0.replica_id == -1);
  CHECK(v0.max_wait_ms == 100);
  CHECK(v0.min_bytes == 1);
  CHECK(v0.max_bytes == 0x7fffffff); // the default: no response limit
  CHECK(v0.isolation_level == 0);
  REQUIRE(v0.topics.size() == 1);
  REQUIRE(v0.topics[0].partitions.size() == 1);
  CHECK(v0.topics[0].partitions[0].fetch_offset == 5);
  CHECK(v0.topics[0].partitions[0].partition_max_bytes == 1024);
  // FetchRequest_v3: MaxBytes 65536 after MinBytes.
  auto v3 = golden_request("ffffffff000000640000000100010000"
                           "000000010001740000000100000000"
                           "000000000000000500000400",
                           3, encode_fetch_request, decode_fetch_request);
  CHECK(v3.max_bytes == 65536);
}

TEST_CASE("Fetch v0-3 responses: no stable offset or aborted transactions, "
          "throttle time from v1",
          "[kafka][old]") {
  fetch_response x;
  x.throttle_time_ms = 5;
  fetch_partition_response p;
  p.high_watermark = 10;
  p.last_stable_offset = 10; // ignorable: not on the wire before v4
  p.records = {1, 2};
  x.responses = {{"t", {p}}};
  // kafka-python FetchResponse_v0/v1: (partition 0, error 0, hw 10, 2 bytes).
  auto v0 = golden_response(
    "0000000100017400000001000000000000000000000000000a000000020102", 0,
    encode_fetch_response, decode_fetch_response, x);
  CHECK(v0.throttle_time_ms == 0);
  CHECK(v0.responses[0].partitions[0].high_watermark == 10);
  CHECK(v0.responses[0].partitions[0].last_stable_offset == -1);
  CHECK(v0.responses[0].partitions[0].records == bytes{1, 2});
  auto v1 = golden_response(
    "000000050000000100017400000001000000000000000000000000000a000000020102", 1,
    encode_fetch_response, decode_fetch_response, x);
  CHECK(v1.throttle_time_ms == 5);
  // v2 and v3 are v1's layout.
  auto v3 = round_trip(encode_fetch_response, decode_fetch_response, x, 3);
  CHECK(v3.responses[0].partitions[0].records == bytes{1, 2});
}

// -- ListOffsets ----------------------------------------------------------------

TEST_CASE("ListOffsets v0: MaxNumOffsets asks, OldStyleOffsets answers",
          "[kafka][old]") {
  // kafka-python OffsetRequest_v0(replica_id=-1,
  // topics=[("t", [(0, -1, 1)])]).
  auto req =
    golden_request("ffffffff000000010001740000000100000000"
                   "ffffffffffffffff" // timestamp: -1 (latest)
                   "00000001",        // max_num_offsets (v0 only)
                   0, encode_list_offsets_request, decode_list_offsets_request);
  REQUIRE(req.topics.size() == 1);
  REQUIRE(req.topics[0].partitions.size() == 1);
  CHECK(req.topics[0].partitions[0].timestamp == latest_timestamp);
  CHECK(req.topics[0].partitions[0].max_num_offsets == 1);
  // v1 has no MaxNumOffsets: it reads as 1.
  auto v1 = round_trip(encode_list_offsets_request, decode_list_offsets_request,
                       req, 1);
  CHECK(v1.topics[0].partitions[0].max_num_offsets == 1);

  list_offsets_response res;
  list_offsets_partition_response p;
  p.old_style_offsets = {42};
  res.topics = {{"t", {p}}};
  // kafka-python OffsetResponse_v0(topics=[("t", [(0, 0, [42])])]).
  auto y = golden_response("0000000100017400000001000000000000"
                           "00000001000000000000002a",
                           0, encode_list_offsets_response,
                           decode_list_offsets_response, res);
  CHECK(y.topics[0].partitions[0].old_style_offsets
        == std::vector<int64_t>{42});
  CHECK(y.topics[0].partitions[0].offset == -1);
  CHECK(y.topics[0].partitions[0].timestamp == -1);
  // None of the three is ignorable: each version carries only its own.
  CHECK(refuses(encode_list_offsets_response, res, 1));
  auto v1_shape = res;
  v1_shape.topics[0].partitions[0].old_style_offsets.clear();
  v1_shape.topics[0].partitions[0].offset = 42;
  CHECK(refuses(encode_list_offsets_response, v1_shape, 0));
  CHECK_FALSE(refuses(encode_list_offsets_response, v1_shape, 1));
}

// -- OffsetCommit and OffsetFetch -----------------------------------------------

TEST_CASE("OffsetCommit v0 has no generation or member, v1 adds them and a "
          "commit timestamp",
          "[kafka][old]") {
  // kafka-python OffsetCommitRequest_v0(consumer_group="g",
  // topics=[("t", [(0, 7, "m")])]).
  auto v0 = golden_request("0001670000000100017400000001"
                           "00000000000000000000000700016d",
                           0, encode_offset_commit_request,
                           decode_offset_commit_request);
  CHECK(v0.group_id == "g");
  CHECK(v0.generation_id == -1);
  CHECK(v0.member_id.empty());
  CHECK(v0.retention_time_ms == -1);
  REQUIRE(v0.topics.size() == 1);
  REQUIRE(v0.topics[0].partitions.size() == 1);
  CHECK(v0.topics[0].partitions[0].committed_offset == 7);
  CHECK(v0.topics[0].partitions[0].committed_metadata == "m");
  CHECK(v0.topics[0].partitions[0].commit_timestamp == -1);
  // OffsetCommitRequest_v1(consumer_group="g", generation 3, member "mem",
  // topics=[("t", [(0, 7, 1700000000000, "m")])]).
  auto v1 = golden_request("0001670000000300036d656d"
                           "000000010001740000000100000000"
                           "0000000000000007" // committed_offset: 7
                           "0000018bcfe56800" // commit_timestamp (v1 only)
                           "00016d",          // committed_metadata: "m"
                           1, encode_offset_commit_request,
                           decode_offset_commit_request);
  CHECK(v1.generation_id == 3);
  CHECK(v1.member_id == "mem");
  CHECK(v1.topics[0].partitions[0].commit_timestamp == 1700000000000);
  // CommitTimestamp is v1 only and not ignorable.
  CHECK(refuses(encode_offset_commit_request, v1, 2));
  CHECK(refuses(encode_offset_commit_request, v1, 0));
  // GenerationId and MemberId are ignorable: v0 drops them.
  auto v1_plain = v1;
  v1_plain.topics[0].partitions[0].commit_timestamp = -1;
  CHECK(encode_body(encode_offset_commit_request, v1_plain, 0)
        == encode_body(encode_offset_commit_request, v0, 0));
  // v2-4 carry RetentionTimeMs after MemberId.
  v1_plain.retention_time_ms = 86400000;
  auto v2 = round_trip(encode_offset_commit_request,
                       decode_offset_commit_request, v1_plain, 2);
  CHECK(v2.retention_time_ms == 86400000);
  auto v1_again = round_trip(encode_offset_commit_request,
                             decode_offset_commit_request, v1_plain, 1);
  CHECK(v1_again.retention_time_ms == -1);

  offset_commit_response res;
  res.topics = {{"t", {{0, error_code::none}}}};
  // kafka-python OffsetCommitResponse_v0(topics=[("t", [(0, 0)])]).
  auto y = golden_response("0000000100017400000001000000000000", 0,
                           encode_offset_commit_response,
                           decode_offset_commit_response, res);
  CHECK(y.topics[0].partitions[0].error == error_code::none);
}

TEST_CASE("OffsetFetch v0 is v1's layout", "[kafka][old]") {
  // kafka-python OffsetFetchRequest_v0(consumer_group="g",
  // topics=[("t", [0])]).
  auto req =
    golden_request("000167000000010001740000000100000000", 0,
                   encode_offset_fetch_request, decode_offset_fetch_request);
  CHECK(req.group_id == "g");
  REQUIRE(req.topics);
  REQUIRE(req.topics->size() == 1);
  CHECK((*req.topics)[0].partition_indexes == std::vector<int32_t>{0});
  CHECK(encode_body(encode_offset_fetch_request, req, 0)
        == encode_body(encode_offset_fetch_request, req, 1));
  // Null topics (every topic) are v2+.
  auto all = req;
  all.topics.reset();
  CHECK(refuses(encode_offset_fetch_request, all, 0));

  offset_fetch_response res;
  res.topics = {{"t", {{0, 7, std::string{"m"}, error_code::none}}}};
  // kafka-python OffsetFetchResponse_v0(topics=[("t", [(0, 7, "m", 0)])]).
  auto y = golden_response(
    "000000010001740000000100000000000000000000000700016d0000", 0,
    encode_offset_fetch_response, decode_offset_fetch_response, res);
  CHECK(y.topics[0].partitions[0].committed_offset == 7);
  CHECK(y.topics[0].partitions[0].metadata == "m");
}

// -- DeleteTopics ---------------------------------------------------------------

TEST_CASE("DeleteTopics v0 has no throttle time", "[kafka][old]") {
  // kafka-python DeleteTopicsRequest_v0(topics=["t"], timeout=1000).
  auto req =
    golden_request("00000001000174000003e8", 0, encode_delete_topics_request,
                   decode_delete_topics_request);
  CHECK(req.topic_names == std::vector<std::string>{"t"});
  CHECK(req.timeout_ms == 1000);
  delete_topics_response res;
  deletable_topic_result r;
  r.name = "t";
  res.responses = {r};
  // kafka-python DeleteTopicsResponse_v0(topic_error_codes=[("t", 0)]).
  auto y =
    golden_response("000000010001740000", 0, encode_delete_topics_response,
                    decode_delete_topics_response, res);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].name == "t");
  // ThrottleTimeMs (v1+) is not ignorable.
  res.throttle_time_ms = 5;
  CHECK(refuses(encode_delete_topics_response, res, 0));
  CHECK_FALSE(refuses(encode_delete_topics_response, res, 1));
}

// -- OffsetForLeaderEpoch -------------------------------------------------------

// OffsetForLeaderEpochRequest.json v0 (and v1, the same): no ReplicaId
// (v3+) and no CurrentLeaderEpoch (v2+).
constexpr std::string_view spec_offset_for_leader_epoch_v0_request =
  "00000001"  // topics: 1
  "000174"    //   topic: "t"
  "00000001"  //   partitions: 1
  "00000002"  //     partition: 2
  "00000004"; //     leader_epoch: 4

// OffsetForLeaderEpochResponse.json v0: no ThrottleTimeMs (v2+), no
// LeaderEpoch (v1+).
constexpr std::string_view spec_offset_for_leader_epoch_v0_response =
  "00000001"          // topics: 1
  "000174"            //   topic: "t"
  "00000001"          //   partitions: 1
  "0000"              //     error_code: 0
  "00000002"          //     partition: 2
  "0000000000000063"; //     end_offset: 99

TEST_CASE("OffsetForLeaderEpoch v0-1 golden bytes from the JSON schema",
          "[kafka][old]") {
  for (int16_t v : {0, 1}) {
    auto req = golden_request(spec_offset_for_leader_epoch_v0_request, v,
                              encode_offset_for_leader_epoch_request,
                              decode_offset_for_leader_epoch_request);
    REQUIRE(req.topics.size() == 1);
    REQUIRE(req.topics[0].partitions.size() == 1);
    CHECK(req.topics[0].partitions[0].partition == 2);
    CHECK(req.topics[0].partitions[0].leader_epoch == 4);
    CHECK(req.topics[0].partitions[0].current_leader_epoch == -1);
    CHECK(req.replica_id == -2);
  }
  offset_for_leader_epoch_response res;
  res.throttle_time_ms = 5; // ignorable
  res.topics = {{"t", {{error_code::none, 2, 4, 99}}}};
  auto v0 = golden_response(spec_offset_for_leader_epoch_v0_response, 0,
                            encode_offset_for_leader_epoch_response,
                            decode_offset_for_leader_epoch_response, res);
  CHECK(v0.topics[0].partitions[0].end_offset == 99);
  CHECK(v0.topics[0].partitions[0].leader_epoch == -1);
  CHECK(v0.throttle_time_ms == 0);
  // v1 adds LeaderEpoch before EndOffset.
  auto v1 = golden_response(std::string{"00000001000174000000010000"}
                              + "00000002" + "00000004" + "0000000000000063",
                            1, encode_offset_for_leader_epoch_response,
                            decode_offset_for_leader_epoch_response, res);
  CHECK(v1.topics[0].partitions[0].leader_epoch == 4);
  // v2 adds ThrottleTimeMs first.
  auto v2 = round_trip(encode_offset_for_leader_epoch_response,
                       decode_offset_for_leader_epoch_response, res, 2);
  CHECK(v2.throttle_time_ms == 5);
}

// -- DescribeConfigs ------------------------------------------------------------

TEST_CASE("DescribeConfigs v0: IsDefault instead of ConfigSource, no "
          "synonyms",
          "[kafka][old]") {
  // kafka-python DescribeConfigsRequest_v0(resources=[(2, "t", None)]).
  auto req = golden_request("0000000102000174ffffffff", 0,
                            encode_describe_configs_request,
                            decode_describe_configs_request);
  REQUIRE(req.resources.size() == 1);
  CHECK(req.resources[0].resource_type == config_resource_topic);
  CHECK(req.resources[0].resource_name == "t");
  CHECK_FALSE(req.resources[0].configuration_keys);
  CHECK_FALSE(req.include_synonyms);
  // IncludeSynonyms (v1+) is not ignorable.
  req.include_synonyms = true;
  CHECK(refuses(encode_describe_configs_request, req, 0));

  describe_configs_response res;
  describe_configs_result r;
  r.resource_type = config_resource_topic;
  r.resource_name = "t";
  describe_configs_resource_result c;
  c.name = "retention.ms";
  c.value = "604800000";
  c.config_source = 5;                         // ignorable: not in v0
  c.synonyms = {{"log.retention.ms", "1", 4}}; // ignorable: not in v0
  c.is_default = true;
  r.configs = {c};
  res.results = {r};
  // kafka-python DescribeConfigsResponse_v0(throttle_time_ms=0,
  // resources=[(0, None, 2, "t", [("retention.ms", "604800000", False,
  // True, False)])]): name, value, read_only, is_default, is_sensitive.
  auto y = golden_response("00000000000000010000ffff02000174"
                           "00000001000c726574656e74696f6e2e6d73"
                           "0009363034383030303030"
                           "00"  // read_only
                           "01"  // is_default (v0 only)
                           "00", // is_sensitive
                           0, encode_describe_configs_response,
                           decode_describe_configs_response, res);
  REQUIRE(y.results.size() == 1);
  REQUIRE(y.results[0].configs.size() == 1);
  CHECK(y.results[0].configs[0].is_default);
  CHECK(y.results[0].configs[0].config_source == -1);
  CHECK(y.results[0].configs[0].synonyms.empty());
  // v1 carries the source and synonyms, not IsDefault.
  auto v1 = round_trip(encode_describe_configs_response,
                       decode_describe_configs_response, res, 1);
  CHECK(v1.results[0].configs[0].config_source == 5);
  CHECK_FALSE(v1.results[0].configs[0].is_default);
  CHECK(v1.results[0].configs[0].synonyms.size() == 1);
}

// -- whole frames ---------------------------------------------------------------

TEST_CASE("old-version request frames decode through the dispatcher",
          "[kafka][old]") {
  std::string error;
  produce_request produce;
  produce.topics = {{"t", {{0, {1, 2}}}}};
  for (int16_t v = 0; v <= 2; ++v)
    CHECK(decode_request_frame(
      request_frame(api_key::produce, v, encode_produce_request, produce),
      error));
  fetch_request fetch;
  fetch.topics = {{"t", {{0, 5, 1024}}}};
  for (int16_t v = 0; v <= 3; ++v)
    CHECK(decode_request_frame(
      request_frame(api_key::fetch, v, encode_fetch_request, fetch), error));
  list_offsets_request lo;
  lo.topics = {{"t", {{0, -2}}}};
  CHECK(decode_request_frame(
    request_frame(api_key::list_offsets, 0, encode_list_offsets_request, lo),
    error));
  offset_commit_request oc;
  oc.group_id = "g";
  for (int16_t v = 0; v <= 1; ++v)
    CHECK(decode_request_frame(request_frame(api_key::offset_commit, v,
                                             encode_offset_commit_request, oc),
                               error));
  offset_fetch_request of;
  of.group_id = "g";
  CHECK(decode_request_frame(
    request_frame(api_key::offset_fetch, 0, encode_offset_fetch_request, of),
    error));
  delete_topics_request dt;
  dt.topic_names = {"t"};
  CHECK(decode_request_frame(
    request_frame(api_key::delete_topics, 0, encode_delete_topics_request, dt),
    error));
  offset_for_leader_epoch_request ofle;
  for (int16_t v = 0; v <= 1; ++v)
    CHECK(decode_request_frame(
      request_frame(api_key::offset_for_leader_epoch, v,
                    encode_offset_for_leader_epoch_request, ofle),
      error));
  describe_configs_request dc;
  CHECK(decode_request_frame(request_frame(api_key::describe_configs, 0,
                                           encode_describe_configs_request, dc),
                             error));
}

// -- the message formats these versions carry ------------------------------------
//
// What Produce v0-2 and Fetch v0-3 rely on in domain/log's conversions, each
// a rule of Kafka's that the conversions' own tests leave unexercised.

namespace {

legacy_message lmsg(int64_t offset, int8_t magic, int64_t ts,
                    std::optional<bytes> key, std::optional<bytes> value) {
  legacy_message m;
  m.offset = offset;
  m.magic = magic;
  m.timestamp = magic == 0 ? -1 : ts;
  m.key = std::move(key);
  m.value = std::move(value);
  return m;
}

void put_be32(bytes& x, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    x[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

void fix_legacy_crc(bytes& m) {
  put_be32(m, legacy_layout::crc,
           legacy_crc32(m.data() + legacy_layout::magic,
                        m.size() - legacy_layout::magic));
}

/// A v2 batch with other attributes (and its CRC-32C made right again).
bytes with_attributes(bytes batch, int16_t attributes) {
  batch[batch_layout::attributes] = static_cast<uint8_t>(attributes >> 8);
  batch[batch_layout::attributes + 1] = static_cast<uint8_t>(attributes);
  put_be32(batch, batch_layout::crc,
           crc32c(batch.data() + batch_layout::attributes,
                  batch.size() - batch_layout::attributes));
  return batch;
}

std::vector<record> three_records() {
  return {record{b("a"), b("one"), 1000, {}},
          record{std::nullopt, b("two"), 1001, {}},
          record{b("c"), std::nullopt, 1002, {}}};
}

} // namespace

TEST_CASE("a magic 1 wrapper's inner offsets are relative to its own, the "
          "last absolute offset",
          "[kafka][old][formats]") {
  // Inner offsets 0..2 under a wrapper at offset 100: 98, 99, 100
  // (AbstractLegacyRecordBatch: wrapper offset - last inner + inner).
  std::vector<legacy_message> inner{lmsg(0, 1, 1000, b("a"), b("x")),
                                    lmsg(1, 1, 1001, b("b"), b("y")),
                                    lmsg(2, 1, 1002, b("c"), b("z"))};
  auto set = encode_legacy(1, compression_codec::gzip, inner);
  REQUIRE_FALSE(set.empty());
  // encode_legacy writes the wrapper at the last message's offset: 2.
  for (int i = 0; i < 8; ++i)
    set[i] = static_cast<uint8_t>(i == 7 ? 100 : 0);
  auto got = decode_legacy(set.data(), set.size());
  REQUIRE(got.error == error_code::none);
  REQUIRE(got.messages.size() == 3);
  CHECK(got.messages[0].offset == 98);
  CHECK(got.messages[1].offset == 99);
  CHECK(got.messages[2].offset == 100);
}

TEST_CASE("magic 0/1 sets that Kafka refuses: a short magic 1 message, a "
          "key length below -1, a compressed inner message",
          "[kafka][old][formats]") {
  // Magic 1 with 4 bytes of size after the crc: below its 22-byte overhead
  // although above magic 0's 14.
  auto plain = encode_legacy(1, compression_codec::none,
                             {lmsg(0, 1, 5, std::nullopt, b("v"))});
  REQUIRE_FALSE(plain.empty());
  bytes short_v1(plain.begin(), plain.begin() + 12 + 18);
  put_be32(short_v1, legacy_layout::size, 18);
  fix_legacy_crc(short_v1);
  auto short_got = decode_legacy(short_v1.data(), short_v1.size());
  CHECK(short_got.error == error_code::corrupt_message);
  CHECK(short_got.reason.find("magic 1 record overhead") != std::string::npos);
  // Key length -2.
  auto bad_key = plain;
  put_be32(bad_key, legacy_layout::timestamp + 8, 0xfffffffe);
  fix_legacy_crc(bad_key);
  CHECK(decode_legacy(bad_key.data(), bad_key.size()).error
        == error_code::corrupt_message);
  // A gzip wrapper whose inner message says gzip too: INVALID_RECORD.
  auto inner =
    encode_legacy(1, compression_codec::none, {lmsg(0, 1, 5, b("k"), b("v"))});
  inner[legacy_layout::attributes] = 1;
  fix_legacy_crc(inner);
  auto value = compress(compression_codec::gzip, inner.data(), inner.size());
  REQUIRE(value);
  auto outer = encode_legacy(1, compression_codec::none,
                             {lmsg(0, 1, 5, std::nullopt, *value)});
  outer[legacy_layout::attributes] = 1;
  fix_legacy_crc(outer);
  auto got = decode_legacy(outer.data(), outer.size());
  CHECK(got.error == error_code::invalid_record);
}

TEST_CASE("up-conversion keeps the producer's codec", "[kafka][old][formats]") {
  std::vector<legacy_message> msgs{lmsg(0, 1, 1000, b("a"), b("x")),
                                   lmsg(1, 1, 1001, b("b"), b("y"))};
  auto set = encode_legacy(1, compression_codec::gzip, msgs);
  auto up = up_convert(set.data(), set.size());
  REQUIRE(up.error == error_code::none);
  auto h = parse_header(up.records.data(), up.records.size());
  REQUIRE(h);
  CHECK(h->compression() == static_cast<int>(compression_codec::gzip));
  auto records = decode_batch_records(up.records.data(), up.records.size());
  REQUIRE(records);
  REQUIRE(records->size() == 2);
  CHECK((*records)[1].timestamp == 1001);
  CHECK((*records)[1].value == b("y"));
}

TEST_CASE("a magic 0 LZ4 wrapper has Kafka's broken header checksum, every "
          "other LZ4 frame the right one",
          "[kafka][old][formats]") {
  std::vector<legacy_message> msgs{lmsg(0, 0, -1, b("a"), b("x")),
                                   lmsg(1, 0, -1, b("b"), b("y"))};
  auto set = encode_legacy(0, compression_codec::lz4, msgs);
  REQUIRE_FALSE(set.empty());
  // Magic 0: key at 18 (null: -1), value length at 22, value at 26.
  const uint8_t* value = set.data() + 26;
  size_t n = set.size() - 26;
  CHECK_FALSE(decompress(compression_codec::lz4, value, n, nullptr,
                         lz4_header_checksum::correct));
  CHECK(decompress(compression_codec::lz4, value, n, nullptr,
                   lz4_header_checksum::broken_magic0));
  auto back = decode_legacy(set.data(), set.size());
  REQUIRE(back.error == error_code::none);
  CHECK(back.messages.size() == 2);
  // A frame whose header checksum is wrong is refused.
  auto frame = compress(compression_codec::lz4, set.data(), set.size());
  REQUIRE(frame);
  REQUIRE(decompress(compression_codec::lz4, frame->data(), frame->size()));
  (*frame)[6] ^= 0xff; // the header checksum byte (magic 4, FLG, BD, HC)
  CHECK_FALSE(decompress(compression_codec::lz4, frame->data(), frame->size()));
}

TEST_CASE("a raw snappy block without xerial's header decompresses",
          "[kafka][old][formats]") {
  // Length 5, one literal of 5 bytes: "hello".
  bytes raw{0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
  auto out = decompress(compression_codec::snappy, raw.data(), raw.size());
  REQUIRE(out);
  CHECK(*out == b("hello"));
}

TEST_CASE("down-conversion skips control batches, refuses zstd, keeps a "
          "compressed batch whole and its LogAppendTime",
          "[kafka][old][formats]") {
  auto plain = encode_batch(10, 0, three_records());
  REQUIRE_FALSE(plain.empty());
  auto control = with_attributes(plain, batch_layout::control_flag
                                          | batch_layout::transactional_flag);
  auto c = down_convert(control.data(), control.size(), 1, 10);
  CHECK(c.error == error_code::none);
  CHECK(c.records.empty());
  auto zstd = with_attributes(plain, 4);
  CHECK(down_convert(zstd.data(), zstd.size(), 1, 10).error
        == error_code::unsupported_compression_type);
  // Plain: from the fetch offset on; gzip: the whole wrapper.
  auto from = down_convert(plain.data(), plain.size(), 1, 11);
  REQUIRE(from.error == error_code::none);
  CHECK(decode_legacy(from.records.data(), from.records.size()).messages.size()
        == 2);
  auto gz =
    encode_compressed_batch(compression_codec::gzip, 10, 0, three_records());
  auto whole = down_convert(gz.data(), gz.size(), 1, 11);
  REQUIRE(whole.error == error_code::none);
  auto set = decode_legacy(whole.records.data(), whole.records.size());
  REQUIRE(set.messages.size() == 3);
  CHECK(set.messages[0].offset == 10);
  CHECK(set.codec == compression_codec::gzip);
  // A LogAppendTime gzip batch: the wrapper says LogAppendTime and every
  // message has the broker's timestamp.
  set_log_append_time(gz.data(), gz.size(), 5000);
  auto lat = down_convert(gz.data(), gz.size(), 1, 10);
  REQUIRE(lat.error == error_code::none);
  CHECK(lat.records[legacy_layout::attributes]
        & legacy_layout::log_append_time_flag);
  auto lat_set = decode_legacy(lat.records.data(), lat.records.size());
  REQUIRE(lat_set.messages.size() == 3);
  for (auto& m : lat_set.messages) {
    CHECK(m.log_append_time);
    CHECK(m.timestamp == 5000);
  }
}

TEST_CASE("the first whole message fits when asked for at least one",
          "[kafka][old][formats]") {
  auto set = encode_legacy(1, compression_codec::none,
                           {lmsg(0, 1, 1, b("k"), b("0123456789")),
                            lmsg(1, 1, 2, b("k"), b("0123456789"))});
  auto one = set.size() / 2;
  CHECK(fitting_legacy_messages(set.data(), set.size(), 10, true) == one);
  CHECK(fitting_legacy_messages(set.data(), set.size(), 10, false) == 0);
  CHECK(fitting_legacy_messages(set.data(), set.size(), one + 1, false) == one);
}
