#pragma once

// The gateway's API (DESIGN.md section 5): the REST Proxy v2 routes
// (/topics, /consumers), troupe's own /v1 routes (groups, brokers,
// partitions, membership for clients that run it themselves), /metrics,
// /healthz, and the /v1/ws member sessions. It speaks to the node's broker
// actors; the Beast server (gateway/http_server) feeds it requests.

#include <cstdint>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/node.hpp"
#include "domain/cluster_config.hpp"
#include "gateway/http_handler.hpp"

namespace troupe {

struct http_api_config {
  /// Prefix of the base_uri of new consumer instances.
  std::string base_uri = "http://127.0.0.1:8080";
  /// records?timeout= when none is given (consumer.request.timeout.ms).
  int32_t default_poll_timeout_ms = 1000;
  /// Upper bound of records?timeout=.
  int32_t max_poll_timeout_ms = 30000;
};

class http_api : public http_handler,
                 public std::enable_shared_from_this<http_api> {
public:
  // -- constructors -----------------------------------------------------------

  http_api(caf::actor_system& sys, cluster_config cluster,
           http_api_config config);

  ~http_api() override;

  // -- wiring -----------------------------------------------------------------

  /// Receives every group's transitions (for /metrics and WebSocket
  /// watchers): pass it to spawn_embedded_node.
  event_listener_actor listener() const;

  /// The node whose brokers answer; call once, before serving. Starts the
  /// thread that expires idle consumer instances and WebSocket members.
  void attach(const embedded_node& node);

  /// Closes every consumer instance and WebSocket member (they leave their
  /// groups) and stops the expiry thread.
  void shutdown();

  // -- http_handler ---------------------------------------------------------------

  void handle(http_request req, http_reply_fn reply) override;

  uint64_t ws_open(ws_peer peer) override;

  void ws_message(uint64_t id, std::string text) override;

  void ws_closed(uint64_t id) override;

  struct impl;

private:
  std::shared_ptr<impl> impl_;
};

} // namespace troupe
