#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <memory>

#include "cluster/zookeeper/zookeeper_client.hpp"
#include "tests/zookeeper/zk_server.hpp"

// zookeeper.set.acl and troupe.zookeeper.digest on the client
// (docs/ARCHITECTURE.md §7): Kafka's ZkData.defaultAcls on every znode it
// creates, checked against a real ZooKeeper with clients of other
// identities.

using namespace std::chrono_literals;
using namespace troupe::cluster;
using troupe::test::zk_server;

namespace {

constexpr auto patience = 20s;

/// A connected client with the given digest ("" anonymous) and set_acl.
std::unique_ptr<zookeeper_client> connect(const zk_server& server,
                                          std::string digest, bool set_acl) {
  auto connected = std::make_shared<std::promise<void>>();
  auto once = std::make_shared<std::once_flag>();
  zookeeper_config cfg;
  cfg.connect = server.connect_string();
  cfg.session_timeout_ms = 6000;
  cfg.digest = std::move(digest);
  cfg.set_acl = set_acl;
  auto made = zookeeper_client::connect(
    cfg,
    [connected, once](const session_event& e) {
      if (e.state == session_state::connected)
        std::call_once(*once, [&] { connected->set_value(); });
    },
    nullptr);
  if (auto* error = std::get_if<std::string>(&made))
    FAIL(*error);
  REQUIRE(connected->get_future().wait_for(patience)
          == std::future_status::ready);
  return std::move(std::get<0>(made));
}

template <class Result, class Issue>
Result await(Issue issue) {
  auto promise = std::make_shared<std::promise<Result>>();
  auto future = promise->get_future();
  issue([promise](Result r) { promise->set_value(std::move(r)); });
  REQUIRE(future.wait_for(patience) == std::future_status::ready);
  return future.get();
}

zk_error create(zookeeper_client& zk, const std::string& path,
                bool recursive = false) {
  return await<create_result>([&](auto done) {
           if (recursive)
             zk.create_recursive(path, "x", create_mode::persistent, done);
           else
             zk.create(path, "x", create_mode::persistent, done);
         })
    .error;
}

zk_error get(zookeeper_client& zk, const std::string& path) {
  return await<data_result>([&](auto done) { zk.get(path, false, done); })
    .error;
}

zk_error set(zookeeper_client& zk, const std::string& path) {
  return await<stat_result>(
           [&](auto done) { zk.set(path, "y", any_version, done); })
    .error;
}

zk_error remove(zookeeper_client& zk, const std::string& path) {
  return await<zk_error>(
    [&](auto done) { zk.remove(path, any_version, done); });
}

} // namespace

TEST_CASE("Kafka's default ACLs: creator ALL and world READ, creator only on "
          "the sensitive paths, open without zookeeper.set.acl") {
  using acls = std::vector<zk_acl_entry>;
  acls creator_world_read{{31, "auth", ""}, {1, "world", "anyone"}};
  acls creator_only{{31, "auth", ""}};
  acls open{{31, "world", "anyone"}};
  CHECK(kafka_default_acls(true, "/brokers/ids/1") == creator_world_read);
  CHECK(kafka_default_acls(true, "/controller") == creator_world_read);
  CHECK(kafka_default_acls(true, "/config/topics/t") == creator_world_read);
  CHECK(kafka_default_acls(true, "/config/users") == creator_only);
  CHECK(kafka_default_acls(true, "/config/users/alice") == creator_only);
  CHECK(kafka_default_acls(true, "/config/brokers/1") == creator_only);
  CHECK(kafka_default_acls(true, "/delegation_token/tokens/x")
        == creator_only);
  CHECK(kafka_default_acls(true, "/delegation_token") == creator_world_read);
  CHECK(kafka_default_acls(true, "/consumers") == open);
  CHECK(kafka_default_acls(false, "/config/users/alice") == open);
}

TEST_CASE("with zookeeper.set.acl znodes are world-readable and writable only "
          "by the digest identity that created them") {
  zk_server server;
  auto cluster = connect(server, "troupe:s3cret", true);
  REQUIRE(create(*cluster, "/brokers/ids/1", true) == zk_error::ok);
  REQUIRE(create(*cluster, "/config/users/alice", true) == zk_error::ok);

  auto anonymous = connect(server, "", false);
  auto impostor = connect(server, "troupe:guessed", false);
  for (auto* other : {anonymous.get(), impostor.get()}) {
    // Readable by everyone, except the sensitive paths.
    CHECK(get(*other, "/brokers/ids/1") == zk_error::ok);
    CHECK(get(*other, "/brokers") == zk_error::ok);
    CHECK(get(*other, "/config/users/alice") == zk_error::no_auth);
    CHECK(get(*other, "/config/users") == zk_error::no_auth);
    // Writable by nobody else: data, children, deletes.
    CHECK(set(*other, "/brokers/ids/1") == zk_error::no_auth);
    CHECK(create(*other, "/brokers/ids/2") == zk_error::no_auth);
    CHECK(remove(*other, "/brokers/ids/1") == zk_error::no_auth);
    CHECK(set(*other, "/config/users/alice") == zk_error::no_auth);
  }
  // The same identity in another session (another node of the cluster).
  auto peer = connect(server, "troupe:s3cret", true);
  CHECK(get(*peer, "/config/users/alice") == zk_error::ok);
  CHECK(set(*peer, "/brokers/ids/1") == zk_error::ok);
  CHECK(create(*peer, "/brokers/ids/2") == zk_error::ok);
  CHECK(remove(*peer, "/brokers/ids/2") == zk_error::ok);
}
