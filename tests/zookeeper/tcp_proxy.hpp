#pragma once

// A TCP forwarder on 127.0.0.1 in front of one port, which a test can cut
// (every connection closed, new ones closed on arrival) and restore: a
// network partition between one ZooKeeper client and the server, so that the
// server expires the client's session while both keep running.

#include <atomic>
#include <cstdint>
#include <thread>

namespace troupe::test {

class tcp_proxy {
public:
  explicit tcp_proxy(uint16_t target_port);
  ~tcp_proxy();

  tcp_proxy(const tcp_proxy&) = delete;
  tcp_proxy& operator=(const tcp_proxy&) = delete;

  uint16_t port() const noexcept {
    return port_;
  }

  /// Closes every forwarded connection and refuses new ones until restore().
  void cut();
  void restore();

private:
  void run();
  void wake();

  uint16_t target_port_;
  uint16_t port_ = 0;
  int listener_ = -1;
  int wake_pipe_[2] = {-1, -1};
  std::atomic<bool> cut_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace troupe::test
