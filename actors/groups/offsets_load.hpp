#pragma once

// The replay of one __consumer_offsets partition (docs/ARCHITECTURE.md §3):
// Kafka's GroupMetadataManager.loadGroupsAndOffsets reads the partition a
// broker now leads from its start and rebuilds every group in it.

#include <cstdint>
#include <functional>

#include "actors/groups/group_service.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

/// Reads `partition` from `log` in chunks and applies every record;
/// `done(state)` gets what the partition holds once its end is reached (or
/// a read failed: what was read so far). `wanted()` is asked before each
/// step: false (a newer load, a resignation) stops the replay silently.
void replay_offsets_partition(
  group_service_ptr self, log_manager_actor log, int32_t partition,
  std::function<bool()> wanted,
  std::function<void(offsets_partition_state&)> done);

} // namespace troupe
