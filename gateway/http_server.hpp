#pragma once

// The HTTP/WebSocket listener (Boost.Beast): keep-alive HTTP/1.1, a body
// limit (413), an idle timeout, static files for the dashboard, and
// WebSocket upgrades on /v1/ws. Everything else goes to an http_handler.
// No CAF in here: answers come back through callbacks and are posted onto
// the session's strand.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gateway/http_handler.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace troupe {

struct http_server_config {
  std::string bind_host = "0.0.0.0";
  uint16_t port = 8080;
  /// Request bodies above this get 413.
  size_t body_limit = 1 << 20;
  /// A connection with no complete request (or WebSocket frame) for this
  /// long is closed.
  std::chrono::milliseconds idle_timeout{60000};
  /// Asio threads.
  int threads = 1;
  /// Where the dashboard's files live (served at / and /ui/).
  std::string web_root = "web";
};

class http_server {
public:
  // -- constructors -----------------------------------------------------------

  http_server(http_server_config config, std::shared_ptr<http_handler> api);

  ~http_server();

  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // -- operations -------------------------------------------------------------

  /// Binds and starts the Asio threads. Throws std::runtime_error when the
  /// port cannot be bound.
  void start();

  /// Closes the acceptor and every connection, then joins the threads.
  void stop();

  /// The bound port (useful with port 0).
  uint16_t port() const {
    return port_;
  }

private:
  class listener;

  http_server_config config_;
  std::shared_ptr<http_handler> api_;
  std::shared_ptr<boost::asio::io_context> io_;
  std::shared_ptr<listener> listener_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
};

} // namespace troupe
