#pragma once

// The Kafka wire protocol listeners of a node (docs/ARCHITECTURE.md §5):
// one TCP acceptor per broker on the port the broker advertises
// (base_port + i, Kafka's `listeners`), all served by one Asio thread. The
// listener only frames and translates; every request goes to that broker's
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
  /// Address the acceptors bind to.
  std::string bind_host = "0.0.0.0";
  /// socket.request.max.bytes
  size_t max_request_bytes = 104857600;
  /// connections.max.idle.ms
  int64_t connections_max_idle_ms = 600000;
  /// The process's ACLs and SCRAM credentials (docs/ARCHITECTURE.md §9),
  /// handed to every request's context; null: none.
  std::shared_ptr<security::security_store> security;
};

class kafka_listener {
public:
  // -- constructors -----------------------------------------------------------

  kafka_listener(caf::actor_system& sys, kafka_listener_config config);

  ~kafka_listener();

  kafka_listener(const kafka_listener&) = delete;
  kafka_listener& operator=(const kafka_listener&) = delete;

  // -- operations -------------------------------------------------------------

  /// Binds one acceptor per broker of `node` (broker i on base_port + i) and
  /// starts the Asio thread. Throws std::runtime_error when a port cannot be
  /// bound.
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
