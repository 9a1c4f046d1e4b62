// The six admin APIs of issue 22 -- DeleteGroups (42), OffsetDelete (47),
// DeleteRecords (21), DescribeLogDirs (35), CreatePartitions (37) and
// ElectLeaders (43) -- byte for byte as Kafka 3.9's JSON schemas lay them
// out (every expected byte string below is assembled by hand from the
// schema, field by field), in their classic and flexible (KIP-482) versions,
// and through the listener's path: size prefix, header, dispatch by key.

#include <optional>
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

/// Compared as hex so that a mismatch prints both byte strings.
std::string hex(const bytes& x) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto c : x) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

/// A request body as a whole frame (header v1 or v2 by the API's flexible
/// versions) goes through the listener's decode path.
template <class T>
void dispatches(api_key key, int16_t version, encode_fn<T> encode,
                const T& x) {
  std::string error;
  INFO(api_name(key_of(key)) << " v" << version);
  CHECK(decode_request_frame(request_frame(key, version, encode, x), error));
  INFO(error);
}

bool encodes(bool ok) {
  return ok;
}

} // namespace

// -- DeleteGroups -------------------------------------------------------------

TEST_CASE("DeleteGroups v0 request is an array of group names and its "
          "response the throttle time then one result per group",
          "[kafka][admin_apis]") {
  delete_groups_request req{{"g1", "g2"}};
  auto body = encode_body(encode_delete_groups_request, req, 0);
  auto expected = cat({i32(2), str("g1"), str("g2")});
  CHECK(hex(body) == hex(expected));
  CHECK(decode_all(decode_delete_groups_request, expected, 0).groups_names
        == std::vector<std::string>{"g1", "g2"});
  dispatches(api_key::delete_groups, 0, encode_delete_groups_request, req);

  delete_groups_response resp{
    5, {{"g1", error_code::none}, {"g2", error_code::non_empty_group}}};
  auto out = encode_body(encode_delete_groups_response, resp, 1);
  auto want = cat({i32(5), i32(2), str("g1"), i16(0), str("g2"), i16(68)});
  CHECK(hex(out) == hex(want));
  auto back = decode_all(decode_delete_groups_response, want, 1);
  REQUIRE(back.results.size() == 2);
  CHECK(back.results[1].error == error_code::non_empty_group);
}

TEST_CASE("DeleteGroups v2 is flexible: compact arrays and strings and a "
          "tagged-field section per struct",
          "[kafka][admin_apis]") {
  delete_groups_request req{{"g1"}};
  auto expected = cat({carr(1), cstr("g1"), no_tags()});
  CHECK(hex(encode_body(encode_delete_groups_request, req, 2))
        == hex(expected));
  dispatches(api_key::delete_groups, 2, encode_delete_groups_request, req);
  delete_groups_response resp{0, {{"g1", error_code::group_id_not_found}}};
  auto want =
    cat({i32(0), carr(1), cstr("g1"), i16(69), no_tags(), no_tags()});
  CHECK(hex(encode_body(encode_delete_groups_response, resp, 2)) == hex(want));
  CHECK(decode_all(decode_delete_groups_response, want, 2).results[0].error
        == error_code::group_id_not_found);
}

// -- OffsetDelete -------------------------------------------------------------

TEST_CASE("OffsetDelete v0 request names the group then topics and "
          "partitions, and its response puts the group error before the "
          "throttle time",
          "[kafka][admin_apis]") {
  offset_delete_request req{"g", {{"orders", {{0}, {2}}}}};
  auto expected =
    cat({str("g"), i32(1), str("orders"), i32(2), i32(0), i32(2)});
  CHECK(hex(encode_body(encode_offset_delete_request, req, 0))
        == hex(expected));
  auto back = decode_all(decode_offset_delete_request, expected, 0);
  REQUIRE(back.topics.size() == 1);
  CHECK(back.topics[0].partitions[1].partition_index == 2);
  dispatches(api_key::offset_delete, 0, encode_offset_delete_request, req);

  offset_delete_response resp{
    error_code::none,
    3,
    {{"orders",
      {{0, error_code::none}, {2, error_code::group_subscribed_to_topic}}}}};
  auto want = cat({i16(0), i32(3), i32(1), str("orders"), i32(2), i32(0),
                   i16(0), i32(2), i16(86)});
  CHECK(hex(encode_body(encode_offset_delete_response, resp, 0)) == hex(want));
  CHECK(decode_all(decode_offset_delete_response, want, 0)
          .topics[0]
          .partitions[1]
          .error
        == error_code::group_subscribed_to_topic);
}

TEST_CASE("OffsetDelete is never flexible and has only v0",
          "[kafka][admin_apis]") {
  CHECK_FALSE(is_flexible(key_of(api_key::offset_delete), 0));
  CHECK(request_header_version(key_of(api_key::offset_delete), 0) == 1);
  CHECK(response_header_version(key_of(api_key::offset_delete), 0) == 0);
  CHECK_FALSE(is_supported(key_of(api_key::offset_delete), 1));
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encodes(encode_offset_delete_request(w, {}, 1)));
}

// -- DeleteRecords ------------------------------------------------------------

TEST_CASE("DeleteRecords v0 request lists offsets per partition then the "
          "timeout, and its response the low watermark per partition",
          "[kafka][admin_apis]") {
  delete_records_request req{{{"orders", {{0, 42}, {1, -1}}}}, 1500};
  auto expected = cat({i32(1), str("orders"), i32(2), i32(0), i64(42), i32(1),
                       i64(-1), i32(1500)});
  CHECK(hex(encode_body(encode_delete_records_request, req, 0))
        == hex(expected));
  auto back = decode_all(decode_delete_records_request, expected, 0);
  CHECK(back.timeout_ms == 1500);
  CHECK(back.topics[0].partitions[1].offset == -1);
  dispatches(api_key::delete_records, 0, encode_delete_records_request, req);

  delete_records_response resp{
    0,
    {{"orders",
      {{0, 42, error_code::none}, {1, -1, error_code::offset_out_of_range}}}}};
  auto want = cat({i32(0), i32(1), str("orders"), i32(2), i32(0), i64(42),
                   i16(0), i32(1), i64(-1), i16(1)});
  CHECK(hex(encode_body(encode_delete_records_response, resp, 1)) == hex(want));
  CHECK(decode_all(decode_delete_records_response, want, 1)
          .topics[0]
          .partitions[0]
          .low_watermark
        == 42);
}

TEST_CASE("DeleteRecords v2 is flexible", "[kafka][admin_apis]") {
  delete_records_request req{{{"t", {{3, 7}}}}, 100};
  auto expected = cat({carr(1), cstr("t"), carr(1), i32(3), i64(7), no_tags(),
                       no_tags(), i32(100), no_tags()});
  CHECK(hex(encode_body(encode_delete_records_request, req, 2))
        == hex(expected));
  dispatches(api_key::delete_records, 2, encode_delete_records_request, req);
  delete_records_response resp{1, {{"t", {{3, 7, error_code::none}}}}};
  auto want = cat({i32(1), carr(1), cstr("t"), carr(1), i32(3), i64(7), i16(0),
                   no_tags(), no_tags(), no_tags()});
  CHECK(hex(encode_body(encode_delete_records_response, resp, 2)) == hex(want));
}

// -- DescribeLogDirs ----------------------------------------------------------

TEST_CASE("DescribeLogDirs v0 request of null topics asks for every "
          "partition, and v0 and v1 responses carry no top-level error nor "
          "volume sizes",
          "[kafka][admin_apis]") {
  describe_log_dirs_request all;
  CHECK(hex(encode_body(encode_describe_log_dirs_request, all, 0))
        == hex(i32(-1)));
  CHECK_FALSE(decode_all(decode_describe_log_dirs_request, i32(-1), 0).topics);
  dispatches(api_key::describe_log_dirs, 0, encode_describe_log_dirs_request,
             all);
  describe_log_dirs_request some;
  some.topics = std::vector<describable_log_dir_topic>{{"t", {0, 1}}};
  auto some_bytes = cat({i32(1), str("t"), i32(2), i32(0), i32(1)});
  CHECK(hex(encode_body(encode_describe_log_dirs_request, some, 1))
        == hex(some_bytes));

  describe_log_dirs_response resp;
  resp.error = error_code::cluster_authorization_failed; // v3+ only
  describe_log_dirs_result dir;
  dir.log_dir = "/d";
  dir.topics = {{"t", {{0, 100, 0, false}}}};
  dir.total_bytes = 1000; // v4+ only
  dir.usable_bytes = 500;
  resp.results = {dir};
  auto want = cat({i32(0), i32(1), i16(0), str("/d"), i32(1), str("t"), i32(1),
                   i32(0), i64(100), i64(0), i8(0)});
  CHECK(hex(encode_body(encode_describe_log_dirs_response, resp, 1))
        == hex(want));
  auto back = decode_all(decode_describe_log_dirs_response, want, 1);
  CHECK(back.error == error_code::none);
  CHECK(back.results[0].total_bytes == -1);
  CHECK(back.results[0].usable_bytes == -1);
  CHECK(back.results[0].topics[0].partitions[0].partition_size == 100);
}

TEST_CASE("DescribeLogDirs v4 response is flexible with the top-level error "
          "and each directory's total and usable bytes",
          "[kafka][admin_apis]") {
  describe_log_dirs_response resp;
  resp.throttle_time_ms = 2;
  describe_log_dirs_result dir;
  dir.log_dir = "/d";
  dir.topics = {{"t", {{1, 10, 3, true}}}};
  dir.total_bytes = 1000;
  dir.usable_bytes = 500;
  resp.results = {dir};
  auto want = cat({i32(2), i16(0), carr(1), i16(0), cstr("/d"), carr(1),
                   cstr("t"), carr(1), i32(1), i64(10), i64(3), i8(1),
                   no_tags(), no_tags(), i64(1000), i64(500), no_tags(),
                   no_tags()});
  CHECK(hex(encode_body(encode_describe_log_dirs_response, resp, 4))
        == hex(want));
  auto back = decode_all(decode_describe_log_dirs_response, want, 4);
  CHECK(back.results[0].total_bytes == 1000);
  CHECK(back.results[0].topics[0].partitions[0].is_future_key);
  // v3 has the error but not the sizes.
  resp.error = error_code::cluster_authorization_failed;
  auto v3 = cat({i32(2), i16(31), carr(1), i16(0), cstr("/d"), carr(1),
                 cstr("t"), carr(1), i32(1), i64(10), i64(3), i8(1),
                 no_tags(), no_tags(), no_tags(), no_tags()});
  CHECK(hex(encode_body(encode_describe_log_dirs_response, resp, 3))
        == hex(v3));
  describe_log_dirs_request all;
  CHECK(hex(encode_body(encode_describe_log_dirs_request, all, 4))
        == hex(cat({cnull(), no_tags()})));
  dispatches(api_key::describe_log_dirs, 4, encode_describe_log_dirs_request,
             all);
}

// -- CreatePartitions ---------------------------------------------------------

TEST_CASE("CreatePartitions v1 request carries the new total, the "
          "assignments or null, the timeout and validate-only",
          "[kafka][admin_apis]") {
  create_partitions_request req;
  create_partitions_topic placed{"a", 3, std::nullopt};
  create_partitions_topic assigned{"b", 2, std::nullopt};
  assigned.assignments =
    std::vector<create_partitions_assignment>{{{1, 2}}};
  req.topics = {placed, assigned};
  req.timeout_ms = 1000;
  req.validate_only = true;
  auto expected = cat({i32(2), str("a"), i32(3), i32(-1), str("b"), i32(2),
                       i32(1), i32(2), i32(1), i32(2), i32(1000), i8(1)});
  CHECK(hex(encode_body(encode_create_partitions_request, req, 1))
        == hex(expected));
  auto back = decode_all(decode_create_partitions_request, expected, 1);
  CHECK_FALSE(back.topics[0].assignments);
  REQUIRE(back.topics[1].assignments);
  CHECK((*back.topics[1].assignments)[0].broker_ids
        == std::vector<int32_t>{1, 2});
  CHECK(back.validate_only);
  dispatches(api_key::create_partitions, 1, encode_create_partitions_request,
             req);

  create_partitions_response resp{
    0,
    {{"a", error_code::none, std::nullopt},
     {"b", error_code::invalid_partitions, std::string{"no"}}}};
  auto want = cat({i32(0), i32(2), str("a"), i16(0), i16(-1), str("b"),
                   i16(37), str("no")});
  CHECK(hex(encode_body(encode_create_partitions_response, resp, 0))
        == hex(want));
  auto r = decode_all(decode_create_partitions_response, want, 0);
  CHECK_FALSE(r.results[0].error_message);
  CHECK(r.results[1].error_message == "no");
}

TEST_CASE("CreatePartitions v2 is flexible: null assignments and a null "
          "message are a zero length",
          "[kafka][admin_apis]") {
  create_partitions_request req{{{"a", 4, std::nullopt}}, 50, false};
  auto expected = cat({carr(1), cstr("a"), i32(4), cnull(), no_tags(),
                       i32(50), i8(0), no_tags()});
  CHECK(hex(encode_body(encode_create_partitions_request, req, 3))
        == hex(expected));
  dispatches(api_key::create_partitions, 3, encode_create_partitions_request,
             req);
  create_partitions_response resp{0, {{"a", error_code::none, std::nullopt}}};
  auto want =
    cat({i32(0), carr(1), cstr("a"), i16(0), cnull(), no_tags(), no_tags()});
  CHECK(hex(encode_body(encode_create_partitions_response, resp, 2))
        == hex(want));
}

// -- ElectLeaders -------------------------------------------------------------

TEST_CASE("ElectLeaders v0 has no election type: it reads as PREFERRED and "
          "UNCLEAN cannot be written",
          "[kafka][admin_apis]") {
  elect_leaders_request req;
  req.topic_partitions =
    std::vector<elect_leaders_topic_partitions>{{"t", {0, 1}}};
  req.timeout_ms = 500;
  auto v0 = cat({i32(1), str("t"), i32(2), i32(0), i32(1), i32(500)});
  CHECK(hex(encode_body(encode_elect_leaders_request, req, 0)) == hex(v0));
  CHECK(decode_all(decode_elect_leaders_request, v0, 0).election_type == 0);
  dispatches(api_key::elect_leaders, 0, encode_elect_leaders_request, req);
  req.election_type = 1;
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_elect_leaders_request(w, req, 0));
  CHECK(w.error().find("ElectionType") != std::string::npos);
  auto v1 = cat({i8(1), i32(1), str("t"), i32(2), i32(0), i32(1), i32(500)});
  CHECK(hex(encode_body(encode_elect_leaders_request, req, 1)) == hex(v1));
  CHECK(decode_all(decode_elect_leaders_request, v1, 1).election_type == 1);
  elect_leaders_request everything;
  CHECK(hex(encode_body(encode_elect_leaders_request, everything, 2))
        == hex(cat({i8(0), cnull(), i32(60000), no_tags()})));
  CHECK_FALSE(
    decode_all(decode_elect_leaders_request,
               cat({i8(0), cnull(), i32(60000), no_tags()}), 2)
      .topic_partitions);
}

TEST_CASE("ElectLeaders response has a top-level error from v1 on, which "
          "v0 cannot carry",
          "[kafka][admin_apis]") {
  elect_leaders_response resp{
    0,
    error_code::none,
    {{"t",
      {{0, error_code::none, std::nullopt},
       {1, error_code::election_not_needed, std::string{"x"}}}}}};
  auto v0 = cat({i32(0), i32(1), str("t"), i32(2), i32(0), i16(0), i16(-1),
                 i32(1), i16(84), str("x")});
  CHECK(hex(encode_body(encode_elect_leaders_response, resp, 0)) == hex(v0));
  auto back = decode_all(decode_elect_leaders_response, v0, 0);
  CHECK(back.replica_election_results[0].partition_result[1].error
        == error_code::election_not_needed);
  auto v2 = cat({i32(0), i16(0), carr(1), cstr("t"), carr(2), i32(0), i16(0),
                 cnull(), no_tags(), i32(1), i16(84), cstr("x"), no_tags(),
                 no_tags(), no_tags()});
  CHECK(hex(encode_body(encode_elect_leaders_response, resp, 2)) == hex(v2));
  resp.error = error_code::cluster_authorization_failed;
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_elect_leaders_response(w, resp, 0));
  auto v1 = encode_body(encode_elect_leaders_response, resp, 1);
  CHECK(decode_all(decode_elect_leaders_response, v1, 1).error
        == error_code::cluster_authorization_failed);
}

// -- the table ----------------------------------------------------------------

TEST_CASE("the six admin APIs are served in Kafka 3.9's ranges, flexible "
          "from v2 except OffsetDelete, and named as Kafka names them",
          "[kafka][admin_apis]") {
  struct expected_api {
    api_key key;
    const char* name;
    int16_t min;
    int16_t max;
    int16_t first_flexible;
  };
  const expected_api apis[] = {
    {api_key::delete_records, "DeleteRecords", 0, 2, 2},
    {api_key::describe_log_dirs, "DescribeLogDirs", 0, 4, 2},
    {api_key::create_partitions, "CreatePartitions", 0, 3, 2},
    {api_key::delete_groups, "DeleteGroups", 0, 2, 2},
    {api_key::elect_leaders, "ElectLeaders", 0, 2, 2},
    {api_key::offset_delete, "OffsetDelete", 0, 0, 1},
  };
  for (const auto& api : apis) {
    auto k = key_of(api.key);
    INFO(api.name);
    CHECK(api_name(k) == api.name);
    CHECK(is_supported(k, api.min));
    CHECK(is_supported(k, api.max));
    CHECK_FALSE(is_supported(k, api.max + 1));
    CHECK(first_flexible_version(k) == api.first_flexible);
    std::string error;
    // One past the newest version is refused with a reason.
    bytes frame;
    writer out{frame};
    auto mark = out.begin_frame();
    REQUIRE(encode_request_header(
      out, request_header{k, static_cast<int16_t>(api.max + 1), 1, "c"}));
    out.i32(0);
    REQUIRE(out.end_frame(mark));
    CHECK_FALSE(decode_request_frame(frame, error));
    CHECK(error.find("unsupported") != std::string::npos);
  }
}
