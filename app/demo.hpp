#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <caf/fwd.hpp>

#include "domain/cluster_config.hpp"

namespace troupe {

struct demo_options {
  int32_t consumers = 3;
  int32_t partitions = 6;
  int32_t session_timeout_ms = 6000;
  int32_t heartbeat_interval_ms = 1000;
};

/// Starts the embedded node and walks a consumer group through its life —
/// joins, a newcomer, a clean leave, a silent crash — printing a timeline.
/// Returns the process exit code.
int run_demo(caf::actor_system& sys, const cluster_config& config,
             const demo_options& options);

/// The HTTP/WebSocket gateway's settings (`troupe serve`).
struct serve_options {
  /// Port of the REST/WebSocket gateway and dashboard; 0 disables it.
  int32_t http_port = 8080;
  /// When the port was not asked for, a busy 8080 only warns (several
  /// `troupe --serve` processes, e.g. parallel tests, can run side by side).
  bool http_port_required = false;
  /// The loopback by default: other addresses only when asked for.
  std::string http_bind = "127.0.0.1";
  /// Request bodies above this get 413.
  size_t http_body_limit = 1 << 20;
  /// Idle keep-alive connections are closed after this long.
  int64_t http_idle_timeout_ms = 60000;
  int32_t http_threads = 1;
  /// The dashboard's files; empty: ./web, else web/ beside the build dir.
  std::string web_root;
  /// troupe.http.admin.token / troupe.http.admin.enable.
  std::string http_admin_token;
  bool http_admin_enable = false;
  /// consumer.instance.timeout.ms of the REST consumer instances.
  int32_t consumer_instance_timeout_ms = 300000;
};

/// Starts the embedded node, the Kafka listener and the HTTP gateway, and
/// keeps them running until SIGINT/SIGTERM.
int run_node(caf::actor_system& sys, const cluster_config& config,
             const serve_options& options = {});

} // namespace troupe
