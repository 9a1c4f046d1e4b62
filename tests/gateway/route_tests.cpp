// REST Proxy v2 behaviours of the route layer, each named after what REST
// Proxy does (confluentinc/kafka-rest resources/v2), with no socket.

#include "tests/gateway/gateway_fixture.hpp"

using namespace troupe;
using namespace troupe::test;

namespace {

std::string records(const std::string& items) {
  return "{\"records\":[" + items + "]}";
}

/// A gateway whose consumer.instance.timeout.ms is 20 s.
struct short_instance_timeout : gateway_fixture {
  static constexpr int32_t timeout_ms = 20000;

  short_instance_timeout() : gateway_fixture(config()) {
    // nop
  }

  static rest::api_config config() {
    auto ac = admin_enabled();
    ac.consumer_instance_timeout_ms = timeout_ms;
    return ac;
  }
};

} // namespace

TEST_CASE_METHOD(gateway_fixture,
                 "topics are listed as application/vnd.kafka.v2+json without "
                 "internal topics") {
  create_topic("orders");
  auto res = http("GET", "/topics");
  REQUIRE(res.status == 200);
  CHECK(res.content_type == v2);
  auto names = parse(res.body).list_value();
  REQUIRE(names.values_size() == 1);
  CHECK(names.values(0).string_value() == "orders");
}

TEST_CASE_METHOD(gateway_fixture,
                 "an Accept that allows no v2 type is 406 Not Acceptable") {
  auto res = http("GET", "/topics", "", {"", "text/html"});
  CHECK(res.status == 406);
  CHECK(error_code_of(res) == 406);
  res = http("GET", "/topics", "", {"", "text/html;q=0.9, */*;q=0.1"});
  CHECK(res.status == 200);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a partition is described with its replicas, an unknown one "
                 "is 40402 and an unknown topic 40401") {
  create_topic("orders", 2);
  auto res = http("GET", "/topics/orders/partitions/1");
  REQUIRE(res.status == 200);
  auto p = parse(res.body);
  CHECK(field(p, "partition").number_value() == 1);
  CHECK(field(p, "replicas").list_value().values_size() == 3);
  res = http("GET", "/topics/orders/partitions/7");
  CHECK(res.status == 404);
  CHECK(error_code_of(res) == 40402);
  res = http("GET", "/topics/orders/partitions/x");
  CHECK(error_code_of(res) == 40402);
  res = http("GET", "/topics/nope/partitions/0");
  CHECK(res.status == 404);
  CHECK(error_code_of(res) == 40401);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a produce without records, or with an empty list, is 422") {
  create_topic("orders");
  for (auto body : {"{}", "{\"records\":[]}"}) {
    auto res = http("POST", "/topics/orders", body, {json_v2});
    INFO(body);
    CHECK(res.status == 422);
    CHECK(error_code_of(res) == 422);
  }
}

TEST_CASE_METHOD(gateway_fixture,
                 "a produce whose Content-Type names no embedded format is "
                 "415") {
  create_topic("orders");
  for (auto ctype : {v2, "application/json", "text/plain"}) {
    auto res =
      http("POST", "/topics/orders", records("{\"value\":1}"), {ctype});
    INFO(ctype);
    CHECK(res.status == 415);
    CHECK(error_code_of(res) == 415);
  }
}

TEST_CASE_METHOD(gateway_fixture,
                 "a binary produce takes base64 and answers offsets with null "
                 "key_schema_id and value_schema_id") {
  create_topic("orders", 1);
  auto res = http("POST", "/topics/orders",
                  records("{\"key\":\"a2V5\",\"value\":\"aGVsbG8=\"},"
                          "{\"value\":\"d29ybGQ=\"}"),
                  {binary_v2});
  INFO(res.body);
  REQUIRE(res.status == 200);
  CHECK(res.content_type == v2);
  auto out = parse(res.body);
  CHECK(field(out, "key_schema_id").has_null_value());
  CHECK(field(out, "value_schema_id").has_null_value());
  auto& offsets = field(out, "offsets").list_value();
  REQUIRE(offsets.values_size() == 2);
  CHECK(field(offsets.values(0), "offset").number_value() == 0);
  CHECK(field(offsets.values(1), "offset").number_value() == 1);
  CHECK(field(offsets.values(0), "error_code").has_null_value());
  res = http("POST", "/topics/orders", records("{\"value\":\"not base64!\"}"),
             {binary_v2});
  CHECK(res.status == 400);
  res = http("POST", "/topics/orders", records("{\"value\":{\"n\":1}}"),
             {binary_v2});
  CHECK(res.status == 400);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a produce to an unknown partition is 40402, to a partition "
                 "by URL lands there") {
  create_topic("orders", 2);
  auto res = http("POST", "/topics/orders",
                  records("{\"value\":1,\"partition\":5}"), {json_v2});
  CHECK(res.status == 404);
  CHECK(error_code_of(res) == 40402);
  res = http("POST", "/topics/orders/partitions/1",
             records("{\"value\":1},{\"value\":2}"), {json_v2});
  REQUIRE(res.status == 200);
  auto out = parse(res.body);
  for (auto& o : field(out, "offsets").list_value().values())
    CHECK(field(o, "partition").number_value() == 1);
  res = http("POST", "/topics/orders/partitions/9", records("{\"value\":1}"),
             {json_v2});
  CHECK(error_code_of(res) == 40402);
}

TEST_CASE_METHOD(gateway_fixture,
                 "binary records round-trip through a binary consumer "
                 "instance, JSON records through a json one") {
  create_topic("orders", 1);
  REQUIRE(http("POST", "/topics/orders",
               records("{\"key\":\"a2V5\",\"value\":\"aGVsbG8=\"}"),
               {binary_v2})
            .status
          == 200);
  REQUIRE(http("POST", "/topics/orders",
               records("{\"key\":\"k\",\"value\":{\"n\":1}}"), {json_v2})
            .status
          == 200);
  auto bin = create_instance("g-bin", "b"); // REST Proxy's default: binary
  REQUIRE(
    http("POST", bin + "/subscription", "{\"topics\":[\"orders\"]}").status
    == 204);
  auto got = read(bin, 2, binary_v2);
  REQUIRE(got.size() == 2);
  CHECK(field(got[0], "key").string_value() == "a2V5");
  CHECK(field(got[0], "value").string_value() == "aGVsbG8=");
  CHECK(field(got[0], "topic").string_value() == "orders");
  // The JSON record's bytes are `"k"` and `{"n":1}`, base64 in binary.
  CHECK(field(got[1], "key").string_value() == "Imsi");
  auto js = create_instance("g-json", "j", ",\"format\":\"json\"");
  REQUIRE(http("POST", js + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  got = read(js, 2, json_v2);
  REQUIRE(got.size() == 2);
  CHECK(field(got[1], "key").string_value() == "k");
  CHECK(field(field(got[1], "value"), "n").number_value() == 1);
}

TEST_CASE_METHOD(gateway_fixture,
                 "records asked for in another format than the instance's "
                 "are 406 with 40601") {
  create_topic("orders", 1);
  auto js = create_instance("g", "j", ",\"format\":\"json\"");
  REQUIRE(http("POST", js + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  auto res = http("GET", js + "/records?timeout=10", "", {"", binary_v2});
  CHECK(res.status == 406);
  CHECK(error_code_of(res) == 40601);
  // The plain v2 type is what REST Proxy's binary reader serves.
  res = http("GET", js + "/records?timeout=10", "", {"", v2});
  CHECK(error_code_of(res) == 40601);
  res = http("GET", js + "/records?timeout=10", "", {"", json_v2});
  CHECK(res.status == 200);
  CHECK(res.content_type == json_v2);
}

TEST_CASE_METHOD(gateway_fixture,
                 "subscribing a manually assigned instance is 409 (40903), "
                 "and so is assigning a subscribed one") {
  create_topic("orders", 2);
  auto a = create_instance("g", "a");
  REQUIRE(http("POST", a + "/assignments",
               "{\"partitions\":[{\"topic\":\"orders\",\"partition\":1}]}")
            .status
          == 204);
  auto res = http("POST", a + "/subscription", "{\"topics\":[\"orders\"]}");
  CHECK(res.status == 409);
  CHECK(error_code_of(res) == 40903);
  res = http("GET", a + "/assignments");
  REQUIRE(res.status == 200);
  auto parts = field(parse(res.body), "partitions").list_value();
  REQUIRE(parts.values_size() == 1);
  CHECK(field(parts.values(0), "partition").number_value() == 1);
  auto s = create_instance("g", "s");
  REQUIRE(http("POST", s + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  res = http("POST", s + "/assignments",
             "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0}]}");
  CHECK(res.status == 409);
  CHECK(error_code_of(res) == 40903);
  // After DELETE .../subscription it may be assigned.
  REQUIRE(http("DELETE", s + "/subscription").status == 204);
  CHECK(http("POST", s + "/assignments",
             "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0}]}")
          .status
        == 204);
}

TEST_CASE_METHOD(gateway_fixture,
                 "an assigned instance reads from the position it sought, "
                 "and seeking an unassigned partition is 409") {
  create_topic("orders", 1);
  REQUIRE(http("POST", "/topics/orders",
               records("{\"value\":0},{\"value\":1},{\"value\":2},"
                       "{\"value\":3}"),
               {json_v2})
            .status
          == 200);
  auto a = create_instance("g", "a", ",\"format\":\"json\"");
  REQUIRE(http("POST", a + "/assignments",
               "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0}]}")
            .status
          == 204);
  REQUIRE(http("POST", a + "/positions",
               "{\"offsets\":[{\"topic\":\"orders\",\"partition\":0,"
               "\"offset\":2}]}")
            .status
          == 204);
  auto got = read(a, 2, json_v2);
  REQUIRE(got.size() == 2);
  CHECK(field(got[0], "offset").number_value() == 2);
  CHECK(field(got[1], "value").number_value() == 3);
  REQUIRE(http("POST", a + "/positions/beginning",
               "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0}]}")
            .status
          == 204);
  got = read(a, 1, json_v2);
  REQUIRE(!got.empty());
  CHECK(field(got[0], "offset").number_value() == 0);
  REQUIRE(http("POST", a + "/positions/end",
               "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0}]}")
            .status
          == 204);
  auto res = http("GET", a + "/records?timeout=200", "", {"", json_v2});
  CHECK(parse(res.body).list_value().values_size() == 0);
  res = http("POST", a + "/positions",
             "{\"offsets\":[{\"topic\":\"orders\",\"partition\":3,"
             "\"offset\":0}]}");
  CHECK(res.status == 409);
  CHECK(error_code_of(res) == 40903);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a commit stores offset + 1 and GET offsets lists the "
                 "committed partitions only") {
  create_topic("orders", 2);
  auto a = create_instance("g", "a");
  REQUIRE(http("POST", a + "/assignments",
               "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0},"
               "{\"topic\":\"orders\",\"partition\":1}]}")
            .status
          == 204);
  auto res = http("POST", a + "/offsets",
                  "{\"offsets\":[{\"topic\":\"orders\",\"partition\":0,"
                  "\"offset\":4}]}");
  INFO(res.body);
  REQUIRE(res.status == 200);
  res = http("GET", a + "/offsets",
             "{\"partitions\":[{\"topic\":\"orders\",\"partition\":0},"
             "{\"topic\":\"orders\",\"partition\":1}]}");
  INFO(res.body);
  REQUIRE(res.status == 200);
  auto offsets = field(parse(res.body), "offsets").list_value();
  REQUIRE(offsets.values_size() == 1);
  CHECK(field(offsets.values(0), "partition").number_value() == 0);
  CHECK(field(offsets.values(0), "offset").number_value() == 5);
  // REST Proxy: GET offsets without a body is "partition not found".
  res = http("GET", a + "/offsets");
  CHECK(error_code_of(res) == 40402);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a topic_pattern subscription follows the topics that match "
                 "it") {
  create_topic("orders-eu", 1);
  create_topic("payments", 1);
  auto a = create_instance("g", "a");
  REQUIRE(http("POST", a + "/subscription", "{\"topic_pattern\":\"orders-.*\"}")
            .status
          == 204);
  auto sub = field(parse(http("GET", a + "/subscription").body), "topics");
  REQUIRE(sub.list_value().values_size() == 1);
  CHECK(sub.list_value().values(0).string_value() == "orders-eu");
  create_topic("orders-us", 1);
  http("GET", a + "/records?timeout=100", "", {"", binary_v2});
  sub = field(parse(http("GET", a + "/subscription").body), "topics");
  CHECK(sub.list_value().values_size() == 2);
  // Topics and a pattern are mutually exclusive, as Kafka's subscribe().
  auto res = http("POST", a + "/subscription", "{\"topics\":[\"payments\"]}");
  CHECK(res.status == 409);
  res = http("POST", a + "/subscription", "{\"topic_pattern\":\"(\"}");
  CHECK(res.status == 400);
}

TEST_CASE_METHOD(gateway_fixture,
                 "an instance not polled within max.poll.interval.ms leaves "
                 "its group, stays, and rejoins on its next poll") {
  create_topic("orders", 1);
  auto a = create_instance("g", "a", ",\"max.poll.interval.ms\":\"8000\"");
  REQUIRE(http("POST", a + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  REQUIRE(poll_until_assigned(a) == 1);
  CHECK(members_of("g") == 1);
  advance(9000, 50);
  CHECK(members_of("g") == 0);
  // The Java consumer left; REST Proxy's instance is still there.
  auto res = http("GET", a + "/assignments");
  REQUIRE(res.status == 200);
  CHECK(partitions_of(res) == 0);
  auto sub = field(parse(http("GET", a + "/subscription").body), "topics");
  CHECK(sub.list_value().values_size() == 1);
  // Kafka's CommitFailedException: not part of an active group.
  res = http("POST", a + "/offsets",
             "{\"offsets\":[{\"topic\":\"orders\",\"partition\":0,"
             "\"offset\":1}]}");
  CHECK(res.status == 500);
  CHECK(error_code_of(res) == 50002);
  CHECK(poll_until_assigned(a) == 1);
  CHECK(members_of("g") == 1);
}

TEST_CASE_METHOD(short_instance_timeout,
                 "an instance that gets no request for "
                 "consumer.instance.timeout.ms leaves its group and is "
                 "deleted (404, 40403)") {
  create_topic("orders", 1);
  auto a = create_instance("g", "a");
  REQUIRE(http("POST", a + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  REQUIRE(poll_until_assigned(a) == 1);
  CHECK(members_of("g") == 1);
  advance(timeout_ms + 1000, 50);
  // Gone at once (LeaveGroup), not after session.timeout.ms (6 s).
  CHECK(members_of("g") == 0);
  std::vector<std::pair<std::string, std::string>> routes = {
    {"GET", "/assignments"},
    {"GET", "/subscription"},
    {"GET", "/records"},
    {"POST", "/offsets"},
    {"DELETE", ""}};
  for (auto& [method, route] : routes) {
    auto res = http(method, a + route);
    INFO(method << " " << route << ": " << res.body);
    CHECK(res.status == 404);
    CHECK(error_code_of(res) == 40403);
  }
}

TEST_CASE_METHOD(short_instance_timeout,
                 "every request to an instance within "
                 "consumer.instance.timeout.ms keeps it, a waiting poll "
                 "included") {
  create_topic("orders", 1);
  auto a = create_instance("g", "a");
  REQUIRE(http("POST", a + "/subscription", "{\"topics\":[\"orders\"]}").status
          == 204);
  REQUIRE(poll_until_assigned(a) == 1);
  // Each request comes 3/4 of the timeout after the one before: the
  // instance outlives the timeout several times over.
  auto idle = timeout_ms * 3 / 4;
  std::string partitions = "{\"partitions\":[{\"topic\":\"orders\","
                           "\"partition\":0}]}";
  std::vector<std::tuple<std::string, std::string, std::string, unsigned>>
    requests = {{"GET", "/subscription", "", 200},
                {"GET", "/assignments", "", 200},
                {"POST", "/offsets", "", 200},
                {"GET", "/offsets", partitions, 200},
                {"POST", "/positions/end", partitions, 204}};
  for (auto& [method, route, body, status] : requests) {
    advance(idle, 50);
    auto res = http(method, a + route, body);
    INFO(method << " " << route << ": " << res.body);
    CHECK(res.status == status);
  }
  // A poll that waits longer than the timeout keeps it too (kafka-rest
  // renews the expiration while it reads).
  advance(idle, 50);
  auto res = http("GET", a + "/records?timeout=25000", "", {"", binary_v2});
  REQUIRE(res.status == 200);
  advance(idle, 50);
  CHECK(http("GET", a + "/assignments").status == 200);
  CHECK(members_of("g") == 1);
  advance(timeout_ms + 1000, 50);
  res = http("GET", a + "/assignments");
  CHECK(res.status == 404);
  CHECK(error_code_of(res) == 40403);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a second instance of the same name is 40902, an invalid "
                 "format or auto.offset.reset is 422") {
  create_instance("g", "a");
  auto res = http("POST", "/consumers/g", "{\"name\":\"a\"}");
  CHECK(res.status == 409);
  CHECK(error_code_of(res) == 40902);
  res = http("POST", "/consumers/g", "{\"format\":\"xml\"}");
  CHECK(res.status == 422);
  res = http("POST", "/consumers/g", "{\"auto.offset.reset\":\"sideways\"}");
  CHECK(error_code_of(res) == 42204);
  res = http("POST", "/consumers/g", "{\"consumer.request.timeout.ms\":250}");
  CHECK(res.status == 200);
}

TEST_CASE("routes that change the cluster answer 403 without a configured "
          "token and 401 with a wrong one") {
  SECTION("no token configured") {
    gateway_fixture fx{rest::api_config{}};
    auto res = fx.http("POST", "/v1/brokers/1/stop");
    CHECK(res.status == 403);
    res = fx.http("POST", "/v1/topics", "{\"name\":\"t\"}");
    CHECK(res.status == 403);
    CHECK(fx.http("GET", "/v1/brokers").status == 200);
  }
  SECTION("a token configured") {
    rest::api_config ac;
    ac.admin_token = "s3cret";
    gateway_fixture fx{ac};
    auto res = fx.http("POST", "/v1/brokers/1/stop", "", {"", "", "Bearer no"});
    CHECK(res.status == 401);
    res = fx.http("POST", "/v1/brokers/1/stop");
    CHECK(res.status == 401);
    res = fx.http("POST", "/v1/brokers/1/stop", "", {"", "", "Bearer s3cret"});
    CHECK(res.status == 200);
    CHECK(fx.http("GET", "/healthz").status == 200);
    CHECK(fx.http("GET", "/metrics").status == 200);
  }
}

TEST_CASE_METHOD(gateway_fixture,
                 "the partitions view lists the full replica assignment and "
                 "marks a stopped broker's replica offline") {
  create_topic("orders", 1);
  REQUIRE(http("POST", "/v1/brokers/2/stop").status == 200);
  advance(300, 10);
  auto res = http("GET", "/v1/partitions?topic=orders");
  REQUIRE(res.status == 200);
  auto parts = field(parse(res.body), "partitions").list_value();
  REQUIRE(parts.values_size() == 1);
  auto& replicas = field(parts.values(0), "replicas").list_value();
  REQUIRE(replicas.values_size() == 3);
  int offline = 0;
  for (auto& r : replicas.values())
    if (field(r, "offline").bool_value()) {
      ++offline;
      CHECK(field(r, "broker").number_value() == 2);
      CHECK(field(r, "role").string_value() == "offline");
    }
  CHECK(offline == 1);
  // REST Proxy's GET /brokers lists the brokers that are up.
  auto ids = field(parse(http("GET", "/brokers").body), "brokers").list_value();
  CHECK(ids.values_size() == 2);
}

TEST_CASE_METHOD(gateway_fixture,
                 "a v1 heartbeat from an unknown member carries Kafka's "
                 "UNKNOWN_MEMBER_ID") {
  http_response res;
  for (int i = 0; i < 20; ++i) {
    res = http("POST", "/v1/groups/g/heartbeat",
               "{\"generation_id\":1,\"member_id\":\"stranger\"}");
    if (error_code_of(res) != 14) // COORDINATOR_LOAD_IN_PROGRESS
      break;
    advance(200, 10);
  }
  CHECK(res.status == 200);
  CHECK(error_code_of(res) == 25);
  CHECK(field(parse(res.body), "error_name").string_value()
        == "UNKNOWN_MEMBER_ID");
}

TEST_CASE_METHOD(gateway_fixture,
                 "unknown routes are 404, known ones with another method 405 "
                 "with Allow") {
  auto res = http("GET", "/no/such/route");
  CHECK(res.status == 404);
  res = http("PUT", "/topics/orders");
  CHECK(res.status == 405);
  bool allow = false;
  for (auto& [k, v] : res.headers)
    if (k == "Allow")
      allow = v.find("POST") != std::string::npos;
  CHECK(allow);
}
