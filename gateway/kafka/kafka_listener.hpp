#pragma once

// The Kafka wire protocol listeners of a node (docs/ARCHITECTURE.md §5, §9):
// for each of Kafka's `listeners` (one PLAINTEXT listener on `port` and
// 127.0.0.1 by default), one TCP acceptor per broker, broker i on the
// listener's port + i, all served by one Asio thread. A listener speaks
// PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL as
// listener.security.protocol.map says, with its TLS and SASL settings
// (listener.name.<l>.* or the node's ssl.* and sasl.*). The listener only
// frames, secures and translates; every request goes to that broker's
// actor, which answers it as it answers any other client.

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/node.hpp"
#include "domain/cluster_config.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace troupe {

struct kafka_listener_config {
  /// Address the default listener binds to (no `listeners` given): the
  /// loopback, as the quick start must not open the node to the network.
  std::string bind_host = "127.0.0.1";
  /// socket.request.max.bytes
  size_t max_request_bytes = 104857600;
  /// connections.max.idle.ms
  int64_t connections_max_idle_ms = 600000;
  /// The process's ACLs and SCRAM credentials (docs/ARCHITECTURE.md §9),
  /// handed to every request's context; null: none.
  std::shared_ptr<security::security_store> security;
  /// How long a TLS handshake, and a SASL authentication, may take before
  /// the connection is closed.
  int64_t authentication_timeout_ms = 10000;
};

/// The Kafka listeners of broker 0 of `cluster`: `listeners` with their
/// protocols from listener.security.protocol.map, or one PLAINTEXT listener
/// on `default_host`:base_port. Throws std::runtime_error when `listeners`
/// does not parse.
std::vector<security::listener_spec>
kafka_listeners_of(const cluster_config& cluster,
                   const std::string& default_host);

class kafka_listener {
public:
  // -- constructors -----------------------------------------------------------

  kafka_listener(caf::actor_system& sys, kafka_listener_config config);

  ~kafka_listener();

  kafka_listener(const kafka_listener&) = delete;
  kafka_listener& operator=(const kafka_listener&) = delete;

  // -- operations -------------------------------------------------------------

  /// Binds, for every listener, one acceptor per broker of `node` (broker i
  /// on the listener's port + i) and starts the Asio thread. Throws
  /// std::runtime_error when a port cannot be bound or a listener's TLS or
  /// SASL settings are unusable (a missing keystore, a bad PEM, an unknown
  /// protocol version).
  void start(const embedded_node& node, const cluster_config& cluster);

  /// Closes the acceptors and every connection, then joins the thread.
  void stop();

private:
  struct acceptor;

  caf::actor_system& sys_;
  kafka_listener_config config_;
  std::shared_ptr<boost::asio::io_context> io_;
  std::vector<std::shared_ptr<acceptor>> acceptors_;
  std::thread thread_;
};

} // namespace troupe
