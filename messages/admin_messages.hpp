#pragma once

// The admin client's requests that change the cluster beyond creating
// topics: DeleteTopics (the controller drops the topic, every broker stops
// its replicas and removes their logs) and InitProducerId (producer ids
// for idempotent producers, handed out by the controller in blocks as
// Kafka's AllocateProducerIds does). Plain structs with inspect().

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
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
