#pragma once

// One node of a cluster of processes (docs/ARCHITECTURE.md §7): what
// `troupe serve` spawns when zookeeper.connect is set.

#include <functional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/node.hpp"
#include "domain/cluster_config.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

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
/// must stop, e.g. its broker.id is taken. `security` (may be null) is the
/// process's security store: the node's controller fills it from ZooKeeper
/// (/kafka-acl, /kafka-acl-extended, /config/users) and keeps it current by
/// watching the change notifications (docs/ARCHITECTURE.md §9).
cluster_node spawn_cluster_node(
  caf::actor_system& sys, const cluster_config& config,
  std::vector<zk::broker_endpoint> endpoints, event_listener_actor listener,
  std::function<void(const std::string&)> fatal,
  std::shared_ptr<security::security_store> security = nullptr);

void stop_cluster_node(cluster_node& node);

} // namespace troupe
