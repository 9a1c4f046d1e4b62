#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "gateway/http/handler.hpp"

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

/// What every session of one server shares (Beast's chat-multi
/// shared_state): the settings and the API.
struct server_context {
  http_server_config config;
  std::shared_ptr<http_handler> api;
};

} // namespace troupe
