#include "tests/zookeeper/tcp_proxy.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace troupe::test {

namespace {

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Writes all of `buf`; false when the peer is gone.
bool write_all(int fd, const char* buf, size_t size) {
  while (size > 0) {
    auto n = ::send(fd, buf, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    buf += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

struct link {
  int client;
  int server;
};

} // namespace

tcp_proxy::tcp_proxy(uint16_t target_port) : target_port_(target_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int yes = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  auto addr = loopback(0);
  socklen_t len = sizeof(addr);
  if (listener_ < 0
      || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr))
           != 0
      || ::listen(listener_, 16) != 0
      || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0
      || ::pipe(wake_pipe_) != 0)
    throw std::runtime_error("tcp_proxy: " + std::string{std::strerror(errno)});
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread{[this] { run(); }};
}

tcp_proxy::~tcp_proxy() {
  stop_ = true;
  wake();
  thread_.join();
  ::close(listener_);
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
}

void tcp_proxy::cut() {
  cut_ = true;
  wake();
}

void tcp_proxy::restore() {
  cut_ = false;
  wake();
}

void tcp_proxy::wake() {
  char b = 1;
  [[maybe_unused]] auto n = ::write(wake_pipe_[1], &b, 1);
}

void tcp_proxy::run() {
  std::vector<link> links;
  auto close_all = [&] {
    for (auto& l : links) {
      ::close(l.client);
      ::close(l.server);
    }
    links.clear();
  };
  while (!stop_) {
    if (cut_)
      close_all();
    std::vector<pollfd> fds{{listener_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    for (auto& l : links) {
      fds.push_back({l.client, POLLIN, 0});
      fds.push_back({l.server, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR)
      break;
    if (fds[1].revents & POLLIN) {
      char buf[64];
      [[maybe_unused]] auto n = ::read(wake_pipe_[0], buf, sizeof(buf));
    }
    std::vector<link> accepted;
    if (fds[0].revents & POLLIN) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client >= 0) {
        int server = ::socket(AF_INET, SOCK_STREAM, 0);
        auto addr = loopback(target_port_);
        if (cut_ || server < 0
            || ::connect(server, reinterpret_cast<sockaddr*>(&addr),
                         sizeof(addr))
                 != 0) {
          ::close(client);
          if (server >= 0)
            ::close(server);
        } else {
          accepted.push_back({client, server});
        }
      }
    }
    // Forward what arrived; a closed side closes its link.
    std::vector<link> alive;
    for (size_t i = 0; i < links.size(); ++i) {
      auto& l = links[i];
      bool ok = true;
      for (int side = 0; side < 2 && ok; ++side) {
        auto& pfd = fds[2 + 2 * i + side];
        if (pfd.revents == 0)
          continue;
        int from = side == 0 ? l.client : l.server;
        int to = side == 0 ? l.server : l.client;
        char buf[16384];
        auto n = ::recv(from, buf, sizeof(buf), 0);
        ok = n > 0 && write_all(to, buf, static_cast<size_t>(n));
      }
      if (ok) {
        alive.push_back(l);
      } else {
        ::close(l.client);
        ::close(l.server);
      }
    }
    alive.insert(alive.end(), accepted.begin(), accepted.end());
    links = std::move(alive);
  }
  close_all();
}

} // namespace troupe::test
