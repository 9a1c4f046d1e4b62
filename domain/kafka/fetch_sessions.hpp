#pragma once

// Incremental fetch sessions (KIP-227), as Kafka's FetchManager and
// FetchSessionCache keep them (docs/ARCHITECTURE.md §5): a consumer of many
// partitions names them once, in a full fetch that opens a session, and
// then sends only what changed (a new fetch offset, a partition added or
// forgotten); the broker answers only the partitions with something new.
// Plain state: the Kafka listener keeps one cache per broker and calls it
// under a lock (gateway/kafka/kafka_data_handlers.cpp).

#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/data_messages.hpp"

namespace troupe::wire {

/// A partition of a session: by name (Fetch v7-12) or by topic id (v13+).
struct fetch_session_key {
  std::string topic;
  wire::uuid topic_id{};
  int32_t partition = 0;

  friend bool operator<(const fetch_session_key& x,
                        const fetch_session_key& y) {
    return std::tie(x.topic, x.topic_id, x.partition)
           < std::tie(y.topic, y.topic_id, y.partition);
  }
  friend bool operator==(const fetch_session_key& x,
                         const fetch_session_key& y) {
    return x.topic == y.topic && x.topic_id == y.topic_id
           && x.partition == y.partition;
  }
};

/// A session's partitions are looked up by key on every fetch: hashed, as
/// Kafka's CachedPartition set, not compared name by name.
struct fetch_session_key_hash {
  size_t operator()(const fetch_session_key& k) const noexcept {
    auto h = std::hash<std::string>{}(k.topic);
    h ^= (k.topic_id.high * 0x9e3779b97f4a7c15ULL) ^ k.topic_id.low;
    return h * 31 + static_cast<size_t>(static_cast<uint32_t>(k.partition));
  }
};

/// What one partition of a fetch asks for.
struct fetch_session_item {
  fetch_session_key key;
  wire::fetch_partition request;
};

/// What the broker answered for one partition: what an incremental
/// response compares with the session's last answer.
struct fetch_partition_outcome {
  error_code error = error_code::none;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  bool has_records = false;
};

/// Kafka's FetchContext: what one fetch request is to the session cache.
struct fetch_context {
  /// FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH or
  /// FETCH_SESSION_TOPIC_ID_ERROR: the whole fetch is answered with it
  /// and no partition.
  error_code error = error_code::none;
  /// The session id the response carries (0: none).
  int32_t session_id = 0;
  /// An incremental fetch of an existing session: the response carries
  /// only the partitions answer() selects.
  bool incremental = false;
  /// A full fetch at epoch 0: answer() tries to open a session.
  bool open_session = false;
  bool uses_topic_ids = false;
  /// A replica's fetch: its session is worth more in eviction.
  bool follower = false;
  /// Every partition to fetch, in order: the request's for a full fetch,
  /// the session's (with the fetch offsets it holds) for an incremental
  /// one.
  std::vector<fetch_session_item> partitions;
};

class fetch_session_cache {
public:
  /// Kafka's eviction rule for sessions unused this long: any new session
  /// may take their slot.
  static constexpr int64_t default_eviction_ms = 120000;

  /// `slots`: max.incremental.fetch.session.cache.slots (0: no sessions).
  explicit fetch_session_cache(int32_t slots = 1000,
                               int64_t eviction_ms = default_eviction_ms,
                               uint64_t seed = 0);

  /// Kafka's FetchManager.newContext for a request of `version` (7+).
  /// A full fetch (epoch 0 or -1) closes the session it names; epoch -1
  /// opens none. An incremental one (epoch > 0) must name a session that
  /// exists (else FETCH_SESSION_ID_NOT_FOUND) at the epoch it expects
  /// (else INVALID_FETCH_SESSION_EPOCH), with topic ids if and only if the
  /// session was opened with them (else FETCH_SESSION_TOPIC_ID_ERROR);
  /// its partitions are added or updated, its forgotten ones dropped, and
  /// the session's epoch moves on. `follower`: a replica's fetch
  /// (privileged in eviction).
  fetch_context open(const wire::fetch_request& req, int16_t version,
                     int64_t now_ms, bool follower = false);

  /// Kafka's updateAndGenerateResponseData, once every partition of `ctx`
  /// is answered (`outcomes` in the order of ctx.partitions). Answers the
  /// indexes of the partitions the response carries: all of them for a
  /// full fetch (which opens its session now, if one was asked for and a
  /// slot is free or can be freed: ctx.session_id); for an incremental
  /// one, those with records, a new high watermark, last stable offset or
  /// log start offset, or an error. A partition that returned records moves
  /// to the end of its session, so that the others come first next time
  /// (the response's max_bytes is shared in order).
  std::vector<size_t>
  answer(fetch_context& ctx, const std::vector<fetch_partition_outcome>& outcomes,
         int64_t now_ms);

  /// Sessions held.
  size_t size() const;

  /// The partitions of session `id`, in order (empty if there is none).
  std::vector<fetch_session_key> partitions_of(int32_t id) const;

  /// The epoch session `id` expects next (-1 if there is none).
  int32_t epoch_of(int32_t id) const;

private:
  struct cached_partition {
    fetch_session_key key;
    wire::fetch_partition request;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
  };
  struct session {
    int32_t id = 0;
    int32_t epoch = 1;
    bool follower = false;
    bool uses_topic_ids = false;
    int64_t last_used_ms = 0;
    /// In fetch order; `index` finds an entry by key.
    std::list<cached_partition> partitions;
    std::unordered_map<fetch_session_key, std::list<cached_partition>::iterator,
                       fetch_session_key_hash>
      index;
  };

  bool make_room(bool follower, size_t size, int64_t now_ms);
  int32_t new_id();

  int32_t slots_;
  int64_t eviction_ms_;
  std::mt19937 rng_;
  std::map<int32_t, std::unique_ptr<session>> sessions_;
};

} // namespace troupe::wire
