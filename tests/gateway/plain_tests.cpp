// The gateway's plain parts: media types and content negotiation, the
// admin guard, route matching, and how a failed ask becomes a status.

#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "gateway/rest/auth.hpp"
#include "gateway/rest/call.hpp"
#include "gateway/rest/json_value.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/router.hpp"

using namespace troupe;
using namespace troupe::rest;

TEST_CASE("REST Proxy's embedded formats are read from the Content-Type, "
          "parameters ignored") {
  CHECK(embedded_format_of("application/vnd.kafka.binary.v2+json")
        == embedded_format::binary);
  CHECK(embedded_format_of("application/vnd.kafka.json.v2+json; charset=utf-8")
        == embedded_format::json);
  CHECK_FALSE(embedded_format_of("application/vnd.kafka.v2+json"));
  CHECK_FALSE(embedded_format_of("application/json"));
  CHECK(format_by_name("BINARY") == embedded_format::binary);
  CHECK(is_json_body(""));
  CHECK(is_json_body("application/vnd.kafka.v2+json"));
  CHECK_FALSE(is_json_body("text/plain"));
}

TEST_CASE("metadata is answered as the v2 type unless Accept allows only "
          "application/json") {
  CHECK(negotiate("") == std::string{v2_json});
  CHECK(negotiate("*/*") == std::string{v2_json});
  CHECK(negotiate("application/json") == std::string{plain_json});
  CHECK(negotiate("application/json;q=0.5, application/vnd.kafka.v2+json")
        == std::string{v2_json});
  CHECK_FALSE(negotiate("text/html"));
  CHECK_FALSE(negotiate("application/vnd.kafka.json.v2+json"));
  CHECK(negotiate("application/vnd.kafka.json.v2+json", true)
        == std::string{"application/vnd.kafka.json.v2+json"});
}

TEST_CASE("records in another format than the instance's are a format "
          "mismatch, the plain v2 type counts as binary") {
  using f = embedded_format;
  CHECK(negotiate_records("", f::json) == records_choice::own);
  CHECK(negotiate_records("*/*", f::json) == records_choice::own);
  CHECK(negotiate_records("application/vnd.kafka.json.v2+json", f::json)
        == records_choice::own);
  CHECK(negotiate_records("application/vnd.kafka.binary.v2+json", f::json)
        == records_choice::mismatch);
  CHECK(negotiate_records("application/vnd.kafka.v2+json", f::json)
        == records_choice::mismatch);
  CHECK(negotiate_records("application/vnd.kafka.v2+json", f::binary)
        == records_choice::own);
  CHECK(negotiate_records("application/vnd.kafka.binary.v2+json;q=0, "
                          "application/vnd.kafka.json.v2+json",
                          f::json)
        == records_choice::own);
  CHECK(negotiate_records("text/plain", f::json)
        == records_choice::unacceptable);
}

TEST_CASE("admin routes need the bearer token when one is configured, and "
          "are forbidden without one unless enabled") {
  CHECK(check_admin("", false, "")->status == 403);
  CHECK_FALSE(check_admin("", true, ""));
  CHECK(check_admin("t0k", false, "")->status == 401);
  CHECK(check_admin("t0k", false, "Bearer t0")->status == 401);
  CHECK(check_admin("t0k", false, "Basic t0k")->status == 401);
  CHECK_FALSE(check_admin("t0k", false, "Bearer t0k"));
  CHECK_FALSE(check_admin("t0k", true, "Bearer t0k"));
}

TEST_CASE("route patterns bind their parameters and tell 405 from 404") {
  static void (*const nop)(const call&) = [](const call&) {};
  std::vector<route> table = {
    {"GET", "/topics/{topic}/partitions/{partition}", nop},
    {"POST", "/topics/{topic}/partitions/{partition}", nop},
    {"GET", "/topics", nop},
  };
  std::vector<std::string> segs;
  REQUIRE(split_path("/topics/a%2Fb/partitions/3", segs));
  auto m = find_route(table, "POST", segs);
  CHECK(m.index == 1);
  CHECK(m.params == std::vector<std::string>{"a/b", "3"});
  m = find_route(table, "DELETE", segs);
  CHECK(m.index == -1);
  CHECK(m.path_known);
  CHECK(m.allow == "GET, POST");
  REQUIRE(split_path("/nothing", segs));
  CHECK_FALSE(find_route(table, "GET", segs).path_known);
  CHECK_FALSE(split_path("/topics/%zz", segs));
  std::string v;
  CHECK(query_param("a=1&topic=x%20y&b", "topic", v));
  CHECK(v == "x y");
  CHECK_FALSE(query_param("a=1", "topic", v));
}

TEST_CASE("a timed-out ask is a 504, one with no broker to ask a 503") {
  CHECK(ask_failed(caf::make_error(caf::sec::request_timeout), "x").status
        == 504);
  CHECK(ask_failed(caf::make_error(caf::sec::invalid_argument), "x").status
        == 503);
  CHECK(ask_failed(caf::make_error(caf::sec::request_receiver_down), "x").status
        == 500);
  CHECK(ask_failed(caf::make_error(caf::sec::request_timeout), "x", false)
          .body.find("\"error_code\":7")
        != std::string::npos);
}

TEST_CASE("the produce route's JSON reader takes RFC 8259 JSON and writes "
          "values compactly") {
  json_value v;
  std::string err;
  REQUIRE(parse_json(R"( {"records": [ {"key": "k\u00e9\ud83d\ude00",
                         "value": {"n": -1.5e3, "ok": true, "x": null,
                         "list": [1, 2]}} ]} )",
                     v, err));
  auto& rec = v.find("records")->items.at(0);
  CHECK(rec.find("key")->text == "k\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(rec.find("value")->compact()
        == R"({"n":-1.5e3,"ok":true,"x":null,"list":[1,2]})");
  CHECK(rec.find("partition") == nullptr);
  for (auto bad : {"{", "[1,]", "{\"a\" 1}", "01", "1.", "\"a", "tru", "{} x",
                   "\"\\ud800\"", "\"\\q\"", "[\"a\nb\"]"}) {
    INFO(bad);
    CHECK_FALSE(parse_json(bad, v, err));
  }
  CHECK(parse_json("\"quote \\\" and \\\\\"", v, err));
  CHECK(v.compact() == "\"quote \\\" and \\\\\"");
}
