#pragma once

// Turns one decoded Kafka request into requests to a broker actor and its
// answers into one encoded response frame. No networking: the connection
// hands a request to its session (gateway/kafka/kafka_session, one long-lived
// actor per connection), whose handler asks the broker and gives the reply
// back through a callback, called once, from a CAF worker thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "domain/cluster_config.hpp"
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
  wire::bytes frame;
};

using kafka_reply_fn = std::function<void(kafka_reply)>;

/// What the handler needs to know about the broker it serves.
struct kafka_request_context {
  broker_actor broker;
  /// The broker's id (DescribeConfigs names brokers by it).
  int32_t broker_id = 0;
  /// auto.create.topics.enable: Metadata auto-creates unknown topics.
  bool auto_create_topics = true;
  /// The node's settings, for DescribeConfigs and CreateTopics' answers.
  std::shared_ptr<const cluster_config> config;
  std::string client_host;
};

/// The APIs and versions the listener serves and advertises: every version
/// the codec speaks (wire::supported_versions()) of every API that has a
/// handler.
const std::vector<wire::api_version>& kafka_listener_versions();

/// True when kafka_listener_versions() lists the key with this version.
bool kafka_listener_serves(int16_t api_key, int16_t api_version) noexcept;

/// The per-connection state of a session actor (gateway/kafka/kafka_handlers.hpp).
struct kafka_session_state;

/// Answers `body` (decoded with `header`) through `reply`, asynchronously,
/// from inside the connection's session actor.
void handle_kafka_request(caf::stateful_actor<kafka_session_state>* self,
                          const wire::request_header& header,
                          wire::request_body body, kafka_reply_fn reply);

} // namespace troupe
