#pragma once

// The one writer of __consumer_offsets (docs/ARCHITECTURE.md §3): classic
// groups (offset commits, group metadata), KIP-848 consumer groups (their
// records) and the switch between the two protocols (tombstones) all append
// through it, as Kafka's coordinators append through one PartitionWriter.

#include <cstdint>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "domain/log/record_batch.hpp"
#include "messages/interfaces.hpp"
#include "storage/offsets_records.hpp"

namespace troupe {

/// Where a group's records go: this broker's leader replica of the group's
/// __consumer_offsets partition, written with acks=all.
struct offsets_log {
  /// Null without log.dirs: nothing is written, groups live in memory.
  replica_actor replica;
  topic_partition partition;
  /// offsets.commit.timeout.ms, for every write.
  int32_t timeout_ms = 5000;

  bool durable() const noexcept {
    return replica != nullptr;
  }
};

/// Appends `records` as one batch stamped with the wall clock;
/// `done(error_code)` gets the replica's answer as it is (REQUEST_TIMED_OUT
/// when none came): each caller maps it to what its client understands. Without a replica,
/// `done(none)` runs at once.
template <class Self, class Done>
void write_offsets(Self* self, const offsets_log& log,
                   std::vector<record_kv> records, Done done) {
  if (!log.durable()) {
    done(error_code::none);
    return;
  }
  // Record timestamps are wall-clock time, as Kafka's: tools that read the
  // topic show them as dates.
  auto now = wall_now_ms(self);
  std::vector<record> batch;
  batch.reserve(records.size());
  for (auto& kv : records)
    batch.push_back(record{std::move(kv.key), std::move(kv.value), now, {}});
  auto shared = std::make_shared<Done>(std::move(done));
  request_then(
    self, log.replica, ms(log.timeout_ms) * 2,
    produce_request{log.partition, -1, log.timeout_ms,
                    encode_batch(0, 0, batch)},
    [shared](produce_response& r) { (*shared)(r.error); },
    [shared](caf::error&) { (*shared)(error_code::request_timed_out); });
}

} // namespace troupe
