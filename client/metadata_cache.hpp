#pragma once

// troupe's Kafka client: topic metadata as a producer caches it
// (docs/ARCHITECTURE.md §5, the REST gateway's produce).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "messages/cluster_messages.hpp"

namespace troupe::client {

/// Kafka's ProducerMetadata, reduced to what troupe's producer needs: each
/// topic's last Metadata answer, used until it is older than `max_age_ms`
/// (metadata.max.age.ms) or a produce finds the leader moved. Plain state
/// of the actor that owns it.
class metadata_cache {
public:
  // -- constructors -----------------------------------------------------------

  explicit metadata_cache(int64_t max_age_ms) : max_age_ms_(max_age_ms) {
    // nop
  }

  // -- lookups ------------------------------------------------------------------

  /// The topic's metadata when fetched less than max_age_ms before
  /// `now_ms`; null otherwise.
  const topic_metadata* fresh(const std::string& topic, int64_t now_ms) const {
    auto i = topics_.find(topic);
    if (i == topics_.end() || now_ms - i->second.fetched_ms >= max_age_ms_)
      return nullptr;
    return &i->second.metadata;
  }

  /// The leader of `partition` in `t`; -1 when it has none or is unknown.
  static int32_t leader_of(const topic_metadata& t, int32_t partition) {
    int32_t leader = -1;
    for (auto& p : t.partition_states)
      if (p.partition == partition)
        leader = p.leader;
    return leader;
  }

  // -- updates ------------------------------------------------------------------

  /// Keeps a Metadata answer for `topic`, fetched at `now_ms`.
  const topic_metadata& update(const std::string& topic, topic_metadata t,
                               int64_t now_ms) {
    auto& entry = topics_[topic];
    entry.metadata = std::move(t);
    entry.fetched_ms = now_ms;
    return entry.metadata;
  }

private:
  struct entry {
    topic_metadata metadata;
    int64_t fetched_ms = 0;
  };

  int64_t max_age_ms_;
  std::unordered_map<std::string, entry> topics_;
};

} // namespace troupe::client
