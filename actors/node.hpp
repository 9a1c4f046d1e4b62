#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <caf/fwd.hpp>

#include "domain/cluster_config.hpp"
#include "domain/replication/fetch_purgatory.hpp"
#include "domain/properties.hpp"
#include "messages/interfaces.hpp"

namespace troupe::security {
class security_store;
} // namespace troupe::security

namespace troupe {

/// One troupe process: a controller and `config.brokers` brokers (three by
/// default), so that coordinator lookup, failover and replication work
/// without any other service.
struct embedded_node {
  controller_actor controller;
  std::vector<broker_actor> brokers;
  /// Each broker's consumer fetches waiting for data, shared by its
  /// replicas and the Kafka listeners (docs/ARCHITECTURE.md §5); same order
  /// as `brokers`.
  std::vector<std::shared_ptr<fetch_purgatory>> fetch_purgatories;
};

/// Registers troupe's messages and sets the scheduler (threads, policy) of
/// an actor system about to be created; returns the worker thread count.
/// With `networking` it loads CAF's middleman, with its heartbeat and
/// connection timeout so that a hung peer is noticed (CAF 0.17 turns both
/// off by default).
size_t configure_actor_system(
  caf::actor_system_config& cfg, const process_config& process,
  const std::optional<zookeeper_mode>& networking = std::nullopt);

/// Spawns the node's actors and introduces the brokers to each other.
/// Throws std::runtime_error when the metadata under log.dirs exists but
/// cannot be read (the caller reports it and stops).
/// `listener` (may be null) receives every group's state transitions.
/// `security` (may be null) is the process's security store: the controller
/// replaces its snapshot with the stored ACLs and SCRAM credentials at start
/// and after each change (docs/ARCHITECTURE.md §9).
embedded_node spawn_embedded_node(
  caf::actor_system& sys, const cluster_config& config,
  event_listener_actor listener = {},
  std::shared_ptr<security::security_store> security = nullptr);

/// Stops every broker (their coordinators answer what is parked with
/// NOT_COORDINATOR) and the controller.
void stop_embedded_node(embedded_node& node);

} // namespace troupe
