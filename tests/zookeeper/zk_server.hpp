#pragma once

// A real ZooKeeper for tests: Debian's server (3.8) in a JVM of its own, on a
// free loopback port, with a fresh data directory. Started by the
// constructor (bounded: it throws with the server's log when ZooKeeper does
// not serve within 20 s), killed by pid and its directory removed by the
// destructor — also when a test fails, and (PR_SET_PDEATHSIG) when the test
// process dies. Create it on the main thread: the death signal follows the
// thread that forked.

#include <cstdint>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace troupe::test {

struct zk_server_options {
  /// 0: a free port.
  uint16_t port = 0;
  /// ZooKeeper checks session expiry once per tick.
  int tick_time_ms = 500;
  /// The range the server negotiates session timeouts into.
  int min_session_timeout_ms = 1000;
  int max_session_timeout_ms = 60000;
};

class zk_server {
public:
  explicit zk_server(zk_server_options options = {});
  ~zk_server();

  zk_server(const zk_server&) = delete;
  zk_server& operator=(const zk_server&) = delete;

  uint16_t port() const noexcept {
    return port_;
  }

  /// "127.0.0.1:<port>", plus `chroot` if given.
  std::string connect_string(std::string_view chroot = {}) const;

  pid_t pid() const noexcept {
    return pid_;
  }

  /// Sends a four-letter word ("ruok", "srvr") and returns the answer, or ""
  /// when none comes within 2 s.
  std::string four_letter_word(std::string_view word) const;

  /// Kills the server (SIGKILL) and waits for it; the data directory stays.
  void kill();

  /// Starts it again on the same port and data (after kill()).
  void start();

  /// The last lines of the server's log, for failure messages.
  std::string log_tail(size_t max_bytes = 4000) const;

private:
  void write_config() const;
  bool wait_until_serving();

  zk_server_options options_;
  std::string dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
uint16_t free_port();

} // namespace troupe::test
