// /v1/ws member sessions through the route layer's hub actor, with a fake
// socket: what the server pushes, and the session timer (a delayed send).

#include "tests/gateway/gateway_fixture.hpp"

using namespace troupe;
using namespace troupe::test;

namespace {

/// What the hub sent to one fake socket.
struct socket_log {
  std::vector<google::protobuf::Value> events;
  std::optional<std::string> closed;

  bool has(const std::string& type) const {
    for (auto& e : events)
      if (field(e, "type").string_value() == type)
        return true;
    return false;
  }
};

struct ws_fixture : gateway_fixture {
  uint64_t open(std::shared_ptr<socket_log> log) {
    ws_peer peer;
    peer.send = [log](std::string text) { log->events.push_back(parse(text)); };
    peer.close = [log](std::string reason) { log->closed = reason; };
    auto id = api->ws_open(std::move(peer));
    run();
    return id;
  }

  void send(uint64_t id, const std::string& text) {
    api->ws_message(id, text);
    run();
  }
};

} // namespace

TEST_CASE_METHOD(ws_fixture,
                 "a WebSocket member joins, is assigned, and is removed when "
                 "it sends no heartbeat within its session timeout") {
  create_topic("orders", 2);
  auto log = std::make_shared<socket_log>();
  auto id = open(log);
  send(id, R"({"type":"join","group":"w","topics":["orders"],)"
           R"("session_timeout_ms":6000})");
  for (int i = 0; i < 300 && !log->has("assignment"); ++i)
    advance(10, 10);
  REQUIRE(log->has("joined"));
  REQUIRE(log->has("assignment"));
  // Heartbeats keep it: 10 s pass with one every 3 s.
  for (int i = 0; i < 4; ++i) {
    advance(2500, 50);
    send(id, R"({"type":"heartbeat"})");
  }
  CHECK_FALSE(log->closed);
  // Then silence: the session timer removes it.
  advance(6500, 50);
  REQUIRE(log->closed);
  CHECK(log->has("error"));
  bool unknown_member = false;
  for (auto& e : log->events)
    if (field(e, "type").string_value() == "error")
      unknown_member =
        field(e, "error_name").string_value() == "UNKNOWN_MEMBER_ID";
  CHECK(unknown_member);
}

TEST_CASE_METHOD(ws_fixture,
                 "a watching socket sees every group transition and garbage "
                 "closes a socket with the reason") {
  create_topic("orders", 1);
  auto watcher = std::make_shared<socket_log>();
  auto w = open(watcher);
  send(w, R"({"type":"watch"})");
  auto member = std::make_shared<socket_log>();
  auto m = open(member);
  send(m, R"({"type":"join","group":"w2","topics":["orders"]})");
  for (int i = 0; i < 300 && !member->has("assignment"); ++i)
    advance(10, 10);
  REQUIRE(watcher->has("group"));
  auto garbage = std::make_shared<socket_log>();
  auto g = open(garbage);
  send(g, "not json");
  REQUIRE(garbage->closed);
  CHECK(garbage->closed->find("malformed") != std::string::npos);
  api->ws_closed(m);
  run();
}
