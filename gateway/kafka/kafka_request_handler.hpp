#pragma once

// Turns one decoded Kafka request into requests to a broker actor and its
// answers into one encoded response frame. No networking: the connection
// hands a request to its session (gateway/kafka/kafka_session, one long-lived
// actor per connection), whose handler asks the broker and gives the reply
// back through a callback, called once, from a CAF worker thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "domain/cluster_config.hpp"
#include "domain/replication/fetch_purgatory.hpp"
#include "domain/kafka/fetch_sessions.hpp"
#include "domain/kafka/protocol.hpp"
#include "domain/security/security_config.hpp"
#include "domain/security/security_store.hpp"
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

/// A broker's fetch sessions (KIP-227), shared by the connections of all its
/// listeners, each call under the lock.
struct shared_fetch_sessions {
  /// Session ids are drawn at random, as Kafka's: a client that kept one
  /// across a restart of the broker meets another session rarely.
  explicit shared_fetch_sessions(int32_t slots)
    : cache(slots, wire::fetch_session_cache::default_eviction_ms,
            std::random_device{}()) {
    // nop
  }
  std::mutex lock;
  wire::fetch_session_cache cache;
};

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
  /// The listener the connection came in on (its name in `listeners`,
  /// "PLAINTEXT" by default) and its security protocol; Metadata,
  /// FindCoordinator and DescribeCluster advertise every broker's endpoint
  /// of this listener.
  std::string listener_name = "PLAINTEXT";
  security::listener_protocol protocol = security::listener_protocol::plaintext;
  /// The ACLs and SCRAM credentials in force (docs/ARCHITECTURE.md §9);
  /// null: no authorizer, nothing stored (tests of other behaviour).
  std::shared_ptr<security::security_store> security;
  /// Where CreateAcls, DeleteAcls and AlterUserScramCredentials go: the
  /// node's controller (null: they answer an error).
  security_admin_actor security_admin;
  /// The broker's fetch sessions; null: none kept (every fetch is full).
  std::shared_ptr<shared_fetch_sessions> fetch_sessions;
  /// The broker's consumer fetches waiting for min.bytes; its replicas wake
  /// them. Null: each partition's replica holds its own long poll instead.
  std::shared_ptr<fetch_purgatory> purgatory;
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
