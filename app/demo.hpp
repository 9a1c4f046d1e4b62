#pragma once

#include <cstdint>

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

/// Starts the embedded node and keeps it running until SIGINT/SIGTERM.
int run_node(caf::actor_system& sys, const cluster_config& config);

} // namespace troupe
