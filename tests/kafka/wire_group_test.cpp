// The group protocol and the listener's handling of bad input, checked at
// the socket level against a real `troupe --serve`: requests are encoded and
// responses decoded with troupe's own codec (domain/kafka/protocol.hpp), sent
// over plain POSIX sockets.
//
// The server is started once for the whole run from the executable named by
// TROUPE_BIN, on three free ports (or TROUPE_TEST_PORT.., checked free), and
// killed at exit; it gets SIGKILL if this process dies first.

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "domain/kafka/protocol.hpp"
#include "domain/log/record_batch.hpp"

namespace wire = troupe::wire;
using troupe::error_code;

namespace {

using namespace std::chrono_literals;

// -- the server ---------------------------------------------------------------

/// True when `port` can be bound on every address, i.e. nobody listens there.
bool port_free(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

/// A base port with `base..base + n - 1` all free, or 0.
int free_ports(int n) {
  std::mt19937 gen{std::random_device{}()};
  std::uniform_int_distribution<int> pick{20000, 60000};
  for (int attempt = 0; attempt < 500; ++attempt) {
    int base = pick(gen);
    int i = 0;
    while (i < n && port_free(base + i))
      ++i;
    if (i == n)
      return base;
  }
  return 0;
}

/// `troupe --serve` in a child process with a fresh log directory.
class server {
public:
  server() {
    const char* bin = std::getenv("TROUPE_BIN");
    if (!bin)
      FAIL("TROUPE_BIN names no troupe executable");
    if (const char* port = std::getenv("TROUPE_TEST_PORT")) {
      port_ = std::atoi(port);
      for (int i = 0; i < 3; ++i)
        if (!port_free(port_ + i))
          FAIL("port " << port_ + i << " is in use");
    } else if (port_ = free_ports(3); port_ == 0) {
      FAIL("no three consecutive free ports");
    }
    char dir[] = "/tmp/troupe-wire-XXXXXX";
    if (!mkdtemp(dir))
      FAIL("mkdtemp failed");
    dir_ = dir;
    // Without the HTTP gateway where troupe has one: its port is shared.
    bool has_http = false;
    if (auto* help = popen((std::string{bin} + " --help").c_str(), "r")) {
      char line[512];
      while (std::fgets(line, sizeof(line), help))
        has_http = has_http || std::strstr(line, "--http-port");
      pclose(help);
    }
    auto parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      // Dies with this process, however it ends; if the parent is gone
      // already, the signal was never armed.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent)
        _exit(1);
      auto log = dir_ + "/server.log";
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      auto logs = "log.dirs=" + dir_ + "/logs";
      auto port_arg = "port=" + std::to_string(port_);
      std::vector<std::string> args{
        bin,           "--serve",
        "--log-level", "info",
        "--override",  logs,
        "--override",  port_arg,
        "--override",  "group.initial.rebalance.delay.ms=0",
        "--override",  "num.partitions=3",
        "--override",  "default.replication.factor=3"};
      if (has_http) {
        args.emplace_back("--http-port");
        args.emplace_back("0");
      }
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(bin, argv.data());
      _exit(127);
    }
  }

  ~server() {
    stop();
    // TROUPE_TEST_KEEP=1 keeps the server's log directory for a post-mortem.
    if (!dir_.empty() && !std::getenv("TROUPE_TEST_KEEP"))
      std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  /// SIGTERM, SIGKILL after 10 s, and reaped.
  void stop() {
    if (!alive())
      return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && alive(); ++i)
      std::this_thread::sleep_for(100ms);
    if (alive()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  int port() const {
    return port_;
  }

  bool alive() const {
    // Once reaped, the pid is forgotten: it may name another process soon.
    if (pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) != 0)
      pid_ = -1;
    return pid_ > 0;
  }

  /// The server's log so far.
  std::string log() const {
    std::ifstream in{dir_ + "/server.log"};
    return {std::istreambuf_iterator<char>{in}, {}};
  }

  const std::string& dir() const {
    return dir_;
  }

private:
  mutable pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

server& the_server();

// -- a connection -------------------------------------------------------------

/// What a read of one response frame found.
enum class read_result { frame, closed, timeout };

class connection {
public:
  explicit connection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(fd_);
      fd_ = -1;
    }
    int one = 1;
    if (fd_ >= 0)
      setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }

  ~connection() {
    if (fd_ >= 0)
      close(fd_);
  }

  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  bool ok() const {
    return fd_ >= 0;
  }

  bool send_raw(const wire::bytes& buf) {
    size_t done = 0;
    while (done < buf.size()) {
      auto n = ::send(fd_, buf.data() + done, buf.size() - done, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  void shutdown_write() {
    ::shutdown(fd_, SHUT_WR);
  }

  /// Sends a request frame: header v1 then the body in `version`.
  template <class Request, class Encode>
  int32_t send(wire::api_key key, int16_t version, const Request& req,
               Encode encode) {
    auto correlation = next_correlation_++;
    wire::bytes buf;
    wire::writer w{buf};
    auto mark = w.begin_frame();
    wire::encode_request_header(w, {static_cast<int16_t>(key), version,
                                    correlation, std::string{"wire-test"}});
    REQUIRE(encode(w, req, version));
    REQUIRE(w.end_frame(mark));
    REQUIRE(send_raw(buf));
    return correlation;
  }

  /// Reads one response frame (without its size prefix) into `out`.
  read_result read_frame(wire::bytes& out,
                         std::chrono::milliseconds timeout = 40s) {
    wire::bytes size_buf;
    if (auto r = read_exact(4, size_buf, timeout); r != read_result::frame)
      return r;
    uint32_t size = (uint32_t{size_buf[0]} << 24)
                    | (uint32_t{size_buf[1]} << 16)
                    | (uint32_t{size_buf[2]} << 8) | uint32_t{size_buf[3]};
    REQUIRE(size < (64u << 20));
    return read_exact(size, out, timeout);
  }

  /// Reads the response to `correlation` and decodes its body.
  template <class Response, class Decode>
  Response receive(wire::api_key key, int32_t correlation, int16_t version,
                   Decode decode) {
    wire::bytes buf;
    REQUIRE(read_frame(buf) == read_result::frame);
    wire::reader in{buf};
    auto header =
      wire::decode_response_header(in, static_cast<int16_t>(key), version);
    REQUIRE(header);
    CHECK(header->correlation_id == correlation);
    std::optional<Response> res = decode(in, version);
    INFO(in.error());
    REQUIRE(res);
    return std::move(*res);
  }

  template <class Response, class Request, class Encode, class Decode>
  Response call(wire::api_key key, int16_t version, const Request& req,
                Encode encode, Decode decode) {
    auto c = send(key, version, req, encode);
    return receive<Response>(key, c, version, decode);
  }

  /// True once the peer has closed the connection (EOF or reset) within
  /// `timeout`; any bytes that arrive first are read and dropped.
  bool closed_by_peer(std::chrono::milliseconds timeout = 20s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    uint8_t buf[4096];
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
        return false;
      auto n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0)
        return true;
    }
  }

private:
  read_result read_exact(size_t n, wire::bytes& out,
                         std::chrono::milliseconds timeout) {
    out.resize(n);
    size_t done = 0;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (done < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return read_result::timeout;
      pollfd p{fd_, POLLIN, 0};
      auto ready = poll(&p, 1, static_cast<int>(left.count()));
      if (ready == 0)
        return read_result::timeout;
      if (ready < 0)
        return read_result::closed;
      auto got = ::recv(fd_, out.data() + done, n - done, 0);
      if (got <= 0)
        return read_result::closed;
      done += static_cast<size_t>(got);
    }
    return read_result::frame;
  }

  int fd_ = -1;
  int32_t next_correlation_ = 1;
};

/// Waits until our server printed its ready line, which it does only once it
/// holds every listener, and answers ApiVersions on its first port. False
/// when it exits first or `timeout` passes.
bool wait_until_serving(const server& s, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto ready = "Kafka listeners on " + std::to_string(s.port()) + "..";
  while (std::chrono::steady_clock::now() < deadline && s.alive()) {
    if (s.log().find(ready) == std::string::npos) {
      std::this_thread::sleep_for(100ms);
      continue;
    }
    connection c{s.port()};
    if (c.ok()) {
      c.send(wire::api_key::api_versions, 0, wire::api_versions_request{},
             wire::encode_api_versions_request);
      wire::bytes buf;
      if (c.read_frame(buf, 5s) == read_result::frame)
        return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

server& the_server() {
  static server s;
  static bool up = wait_until_serving(s, 30s);
  if (!up)
    FAIL("troupe --serve did not answer on port " << s.port()
                                                  << "; its log:\n"
                                                  << s.log());
  return s;
}

// -- requests -----------------------------------------------------------------

/// False until the coordinator at `port` serves `group` and its
/// __consumer_offsets partition takes writes, found out as a client would:
/// a simple (memberless) offset commit answered COORDINATOR_LOAD_IN_PROGRESS,
/// COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR is retried. A DescribeGroups
/// probe is not enough: right after startup troupe serves a group before its
/// offsets replica has become leader, and the group's writes then fail.
bool coordinator_ready(int port, const std::string& group) {
  connection c{port};
  REQUIRE(c.ok());
  wire::offset_commit_request req;
  req.group_id = group;
  req.generation_id = -1;
  req.topics.push_back({"wire-probe", {{0, 0, std::string{}}}});
  auto res = c.call<wire::offset_commit_response>(
    wire::api_key::offset_commit, 2, req, wire::encode_offset_commit_request,
    wire::decode_offset_commit_response);
  REQUIRE(res.topics.size() == 1);
  REQUIRE(res.topics[0].partitions.size() == 1);
  auto e = res.topics[0].partitions[0].error;
  return e != error_code::coordinator_load_in_progress
         && e != error_code::coordinator_not_available
         && e != error_code::not_coordinator;
}

/// The coordinator's port for `group`, asked of broker 0, once it serves the
/// group.
int coordinator_port(const std::string& group) {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  // The __consumer_offsets partitions may still be electing leaders.
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto res = c.call<wire::find_coordinator_response>(
      wire::api_key::find_coordinator, 0, wire::find_coordinator_request{group},
      wire::encode_find_coordinator_request,
      wire::decode_find_coordinator_response);
    if (res.error == error_code::none && coordinator_ready(res.port, group)) {
      CHECK(res.port >= the_server().port());
      CHECK(res.port < the_server().port() + 3);
      return res.port;
    }
    std::this_thread::sleep_for(100ms);
  }
  FAIL("FindCoordinator kept failing for " << group);
  return -1;
}

wire::join_group_request join_request(const std::string& group,
                                      const std::string& member_id,
                                      std::vector<std::string> protocols,
                                      int32_t session_ms = 30000,
                                      std::string protocol_type = "consumer") {
  wire::join_group_request req;
  req.group_id = group;
  req.session_timeout_ms = session_ms;
  req.rebalance_timeout_ms = 30000;
  req.member_id = member_id;
  req.protocol_type = std::move(protocol_type);
  for (auto& p : protocols)
    req.protocols.push_back({p, wire::bytes{1, 2, 3}});
  return req;
}

/// A group member on its own connection to the coordinator.
struct member {
  explicit member(int port) : conn(port) {
    REQUIRE(conn.ok());
  }

  int32_t send_join(const wire::join_group_request& req, int16_t version = 1) {
    join_version = version;
    return conn.send(wire::api_key::join_group, version, req,
                     wire::encode_join_group_request);
  }

  wire::join_group_response receive_join(int32_t correlation) {
    auto res = conn.receive<wire::join_group_response>(
      wire::api_key::join_group, correlation, join_version,
      wire::decode_join_group_response);
    if (res.error == error_code::none) {
      id = res.member_id;
      generation = res.generation_id;
    }
    return res;
  }

  wire::join_group_response join(const wire::join_group_request& req,
                                 int16_t version = 1) {
    return receive_join(send_join(req, version));
  }

  wire::sync_group_response
  sync(const std::string& group,
       std::vector<wire::sync_group_assignment> assignments = {}) {
    return conn.call<wire::sync_group_response>(
      wire::api_key::sync_group, 0,
      wire::sync_group_request{group, generation, id, std::move(assignments)},
      wire::encode_sync_group_request, wire::decode_sync_group_response);
  }

  error_code heartbeat(const std::string& group) {
    return conn
      .call<wire::heartbeat_response>(
        wire::api_key::heartbeat, 0,
        wire::heartbeat_request{group, generation, id},
        wire::encode_heartbeat_request, wire::decode_heartbeat_response)
      .error;
  }

  error_code commit(const std::string& group, int32_t generation_id) {
    wire::offset_commit_request req;
    req.group_id = group;
    req.generation_id = generation_id;
    req.member_id = id;
    req.topics.push_back({"wire-topic", {{0, 42, std::string{}}}});
    auto res = conn.call<wire::offset_commit_response>(
      wire::api_key::offset_commit, 2, req, wire::encode_offset_commit_request,
      wire::decode_offset_commit_response);
    REQUIRE(res.topics.size() == 1);
    REQUIRE(res.topics[0].partitions.size() == 1);
    return res.topics[0].partitions[0].error;
  }

  error_code leave(const std::string& group) {
    return conn
      .call<wire::leave_group_response>(
        wire::api_key::leave_group, 0, wire::leave_group_request{group, id},
        wire::encode_leave_group_request, wire::decode_leave_group_response)
      .error;
  }

  connection conn;
  std::string id;
  int32_t generation = -1;
  int16_t join_version = 1;
};

/// Members of `group` as DescribeGroups lists them.
size_t described_members(int port, const std::string& group) {
  connection c{port};
  REQUIRE(c.ok());
  auto res = c.call<wire::describe_groups_response>(
    wire::api_key::describe_groups, 0, wire::describe_groups_request{{group}},
    wire::encode_describe_groups_request,
    wire::decode_describe_groups_response);
  REQUIRE(res.groups.size() == 1);
  return res.groups[0].members.size();
}

/// Polls DescribeGroups until `group` lists `n` members (joins are parked, so
/// the test cannot otherwise know the coordinator has them).
void await_members(int port, const std::string& group, size_t n) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (described_members(port, group) == n)
      return;
    std::this_thread::sleep_for(50ms);
  }
  FAIL("group " << group << " never had " << n << " members");
}

/// True when the server still serves a fresh connection.
bool still_serving() {
  connection c{the_server().port()};
  if (!c.ok())
    return false;
  auto res = c.call<wire::api_versions_response>(
    wire::api_key::api_versions, 2, wire::api_versions_request{},
    wire::encode_api_versions_request, wire::decode_api_versions_response);
  return res.error == error_code::none && !res.api_keys.empty()
         && the_server().alive();
}

/// A request frame with a hand-written body after a valid header.
wire::bytes raw_request(int16_t key, int16_t version, const wire::bytes& body) {
  wire::bytes buf;
  wire::writer w{buf};
  auto mark = w.begin_frame();
  wire::encode_request_header(w, {key, version, 7, std::string{"wire-test"}});
  for (auto b : body)
    w.i8(static_cast<int8_t>(b));
  w.end_frame(mark);
  return buf;
}

/// Either the server closes the connection, or it answers correlation 7
/// with a non-zero error in the first int16 after the header (true of every
/// response layout this is used with).
void expect_closed_or_error(connection& c, int16_t key, int16_t version) {
  wire::bytes buf;
  auto r = c.read_frame(buf, 20s);
  REQUIRE(r != read_result::timeout);
  if (r == read_result::frame) {
    wire::reader in{buf};
    auto header = wire::decode_response_header(in, key, version);
    REQUIRE(header);
    int16_t error = 0;
    REQUIRE(in.i16(error));
    CHECK(error != 0);
  }
}

} // namespace

// -- the group protocol ---------------------------------------------------------

TEST_CASE("FindCoordinator names a broker of the node, JoinGroup v0 and v1 "
          "and SyncGroup deliver the leader's assignment") {
  const std::string group = "wire-basic";
  auto port = coordinator_port(group);
  member a{port};
  auto ja = a.join(join_request(group, "", {"range"}), 0);
  REQUIRE(ja.error == error_code::none);
  CHECK(ja.generation_id == 1);
  CHECK(ja.leader == ja.member_id);
  CHECK(ja.protocol_name == "range");
  REQUIRE(ja.members.size() == 1);
  REQUIRE(a.sync(group, {{a.id, wire::bytes{0xA}}}).error == error_code::none);
  CHECK(a.heartbeat(group) == error_code::none);

  // A second member (JoinGroup v1) triggers a rebalance; the first rejoins.
  member b{port};
  auto cb = b.send_join(join_request(group, "", {"range"}), 1);
  await_members(port, group, 2);
  auto ja2 = a.join(join_request(group, a.id, {"range"}), 0);
  auto jb = b.receive_join(cb);
  REQUIRE(ja2.error == error_code::none);
  REQUIRE(jb.error == error_code::none);
  CHECK(ja2.generation_id == 2);
  CHECK(jb.generation_id == 2);
  CHECK(jb.leader == a.id);
  CHECK(ja2.members.size() == 2);
  CHECK(jb.members.empty());

  // SyncGroup: the follower's request waits for the leader's assignments.
  auto cs = b.conn.send(wire::api_key::sync_group, 0,
                        wire::sync_group_request{group, b.generation, b.id, {}},
                        wire::encode_sync_group_request);
  auto sa =
    a.sync(group, {{a.id, wire::bytes{1, 1}}, {b.id, wire::bytes{2, 2, 2}}});
  auto sb = b.conn.receive<wire::sync_group_response>(
    wire::api_key::sync_group, cs, 0, wire::decode_sync_group_response);
  CHECK(sa.error == error_code::none);
  CHECK(sa.assignment == wire::bytes{1, 1});
  CHECK(sb.error == error_code::none);
  CHECK(sb.assignment == wire::bytes{2, 2, 2});
  CHECK(b.heartbeat(group) == error_code::none);
  CHECK(b.leave(group) == error_code::none);
  CHECK(a.leave(group) == error_code::none);
}

TEST_CASE("heartbeat answers REBALANCE_IN_PROGRESS during a rebalance") {
  const std::string group = "wire-heartbeat";
  auto port = coordinator_port(group);
  member a{port};
  REQUIRE(a.join(join_request(group, "", {"range"})).error == error_code::none);
  REQUIRE(a.sync(group, {{a.id, {}}}).error == error_code::none);
  REQUIRE(a.heartbeat(group) == error_code::none);

  member b{port};
  auto cb = b.send_join(join_request(group, "", {"range"}));
  await_members(port, group, 2);
  CHECK(a.heartbeat(group) == error_code::rebalance_in_progress);

  // Rejoining completes the rebalance; heartbeats are fine again after sync.
  REQUIRE(a.join(join_request(group, a.id, {"range"})).error
          == error_code::none);
  REQUIRE(b.receive_join(cb).error == error_code::none);
  auto cs = b.conn.send(wire::api_key::sync_group, 0,
                        wire::sync_group_request{group, b.generation, b.id, {}},
                        wire::encode_sync_group_request);
  REQUIRE(a.sync(group, {{a.id, {}}, {b.id, {}}}).error == error_code::none);
  REQUIRE(
    b.conn
      .receive<wire::sync_group_response>(wire::api_key::sync_group, cs, 0,
                                          wire::decode_sync_group_response)
      .error
    == error_code::none);
  CHECK(a.heartbeat(group) == error_code::none);
  CHECK(b.heartbeat(group) == error_code::none);
}

TEST_CASE("stale generation commit is fenced with ILLEGAL_GENERATION") {
  const std::string group = "wire-stale-commit";
  auto port = coordinator_port(group);
  member a{port};
  REQUIRE(a.join(join_request(group, "", {"range"})).error == error_code::none);
  REQUIRE(a.sync(group, {{a.id, {}}}).error == error_code::none);
  auto first_generation = a.generation;
  CHECK(a.commit(group, first_generation) == error_code::none);

  member b{port};
  auto cb = b.send_join(join_request(group, "", {"range"}));
  await_members(port, group, 2);
  REQUIRE(a.join(join_request(group, a.id, {"range"})).error
          == error_code::none);
  REQUIRE(b.receive_join(cb).error == error_code::none);
  REQUIRE(a.generation == first_generation + 1);
  auto cs = b.conn.send(wire::api_key::sync_group, 0,
                        wire::sync_group_request{group, b.generation, b.id, {}},
                        wire::encode_sync_group_request);
  REQUIRE(a.sync(group, {{a.id, {}}, {b.id, {}}}).error == error_code::none);
  REQUIRE(
    b.conn
      .receive<wire::sync_group_response>(wire::api_key::sync_group, cs, 0,
                                          wire::decode_sync_group_response)
      .error
    == error_code::none);

  CHECK(a.commit(group, first_generation) == error_code::illegal_generation);
  CHECK(b.commit(group, first_generation) == error_code::illegal_generation);
  CHECK(a.commit(group, a.generation) == error_code::none);
}

TEST_CASE("a session timeout below group.min.session.timeout.ms is refused "
          "with INVALID_SESSION_TIMEOUT") {
  const std::string group = "wire-session-timeout";
  auto port = coordinator_port(group);
  member a{port};
  // The default group.min.session.timeout.ms is 6000.
  auto res = a.join(join_request(group, "", {"range"}, 1000), 1);
  CHECK(res.error == error_code::invalid_session_timeout);
  auto res0 = a.join(join_request(group, "", {"range"}, 5999), 0);
  CHECK(res0.error == error_code::invalid_session_timeout);
  CHECK(a.join(join_request(group, "", {"range"}, 6000)).error
        == error_code::none);
}

TEST_CASE("a member with no protocol in common with the group gets "
          "INCONSISTENT_GROUP_PROTOCOL") {
  const std::string group = "wire-inconsistent";
  auto port = coordinator_port(group);
  member a{port};
  REQUIRE(a.join(join_request(group, "", {"range", "roundrobin"})).error
          == error_code::none);
  REQUIRE(a.sync(group, {{a.id, {}}}).error == error_code::none);
  member b{port};
  CHECK(b.join(join_request(group, "", {"cooperative-sticky"})).error
        == error_code::inconsistent_group_protocol);
  member c{port};
  CHECK(c.join(join_request(group, "", {"range"}, 30000, "connect")).error
        == error_code::inconsistent_group_protocol);
  CHECK(a.heartbeat(group) == error_code::none);
}

TEST_CASE("the group protocol is chosen by vote among the protocols every "
          "member supports") {
  const std::string group = "wire-vote";
  auto port = coordinator_port(group);
  // Alone, the leader's first choice wins.
  member a{port};
  auto ja = a.join(join_request(group, "", {"range", "roundrobin"}));
  REQUIRE(ja.error == error_code::none);
  CHECK(ja.protocol_name == "range");
  REQUIRE(a.sync(group, {{a.id, {}}}).error == error_code::none);

  // Two of three prefer roundrobin: it wins over the leader's range.
  member b{port};
  member c{port};
  auto cb = b.send_join(join_request(group, "", {"roundrobin", "range"}));
  auto cc = c.send_join(join_request(group, "", {"roundrobin", "range"}));
  await_members(port, group, 3);
  auto ja2 = a.join(join_request(group, a.id, {"range", "roundrobin"}));
  auto jb = b.receive_join(cb);
  auto jc = c.receive_join(cc);
  REQUIRE(ja2.error == error_code::none);
  REQUIRE(jb.error == error_code::none);
  REQUIRE(jc.error == error_code::none);
  CHECK(ja2.leader == a.id);
  CHECK(ja2.members.size() == 3);
  CHECK(ja2.protocol_name == "roundrobin");
  CHECK(jb.protocol_name == "roundrobin");
  CHECK(jc.protocol_name == "roundrobin");
  CHECK(ja2.generation_id == jb.generation_id);
  CHECK(jb.generation_id == jc.generation_id);
}

// -- bad input ------------------------------------------------------------------

TEST_CASE("a truncated frame gets no answer and the server keeps serving") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  auto frame = raw_request(18, 0, {});
  frame[3] = static_cast<uint8_t>(frame[3] + 50); // announces 50 more bytes
  REQUIRE(c.send_raw(frame));
  wire::bytes buf;
  CHECK(c.read_frame(buf, 1s) == read_result::timeout);
  c.shutdown_write();
  CHECK(c.closed_by_peer());
  CHECK(still_serving());
}

TEST_CASE("a frame over socket.request.max.bytes closes the connection") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  // The default socket.request.max.bytes is 104857600; only the size prefix
  // is sent, the server must refuse it without waiting for the body.
  wire::bytes prefix;
  wire::writer w{prefix};
  w.i32(104857601);
  REQUIRE(c.send_raw(prefix));
  CHECK(c.closed_by_peer());
  connection d{the_server().port()};
  wire::bytes negative;
  wire::writer wn{negative};
  wn.i32(-5);
  REQUIRE(d.send_raw(negative));
  CHECK(d.closed_by_peer());
  CHECK(still_serving());
}

TEST_CASE("an unknown api key closes the connection") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  REQUIRE(c.send_raw(raw_request(99, 0, {0, 0, 0, 0})));
  CHECK(c.closed_by_peer());
  CHECK(still_serving());
}

TEST_CASE("an unsupported version is refused") {
  {
    // Heartbeat v9 is flexible and unknown to troupe.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    REQUIRE(c.send_raw(raw_request(12, 9, {0, 1, 'g', 0, 0, 0, 1, 0, 1, 'm'})));
    expect_closed_or_error(c, 12, 9);
  }
  {
    // ApiVersions v5 (newer than Kafka 4.0's) is answered in the v0 layout
    // with UNSUPPORTED_VERSION.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    REQUIRE(c.send_raw(raw_request(18, 5, {})));
    wire::bytes buf;
    REQUIRE(c.read_frame(buf) == read_result::frame);
    wire::reader in{buf};
    auto header = wire::decode_response_header(in, 18, 5);
    REQUIRE(header);
    CHECK(header->correlation_id == 7);
    auto res = wire::decode_api_versions_response(in, 0);
    REQUIRE(res);
    CHECK(res->error == error_code::unsupported_version);
  }
  CHECK(still_serving());
}

TEST_CASE("a negative array length closes the connection or is an error") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  // JoinGroup v1: group "g", session 30000, rebalance 30000, member "",
  // protocol type "consumer", protocols count -5.
  wire::bytes body;
  wire::writer w{body};
  w.string("g");
  w.i32(30000);
  w.i32(30000);
  w.string("");
  w.string("consumer");
  w.i32(-5);
  REQUIRE(c.send_raw(raw_request(11, 1, body)));
  expect_closed_or_error(c, 11, 1);
  CHECK(still_serving());
}

TEST_CASE("a string length past the end of the frame closes the connection "
          "or is an error") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  // Heartbeat v0 whose group id claims 1000 bytes.
  wire::bytes body;
  wire::writer w{body};
  w.i16(1000);
  w.i32(0);
  REQUIRE(c.send_raw(raw_request(12, 0, body)));
  expect_closed_or_error(c, 12, 0);
  // A Metadata v1 whose topic array claims more topics than bytes follow.
  connection d{the_server().port()};
  wire::bytes md;
  wire::writer wm{md};
  wm.i32(1 << 20);
  wm.i16(1);
  REQUIRE(d.send_raw(raw_request(3, 1, md)));
  expect_closed_or_error(d, 3, 1);
  CHECK(still_serving());
}

TEST_CASE("pipelined requests are answered in request order") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  std::vector<int32_t> sent;
  for (int i = 0; i < 5; ++i) {
    sent.push_back(c.send(wire::api_key::metadata, 1, wire::metadata_request{},
                          wire::encode_metadata_request));
    sent.push_back(c.send(wire::api_key::api_versions, 0,
                          wire::api_versions_request{},
                          wire::encode_api_versions_request));
  }
  for (auto correlation : sent) {
    wire::bytes buf;
    REQUIRE(c.read_frame(buf) == read_result::frame);
    wire::reader in{buf};
    // Both answers have response header v0 (Metadata v1, ApiVersions).
    auto header = wire::decode_response_header(in, 3, 1);
    REQUIRE(header);
    CHECK(header->correlation_id == correlation);
  }
  CHECK(still_serving());
}

// -- every version, flexible ones included ----------------------------------------

namespace {

/// A topic created with CreateTopics v7 (flexible); its id.
wire::uuid create_topic(connection& c, const std::string& name,
                        int32_t partitions = 3) {
  wire::create_topics_request req;
  req.topics.push_back({name, partitions, 3, {}, {}});
  req.timeout_ms = 30000;
  auto res = c.call<wire::create_topics_response>(
    wire::api_key::create_topics, 7, req, wire::encode_create_topics_request,
    wire::decode_create_topics_response);
  REQUIRE(res.topics.size() == 1);
  INFO(res.topics[0].error_message.value_or(""));
  REQUIRE(res.topics[0].error == error_code::none);
  CHECK(res.topics[0].num_partitions == partitions);
  CHECK(res.topics[0].replication_factor == 3);
  REQUIRE(res.topics[0].configs);
  CHECK_FALSE(res.topics[0].configs->empty());
  CHECK_FALSE(res.topics[0].topic_id.is_zero());
  return res.topics[0].topic_id;
}

/// Metadata v12 (flexible) for one topic by name, no auto-creation.
wire::metadata_response metadata_of(connection& c, const std::string& name) {
  wire::metadata_request req;
  req.topics = std::vector<wire::metadata_request_topic>{{{}, name}};
  req.allow_auto_topic_creation = false;
  return c.call<wire::metadata_response>(wire::api_key::metadata, 12, req,
                                         wire::encode_metadata_request,
                                         wire::decode_metadata_response);
}

/// Waits until every partition of `name` has a leader; its metadata then.
wire::metadata_topic await_leaders(connection& c, const std::string& name) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto md = metadata_of(c, name);
    REQUIRE(md.topics.size() == 1);
    auto& t = md.topics[0];
    bool led = t.error == error_code::none && !t.partitions.empty()
               && std::all_of(t.partitions.begin(), t.partitions.end(),
                              [](auto& p) { return p.leader_id >= 0; });
    if (led)
      return t;
    std::this_thread::sleep_for(100ms);
  }
  FAIL("no leaders for " << name);
  return {};
}

/// The leader's port of partition 0 of `t`.
int leader_port(const wire::metadata_topic& t) {
  for (auto& p : t.partitions)
    if (p.partition_index == 0)
      return the_server().port() + p.leader_id;
  FAIL("no partition 0");
  return -1;
}

/// Waits until the leader of partition 0 of `t` serves it: the metadata
/// names a leader as soon as the controller elects it, before that
/// broker's replica has taken the role (a client retries
/// NOT_LEADER_OR_FOLLOWER meanwhile).
void await_leader_serving(const wire::metadata_topic& t) {
  connection c{leader_port(t)};
  REQUIRE(c.ok());
  wire::list_offsets_request req;
  req.topics = {{*t.name, {{0, wire::latest_timestamp, -1}}}};
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto res = c.call<wire::list_offsets_response>(
      wire::api_key::list_offsets, 7, req, wire::encode_list_offsets_request,
      wire::decode_list_offsets_response);
    REQUIRE(res.topics.size() == 1);
    if (res.topics[0].partitions.at(0).error == error_code::none)
      return;
    std::this_thread::sleep_for(100ms);
  }
  FAIL("the leader of " << *t.name << "-0 never served it");
}

} // namespace

TEST_CASE("ApiVersions v3 lists every version from Kafka 4.0's baseline to "
          "its newest, flexible ones included") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  wire::api_versions_request req{"troupe-wire-test", "1.0"};
  auto res = c.call<wire::api_versions_response>(
    wire::api_key::api_versions, 3, req, wire::encode_api_versions_request,
    wire::decode_api_versions_response);
  REQUIRE(res.error == error_code::none);
  auto max_of = [&](wire::api_key key) {
    for (auto& a : res.api_keys)
      if (a.api_key == static_cast<int16_t>(key))
        return a.max_version;
    return int16_t{-1};
  };
  CHECK(max_of(wire::api_key::produce) == 12);
  CHECK(max_of(wire::api_key::fetch) == 17);
  CHECK(max_of(wire::api_key::metadata) == 13);
  CHECK(max_of(wire::api_key::join_group) == 9);
  CHECK(max_of(wire::api_key::delete_topics) == 6);
  CHECK(max_of(wire::api_key::init_producer_id) == 5);
  CHECK(max_of(wire::api_key::describe_cluster) == 2);
  // A client software name outside KIP-511's pattern is INVALID_REQUEST.
  auto bad = c.call<wire::api_versions_response>(
    wire::api_key::api_versions, 3, wire::api_versions_request{"-bad", "1"},
    wire::encode_api_versions_request, wire::decode_api_versions_response);
  CHECK(bad.error == error_code::invalid_request);
}

TEST_CASE("DeleteTopics removes a topic by id and by name, unknown ones get "
          "UNKNOWN_TOPIC_ID and UNKNOWN_TOPIC_OR_PARTITION") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  auto id = create_topic(c, "wire-delete-by-id");
  create_topic(c, "wire-delete-by-name");
  // Metadata v12 finds the topic by its id.
  wire::metadata_request by_id;
  by_id.topics = std::vector<wire::metadata_request_topic>{{id, std::nullopt}};
  auto md = c.call<wire::metadata_response>(wire::api_key::metadata, 12, by_id,
                                            wire::encode_metadata_request,
                                            wire::decode_metadata_response);
  REQUIRE(md.topics.size() == 1);
  CHECK(md.topics[0].name == "wire-delete-by-id");
  CHECK(md.cluster_id);
  wire::delete_topics_request del;
  del.topics = {{std::nullopt, id},
                {std::string{"wire-delete-by-name"}, {}},
                {std::nullopt, wire::uuid{7, 7}}};
  del.timeout_ms = 30000;
  auto res = c.call<wire::delete_topics_response>(
    wire::api_key::delete_topics, 6, del, wire::encode_delete_topics_request,
    wire::decode_delete_topics_response);
  REQUIRE(res.responses.size() == 3);
  CHECK(res.responses[0].error == error_code::none);
  CHECK(res.responses[0].name == "wire-delete-by-id");
  CHECK(res.responses[1].error == error_code::none);
  CHECK(res.responses[2].error == error_code::unknown_topic_id);
  CHECK_FALSE(res.responses[2].name);
  CHECK(metadata_of(c, "wire-delete-by-id").topics.at(0).error
        == error_code::unknown_topic_or_partition);
  auto gone = c.call<wire::metadata_response>(
    wire::api_key::metadata, 12, by_id, wire::encode_metadata_request,
    wire::decode_metadata_response);
  REQUIRE(gone.topics.size() == 1);
  CHECK(gone.topics[0].error == error_code::unknown_topic_id);
  // v5: by name only.
  wire::delete_topics_request old;
  old.topic_names = {"wire-never-created"};
  auto res5 = c.call<wire::delete_topics_response>(
    wire::api_key::delete_topics, 5, old, wire::encode_delete_topics_request,
    wire::decode_delete_topics_response);
  REQUIRE(res5.responses.size() == 1);
  CHECK(res5.responses[0].error == error_code::unknown_topic_or_partition);
}

TEST_CASE("DescribeConfigs answers a topic's and a broker's settings by "
          "Kafka's names with their source, unknown resources as Kafka does") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  create_topic(c, "wire-configs");
  wire::describe_configs_request req;
  req.resources = {
    {wire::config_resource_topic, "wire-configs", std::nullopt},
    {wire::config_resource_broker, "0",
     std::vector<std::string>{"broker.id", "num.partitions"}},
    {wire::config_resource_broker, "7", std::nullopt},
    {wire::config_resource_topic, "wire-no-such-topic", std::nullopt},
    {99, "x", std::nullopt}};
  req.include_synonyms = true;
  auto res = c.call<wire::describe_configs_response>(
    wire::api_key::describe_configs, 4, req,
    wire::encode_describe_configs_request,
    wire::decode_describe_configs_response);
  REQUIRE(res.results.size() == 5);
  auto entry = [](const wire::describe_configs_result& r,
                  const std::string& n) {
    for (auto& e : r.configs)
      if (e.name == n)
        return e;
    return wire::describe_configs_resource_result{"missing"};
  };
  auto value = [&](const wire::describe_configs_result& r,
                   const std::string& n) {
    return entry(r, n).value.value_or("null");
  };
  CHECK(res.results[0].error == error_code::none);
  CHECK(value(res.results[0], "retention.ms") == "604800000");
  CHECK(value(res.results[0], "cleanup.policy") == "delete");
  // No override: Kafka's DEFAULT_CONFIG (5); a topic config can be altered,
  // one troupe fixed cannot.
  auto segment = entry(res.results[0], "segment.bytes");
  CHECK(segment.config_source == 5);
  CHECK_FALSE(segment.read_only);
  // ConfigHelper.createTopicConfigEntry: the broker setting's default as
  // the one synonym (Kafka's "DEFAULT_CONFIG:log.segment.bytes=1073741824").
  REQUIRE(segment.synonyms.size() == 1);
  CHECK(segment.synonyms[0].name == "log.segment.bytes");
  CHECK(segment.synonyms[0].value == "1073741824");
  CHECK(segment.synonyms[0].source == 5);
  // retention.ms: log.retention.ms has no Kafka default, so no synonym.
  CHECK(entry(res.results[0], "retention.ms").synonyms.empty());
  CHECK(entry(res.results[0], "compression.type").read_only);
  CHECK(entry(res.results[1], "broker.id").read_only);
  CHECK(res.results[1].error == error_code::none);
  CHECK(res.results[1].configs.size() == 2);
  CHECK(value(res.results[1], "broker.id") == "0");
  CHECK(value(res.results[1], "num.partitions") == "3");
  CHECK(res.results[2].error == error_code::invalid_request);
  CHECK(res.results[3].error == error_code::unknown_topic_or_partition);
  CHECK(res.results[4].error == error_code::invalid_request);
}

TEST_CASE("AlterConfigs and IncrementalAlterConfigs refuse as Kafka's "
          "broker does: a resource twice, a config twice, null values, an "
          "unknown operation, broker configs, an unknown topic") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  create_topic(c, "wire-alter");
  using op = wire::incremental_alterable_config;
  wire::incremental_alter_configs_request req;
  req.resources = {
    // 0: given twice (with 1)
    {wire::config_resource_topic, "wire-twice", {}},
    {wire::config_resource_topic, "wire-twice", {}},
    // 2: one config twice
    {wire::config_resource_topic,
     "wire-alter-keys",
     {op{"retention.ms", wire::config_operation_set, std::string{"1"}},
      op{"retention.ms", wire::config_operation_delete, std::nullopt}}},
    // 3: a null value for SET
    {wire::config_resource_topic,
     "wire-alter-null",
     {op{"retention.ms", wire::config_operation_set, std::nullopt}}},
    // 4: operation 9
    {wire::config_resource_topic,
     "wire-other",
     {op{"retention.ms", 9, std::string{"1"}}}},
    // 5: this broker's config
    {wire::config_resource_broker,
     "0",
     {op{"log.retention.ms", wire::config_operation_set, std::string{"1"}}}},
    // 6: another broker
    {wire::config_resource_broker, "7", {}},
    // 7: an unknown topic
    {wire::config_resource_topic,
     "wire-no-such-topic",
     {op{"retention.ms", wire::config_operation_set, std::string{"1"}}}},
    // 8: the topic's default resource
    {wire::config_resource_topic, "", {}},
    // 9: nothing to change in the cluster-wide broker defaults
    {wire::config_resource_broker, "", {}}};
  auto res = c.call<wire::incremental_alter_configs_response>(
    wire::api_key::incremental_alter_configs, 1, req,
    wire::encode_incremental_alter_configs_request,
    wire::decode_incremental_alter_configs_response);
  REQUIRE(res.responses.size() == 10);
  auto& r = res.responses;
  auto message = [&](size_t i) { return r[i].error_message.value_or(""); };
  CHECK(r[0].error == error_code::invalid_request);
  CHECK(message(0) == "Each resource must appear at most once.");
  CHECK(r[1].error == error_code::invalid_request);
  CHECK(r[2].error == error_code::invalid_request);
  CHECK(message(2) == "Error due to duplicate config keys");
  CHECK(r[3].error == error_code::invalid_request);
  CHECK(message(3) == "Null value not supported for : retention.ms");
  CHECK(r[4].error == error_code::invalid_request);
  CHECK(message(4) == "Unknown operations type 9");
  CHECK(r[5].error == error_code::invalid_request);
  CHECK(message(5).rfind(
          "Cannot update these configs dynamically: Set(log.retention.ms)", 0)
        == 0);
  CHECK(r[6].error == error_code::invalid_request);
  CHECK(message(6) == "Unexpected broker id, expected 0, but received 7");
  CHECK(r[7].error == error_code::unknown_topic_or_partition);
  CHECK(r[8].error == error_code::invalid_request);
  CHECK(message(8) == "Default topic resources are not allowed.");
  CHECK(r[9].error == error_code::none);
  CHECK(r[5].resource_type == wire::config_resource_broker);
  CHECK(r[7].resource_name == "wire-no-such-topic");
  // CreateTopics v5+ lists the created topic's configs with their source
  // (KIP-525): the given one as TOPIC_CONFIG, the others as the broker's.
  wire::create_topics_request create;
  create.topics.push_back(
    {"wire-alter-created", 1, 3, {}, {{"retention.ms", std::string{"9000"}}}});
  auto created = c.call<wire::create_topics_response>(
    wire::api_key::create_topics, 7, create, wire::encode_create_topics_request,
    wire::decode_create_topics_response);
  REQUIRE(created.topics.size() == 1);
  REQUIRE(created.topics[0].error == error_code::none);
  REQUIRE(created.topics[0].configs);
  int8_t retention_source = -1;
  int8_t segment_source = -1;
  for (auto& e : *created.topics[0].configs) {
    if (e.name == "retention.ms") {
      CHECK(e.value == "9000");
      retention_source = e.config_source;
    } else if (e.name == "segment.bytes") {
      segment_source = e.config_source;
    }
  }
  CHECK(retention_source == 1); // TOPIC_CONFIG
  CHECK(segment_source == 5);   // DEFAULT_CONFIG
  // AlterConfigs v0 (the legacy API) takes the same path: a null value is
  // refused, and a valid set answers NONE.
  wire::alter_configs_request legacy;
  legacy.resources = {
    {wire::config_resource_topic, "wire-alter", {{"retention.ms", {}}}},
    {wire::config_resource_topic,
     "wire-alter-2",
     {{"retention.ms", std::string{"5000"}}}},
    {wire::config_resource_broker_logger, "0", {}}};
  create_topic(c, "wire-alter-2");
  auto old = c.call<wire::alter_configs_response>(
    wire::api_key::alter_configs, 0, legacy, wire::encode_alter_configs_request,
    wire::decode_alter_configs_response);
  REQUIRE(old.responses.size() == 3);
  CHECK(old.responses[0].error == error_code::invalid_request);
  CHECK(old.responses[1].error == error_code::none);
  CHECK(old.responses[2].error == error_code::invalid_request);
  CHECK(old.responses[2].error_message == "Unknown resource type 8");
  wire::describe_configs_request describe;
  describe.resources = {{wire::config_resource_topic, "wire-alter-2",
                         std::vector<std::string>{"retention.ms"}}};
  auto described = c.call<wire::describe_configs_response>(
    wire::api_key::describe_configs, 4, describe,
    wire::encode_describe_configs_request,
    wire::decode_describe_configs_response);
  REQUIRE(described.results.size() == 1);
  REQUIRE(described.results[0].configs.size() == 1);
  CHECK(described.results[0].configs[0].value == "5000");
  CHECK(described.results[0].configs[0].config_source == 1); // TOPIC_CONFIG
}

TEST_CASE("DescribeCluster lists the brokers, the controller and the "
          "cluster id, a controller endpoint is MISMATCHED_ENDPOINT_TYPE") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  wire::describe_cluster_request req;
  req.include_cluster_authorized_operations = true;
  auto res = c.call<wire::describe_cluster_response>(
    wire::api_key::describe_cluster, 1, req,
    wire::encode_describe_cluster_request,
    wire::decode_describe_cluster_response);
  CHECK(res.error == error_code::none);
  CHECK(res.brokers.size() == 3);
  CHECK(res.controller_id >= 0);
  CHECK(res.cluster_id.size() == 22);
  CHECK(res.cluster_authorized_operations > 0);
  // The same cluster id as Metadata's.
  auto md = metadata_of(c, "__consumer_offsets");
  CHECK(md.cluster_id == res.cluster_id);
  req.endpoint_type = wire::endpoint_type_controllers;
  auto wrong = c.call<wire::describe_cluster_response>(
    wire::api_key::describe_cluster, 1, req,
    wire::encode_describe_cluster_request,
    wire::decode_describe_cluster_response);
  CHECK(wrong.error == error_code::mismatched_endpoint_type);
}

TEST_CASE("InitProducerId hands out producer ids, a retried idempotent "
          "batch is stored once, transactional ids are refused") {
  connection c{the_server().port()};
  REQUIRE(c.ok());
  auto id = create_topic(c, "wire-idempotent", 1);
  auto leader = await_leaders(c, "wire-idempotent");
  await_leader_serving(leader);
  wire::init_producer_id_request init;
  auto pid = c.call<wire::init_producer_id_response>(
    wire::api_key::init_producer_id, 4, init,
    wire::encode_init_producer_id_request,
    wire::decode_init_producer_id_response);
  REQUIRE(pid.error == error_code::none);
  CHECK(pid.producer_id >= 0);
  CHECK(pid.producer_epoch == 0);
  init.transactional_id = "tx";
  init.transaction_timeout_ms = 60000;
  auto tx = c.call<wire::init_producer_id_response>(
    wire::api_key::init_producer_id, 5, init,
    wire::encode_init_producer_id_request,
    wire::decode_init_producer_id_response);
  CHECK(tx.error == error_code::transactional_id_authorization_failed);
  // Produce v9 (flexible) the same batch twice: one copy, one offset.
  connection p{leader_port(leader)};
  REQUIRE(p.ok());
  troupe::record r{std::nullopt, wire::bytes{'x'}, 1000, {}};
  auto batch =
    troupe::encode_batch(0, 0, {r, r}, pid.producer_id, pid.producer_epoch, 0);
  wire::produce_request produce;
  produce.acks = -1;
  produce.timeout_ms = 30000;
  produce.topics = {{"wire-idempotent", {{0, batch}}}};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto res = p.call<wire::produce_response>(
      wire::api_key::produce, 9, produce, wire::encode_produce_request,
      wire::decode_produce_response);
    REQUIRE(res.responses.size() == 1);
    auto& part = res.responses[0].partitions.at(0);
    CHECK(part.error == error_code::none);
    CHECK(part.base_offset == 0);
  }
  // A sequence gap is refused with Kafka's message (v8+).
  auto gap = troupe::encode_batch(0, 0, {r}, pid.producer_id, 0, 9);
  produce.topics = {{"wire-idempotent", {{0, gap}}}};
  auto refused = p.call<wire::produce_response>(
    wire::api_key::produce, 9, produce, wire::encode_produce_request,
    wire::decode_produce_response);
  auto& rp = refused.responses.at(0).partitions.at(0);
  CHECK(rp.error == error_code::out_of_order_sequence_number);
  CHECK(rp.error_message);
  // Fetch v17 (by topic id) reads the two records once.
  wire::fetch_request fetch;
  fetch.max_wait_ms = 100;
  fetch.min_bytes = 1;
  fetch.topics = {{"", {{0, 0, 1 << 20}}, id}};
  auto f = p.call<wire::fetch_response>(wire::api_key::fetch, 17, fetch,
                                        wire::encode_fetch_request,
                                        wire::decode_fetch_response);
  REQUIRE(f.responses.size() == 1);
  CHECK(f.responses[0].topic_id == id);
  auto& fp = f.responses[0].partitions.at(0);
  CHECK(fp.error == error_code::none);
  CHECK(fp.high_watermark == 2);
  auto records = troupe::decode_records(fp.records.data(), fp.records.size());
  REQUIRE(records);
  CHECK(records->size() == 2);
  // An unknown topic id: UNKNOWN_TOPIC_ID.
  fetch.topics = {{"", {{0, 0, 1 << 20}}, wire::uuid{5, 5}}};
  auto unknown = p.call<wire::fetch_response>(wire::api_key::fetch, 17, fetch,
                                              wire::encode_fetch_request,
                                              wire::decode_fetch_response);
  CHECK(unknown.responses.at(0).partitions.at(0).error
        == error_code::unknown_topic_id);
  // An incremental fetch names a session troupe does not have.
  fetch.session_id = 42;
  fetch.session_epoch = 1;
  auto session = p.call<wire::fetch_response>(wire::api_key::fetch, 17, fetch,
                                              wire::encode_fetch_request,
                                              wire::decode_fetch_response);
  CHECK(session.error == error_code::fetch_session_id_not_found);
}

TEST_CASE("a flexible JoinGroup v9 needs a member id first (KIP-394), then "
          "SyncGroup v5 names the protocol type and name") {
  const std::string group = "wire-flexible";
  auto port = coordinator_port(group);
  member a{port};
  auto req = join_request(group, "", {"range"});
  req.reason = "wire test";
  auto first = a.join(req, 9);
  REQUIRE(first.error == error_code::member_id_required);
  REQUIRE_FALSE(first.member_id.empty());
  req.member_id = first.member_id;
  auto joined = a.join(req, 9);
  REQUIRE(joined.error == error_code::none);
  CHECK(joined.member_id == first.member_id);
  CHECK(joined.leader == joined.member_id);
  CHECK(joined.protocol_name == "range");
  CHECK(joined.protocol_type == "consumer");
  REQUIRE(joined.members.size() == 1);
  wire::sync_group_request sync{
    group, a.generation, a.id, {{a.id, wire::bytes{4, 2}}}};
  sync.protocol_type = "consumer";
  sync.protocol_name = "range";
  auto synced = a.conn.call<wire::sync_group_response>(
    wire::api_key::sync_group, 5, sync, wire::encode_sync_group_request,
    wire::decode_sync_group_response);
  CHECK(synced.error == error_code::none);
  CHECK(synced.assignment == wire::bytes{4, 2});
  CHECK(synced.protocol_name == "range");
  CHECK(synced.protocol_type == "consumer");
  auto beat = a.conn.call<wire::heartbeat_response>(
    wire::api_key::heartbeat, 4,
    wire::heartbeat_request{group, a.generation, a.id},
    wire::encode_heartbeat_request, wire::decode_heartbeat_response);
  CHECK(beat.error == error_code::none);
  // LeaveGroup v5: a batch of one member, with a reason.
  wire::leave_group_request leave;
  leave.group_id = group;
  leave.members = {{a.id, std::nullopt, std::string{"done"}}};
  auto left = a.conn.call<wire::leave_group_response>(
    wire::api_key::leave_group, 5, leave, wire::encode_leave_group_request,
    wire::decode_leave_group_response);
  CHECK(left.error == error_code::none);
  REQUIRE(left.members.size() == 1);
  CHECK(left.members[0].error == error_code::none);
}

TEST_CASE("OffsetFetch v8 answers several groups at once (KIP-709)") {
  const std::string g1 = "wire-batched-1";
  const std::string g2 = "wire-batched-2";
  auto commit = [](const std::string& group, int64_t offset) {
    connection c{coordinator_port(group)};
    REQUIRE(c.ok());
    wire::offset_commit_request req;
    req.group_id = group;
    req.generation_id = -1;
    req.topics.push_back({"wire-topic", {{0, offset, std::string{"m"}}}});
    auto res = c.call<wire::offset_commit_response>(
      wire::api_key::offset_commit, 9, req, wire::encode_offset_commit_request,
      wire::decode_offset_commit_response);
    REQUIRE(res.topics.at(0).partitions.at(0).error == error_code::none);
  };
  commit(g1, 11);
  commit(g2, 22);
  // Both groups on one connection to g1's coordinator: a group it does
  // not coordinate is answered NOT_COORDINATOR, so pick the same one.
  auto port = coordinator_port(g1);
  connection c{port};
  REQUIRE(c.ok());
  wire::offset_fetch_request req;
  for (auto& g : {g1, g2}) {
    wire::offset_fetch_group group;
    group.group_id = g;
    group.topics = std::vector<wire::offset_fetch_topic>{{"wire-topic", {0}}};
    req.groups.push_back(group);
  }
  auto res = c.call<wire::offset_fetch_response>(
    wire::api_key::offset_fetch, 8, req, wire::encode_offset_fetch_request,
    wire::decode_offset_fetch_response);
  REQUIRE(res.groups.size() == 2);
  CHECK(res.groups[0].group_id == g1);
  CHECK(res.groups[0].error == error_code::none);
  REQUIRE(res.groups[0].topics.size() == 1);
  CHECK(res.groups[0].topics[0].partitions.at(0).committed_offset == 11);
  CHECK(res.groups[1].group_id == g2);
  if (coordinator_port(g2) == port) {
    CHECK(res.groups[1].topics.at(0).partitions.at(0).committed_offset == 22);
  } else {
    CHECK(res.groups[1].error == error_code::not_coordinator);
  }
}

TEST_CASE("malformed flexible requests close the connection and the server "
          "keeps serving") {
  {
    // JoinGroup v9: a compact group id that claims 1000 bytes.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    wire::bytes body;
    wire::writer w{body};
    w.unsigned_varint(1001);
    w.string("g");
    REQUIRE(c.send_raw(raw_request(11, 9, body)));
    expect_closed_or_error(c, 11, 9);
  }
  {
    // Metadata v12: a tagged-field section whose one field runs past the
    // end of the frame.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    wire::bytes body;
    wire::writer w{body};
    w.compact_array_size(0); // topics: none
    w.boolean(false);        // allow_auto_topic_creation
    w.boolean(false);        // include_topic_authorized_operations
    w.unsigned_varint(1);    // one tagged field...
    w.unsigned_varint(5);    // ...tag 5...
    w.unsigned_varint(200);  // ...of 200 bytes that never come
    REQUIRE(c.send_raw(raw_request(3, 12, body)));
    expect_closed_or_error(c, 3, 12);
  }
  {
    // Fetch v17 cut off in its topics array.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    wire::bytes body;
    wire::writer w{body};
    w.i32(500);
    w.i32(1);
    w.i32(1 << 20);
    w.i8(0);
    w.i32(0);
    w.i32(-1);
    w.compact_array_size(3); // three topics, none follows
    REQUIRE(c.send_raw(raw_request(1, 17, body)));
    expect_closed_or_error(c, 1, 17);
  }
  CHECK(still_serving());
}
