#pragma once

// Turns one decoded Kafka request into requests to a broker actor and its
// answers into one encoded response frame. No networking: the connection
// hands a request in and gets a reply back through a callback, called once,
// from a CAF worker thread.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "domain/kafka/protocol.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// What a request comes to.
struct kafka_reply {
  enum class kind {
    /// `frame` holds a size-prefixed response to write.
    frame,
    /// Nothing to write (Produce with acks=0).
    none,
    /// Close the connection, as Kafka does when it cannot answer.
    close,
  };
  kind what = kind::none;
  kafka::bytes frame;
};

using kafka_reply_fn = std::function<void(kafka_reply)>;

/// What the handler needs to know about the broker it serves.
struct kafka_request_context {
  broker_actor broker;
  /// auto.create.topics.enable: Metadata v1 auto-creates unknown topics.
  bool auto_create_topics = true;
  std::string client_host;
};

/// The APIs and versions the listener serves and advertises: a subset of
/// what the codec speaks (kafka::supported_versions()), the non-flexible
/// versions librdkafka 2.0.2 and kafkajs need.
const std::vector<kafka::api_version>& kafka_listener_versions();

/// True when kafka_listener_versions() lists the key with this version.
bool kafka_listener_serves(int16_t api_key, int16_t api_version) noexcept;

/// Answers `body` (decoded with `header`) through `reply`, asynchronously.
void handle_kafka_request(caf::actor_system& sys,
                          const kafka_request_context& ctx,
                          const kafka::request_header& header,
                          kafka::request_body body, kafka_reply_fn reply);

} // namespace troupe
