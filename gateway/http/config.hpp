#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "domain/security/security_config.hpp"
#include "gateway/http/handler.hpp"

namespace boost::asio::ssl {
class context;
} // namespace boost::asio::ssl

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
  /// troupe.http.ssl.enable: HTTPS and wss only (no plain HTTP on the port).
  bool ssl_enabled = false;
  /// troupe.http.ssl.*: the PEM keystore, key password, truststore (for
  /// client certificates), ssl.client.auth and ssl.enabled.protocols.
  security::tls_config ssl;
};

/// What every session of one server shares (Beast's chat-multi
/// shared_state): the settings and the API.
struct server_context {
  http_server_config config;
  std::shared_ptr<http_handler> api;
  /// The TLS context when ssl_enabled (gateway/http/tls_context.hpp).
  std::shared_ptr<boost::asio::ssl::context> tls;
};

} // namespace troupe
