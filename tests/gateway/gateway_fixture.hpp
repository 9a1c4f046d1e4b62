#pragma once

// The gateway's route layer with no socket: the embedded node and the REST
// API under CAF's test coordinator (simulated time), fed plain
// http_requests as the Beast server would.

#include <memory>
#include <optional>
#include <string>

#include <catch2/catch.hpp>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "actors/node.hpp"
#include "gateway/rest/api.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

namespace troupe::test {

inline constexpr const char* v2 = "application/vnd.kafka.v2+json";
inline constexpr const char* json_v2 = "application/vnd.kafka.json.v2+json";
inline constexpr const char* binary_v2 = "application/vnd.kafka.binary.v2+json";

/// A JSON answer as a protobuf Value (numbers are doubles).
inline google::protobuf::Value parse(const std::string& text) {
  google::protobuf::Value v;
  auto st = google::protobuf::util::JsonStringToMessage(text, &v);
  INFO("not JSON: " << text);
  REQUIRE(st.ok());
  return v;
}

inline const google::protobuf::Value& field(const google::protobuf::Value& v,
                                            const std::string& name) {
  INFO("no field " << name);
  REQUIRE(v.struct_value().fields().count(name) == 1);
  return v.struct_value().fields().at(name);
}

struct request_options {
  std::string ctype;
  std::string accept;
  std::string authorization;
  int64_t max_ms = 60000;
};

struct gateway_fixture : sim_fixture {
  temp_dir dir;
  cluster_config config;
  embedded_node node;
  std::shared_ptr<rest::api> api;

  explicit gateway_fixture(rest::api_config ac = admin_enabled()) {
    config.seed = 7;
    config.log_dirs = dir.path;
    config.detached_io = false;
    config.offsets_topic_num_partitions = 3;
    config.group.initial_rebalance_delay_ms = 0;
    api = std::make_shared<rest::api>(sys, config, ac);
    node = spawn_embedded_node(sys, config, api->listener());
    api->attach(node);
    run();
    advance(300, 10);
  }

  ~gateway_fixture() {
    api->shutdown(false);
    run();
    stop_embedded_node(node);
    run();
  }

  static rest::api_config admin_enabled() {
    rest::api_config ac;
    ac.admin_enable = true;
    return ac;
  }

  /// One request through the route layer; simulated time runs until the
  /// answer is there (at most `max_ms`).
  http_response http(const std::string& method, const std::string& target,
                     const std::string& body = "", request_options o = {}) {
    http_request req;
    req.method = method;
    auto q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos)
      req.query = target.substr(q + 1);
    req.content_type = !o.ctype.empty() ? o.ctype : (body.empty() ? "" : v2);
    req.accept = o.accept;
    req.authorization = o.authorization;
    req.body = body;
    auto out = std::make_shared<std::optional<http_response>>();
    api->handle(req, [out](http_response res) { *out = std::move(res); });
    run();
    for (int64_t t = 0; !*out && t < o.max_ms; t += 10)
      advance(10, 10);
    INFO(method << " " << target << " got no answer");
    REQUIRE(out->has_value());
    return std::move(**out);
  }

  /// The REST Proxy error code of an error answer.
  static int error_code_of(const http_response& res) {
    return static_cast<int>(
      field(parse(res.body), "error_code").number_value());
  }

  void create_topic(const std::string& name, int partitions = 2) {
    auto res =
      http("POST", "/v1/topics",
           "{\"name\":\"" + name + "\",\"partitions\":"
             + std::to_string(partitions) + ",\"replication_factor\":3}");
    REQUIRE(res.status == 201);
    advance(300, 10); // replicas take their roles
  }

  /// Creates `name` in `group` with the given extra settings.
  std::string create_instance(const std::string& group, const std::string& name,
                              const std::string& extra = "") {
    auto res = http("POST", "/consumers/" + group,
                    "{\"name\":\"" + name
                      + "\",\"auto.offset.reset\":\"earliest\","
                        "\"auto.commit.enable\":\"false\","
                        "\"session.timeout.ms\":\"6000\","
                        "\"heartbeat.interval.ms\":\"1000\""
                      + extra + "}");
    INFO(res.body);
    REQUIRE(res.status == 200);
    return "/consumers/" + group + "/instances/" + name;
  }

  /// How many partitions a GET .../assignments answer lists.
  static int partitions_of(const http_response& res) {
    auto v = parse(res.body);
    return field(v, "partitions").list_value().values_size();
  }

  /// Polls the instance at `base` until its consumer owns partitions (or
  /// the attempts run out); how many it owns.
  int poll_until_assigned(const std::string& base) {
    for (int i = 0; i < 40; ++i) {
      http("GET", base + "/records?timeout=200");
      auto res = http("GET", base + "/assignments");
      INFO(res.body);
      REQUIRE(res.status == 200);
      if (auto n = partitions_of(res); n > 0)
        return n;
    }
    return 0;
  }

  /// How many members GET /v1/groups/{group} lists.
  int members_of(const std::string& group) {
    auto res = http("GET", "/v1/groups/" + group);
    INFO(res.body);
    REQUIRE(res.status == 200);
    auto v = parse(res.body);
    auto& fields = v.struct_value().fields();
    auto i = fields.find("members");
    return i == fields.end() ? 0 : i->second.list_value().values_size();
  }

  /// Polls until `n` records came back (or the attempts run out).
  std::vector<google::protobuf::Value> read(const std::string& base, size_t n,
                                            const std::string& accept) {
    std::vector<google::protobuf::Value> out;
    for (int i = 0; i < 40 && out.size() < n; ++i) {
      auto res = http("GET", base + "/records?timeout=500", "", {"", accept});
      INFO(res.body);
      REQUIRE(res.status == 200);
      auto batch = parse(res.body);
      for (auto& r : batch.list_value().values())
        out.push_back(r);
    }
    return out;
  }
};

} // namespace troupe::test
