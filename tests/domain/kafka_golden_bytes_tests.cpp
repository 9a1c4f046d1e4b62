// Golden bytes: requests and responses as other Kafka implementations put
// them on the wire, none of them written by troupe's encoder. The codec's
// other tests mostly decode what troupe itself encoded, so a bug made the
// same way in decoder and encoder (two fields swapped in one `fields` list,
// a version condition off by one) passes them; against bytes from
// elsewhere it cannot (docs/ARCHITECTURE.md §5: one field list per message
// drives both directions, which is exactly why both can be wrong together).
//
// Four independent sources, named at each vector:
// - kafka-python 2.0.2 (Debian's python3-kafka): its own protocol classes,
//   run once by hand. `request(x, id)` is
//   `RequestHeader(x, correlation_id=id, client_id='kafka-python').encode()
//   + x.encode()` (request header v1); `response(x, id)` is the int32
//   correlation id (response header v0) + `x.encode()`. Each schema used was
//   checked against Kafka's JSON first: kafka-python 2.0.2 gets a few wrong
//   (GroupCoordinatorResponse_v1 lacks ThrottleTimeMs, OffsetRequest_v4 has
//   an int64 CurrentLeaderEpoch, ProduceResponse_v8 lacks RecordErrors), and
//   those are not used.
// - librdkafka 2.0.2 (kcat): requests captured from the socket by a one-off
//   listener that answered just enough to lead `kcat -L`, `kcat -G` and
//   `kcat -P` through metadata, a consumer group and a produce.
// - @platformatic/kafka 2.12.1 (npm, tests/kafka/platformatic): its own
//   protocol code; requests captured from the socket by a one-off listener
//   that only read (AlterConfigs v2, IncrementalAlterConfigs v0 and v1).
// - Kafka's message JSON (apache/kafka
//   clients/src/main/resources/common/message/*.json): flexible versions
//   (KIP-482) assembled field by field, every field commented.
//
// A request decodes to the values its client set, uses every byte, and its
// decoded header and body encode back to the golden bytes. A response
// encodes from a struct to the golden bytes and decodes back to its fields.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/consumer_protocol.hpp"
#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"
#include "domain/log/record_batch.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

/// The bytes a hex string spells.
bytes from_hex(std::string_view hex) {
  auto digit = [](char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  };
  REQUIRE(hex.size() % 2 == 0);
  bytes result;
  auto valid = true;
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto high = digit(hex[i]);
    auto low = digit(hex[i + 1]);
    valid = valid && high >= 0 && low >= 0;
    result.push_back(static_cast<uint8_t>(high * 16 + low));
  }
  REQUIRE(valid);
  return result;
}

/// Compared as hex so that a mismatch prints both byte strings.
std::string to_hex(const bytes& x) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string result;
  for (auto byte : x) {
    result += digits[byte >> 4];
    result += digits[byte & 0x0f];
  }
  return result;
}

template <class T>
struct decoded_request {
  request_header header;
  T body;
};

/// Decodes a golden request (header and body, without the size prefix) as
/// the listener does, requires every byte used, and requires the decoded
/// header and body to encode to the golden bytes again.
template <class T>
decoded_request<T> golden_request(std::string_view hex, api_key key,
                                  int16_t version, decode_fn<T> decode,
                                  encode_fn<T> encode) {
  auto golden = from_hex(hex);
  reader in{golden};
  auto header = decode_request_header(in);
  {
    INFO("header: " << in.error());
    REQUIRE(header);
  }
  CHECK(header->api_key == key_of(key));
  CHECK(header->api_version == version);
  auto body = decode(in, version);
  {
    INFO("body: " << in.error());
    REQUIRE(body);
  }
  CHECK(in.remaining() == 0);
  bytes again;
  writer out{again};
  REQUIRE(encode_request_header(out, *header));
  REQUIRE(encode(out, *body, version));
  CHECK(to_hex(again) == to_hex(golden));
  // And through the listener's path: size prefix, split, dispatch by key.
  std::string error;
  auto dispatched = decode_request_frame(framed(golden), error);
  INFO(error);
  CHECK(dispatched);
  return {*header, *body};
}

/// Requires `x` (with its response header) to encode to the golden bytes,
/// and returns what the golden bytes decode to.
template <class T>
T golden_response(std::string_view hex, api_key key, int16_t version,
                  int32_t correlation_id, encode_fn<T> encode,
                  decode_fn<T> decode, const T& x) {
  auto golden = from_hex(hex);
  bytes buf;
  writer out{buf};
  REQUIRE(encode_response_header(out, response_header{correlation_id},
                                 key_of(key), version));
  REQUIRE(encode(out, x, version));
  CHECK(to_hex(buf) == to_hex(golden));
  reader in{golden};
  auto header = decode_response_header(in, key_of(key), version);
  REQUIRE(header);
  CHECK(header->correlation_id == correlation_id);
  auto y = decode(in, version);
  {
    INFO(in.error());
    REQUIRE(y);
  }
  CHECK(in.remaining() == 0);
  return *y;
}

topic_partition tp(const std::string& topic, int32_t partition) {
  return topic_partition{topic, partition};
}

} // namespace

// -- shared payloads ----------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: DefaultRecordBatchBuilder(magic=2, compression_type=0,
// is_transactional=0, producer_id=-1, producer_epoch=-1, base_sequence=-1) with
// append(0, timestamp=1700000000000, key=b"k1", value=b"v1", headers=[]) and
// append(1, timestamp=1700000000005, key=None, value=b"v2", headers=[("h",
// b"x")]), then build()
constexpr std::string_view kp_record_batch =
  "00000000000000000000004900000000026a8990a30000000000010000018bcf"
  "e568000000018bcfe56805ffffffffffffffffffffffffffff00000002140000"
  "00046b310476310018000a02010476320202680278";
// clang-format on

// clang-format off
// kafka-python 2.0.2: ConsumerProtocolMemberMetadata(0, ['orders'],
// b'').encode()
constexpr std::string_view kp_consumer_subscription_v0 =
  "00000000000100066f726465727300000000";
// clang-format on

// clang-format off
// kafka-python 2.0.2: ConsumerProtocolMemberAssignment(0, [('orders', [0, 1])],
// b'').encode(); orders_2 below is the same with [('orders', [2])]
constexpr std::string_view kp_consumer_assignment_orders_0_1 =
  "00000000000100066f726465727300000002000000000000000100000000";
// clang-format on

TEST_CASE("RecordBatch v2 golden bytes from kafka-python: troupe writes the "
          "same batch, CRC-32C included, and reads its records back",
          "[kafka][golden]") {
  auto golden = from_hex(kp_record_batch);
  CHECK(validate_batch(golden.data(), golden.size(), 1 << 20)
        == error_code::none);
  auto header = parse_header(golden.data(), golden.size());
  REQUIRE(header);
  CHECK(header->crc == 0x6a8990a3);
  CHECK(header->records_count == 2);
  CHECK(header->last_offset_delta == 1);
  CHECK(header->base_timestamp == 1700000000000);
  CHECK(header->max_timestamp == 1700000000005);
  CHECK(header->producer_id == -1);
  auto records = decode_records(golden.data(), golden.size());
  REQUIRE(records);
  REQUIRE(records->size() == 2);
  CHECK((*records)[0].offset == 0);
  CHECK((*records)[0].timestamp == 1700000000000);
  CHECK((*records)[0].key == b("k1"));
  CHECK((*records)[0].value == b("v1"));
  CHECK((*records)[0].headers.empty());
  CHECK((*records)[1].offset == 1);
  CHECK((*records)[1].timestamp == 1700000000005);
  CHECK_FALSE((*records)[1].key);
  CHECK((*records)[1].value == b("v2"));
  REQUIRE((*records)[1].headers.size() == 1);
  CHECK((*records)[1].headers[0].key == "h");
  CHECK((*records)[1].headers[0].value == b("x"));
  auto ours = encode_batch(
    0, 0,
    {record{b("k1"), b("v1"), 1700000000000, {}},
     record{std::nullopt, b("v2"), 1700000000005, {{"h", b("x")}}}});
  CHECK(to_hex(ours) == to_hex(golden));
}

TEST_CASE("consumer protocol golden bytes from kafka-python: subscription v0 "
          "and assignment v0 decode to their topics and partitions",
          "[kafka][golden]") {
  // Only the reading is compared: kafka-python writes empty user data with
  // length 0, troupe with -1 (null, as Kafka's own assignors leave it);
  // ConsumerProtocolSubscription.json allows both.
  auto subscription =
    decode_subscription(from_hex(kp_consumer_subscription_v0));
  REQUIRE(subscription);
  CHECK(subscription->topics == std::vector<std::string>{"orders"});
  CHECK(subscription->user_data.empty());
  auto assignment =
    decode_assignment(from_hex(kp_consumer_assignment_orders_0_1));
  REQUIRE(assignment);
  CHECK(assignment->partitions
        == std::vector<topic_partition>{tp("orders", 0), tp("orders", 1)});
}

// -- ApiVersions --------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(ApiVersionRequest[0](), 1)
constexpr std::string_view kp_api_versions_v0_request =
  "0012000000000001000c6b61666b612d707974686f6e";
// clang-format on

TEST_CASE("ApiVersions v0 request golden bytes from kafka-python: request "
          "header v1 with its client id and an empty body, byte for byte",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_api_versions_v0_request, api_key::api_versions, 0,
                   decode_api_versions_request, encode_api_versions_request);
  CHECK(header.correlation_id == 1);
  CHECK(header.client_id == "kafka-python");
  CHECK(body.client_software_name.empty());
  CHECK(body.client_software_version.empty());
}

// clang-format off
// librdkafka 2.0.2 ApiVersions v3 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_api_versions_v3_request =
  "0012"                    // request_api_key: ApiVersions (18)
  "0003"                    // request_api_version: 3
  "00000001"                // correlation_id: 1
  "000772646b61666b61"      // client_id: "rdkafka"
  "00"                      // header v2: no tagged fields
  "0b6c696272646b61666b61"  // client_software_name: "librdkafka"
  "06322e302e32"            // client_software_version: "2.0.2"
  "00";                     // no tagged fields
// clang-format on

TEST_CASE("ApiVersions v3 request golden bytes from librdkafka: request "
          "header v2 and the client software (KIP-511), byte for byte",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_api_versions_v3_request, api_key::api_versions, 3,
                   decode_api_versions_request, encode_api_versions_request);
  CHECK(header.correlation_id == 1);
  CHECK(header.client_id == "rdkafka");
  CHECK(body.client_software_name == "librdkafka");
  CHECK(body.client_software_version == "2.0.2");
  CHECK(is_valid(body, 3));
}

// clang-format off
// kafka-python 2.0.2: response(ApiVersionResponse[0](35, [(18, 0, 4)]), 1)
constexpr std::string_view kp_api_versions_v0_response =
  "00000001002300000001001200000004";
// clang-format on

TEST_CASE("ApiVersions v0 response golden bytes from kafka-python: "
          "UNSUPPORTED_VERSION listing only ApiVersions 0-4",
          "[kafka][golden]") {
  // What troupe answers to a version it does not serve (KIP-511).
  auto answer =
    answer_api_versions(api_versions_request{}, 99, supported_versions());
  CHECK(answer.version == 0);
  auto y = golden_response(kp_api_versions_v0_response, api_key::api_versions,
                           0, 1, encode_api_versions_response,
                           decode_api_versions_response, answer.response);
  CHECK(y.error == error_code::unsupported_version);
  REQUIRE(y.api_keys.size() == 1);
  CHECK(y.api_keys[0].api_key == 18);
  CHECK(y.api_keys[0].min_version == 0);
  CHECK(y.api_keys[0].max_version == 4);
}

// clang-format off
// kafka-python 2.0.2: response(ApiVersionResponse[1](0, [(0, 3, 12), (3, 0,
// 13), (18, 0, 4)], 0), 2)
constexpr std::string_view kp_api_versions_v1_response =
  "0000000200000000000300000003000c00030000000d00120000000400000000";
// clang-format on

TEST_CASE("ApiVersions v1 response golden bytes from kafka-python: the "
          "version table and the throttle time",
          "[kafka][golden]") {
  api_versions_response x;
  x.api_keys = {{0, 3, 12}, {3, 0, 13}, {18, 0, 4}};
  auto y = golden_response(kp_api_versions_v1_response, api_key::api_versions,
                           1, 2, encode_api_versions_response,
                           decode_api_versions_response, x);
  CHECK(y.error == error_code::none);
  REQUIRE(y.api_keys.size() == 3);
  CHECK(y.api_keys[1].api_key == 3);
  CHECK(y.api_keys[1].min_version == 0);
  CHECK(y.api_keys[1].max_version == 13);
  CHECK(y.api_keys[2].api_key == 18);
  CHECK(y.throttle_time_ms == 0);
}

// clang-format off
// ApiVersions v3 response (header v0, as for every ApiVersions response),
// assembled field by field from apache/kafka
// clients/src/main/resources/common/message/ApiVersionsResponse.json.
// librdkafka 2.0.2 reads it (served to kcat -L -d protocol, it lists Produce
// 3..12 and ApiVersion 0..4).
constexpr std::string_view spec_api_versions_v3_response =
  // correlation_id: 1 (response header v0: no tagged fields)
  "00000001"
  "0000"                                // error_code: 0
  "03"                                  // api_keys: 2 (compact array: 2 + 1)
  "0000"                                //   api_key: 0 (Produce)
  "0003"                                //   min_version: 3
  "000c"                                //   max_version: 12
  "00"                                  //   no tagged fields
  "0012"                                //   api_key: 18 (ApiVersions)
  "0000"                                //   min_version: 0
  "0004"                                //   max_version: 4
  "00"                                  //   no tagged fields
  "00000000"                            // throttle_time_ms: 0
  "02"                                  // tagged fields: 2
  "00"                                  //   tag 0: SupportedFeatures
  "17"                                  //   size: 23
  "02"                                  //     1 feature
  "116d657461646174612e76657273696f6e"  //       name: "metadata.version"
  "0001"                                //       min_version: 1
  "0014"                                //       max_version: 20
  "00"                                  //       no tagged fields
  "01"                                  //   tag 1: FinalizedFeaturesEpoch
  "08"                                  //   size: 8
  "0000000000000005";                   //     5
// clang-format on

TEST_CASE("ApiVersions v3 response golden bytes from the JSON schema: "
          "response header v0, compact table, tagged SupportedFeatures and "
          "FinalizedFeaturesEpoch",
          "[kafka][golden]") {
  api_versions_response x;
  x.api_keys = {{0, 3, 12}, {18, 0, 4}};
  x.supported_features =
    std::vector<supported_feature_key>{{"metadata.version", 1, 20}};
  x.finalized_features_epoch = 5;
  auto y = golden_response(spec_api_versions_v3_response, api_key::api_versions,
                           3, 1, encode_api_versions_response,
                           decode_api_versions_response, x);
  CHECK(y.error == error_code::none);
  REQUIRE(y.api_keys.size() == 2);
  CHECK(y.api_keys[0].api_key == 0);
  CHECK(y.api_keys[0].min_version == 3);
  CHECK(y.api_keys[0].max_version == 12);
  CHECK(y.api_keys[1].api_key == 18);
  CHECK(y.api_keys[1].max_version == 4);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.supported_features);
  REQUIRE(y.supported_features->size() == 1);
  CHECK((*y.supported_features)[0].name == "metadata.version");
  CHECK((*y.supported_features)[0].min_version == 1);
  CHECK((*y.supported_features)[0].max_version == 20);
  CHECK(y.finalized_features_epoch == 5);
  CHECK_FALSE(y.finalized_features);
  CHECK_FALSE(y.zk_migration_ready);
}

// -- Metadata -----------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(MetadataRequest[0](['orders', 'payments']), 3)
constexpr std::string_view kp_metadata_v0_request =
  "0003000000000003000c6b61666b612d707974686f6e0000000200066f726465"
  "727300087061796d656e7473";
// clang-format on

TEST_CASE("Metadata v0 request golden bytes from kafka-python: two topics "
          "by name, byte for byte",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_metadata_v0_request, api_key::metadata, 0,
                   decode_metadata_request, encode_metadata_request);
  CHECK(header.correlation_id == 3);
  CHECK(header.client_id == "kafka-python");
  REQUIRE(body.topics);
  REQUIRE(body.topics->size() == 2);
  CHECK((*body.topics)[0].name == "orders");
  CHECK((*body.topics)[0].topic_id.is_zero());
  CHECK((*body.topics)[1].name == "payments");
}

// clang-format off
// kafka-python 2.0.2: request(MetadataRequest[1](None), 4)
constexpr std::string_view kp_metadata_v1_request =
  "0003000100000004000c6b61666b612d707974686f6effffffff";
// clang-format on

TEST_CASE("Metadata v1 request golden bytes from kafka-python: null topics "
          "ask for every topic, byte for byte",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_metadata_v1_request, api_key::metadata, 1,
                   decode_metadata_request, encode_metadata_request);
  CHECK(header.correlation_id == 4);
  CHECK_FALSE(body.topics);
}

// clang-format off
// librdkafka 2.0.2 Metadata v4 (kcat) request, captured from the socket by a
// one-off listener (kcat -L)
constexpr std::string_view rdk_metadata_v4_request =
  "0003"                // request_api_key: Metadata (3)
  "0004"                // request_api_version: 4
  "00000003"            // correlation_id: 3
  "000772646b61666b61"  // client_id: "rdkafka"
  "ffffffff"            // topics: null (every topic)
  "01";                 // allow_auto_topic_creation: true
// clang-format on

// clang-format off
// librdkafka 2.0.2 Metadata v4 (kcat) request, captured from the socket by a
// one-off listener (kcat -G, a consumer)
constexpr std::string_view rdk_metadata_v4_topic_request =
  "0003"                // request_api_key: Metadata (3)
  "0004"                // request_api_version: 4
  "00000005"            // correlation_id: 5
  "000772646b61666b61"  // client_id: "rdkafka"
  "00000001"            // topics: 1
  "0006676f6c64656e"    //   name: "golden"
  "00";                 // allow_auto_topic_creation: false
// clang-format on

TEST_CASE("Metadata v4 request golden bytes from librdkafka: every topic with "
          "auto-creation, or one topic without, byte for byte",
          "[kafka][golden]") {
  auto all = golden_request(rdk_metadata_v4_request, api_key::metadata, 4,
                            decode_metadata_request, encode_metadata_request);
  CHECK(all.header.correlation_id == 3);
  CHECK(all.header.client_id == "rdkafka");
  CHECK_FALSE(all.body.topics);
  CHECK(all.body.allow_auto_topic_creation);
  auto one = golden_request(rdk_metadata_v4_topic_request, api_key::metadata, 4,
                            decode_metadata_request, encode_metadata_request);
  CHECK(one.header.correlation_id == 5);
  REQUIRE(one.body.topics);
  REQUIRE(one.body.topics->size() == 1);
  CHECK((*one.body.topics)[0].name == "golden");
  CHECK_FALSE(one.body.allow_auto_topic_creation);
}

// clang-format off
// Metadata v9 request (the first flexible version), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/MetadataRequest.json
constexpr std::string_view spec_metadata_v9_request =
  "0003"              // request_api_key: Metadata (3)
  "0009"              // request_api_version: 9
  "00000015"          // correlation_id: 21
  "0006676f6c64656e"  // client_id: "golden" (int16 length even in header v2)
  "00"                // header v2: no tagged fields
  "02"                // topics: 1
  "076f7264657273"    //   name: "orders"
  "00"                //   no tagged fields
  "01"                // allow_auto_topic_creation: true
  "00"                // include_cluster_authorized_operations: false
  "01"                // include_topic_authorized_operations: true
  "00";               // no tagged fields
// clang-format on

TEST_CASE("Metadata v9 request golden bytes from the JSON schema: request "
          "header v2, compact topics, the authorized-operations flags",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_metadata_v9_request, api_key::metadata, 9,
                   decode_metadata_request, encode_metadata_request);
  CHECK(header.correlation_id == 21);
  CHECK(header.client_id == "golden");
  REQUIRE(body.topics);
  REQUIRE(body.topics->size() == 1);
  CHECK((*body.topics)[0].name == "orders");
  CHECK(body.allow_auto_topic_creation);
  CHECK_FALSE(body.include_cluster_authorized_operations);
  CHECK(body.include_topic_authorized_operations);
}

// clang-format off
// Metadata v12 request (a topic asked for by id, with a null name), assembled
// field by field from apache/kafka
// clients/src/main/resources/common/message/MetadataRequest.json
constexpr std::string_view spec_metadata_v12_request =
  "0003"                              // request_api_key: Metadata (3)
  "000c"                              // request_api_version: 12
  "00000016"                          // correlation_id: 22
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                                // header v2: no tagged fields
  "02"                                // topics: 1
  // topic_id: 01020304-0506-0708-090a-0b0c0d0e0f10
  "0102030405060708090a0b0c0d0e0f10"
  "00"                                //   name: null
  "00"                                //   no tagged fields
  "00"                                // allow_auto_topic_creation: false
  // include_topic_authorized_operations: false
  "00"
  "00";                               // no tagged fields
// clang-format on

TEST_CASE("Metadata v12 request golden bytes from the JSON schema: a topic "
          "asked for by id with a null name",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_metadata_v12_request, api_key::metadata, 12,
                   decode_metadata_request, encode_metadata_request);
  CHECK(header.correlation_id == 22);
  REQUIRE(body.topics);
  REQUIRE(body.topics->size() == 1);
  CHECK((*body.topics)[0].topic_id
        == uuid{0x0102030405060708, 0x090a0b0c0d0e0f10});
  CHECK_FALSE((*body.topics)[0].name);
  CHECK_FALSE(body.allow_auto_topic_creation);
  CHECK_FALSE(body.include_topic_authorized_operations);
}

// clang-format off
// kafka-python 2.0.2: response(MetadataResponse[5](0, [(1, 'broker-1', 9092,
// 'rack-a'), (2, 'broker-2', 9093, None)], 'troupe-cluster', 1, [(0, 'orders',
// False, [(0, 0, 1, [1, 2], [1, 2], []), (5, 1, -1, [2, 1], [1], [2])]), (3,
// 'missing', False, [])]), 4)
constexpr std::string_view kp_metadata_v5_response =
  "00000004000000000000000200000001000862726f6b65722d31000023840006"
  "7261636b2d6100000002000862726f6b65722d3200002385ffff000e74726f75"
  "70652d636c75737465720000000100000002000000066f726465727300000000"
  "0200000000000000000001000000020000000100000002000000020000000100"
  "00000200000000000500000001ffffffff000000020000000200000001000000"
  "01000000010000000100000002000300076d697373696e670000000000";
// clang-format on

TEST_CASE("Metadata v5 response golden bytes from kafka-python: brokers with "
          "racks, cluster id, controller, partitions with offline replicas",
          "[kafka][golden]") {
  metadata_response x;
  x.brokers = {{1, "broker-1", 9092, "rack-a"},
               {2, "broker-2", 9093, std::nullopt}};
  x.cluster_id = "troupe-cluster";
  x.controller_id = 1;
  metadata_topic orders;
  orders.name = "orders";
  orders.partitions = {
    {error_code::none, 0, 1, {1, 2}, {1, 2}, -1, {}},
    {error_code::leader_not_available, 1, -1, {2, 1}, {1}, -1, {2}}};
  metadata_topic missing;
  missing.error = error_code::unknown_topic_or_partition;
  missing.name = "missing";
  x.topics = {orders, missing};
  auto y =
    golden_response(kp_metadata_v5_response, api_key::metadata, 5, 4,
                    encode_metadata_response, decode_metadata_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.brokers.size() == 2);
  CHECK(y.brokers[0].node_id == 1);
  CHECK(y.brokers[0].host == "broker-1");
  CHECK(y.brokers[0].port == 9092);
  CHECK(y.brokers[0].rack == "rack-a");
  CHECK(y.brokers[1].node_id == 2);
  CHECK(y.brokers[1].port == 9093);
  CHECK_FALSE(y.brokers[1].rack);
  CHECK(y.cluster_id == "troupe-cluster");
  CHECK(y.controller_id == 1);
  REQUIRE(y.topics.size() == 2);
  CHECK(y.topics[0].error == error_code::none);
  CHECK(y.topics[0].name == "orders");
  CHECK_FALSE(y.topics[0].is_internal);
  REQUIRE(y.topics[0].partitions.size() == 2);
  const auto& p0 = y.topics[0].partitions[0];
  CHECK(p0.error == error_code::none);
  CHECK(p0.partition_index == 0);
  CHECK(p0.leader_id == 1);
  CHECK(p0.replica_nodes == std::vector<int32_t>{1, 2});
  CHECK(p0.isr_nodes == std::vector<int32_t>{1, 2});
  CHECK(p0.offline_replicas.empty());
  const auto& p1 = y.topics[0].partitions[1];
  CHECK(p1.error == error_code::leader_not_available);
  CHECK(p1.partition_index == 1);
  CHECK(p1.leader_id == -1);
  CHECK(p1.replica_nodes == std::vector<int32_t>{2, 1});
  CHECK(p1.isr_nodes == std::vector<int32_t>{1});
  CHECK(p1.offline_replicas == std::vector<int32_t>{2});
  CHECK(y.topics[1].error == error_code::unknown_topic_or_partition);
  CHECK(y.topics[1].name == "missing");
  CHECK(y.topics[1].partitions.empty());
}

// clang-format off
// Metadata v9 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/MetadataResponse.json
constexpr std::string_view spec_metadata_v9_response =
  "00000015"                        // correlation_id: 21
  "00"                              // header v1: no tagged fields
  "00000000"                        // throttle_time_ms: 0
  "03"                              // brokers: 2
  "00000001"                        //   node_id: 1
  "0962726f6b65722d31"              //   host: "broker-1"
  "00002384"                        //   port: 9092
  "077261636b2d61"                  //   rack: "rack-a"
  "00"                              //   no tagged fields
  "00000002"                        //   node_id: 2
  "0962726f6b65722d32"              //   host: "broker-2"
  "00002385"                        //   port: 9093
  "00"                              //   rack: null
  "00"                              //   no tagged fields
  "0f74726f7570652d636c7573746572"  // cluster_id: "troupe-cluster"
  "00000001"                        // controller_id: 1
  "02"                              // topics: 1
  "0000"                            //   error_code: 0
  "076f7264657273"                  //   name: "orders"
  "00"                              //   is_internal: false
  "02"                              //   partitions: 1
  "0000"                            //     error_code: 0
  "00000000"                        //     partition_index: 0
  "00000001"                        //     leader_id: 1
  "00000004"                        //     leader_epoch: 4
  "03"                              //     replica_nodes: 2
  "00000001"                        //       1
  "00000002"                        //       2
  "02"                              //     isr_nodes: 1
  "00000001"                        //       1
  "02"                              //     offline_replicas: 1
  "00000002"                        //       2
  "00"                              //     no tagged fields
  // topic_authorized_operations: INT32_MIN (not requested)
  "80000000"
  "00"                              //   no tagged fields
  // cluster_authorized_operations: INT32_MIN (not requested)
  "80000000"
  "00";                             // no tagged fields
// clang-format on

TEST_CASE("Metadata v9 response golden bytes from the JSON schema: response "
          "header v1, compact brokers and topics, leader epoch, authorized "
          "operations not requested",
          "[kafka][golden]") {
  metadata_response x;
  x.brokers = {{1, "broker-1", 9092, "rack-a"},
               {2, "broker-2", 9093, std::nullopt}};
  x.cluster_id = "troupe-cluster";
  x.controller_id = 1;
  metadata_topic orders;
  orders.name = "orders";
  orders.partitions = {{error_code::none, 0, 1, {1, 2}, {1}, 4, {2}}};
  x.topics = {orders};
  auto y =
    golden_response(spec_metadata_v9_response, api_key::metadata, 9, 21,
                    encode_metadata_response, decode_metadata_response, x);
  REQUIRE(y.brokers.size() == 2);
  CHECK(y.brokers[0].host == "broker-1");
  CHECK(y.brokers[0].rack == "rack-a");
  CHECK(y.brokers[1].host == "broker-2");
  CHECK_FALSE(y.brokers[1].rack);
  CHECK(y.cluster_id == "troupe-cluster");
  CHECK(y.controller_id == 1);
  REQUIRE(y.topics.size() == 1);
  CHECK(y.topics[0].name == "orders");
  CHECK(y.topics[0].topic_authorized_operations
        == authorized_operations_omitted);
  REQUIRE(y.topics[0].partitions.size() == 1);
  const auto& p = y.topics[0].partitions[0];
  CHECK(p.leader_id == 1);
  CHECK(p.leader_epoch == 4);
  CHECK(p.replica_nodes == std::vector<int32_t>{1, 2});
  CHECK(p.isr_nodes == std::vector<int32_t>{1});
  CHECK(p.offline_replicas == std::vector<int32_t>{2});
  CHECK(y.cluster_authorized_operations == authorized_operations_omitted);
}

// -- CreateTopics -------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(CreateTopicsRequest[0]( [('orders', 3, 2, [],
// [('cleanup.policy', 'compact'), ('retention.ms', None)]), ('placed', -1, -1,
// [(0, [1, 2]), (1, [2, 1])], [])], 30000), 5)
constexpr std::string_view kp_create_topics_v0_request =
  "0013000000000005000c6b61666b612d707974686f6e0000000200066f726465"
  "72730000000300020000000000000002000e636c65616e75702e706f6c696379"
  "0007636f6d70616374000c726574656e74696f6e2e6d73ffff0006706c616365"
  "64ffffffffffff00000002000000000000000200000001000000020000000100"
  "00000200000002000000010000000000007530";
// clang-format on

TEST_CASE("CreateTopics v0 request golden bytes from kafka-python: counts, "
          "manual assignments and configs with a null value",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_create_topics_v0_request, api_key::create_topics, 0,
                   decode_create_topics_request, encode_create_topics_request);
  CHECK(header.correlation_id == 5);
  REQUIRE(body.topics.size() == 2);
  const auto& orders = body.topics[0];
  CHECK(orders.name == "orders");
  CHECK(orders.num_partitions == 3);
  CHECK(orders.replication_factor == 2);
  CHECK(orders.assignments.empty());
  REQUIRE(orders.configs.size() == 2);
  CHECK(orders.configs[0].name == "cleanup.policy");
  CHECK(orders.configs[0].value == "compact");
  CHECK(orders.configs[1].name == "retention.ms");
  CHECK_FALSE(orders.configs[1].value);
  const auto& placed = body.topics[1];
  CHECK(placed.name == "placed");
  CHECK(placed.num_partitions == -1);
  CHECK(placed.replication_factor == -1);
  REQUIRE(placed.assignments.size() == 2);
  CHECK(placed.assignments[0].partition_index == 0);
  CHECK(placed.assignments[0].broker_ids == std::vector<int32_t>{1, 2});
  CHECK(placed.assignments[1].partition_index == 1);
  CHECK(placed.assignments[1].broker_ids == std::vector<int32_t>{2, 1});
  CHECK(placed.configs.empty());
  CHECK(body.timeout_ms == 30000);
  CHECK_FALSE(body.validate_only);
}

// clang-format off
// kafka-python 2.0.2: request(CreateTopicsRequest[3]([('orders', 3, 2, [],
// [])], 5000, True), 6)
constexpr std::string_view kp_create_topics_v3_request =
  "0013000300000006000c6b61666b612d707974686f6e0000000100066f726465"
  "727300000003000200000000000000000000138801";
// clang-format on

TEST_CASE("CreateTopics v3 request golden bytes from kafka-python: "
          "validate_only after the timeout",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_create_topics_v3_request, api_key::create_topics, 3,
                   decode_create_topics_request, encode_create_topics_request);
  CHECK(header.correlation_id == 6);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "orders");
  CHECK(body.topics[0].num_partitions == 3);
  CHECK(body.topics[0].replication_factor == 2);
  CHECK(body.timeout_ms == 5000);
  CHECK(body.validate_only);
}

// clang-format off
// CreateTopics v5 request (the first flexible version), assembled field by
// field from apache/kafka
// clients/src/main/resources/common/message/CreateTopicsRequest.json
constexpr std::string_view spec_create_topics_v5_request =
  "0013"                            // request_api_key: CreateTopics (19)
  "0005"                            // request_api_version: 5
  "00000017"                        // correlation_id: 23
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                              // header v2: no tagged fields
  "03"                              // topics: 2
  "076f7264657273"                  //   name: "orders"
  "00000003"                        //   num_partitions: 3
  "0002"                            //   replication_factor: 2
  "01"                              //   assignments: 0
  "02"                              //   configs: 1
  "0f636c65616e75702e706f6c696379"  //     name: "cleanup.policy"
  "08636f6d70616374"                //     value: "compact"
  "00"                              //     no tagged fields
  "00"                              //   no tagged fields
  "07706c61636564"                  //   name: "placed"
  "ffffffff"                        //   num_partitions: -1
  "ffff"                            //   replication_factor: -1
  "02"                              //   assignments: 1
  "00000000"                        //     partition_index: 0
  "03"                              //     broker_ids: 2
  "00000001"                        //       1
  "00000002"                        //       2
  "00"                              //     no tagged fields
  "02"                              //   configs: 1
  "0d726574656e74696f6e2e6d73"      //     name: "retention.ms"
  "00"                              //     value: null
  "00"                              //     no tagged fields
  "00"                              //   no tagged fields
  "00001388"                        // timeout_ms: 5000
  "00"                              // validate_only: false
  "00";                             // no tagged fields
// clang-format on

TEST_CASE("CreateTopics v5 request golden bytes from the JSON schema: compact "
          "topics, assignments and a null config value",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_create_topics_v5_request, api_key::create_topics, 5,
                   decode_create_topics_request, encode_create_topics_request);
  CHECK(header.correlation_id == 23);
  REQUIRE(body.topics.size() == 2);
  CHECK(body.topics[0].name == "orders");
  CHECK(body.topics[0].num_partitions == 3);
  CHECK(body.topics[0].replication_factor == 2);
  REQUIRE(body.topics[0].configs.size() == 1);
  CHECK(body.topics[0].configs[0].name == "cleanup.policy");
  CHECK(body.topics[0].configs[0].value == "compact");
  CHECK(body.topics[1].name == "placed");
  CHECK(body.topics[1].num_partitions == -1);
  REQUIRE(body.topics[1].assignments.size() == 1);
  CHECK(body.topics[1].assignments[0].broker_ids == std::vector<int32_t>{1, 2});
  REQUIRE(body.topics[1].configs.size() == 1);
  CHECK(body.topics[1].configs[0].name == "retention.ms");
  CHECK_FALSE(body.topics[1].configs[0].value);
  CHECK(body.timeout_ms == 5000);
  CHECK_FALSE(body.validate_only);
}

// clang-format off
// kafka-python 2.0.2: response(CreateTopicsResponse[2](0, [('orders', 0, None),
// ('exists', 36, 'Topic already exists.')]), 6)
constexpr std::string_view kp_create_topics_v2_response =
  "00000006000000000000000200066f72646572730000ffff0006657869737473"
  "00240015546f70696320616c7265616479206578697374732e";
// clang-format on

TEST_CASE("CreateTopics v2 response golden bytes from kafka-python: throttle "
          "time first, then per topic its error and message",
          "[kafka][golden]") {
  create_topics_response x;
  creatable_topic_result ok;
  ok.name = "orders";
  creatable_topic_result exists;
  exists.name = "exists";
  exists.error = error_code::topic_already_exists;
  exists.error_message = "Topic already exists.";
  x.topics = {ok, exists};
  auto y = golden_response(kp_create_topics_v2_response, api_key::create_topics,
                           2, 6, encode_create_topics_response,
                           decode_create_topics_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.topics.size() == 2);
  CHECK(y.topics[0].name == "orders");
  CHECK(y.topics[0].error == error_code::none);
  CHECK_FALSE(y.topics[0].error_message);
  CHECK(y.topics[1].name == "exists");
  CHECK(y.topics[1].error == error_code::topic_already_exists);
  CHECK(y.topics[1].error_message == "Topic already exists.");
}

// clang-format off
// CreateTopics v5 response (KIP-525 configs and the tagged
// TopicConfigErrorCode), assembled field by field from apache/kafka
// clients/src/main/resources/common/message/CreateTopicsResponse.json
constexpr std::string_view spec_create_topics_v5_response =
  "00000017"                        // correlation_id: 23
  "00"                              // header v1: no tagged fields
  "00000000"                        // throttle_time_ms: 0
  "03"                              // topics: 2
  "076f7264657273"                  //   name: "orders"
  "0000"                            //   error_code: 0
  "00"                              //   error_message: null
  "00000003"                        //   num_partitions: 3
  "0002"                            //   replication_factor: 2
  "02"                              //   configs: 1
  "0f636c65616e75702e706f6c696379"  //     name: "cleanup.policy"
  "08636f6d70616374"                //     value: "compact"
  "00"                              //     read_only: false
  // config_source: 1 (DYNAMIC_TOPIC_CONFIG)
  "01"
  "00"                              //     is_sensitive: false
  "00"                              //     no tagged fields
  "00"                              //   no tagged fields
  "07706c61636564"                  //   name: "placed"
  "0000"                            //   error_code: 0
  "00"                              //   error_message: null
  "00000001"                        //   num_partitions: 1
  "0002"                            //   replication_factor: 2
  "00"                              //   configs: null (compact null array)
  "01"                              //   tagged fields: 1
  "00"                              //     tag 0: TopicConfigErrorCode
  "02"                              //     size: 2
  "ffff"                            //       -1 (UNKNOWN_SERVER_ERROR)
  "00";                             // no tagged fields
// clang-format on

TEST_CASE("CreateTopics v5 response golden bytes from the JSON schema: the "
          "applied configs (KIP-525) and the tagged TopicConfigErrorCode",
          "[kafka][golden]") {
  create_topics_response x;
  creatable_topic_result orders;
  orders.name = "orders";
  orders.num_partitions = 3;
  orders.replication_factor = 2;
  orders.configs = std::vector<creatable_topic_configs>{
    {"cleanup.policy", "compact", false, 1, false}};
  creatable_topic_result placed;
  placed.name = "placed";
  placed.num_partitions = 1;
  placed.replication_factor = 2;
  placed.configs = std::nullopt;
  placed.topic_config_error = error_code::unknown_server_error;
  x.topics = {orders, placed};
  auto y = golden_response(
    spec_create_topics_v5_response, api_key::create_topics, 5, 23,
    encode_create_topics_response, decode_create_topics_response, x);
  REQUIRE(y.topics.size() == 2);
  CHECK(y.topics[0].name == "orders");
  CHECK(y.topics[0].num_partitions == 3);
  CHECK(y.topics[0].replication_factor == 2);
  REQUIRE(y.topics[0].configs);
  REQUIRE(y.topics[0].configs->size() == 1);
  const auto& config = (*y.topics[0].configs)[0];
  CHECK(config.name == "cleanup.policy");
  CHECK(config.value == "compact");
  CHECK_FALSE(config.read_only);
  CHECK(config.config_source == 1);
  CHECK_FALSE(config.is_sensitive);
  CHECK_FALSE(y.topics[0].topic_config_error);
  CHECK(y.topics[1].name == "placed");
  CHECK(y.topics[1].num_partitions == 1);
  CHECK_FALSE(y.topics[1].configs);
  CHECK(y.topics[1].topic_config_error == error_code::unknown_server_error);
}

// -- AlterConfigs and IncrementalAlterConfigs ---------------------------------

// clang-format off
// kafka-python 2.0.2: request(AlterConfigsRequest[0](resources=[(2, 'orders',
// [('retention.ms', '60000'), ('cleanup.policy', None)]), (4, '1', [])],
// validate_only=True), 7)
constexpr std::string_view kp_alter_configs_v0_request =
  "0021000000000007000c6b61666b612d707974686f6e000000020200066f7264"
  "65727300000002000c726574656e74696f6e2e6d7300053630303030000e636c"
  "65616e75702e706f6c696379ffff040001310000000001";
// clang-format on

TEST_CASE("AlterConfigs v0 request golden bytes from kafka-python: a topic's "
          "configs with a null value, a broker with none, validate_only",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_alter_configs_v0_request, api_key::alter_configs, 0,
                   decode_alter_configs_request, encode_alter_configs_request);
  CHECK(header.correlation_id == 7);
  CHECK(header.client_id == "kafka-python");
  REQUIRE(body.resources.size() == 2);
  const auto& topic = body.resources[0];
  CHECK(topic.resource_type == config_resource_topic);
  CHECK(topic.resource_name == "orders");
  REQUIRE(topic.configs.size() == 2);
  CHECK(topic.configs[0].name == "retention.ms");
  CHECK(topic.configs[0].value == "60000");
  CHECK(topic.configs[1].name == "cleanup.policy");
  CHECK_FALSE(topic.configs[1].value);
  CHECK(body.resources[1].resource_type == config_resource_broker);
  CHECK(body.resources[1].resource_name == "1");
  CHECK(body.resources[1].configs.empty());
  CHECK(body.validate_only);
}

// clang-format off
// kafka-python 2.0.2: request(AlterConfigsRequest[1](resources=[(2, 'orders',
// [('cleanup.policy', 'compact,delete')])], validate_only=False), 8)
constexpr std::string_view kp_alter_configs_v1_request =
  "0021000100000008000c6b61666b612d707974686f6e000000010200066f7264"
  "65727300000001000e636c65616e75702e706f6c696379000e636f6d70616374"
  "2c64656c65746500";
// clang-format on

TEST_CASE("AlterConfigs v1 request golden bytes from kafka-python: the same "
          "layout as v0",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_alter_configs_v1_request, api_key::alter_configs, 1,
                   decode_alter_configs_request, encode_alter_configs_request);
  CHECK(header.correlation_id == 8);
  REQUIRE(body.resources.size() == 1);
  REQUIRE(body.resources[0].configs.size() == 1);
  CHECK(body.resources[0].configs[0].name == "cleanup.policy");
  CHECK(body.resources[0].configs[0].value == "compact,delete");
  CHECK_FALSE(body.validate_only);
}

// clang-format off
// @platformatic/kafka 2.12.1: alterConfigsV2.api(connection, [{resourceType:
// 2, resourceName: 'orders', configs: [{name: 'segment.bytes', value:
// '1048576'}, {name: 'retention.ms', value: null}]}], true), captured from
// the socket (client id "golden", correlation id 3)
constexpr std::string_view pk_alter_configs_v2_request =
  "00210002000000030006676f6c64656e000202076f7264657273030e7365676d"
  "656e742e62797465730831303438353736000d726574656e74696f6e2e6d7300"
  "00000100";
// clang-format on

TEST_CASE("AlterConfigs v2 request golden bytes from @platformatic/kafka: the "
          "first flexible version, compact strings and a null value",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(pk_alter_configs_v2_request, api_key::alter_configs, 2,
                   decode_alter_configs_request, encode_alter_configs_request);
  CHECK(header.correlation_id == 3);
  CHECK(header.client_id == "golden");
  REQUIRE(body.resources.size() == 1);
  CHECK(body.resources[0].resource_type == config_resource_topic);
  CHECK(body.resources[0].resource_name == "orders");
  REQUIRE(body.resources[0].configs.size() == 2);
  CHECK(body.resources[0].configs[0].name == "segment.bytes");
  CHECK(body.resources[0].configs[0].value == "1048576");
  CHECK(body.resources[0].configs[1].name == "retention.ms");
  CHECK_FALSE(body.resources[0].configs[1].value);
  CHECK(body.validate_only);
}

// clang-format off
// kafka-python 2.0.2: response(AlterConfigsResponse[0](throttle_time_ms=0,
// resources=[(0, None, 2, 'orders'), (40, 'Unknown topic config name:
// retention.mss', 2, 'other')]), 7). (kafka-python's AlterConfigsResponse_v1
// has the request's schema; v1 is v0's layout, so only v0 is used.)
constexpr std::string_view kp_alter_configs_v0_response =
  "0000000700000000000000020000ffff0200066f726465727300280028556e6b"
  "6e6f776e20746f70696320636f6e666967206e616d653a20726574656e74696f"
  "6e2e6d73730200056f74686572";
// clang-format on

TEST_CASE("AlterConfigs v0 response golden bytes from kafka-python: per "
          "resource its error, message, type and name",
          "[kafka][golden]") {
  alter_configs_response x;
  x.responses = {
    {error_code::none, std::nullopt, config_resource_topic, "orders"},
    {error_code::invalid_config,
     std::string{"Unknown topic config name: retention.mss"},
     config_resource_topic, "other"}};
  auto y = golden_response(kp_alter_configs_v0_response, api_key::alter_configs,
                           0, 7, encode_alter_configs_response,
                           decode_alter_configs_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.responses.size() == 2);
  CHECK(y.responses[0].error == error_code::none);
  CHECK_FALSE(y.responses[0].error_message);
  CHECK(y.responses[0].resource_name == "orders");
  CHECK(y.responses[1].error == error_code::invalid_config);
  CHECK(y.responses[1].error_message
        == "Unknown topic config name: retention.mss");
  CHECK(y.responses[1].resource_type == config_resource_topic);
  CHECK(y.responses[1].resource_name == "other");
}

// clang-format off
// AlterConfigs v2 response (flexible), assembled field by field from
// apache/kafka clients/src/main/resources/common/message/AlterConfigsResponse.json
constexpr std::string_view spec_alter_configs_v2_response =
  "0000002a"                        // correlation_id: 42
  "00"                              // header v1: no tagged fields
  "00000005"                        // throttle_time_ms: 5
  "02"                              // responses: 1
  "0003"                            //   error_code: 3 (UNKNOWN_TOPIC_OR_PARTITION)
  "00"                              //   error_message: null
  "02"                              //   resource_type: 2 (TOPIC)
  "05676f6e65"                      //   resource_name: "gone"
  "00"                              //   no tagged fields
  "00";                             // no tagged fields
// clang-format on

TEST_CASE("AlterConfigs v2 response golden bytes from the JSON schema: "
          "compact strings and tagged-field sections",
          "[kafka][golden]") {
  alter_configs_response x;
  x.throttle_time_ms = 5;
  x.responses = {{error_code::unknown_topic_or_partition, std::nullopt,
                  config_resource_topic, "gone"}};
  auto y = golden_response(
    spec_alter_configs_v2_response, api_key::alter_configs, 2, 42,
    encode_alter_configs_response, decode_alter_configs_response, x);
  CHECK(y.throttle_time_ms == 5);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].error == error_code::unknown_topic_or_partition);
  CHECK(y.responses[0].resource_name == "gone");
}

// clang-format off
// @platformatic/kafka 2.12.1: incrementalAlterConfigsV0.api(connection,
// [{resourceType: 2, resourceName: 'orders', configs: [{name:
// 'cleanup.policy', configOperation: 2, value: 'compact'}, {name:
// 'retention.ms', configOperation: 1, value: null}]}], true), captured from
// the socket (client id "golden", correlation id 1)
constexpr std::string_view pk_incremental_alter_configs_v0_request =
  "002c0000000000010006676f6c64656e000000010200066f7264657273000000"
  "02000e636c65616e75702e706f6c696379020007636f6d70616374000c726574"
  "656e74696f6e2e6d7301ffff01";
// clang-format on

TEST_CASE("IncrementalAlterConfigs v0 request golden bytes from "
          "@platformatic/kafka: APPEND and DELETE with a null value",
          "[kafka][golden]") {
  auto [header, body] = golden_request(
    pk_incremental_alter_configs_v0_request, api_key::incremental_alter_configs,
    0, decode_incremental_alter_configs_request,
    encode_incremental_alter_configs_request);
  CHECK(header.correlation_id == 1);
  REQUIRE(body.resources.size() == 1);
  const auto& r = body.resources[0];
  CHECK(r.resource_type == config_resource_topic);
  CHECK(r.resource_name == "orders");
  REQUIRE(r.configs.size() == 2);
  CHECK(r.configs[0].name == "cleanup.policy");
  CHECK(r.configs[0].config_operation == config_operation_append);
  CHECK(r.configs[0].value == "compact");
  CHECK(r.configs[1].name == "retention.ms");
  CHECK(r.configs[1].config_operation == config_operation_delete);
  CHECK_FALSE(r.configs[1].value);
  CHECK(body.validate_only);
}

// clang-format off
// @platformatic/kafka 2.12.1: incrementalAlterConfigsV1.api(connection,
// [{resourceType: 2, resourceName: 'orders', configs: [{name:
// 'retention.ms', configOperation: 0, value: '60000'}, {name:
// 'cleanup.policy', configOperation: 3, value: 'delete'}]}, {resourceType: 4,
// resourceName: '1', configs: []}], false), captured from the socket
constexpr std::string_view pk_incremental_alter_configs_v1_request =
  "002c0001000000020006676f6c64656e000302076f7264657273030d72657465"
  "6e74696f6e2e6d7300063630303030000f636c65616e75702e706f6c69637903"
  "0764656c657465000004023101000000";
// clang-format on

TEST_CASE("IncrementalAlterConfigs v1 request golden bytes from "
          "@platformatic/kafka: the first flexible version, SET and SUBTRACT",
          "[kafka][golden]") {
  auto [header, body] = golden_request(
    pk_incremental_alter_configs_v1_request, api_key::incremental_alter_configs,
    1, decode_incremental_alter_configs_request,
    encode_incremental_alter_configs_request);
  CHECK(header.correlation_id == 2);
  REQUIRE(body.resources.size() == 2);
  const auto& r = body.resources[0];
  REQUIRE(r.configs.size() == 2);
  CHECK(r.configs[0].name == "retention.ms");
  CHECK(r.configs[0].config_operation == config_operation_set);
  CHECK(r.configs[0].value == "60000");
  CHECK(r.configs[1].name == "cleanup.policy");
  CHECK(r.configs[1].config_operation == config_operation_subtract);
  CHECK(r.configs[1].value == "delete");
  CHECK(body.resources[1].resource_type == config_resource_broker);
  CHECK(body.resources[1].resource_name == "1");
  CHECK(body.resources[1].configs.empty());
  CHECK_FALSE(body.validate_only);
}

// clang-format off
// IncrementalAlterConfigs v0 response, assembled field by field from
// apache/kafka
// clients/src/main/resources/common/message/IncrementalAlterConfigsResponse.json
constexpr std::string_view spec_incremental_alter_configs_v0_response =
  "00000009"                        // correlation_id: 9
  "00000000"                        // throttle_time_ms: 0
  "00000001"                        // responses: 1
  "0028"                            //   error_code: 40 (INVALID_CONFIG)
  "0003626164"                      //   error_message: "bad"
  "04"                              //   resource_type: 4 (BROKER)
  "000131";                         //   resource_name: "1"
// clang-format on

TEST_CASE("IncrementalAlterConfigs v0 response golden bytes from the JSON "
          "schema",
          "[kafka][golden]") {
  incremental_alter_configs_response x;
  x.responses = {{error_code::invalid_config, std::string{"bad"},
                  config_resource_broker, "1"}};
  auto y = golden_response(spec_incremental_alter_configs_v0_response,
                           api_key::incremental_alter_configs, 0, 9,
                           encode_incremental_alter_configs_response,
                           decode_incremental_alter_configs_response, x);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].error == error_code::invalid_config);
  CHECK(y.responses[0].error_message == "bad");
  CHECK(y.responses[0].resource_type == config_resource_broker);
  CHECK(y.responses[0].resource_name == "1");
}

// clang-format off
// IncrementalAlterConfigs v1 response (flexible), assembled field by field
// from the same schema
constexpr std::string_view spec_incremental_alter_configs_v1_response =
  "0000000a"                        // correlation_id: 10
  "00"                              // header v1: no tagged fields
  "00000000"                        // throttle_time_ms: 0
  "03"                              // responses: 2
  "0000"                            //   error_code: 0
  "00"                              //   error_message: null
  "02"                              //   resource_type: 2 (TOPIC)
  "076f7264657273"                  //   resource_name: "orders"
  "00"                              //   no tagged fields
  "0028"                            //   error_code: 40 (INVALID_CONFIG)
  "04626164"                        //   error_message: "bad"
  "02"                              //   resource_type: 2 (TOPIC)
  "0474776f"                        //   resource_name: "two"
  "00"                              //   no tagged fields
  "00";                             // no tagged fields
// clang-format on

TEST_CASE("IncrementalAlterConfigs v1 response golden bytes from the JSON "
          "schema: compact strings and tagged-field sections",
          "[kafka][golden]") {
  incremental_alter_configs_response x;
  x.responses = {
    {error_code::none, std::nullopt, config_resource_topic, "orders"},
    {error_code::invalid_config, std::string{"bad"}, config_resource_topic,
     "two"}};
  auto y = golden_response(spec_incremental_alter_configs_v1_response,
                           api_key::incremental_alter_configs, 1, 10,
                           encode_incremental_alter_configs_response,
                           decode_incremental_alter_configs_response, x);
  REQUIRE(y.responses.size() == 2);
  CHECK(y.responses[0].error == error_code::none);
  CHECK_FALSE(y.responses[0].error_message);
  CHECK(y.responses[0].resource_name == "orders");
  CHECK(y.responses[1].error == error_code::invalid_config);
  CHECK(y.responses[1].error_message == "bad");
  CHECK(y.responses[1].resource_name == "two");
}

// -- Produce ------------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(ProduceRequest[3](None, -1, 1500, [('orders',
// [(0, kp_record_batch)])]), 7)
constexpr std::string_view kp_produce_v3_request =
  "0000000300000007000c6b61666b612d707974686f6effffffff000005dc0000"
  "000100066f726465727300000001000000000000005500000000000000000000"
  "004900000000026a8990a30000000000010000018bcfe568000000018bcfe568"
  "05ffffffffffffffffffffffffffff0000000214000000046b31047631001800"
  "0a02010476320202680278";
// clang-format on

TEST_CASE("Produce v3 request golden bytes from kafka-python: null "
          "transactional id, acks, timeout and a RecordBatch v2",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_produce_v3_request, api_key::produce, 3,
                   decode_produce_request, encode_produce_request);
  CHECK(header.correlation_id == 7);
  CHECK_FALSE(body.transactional_id);
  CHECK(body.acks == -1);
  CHECK(body.timeout_ms == 1500);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "orders");
  REQUIRE(body.topics[0].partitions.size() == 1);
  CHECK(body.topics[0].partitions[0].index == 0);
  CHECK(to_hex(body.topics[0].partitions[0].records) == kp_record_batch);
}

// clang-format off
// librdkafka 2.0.2 Produce v7 (kcat) request, captured from the socket by a
// one-off listener (echo 'key1:hello' | kcat -P -t golden -p 0 -K:); the record
// batch and its CRC-32C are librdkafka's.
constexpr std::string_view rdk_produce_v7_request =
  "0000"                // request_api_key: Produce (0)
  "0007"                // request_api_version: 7
  "00000003"            // correlation_id: 3
  "000772646b61666b61"  // client_id: "rdkafka"
  "ffff"                // transactional_id: null
  "ffff"                // acks: -1
  "00007530"            // timeout_ms: 30000
  "00000001"            // topic_data: 1
  "0006676f6c64656e"    //   name: "golden"
  "00000001"            //   partition_data: 1
  "00000000"            //     index: 0
  "0000004d"            //     records: 77 bytes
  "0000000000000000"    //       base_offset: 0
  "00000041"            //       batch_length: 65
  "00000000"            //       partition_leader_epoch: 0
  "02"                  //       magic: 2
  "56dd891c"            //       crc: 0x56dd891c (CRC-32C of attributes..end)
  "0000"                //       attributes: 0 (no compression, CreateTime)
  "00000000"            //       last_offset_delta: 0
  "000001a23341cf49"    //       base_timestamp: 1796156280649
  "000001a23341cf49"    //       max_timestamp: 1796156280649
  "ffffffffffffffff"    //       producer_id: -1
  "ffff"                //       producer_epoch: -1
  "ffffffff"            //       base_sequence: -1
  "00000001"            //       records_count: 1
  "1e"                  //       record length: 15 (zigzag varint)
  "00"                  //       attributes: 0
  "00"                  //       timestamp_delta: 0
  "00"                  //       offset_delta: 0
  "086b657931"          //       key: 4 bytes, "key1"
  "0a68656c6c6f"        //       value: 5 bytes, "hello"
  "00";                 //       headers: 0
// clang-format on

TEST_CASE("Produce v7 request golden bytes from librdkafka: its batch passes "
          "Kafka's checks, and troupe writes the same batch with the same "
          "CRC-32C",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_produce_v7_request, api_key::produce, 7,
                   decode_produce_request, encode_produce_request);
  CHECK(header.correlation_id == 3);
  CHECK(header.client_id == "rdkafka");
  CHECK_FALSE(body.transactional_id);
  CHECK(body.acks == -1);
  CHECK(body.timeout_ms == 30000);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "golden");
  REQUIRE(body.topics[0].partitions.size() == 1);
  CHECK(body.topics[0].partitions[0].index == 0);
  const auto& batch = body.topics[0].partitions[0].records;
  REQUIRE(batch.size() == 77);
  CHECK(validate_batch(batch.data(), batch.size(), 1 << 20)
        == error_code::none);
  auto records = decode_records(batch.data(), batch.size());
  REQUIRE(records);
  REQUIRE(records->size() == 1);
  CHECK((*records)[0].key == b("key1"));
  CHECK((*records)[0].value == b("hello"));
  CHECK((*records)[0].timestamp == 1796156280649);
  auto ours =
    encode_batch(0, 0, {record{b("key1"), b("hello"), 1796156280649, {}}});
  CHECK(to_hex(ours) == to_hex(batch));
}

// clang-format off
// Produce v9 request (the first flexible version), with librdkafka's record
// batch, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/ProduceRequest.json
constexpr std::string_view spec_produce_v9_request =
  "0000"              // request_api_key: Produce (0)
  "0009"              // request_api_version: 9
  "00000018"          // correlation_id: 24
  "0006676f6c64656e"  // client_id: "golden" (int16 length even in header v2)
  "00"                // header v2: no tagged fields
  "00"                // transactional_id: null
  "0001"              // acks: 1
  "000005dc"          // timeout_ms: 1500
  "02"                // topic_data: 1
  "07676f6c64656e"    //   name: "golden"
  "02"                //   partition_data: 1
  "00000000"          //     index: 0
  "4e"                //     records: 77 bytes (compact: 77 + 1)
  // librdkafka's batch of rdk_produce_v7_request
  "000000000000000000000041000000000256dd891c000000000000000001a233"
  "41cf49000001a23341cf49ffffffffffffffffffffffffffff000000011e0000"
  "00086b6579310a68656c6c6f00"
  "00"                //     no tagged fields
  "00"                //   no tagged fields
  "00";               // no tagged fields
// clang-format on

TEST_CASE("Produce v9 request golden bytes from the JSON schema: compact "
          "records carry librdkafka's batch unchanged",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_produce_v9_request, api_key::produce, 9,
                   decode_produce_request, encode_produce_request);
  CHECK(header.correlation_id == 24);
  CHECK_FALSE(body.transactional_id);
  CHECK(body.acks == 1);
  CHECK(body.timeout_ms == 1500);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "golden");
  REQUIRE(body.topics[0].partitions.size() == 1);
  const auto& batch = body.topics[0].partitions[0].records;
  CHECK(batch.size() == 77);
  CHECK(validate_batch(batch.data(), batch.size(), 1 << 20)
        == error_code::none);
}

// clang-format off
// kafka-python 2.0.2: response(ProduceResponse[5]([('orders', [(0, 0, 42, -1,
// 0), (1, 6, -1, -1, -1)])], 0), 7)
constexpr std::string_view kp_produce_v5_response =
  "000000070000000100066f726465727300000002000000000000000000000000"
  "002affffffffffffffff0000000000000000000000010006ffffffffffffffff"
  "ffffffffffffffffffffffffffffffff00000000";
// clang-format on

TEST_CASE("Produce v5 response golden bytes from kafka-python: base offset, "
          "log append time and log start offset per partition",
          "[kafka][golden]") {
  produce_response x;
  x.responses = {{"orders",
                  {{0, error_code::none, 42, -1, 0},
                   {1, error_code::not_leader_or_follower, -1, -1, -1}}}};
  auto y = golden_response(kp_produce_v5_response, api_key::produce, 5, 7,
                           encode_produce_response, decode_produce_response, x);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].name == "orders");
  REQUIRE(y.responses[0].partitions.size() == 2);
  const auto& p0 = y.responses[0].partitions[0];
  CHECK(p0.index == 0);
  CHECK(p0.error == error_code::none);
  CHECK(p0.base_offset == 42);
  CHECK(p0.log_append_time_ms == -1);
  CHECK(p0.log_start_offset == 0);
  const auto& p1 = y.responses[0].partitions[1];
  CHECK(p1.index == 1);
  CHECK(p1.error == error_code::not_leader_or_follower);
  CHECK(p1.base_offset == -1);
  CHECK(p1.log_start_offset == -1);
  CHECK(y.throttle_time_ms == 0);
}

// clang-format off
// Produce v10 response (KIP-951's tagged CurrentLeader and NodeEndpoints),
// assembled field by field from apache/kafka
// clients/src/main/resources/common/message/ProduceResponse.json
constexpr std::string_view spec_produce_v10_response =
  "00000018"            // correlation_id: 24
  "00"                  // header v1: no tagged fields
  "02"                  // responses: 1
  "07676f6c64656e"      //   name: "golden"
  "02"                  //   partition_responses: 1
  "00000000"            //     index: 0
  "0006"                //     error_code: 6 (NOT_LEADER_OR_FOLLOWER)
  "ffffffffffffffff"    //     base_offset: -1
  "ffffffffffffffff"    //     log_append_time_ms: -1
  "ffffffffffffffff"    //     log_start_offset: -1
  "01"                  //     record_errors: 0
  "00"                  //     error_message: null
  "01"                  //     tagged fields: 1
  "00"                  //       tag 0: CurrentLeader
  "09"                  //       size: 9
  "00000002"            //         leader_id: 2
  "00000005"            //         leader_epoch: 5
  "00"                  //         no tagged fields
  "00"                  //   no tagged fields
  "00000000"            // throttle_time_ms: 0
  "01"                  // tagged fields: 1
  "00"                  //   tag 0: NodeEndpoints
  "14"                  //   size: 20
  "02"                  //     1 endpoint
  "00000002"            //       node_id: 2
  "0962726f6b65722d32"  //       host: "broker-2"
  "00002385"            //       port: 9093
  "00"                  //       rack: null
  "00";                 //       no tagged fields
// clang-format on

TEST_CASE("Produce v10 response golden bytes from the JSON schema: "
          "NOT_LEADER_OR_FOLLOWER with KIP-951's tagged current leader and "
          "node endpoints",
          "[kafka][golden]") {
  produce_response x;
  produce_partition_response p;
  p.error = error_code::not_leader_or_follower;
  p.current_leader = leader_id_and_epoch{2, 5};
  x.responses = {{"golden", {p}}};
  x.node_endpoints =
    std::vector<node_endpoint>{{2, "broker-2", 9093, std::nullopt}};
  auto y = golden_response(spec_produce_v10_response, api_key::produce, 10, 24,
                           encode_produce_response, decode_produce_response, x);
  REQUIRE(y.responses.size() == 1);
  REQUIRE(y.responses[0].partitions.size() == 1);
  const auto& q = y.responses[0].partitions[0];
  CHECK(q.error == error_code::not_leader_or_follower);
  CHECK(q.base_offset == -1);
  CHECK(q.record_errors.empty());
  CHECK_FALSE(q.error_message);
  REQUIRE(q.current_leader);
  CHECK(q.current_leader->leader_id == 2);
  CHECK(q.current_leader->leader_epoch == 5);
  REQUIRE(y.node_endpoints);
  REQUIRE(y.node_endpoints->size() == 1);
  CHECK((*y.node_endpoints)[0].node_id == 2);
  CHECK((*y.node_endpoints)[0].host == "broker-2");
  CHECK((*y.node_endpoints)[0].port == 9093);
  CHECK_FALSE((*y.node_endpoints)[0].rack);
}

// -- Fetch --------------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(FetchRequest[4](-1, 500, 1, 52428800, 1,
// [('orders', [(0, 42, 1048576)])]), 8)
constexpr std::string_view kp_fetch_v4_request =
  "0001000400000008000c6b61666b612d707974686f6effffffff000001f40000"
  "000103200000010000000100066f726465727300000001000000000000000000"
  "00002a00100000";
// clang-format on

TEST_CASE("Fetch v4 request golden bytes from kafka-python: wait, sizes, "
          "isolation level and one partition's offset",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_fetch_v4_request, api_key::fetch, 4, decode_fetch_request,
                   encode_fetch_request);
  CHECK(header.correlation_id == 8);
  CHECK(body.replica_id == -1);
  CHECK(body.max_wait_ms == 500);
  CHECK(body.min_bytes == 1);
  CHECK(body.max_bytes == 52428800);
  CHECK(body.isolation_level == 1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].topic == "orders");
  REQUIRE(body.topics[0].partitions.size() == 1);
  CHECK(body.topics[0].partitions[0].partition == 0);
  CHECK(body.topics[0].partitions[0].fetch_offset == 42);
  CHECK(body.topics[0].partitions[0].partition_max_bytes == 1048576);
}

// clang-format off
// librdkafka 2.0.2 Fetch v11 (kcat) request, captured from the socket by a one-
// off listener
constexpr std::string_view rdk_fetch_v11_request =
  "0001"                // request_api_key: Fetch (1)
  "000b"                // request_api_version: 11
  "00000007"            // correlation_id: 7
  "000772646b61666b61"  // client_id: "rdkafka"
  "ffffffff"            // replica_id: -1
  "000001f4"            // max_wait_ms: 500
  "00000001"            // min_bytes: 1
  "03200000"            // max_bytes: 52428800
  "01"                  // isolation_level: 1 (read_committed)
  "00000000"            // session_id: 0
  "ffffffff"            // session_epoch: -1
  "00000001"            // topics: 1
  "0006676f6c64656e"    //   topic: "golden"
  "00000001"            //   partitions: 1
  "00000000"            //     partition: 0
  "ffffffff"            //     current_leader_epoch: -1
  "0000000000000000"    //     fetch_offset: 0
  "ffffffffffffffff"    //     log_start_offset: -1
  "00100000"            //     partition_max_bytes: 1048576
  "00000000"            // forgotten_topics_data: 0
  "0000";               // rack_id: ""
// clang-format on

TEST_CASE("Fetch v11 request golden bytes from librdkafka: session, leader "
          "epoch, log start offset and rack id",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_fetch_v11_request, api_key::fetch, 11,
                   decode_fetch_request, encode_fetch_request);
  CHECK(header.correlation_id == 7);
  CHECK(body.replica_id == -1);
  CHECK(body.max_wait_ms == 500);
  CHECK(body.min_bytes == 1);
  CHECK(body.max_bytes == 52428800);
  CHECK(body.isolation_level == 1);
  CHECK(body.session_id == 0);
  CHECK(body.session_epoch == -1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].topic == "golden");
  REQUIRE(body.topics[0].partitions.size() == 1);
  const auto& p = body.topics[0].partitions[0];
  CHECK(p.partition == 0);
  CHECK(p.current_leader_epoch == -1);
  CHECK(p.fetch_offset == 0);
  CHECK(p.log_start_offset == -1);
  CHECK(p.partition_max_bytes == 1048576);
  CHECK(body.forgotten_topics_data.empty());
  CHECK(body.rack_id.empty());
}

// clang-format off
// Fetch v12 request (the first flexible version), assembled field by field from
// apache/kafka clients/src/main/resources/common/message/FetchRequest.json
constexpr std::string_view spec_fetch_v12_request =
  "0001"              // request_api_key: Fetch (1)
  "000c"              // request_api_version: 12
  "00000019"          // correlation_id: 25
  "0006676f6c64656e"  // client_id: "golden" (int16 length even in header v2)
  "00"                // header v2: no tagged fields
  "ffffffff"          // replica_id: -1
  "000001f4"          // max_wait_ms: 500
  "00000001"          // min_bytes: 1
  "03200000"          // max_bytes: 52428800
  "00"                // isolation_level: 0
  "00000000"          // session_id: 0
  "ffffffff"          // session_epoch: -1
  "02"                // topics: 1
  "076f7264657273"    //   topic: "orders"
  "02"                //   partitions: 1
  "00000000"          //     partition: 0
  "00000004"          //     current_leader_epoch: 4
  "000000000000002a"  //     fetch_offset: 42
  "00000003"          //     last_fetched_epoch: 3
  "ffffffffffffffff"  //     log_start_offset: -1
  "00100000"          //     partition_max_bytes: 1048576
  "00"                //     no tagged fields
  "00"                //   no tagged fields
  "01"                // forgotten_topics_data: 0
  "077261636b2d61"    // rack_id: "rack-a"
  "00";               // no tagged fields
// clang-format on

TEST_CASE("Fetch v12 request golden bytes from the JSON schema: compact, with "
          "the last fetched epoch (KIP-595) and a rack",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_fetch_v12_request, api_key::fetch, 12,
                   decode_fetch_request, encode_fetch_request);
  CHECK(header.correlation_id == 25);
  CHECK(body.isolation_level == 0);
  CHECK(body.session_epoch == -1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].topic == "orders");
  REQUIRE(body.topics[0].partitions.size() == 1);
  const auto& p = body.topics[0].partitions[0];
  CHECK(p.current_leader_epoch == 4);
  CHECK(p.fetch_offset == 42);
  CHECK(p.last_fetched_epoch == 3);
  CHECK(p.log_start_offset == -1);
  CHECK(p.partition_max_bytes == 1048576);
  CHECK(body.rack_id == "rack-a");
  CHECK_FALSE(body.cluster_id);
}

// clang-format off
// kafka-python 2.0.2: response(FetchResponse[4](0, [('orders', [(0, 0, 44, 40,
// [(7, 40)], kp_record_batch)])]), 8)
constexpr std::string_view kp_fetch_v4_response =
  "00000008000000000000000100066f7264657273000000010000000000000000"
  "00000000002c0000000000000028000000010000000000000007000000000000"
  "00280000005500000000000000000000004900000000026a8990a30000000000"
  "010000018bcfe568000000018bcfe56805ffffffffffffffffffffffffffff00"
  "00000214000000046b310476310018000a02010476320202680278";
// clang-format on

TEST_CASE("Fetch v4 response golden bytes from kafka-python: high watermark, "
          "last stable offset, an aborted transaction and the records",
          "[kafka][golden]") {
  fetch_response x;
  fetch_partition_response p;
  p.high_watermark = 44;
  p.last_stable_offset = 40;
  p.aborted_transactions = std::vector<aborted_transaction>{{7, 40}};
  p.records = from_hex(kp_record_batch);
  x.responses = {{"orders", {p}}};
  auto y = golden_response(kp_fetch_v4_response, api_key::fetch, 4, 8,
                           encode_fetch_response, decode_fetch_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].topic == "orders");
  REQUIRE(y.responses[0].partitions.size() == 1);
  const auto& q = y.responses[0].partitions[0];
  CHECK(q.partition_index == 0);
  CHECK(q.error == error_code::none);
  CHECK(q.high_watermark == 44);
  CHECK(q.last_stable_offset == 40);
  REQUIRE(q.aborted_transactions);
  REQUIRE(q.aborted_transactions->size() == 1);
  CHECK((*q.aborted_transactions)[0].producer_id == 7);
  CHECK((*q.aborted_transactions)[0].first_offset == 40);
  CHECK(to_hex(q.records) == kp_record_batch);
}

// clang-format off
// kafka-python 2.0.2: response(FetchResponse[11](0, 0, 12345, [('orders', [(0,
// 0, 44, 44, 3, None, -1, b''), (1, 1, -1, -1, -1, [], -1, b'')])]), 9)
constexpr std::string_view kp_fetch_v11_response =
  "00000009000000000000000030390000000100066f7264657273000000020000"
  "00000000000000000000002c000000000000002c0000000000000003ffffffff"
  "ffffffff00000000000000010001ffffffffffffffffffffffffffffffffffff"
  "ffffffffffff00000000ffffffff00000000";
// clang-format on

TEST_CASE("Fetch v11 response golden bytes from kafka-python: session id, "
          "log start offset, null aborted transactions, preferred replica",
          "[kafka][golden]") {
  fetch_response x;
  x.session_id = 12345;
  fetch_partition_response p0;
  p0.high_watermark = 44;
  p0.last_stable_offset = 44;
  p0.log_start_offset = 3;
  p0.aborted_transactions = std::nullopt;
  fetch_partition_response p1;
  p1.partition_index = 1;
  p1.error = error_code::offset_out_of_range;
  x.responses = {{"orders", {p0, p1}}};
  auto y = golden_response(kp_fetch_v11_response, api_key::fetch, 11, 9,
                           encode_fetch_response, decode_fetch_response, x);
  CHECK(y.error == error_code::none);
  CHECK(y.session_id == 12345);
  REQUIRE(y.responses.size() == 1);
  REQUIRE(y.responses[0].partitions.size() == 2);
  const auto& q0 = y.responses[0].partitions[0];
  CHECK(q0.high_watermark == 44);
  CHECK(q0.last_stable_offset == 44);
  CHECK(q0.log_start_offset == 3);
  CHECK_FALSE(q0.aborted_transactions);
  CHECK(q0.preferred_read_replica == -1);
  CHECK(q0.records.empty());
  const auto& q1 = y.responses[0].partitions[1];
  CHECK(q1.partition_index == 1);
  CHECK(q1.error == error_code::offset_out_of_range);
  CHECK(q1.high_watermark == -1);
  REQUIRE(q1.aborted_transactions);
  CHECK(q1.aborted_transactions->empty());
}

// clang-format off
// Fetch v12 response (tagged CurrentLeader), with kafka-python's record batch,
// assembled field by field from apache/kafka
// clients/src/main/resources/common/message/FetchResponse.json
constexpr std::string_view spec_fetch_v12_response =
  "00000019"          // correlation_id: 25
  "00"                // header v1: no tagged fields
  "00000000"          // throttle_time_ms: 0
  "0000"              // error_code: 0
  "00000000"          // session_id: 0
  "02"                // responses: 1
  "076f7264657273"    //   topic: "orders"
  "02"                //   partitions: 1
  "00000000"          //     partition_index: 0
  "0000"              //     error_code: 0
  "000000000000002c"  //     high_watermark: 44
  "000000000000002c"  //     last_stable_offset: 44
  "0000000000000000"  //     log_start_offset: 0
  "00"                //     aborted_transactions: null
  "ffffffff"          //     preferred_read_replica: -1
  "56"                //     records: 85 bytes
  // kafka-python's batch of kp_record_batch
  "00000000000000000000004900000000026a8990a30000000000010000018bcf"
  "e568000000018bcfe56805ffffffffffffffffffffffffffff00000002140000"
  "00046b310476310018000a02010476320202680278"
  "01"                //     tagged fields: 1
  "01"                //       tag 1: CurrentLeader
  "09"                //       size: 9
  "00000001"          //         leader_id: 1
  "00000004"          //         leader_epoch: 4
  "00"                //         no tagged fields
  "00"                //   no tagged fields
  "00";               // no tagged fields
// clang-format on

TEST_CASE("Fetch v12 response golden bytes from the JSON schema: compact "
          "records and the tagged current leader after them",
          "[kafka][golden]") {
  fetch_response x;
  fetch_partition_response p;
  p.high_watermark = 44;
  p.last_stable_offset = 44;
  p.log_start_offset = 0;
  p.aborted_transactions = std::nullopt;
  p.records = from_hex(kp_record_batch);
  p.current_leader = leader_id_and_epoch{1, 4};
  x.responses = {{"orders", {p}}};
  auto y = golden_response(spec_fetch_v12_response, api_key::fetch, 12, 25,
                           encode_fetch_response, decode_fetch_response, x);
  REQUIRE(y.responses.size() == 1);
  CHECK(y.responses[0].topic == "orders");
  REQUIRE(y.responses[0].partitions.size() == 1);
  const auto& q = y.responses[0].partitions[0];
  CHECK(q.high_watermark == 44);
  CHECK(q.log_start_offset == 0);
  CHECK_FALSE(q.aborted_transactions);
  CHECK(q.preferred_read_replica == -1);
  CHECK(to_hex(q.records) == kp_record_batch);
  CHECK_FALSE(q.diverging_epoch);
  REQUIRE(q.current_leader);
  CHECK(q.current_leader->leader_id == 1);
  CHECK(q.current_leader->leader_epoch == 4);
  CHECK_FALSE(q.snapshot_id);
}

// -- ListOffsets --------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(OffsetRequest[1](-1, [('orders', [(0, -1), (1,
// -2)])]), 10)
constexpr std::string_view kp_list_offsets_v1_request =
  "000200010000000a000c6b61666b612d707974686f6effffffff000000010006"
  "6f72646572730000000200000000ffffffffffffffff00000001ffffffffffff"
  "fffe";
// clang-format on

TEST_CASE("ListOffsets v1 request golden bytes from kafka-python: latest "
          "and earliest timestamps",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_list_offsets_v1_request, api_key::list_offsets, 1,
                   decode_list_offsets_request, encode_list_offsets_request);
  CHECK(header.correlation_id == 10);
  CHECK(body.replica_id == -1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "orders");
  REQUIRE(body.topics[0].partitions.size() == 2);
  CHECK(body.topics[0].partitions[0].partition_index == 0);
  CHECK(body.topics[0].partitions[0].timestamp == latest_timestamp);
  CHECK(body.topics[0].partitions[1].partition_index == 1);
  CHECK(body.topics[0].partitions[1].timestamp == earliest_timestamp);
}

// clang-format off
// librdkafka 2.0.2 ListOffsets v2 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_list_offsets_v2_request =
  "0002"                // request_api_key: ListOffsets (2)
  "0002"                // request_api_version: 2
  "00000006"            // correlation_id: 6
  "000772646b61666b61"  // client_id: "rdkafka"
  "ffffffff"            // replica_id: -1
  "01"                  // isolation_level: 1 (read_committed)
  "00000001"            // topics: 1
  "0006676f6c64656e"    //   name: "golden"
  "00000001"            //   partitions: 1
  "00000000"            //     partition_index: 0
  "ffffffffffffffff";   //     timestamp: -1 (latest)
// clang-format on

TEST_CASE("ListOffsets v2 request golden bytes from librdkafka: the "
          "isolation level before the topics",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_list_offsets_v2_request, api_key::list_offsets, 2,
                   decode_list_offsets_request, encode_list_offsets_request);
  CHECK(header.correlation_id == 6);
  CHECK(body.replica_id == -1);
  CHECK(body.isolation_level == 1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "golden");
  REQUIRE(body.topics[0].partitions.size() == 1);
  CHECK(body.topics[0].partitions[0].partition_index == 0);
  CHECK(body.topics[0].partitions[0].timestamp == latest_timestamp);
}

// clang-format off
// ListOffsets v6 request (the first flexible version), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/ListOffsetsRequest.json
constexpr std::string_view spec_list_offsets_v6_request =
  "0002"              // request_api_key: ListOffsets (2)
  "0006"              // request_api_version: 6
  "0000001a"          // correlation_id: 26
  "0006676f6c64656e"  // client_id: "golden" (int16 length even in header v2)
  "00"                // header v2: no tagged fields
  "ffffffff"          // replica_id: -1
  "01"                // isolation_level: 1
  "02"                // topics: 1
  "076f7264657273"    //   name: "orders"
  "02"                //   partitions: 1
  "00000000"          //     partition_index: 0
  "00000004"          //     current_leader_epoch: 4
  "fffffffffffffffe"  //     timestamp: -2 (earliest)
  "00"                //     no tagged fields
  "00"                //   no tagged fields
  "00";               // no tagged fields
// clang-format on

TEST_CASE("ListOffsets v6 request golden bytes from the JSON schema: the "
          "current leader epoch before the timestamp",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_list_offsets_v6_request, api_key::list_offsets, 6,
                   decode_list_offsets_request, encode_list_offsets_request);
  CHECK(header.correlation_id == 26);
  CHECK(body.isolation_level == 1);
  REQUIRE(body.topics.size() == 1);
  REQUIRE(body.topics[0].partitions.size() == 1);
  CHECK(body.topics[0].partitions[0].current_leader_epoch == 4);
  CHECK(body.topics[0].partitions[0].timestamp == earliest_timestamp);
}

// clang-format off
// kafka-python 2.0.2: response(OffsetResponse[1]([('orders', [(0, 0, -1, 42),
// (1, 0, -1, 0)])]), 10)
constexpr std::string_view kp_list_offsets_v1_response =
  "0000000a0000000100066f726465727300000002000000000000ffffffffffff"
  "ffff000000000000002a000000010000ffffffffffffffff0000000000000000";
// clang-format on

TEST_CASE("ListOffsets v1 response golden bytes from kafka-python: "
          "timestamp and offset per partition",
          "[kafka][golden]") {
  list_offsets_response x;
  x.topics = {
    {"orders", {{0, error_code::none, -1, 42}, {1, error_code::none, -1, 0}}}};
  auto y = golden_response(kp_list_offsets_v1_response, api_key::list_offsets,
                           1, 10, encode_list_offsets_response,
                           decode_list_offsets_response, x);
  REQUIRE(y.topics.size() == 1);
  REQUIRE(y.topics[0].partitions.size() == 2);
  CHECK(y.topics[0].partitions[0].timestamp == -1);
  CHECK(y.topics[0].partitions[0].offset == 42);
  CHECK(y.topics[0].partitions[1].partition_index == 1);
  CHECK(y.topics[0].partitions[1].offset == 0);
}

// clang-format off
// kafka-python 2.0.2: response(OffsetResponse[2](0, [('golden', [(0, 0, -1,
// 0)])]), 6)
constexpr std::string_view kp_list_offsets_v2_response =
  "0000000600000000000000010006676f6c64656e00000001000000000000ffff"
  "ffffffffffff0000000000000000";
// clang-format on

TEST_CASE("ListOffsets v2 response golden bytes from kafka-python: the "
          "throttle time first",
          "[kafka][golden]") {
  list_offsets_response x;
  x.topics = {{"golden", {{0, error_code::none, -1, 0}}}};
  auto y = golden_response(kp_list_offsets_v2_response, api_key::list_offsets,
                           2, 6, encode_list_offsets_response,
                           decode_list_offsets_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.topics.size() == 1);
  CHECK(y.topics[0].name == "golden");
  REQUIRE(y.topics[0].partitions.size() == 1);
  CHECK(y.topics[0].partitions[0].offset == 0);
}

// clang-format off
// ListOffsets v6 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/ListOffsetsResponse.json
constexpr std::string_view spec_list_offsets_v6_response =
  "0000001a"          // correlation_id: 26
  "00"                // header v1: no tagged fields
  "00000000"          // throttle_time_ms: 0
  "02"                // topics: 1
  "076f7264657273"    //   name: "orders"
  "02"                //   partitions: 1
  "00000000"          //     partition_index: 0
  "0000"              //     error_code: 0
  "ffffffffffffffff"  //     timestamp: -1
  "0000000000000007"  //     offset: 7
  "00000004"          //     leader_epoch: 4
  "00"                //     no tagged fields
  "00"                //   no tagged fields
  "00";               // no tagged fields
// clang-format on

TEST_CASE("ListOffsets v6 response golden bytes from the JSON schema: "
          "offset and leader epoch, compact",
          "[kafka][golden]") {
  list_offsets_response x;
  x.topics = {{"orders", {{0, error_code::none, -1, 7, 4}}}};
  auto y = golden_response(spec_list_offsets_v6_response, api_key::list_offsets,
                           6, 26, encode_list_offsets_response,
                           decode_list_offsets_response, x);
  REQUIRE(y.topics.size() == 1);
  REQUIRE(y.topics[0].partitions.size() == 1);
  CHECK(y.topics[0].partitions[0].error == error_code::none);
  CHECK(y.topics[0].partitions[0].timestamp == -1);
  CHECK(y.topics[0].partitions[0].offset == 7);
  CHECK(y.topics[0].partitions[0].leader_epoch == 4);
}

// -- FindCoordinator ----------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(GroupCoordinatorRequest[0]('golden-group'), 11)
constexpr std::string_view kp_find_coordinator_v0_request =
  "000a00000000000b000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f7570";
// clang-format on

// clang-format off
// kafka-python 2.0.2: request(GroupCoordinatorRequest[1]('golden-group', 0),
// 12)
constexpr std::string_view kp_find_coordinator_v1_request =
  "000a00010000000c000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f757000";
// clang-format on

// clang-format off
// librdkafka 2.0.2 FindCoordinator v2 (kcat) request, captured from the socket
// by a one-off listener
constexpr std::string_view rdk_find_coordinator_v2_request =
  "000a"                // request_api_key: FindCoordinator (10)
  "0002"                // request_api_version: 2
  "00000003"            // correlation_id: 3
  "000772646b61666b61"  // client_id: "rdkafka"
  "0003677270"          // key: "grp"
  "00";                 // key_type: 0 (group)
// clang-format on

TEST_CASE("FindCoordinator v0-v2 request golden bytes from kafka-python and "
          "librdkafka: the group id, then (v1+) the key type",
          "[kafka][golden]") {
  auto v0 = golden_request(
    kp_find_coordinator_v0_request, api_key::find_coordinator, 0,
    decode_find_coordinator_request, encode_find_coordinator_request);
  CHECK(v0.header.correlation_id == 11);
  CHECK(v0.body.key == "golden-group");
  CHECK(v0.body.key_type == coordinator_key_group);
  auto v1 = golden_request(
    kp_find_coordinator_v1_request, api_key::find_coordinator, 1,
    decode_find_coordinator_request, encode_find_coordinator_request);
  CHECK(v1.header.correlation_id == 12);
  CHECK(v1.body.key == "golden-group");
  CHECK(v1.body.key_type == coordinator_key_group);
  auto v2 = golden_request(
    rdk_find_coordinator_v2_request, api_key::find_coordinator, 2,
    decode_find_coordinator_request, encode_find_coordinator_request);
  CHECK(v2.header.client_id == "rdkafka");
  CHECK(v2.body.key == "grp");
  CHECK(v2.body.key_type == coordinator_key_group);
}

// clang-format off
// FindCoordinator v4 request (KIP-699 batched keys), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/FindCoordinatorRequest.json
constexpr std::string_view spec_find_coordinator_v4_request =
  "000a"                        // request_api_key: FindCoordinator (10)
  "0004"                        // request_api_version: 4
  "0000001b"                    // correlation_id: 27
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                          // header v2: no tagged fields
  "00"                          // key_type: 0 (group)
  "03"                          // coordinator_keys: 2
  "0d676f6c64656e2d67726f7570"  //   "golden-group"
  "0c6f746865722d67726f7570"    //   "other-group"
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("FindCoordinator v4 request golden bytes from the JSON schema: "
          "the key type, then a batch of keys (KIP-699)",
          "[kafka][golden]") {
  auto [header, body] = golden_request(
    spec_find_coordinator_v4_request, api_key::find_coordinator, 4,
    decode_find_coordinator_request, encode_find_coordinator_request);
  CHECK(header.correlation_id == 27);
  CHECK(body.key_type == coordinator_key_group);
  CHECK(body.coordinator_keys
        == std::vector<std::string>{"golden-group", "other-group"});
}

// clang-format off
// kafka-python 2.0.2: response(GroupCoordinatorResponse[0](0, 1, 'broker-1',
// 9092), 11)
constexpr std::string_view kp_find_coordinator_v0_response =
  "0000000b000000000001000862726f6b65722d3100002384";
// clang-format on

TEST_CASE("FindCoordinator v0 response golden bytes from kafka-python: "
          "error, node id, host and port",
          "[kafka][golden]") {
  find_coordinator_response x;
  x.node_id = 1;
  x.host = "broker-1";
  x.port = 9092;
  auto y = golden_response(
    kp_find_coordinator_v0_response, api_key::find_coordinator, 0, 11,
    encode_find_coordinator_response, decode_find_coordinator_response, x);
  CHECK(y.error == error_code::none);
  CHECK(y.node_id == 1);
  CHECK(y.host == "broker-1");
  CHECK(y.port == 9092);
}

// clang-format off
// FindCoordinator v2 response (the answer to librdkafka's v2 request),
// assembled field by field from apache/kafka
// clients/src/main/resources/common/message/FindCoordinatorResponse.json
constexpr std::string_view spec_find_coordinator_v2_response =
  "00000003"              // correlation_id: 3 (response header v0)
  "00000000"              // throttle_time_ms: 0
  "0000"                  // error_code: 0
  "ffff"                  // error_message: null
  "00000001"              // node_id: 1
  "000862726f6b65722d31"  // host: "broker-1"
  "00002384";             // port: 9092
// clang-format on

TEST_CASE("FindCoordinator v2 response golden bytes from the JSON schema: "
          "throttle time first, then the error and its null message",
          "[kafka][golden]") {
  find_coordinator_response x;
  x.node_id = 1;
  x.host = "broker-1";
  x.port = 9092;
  auto y = golden_response(
    spec_find_coordinator_v2_response, api_key::find_coordinator, 2, 3,
    encode_find_coordinator_response, decode_find_coordinator_response, x);
  CHECK(y.throttle_time_ms == 0);
  CHECK(y.error == error_code::none);
  CHECK_FALSE(y.error_message);
  CHECK(y.node_id == 1);
  CHECK(y.host == "broker-1");
  CHECK(y.port == 9092);
}

// clang-format off
// FindCoordinator v4 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/FindCoordinatorResponse.json
constexpr std::string_view spec_find_coordinator_v4_response =
  "0000001b"                    // correlation_id: 27
  "00"                          // header v1: no tagged fields
  "00000000"                    // throttle_time_ms: 0
  "03"                          // coordinators: 2
  "0d676f6c64656e2d67726f7570"  //   key: "golden-group"
  "00000001"                    //   node_id: 1
  "0962726f6b65722d31"          //   host: "broker-1"
  "00002384"                    //   port: 9092
  "0000"                        //   error_code: 0
  "00"                          //   error_message: null
  "00"                          //   no tagged fields
  "0c6f746865722d67726f7570"    //   key: "other-group"
  "ffffffff"                    //   node_id: -1
  "01"                          //   host: ""
  "ffffffff"                    //   port: -1
  "000f"                        //   error_code: 15 (COORDINATOR_NOT_AVAILABLE)
  "086c6f6164696e67"            //   error_message: "loading"
  "00"                          //   no tagged fields
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("FindCoordinator v4 response golden bytes from the JSON schema: "
          "one coordinator per key, each with its own error",
          "[kafka][golden]") {
  find_coordinator_response x;
  x.coordinators = {
    {"golden-group", 1, "broker-1", 9092, error_code::none, std::nullopt},
    {"other-group", -1, "", -1, error_code::coordinator_not_available,
     std::string{"loading"}}};
  auto y = golden_response(
    spec_find_coordinator_v4_response, api_key::find_coordinator, 4, 27,
    encode_find_coordinator_response, decode_find_coordinator_response, x);
  REQUIRE(y.coordinators.size() == 2);
  CHECK(y.coordinators[0].key == "golden-group");
  CHECK(y.coordinators[0].node_id == 1);
  CHECK(y.coordinators[0].host == "broker-1");
  CHECK(y.coordinators[0].port == 9092);
  CHECK(y.coordinators[0].error == error_code::none);
  CHECK_FALSE(y.coordinators[0].error_message);
  CHECK(y.coordinators[1].key == "other-group");
  CHECK(y.coordinators[1].node_id == -1);
  CHECK(y.coordinators[1].error == error_code::coordinator_not_available);
  CHECK(y.coordinators[1].error_message == "loading");
}

// -- JoinGroup ----------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(JoinGroupRequest[0]('golden-group', 10000, '',
// 'consumer', [('range', kp_consumer_subscription_v0)]), 13)
constexpr std::string_view kp_join_group_v0_request =
  "000b00000000000d000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f75700000271000000008636f6e73756d657200000001000572616e676500"
  "00001200000000000100066f726465727300000000";
// clang-format on

TEST_CASE("JoinGroup v0 request golden bytes from kafka-python: no "
          "rebalance timeout on the wire, so it is the session timeout",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_join_group_v0_request, api_key::join_group, 0,
                   decode_join_group_request, encode_join_group_request);
  CHECK(header.correlation_id == 13);
  CHECK(body.group_id == "golden-group");
  CHECK(body.session_timeout_ms == 10000);
  CHECK(body.rebalance_timeout_ms == 10000);
  CHECK(body.member_id.empty());
  CHECK(body.protocol_type == "consumer");
  REQUIRE(body.protocols.size() == 1);
  CHECK(body.protocols[0].name == "range");
  CHECK(to_hex(body.protocols[0].metadata) == kp_consumer_subscription_v0);
}

// clang-format off
// kafka-python 2.0.2: request(JoinGroupRequest[1]('golden-group', 10000,
// 300000, 'm-1', 'consumer', [('range', kp_consumer_subscription_v0),
// ('roundrobin', kp_consumer_subscription_v0)]), 14)
constexpr std::string_view kp_join_group_v1_request =
  "000b00010000000e000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f757000002710000493e000036d2d310008636f6e73756d65720000000200"
  "0572616e67650000001200000000000100066f726465727300000000000a726f"
  "756e64726f62696e0000001200000000000100066f726465727300000000";
// clang-format on

TEST_CASE("JoinGroup v1 request golden bytes from kafka-python: the "
          "rebalance timeout after the session timeout, two protocols",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_join_group_v1_request, api_key::join_group, 1,
                   decode_join_group_request, encode_join_group_request);
  CHECK(header.correlation_id == 14);
  CHECK(body.group_id == "golden-group");
  CHECK(body.session_timeout_ms == 10000);
  CHECK(body.rebalance_timeout_ms == 300000);
  CHECK(body.member_id == "m-1");
  CHECK(body.protocol_type == "consumer");
  REQUIRE(body.protocols.size() == 2);
  CHECK(body.protocols[0].name == "range");
  CHECK(body.protocols[1].name == "roundrobin");
  CHECK(to_hex(body.protocols[1].metadata) == kp_consumer_subscription_v0);
}

// clang-format off
// librdkafka 2.0.2 JoinGroup v5 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_join_group_v5_request =
  "000b"                      // request_api_key: JoinGroup (11)
  "0005"                      // request_api_version: 5
  "00000003"                  // correlation_id: 3
  "000772646b61666b61"        // client_id: "rdkafka"
  "0003677270"                // group_id: "grp"
  "0000afc8"                  // session_timeout_ms: 45000
  "000493e0"                  // rebalance_timeout_ms: 300000
  "0000"                      // member_id: ""
  "ffff"                      // group_instance_id: null
  "0008636f6e73756d6572"      // protocol_type: "consumer"
  "00000002"                  // protocols: 2
  "000572616e6765"            //   name: "range"
  // metadata: 22 bytes, ConsumerProtocolSubscription v1: topics [golden], user
  // data empty, no owned partitions
  "000000160001000000010006676f6c64656e0000000000000000"
  "000a726f756e64726f62696e"  //   name: "roundrobin"
  // metadata: the same 22 bytes
  "000000160001000000010006676f6c64656e0000000000000000";
// clang-format on

TEST_CASE("JoinGroup v5 request golden bytes from librdkafka: a null group "
          "instance id and subscriptions v1 to one topic",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_join_group_v5_request, api_key::join_group, 5,
                   decode_join_group_request, encode_join_group_request);
  CHECK(header.correlation_id == 3);
  CHECK(header.client_id == "rdkafka");
  CHECK(body.group_id == "grp");
  CHECK(body.session_timeout_ms == 45000);
  CHECK(body.rebalance_timeout_ms == 300000);
  CHECK(body.member_id.empty());
  CHECK_FALSE(body.group_instance_id);
  CHECK(body.protocol_type == "consumer");
  REQUIRE(body.protocols.size() == 2);
  CHECK(body.protocols[0].name == "range");
  CHECK(body.protocols[1].name == "roundrobin");
  auto subscription = decode_subscription(body.protocols[0].metadata);
  REQUIRE(subscription);
  CHECK(subscription->topics == std::vector<std::string>{"golden"});
  CHECK(subscription->owned_partitions.empty());
}

// clang-format off
// JoinGroup v6 request (the first flexible version), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/JoinGroupRequest.json
constexpr std::string_view spec_join_group_v6_request =
  "000b"                                    // request_api_key: JoinGroup (11)
  "0006"                                    // request_api_version: 6
  "0000001c"                                // correlation_id: 28
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                                      // header v2: no tagged fields
  "0d676f6c64656e2d67726f7570"              // group_id: "golden-group"
  "0000afc8"                                // session_timeout_ms: 45000
  "000493e0"                                // rebalance_timeout_ms: 300000
  "01"                                      // member_id: ""
  "097374617469632d31"                      // group_instance_id: "static-1"
  "09636f6e73756d6572"                      // protocol_type: "consumer"
  "02"                                      // protocols: 1
  "0672616e6765"                            //   name: "range"
  // metadata: 18 bytes, kafka-python's subscription v0 to [orders]
  "1300000000000100066f726465727300000000"
  "00"                                      //   no tagged fields
  "00";                                     // no tagged fields
// clang-format on

TEST_CASE("JoinGroup v6 request golden bytes from the JSON schema: compact, "
          "with a static member's group instance id",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_join_group_v6_request, api_key::join_group, 6,
                   decode_join_group_request, encode_join_group_request);
  CHECK(header.correlation_id == 28);
  CHECK(body.group_id == "golden-group");
  CHECK(body.session_timeout_ms == 45000);
  CHECK(body.rebalance_timeout_ms == 300000);
  CHECK(body.member_id.empty());
  CHECK(body.group_instance_id == "static-1");
  CHECK(body.protocol_type == "consumer");
  REQUIRE(body.protocols.size() == 1);
  CHECK(body.protocols[0].name == "range");
  CHECK(to_hex(body.protocols[0].metadata) == kp_consumer_subscription_v0);
}

// clang-format off
// kafka-python 2.0.2: response(JoinGroupResponse[0](16, -1, '', '', '', []),
// 13)
constexpr std::string_view kp_join_group_v0_response =
  "0000000d0010ffffffff00000000000000000000";
// clang-format on

TEST_CASE("JoinGroup v0 response golden bytes from kafka-python: an error "
          "with generation -1 and empty names",
          "[kafka][golden]") {
  join_group_response x;
  x.error = error_code::not_coordinator;
  x.protocol_name = "";
  auto y =
    golden_response(kp_join_group_v0_response, api_key::join_group, 0, 13,
                    encode_join_group_response, decode_join_group_response, x);
  CHECK(y.error == error_code::not_coordinator);
  CHECK(y.generation_id == -1);
  CHECK(y.protocol_name == "");
  CHECK(y.leader.empty());
  CHECK(y.member_id.empty());
  CHECK(y.members.empty());
}

// clang-format off
// kafka-python 2.0.2: response(JoinGroupResponse[2](0, 0, 3, 'range', 'm-1',
// 'm-1', [('m-1', kp_consumer_subscription_v0), ('m-2',
// kp_consumer_subscription_v0)]), 14)
constexpr std::string_view kp_join_group_v2_response =
  "0000000e00000000000000000003000572616e676500036d2d3100036d2d3100"
  "00000200036d2d310000001200000000000100066f7264657273000000000003"
  "6d2d320000001200000000000100066f726465727300000000";
// clang-format on

TEST_CASE("JoinGroup v2 response golden bytes from kafka-python: the "
          "leader's answer with every member's subscription",
          "[kafka][golden]") {
  auto subscription = from_hex(kp_consumer_subscription_v0);
  join_group_response x;
  x.generation_id = 3;
  x.protocol_name = "range";
  x.leader = "m-1";
  x.member_id = "m-1";
  x.members = {{"m-1", subscription}, {"m-2", subscription}};
  auto y =
    golden_response(kp_join_group_v2_response, api_key::join_group, 2, 14,
                    encode_join_group_response, decode_join_group_response, x);
  CHECK(y.throttle_time_ms == 0);
  CHECK(y.error == error_code::none);
  CHECK(y.generation_id == 3);
  CHECK(y.protocol_name == "range");
  CHECK(y.leader == "m-1");
  CHECK(y.member_id == "m-1");
  REQUIRE(y.members.size() == 2);
  CHECK(y.members[0].member_id == "m-1");
  CHECK(y.members[1].member_id == "m-2");
  CHECK(y.members[1].metadata == subscription);
}

// clang-format off
// JoinGroup v6 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/JoinGroupResponse.json
constexpr std::string_view spec_join_group_v6_response =
  "0000001c"                                // correlation_id: 28
  "00"                                      // header v1: no tagged fields
  "00000000"                                // throttle_time_ms: 0
  "0000"                                    // error_code: 0
  "00000001"                                // generation_id: 1
  "0672616e6765"                            // protocol_name: "range"
  "046d2d31"                                // leader: "m-1"
  "046d2d31"                                // member_id: "m-1"
  "02"                                      // members: 1
  "046d2d31"                                //   member_id: "m-1"
  "097374617469632d31"                      //   group_instance_id: "static-1"
  // metadata: the 18 bytes of the request
  "1300000000000100066f726465727300000000"
  "00"                                      //   no tagged fields
  "00";                                     // no tagged fields
// clang-format on

TEST_CASE("JoinGroup v6 response golden bytes from the JSON schema: compact "
          "members with their group instance ids",
          "[kafka][golden]") {
  auto subscription = from_hex(kp_consumer_subscription_v0);
  join_group_response x;
  x.generation_id = 1;
  x.protocol_name = "range";
  x.leader = "m-1";
  x.member_id = "m-1";
  x.members = {{"m-1", subscription, std::string{"static-1"}}};
  auto y =
    golden_response(spec_join_group_v6_response, api_key::join_group, 6, 28,
                    encode_join_group_response, decode_join_group_response, x);
  CHECK(y.generation_id == 1);
  CHECK(y.protocol_name == "range");
  CHECK(y.leader == "m-1");
  CHECK(y.member_id == "m-1");
  REQUIRE(y.members.size() == 1);
  CHECK(y.members[0].group_instance_id == "static-1");
  CHECK(y.members[0].metadata == subscription);
}

// -- SyncGroup ----------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(SyncGroupRequest[1]('golden-group', 3, 'm-1',
// [('m-1', kp_consumer_assignment_orders_0_1), ('m-2', orders_2)]), 15)
constexpr std::string_view kp_sync_group_v1_request =
  "000e00010000000f000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f75700000000300036d2d310000000200036d2d310000001e000000000001"
  "00066f72646572730000000200000000000000010000000000036d2d32000000"
  "1a00000000000100066f7264657273000000010000000200000000";
// clang-format on

TEST_CASE("SyncGroup v1 request golden bytes from kafka-python: the leader's "
          "assignment for every member",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_sync_group_v1_request, api_key::sync_group, 1,
                   decode_sync_group_request, encode_sync_group_request);
  CHECK(header.correlation_id == 15);
  CHECK(body.group_id == "golden-group");
  CHECK(body.generation_id == 3);
  CHECK(body.member_id == "m-1");
  REQUIRE(body.assignments.size() == 2);
  CHECK(body.assignments[0].member_id == "m-1");
  CHECK(body.assignments[1].member_id == "m-2");
  auto first = decode_assignment(body.assignments[0].assignment);
  REQUIRE(first);
  CHECK(first->partitions
        == std::vector<topic_partition>{tp("orders", 0), tp("orders", 1)});
  auto second = decode_assignment(body.assignments[1].assignment);
  REQUIRE(second);
  CHECK(second->partitions == std::vector<topic_partition>{tp("orders", 2)});
}

// clang-format off
// librdkafka 2.0.2 SyncGroup v3 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_sync_group_v3_request =
  "000e"                // request_api_key: SyncGroup (14)
  "0003"                // request_api_version: 3
  "00000005"            // correlation_id: 5
  "000772646b61666b61"  // client_id: "rdkafka"
  "0003677270"          // group_id: "grp"
  "00000001"            // generation_id: 1
  "00036d2d31"          // member_id: "m-1"
  "ffff"                // group_instance_id: null
  "00000001"            // assignments: 1
  "00036d2d31"          //   member_id: "m-1"
  // assignment: 26 bytes, ConsumerProtocolAssignment v0: golden [0], user data
  // empty
  "0000001a0000000000010006676f6c64656e000000010000000000000000";
// clang-format on

TEST_CASE("SyncGroup v3 request golden bytes from librdkafka: a null group "
          "instance id and an assignment v0",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_sync_group_v3_request, api_key::sync_group, 3,
                   decode_sync_group_request, encode_sync_group_request);
  CHECK(header.correlation_id == 5);
  CHECK(body.group_id == "grp");
  CHECK(body.generation_id == 1);
  CHECK(body.member_id == "m-1");
  CHECK_FALSE(body.group_instance_id);
  REQUIRE(body.assignments.size() == 1);
  CHECK(body.assignments[0].member_id == "m-1");
  auto assignment = decode_assignment(body.assignments[0].assignment);
  REQUIRE(assignment);
  CHECK(assignment->partitions
        == std::vector<topic_partition>{tp("golden", 0)});
}

// clang-format off
// SyncGroup v5 request (KIP-559 protocol type and name), assembled field by
// field from apache/kafka
// clients/src/main/resources/common/message/SyncGroupRequest.json
constexpr std::string_view spec_sync_group_v5_request =
  "000e"                        // request_api_key: SyncGroup (14)
  "0005"                        // request_api_version: 5
  "0000001d"                    // correlation_id: 29
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                          // header v2: no tagged fields
  "0d676f6c64656e2d67726f7570"  // group_id: "golden-group"
  "00000001"                    // generation_id: 1
  "046d2d31"                    // member_id: "m-1"
  "097374617469632d31"          // group_instance_id: "static-1"
  "09636f6e73756d6572"          // protocol_type: "consumer"
  "0672616e6765"                // protocol_name: "range"
  "02"                          // assignments: 1
  "046d2d31"                    //   member_id: "m-1"
  // assignment: 30 bytes, kafka-python's assignment orders [0, 1]
  "1f00000000000100066f726465727300000002000000000000000100000000"
  "00"                          //   no tagged fields
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("SyncGroup v5 request golden bytes from the JSON schema: protocol "
          "type and name (KIP-559) before the assignments",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_sync_group_v5_request, api_key::sync_group, 5,
                   decode_sync_group_request, encode_sync_group_request);
  CHECK(header.correlation_id == 29);
  CHECK(body.group_id == "golden-group");
  CHECK(body.generation_id == 1);
  CHECK(body.member_id == "m-1");
  CHECK(body.group_instance_id == "static-1");
  CHECK(body.protocol_type == "consumer");
  CHECK(body.protocol_name == "range");
  REQUIRE(body.assignments.size() == 1);
  CHECK(to_hex(body.assignments[0].assignment)
        == kp_consumer_assignment_orders_0_1);
}

// clang-format off
// kafka-python 2.0.2: response(SyncGroupResponse[1](0, 0,
// kp_consumer_assignment_orders_0_1), 15)
constexpr std::string_view kp_sync_group_v1_response =
  "0000000f0000000000000000001e00000000000100066f726465727300000002"
  "000000000000000100000000";
// clang-format on

TEST_CASE("SyncGroup v1 response golden bytes from kafka-python: the "
          "member's assignment",
          "[kafka][golden]") {
  sync_group_response x;
  x.assignment = from_hex(kp_consumer_assignment_orders_0_1);
  auto y =
    golden_response(kp_sync_group_v1_response, api_key::sync_group, 1, 15,
                    encode_sync_group_response, decode_sync_group_response, x);
  CHECK(y.throttle_time_ms == 0);
  CHECK(y.error == error_code::none);
  CHECK(to_hex(y.assignment) == kp_consumer_assignment_orders_0_1);
}

// clang-format off
// SyncGroup v5 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/SyncGroupResponse.json
constexpr std::string_view spec_sync_group_v5_response =
  "0000001d"            // correlation_id: 29
  "00"                  // header v1: no tagged fields
  "00000000"            // throttle_time_ms: 0
  "0000"                // error_code: 0
  "09636f6e73756d6572"  // protocol_type: "consumer"
  "0672616e6765"        // protocol_name: "range"
  // assignment: the 30 bytes of the request
  "1f00000000000100066f726465727300000002000000000000000100000000"
  "00";                 // no tagged fields
// clang-format on

TEST_CASE("SyncGroup v5 response golden bytes from the JSON schema: "
          "protocol type and name before the assignment",
          "[kafka][golden]") {
  sync_group_response x;
  x.assignment = from_hex(kp_consumer_assignment_orders_0_1);
  x.protocol_type = "consumer";
  x.protocol_name = "range";
  auto y =
    golden_response(spec_sync_group_v5_response, api_key::sync_group, 5, 29,
                    encode_sync_group_response, decode_sync_group_response, x);
  CHECK(y.error == error_code::none);
  CHECK(y.protocol_type == "consumer");
  CHECK(y.protocol_name == "range");
  CHECK(to_hex(y.assignment) == kp_consumer_assignment_orders_0_1);
}

// -- Heartbeat ----------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(HeartbeatRequest[1]('golden-group', 3, 'm-1'),
// 16)
constexpr std::string_view kp_heartbeat_v1_request =
  "000c000100000010000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f75700000000300036d2d31";
// clang-format on

// clang-format off
// librdkafka 2.0.2 Heartbeat v3 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_heartbeat_v3_request =
  "000c"                // request_api_key: Heartbeat (12)
  "0003"                // request_api_version: 3
  "00000006"            // correlation_id: 6
  "000772646b61666b61"  // client_id: "rdkafka"
  "0003677270"          // group_id: "grp"
  "00000001"            // generation_id: 1
  "00036d2d31"          // member_id: "m-1"
  "ffff";               // group_instance_id: null
// clang-format on

// clang-format off
// Heartbeat v4 request (the first flexible version), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/HeartbeatRequest.json
constexpr std::string_view spec_heartbeat_v4_request =
  "000c"                        // request_api_key: Heartbeat (12)
  "0004"                        // request_api_version: 4
  "0000001e"                    // correlation_id: 30
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                          // header v2: no tagged fields
  "0d676f6c64656e2d67726f7570"  // group_id: "golden-group"
  "00000001"                    // generation_id: 1
  "046d2d31"                    // member_id: "m-1"
  "097374617469632d31"          // group_instance_id: "static-1"
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("Heartbeat v1, v3 and v4 request golden bytes from kafka-python, "
          "librdkafka and the JSON schema: group, generation, member and "
          "(v3+) group instance id",
          "[kafka][golden]") {
  auto v1 = golden_request(kp_heartbeat_v1_request, api_key::heartbeat, 1,
                           decode_heartbeat_request, encode_heartbeat_request);
  CHECK(v1.header.correlation_id == 16);
  CHECK(v1.body.group_id == "golden-group");
  CHECK(v1.body.generation_id == 3);
  CHECK(v1.body.member_id == "m-1");
  auto v3 = golden_request(rdk_heartbeat_v3_request, api_key::heartbeat, 3,
                           decode_heartbeat_request, encode_heartbeat_request);
  CHECK(v3.header.correlation_id == 6);
  CHECK(v3.body.group_id == "grp");
  CHECK(v3.body.generation_id == 1);
  CHECK(v3.body.member_id == "m-1");
  CHECK_FALSE(v3.body.group_instance_id);
  auto v4 = golden_request(spec_heartbeat_v4_request, api_key::heartbeat, 4,
                           decode_heartbeat_request, encode_heartbeat_request);
  CHECK(v4.header.correlation_id == 30);
  CHECK(v4.body.group_id == "golden-group");
  CHECK(v4.body.generation_id == 1);
  CHECK(v4.body.member_id == "m-1");
  CHECK(v4.body.group_instance_id == "static-1");
}

// clang-format off
// kafka-python 2.0.2: response(HeartbeatResponse[1](0, 27), 16)
constexpr std::string_view kp_heartbeat_v1_response =
  "0000001000000000001b";
// clang-format on

// clang-format off
// Heartbeat v4 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/HeartbeatResponse.json
constexpr std::string_view spec_heartbeat_v4_response =
  "0000001e"  // correlation_id: 30
  "00"        // header v1: no tagged fields
  "00000000"  // throttle_time_ms: 0
  "001b"      // error_code: 27 (REBALANCE_IN_PROGRESS)
  "00";       // no tagged fields
// clang-format on

TEST_CASE("Heartbeat v1 and v4 response golden bytes from kafka-python and "
          "the JSON schema: REBALANCE_IN_PROGRESS after the throttle time",
          "[kafka][golden]") {
  heartbeat_response x;
  x.error = error_code::rebalance_in_progress;
  auto v1 =
    golden_response(kp_heartbeat_v1_response, api_key::heartbeat, 1, 16,
                    encode_heartbeat_response, decode_heartbeat_response, x);
  CHECK(v1.throttle_time_ms == 0);
  CHECK(v1.error == error_code::rebalance_in_progress);
  auto v4 =
    golden_response(spec_heartbeat_v4_response, api_key::heartbeat, 4, 30,
                    encode_heartbeat_response, decode_heartbeat_response, x);
  CHECK(v4.error == error_code::rebalance_in_progress);
}

// -- LeaveGroup ---------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(LeaveGroupRequest[1]('golden-group', 'm-2'), 17)
constexpr std::string_view kp_leave_group_v1_request =
  "000d000100000011000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f757000036d2d32";
// clang-format on

// clang-format off
// librdkafka 2.0.2 LeaveGroup v1 (kcat) request, captured from the socket by a
// one-off listener
constexpr std::string_view rdk_leave_group_v1_request =
  "000d"                // request_api_key: LeaveGroup (13)
  "0001"                // request_api_version: 1
  "00000009"            // correlation_id: 9
  "000772646b61666b61"  // client_id: "rdkafka"
  "0003677270"          // group_id: "grp"
  "00036d2d31";         // member_id: "m-1"
// clang-format on

TEST_CASE("LeaveGroup v1 request golden bytes from kafka-python and "
          "librdkafka: the group and one member id",
          "[kafka][golden]") {
  auto kp =
    golden_request(kp_leave_group_v1_request, api_key::leave_group, 1,
                   decode_leave_group_request, encode_leave_group_request);
  CHECK(kp.header.correlation_id == 17);
  CHECK(kp.body.group_id == "golden-group");
  CHECK(kp.body.member_id == "m-2");
  CHECK(kp.body.members.empty());
  auto rdk =
    golden_request(rdk_leave_group_v1_request, api_key::leave_group, 1,
                   decode_leave_group_request, encode_leave_group_request);
  CHECK(rdk.header.correlation_id == 9);
  CHECK(rdk.body.group_id == "grp");
  CHECK(rdk.body.member_id == "m-1");
}

// clang-format off
// LeaveGroup v4 request (the first flexible version), assembled field by field
// from apache/kafka
// clients/src/main/resources/common/message/LeaveGroupRequest.json
constexpr std::string_view spec_leave_group_v4_request =
  "000d"                        // request_api_key: LeaveGroup (13)
  "0004"                        // request_api_version: 4
  "0000001f"                    // correlation_id: 31
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                          // header v2: no tagged fields
  "0d676f6c64656e2d67726f7570"  // group_id: "golden-group"
  "03"                          // members: 2
  "046d2d31"                    //   member_id: "m-1"
  "097374617469632d31"          //   group_instance_id: "static-1"
  "00"                          //   no tagged fields
  "046d2d32"                    //   member_id: "m-2"
  "00"                          //   group_instance_id: null
  "00"                          //   no tagged fields
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("LeaveGroup v4 request golden bytes from the JSON schema: a batch "
          "of members (KIP-345), static and dynamic",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_leave_group_v4_request, api_key::leave_group, 4,
                   decode_leave_group_request, encode_leave_group_request);
  CHECK(header.correlation_id == 31);
  CHECK(body.group_id == "golden-group");
  REQUIRE(body.members.size() == 2);
  CHECK(body.members[0].member_id == "m-1");
  CHECK(body.members[0].group_instance_id == "static-1");
  CHECK(body.members[1].member_id == "m-2");
  CHECK_FALSE(body.members[1].group_instance_id);
}

// clang-format off
// kafka-python 2.0.2: response(LeaveGroupResponse[1](0, 0), 17)
constexpr std::string_view kp_leave_group_v1_response =
  "00000011000000000000";
// clang-format on

// clang-format off
// LeaveGroup v4 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/LeaveGroupResponse.json
constexpr std::string_view spec_leave_group_v4_response =
  "0000001f"            // correlation_id: 31
  "00"                  // header v1: no tagged fields
  "00000000"            // throttle_time_ms: 0
  "0000"                // error_code: 0
  "03"                  // members: 2
  "046d2d31"            //   member_id: "m-1"
  "097374617469632d31"  //   group_instance_id: "static-1"
  "0000"                //   error_code: 0
  "00"                  //   no tagged fields
  "046d2d32"            //   member_id: "m-2"
  "00"                  //   group_instance_id: null
  "0019"                //   error_code: 25 (UNKNOWN_MEMBER_ID)
  "00"                  //   no tagged fields
  "00";                 // no tagged fields
// clang-format on

TEST_CASE("LeaveGroup v1 and v4 response golden bytes from kafka-python and "
          "the JSON schema: the group's error, and (v3+) each member's",
          "[kafka][golden]") {
  leave_group_response v1x;
  auto v1 = golden_response(kp_leave_group_v1_response, api_key::leave_group, 1,
                            17, encode_leave_group_response,
                            decode_leave_group_response, v1x);
  CHECK(v1.throttle_time_ms == 0);
  CHECK(v1.error == error_code::none);
  leave_group_response v4x;
  v4x.members = {{"m-1", std::string{"static-1"}, error_code::none},
                 {"m-2", std::nullopt, error_code::unknown_member_id}};
  auto v4 = golden_response(spec_leave_group_v4_response, api_key::leave_group,
                            4, 31, encode_leave_group_response,
                            decode_leave_group_response, v4x);
  CHECK(v4.error == error_code::none);
  REQUIRE(v4.members.size() == 2);
  CHECK(v4.members[0].member_id == "m-1");
  CHECK(v4.members[0].group_instance_id == "static-1");
  CHECK(v4.members[0].error == error_code::none);
  CHECK(v4.members[1].member_id == "m-2");
  CHECK_FALSE(v4.members[1].group_instance_id);
  CHECK(v4.members[1].error == error_code::unknown_member_id);
}

// -- OffsetCommit -------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(OffsetCommitRequest[2]('golden-group', 3, 'm-1',
// -1, [('orders', [(0, 42, ''), (1, 7, None)])]), 18)
constexpr std::string_view kp_offset_commit_v2_request =
  "0008000200000012000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f75700000000300036d2d31ffffffffffffffff0000000100066f72646572"
  "730000000200000000000000000000002a0000000000010000000000000007ff"
  "ff";
// clang-format on

TEST_CASE("OffsetCommit v2 request golden bytes from kafka-python: the "
          "retention time, offsets with empty and null metadata",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(kp_offset_commit_v2_request, api_key::offset_commit, 2,
                   decode_offset_commit_request, encode_offset_commit_request);
  CHECK(header.correlation_id == 18);
  CHECK(body.group_id == "golden-group");
  CHECK(body.generation_id == 3);
  CHECK(body.member_id == "m-1");
  CHECK(body.retention_time_ms == -1);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "orders");
  REQUIRE(body.topics[0].partitions.size() == 2);
  CHECK(body.topics[0].partitions[0].partition_index == 0);
  CHECK(body.topics[0].partitions[0].committed_offset == 42);
  CHECK(body.topics[0].partitions[0].committed_metadata == "");
  CHECK(body.topics[0].partitions[1].partition_index == 1);
  CHECK(body.topics[0].partitions[1].committed_offset == 7);
  CHECK_FALSE(body.topics[0].partitions[1].committed_metadata);
}

// clang-format off
// librdkafka 2.0.2 OffsetCommit v7 (kcat) request, captured from the socket by
// a one-off listener
constexpr std::string_view rdk_offset_commit_v7_request =
  "0008"                // request_api_key: OffsetCommit (8)
  "0007"                // request_api_version: 7
  "00000008"            // correlation_id: 8
  "000772646b61666b61"  // client_id: "rdkafka"
  "0003677270"          // group_id: "grp"
  "00000001"            // generation_id_or_member_epoch: 1
  "00036d2d31"          // member_id: "m-1"
  "ffff"                // group_instance_id: null
  "00000001"            // topics: 1
  "0006676f6c64656e"    //   name: "golden"
  "00000001"            //   partitions: 1
  "00000000"            //     partition_index: 0
  "0000000000000001"    //     committed_offset: 1
  "ffffffff"            //     committed_leader_epoch: -1
  "0000";               //     committed_metadata: ""
// clang-format on

TEST_CASE("OffsetCommit v7 request golden bytes from librdkafka: no "
          "retention time, the group instance id and leader epoch",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_offset_commit_v7_request, api_key::offset_commit, 7,
                   decode_offset_commit_request, encode_offset_commit_request);
  CHECK(header.correlation_id == 8);
  CHECK(body.group_id == "grp");
  CHECK(body.generation_id == 1);
  CHECK(body.member_id == "m-1");
  CHECK_FALSE(body.group_instance_id);
  REQUIRE(body.topics.size() == 1);
  CHECK(body.topics[0].name == "golden");
  REQUIRE(body.topics[0].partitions.size() == 1);
  const auto& p = body.topics[0].partitions[0];
  CHECK(p.partition_index == 0);
  CHECK(p.committed_offset == 1);
  CHECK(p.committed_leader_epoch == -1);
  CHECK(p.committed_metadata == "");
}

// clang-format off
// OffsetCommit v8 request (the first flexible version), assembled field by
// field from apache/kafka
// clients/src/main/resources/common/message/OffsetCommitRequest.json
constexpr std::string_view spec_offset_commit_v8_request =
  "0008"                        // request_api_key: OffsetCommit (8)
  "0008"                        // request_api_version: 8
  "00000020"                    // correlation_id: 32
  // client_id: "golden" (int16 length even in header v2)
  "0006676f6c64656e"
  "00"                          // header v2: no tagged fields
  "0d676f6c64656e2d67726f7570"  // group_id: "golden-group"
  "00000001"                    // generation_id_or_member_epoch: 1
  "046d2d31"                    // member_id: "m-1"
  "00"                          // group_instance_id: null
  "02"                          // topics: 1
  "076f7264657273"              //   name: "orders"
  "03"                          //   partitions: 2
  "00000000"                    //     partition_index: 0
  "000000000000002a"            //     committed_offset: 42
  "00000004"                    //     committed_leader_epoch: 4
  "05636b7074"                  //     committed_metadata: "ckpt"
  "00"                          //     no tagged fields
  "00000001"                    //     partition_index: 1
  "0000000000000007"            //     committed_offset: 7
  "ffffffff"                    //     committed_leader_epoch: -1
  "00"                          //     committed_metadata: null
  "00"                          //     no tagged fields
  "00"                          //   no tagged fields
  "00";                         // no tagged fields
// clang-format on

TEST_CASE("OffsetCommit v8 request golden bytes from the JSON schema: "
          "compact, leader epoch before the metadata",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(spec_offset_commit_v8_request, api_key::offset_commit, 8,
                   decode_offset_commit_request, encode_offset_commit_request);
  CHECK(header.correlation_id == 32);
  CHECK(body.group_id == "golden-group");
  CHECK(body.generation_id == 1);
  CHECK(body.member_id == "m-1");
  CHECK_FALSE(body.group_instance_id);
  REQUIRE(body.topics.size() == 1);
  REQUIRE(body.topics[0].partitions.size() == 2);
  const auto& p0 = body.topics[0].partitions[0];
  CHECK(p0.committed_offset == 42);
  CHECK(p0.committed_leader_epoch == 4);
  CHECK(p0.committed_metadata == "ckpt");
  const auto& p1 = body.topics[0].partitions[1];
  CHECK(p1.partition_index == 1);
  CHECK(p1.committed_offset == 7);
  CHECK(p1.committed_leader_epoch == -1);
  CHECK_FALSE(p1.committed_metadata);
}

// clang-format off
// kafka-python 2.0.2: response(OffsetCommitResponse[3](0, [('orders', [(0, 0),
// (1, 22)])]), 18)
constexpr std::string_view kp_offset_commit_v3_response =
  "00000012000000000000000100066f7264657273000000020000000000000000"
  "00010016";
// clang-format on

// clang-format off
// OffsetCommit v8 response, assembled field by field from apache/kafka
// clients/src/main/resources/common/message/OffsetCommitResponse.json
constexpr std::string_view spec_offset_commit_v8_response =
  "00000020"        // correlation_id: 32
  "00"              // header v1: no tagged fields
  "00000000"        // throttle_time_ms: 0
  "02"              // topics: 1
  "076f7264657273"  //   name: "orders"
  "03"              //   partitions: 2
  "00000000"        //     partition_index: 0
  "0000"            //     error_code: 0
  "00"              //     no tagged fields
  "00000001"        //     partition_index: 1
  "0016"            //     error_code: 22 (ILLEGAL_GENERATION)
  "00"              //     no tagged fields
  "00"              //   no tagged fields
  "00";             // no tagged fields
// clang-format on

TEST_CASE("OffsetCommit v3 and v8 response golden bytes from kafka-python "
          "and the JSON schema: an error per partition",
          "[kafka][golden]") {
  offset_commit_response x;
  x.topics = {
    {"orders", {{0, error_code::none}, {1, error_code::illegal_generation}}}};
  for (auto [hex, version, id] :
       {std::tuple{kp_offset_commit_v3_response, int16_t{3}, 18},
        std::tuple{spec_offset_commit_v8_response, int16_t{8}, 32}}) {
    INFO("version " << version);
    auto y = golden_response(hex, api_key::offset_commit, version, id,
                             encode_offset_commit_response,
                             decode_offset_commit_response, x);
    CHECK(y.throttle_time_ms == 0);
    REQUIRE(y.topics.size() == 1);
    CHECK(y.topics[0].name == "orders");
    REQUIRE(y.topics[0].partitions.size() == 2);
    CHECK(y.topics[0].partitions[0].error == error_code::none);
    CHECK(y.topics[0].partitions[1].partition_index == 1);
    CHECK(y.topics[0].partitions[1].error == error_code::illegal_generation);
  }
}

// -- OffsetFetch --------------------------------------------------------------

// clang-format off
// kafka-python 2.0.2: request(OffsetFetchRequest[1]('golden-group', [('orders',
// [0, 1])]), 19)
constexpr std::string_view kp_offset_fetch_v1_request =
  "0009000100000013000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f75700000000100066f7264657273000000020000000000000001";
// clang-format on

// clang-format off
// kafka-python 2.0.2: request(OffsetFetchRequest[3]('golden-group', None), 20)
constexpr std::string_view kp_offset_fetch_v3_request =
  "0009000300000014000c6b61666b612d707974686f6e000c676f6c64656e2d67"
  "726f7570ffffffff";
// clang-format on

TEST_CASE("OffsetFetch v1 and v3 request golden bytes from kafka-python: "
          "named partitions, or (v2+) null topics for all of them",
          "[kafka][golden]") {
  auto v1 =
    golden_request(kp_offset_fetch_v1_request, api_key::offset_fetch, 1,
                   decode_offset_fetch_request, encode_offset_fetch_request);
  CHECK(v1.header.correlation_id == 19);
  CHECK(v1.body.group_id == "golden-group");
  REQUIRE(v1.body.topics);
  REQUIRE(v1.body.topics->size() == 1);
  CHECK((*v1.body.topics)[0].name == "orders");
  CHECK((*v1.body.topics)[0].partition_indexes == std::vector<int32_t>{0, 1});
  auto v3 =
    golden_request(kp_offset_fetch_v3_request, api_key::offset_fetch, 3,
                   decode_offset_fetch_request, encode_offset_fetch_request);
  CHECK(v3.header.correlation_id == 20);
  CHECK(v3.body.group_id == "golden-group");
  CHECK_FALSE(v3.body.topics);
}

// clang-format off
// librdkafka 2.0.2 OffsetFetch v7 (flexible) (kcat) request, captured from the
// socket by a one-off listener
constexpr std::string_view rdk_offset_fetch_v7_request =
  "0009"                // request_api_key: OffsetFetch (9)
  "0007"                // request_api_version: 7
  "00000007"            // correlation_id: 7
  "000772646b61666b61"  // client_id: "rdkafka"
  "00"                  // header v2: no tagged fields
  "04677270"            // group_id: "grp"
  "02"                  // topics: 1
  "07676f6c64656e"      //   name: "golden"
  "02"                  //   partition_indexes: 1
  "00000000"            //     0
  "00"                  //   no tagged fields
  "01"                  // require_stable: true
  "00";                 // no tagged fields
// clang-format on

TEST_CASE("OffsetFetch v7 request golden bytes from librdkafka: request "
          "header v2, compact, require_stable set",
          "[kafka][golden]") {
  auto [header, body] =
    golden_request(rdk_offset_fetch_v7_request, api_key::offset_fetch, 7,
                   decode_offset_fetch_request, encode_offset_fetch_request);
  CHECK(header.correlation_id == 7);
  CHECK(header.client_id == "rdkafka");
  CHECK(body.group_id == "grp");
  REQUIRE(body.topics);
  REQUIRE(body.topics->size() == 1);
  CHECK((*body.topics)[0].name == "golden");
  CHECK((*body.topics)[0].partition_indexes == std::vector<int32_t>{0});
  CHECK(body.require_stable);
  CHECK(body.groups.empty());
}

// clang-format off
// kafka-python 2.0.2: response(OffsetFetchResponse[1]([('orders', [(0, 42, '',
// 0), (1, -1, None, 0)])]), 19)
constexpr std::string_view kp_offset_fetch_v1_response =
  "000000130000000100066f72646572730000000200000000000000000000002a"
  "0000000000000001ffffffffffffffffffff0000";
// clang-format on

TEST_CASE("OffsetFetch v1 response golden bytes from kafka-python: offset, "
          "metadata and error per partition, no group error",
          "[kafka][golden]") {
  offset_fetch_response x;
  x.topics = {{"orders",
               {{0, 42, std::string{}, error_code::none},
                {1, -1, std::nullopt, error_code::none}}}};
  auto y = golden_response(kp_offset_fetch_v1_response, api_key::offset_fetch,
                           1, 19, encode_offset_fetch_response,
                           decode_offset_fetch_response, x);
  REQUIRE(y.topics.size() == 1);
  REQUIRE(y.topics[0].partitions.size() == 2);
  CHECK(y.topics[0].partitions[0].committed_offset == 42);
  CHECK(y.topics[0].partitions[0].metadata == "");
  CHECK(y.topics[0].partitions[1].partition_index == 1);
  CHECK(y.topics[0].partitions[1].committed_offset == -1);
  CHECK_FALSE(y.topics[0].partitions[1].metadata);
}

// clang-format off
// kafka-python 2.0.2: response(OffsetFetchResponse[3](0, [('orders', [(0, 42,
// 'ckpt', 0)])], 0), 20)
constexpr std::string_view kp_offset_fetch_v3_response =
  "00000014000000000000000100066f7264657273000000010000000000000000"
  "0000002a0004636b707400000000";
// clang-format on

TEST_CASE("OffsetFetch v3 response golden bytes from kafka-python: throttle "
          "time first, the group's error last",
          "[kafka][golden]") {
  offset_fetch_response x;
  x.topics = {{"orders", {{0, 42, std::string{"ckpt"}, error_code::none}}}};
  auto y = golden_response(kp_offset_fetch_v3_response, api_key::offset_fetch,
                           3, 20, encode_offset_fetch_response,
                           decode_offset_fetch_response, x);
  CHECK(y.throttle_time_ms == 0);
  REQUIRE(y.topics.size() == 1);
  REQUIRE(y.topics[0].partitions.size() == 1);
  CHECK(y.topics[0].partitions[0].committed_offset == 42);
  CHECK(y.topics[0].partitions[0].metadata == "ckpt");
  CHECK(y.error == error_code::none);
}

// clang-format off
// OffsetFetch v7 response (the answer to librdkafka's OffsetFetch v7),
// assembled field by field from apache/kafka
// clients/src/main/resources/common/message/OffsetFetchResponse.json.
// librdkafka 2.0.2 reads it: served to kcat -G, its next Fetch starts at offset
// 42.
constexpr std::string_view spec_offset_fetch_v7_response =
  "00000007"          // correlation_id: 7
  "00"                // header v1: no tagged fields
  "00000000"          // throttle_time_ms: 0
  "02"                // topics: 1
  "07676f6c64656e"    //   name: "golden"
  "02"                //   partitions: 1
  "00000000"          //     partition_index: 0
  "000000000000002a"  //     committed_offset: 42
  "ffffffff"          //     committed_leader_epoch: -1
  "01"                //     metadata: ""
  "0000"              //     error_code: 0
  "00"                //     no tagged fields
  "00"                //   no tagged fields
  "0000"              // error_code: 0
  "00";               // no tagged fields
// clang-format on

TEST_CASE("OffsetFetch v7 response golden bytes from the JSON schema: "
          "response header v1, leader epoch before the metadata",
          "[kafka][golden]") {
  offset_fetch_response x;
  x.topics = {{"golden", {{0, 42, std::string{}, error_code::none, -1}}}};
  auto y = golden_response(spec_offset_fetch_v7_response, api_key::offset_fetch,
                           7, 7, encode_offset_fetch_response,
                           decode_offset_fetch_response, x);
  REQUIRE(y.topics.size() == 1);
  CHECK(y.topics[0].name == "golden");
  REQUIRE(y.topics[0].partitions.size() == 1);
  CHECK(y.topics[0].partitions[0].committed_offset == 42);
  CHECK(y.topics[0].partitions[0].committed_leader_epoch == -1);
  CHECK(y.topics[0].partitions[0].metadata == "");
  CHECK(y.error == error_code::none);
}
