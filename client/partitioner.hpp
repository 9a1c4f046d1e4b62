#pragma once

// troupe's Kafka client: where a produced record goes (docs/ARCHITECTURE.md
// §5, the REST gateway's produce).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "domain/murmur2.hpp"

namespace troupe::client {

/// Kafka's producer partitioner as REST Proxy uses it: a keyed record goes
/// to murmur2(key) % partitions (BuiltInPartitioner.partitionForKey), an
/// unkeyed one to the next partition in turn (round robin).
class partitioner {
public:
  /// The partition of a record with `key` in a topic of `partitions` (> 0).
  int32_t partition(const std::optional<std::vector<uint8_t>>& key,
                    int32_t partitions) {
    if (key) {
      std::string_view k{reinterpret_cast<const char*>(key->data()),
                         key->size()};
      return partition_for_key(k, partitions);
    }
    return static_cast<int32_t>(next_++ % static_cast<uint32_t>(partitions));
  }

private:
  uint32_t next_ = 0;
};

} // namespace troupe::client
