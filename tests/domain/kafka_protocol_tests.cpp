#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/log/record_batch.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

// -- samples of every message -------------------------------------------------

bytes sample_batch() {
  return encode_batch(0, 0,
                      {record{b("k"), b("hello"), 1000, {}},
                       record{std::nullopt, b("world"), 1001, {}}});
}

metadata_request sample_metadata_request() {
  metadata_request x;
  x.topics = std::vector<metadata_request_topic>{{uuid{}, "orders"},
                                                 {uuid{}, "payments"}};
  return x;
}

metadata_response sample_metadata_response() {
  metadata_response x;
  x.brokers = {{1, "broker-1", 9092, "rack-a"}, {2, "broker-2", 9093, {}}};
  x.controller_id = 1;
  metadata_partition p0{error_code::none, 0, 1, {1, 2}, {1, 2}};
  metadata_partition p1{error_code::leader_not_available, 1, -1, {2, 1}, {}};
  x.topics = {{error_code::none, "orders", false, {p0, p1}},
              {error_code::none, "__consumer_offsets", true, {}},
              {error_code::unknown_topic_or_partition, "missing", false, {}}};
  return x;
}

produce_request sample_produce_request() {
  produce_request x;
  x.transactional_id = std::nullopt;
  x.acks = -1;
  x.timeout_ms = 30000;
  x.topics = {{"orders", {{0, sample_batch()}, {3, {}}}}};
  return x;
}

produce_response sample_produce_response() {
  produce_response x;
  x.responses = {{"orders",
                  {{0, error_code::none, 100, -1},
                   {3, error_code::not_leader_or_follower, -1, -1}}}};
  x.throttle_time_ms = 5;
  return x;
}

fetch_request sample_fetch_request() {
  fetch_request x;
  x.max_wait_ms = 500;
  x.min_bytes = 1;
  x.max_bytes = 52428800;
  x.isolation_level = 1;
  x.topics = {{"orders", {{0, 100, 1048576}, {1, 0, 1048576}}},
              {"payments", {{7, 12345678901, 65536}}}};
  return x;
}

fetch_response sample_fetch_response() {
  fetch_response x;
  x.throttle_time_ms = 0;
  fetch_partition_response p0;
  p0.partition_index = 0;
  p0.high_watermark = 2;
  p0.last_stable_offset = 2;
  p0.records = sample_batch();
  fetch_partition_response p1;
  p1.partition_index = 1;
  p1.error = error_code::offset_out_of_range;
  p1.aborted_transactions = std::vector<aborted_transaction>{{7, 3}, {8, 5}};
  fetch_partition_response p2;
  p2.partition_index = 2;
  p2.aborted_transactions = std::nullopt;
  x.responses = {{"orders", {p0, p1, p2}}};
  return x;
}

list_offsets_request sample_list_offsets_request() {
  list_offsets_request x;
  x.topics = {
    {"orders", {{0, latest_timestamp}, {1, earliest_timestamp}, {2, 1500}}}};
  return x;
}

list_offsets_response sample_list_offsets_response() {
  list_offsets_response x;
  x.topics = {{"orders",
               {{0, error_code::none, -1, 42},
                {1, error_code::none, -1, 0},
                {2, error_code::unknown_topic_or_partition, -1, -1}}}};
  return x;
}

offset_commit_request sample_offset_commit_request() {
  offset_commit_request x;
  x.group_id = "payments-consumers";
  x.generation_id = 3;
  x.member_id = "rdkafka-1b2c";
  x.retention_time_ms = -1;
  x.topics = {{"orders", {{0, 42, "meta"}, {1, 7, std::nullopt}}},
              {"payments", {{2, 0, ""}}}};
  return x;
}

offset_commit_response sample_offset_commit_response() {
  offset_commit_response x;
  x.topics = {
    {"orders", {{0, error_code::none}, {1, error_code::illegal_generation}}}};
  return x;
}

offset_fetch_request sample_offset_fetch_request() {
  offset_fetch_request x;
  x.group_id = "payments-consumers";
  x.topics = {{"orders", {0, 1, 2}}, {"payments", {}}};
  return x;
}

offset_fetch_response sample_offset_fetch_response() {
  offset_fetch_response x;
  x.topics = {{"orders",
               {{0, 42, "meta", error_code::none},
                {1, -1, std::nullopt, error_code::none},
                {2, -1, "", error_code::unknown_topic_or_partition}}}};
  return x;
}

join_group_request sample_join_group_request() {
  join_group_request x;
  x.group_id = "payments-consumers";
  x.session_timeout_ms = 10000;
  x.rebalance_timeout_ms = 300000;
  x.member_id = "";
  x.protocol_type = "consumer";
  x.protocols = {{"range", {0, 1, 2, 3}}, {"roundrobin", {}}};
  return x;
}

join_group_response sample_join_group_response() {
  join_group_response x;
  x.generation_id = 4;
  x.protocol_name = "range";
  x.leader = "m-1";
  x.member_id = "m-2";
  x.members = {{"m-1", {9, 9}}, {"m-2", {}}};
  return x;
}

sync_group_request sample_sync_group_request() {
  sync_group_request x;
  x.group_id = "payments-consumers";
  x.generation_id = 4;
  x.member_id = "m-1";
  x.assignments = {{"m-1", {0, 1}}, {"m-2", {}}};
  return x;
}

describe_groups_response sample_describe_groups_response() {
  describe_groups_response x;
  described_group g;
  g.group_id = "payments-consumers";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  g.members = {{"m-1", "rdkafka", "/10.0.0.1", {1}, {2, 3}}};
  x.groups = {g, {error_code::group_id_not_found, "gone", "Dead", "", "", {}}};
  return x;
}

create_topics_request sample_create_topics_request() {
  create_topics_request x;
  creatable_topic t1{"orders", 6, 3, {}, {{"cleanup.policy", "compact"}}};
  creatable_topic t2{
    "manual", -1, -1, {{0, {1, 2}}, {1, {2, 3}}}, {{"retention.ms", {}}}};
  x.topics = {t1, t2};
  x.timeout_ms = 5000;
  x.validate_only = true;
  return x;
}

create_topics_response sample_create_topics_response() {
  create_topics_response x;
  x.topics = {{"orders", error_code::none, std::nullopt},
              {"manual", error_code::topic_already_exists, "exists"}};
  return x;
}

/// One frame per supported request version, every field non-default.
std::vector<bytes> sample_request_frames() {
  std::vector<bytes> result;
  for (int16_t v = 0; v <= 2; ++v)
    result.push_back(
      request_frame(api_key::api_versions, v, encode_api_versions_request, {}));
  result.push_back(request_frame(api_key::metadata, 1, encode_metadata_request,
                                 sample_metadata_request()));
  result.push_back(request_frame(api_key::metadata, 1, encode_metadata_request,
                                 metadata_request{}));
  result.push_back(request_frame(api_key::produce, 3, encode_produce_request,
                                 sample_produce_request()));
  result.push_back(request_frame(api_key::fetch, 4, encode_fetch_request,
                                 sample_fetch_request()));
  result.push_back(request_frame(api_key::list_offsets, 1,
                                 encode_list_offsets_request,
                                 sample_list_offsets_request()));
  result.push_back(request_frame(api_key::offset_commit, 2,
                                 encode_offset_commit_request,
                                 sample_offset_commit_request()));
  result.push_back(request_frame(api_key::offset_fetch, 1,
                                 encode_offset_fetch_request,
                                 sample_offset_fetch_request()));
  result.push_back(request_frame(api_key::find_coordinator, 0,
                                 encode_find_coordinator_request,
                                 {"payments-consumers"}));
  for (int16_t v = 0; v <= 1; ++v)
    result.push_back(request_frame(api_key::join_group, v,
                                   encode_join_group_request,
                                   sample_join_group_request()));
  result.push_back(request_frame(api_key::heartbeat, 0,
                                 encode_heartbeat_request,
                                 {"payments-consumers", 4, "m-1"}));
  result.push_back(request_frame(api_key::leave_group, 0,
                                 encode_leave_group_request,
                                 {"payments-consumers", "m-1"}));
  result.push_back(request_frame(api_key::sync_group, 0,
                                 encode_sync_group_request,
                                 sample_sync_group_request()));
  result.push_back(request_frame(api_key::describe_groups, 0,
                                 encode_describe_groups_request,
                                 {{"payments-consumers", "other"}}));
  result.push_back(
    request_frame(api_key::list_groups, 0, encode_list_groups_request, {}));
  for (int16_t v = 0; v <= 1; ++v)
    result.push_back(request_frame(api_key::create_topics, v,
                                   encode_create_topics_request,
                                   sample_create_topics_request()));
  return result;
}

struct response_sample {
  api_key key;
  int16_t version;
  bytes body;
};

std::vector<response_sample> sample_responses() {
  std::vector<response_sample> result;
  auto add = [&](api_key key, int16_t version, bytes body) {
    result.push_back({key, version, std::move(body)});
  };
  for (int16_t v = 0; v <= 2; ++v)
    add(api_key::api_versions, v,
        encode_body(encode_api_versions_response,
                    answer_api_versions({}, v, supported_versions()).response,
                    v));
  add(api_key::metadata, 1,
      encode_body(encode_metadata_response, sample_metadata_response(), 1));
  add(api_key::produce, 3,
      encode_body(encode_produce_response, sample_produce_response(), 3));
  add(api_key::fetch, 4,
      encode_body(encode_fetch_response, sample_fetch_response(), 4));
  add(api_key::list_offsets, 1,
      encode_body(encode_list_offsets_response, sample_list_offsets_response(),
                  1));
  add(api_key::offset_commit, 2,
      encode_body(encode_offset_commit_response,
                  sample_offset_commit_response(), 2));
  add(api_key::offset_fetch, 1,
      encode_body(encode_offset_fetch_response, sample_offset_fetch_response(),
                  1));
  add(api_key::find_coordinator, 0,
      encode_body(encode_find_coordinator_response,
                  {error_code::none, 1, "broker-1", 9092}, 0));
  for (int16_t v = 0; v <= 1; ++v)
    add(
      api_key::join_group, v,
      encode_body(encode_join_group_response, sample_join_group_response(), v));
  add(api_key::heartbeat, 0,
      encode_body(encode_heartbeat_response,
                  {error_code::rebalance_in_progress}, 0));
  add(api_key::leave_group, 0,
      encode_body(encode_leave_group_response, {error_code::none}, 0));
  add(
    api_key::sync_group, 0,
    encode_body(encode_sync_group_response, {error_code::none, {0, 1, 2}}, 0));
  add(api_key::describe_groups, 0,
      encode_body(encode_describe_groups_response,
                  sample_describe_groups_response(), 0));
  add(api_key::list_groups, 0,
      encode_body(encode_list_groups_response,
                  {error_code::none, {{"g1", "consumer"}, {"g2", ""}}}, 0));
  for (int16_t v = 0; v <= 1; ++v)
    add(api_key::create_topics, v,
        encode_body(encode_create_topics_response,
                    sample_create_topics_response(), v));
  return result;
}

} // namespace

// -- byte-exact layouts, assembled by hand from Kafka's JSON schemas ----------

TEST_CASE("ApiVersions v0 request is a v1 header and no body, byte for byte",
          "[kafka]") {
  // size 14 | api_key 18 | api_version 0 | correlation_id 7 | client_id "kcat"
  const bytes wire{0, 0, 0, 14, 0, 18,  0,   0,   0,
                   0, 0, 7, 0,  4, 'k', 'c', 'a', 't'};
  auto f = decode_frame(wire.data(), wire.size(), 1024);
  REQUIRE(f.status == frame_status::complete);
  CHECK(f.size == 14);
  CHECK(f.consumed == wire.size());
  reader in{f.data, f.size};
  auto header = decode_request_header(in);
  REQUIRE(header);
  CHECK(header->api_key == key_of(api_key::api_versions));
  CHECK(header->api_version == 0);
  CHECK(header->correlation_id == 7);
  CHECK(header->client_id == "kcat");
  auto body = decode_request_body(in, *header);
  REQUIRE(body);
  CHECK(std::holds_alternative<api_versions_request>(*body));
  CHECK(in.remaining() == 0);
  // The encoder produces the same bytes.
  bytes out;
  writer w{out};
  auto mark = w.begin_frame();
  encode_request_header(w, *header);
  encode_api_versions_request(w, {}, 0);
  REQUIRE(w.end_frame(mark));
  CHECK(out == wire);
}

TEST_CASE("JoinGroup v0 request is group, session timeout, member, protocol "
          "type and protocols, byte for byte",
          "[kafka]") {
  auto body = cat({str("payments-consumers"), i32(10000), str(""),
                   str("consumer"), i32(2), str("range"), blob({0, 1, 2, 3}),
                   str("roundrobin"), blob({})});
  auto wire = framed(cat({i16(11), i16(0), i32(42), str("rdkafka"), body}));
  std::string error;
  REQUIRE(decode_request_frame(wire, error));
  reader in{wire.data() + 4, wire.size() - 4};
  auto header = decode_request_header(in);
  REQUIRE(header);
  CHECK(header->correlation_id == 42);
  auto x = decode_join_group_request(in, 0);
  REQUIRE(x);
  CHECK(in.remaining() == 0);
  CHECK(x->group_id == "payments-consumers");
  CHECK(x->session_timeout_ms == 10000);
  CHECK(x->rebalance_timeout_ms == 10000); // v0: the session timeout
  CHECK(x->member_id.empty());
  CHECK(x->protocol_type == "consumer");
  REQUIRE(x->protocols.size() == 2);
  CHECK(x->protocols[0].name == "range");
  CHECK(x->protocols[0].metadata == bytes{0, 1, 2, 3});
  CHECK(x->protocols[1].name == "roundrobin");
  CHECK(x->protocols[1].metadata.empty());
  CHECK(encode_body(encode_join_group_request, *x, 0) == body);
}

TEST_CASE("JoinGroup v1 request round-trips with rebalance timeout",
          "[kafka]") {
  auto x = sample_join_group_request();
  auto wire = encode_body(encode_join_group_request, x, 1);
  // The rebalance timeout follows the session timeout.
  auto head = cat({str("payments-consumers"), i32(10000), i32(300000)});
  REQUIRE(wire.size() > head.size());
  CHECK(bytes(wire.begin(), wire.begin() + head.size()) == head);
  auto y =
    round_trip(encode_join_group_request, decode_join_group_request, x, 1);
  CHECK(y.session_timeout_ms == 10000);
  CHECK(y.rebalance_timeout_ms == 300000);
  CHECK(y.protocols.size() == 2);
}

TEST_CASE("Fetch v4 response writes empty records as size 0 and keeps null "
          "aborted transactions null",
          "[kafka]") {
  fetch_response x;
  fetch_partition_response p0; // default: empty aborted list, empty records
  p0.partition_index = 0;
  p0.high_watermark = 42;
  p0.last_stable_offset = 42;
  fetch_partition_response p1;
  p1.partition_index = 1;
  p1.error = error_code::not_leader_or_follower;
  p1.aborted_transactions = std::nullopt;
  p1.records = {0xaa, 0xbb, 0xcc};
  x.responses = {{"orders", {p0, p1}}};
  auto expected =
    cat({i32(0), i32(1), str("orders"), i32(2),
         // partition 0
         i32(0), i16(0), i64(42), i64(42), i32(0), i32(0),
         // partition 1
         i32(1), i16(6), i64(-1), i64(-1), i32(-1), blob({0xaa, 0xbb, 0xcc})});
  CHECK(encode_body(encode_fetch_response, x, 4) == expected);
}

TEST_CASE("Metadata v1 request with a null topic array asks for every topic",
          "[kafka]") {
  CHECK(encode_body(encode_metadata_request, metadata_request{}, 1) == i32(-1));
  auto x = sample_metadata_request();
  CHECK(encode_body(encode_metadata_request, x, 1)
        == cat({i32(2), str("orders"), str("payments")}));
  auto all = round_trip(encode_metadata_request, decode_metadata_request,
                        metadata_request{}, 1);
  CHECK_FALSE(all.topics.has_value());
  auto none =
    round_trip(encode_metadata_request, decode_metadata_request,
               metadata_request{std::vector<metadata_request_topic>{}}, 1);
  REQUIRE(none.topics.has_value());
  CHECK(none.topics->empty());
}

TEST_CASE("OffsetCommit v2 request carries generation, member and retention "
          "time before the topics",
          "[kafka]") {
  offset_commit_request x;
  x.group_id = "g";
  x.generation_id = 3;
  x.member_id = "m";
  x.retention_time_ms = -1;
  x.topics = {{"t", {{0, 42, std::nullopt}}}};
  CHECK(encode_body(encode_offset_commit_request, x, 2)
        == cat({str("g"), i32(3), str("m"), i64(-1), i32(1), str("t"), i32(1),
                i32(0), i64(42), i16(-1)}));
}

// -- ApiVersions --------------------------------------------------------------

TEST_CASE("ApiVersions v3 request is header v2 and compact strings, and its "
          "flexible answer keeps response header v0",
          "[kafka]") {
  // As librdkafka sends it: header v2 (client id with its int16 length, then
  // an empty tag section) and the KIP-511 client software as compact strings.
  auto wire = framed(cat({i16(18), i16(3), i32(9), str("rdkafka"), no_tags(),
                          cstr("librdkafka"), cstr("2.0.2"), no_tags()}));
  auto f = decode_frame(wire.data(), wire.size(), 1024);
  REQUIRE(f.status == frame_status::complete);
  reader in{f.data, f.size};
  auto header = decode_request_header(in);
  REQUIRE(header);
  CHECK(header->api_version == 3);
  CHECK(header->client_id == "rdkafka");
  auto body = decode_request_body(in, *header);
  REQUIRE(body);
  CHECK(in.remaining() == 0);
  auto& req = std::get<api_versions_request>(*body);
  CHECK(req.client_software_name == "librdkafka");
  CHECK(req.client_software_version == "2.0.2");
  const std::vector<api_version> served{{3, 0, 13}, {18, 0, 4}};
  auto answer = answer_api_versions(req, header->api_version, served);
  CHECK(answer.version == 3);
  CHECK(answer.response.error == error_code::none);
  bytes out;
  writer w{out};
  auto mark = w.begin_frame();
  encode_response_header(w, {header->correlation_id}, header->api_key,
                         header->api_version);
  encode_api_versions_response(w, answer.response, answer.version);
  REQUIRE(w.end_frame(mark));
  // correlation 9 and no tag section (header v0) | error 0 | compact array of
  // two entries, each with its own empty tag section | throttle | no tags
  CHECK(
    out
    == framed(cat({i32(9), i16(0), carr(2), i16(3), i16(0), i16(13), no_tags(),
                   i16(18), i16(0), i16(4), no_tags(), i32(0), no_tags()})));
  // The encoder writes the same request.
  bytes again;
  writer wa{again};
  auto m2 = wa.begin_frame();
  encode_request_header(wa, *header);
  encode_api_versions_request(wa, req, 3);
  REQUIRE(wa.end_frame(m2));
  CHECK(again == wire);
}

TEST_CASE("ApiVersions of a version the broker does not serve gets "
          "UNSUPPORTED_VERSION in the v0 layout with the served range",
          "[kafka]") {
  // KIP-511: a listener serving 0-2 answers a v3 request in v0, listing
  // ApiVersions 0-2, so that the client retries with v2.
  const std::vector<api_version> served{{3, 1, 1}, {18, 0, 2}};
  auto answer = answer_api_versions({"librdkafka", "2.0.2"}, 3, served);
  CHECK(answer.version == 0);
  CHECK(answer.response.error == error_code::unsupported_version);
  bytes out;
  writer w{out};
  encode_response_header(w, {9}, 18, 3);
  encode_api_versions_response(w, answer.response, answer.version);
  // correlation 9 | error 35 | one entry: ApiVersions 0..2 | no throttle time
  CHECK(out == cat({i32(9), i16(35), i32(1), i16(18), i16(0), i16(2)}));
  // A version newer than the codec's is answered without being parsed, as
  // Kafka's RequestContext does: the body may be anything.
  auto wire = cat({i16(18), i16(5), i32(9), str("x"), no_tags(), i8(-1)});
  reader in{wire};
  auto header = decode_request_header(in);
  REQUIRE(header);
  auto body = decode_request_body(in, *header);
  REQUIRE(body);
  CHECK(std::holds_alternative<api_versions_request>(*body));
  auto newer = answer_api_versions({}, 5, supported_versions());
  CHECK(newer.version == 0);
  REQUIRE(newer.response.api_keys.size() == 1);
  CHECK(newer.response.api_keys[0].max_version == 4);
  // Decoding it directly names the reason.
  reader direct{wire};
  decode_request_header(direct);
  CHECK_FALSE(decode_api_versions_request(direct, 5));
  CHECK(direct.error().find("unsupported ApiVersions request version 5")
        != std::string::npos);
}

TEST_CASE("ApiVersions v3 with client software outside KIP-511's pattern is "
          "an INVALID_REQUEST",
          "[kafka]") {
  CHECK(is_valid({"librdkafka", "2.0.2"}, 3));
  CHECK(is_valid({"apache-kafka-java", "4.0.0"}, 4));
  CHECK(is_valid({}, 2)); // no such fields before v3
  CHECK_FALSE(is_valid({}, 3));
  CHECK_FALSE(is_valid({"-kafka", "1"}, 3));
  CHECK_FALSE(is_valid({"kafka", "1.0."}, 3));
  CHECK_FALSE(is_valid({"kafka python", "2"}, 3));
  auto answer = answer_api_versions({"bad name", "1"}, 3, supported_versions());
  CHECK(answer.version == 3);
  CHECK(answer.response.error == error_code::invalid_request);
  CHECK(answer.response.api_keys.empty());
}

TEST_CASE("ApiVersions answers every served API, with throttle time from "
          "v1",
          "[kafka]") {
  auto v0 = answer_api_versions({}, 0, supported_versions());
  CHECK(v0.version == 0);
  CHECK(v0.response.error == error_code::none);
  auto body0 = encode_body(encode_api_versions_response, v0.response, 0);
  auto n = supported_versions().size();
  CHECK(body0.size() == 2 + 4 + 6 * n);
  auto body2 = encode_body(encode_api_versions_response, v0.response, 2);
  CHECK(body2.size() == body0.size() + 4);
  auto y =
    round_trip(encode_api_versions_response, decode_api_versions_response,
               answer_api_versions({}, 2, supported_versions()).response, 2);
  REQUIRE(y.api_keys.size() == n);
  CHECK(y.api_keys.front().api_key == 0);
  CHECK(y.api_keys.front().min_version == 0);
  CHECK(y.api_keys.back().api_key == 69);
  CHECK(y.api_keys.back().max_version == 1);
}

TEST_CASE("supported versions are Kafka 3.9's for every API from v0, up to "
          "Kafka 4.0's newest, by Kafka's keys in ascending order",
          "[kafka]") {
  struct row {
    int16_t key;
    std::string_view name;
    int16_t min;
    int16_t max;
    int16_t first_flexible;
  };
  // Kafka 3.9's floors (every API from v0), Kafka 4.0's newest versions and
  // flexibleVersions.
  const row expected[] = {
    {0, "Produce", 0, 12, 9},
    {1, "Fetch", 0, 17, 12},
    {2, "ListOffsets", 0, 10, 6},
    {3, "Metadata", 0, 13, 9},
    {8, "OffsetCommit", 0, 9, 8},
    {9, "OffsetFetch", 0, 9, 6},
    {10, "FindCoordinator", 0, 6, 3},
    {11, "JoinGroup", 0, 9, 6},
    {12, "Heartbeat", 0, 4, 4},
    {13, "LeaveGroup", 0, 5, 4},
    {14, "SyncGroup", 0, 5, 4},
    {15, "DescribeGroups", 0, 6, 5},
    {16, "ListGroups", 0, 5, 3},
    {17, "SaslHandshake", 0, 1, 2}, // never flexible
    {18, "ApiVersions", 0, 4, 3},
    {19, "CreateTopics", 0, 7, 5},
    {20, "DeleteTopics", 0, 6, 4},
    {21, "DeleteRecords", 0, 2, 2},
    {22, "InitProducerId", 0, 5, 2},
    {23, "OffsetForLeaderEpoch", 0, 4, 4},
    {29, "DescribeAcls", 0, 3, 2}, // 4.0 drops v0
    {30, "CreateAcls", 0, 3, 2},
    {31, "DeleteAcls", 0, 3, 2},
    {32, "DescribeConfigs", 0, 4, 4},
    {33, "AlterConfigs", 0, 2, 2},
    {35, "DescribeLogDirs", 0, 4, 2},
    {36, "SaslAuthenticate", 0, 2, 2},
    {37, "CreatePartitions", 0, 3, 2},
    {42, "DeleteGroups", 0, 2, 2},
    {43, "ElectLeaders", 0, 2, 2},
    {44, "IncrementalAlterConfigs", 0, 1, 1},
    {45, "AlterPartitionReassignments", 0, 0, 0},
    {46, "ListPartitionReassignments", 0, 0, 0},
    {47, "OffsetDelete", 0, 0, 1}, // never flexible
    {50, "DescribeUserScramCredentials", 0, 0, 0},
    {51, "AlterUserScramCredentials", 0, 0, 0},
    {60, "DescribeCluster", 0, 2, 0},
    {68, "ConsumerGroupHeartbeat", 0, 1, 0},
    {69, "ConsumerGroupDescribe", 0, 1, 0},
  };
  auto& table = supported_versions();
  REQUIRE(table.size() == std::size(expected));
  for (size_t i = 0; i < table.size(); ++i) {
    auto& e = expected[i];
    INFO(e.name);
    CHECK(table[i].api_key == e.key);
    CHECK(table[i].min_version == e.min);
    CHECK(table[i].max_version == e.max);
    CHECK(api_name(e.key) == e.name);
    CHECK(first_flexible_version(e.key) == e.first_flexible);
    CHECK(is_supported(e.key, e.min));
    CHECK(is_supported(e.key, e.max));
    CHECK_FALSE(is_supported(e.key, e.min - 1));
    CHECK_FALSE(is_supported(e.key, e.max + 1));
    CHECK(is_flexible(e.key, e.first_flexible));
    CHECK(is_flexible(e.key, e.max + 1)); // flexibleVersions is always "N+"
    if (e.first_flexible > 0)
      CHECK_FALSE(is_flexible(e.key, e.first_flexible - 1));
  }
  CHECK_FALSE(is_supported(17, 2)); // SaslHandshake has v0-1 only
  CHECK_FALSE(is_supported(47, 1)); // OffsetDelete has v0 only
  CHECK(api_name(99) == "Unknown");
  CHECK(first_flexible_version(99) == -1);
  CHECK_FALSE(is_flexible(99, 100));
}

TEST_CASE("header versions follow each API's flexible versions, except that "
          "ApiVersions answers always have header v0",
          "[kafka]") {
  CHECK(request_header_version(key_of(api_key::join_group), 5) == 1);
  CHECK(request_header_version(key_of(api_key::join_group), 6) == 2);
  CHECK(response_header_version(key_of(api_key::join_group), 5) == 0);
  CHECK(response_header_version(key_of(api_key::join_group), 6) == 1);
  CHECK(request_header_version(key_of(api_key::api_versions), 2) == 1);
  CHECK(request_header_version(key_of(api_key::api_versions), 3) == 2);
  CHECK(request_header_version(key_of(api_key::api_versions), 7) == 2);
  for (int16_t v = 0; v <= 7; ++v)
    CHECK(response_header_version(key_of(api_key::api_versions), v) == 0);
  CHECK(request_header_version(key_of(api_key::describe_cluster), 0) == 2);
  CHECK(response_header_version(key_of(api_key::describe_cluster), 0) == 1);
  CHECK(request_header_version(99, 0) == 1);
  CHECK(response_header_version(99, 0) == 0);
}

// -- round trips --------------------------------------------------------------

TEST_CASE("Metadata v1 response round-trips brokers, controller and topics",
          "[kafka]") {
  auto y = round_trip(encode_metadata_response, decode_metadata_response,
                      sample_metadata_response(), 1);
  REQUIRE(y.brokers.size() == 2);
  CHECK(y.brokers[0].rack == "rack-a");
  CHECK_FALSE(y.brokers[1].rack);
  CHECK(y.controller_id == 1);
  REQUIRE(y.topics.size() == 3);
  CHECK(y.topics[1].is_internal);
  CHECK(y.topics[0].partitions[1].error == error_code::leader_not_available);
  CHECK(y.topics[0].partitions[0].isr_nodes == std::vector<int32_t>{1, 2});
}

TEST_CASE("Produce v3 request and response round-trip with records as raw "
          "bytes",
          "[kafka]") {
  auto x = sample_produce_request();
  auto y = round_trip(encode_produce_request, decode_produce_request, x, 3);
  CHECK_FALSE(y.transactional_id);
  CHECK(y.acks == -1);
  REQUIRE(y.topics.size() == 1);
  CHECK(y.topics[0].partitions[0].records == sample_batch());
  CHECK(y.topics[0].partitions[1].records.empty());
  x.transactional_id = "tx-1";
  CHECK(round_trip(encode_produce_request, decode_produce_request, x, 3)
          .transactional_id
        == "tx-1");
  auto r = round_trip(encode_produce_response, decode_produce_response,
                      sample_produce_response(), 3);
  CHECK(r.throttle_time_ms == 5);
  CHECK(r.responses[0].partitions[1].error
        == error_code::not_leader_or_follower);
}

TEST_CASE("Produce v3 request reads null records as empty", "[kafka]") {
  auto body = cat(
    {i16(-1), i16(1), i32(1000), i32(1), str("t"), i32(1), i32(0), i32(-1)});
  reader in{body};
  auto x = decode_produce_request(in, 3);
  REQUIRE(x);
  CHECK(x->topics[0].partitions[0].records.empty());
}

TEST_CASE("Fetch v4 request and response round-trip", "[kafka]") {
  auto x = round_trip(encode_fetch_request, decode_fetch_request,
                      sample_fetch_request(), 4);
  CHECK(x.replica_id == -1);
  CHECK(x.isolation_level == 1);
  CHECK(x.topics[1].partitions[0].fetch_offset == 12345678901);
  auto y = round_trip(encode_fetch_response, decode_fetch_response,
                      sample_fetch_response(), 4);
  auto& ps = y.responses[0].partitions;
  REQUIRE(ps.size() == 3);
  CHECK(ps[0].records == sample_batch());
  REQUIRE(ps[1].aborted_transactions);
  CHECK(ps[1].aborted_transactions->size() == 2);
  CHECK(ps[1].error == error_code::offset_out_of_range);
  CHECK_FALSE(ps[2].aborted_transactions);
}

TEST_CASE("ListOffsets v1 request and response round-trip", "[kafka]") {
  auto x = round_trip(encode_list_offsets_request, decode_list_offsets_request,
                      sample_list_offsets_request(), 1);
  CHECK(x.topics[0].partitions[1].timestamp == earliest_timestamp);
  auto y =
    round_trip(encode_list_offsets_response, decode_list_offsets_response,
               sample_list_offsets_response(), 1);
  CHECK(y.topics[0].partitions[0].offset == 42);
  CHECK(y.topics[0].partitions[2].error
        == error_code::unknown_topic_or_partition);
}

TEST_CASE("OffsetCommit v2 request and response round-trip with null "
          "metadata",
          "[kafka]") {
  auto x =
    round_trip(encode_offset_commit_request, decode_offset_commit_request,
               sample_offset_commit_request(), 2);
  CHECK(x.generation_id == 3);
  CHECK(x.topics[0].partitions[0].committed_metadata == "meta");
  CHECK_FALSE(x.topics[0].partitions[1].committed_metadata);
  CHECK(x.topics[1].partitions[0].committed_metadata == "");
  auto y =
    round_trip(encode_offset_commit_response, decode_offset_commit_response,
               sample_offset_commit_response(), 2);
  CHECK(y.topics[0].partitions[1].error == error_code::illegal_generation);
}

TEST_CASE("OffsetFetch v1 request and response round-trip", "[kafka]") {
  auto x = round_trip(encode_offset_fetch_request, decode_offset_fetch_request,
                      sample_offset_fetch_request(), 1);
  REQUIRE(x.topics);
  CHECK(x.topics->at(0).partition_indexes == std::vector<int32_t>{0, 1, 2});
  CHECK(x.topics->at(1).partition_indexes.empty());
  auto y =
    round_trip(encode_offset_fetch_response, decode_offset_fetch_response,
               sample_offset_fetch_response(), 1);
  CHECK(y.topics[0].partitions[0].metadata == "meta");
  CHECK_FALSE(y.topics[0].partitions[1].metadata);
  CHECK(y.topics[0].partitions[1].committed_offset == -1);
}

TEST_CASE("FindCoordinator v0 request and response round-trip", "[kafka]") {
  auto x =
    round_trip(encode_find_coordinator_request, decode_find_coordinator_request,
               find_coordinator_request{"payments-consumers"}, 0);
  CHECK(x.key == "payments-consumers");
  auto y = round_trip(
    encode_find_coordinator_response, decode_find_coordinator_response,
    find_coordinator_response{error_code::none, 1, "broker-1", 9092}, 0);
  CHECK(y.node_id == 1);
  CHECK(y.host == "broker-1");
  CHECK(y.port == 9092);
  CHECK(encode_body(encode_find_coordinator_response,
                    {error_code::coordinator_not_available, -1, "", -1}, 0)
        == cat({i16(15), i32(-1), str(""), i32(-1)}));
}

TEST_CASE("JoinGroup v0 and v1 responses round-trip the member list",
          "[kafka]") {
  for (int16_t v = 0; v <= 1; ++v) {
    auto y = round_trip(encode_join_group_response, decode_join_group_response,
                        sample_join_group_response(), v);
    CHECK(y.generation_id == 4);
    CHECK(y.protocol_name == "range");
    CHECK(y.leader == "m-1");
    REQUIRE(y.members.size() == 2);
    CHECK(y.members[0].metadata == bytes{9, 9});
  }
}

TEST_CASE("Heartbeat, LeaveGroup and SyncGroup v0 round-trip", "[kafka]") {
  auto hb = round_trip(encode_heartbeat_request, decode_heartbeat_request,
                       heartbeat_request{"g", 4, "m-1"}, 0);
  CHECK(hb.generation_id == 4);
  CHECK(round_trip(encode_heartbeat_response, decode_heartbeat_response,
                   heartbeat_response{error_code::rebalance_in_progress}, 0)
          .error
        == error_code::rebalance_in_progress);
  auto leave =
    round_trip(encode_leave_group_request, decode_leave_group_request,
               leave_group_request{"g", "m-1"}, 0);
  CHECK(leave.member_id == "m-1");
  CHECK(round_trip(encode_leave_group_response, decode_leave_group_response,
                   leave_group_response{error_code::unknown_member_id}, 0)
          .error
        == error_code::unknown_member_id);
  auto sync = round_trip(encode_sync_group_request, decode_sync_group_request,
                         sample_sync_group_request(), 0);
  REQUIRE(sync.assignments.size() == 2);
  CHECK(sync.assignments[0].assignment == bytes{0, 1});
  auto r = round_trip(encode_sync_group_response, decode_sync_group_response,
                      sync_group_response{error_code::none, {7, 8}}, 0);
  CHECK(r.assignment == bytes{7, 8});
}

TEST_CASE("DescribeGroups and ListGroups v0 round-trip", "[kafka]") {
  auto x =
    round_trip(encode_describe_groups_request, decode_describe_groups_request,
               describe_groups_request{{"a", "b"}}, 0);
  CHECK(x.groups == std::vector<std::string>{"a", "b"});
  auto y =
    round_trip(encode_describe_groups_response, decode_describe_groups_response,
               sample_describe_groups_response(), 0);
  REQUIRE(y.groups.size() == 2);
  CHECK(y.groups[0].group_state == "Stable");
  CHECK(y.groups[0].members[0].client_host == "/10.0.0.1");
  CHECK(y.groups[0].members[0].member_assignment == bytes{2, 3});
  CHECK(y.groups[1].error == error_code::group_id_not_found);
  CHECK(encode_body(encode_list_groups_request, {}, 0).empty());
  auto z = round_trip(
    encode_list_groups_response, decode_list_groups_response,
    list_groups_response{error_code::none, {{"g1", "consumer"}, {"g2", ""}}},
    0);
  REQUIRE(z.groups.size() == 2);
  CHECK(z.groups[0].protocol_type == "consumer");
}

TEST_CASE("CreateTopics v1 adds validate-only to the request and the error "
          "message to the response",
          "[kafka]") {
  auto x = sample_create_topics_request();
  auto v0 = encode_body(encode_create_topics_request, x, 0);
  auto v1 = encode_body(encode_create_topics_request, x, 1);
  CHECK(v1.size() == v0.size() + 1);
  CHECK(v1.back() == 1);
  auto y = round_trip(encode_create_topics_request,
                      decode_create_topics_request, x, 1);
  CHECK(y.validate_only);
  CHECK(y.topics[0].replication_factor == 3);
  CHECK(y.topics[0].configs[0].value == "compact");
  CHECK_FALSE(y.topics[1].configs[0].value);
  CHECK(y.topics[1].assignments[1].broker_ids == std::vector<int32_t>{2, 3});
  CHECK_FALSE(
    round_trip(encode_create_topics_request, decode_create_topics_request, x, 0)
      .validate_only);
  auto r0 =
    round_trip(encode_create_topics_response, decode_create_topics_response,
               sample_create_topics_response(), 0);
  CHECK_FALSE(r0.topics[1].error_message);
  auto r1 =
    round_trip(encode_create_topics_response, decode_create_topics_response,
               sample_create_topics_response(), 1);
  CHECK(r1.topics[1].error == error_code::topic_already_exists);
  CHECK(r1.topics[1].error_message == "exists");
}

TEST_CASE("request and response headers round-trip, client id nullable",
          "[kafka]") {
  bytes buf;
  writer out{buf};
  encode_request_header(out, {1, 4, -5, std::nullopt});
  CHECK(buf == cat({i16(1), i16(4), i32(-5), i16(-1)}));
  reader in{buf};
  auto h = decode_request_header(in);
  REQUIRE(h);
  CHECK(h->api_key == 1);
  CHECK(h->correlation_id == -5);
  CHECK_FALSE(h->client_id);
  bytes rbuf;
  writer rout{rbuf};
  encode_response_header(rout, {77}, 1, 4);
  CHECK(rbuf == i32(77));
  reader rin{rbuf};
  CHECK(decode_response_header(rin, 1, 4)->correlation_id == 77);
}

// -- malformed input ----------------------------------------------------------

TEST_CASE("a request truncated at any byte fails cleanly", "[kafka]") {
  for (const auto& wire : sample_request_frames()) {
    std::string error;
    REQUIRE(decode_request_frame(wire, error));
    for (size_t cut = 0; cut < wire.size(); ++cut) {
      auto f = decode_frame(wire.data(), cut, 1 << 20);
      CHECK(f.status == frame_status::need_more);
    }
    // The same bytes with the size prefix shrunk to the cut.
    for (size_t cut = 0; cut + 4 < wire.size(); ++cut) {
      reader in{wire.data() + 4, cut};
      auto header = decode_request_header(in);
      auto ok = header && decode_request_body(in, *header);
      INFO("cut at " << cut << " of " << wire.size() - 4);
      CHECK_FALSE(ok);
      CHECK_FALSE(in.error().empty());
    }
  }
}

TEST_CASE("a response truncated at any byte fails cleanly", "[kafka]") {
  for (const auto& sample : sample_responses()) {
    reader whole{sample.body};
    REQUIRE(decode_response(sample.key, sample.version, whole));
    for (size_t cut = 0; cut < sample.body.size(); ++cut) {
      reader in{sample.body.data(), cut};
      INFO(api_name(key_of(sample.key))
           << " v" << sample.version << " cut at " << cut);
      CHECK_FALSE(decode_response(sample.key, sample.version, in));
      CHECK_FALSE(in.error().empty());
    }
  }
}

TEST_CASE("negative array lengths other than -1 are malformed, and -1 only "
          "where the schema allows null",
          "[kafka]") {
  SECTION("a nullable array reads -1 as null and -2 as malformed") {
    auto null_topics = i32(-1);
    reader in{null_topics};
    auto x = decode_metadata_request(in, 1);
    REQUIRE(x);
    CHECK_FALSE(x->topics);
    auto bad = i32(-2);
    reader in2{bad};
    CHECK_FALSE(decode_metadata_request(in2, 1));
    CHECK(in2.error().find("negative array length -2") != std::string::npos);
  }
  SECTION("a non-nullable array refuses -1") {
    auto body = i32(-1);
    reader in{body};
    CHECK_FALSE(decode_describe_groups_request(in, 0));
    CHECK(in.error().find("null array") != std::string::npos);
  }
  SECTION("the smallest int32 is refused, not allocated") {
    auto body = cat({str("g"), i32(1), str(""), str("consumer"),
                     i32(std::numeric_limits<int32_t>::min())});
    reader in{body};
    CHECK_FALSE(decode_join_group_request(in, 0));
    CHECK(in.error().find("negative array length") != std::string::npos);
  }
}

TEST_CASE("negative string and bytes lengths other than -1 are malformed",
          "[kafka]") {
  SECTION("client id -1 is null, -2 is malformed") {
    auto header = cat({i16(3), i16(1), i32(1), i16(-2)});
    reader in{header};
    CHECK_FALSE(decode_request_header(in));
    CHECK(in.error().find("negative string length -2") != std::string::npos);
  }
  SECTION("a non-nullable string refuses null") {
    auto body = cat({i16(-1), i32(1), str("m")});
    reader in{body};
    CHECK_FALSE(decode_heartbeat_request(in, 0));
    CHECK(in.error().find("null string at byte 2") != std::string::npos);
  }
  SECTION("non-nullable bytes refuse null and negative lengths") {
    for (int32_t n : {-1, -2, std::numeric_limits<int32_t>::min()}) {
      auto body = cat({str("g"), i32(1), str("m"), i32(1), str("m"), i32(n)});
      reader in{body};
      CHECK_FALSE(decode_sync_group_request(in, 0));
      CHECK_FALSE(in.error().empty());
    }
  }
}

TEST_CASE("string and bytes lengths past the end of the frame are malformed",
          "[kafka]") {
  SECTION("a client id longer than the frame") {
    auto header = cat({i16(3), i16(1), i32(1), i16(100), b("abc")});
    reader in{header};
    CHECK_FALSE(decode_request_header(in));
    CHECK(in.error()
          == "string length 100 exceeds the remaining 3 bytes at byte 10");
  }
  SECTION("protocol metadata claiming 2 GiB") {
    auto body =
      cat({str("g"), i32(1), str(""), str("consumer"), i32(1), str("range"),
           i32(std::numeric_limits<int32_t>::max()), bytes{1, 2, 3}});
    reader in{body};
    CHECK_FALSE(decode_join_group_request(in, 0));
    CHECK(in.error().find("bytes length 2147483647 exceeds") == 0);
  }
  SECTION("records claiming more than the frame") {
    auto body = cat({i16(-1), i16(1), i32(1000), i32(1), str("t"), i32(1),
                     i32(0), i32(10), bytes{1, 2}});
    reader in{body};
    CHECK_FALSE(decode_produce_request(in, 3));
  }
}

TEST_CASE("array counts the remaining bytes cannot hold are refused before "
          "allocating",
          "[kafka]") {
  // Each DescribeGroups group is at least an empty string: two bytes.
  auto two = cat({i32(2), str(""), str("")});
  reader ok_in{two};
  auto x = decode_describe_groups_request(ok_in, 0);
  REQUIRE(x);
  CHECK(x->groups.size() == 2);
  auto three = cat({i32(3), str(""), str("")});
  reader bad_in{three};
  CHECK_FALSE(decode_describe_groups_request(bad_in, 0));
  CHECK(bad_in.error()
        == "array length 3 exceeds the remaining 4 bytes at byte 4");
  // Each OffsetFetch topic is at least a name and a partition count.
  auto body =
    cat({str("g"), i32(std::numeric_limits<int32_t>::max()), str("t"), i32(0)});
  reader in{body};
  CHECK_FALSE(decode_offset_fetch_request(in, 1));
  CHECK(in.error().find("array length 2147483647 exceeds") == 0);
  auto fits = cat({str("g"), i32(1), str(""), i32(0)});
  reader fits_in{fits};
  CHECK(decode_offset_fetch_request(fits_in, 1));
}

TEST_CASE("unsupported versions and unknown api keys are refused with a "
          "reason",
          "[kafka]") {
  bytes empty;
  reader in{empty};
  CHECK_FALSE(decode_request_body(in, {key_of(api_key::produce), 13, 1, {}}));
  CHECK(in.error() == "unsupported Produce request version 13 at byte 0");
  reader in2{empty};
  CHECK_FALSE(decode_request_body(in2, {99, 0, 1, {}}));
  CHECK(in2.error() == "unknown api key 99 at byte 0");
  reader in3{empty};
  CHECK_FALSE(decode_join_group_request(in3, -1));
  bytes out;
  writer w{out};
  CHECK_FALSE(encode_heartbeat_response(w, {}, 5));
  CHECK(w.error() == "unsupported Heartbeat response version 5");
  CHECK(out.empty());
}

TEST_CASE("unknown error codes read as UNKNOWN_SERVER_ERROR", "[kafka]") {
  auto body = i16(12345);
  reader in{body};
  auto x = decode_heartbeat_response(in, 0);
  REQUIRE(x);
  CHECK(x->error == error_code::unknown_server_error);
}

// -- framing and primitives ---------------------------------------------------

TEST_CASE("frames need the size prefix and the whole request", "[kafka]") {
  auto wire = cat({framed(b("abc")), framed({}), framed(b("xy"))});
  auto f = decode_frame(wire.data(), 3, 100);
  CHECK(f.status == frame_status::need_more);
  f = decode_frame(wire.data(), 6, 100);
  CHECK(f.status == frame_status::need_more);
  CHECK(f.size == 3); // known once the prefix is in
  f = decode_frame(wire.data(), wire.size(), 100);
  REQUIRE(f.status == frame_status::complete);
  CHECK(std::string(f.data, f.data + f.size) == "abc");
  size_t at = f.consumed;
  f = decode_frame(wire.data() + at, wire.size() - at, 100);
  REQUIRE(f.status == frame_status::complete); // a size 0 frame is valid
  CHECK(f.size == 0);
  at += f.consumed;
  f = decode_frame(wire.data() + at, wire.size() - at, 100);
  REQUIRE(f.status == frame_status::complete);
  CHECK(std::string(f.data, f.data + f.size) == "xy");
  CHECK(at + f.consumed == wire.size());
  CHECK(decode_frame(nullptr, 0, 100).status == frame_status::need_more);
}

TEST_CASE("frames with a negative size or one above socket.request.max.bytes "
          "are errors",
          "[kafka]") {
  auto negative = i32(-1);
  auto f = decode_frame(negative.data(), negative.size(), 100);
  CHECK(f.status == frame_status::error);
  CHECK(f.error == "negative frame size -1");
  auto big = i32(101);
  f = decode_frame(big.data(), big.size(), 100);
  CHECK(f.status == frame_status::error);
  CHECK(f.error == "frame size 101 larger than socket.request.max.bytes 100");
  auto limit = cat({i32(100), bytes(100, 0)});
  CHECK(decode_frame(limit.data(), limit.size(), 100).status
        == frame_status::complete);
}

TEST_CASE("the writer back-patches frame sizes and refuses what the wire "
          "cannot carry",
          "[kafka]") {
  bytes buf{0xff}; // appends after what the buffer already holds
  writer out{buf};
  auto mark = out.begin_frame();
  out.string("hi");
  out.i64(-2);
  REQUIRE(out.end_frame(mark));
  CHECK(buf == cat({bytes{0xff}, i32(12), str("hi"), i64(-2)}));
  out.string(std::string(32767, 'x'));
  CHECK(out.ok());
  auto before = buf.size();
  out.string(std::string(32768, 'x'));
  CHECK_FALSE(out.ok());
  CHECK(out.error() == "string longer than 32767 bytes");
  out.i32(1); // a failed writer appends nothing more
  CHECK(buf.size() == before);
  CHECK_FALSE(out.end_frame(mark));
}

TEST_CASE("the reader keeps its first failure and leaves targets untouched",
          "[kafka]") {
  bytes buf{0, 1, 2};
  reader in{buf};
  int16_t a = 0;
  CHECK(in.i16(a));
  CHECK(a == 1);
  int32_t c = 99;
  CHECK_FALSE(in.i32(c));
  CHECK(c == 99);
  CHECK(in.error() == "truncated int32 at byte 2");
  int8_t d = 5;
  CHECK_FALSE(in.i8(d)); // one byte left, but the reader has failed
  CHECK(d == 5);
  CHECK(in.error() == "truncated int32 at byte 2");
  bool flag = false;
  bytes yes{2};
  reader bin{yes};
  CHECK(bin.boolean(flag));
  CHECK(flag); // any non-zero byte is true, as in Kafka
}

TEST_CASE("reader varints are Kafka's zigzag varints", "[kafka]") {
  bytes buf;
  writer out{buf};
  out.varint(-1);
  out.varint(300);
  out.varlong(std::numeric_limits<int64_t>::min());
  reader in{buf};
  int32_t a = 0;
  int32_t c = 0;
  int64_t d = 0;
  CHECK(in.varint(a));
  CHECK(in.varint(c));
  CHECK(in.varlong(d));
  CHECK(a == -1);
  CHECK(c == 300);
  CHECK(d == std::numeric_limits<int64_t>::min());
  CHECK(in.remaining() == 0);
  bytes overlong(6, 0x80);
  reader bad{overlong};
  CHECK_FALSE(bad.varint(a));
  CHECK(bad.error() == "malformed varint at byte 0");
}

// -- robustness ---------------------------------------------------------------

TEST_CASE("20k seeded random mutations of valid frames never crash",
          "[kafka]") {
  auto requests = sample_request_frames();
  auto responses = sample_responses();
  std::mt19937 rng{20240917};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(rng);
  };
  // Values that sit on the boundaries of lengths and counts.
  const int32_t nasty[] = {
    -1,  -2,    0,     1,          2,
    127, 32767, 32768, 0x7fffffff, std::numeric_limits<int32_t>::min()};
  auto mutate = [&](bytes x) {
    auto edits = 1 + pick(4);
    for (size_t e = 0; e < edits; ++e) {
      switch (pick(6)) {
        case 0: // flip one bit
          if (!x.empty())
            x[pick(x.size())] ^= static_cast<uint8_t>(1u << pick(8));
          break;
        case 1: // overwrite a byte
          if (!x.empty())
            x[pick(x.size())] = static_cast<uint8_t>(pick(256));
          break;
        case 2: { // insert a byte (picks in order: the same on any compiler)
          auto at = static_cast<std::ptrdiff_t>(pick(x.size() + 1));
          auto value = static_cast<uint8_t>(pick(256));
          x.insert(x.begin() + at, value);
          break;
        }
        case 3: // delete a byte
          if (!x.empty())
            x.erase(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size())));
          break;
        case 4: // truncate
          x.resize(pick(x.size() + 1));
          break;
        default: // a boundary int32 or int16 somewhere
          if (x.size() >= 4) {
            auto v = i32(nasty[pick(std::size(nasty))]);
            auto at = pick(x.size() - 3);
            auto width = pick(2) == 0 ? size_t{2} : size_t{4};
            std::copy(v.end() - static_cast<std::ptrdiff_t>(width), v.end(),
                      x.begin() + static_cast<std::ptrdiff_t>(at));
          }
      }
    }
    return x;
  };
  size_t decoded = 0;
  size_t refused = 0;
  for (int i = 0; i < 20000; ++i) {
    if (i % 4 != 3) {
      auto wire = mutate(requests[pick(requests.size())]);
      // Keep most size prefixes consistent so the body decoders get exercised.
      if (wire.size() >= 4 && pick(4) != 0) {
        auto size = i32(static_cast<int32_t>(wire.size() - 4));
        std::copy(size.begin(), size.end(), wire.begin());
      }
      std::string error;
      if (decode_request_frame(wire, error))
        ++decoded;
      else {
        CHECK_FALSE(error.empty());
        ++refused;
      }
    } else {
      const auto& sample = responses[pick(responses.size())];
      auto body = mutate(sample.body);
      reader in{body};
      if (decode_response(sample.key, sample.version, in))
        ++decoded;
      else {
        CHECK_FALSE(in.error().empty());
        ++refused;
      }
    }
  }
  // Both outcomes happen: mutations that keep a frame valid and ones that
  // do not.
  CHECK(decoded > 1000);
  CHECK(refused > 1000);
}
