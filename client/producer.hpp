#pragma once

// troupe's Kafka client: a producer's state (docs/ARCHITECTURE.md §5, the
// REST gateway's produce): its topic metadata, its partitioner and its
// accumulator, owned by one actor (a REST bridge) and touched only there.

#include <cstdint>

#include "client/metadata_cache.hpp"
#include "client/partitioner.hpp"
#include "client/record_accumulator.hpp"

namespace troupe::client {

struct producer {
  /// metadata.max.age.ms
  static constexpr int64_t metadata_max_age_ms = 5000;

  metadata_cache metadata{metadata_max_age_ms};
  client::partitioner partitioner;
  record_accumulator accumulator;
};

} // namespace troupe::client
