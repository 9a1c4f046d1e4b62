#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "cluster/zookeeper/zookeeper_client.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "tests/zookeeper/tcp_proxy.hpp"
#include "tests/zookeeper/zk_server.hpp"

using namespace std::chrono_literals;
using namespace troupe;
using namespace troupe::cluster;
using troupe::test::tcp_proxy;
using troupe::test::zk_server;

// Every wait below is a bound on a test that would otherwise hang, not a
// claim about speed: events normally arrive within milliseconds.

namespace {

constexpr auto patience = 20s;

/// Events pushed from ZooKeeper's threads, taken by the test thread.
template <class T>
class inbox {
public:
  void push(T x) {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      items_.push_back(std::move(x));
    }
    cv_.notify_all();
  }

  /// The first item for which `pred` holds; earlier ones are dropped.
  template <class Pred>
  std::optional<T> wait_for(Pred pred,
                            std::chrono::milliseconds within = patience) {
    std::unique_lock<std::mutex> guard{mtx_};
    auto deadline = std::chrono::steady_clock::now() + within;
    for (;;) {
      while (!items_.empty()) {
        auto x = std::move(items_.front());
        items_.pop_front();
        if (pred(x))
          return x;
      }
      if (cv_.wait_until(guard, deadline) == std::cv_status::timeout
          && items_.empty())
        return std::nullopt;
    }
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<T> items_;
};

/// Issues one request and waits for its result.
template <class Result, class Issue>
Result await(Issue issue) {
  auto promise = std::make_shared<std::promise<Result>>();
  auto future = promise->get_future();
  issue([promise](Result r) { promise->set_value(std::move(r)); });
  REQUIRE(future.wait_for(patience) == std::future_status::ready);
  return future.get();
}

/// A client whose session and watch events land in inboxes (declared
/// first, so that they outlive the client).
struct client {
  inbox<session_event> sessions;
  inbox<watch_event> watches;
  std::unique_ptr<zookeeper_client> zk;

  explicit client(std::string connect, int32_t session_timeout_ms = 6000,
                  bool wait = true) {
    zookeeper_config cfg;
    cfg.connect = std::move(connect);
    cfg.session_timeout_ms = session_timeout_ms;
    auto made = zookeeper_client::connect(
      cfg, [this](const session_event& e) { sessions.push(e); },
      [this](const watch_event& e) { watches.push(e); });
    if (auto* error = std::get_if<std::string>(&made))
      FAIL(*error);
    zk = std::move(std::get<0>(made));
    if (wait)
      REQUIRE(wait_for_state(session_state::connected));
  }

  std::optional<session_event> wait_for_state(session_state state) {
    return sessions.wait_for(
      [state](const session_event& e) { return e.state == state; });
  }

  std::optional<watch_event> wait_for_watch(watch_kind kind,
                                            const std::string& path) {
    return watches.wait_for(
      [&](const watch_event& e) { return e.kind == kind && e.path == path; });
  }

  create_result create(const std::string& path, std::string data,
                       create_mode mode = create_mode::persistent) {
    return await<create_result>(
      [&](auto done) { zk->create(path, std::move(data), mode, done); });
  }

  create_result create_recursive(const std::string& path, std::string data,
                                 create_mode mode = create_mode::persistent) {
    return await<create_result>([&](auto done) {
      zk->create_recursive(path, std::move(data), mode, done);
    });
  }

  data_result get(const std::string& path, bool watch = false) {
    return await<data_result>([&](auto done) { zk->get(path, watch, done); });
  }

  stat_result set(const std::string& path, std::string data, int32_t version) {
    return await<stat_result>(
      [&](auto done) { zk->set(path, std::move(data), version, done); });
  }

  zk_error remove(const std::string& path, int32_t version = any_version) {
    return await<zk_error>([&](auto done) { zk->remove(path, version, done); });
  }

  stat_result exists(const std::string& path, bool watch = false) {
    return await<stat_result>(
      [&](auto done) { zk->exists(path, watch, done); });
  }

  children_result children(const std::string& path, bool watch = false) {
    return await<children_result>(
      [&](auto done) { zk->get_children(path, watch, done); });
  }

  multi_result multi(std::vector<zk_op> ops) {
    return await<multi_result>(
      [&](auto done) { zk->multi(std::move(ops), done); });
  }
};

std::vector<std::string> sorted(std::vector<std::string> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

} // namespace

TEST_CASE("test ZooKeeper answers four-letter words") {
  zk_server server;
  CHECK(server.four_letter_word("ruok") == "imok");
  CHECK(server.four_letter_word("srvr").find("Mode: standalone")
        != std::string::npos);
}

TEST_CASE("create, get and set: a write with a stale version gets BADVERSION") {
  zk_server server;
  client c{server.connect_string()};
  auto created = c.create("/controller_epoch", zk::encode_controller_epoch(0));
  CHECK(created.error == zk_error::ok);
  CHECK(created.path == "/controller_epoch");
  CHECK(c.create("/controller_epoch", "1").error == zk_error::node_exists);

  auto read = c.get("/controller_epoch");
  REQUIRE(read.error == zk_error::ok);
  CHECK(read.data == "0");
  CHECK(read.stat.version == 0);

  auto written = c.set("/controller_epoch", "1", read.stat.version);
  REQUIRE(written.error == zk_error::ok);
  CHECK(written.stat.version == 1);
  // A deposed writer still holding version 0 is fenced.
  CHECK(c.set("/controller_epoch", "2", read.stat.version).error
        == zk_error::bad_version);
  CHECK(c.get("/controller_epoch").data == "1");
  CHECK(c.set("/controller_epoch", "3", any_version).error == zk_error::ok);

  CHECK(c.remove("/controller_epoch", 0) == zk_error::bad_version);
  CHECK(c.remove("/controller_epoch", 2) == zk_error::ok);
  CHECK(c.get("/controller_epoch").error == zk_error::no_node);
  CHECK(c.set("/controller_epoch", "4", any_version).error
        == zk_error::no_node);
}

TEST_CASE("create_recursive makes the missing parents, as Kafka's does") {
  zk_server server;
  client c{server.connect_string()};
  zk::leader_isr_state state;
  state.leader = 1;
  state.isr = {1, 2};
  auto path = zk::partition_state_path({"orders", 0});
  auto created = c.create_recursive(path, zk::encode_partition_state(state));
  REQUIRE(created.error == zk_error::ok);
  CHECK(created.path == path);
  auto back = zk::decode_partition_state(c.get(path).data);
  REQUIRE(back);
  CHECK(*back == state);
  // Parents are persistent and carry no data.
  auto parent = c.get(zk::topic_partition_path({"orders", 0}));
  CHECK(parent.error == zk_error::ok);
  CHECK(parent.data.empty());
  CHECK(c.children(zk::topic_partitions_path("orders")).children
        == std::vector<std::string>{"0"});
  // The path itself existing is reported.
  CHECK(c.create_recursive(path, "x").error == zk_error::node_exists);
  // An ephemeral leaf under persistent parents.
  CHECK(
    c.create_recursive(zk::broker_path(1), "{}", create_mode::ephemeral).error
    == zk_error::ok);
  CHECK(c.exists(zk::broker_path(1)).stat.ephemeral_owner
        == c.zk->session_id());
}

TEST_CASE("a multi with a stale controller epoch version changes nothing") {
  // Kafka's controller writes partition state in a multi that checks the
  // zkVersion of /controller_epoch (KafkaZkClient.retryRequestsUntilConnected
  // with a CheckOp): a deposed controller's write fails as a whole.
  zk_server server;
  client c{server.connect_string()};
  REQUIRE(c.create("/controller_epoch", "1").error == zk_error::ok);
  auto path = zk::partition_state_path({"t", 0});
  REQUIRE(c.create_recursive(path, "old").error == zk_error::ok);
  REQUIRE(c.set("/controller_epoch", "2", 0).error == zk_error::ok); // new one

  auto fenced = c.multi({zk_op::check("/controller_epoch", 0),
                         zk_op::set(path, "new", any_version)});
  CHECK(fenced.error == zk_error::bad_version);
  REQUIRE(fenced.op_errors.size() == 2);
  CHECK(fenced.op_errors[0] == zk_error::bad_version);
  CHECK(c.get(path).data == "old");

  auto current =
    c.multi({zk_op::check("/controller_epoch", 1), zk_op::set(path, "new", 0),
             zk_op::create("/brokers/topics/t/extra", "x"),
             zk_op::remove("/brokers/topics/t/extra")});
  CHECK(current.error == zk_error::ok);
  CHECK(current.op_errors == std::vector<zk_error>(4, zk_error::ok));
  CHECK(c.get(path).data == "new");
}

TEST_CASE("an ephemeral znode disappears when its session is closed") {
  zk_server server;
  client observer{server.connect_string()};
  auto owner = std::make_unique<client>(server.connect_string());
  auto path = zk::broker_path(1);
  REQUIRE(owner->create_recursive(path, "{}", create_mode::ephemeral).error
          == zk_error::ok);
  auto seen = observer.exists(path, true);
  REQUIRE(seen.error == zk_error::ok);
  CHECK(seen.stat.ephemeral_owner == owner->zk->session_id());

  owner.reset(); // closes the session
  REQUIRE(observer.wait_for_watch(watch_kind::deleted, path));
  CHECK(observer.get(path).error == zk_error::no_node);
}

TEST_CASE("a children watch fires when a child is added and when one leaves") {
  zk_server server;
  client controller{server.connect_string()};
  client broker{server.connect_string()};
  REQUIRE(controller.create_recursive("/brokers/ids", "").error
          == zk_error::ok);
  auto listed = controller.children("/brokers/ids", true);
  REQUIRE(listed.error == zk_error::ok);
  CHECK(listed.children.empty());

  REQUIRE(broker.create(zk::broker_path(1), "{}", create_mode::ephemeral).error
          == zk_error::ok);
  REQUIRE(
    controller.wait_for_watch(watch_kind::children_changed, "/brokers/ids"));
  // A watch fires once: re-read and re-arm, as Kafka's controller does.
  REQUIRE(broker.create(zk::broker_path(2), "{}", create_mode::ephemeral).error
          == zk_error::ok);
  CHECK(sorted(controller.children("/brokers/ids", true).children)
        == std::vector<std::string>{"1", "2"});

  CHECK(broker.remove(zk::broker_path(1)) == zk_error::ok);
  REQUIRE(
    controller.wait_for_watch(watch_kind::children_changed, "/brokers/ids"));
  CHECK(controller.children("/brokers/ids").children
        == std::vector<std::string>{"2"});
}

TEST_CASE("a data watch fires when the data changes and when it is deleted") {
  zk_server server;
  client broker{server.connect_string()};
  client controller{server.connect_string()};
  auto path = zk::partition_state_path({"t", 3});
  REQUIRE(controller.create_recursive(path, "a").error == zk_error::ok);
  REQUIRE(broker.get(path, true).error == zk_error::ok);

  REQUIRE(controller.set(path, "b", 0).error == zk_error::ok);
  REQUIRE(broker.wait_for_watch(watch_kind::data_changed, path));
  auto read = broker.get(path, true);
  CHECK(read.data == "b");
  CHECK(read.stat.version == 1);

  REQUIRE(controller.remove(path) == zk_error::ok);
  REQUIRE(broker.wait_for_watch(watch_kind::deleted, path));

  // exists() on a missing znode watches for its creation.
  CHECK(broker.exists(path, true).error == zk_error::no_node);
  REQUIRE(controller.create(path, "c").error == zk_error::ok);
  REQUIRE(broker.wait_for_watch(watch_kind::created, path));
}

TEST_CASE("a chroot confines the client to its subtree") {
  zk_server server;
  client root{server.connect_string()};
  // Kafka creates the chroot itself before using it.
  REQUIRE(root.create_recursive("/kafka/a", "").error == zk_error::ok);
  client chrooted{server.connect_string("/kafka/a")};
  CHECK(chrooted.zk->connect_string().chroot == "/kafka/a");

  auto created = chrooted.create_recursive(zk::topic_path("t"), "x");
  REQUIRE(created.error == zk_error::ok);
  CHECK(created.path == "/brokers/topics/t");
  CHECK(root.get("/kafka/a/brokers/topics/t").data == "x");
  CHECK(root.get("/brokers/topics/t").error == zk_error::no_node);

  // Watch paths are relative to the chroot too.
  REQUIRE(chrooted.get(zk::topic_path("t"), true).error == zk_error::ok);
  REQUIRE(root.set("/kafka/a/brokers/topics/t", "y", any_version).error
          == zk_error::ok);
  REQUIRE(
    chrooted.wait_for_watch(watch_kind::data_changed, zk::topic_path("t")));
}

TEST_CASE("a missing chroot makes create_recursive report NONODE") {
  zk_server server;
  client chrooted{server.connect_string("/missing")};
  CHECK(chrooted.create_recursive("/brokers/ids", "").error
        == zk_error::no_node);
}

TEST_CASE("an expired session is reported and a new session re-registers") {
  // The client reaches ZooKeeper through a proxy; cutting it longer than the
  // session timeout lets the server expire the session while both run.
  zk_server server;
  tcp_proxy proxy{server.port()};
  client observer{server.connect_string()};
  client broker{"127.0.0.1:" + std::to_string(proxy.port()), 2000};
  auto old_session = broker.zk->session_id();
  CHECK(old_session != 0);
  auto path = zk::broker_path(1);
  REQUIRE(broker.create_recursive(path, "{}", create_mode::ephemeral).error
          == zk_error::ok);
  REQUIRE(observer.exists(path, true).error == zk_error::ok);

  proxy.cut();
  auto lost = broker.wait_for_state(session_state::connecting);
  REQUIRE(lost);
  CHECK(lost->session_id == old_session);
  // The server expires the session: its ephemeral goes.
  REQUIRE(observer.wait_for_watch(watch_kind::deleted, path));
  CHECK(broker.zk->state() == session_state::connecting);

  proxy.restore();
  auto expired = broker.wait_for_state(session_state::expired);
  REQUIRE(expired);
  CHECK(expired->session_id == old_session);
  CHECK(broker.zk->state() == session_state::expired);
  // The dead handle answers every request with an error.
  CHECK(broker.get(path).error != zk_error::ok);

  REQUIRE(broker.zk->reconnect().empty());
  auto fresh = broker.wait_for_state(session_state::connected);
  REQUIRE(fresh);
  CHECK(fresh->session_id != old_session);
  CHECK(broker.zk->session_id() == fresh->session_id);
  REQUIRE(broker.create(path, "{}", create_mode::ephemeral).error
          == zk_error::ok);
  CHECK(observer.exists(path).stat.ephemeral_owner == fresh->session_id);
}

TEST_CASE("a disconnect shorter than the session timeout keeps the session") {
  zk_server server;
  tcp_proxy proxy{server.port()};
  client broker{"127.0.0.1:" + std::to_string(proxy.port()), 20000};
  auto session = broker.zk->session_id();
  REQUIRE(broker.create("/e", "", create_mode::ephemeral).error
          == zk_error::ok);
  REQUIRE(broker.get("/e", true).error == zk_error::ok);

  proxy.cut();
  REQUIRE(broker.wait_for_state(session_state::connecting));
  proxy.restore();
  auto back = broker.wait_for_state(session_state::connected);
  REQUIRE(back);
  CHECK(back->session_id == session);
  // The watch set before the disconnect still fires.
  client other{server.connect_string()};
  REQUIRE(other.set("/e", "x", any_version).error == zk_error::ok);
  REQUIRE(broker.wait_for_watch(watch_kind::data_changed, "/e"));
}

TEST_CASE("with nothing listening the client reports not connected and "
          "keeps retrying") {
  auto port = troupe::test::free_port();
  client c{"127.0.0.1:" + std::to_string(port), 6000, false};
  CHECK(c.zk->state() == session_state::connecting);
  CHECK(c.zk->session_id() == 0);
  // A request made meanwhile fails with CONNECTIONLOSS, not a crash.
  auto r = c.get("/x");
  CHECK(r.error == zk_error::connection_loss);
  CHECK(is_retriable(r.error));
  CHECK(c.zk->state() == session_state::connecting);
  // Once ZooKeeper is up on that port, the client connects by itself.
  troupe::test::zk_server_options options;
  options.port = port;
  zk_server server{options};
  REQUIRE(c.wait_for_state(session_state::connected));
  CHECK(c.create("/x", "1").error == zk_error::ok);
}

TEST_CASE("a malformed zookeeper.connect is refused before connecting") {
  zookeeper_config cfg;
  cfg.connect = "localhost:2181/bad/";
  auto made = zookeeper_client::connect(cfg, nullptr, nullptr);
  REQUIRE(std::holds_alternative<std::string>(made));
  CHECK(std::get<std::string>(made).find("chroot") != std::string::npos);
}

TEST_CASE("destroying the client with calls outstanding calls no handler "
          "after it") {
  zk_server server;
  struct tally {
    std::atomic<int> answered{0};
    std::atomic<int> closing{0};
    std::atomic<bool> destroyed{false};
    std::atomic<int> late{0};
  };
  auto counts = std::make_shared<tally>();
  auto c = std::make_unique<client>(server.connect_string());
  REQUIRE(c->create("/p", "").error == zk_error::ok);
  auto record = [counts](zk_error e) {
    if (counts->destroyed)
      ++counts->late;
    if (e == zk_error::closing)
      ++counts->closing;
    ++counts->answered;
  };
  constexpr int requests = 2000;
  for (int i = 0; i < requests; ++i) {
    auto path = "/p/n" + std::to_string(i);
    c->zk->create(path, "x", create_mode::ephemeral,
                  [record](create_result r) { record(r.error); });
    c->zk->get(path, true, [record](data_result r) { record(r.error); });
  }
  c->zk->create_recursive("/deep/a/b/c/d", "", create_mode::persistent,
                          [record](create_result r) { record(r.error); });
  c.reset(); // with most of those still in flight
  counts->destroyed = true;
  // Nothing may run after the destructor; give a stray thread the chance.
  std::this_thread::sleep_for(200ms);
  CHECK(counts->late == 0);
  // Requests cut short by the close are dropped, not answered CLOSING.
  CHECK(counts->closing == 0);
  CHECK(counts->answered <= 2 * requests + 1);
}

TEST_CASE("reconnect answers every request of the old session once") {
  zk_server server;
  client c{server.connect_string()};
  auto old_session = c.zk->session_id();
  constexpr int requests = 2000;
  struct tally {
    std::mutex mtx;
    std::condition_variable cv;
    std::vector<int> calls = std::vector<int>(requests, 0);
    int answered = 0;
  };
  auto t = std::make_shared<tally>();
  for (int i = 0; i < requests; ++i)
    c.zk->get("/", false, [t, i](data_result) {
      std::lock_guard<std::mutex> guard{t->mtx};
      ++t->calls[i];
      ++t->answered;
      t->cv.notify_all();
    });
  REQUIRE(c.zk->reconnect().empty());
  {
    std::unique_lock<std::mutex> guard{t->mtx};
    REQUIRE(
      t->cv.wait_for(guard, patience, [&] { return t->answered >= requests; }));
    CHECK(std::all_of(t->calls.begin(), t->calls.end(),
                      [](int n) { return n == 1; }));
  }
  auto fresh = c.wait_for_state(session_state::connected);
  REQUIRE(fresh);
  CHECK(fresh->session_id != old_session);
}

TEST_CASE("a handler may destroy its own client") {
  zk_server server;
  client observer{server.connect_string()};
  auto c = std::make_unique<client>(server.connect_string());
  REQUIRE(c->create("/mine", "", create_mode::ephemeral).error == zk_error::ok);
  REQUIRE(observer.exists("/mine", true).error == zk_error::ok);
  std::promise<void> ran;
  auto* raw = c.get();
  raw->zk->get("/mine", false, [&](data_result) {
    c.reset(); // on ZooKeeper's completion thread
    ran.set_value();
  });
  REQUIRE(ran.get_future().wait_for(patience) == std::future_status::ready);
  // The session ends: its ephemeral goes.
  REQUIRE(observer.wait_for_watch(watch_kind::deleted, "/mine"));
}

TEST_CASE("zookeeper.connect with several servers uses the live one") {
  zk_server server;
  auto dead = troupe::test::free_port();
  client c{"127.0.0.1:" + std::to_string(dead) + "," + server.connect_string()};
  CHECK(c.create("/x", "").error == zk_error::ok);
}
