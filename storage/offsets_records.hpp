#pragma once

// Records of __consumer_offsets as key/value bytes, and their replay: a
// coordinator that takes over an offsets partition rebuilds every group's
// committed offsets and last stored metadata from them, as Kafka's
// GroupMetadataManager.loadGroupsAndOffsets does. A record without a value
// is a tombstone. KIP-848 consumer groups add their own records (domain/
// consumer_group/records.hpp), replayed into one image per group.
//
// Written in Kafka's own record schemas (domain/kafka/coordinator_records,
// docs/ARCHITECTURE.md §3): a key is an int16 record type, so its first
// byte is 0x00. The release before issue 20 wrote protobuf records
// (proto/consumer_offsets.proto, ConsumerOffsetsRecord with only the key or
// only the value set): their first byte is a field tag, never 0 (protobuf
// has no field 0, and every key sets a oneof message field). The replay
// reads both; a partition that still holds protobuf records is rewritten
// once loaded (upgrade_batches below).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/consumer_group/records.hpp"
#include "domain/offset_store.hpp"
#include "domain/topic_partition.hpp"

namespace troupe {

using bytes = std::vector<uint8_t>;

struct stored_member {
  std::string member_id;
  std::string group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  bytes subscription;
  bytes assignment;

  friend bool operator==(const stored_member& x, const stored_member& y) {
    return x.member_id == y.member_id
           && x.group_instance_id == y.group_instance_id
           && x.client_id == y.client_id && x.client_host == y.client_host
           && x.rebalance_timeout_ms == y.rebalance_timeout_ms
           && x.session_timeout_ms == y.session_timeout_ms
           && x.subscription == y.subscription && x.assignment == y.assignment;
  }
};

/// What Kafka's GroupMetadataValue holds: the group after a rebalance.
struct stored_group {
  std::string protocol_type;
  int32_t generation = 0;
  std::string protocol;
  std::string leader;
  int64_t timestamp_ms = 0;
  std::vector<stored_member> members;

  friend bool operator==(const stored_group& x, const stored_group& y) {
    return x.protocol_type == y.protocol_type && x.generation == y.generation
           && x.protocol == y.protocol && x.leader == y.leader
           && x.timestamp_ms == y.timestamp_ms && x.members == y.members;
  }
};

struct record_kv {
  bytes key;
  std::optional<bytes> value; // nullopt: tombstone
};

record_kv offset_commit_record(const std::string& group,
                               const topic_partition& tp,
                               const committed_offset& value);
record_kv offset_tombstone(const std::string& group, const topic_partition& tp);
record_kv group_metadata_record(const std::string& group,
                                const stored_group& value);
record_kv group_tombstone(const std::string& group);

/// A KIP-848 group's record as __consumer_offsets bytes, keyed as Kafka's
/// (group) or (group, member id); its offset records use the encoding of
/// offset_commit_record.
record_kv consumer_group_record_kv(const std::string& group,
                                   const consumer_group_record& record);

/// Whether `key` is a record key of the release before issue 20 (protobuf).
bool is_legacy_key(const bytes& key) noexcept;

/// Everything one offsets partition says about its groups.
struct offsets_partition_state {
  std::map<std::string, std::map<topic_partition, committed_offset>> offsets;
  std::map<std::string, stored_group> groups;
  /// KIP-848 groups, without their offsets (those are in `offsets`).
  std::map<std::string, consumer_group_image> consumer_groups;
  /// Records that could not be parsed or whose record type is unknown
  /// (skipped, as Kafka's CoordinatorLoaderImpl logs and skips them).
  size_t malformed = 0;
  /// Each protobuf key seen, as its bytes, and whether its last record so
  /// far holds a value (false: a tombstone).
  std::map<bytes, bool> legacy_keys;

  /// Applies one record in log order; later records win, tombstones erase.
  void apply(const record_kv& record);

  /// Some protobuf key's last record holds a value: the partition needs the
  /// upgrade rewrite.
  bool needs_upgrade() const;
};

/// The upgrade rewrite of a loaded partition that holds protobuf records
/// (docs/ARCHITECTURE.md §3), in batches to append in order.
///
/// The rule: for each protobuf key whose last record holds a value, a
/// tombstone of that key (its own protobuf bytes) FOLLOWED, in the same
/// batch, by the current state of the same logical key in Kafka's format
/// (its record, or a Kafka tombstone when the state has none); for a KIP-848
/// group, the whole group's current records, because the replay of its
/// group epoch tombstone erases the group. In each batch all protobuf
/// tombstones come first, then all Kafka records. Why this order:
///   - The replay maps both formats to the same logical key, so a protobuf
///     tombstone erases what an earlier record of either format set. Placed
///     before the Kafka records it cannot erase them; placed after, it would.
///   - Compaction keys on bytes: the protobuf key's last record is now its
///     tombstone, so the cleaner drops every protobuf value, and the
///     tombstone after delete.retention.ms; it never reorders records, so a
///     log part-way through cleaning replays to the same state.
///   - Tombstone and replacement of one key travel in one batch, so a crash
///     keeps both or neither. Normally everything is one batch; a partition
///     whose rewrite exceeds `max_batch_bytes` is split between logical keys
///     (a KIP-848 group never), each batch whole in itself.
///   - A failed or partial rewrite leaves protobuf values, so the next load
///     rewrites again from the state it replayed, which is the latest.
/// Protobuf keys whose last record is a tombstone need nothing: no value of
/// theirs survives compaction. The old release stamped commits and group
/// states with its steady clock; the rewritten records carry
/// loaded_timestamp_ms(stamp, now_ms) (domain/offsets/committed_offsets.hpp),
/// the load's wall clock for such a stamp, as Kafka's tools and offsets
/// expiry read them.
std::vector<std::vector<record_kv>>
upgrade_batches(const offsets_partition_state& st, int64_t now_ms,
                size_t max_batch_bytes = 512 * 1024);

/// The records of a KIP-848 group's current image, in Kafka's order of
/// writing (member metadata, partition metadata, group epoch, target
/// assignment, its epoch, current assignments); its offsets are not among
/// them.
std::vector<record_kv> consumer_group_records(const std::string& group,
                                              const consumer_group_image& g);

/// What a coordinator taking a KIP-848 group over restores it from
/// (consumer_group::restore): the group's image with its committed offsets.
consumer_group_image loaded_consumer_group(const offsets_partition_state& st,
                                           const std::string& group);

} // namespace troupe
