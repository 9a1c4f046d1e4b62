#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "domain/cluster_config.hpp"
#include "domain/properties.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One troupe process: a controller and `config.brokers` brokers (three by
/// default), so that coordinator lookup, failover and replication work
/// without any other service.
struct embedded_node {
  controller_actor controller;
  std::vector<broker_actor> brokers;
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
embedded_node spawn_embedded_node(caf::actor_system& sys,
                                  const cluster_config& config,
                                  event_listener_actor listener = {});

/// Stops every broker (their coordinators answer what is parked with
/// NOT_COORDINATOR) and the controller.
void stop_embedded_node(embedded_node& node);

/// One node of a cluster of processes (docs/ARCHITECTURE.md §7): its
/// controller (published for the other nodes), its ZooKeeper session and
/// its one broker. `node` is the same as an embedded node with one broker,
/// for the listeners.
struct cluster_node {
  cluster_controller_actor controller;
  zookeeper_session_actor zk;
  embedded_node node;
};

/// Spawns the node's actors; they connect to ZooKeeper without waiting.
/// `endpoints` are the advertised Kafka listener and troupe's own
/// (zk::troupe_listener). `fatal` is called (from an actor) when the node
/// must stop, e.g. its broker.id is taken.
cluster_node spawn_cluster_node(caf::actor_system& sys,
                                const cluster_config& config,
                                std::vector<zk::broker_endpoint> endpoints,
                                event_listener_actor listener,
                                std::function<void(const std::string&)> fatal);

void stop_cluster_node(cluster_node& node);

} // namespace troupe
