#pragma once

// One node of a cluster of processes (docs/ARCHITECTURE.md §7): what
// `troupe serve` spawns when zookeeper.connect is set.

#include <cstdint>
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

// -- node links (docs/ARCHITECTURE.md §7) ---------------------------------------

/// With troupe.cluster.security=ssl: loads CAF's OpenSSL module into `cfg`
/// (before the actor system exists) with the node's certificate, key and CA
/// from troupe.cluster.ssl.*, so that the controller is published and the
/// peers are reached over mutual TLS. PEM text is written to 0600 files
/// under log.dirs (CAF reads files, on every new link). The material is
/// checked here, once: CAF would only fail inside its I/O loop. Returns
/// why the node cannot start, or "" (also when the links stay plain).
std::string configure_node_links(caf::actor_system_config& cfg,
                                 const cluster_config& config);

/// Kafka listeners and troupe.cluster.port on an address other than
/// loopback with unauthenticated node links (troupe.cluster.security
/// neither ssl nor plaintext): the reason this node refuses to start, else
/// "". `cluster_host` is where troupe.cluster.port binds; a listener without
/// a host binds `default_listener_host`.
std::string node_links_refusal(const cluster_config& config,
                               const std::string& cluster_host,
                               const std::string& default_listener_host);

/// Publishes the node's controller on troupe.cluster.port at `host`: over
/// CAF's OpenSSL module when it is loaded (configure_node_links), else the
/// middleman's plain BASP. Returns the bound port.
caf::expected<uint16_t> publish_controller(caf::actor_system& sys,
                                           const cluster_controller_actor& c,
                                           uint16_t port,
                                           const std::string& host);

} // namespace troupe
