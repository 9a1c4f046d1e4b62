#pragma once

// Committed offsets, as both kinds of group keep them (docs/ARCHITECTURE.md
// §3): Kafka keeps them apart from the groups (OffsetMetadataManager beside
// GroupMetadataManager), so OffsetFetch reads them the same way for a
// classic and a KIP-848 group, and a failed __consumer_offsets write means
// the same to the clients of either.

#include <map>

#include "domain/error_code.hpp"
#include "domain/group_requests.hpp"
#include "domain/offset_store.hpp"
#include "domain/topic_partition.hpp"

namespace troupe {

/// Kafka's OffsetMetadataManager.fetchOffsets / fetchAllOffsets for one
/// group: each partition asked with its committed offset, leader epoch and
/// metadata (-1 and none when nothing is committed); every committed
/// partition when none is named.
offset_fetch_response
fetch_offsets(const std::map<topic_partition, committed_offset>& offsets,
              const offset_fetch_request& req);

/// The commit timestamp of a committed partition (Kafka's
/// GroupCoordinatorAdapter.createOffsetAndMetadata): the one OffsetCommit
/// v1 sent, else `now_ms`. Offsets expiry counts from it.
inline int64_t commit_timestamp_of(const offset_commit_partition& p,
                                   int64_t now_ms) noexcept {
  return p.commit_timestamp_ms == -1 ? now_ms : p.commit_timestamp_ms;
}

/// A commit or state timestamp as a coordinator loads it from
/// __consumer_offsets, for offsets expiry (KIP-211). Kafka's stamps, and
/// troupe's since issue 20, are wall-clock milliseconds; earlier troupe
/// releases stamped the writer's steady clock (time since its host booted),
/// which means nothing on another node: such a stamp (before 2000-01-01)
/// counts from `now_ms`, the load, so that no offset expires early.
int64_t loaded_timestamp_ms(int64_t stored_ms, int64_t now_ms) noexcept;

/// What a group wrote to __consumer_offsets.
enum class offsets_write {
  /// A classic group's OffsetCommit (GroupMetadataManager.storeOffsets).
  offset_commit,
  /// A classic group's metadata before SyncGroup answers
  /// (GroupMetadataManager.storeGroup).
  group_metadata,
  /// A KIP-848 group's records, offset commits included, and the
  /// tombstones of a group that one of the other protocol replaces (the
  /// coordinator runtime's writes, CoordinatorOperationExceptionHelper).
  group_records,
};

/// The one map from a failed __consumer_offsets write to the error a group
/// client gets: COORDINATOR_NOT_AVAILABLE while the partition cannot take
/// it, NOT_COORDINATOR when this broker lost it, and what Kafka answers
/// for each kind of write beyond that. `none` stays `none`.
error_code offsets_write_error(offsets_write what, error_code e) noexcept;

} // namespace troupe
