#pragma once

// The HTTP/WebSocket server (Boost.Beast): keep-alive HTTP/1.1, a body
// limit (413), an idle timeout, static files for the dashboard, and
// WebSocket upgrades on /v1/ws. Everything else goes to an http_handler.
// No CAF in here: answers come back through callbacks and are posted onto
// the session's strand.

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gateway/http/config.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace troupe {

class listener;

class http_server {
public:
  // -- constructors -----------------------------------------------------------

  http_server(http_server_config config, std::shared_ptr<http_handler> api);

  ~http_server();

  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // -- operations -------------------------------------------------------------

  /// Binds and starts the Asio threads; thread i runs with
  /// gateway_thread_slot i (gateway/thread_slot.hpp). Throws
  /// std::runtime_error when the port cannot be bound.
  void start();

  /// Closes the acceptor and every connection, then joins the threads.
  void stop();

  /// The bound port (useful with port 0).
  uint16_t port() const {
    return port_;
  }

private:
  std::shared_ptr<server_context> ctx_;
  std::shared_ptr<boost::asio::io_context> io_;
  std::shared_ptr<listener> listener_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
};

} // namespace troupe
