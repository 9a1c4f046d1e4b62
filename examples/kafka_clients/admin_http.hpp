#pragma once

// Blocking HTTP/1.1 requests to troupe's gateway — the admin routes
// (`POST /v1/brokers/{id}/stop|start`, with TROUPE_ADMIN_TOKEN as bearer
// token when set) and `GET /v1/groups/{g}` — for the Kafka client programs
// that stop brokers under load. Plain POSIX sockets, loopback only.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace troupe::clients {

/// One request; the status code (or -1) and, in `body`, what follows the
/// headers.
inline int http_request(const std::string& method, const std::string& host,
                        int port, const std::string& path,
                        std::string* body = nullptr) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1
      || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: " + host
                    + "\r\nContent-Length: 0\r\nConnection: close\r\n";
  if (auto token = std::getenv("TROUPE_ADMIN_TOKEN"))
    req += std::string{"Authorization: Bearer "} + token + "\r\n";
  req += "\r\n";
  if (::send(fd, req.data(), req.size(), 0)
      != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return -1;
  }
  std::string all;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0)
    all.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (body) {
    auto end = all.find("\r\n\r\n");
    *body = end == std::string::npos ? std::string{} : all.substr(end + 4);
  }
  // "HTTP/1.1 200 OK"
  auto sp = all.find(' ');
  return sp == std::string::npos ? -1 : std::atoi(all.c_str() + sp + 1);
}

/// Stops (`alive` false) or starts a broker of `troupe serve`.
inline bool set_broker(int http_port, int broker_id, bool alive) {
  auto path =
    "/v1/brokers/" + std::to_string(broker_id) + (alive ? "/start" : "/stop");
  auto status = http_request("POST", "127.0.0.1", http_port, path);
  return status >= 200 && status < 300;
}

} // namespace troupe::clients
