#pragma once

// The admin client's requests that change the cluster beyond creating
// topics: DeleteTopics (the controller drops the topic, every broker stops
// its replicas and removes their logs), AlterConfigs and
// IncrementalAlterConfigs of a topic (the controller stores the topic's
// overrides, every broker applies them), and InitProducerId (producer ids
// for idempotent producers, handed out by the controller in blocks as
// Kafka's AllocateProducerIds does). Plain structs with inspect().

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/topic_config.hpp"
#include "domain/topic_partition.hpp"
#include "domain/uuid.hpp"

namespace troupe {

// -- DeleteTopics -------------------------------------------------------------

/// A topic by name or, with an empty name, by topic id.
struct topic_to_delete {
  std::string name{};
  uuid topic_id{};
};

struct delete_topics_request {
  std::vector<topic_to_delete> topics;
};

struct deleted_topic {
  /// Empty when asked by an id the controller does not know.
  std::string name{};
  uuid topic_id{};
  error_code error = error_code::none;
  std::string message{};
};

/// One result per requested topic, in request order.
struct delete_topics_response {
  std::vector<deleted_topic> topics;
};

/// Controller -> every broker: these topics are gone; their replicas stop
/// and their logs are removed (Kafka's StopReplica with deletePartition).
struct topic_deletion {
  std::vector<std::string> topics;
};

/// Broker -> its log manager: close the partitions' logs and remove them
/// from disk.
struct log_delete_request {
  std::vector<topic_partition> partitions;
};

// -- topic configs (AlterConfigs 33, IncrementalAlterConfigs 44) ------------

/// Listener -> broker -> controller: change one topic's overrides (the
/// domain's alter_topic_configs says how). With validate_only nothing is
/// stored; the answer is what a real change would get.
struct alter_topic_configs_request {
  std::string topic;
  std::vector<config_op> ops;
  /// false: AlterConfigs, the SETs replace the whole set.
  bool incremental = true;
  bool validate_only = false;
};

/// UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG, INVALID_REQUEST,
/// NOT_CONTROLLER, ... with Kafka's message; the topic's overrides as
/// stored afterwards (with validate_only: as they would be).
struct alter_topic_configs_response {
  error_code error = error_code::none;
  std::string message{};
  topic_configs configs{};
};

/// Controller -> every broker: a topic's overrides changed (or were set at
/// its creation); each broker that hosts a replica of it applies them (its
/// log manager's topic_log_config, its replicas' replica_config).
struct topic_config_change {
  std::string topic;
  topic_configs configs;
};

// -- producer ids (KIP-98) ----------------------------------------------------

/// Listener -> broker: a producer id for an idempotent producer (no
/// transactional id; the listener refuses those).
struct init_producer_id_request {
  // nop
};

struct init_producer_id_response {
  error_code error = error_code::none;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

/// Broker -> controller: the next block of producer ids (Kafka's
/// AllocateProducerIds, API 67).
struct allocate_producer_ids_request {
  int32_t broker_id = -1;
};

struct allocate_producer_ids_response {
  error_code error = error_code::none;
  int64_t producer_id_start = -1;
  int32_t producer_id_len = 0;
};

// -- inspect ------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_to_delete& x) {
  return f(x.name, x.topic_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_topics_request& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, deleted_topic& x) {
  return f(x.name, x.topic_id, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_topics_response& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_deletion& x) {
  return f(x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, log_delete_request& x) {
  return f(x.partitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, config_op& x) {
  return f(x.name, x.op, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_topic_configs_request& x) {
  return f(x.topic, x.ops, x.incremental, x.validate_only);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        alter_topic_configs_response& x) {
  return f(x.error, x.message, x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_config_change& x) {
  return f(x.topic, x.configs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        init_producer_id_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        init_producer_id_response& x) {
  return f(x.error, x.producer_id, x.producer_epoch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        allocate_producer_ids_request& x) {
  return f(x.broker_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        allocate_producer_ids_response& x) {
  return f(x.error, x.producer_id_start, x.producer_id_len);
}

} // namespace troupe
