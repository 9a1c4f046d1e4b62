#pragma once

// One long-lived actor per Kafka connection (docs/ARCHITECTURE.md §5): the
// connection hands it every decoded request and it asks the broker, so a
// request costs a mailbox enqueue instead of spawning an actor, and what a
// connection learns (topic ids, the client's software, who it authenticated
// as) stays with it. The actor ends with the connection.

#include <memory>

#include <caf/fwd.hpp>

#include "domain/security/acl.hpp"
#include "gateway/kafka/kafka_request_handler.hpp"

namespace troupe {

class kafka_session {
public:
  // -- constructors -----------------------------------------------------------

  kafka_session(caf::actor_system& sys, kafka_request_context ctx);

  /// Stops the actor; replies still underway are dropped.
  ~kafka_session();

  kafka_session(const kafka_session&) = delete;
  kafka_session& operator=(const kafka_session&) = delete;

  // -- operations -------------------------------------------------------------

  /// Answers the request through `reply`, called once from a CAF worker
  /// thread (unless the session stops first).
  void submit(wire::request_header header, wire::request_body body,
              kafka_reply_fn reply) const;

  /// Who the requests submitted after this call act as (the connection's
  /// SASL or TLS principal and the client's host): in order with submit,
  /// so each request is authorized as the identity in force when it came.
  void set_identity(security::request_identity identity) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace troupe
