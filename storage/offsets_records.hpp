#pragma once

// Records of __consumer_offsets as key/value bytes (protobuf), and their
// replay: a coordinator that takes over an offsets partition rebuilds every
// group's committed offsets and last stored metadata from them, as Kafka's
// GroupMetadataManager.loadGroupsAndOffsets does. A record without a value
// is a tombstone. KIP-848 consumer groups add their own records (domain/
// consumer_group/records.hpp), replayed into one image per group.

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

/// Everything one offsets partition says about its groups.
struct offsets_partition_state {
  std::map<std::string, std::map<topic_partition, committed_offset>> offsets;
  std::map<std::string, stored_group> groups;
  /// KIP-848 groups, without their offsets (those are in `offsets`).
  std::map<std::string, consumer_group_image> consumer_groups;
  /// Records that could not be parsed (skipped, as Kafka logs and skips).
  size_t malformed = 0;

  /// Applies one record in log order; later records win, tombstones erase.
  void apply(const record_kv& record);
};

/// What a coordinator taking a KIP-848 group over restores it from
/// (consumer_group::restore): the group's image with its committed offsets.
consumer_group_image loaded_consumer_group(const offsets_partition_state& st,
                                           const std::string& group);

} // namespace troupe
