#pragma once

// What the HTTP/WebSocket server (Beast, gateway/http) hands to the API
// (CAF, gateway/rest) and gets back: plain structs and callbacks, so that no
// translation unit needs both Beast and CAF.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace troupe {

struct http_request {
  std::string method; // "GET", "POST", ...
  std::string path;   // the target without the query, not yet decoded
  std::string query;  // after '?', raw
  std::string content_type;
  std::string accept;
  std::string authorization;
  std::string body;
  /// The client's address without port ("127.0.0.1"), for ACL hosts.
  std::string remote_host;
  /// HTTPS with a verified client certificate: its subject (RFC 2253).
  std::string tls_subject;
};

struct http_response {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  /// Further headers (Allow, WWW-Authenticate, ...).
  std::vector<std::pair<std::string, std::string>> headers;
};

/// Called once, from any thread.
using http_reply_fn = std::function<void(http_response)>;

/// One WebSocket as the API sees it; both callbacks are safe from any thread
/// and do nothing once the socket is gone.
struct ws_peer {
  std::function<void(std::string text)> send;
  std::function<void(std::string reason)> close;
  /// The upgrade's Authorization header and client address: who the
  /// socket acts as (the API authenticated them in admit()).
  std::string authorization;
  std::string remote_host;
  std::string tls_subject;
};

class http_handler {
public:
  virtual ~http_handler() = default;

  /// Answers one request through `reply`, asynchronously.
  virtual void handle(http_request req, http_reply_fn reply) = 0;

  /// What the server answers without the API (a dashboard file, a
  /// WebSocket upgrade; `req` has no body) may proceed: nullopt, or the
  /// refusal to send instead (401). Runs on the session's thread.
  virtual std::optional<http_response> admit(const http_request& req) {
    (void) req;
    return std::nullopt;
  }

  /// A WebSocket on /v1/ws was accepted; returns its id.
  virtual uint64_t ws_open(ws_peer peer) = 0;

  /// A text frame arrived.
  virtual void ws_message(uint64_t id, std::string text) = 0;

  /// The socket closed (either side, or an error): the session leaves.
  virtual void ws_closed(uint64_t id) = 0;
};

} // namespace troupe
