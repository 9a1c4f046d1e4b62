// The group protocol and the listener's handling of bad input, checked at
// the socket level against a real `troupe --serve`: requests are encoded and
// responses decoded with troupe's own codec (domain/kafka/protocol.hpp), sent
// over plain POSIX sockets.
//
// The server is started once for the whole run from the executable named by
// TROUPE_BIN, on the port TROUPE_TEST_PORT (default 19392), and killed at
// exit.

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "domain/kafka/protocol.hpp"

namespace k = troupe::kafka;
using troupe::error_code;

namespace {

using namespace std::chrono_literals;

// -- the server ---------------------------------------------------------------

/// `troupe --serve` in a child process with a fresh log directory.
class server {
public:
  server() {
    const char* bin = std::getenv("TROUPE_BIN");
    if (!bin)
      FAIL("TROUPE_BIN names no troupe executable");
    const char* port = std::getenv("TROUPE_TEST_PORT");
    port_ = port ? std::atoi(port) : 19392;
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
    pid_ = fork();
    if (pid_ == 0) {
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
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    // TROUPE_TEST_KEEP=1 keeps the server's log directory for a post-mortem.
    if (!dir_.empty() && !std::getenv("TROUPE_TEST_KEEP"))
      std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  int port() const {
    return port_;
  }

  bool alive() const {
    return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0;
  }

  const std::string& dir() const {
    return dir_;
  }

private:
  pid_t pid_ = -1;
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

  bool send_raw(const k::bytes& buf) {
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
  int32_t send(k::api_key key, int16_t version, const Request& req,
               Encode encode) {
    auto correlation = next_correlation_++;
    k::bytes buf;
    k::writer w{buf};
    auto mark = w.begin_frame();
    k::encode_request_header(w, {static_cast<int16_t>(key), version,
                                 correlation, std::string{"wire-test"}});
    REQUIRE(encode(w, req, version));
    REQUIRE(w.end_frame(mark));
    REQUIRE(send_raw(buf));
    return correlation;
  }

  /// Reads one response frame (without its size prefix) into `out`.
  read_result read_frame(k::bytes& out,
                         std::chrono::milliseconds timeout = 40s) {
    k::bytes size_buf;
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
  Response receive(k::api_key key, int32_t correlation, int16_t version,
                   Decode decode) {
    k::bytes buf;
    REQUIRE(read_frame(buf) == read_result::frame);
    k::reader in{buf};
    auto header =
      k::decode_response_header(in, static_cast<int16_t>(key), version);
    REQUIRE(header);
    CHECK(header->correlation_id == correlation);
    std::optional<Response> res = decode(in, version);
    INFO(in.error());
    REQUIRE(res);
    return std::move(*res);
  }

  template <class Response, class Request, class Encode, class Decode>
  Response call(k::api_key key, int16_t version, const Request& req,
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
  read_result read_exact(size_t n, k::bytes& out,
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

/// Waits until the server answers ApiVersions on its first port.
bool wait_until_serving(int port, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    connection c{port};
    if (c.ok()) {
      c.send(k::api_key::api_versions, 0, k::api_versions_request{},
             k::encode_api_versions_request);
      k::bytes buf;
      if (c.read_frame(buf, 5s) == read_result::frame)
        return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

server& the_server() {
  static server s;
  static bool up = wait_until_serving(s.port(), 30s);
  if (!up)
    FAIL("troupe --serve did not answer on port " << s.port());
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
  k::offset_commit_request req;
  req.group_id = group;
  req.generation_id = -1;
  req.topics.push_back({"wire-probe", {{0, 0, std::string{}}}});
  auto res = c.call<k::offset_commit_response>(
    k::api_key::offset_commit, 2, req, k::encode_offset_commit_request,
    k::decode_offset_commit_response);
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
    auto res = c.call<k::find_coordinator_response>(
      k::api_key::find_coordinator, 0, k::find_coordinator_request{group},
      k::encode_find_coordinator_request, k::decode_find_coordinator_response);
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

k::join_group_request join_request(const std::string& group,
                                   const std::string& member_id,
                                   std::vector<std::string> protocols,
                                   int32_t session_ms = 30000,
                                   std::string protocol_type = "consumer") {
  k::join_group_request req;
  req.group_id = group;
  req.session_timeout_ms = session_ms;
  req.rebalance_timeout_ms = 30000;
  req.member_id = member_id;
  req.protocol_type = std::move(protocol_type);
  for (auto& p : protocols)
    req.protocols.push_back({p, k::bytes{1, 2, 3}});
  return req;
}

/// A group member on its own connection to the coordinator.
struct member {
  explicit member(int port) : conn(port) {
    REQUIRE(conn.ok());
  }

  int32_t send_join(const k::join_group_request& req, int16_t version = 1) {
    join_version = version;
    return conn.send(k::api_key::join_group, version, req,
                     k::encode_join_group_request);
  }

  k::join_group_response receive_join(int32_t correlation) {
    auto res = conn.receive<k::join_group_response>(
      k::api_key::join_group, correlation, join_version,
      k::decode_join_group_response);
    if (res.error == error_code::none) {
      id = res.member_id;
      generation = res.generation_id;
    }
    return res;
  }

  k::join_group_response join(const k::join_group_request& req,
                              int16_t version = 1) {
    return receive_join(send_join(req, version));
  }

  k::sync_group_response
  sync(const std::string& group,
       std::vector<k::sync_group_assignment> assignments = {}) {
    return conn.call<k::sync_group_response>(
      k::api_key::sync_group, 0,
      k::sync_group_request{group, generation, id, std::move(assignments)},
      k::encode_sync_group_request, k::decode_sync_group_response);
  }

  error_code heartbeat(const std::string& group) {
    return conn
      .call<k::heartbeat_response>(
        k::api_key::heartbeat, 0, k::heartbeat_request{group, generation, id},
        k::encode_heartbeat_request, k::decode_heartbeat_response)
      .error;
  }

  error_code commit(const std::string& group, int32_t generation_id) {
    k::offset_commit_request req;
    req.group_id = group;
    req.generation_id = generation_id;
    req.member_id = id;
    req.topics.push_back({"wire-topic", {{0, 42, std::string{}}}});
    auto res = conn.call<k::offset_commit_response>(
      k::api_key::offset_commit, 2, req, k::encode_offset_commit_request,
      k::decode_offset_commit_response);
    REQUIRE(res.topics.size() == 1);
    REQUIRE(res.topics[0].partitions.size() == 1);
    return res.topics[0].partitions[0].error;
  }

  error_code leave(const std::string& group) {
    return conn
      .call<k::leave_group_response>(
        k::api_key::leave_group, 0, k::leave_group_request{group, id},
        k::encode_leave_group_request, k::decode_leave_group_response)
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
  auto res = c.call<k::describe_groups_response>(
    k::api_key::describe_groups, 0, k::describe_groups_request{{group}},
    k::encode_describe_groups_request, k::decode_describe_groups_response);
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
  auto res = c.call<k::api_versions_response>(
    k::api_key::api_versions, 2, k::api_versions_request{},
    k::encode_api_versions_request, k::decode_api_versions_response);
  return res.error == error_code::none && !res.api_keys.empty()
         && the_server().alive();
}

/// A request frame with a hand-written body after a valid header.
k::bytes raw_request(int16_t key, int16_t version, const k::bytes& body) {
  k::bytes buf;
  k::writer w{buf};
  auto mark = w.begin_frame();
  k::encode_request_header(w, {key, version, 7, std::string{"wire-test"}});
  for (auto b : body)
    w.i8(static_cast<int8_t>(b));
  w.end_frame(mark);
  return buf;
}

/// Either the server closes the connection, or it answers correlation 7
/// with a non-zero error in the first int16 after the header (true of every
/// response layout this is used with).
void expect_closed_or_error(connection& c, int16_t key, int16_t version) {
  k::bytes buf;
  auto r = c.read_frame(buf, 20s);
  REQUIRE(r != read_result::timeout);
  if (r == read_result::frame) {
    k::reader in{buf};
    auto header = k::decode_response_header(in, key, version);
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
  REQUIRE(a.sync(group, {{a.id, k::bytes{0xA}}}).error == error_code::none);
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
  auto cs = b.conn.send(k::api_key::sync_group, 0,
                        k::sync_group_request{group, b.generation, b.id, {}},
                        k::encode_sync_group_request);
  auto sa = a.sync(group, {{a.id, k::bytes{1, 1}}, {b.id, k::bytes{2, 2, 2}}});
  auto sb = b.conn.receive<k::sync_group_response>(
    k::api_key::sync_group, cs, 0, k::decode_sync_group_response);
  CHECK(sa.error == error_code::none);
  CHECK(sa.assignment == k::bytes{1, 1});
  CHECK(sb.error == error_code::none);
  CHECK(sb.assignment == k::bytes{2, 2, 2});
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
  auto cs = b.conn.send(k::api_key::sync_group, 0,
                        k::sync_group_request{group, b.generation, b.id, {}},
                        k::encode_sync_group_request);
  REQUIRE(a.sync(group, {{a.id, {}}, {b.id, {}}}).error == error_code::none);
  REQUIRE(b.conn
            .receive<k::sync_group_response>(k::api_key::sync_group, cs, 0,
                                             k::decode_sync_group_response)
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
  auto cs = b.conn.send(k::api_key::sync_group, 0,
                        k::sync_group_request{group, b.generation, b.id, {}},
                        k::encode_sync_group_request);
  REQUIRE(a.sync(group, {{a.id, {}}, {b.id, {}}}).error == error_code::none);
  REQUIRE(b.conn
            .receive<k::sync_group_response>(k::api_key::sync_group, cs, 0,
                                             k::decode_sync_group_response)
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
  k::bytes buf;
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
  k::bytes prefix;
  k::writer w{prefix};
  w.i32(104857601);
  REQUIRE(c.send_raw(prefix));
  CHECK(c.closed_by_peer());
  connection d{the_server().port()};
  k::bytes negative;
  k::writer wn{negative};
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
    // ApiVersions v3 is answered in the v0 layout with UNSUPPORTED_VERSION.
    connection c{the_server().port()};
    REQUIRE(c.ok());
    REQUIRE(c.send_raw(raw_request(18, 3, {})));
    k::bytes buf;
    REQUIRE(c.read_frame(buf) == read_result::frame);
    k::reader in{buf};
    auto header = k::decode_response_header(in, 18, 3);
    REQUIRE(header);
    CHECK(header->correlation_id == 7);
    auto res = k::decode_api_versions_response(in, 0);
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
  k::bytes body;
  k::writer w{body};
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
  k::bytes body;
  k::writer w{body};
  w.i16(1000);
  w.i32(0);
  REQUIRE(c.send_raw(raw_request(12, 0, body)));
  expect_closed_or_error(c, 12, 0);
  // A Metadata v1 whose topic array claims more topics than bytes follow.
  connection d{the_server().port()};
  k::bytes md;
  k::writer wm{md};
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
    sent.push_back(c.send(k::api_key::metadata, 1, k::metadata_request{},
                          k::encode_metadata_request));
    sent.push_back(c.send(k::api_key::api_versions, 0,
                          k::api_versions_request{},
                          k::encode_api_versions_request));
  }
  for (auto correlation : sent) {
    k::bytes buf;
    REQUIRE(c.read_frame(buf) == read_result::frame);
    k::reader in{buf};
    // Both answers have response header v0 (Metadata v1, ApiVersions).
    auto header = k::decode_response_header(in, 3, 1);
    REQUIRE(header);
    CHECK(header->correlation_id == correlation);
  }
  CHECK(still_serving());
}
