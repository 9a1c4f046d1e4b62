#pragma once

// The records a KIP-848 group writes to __consumer_offsets, as plain
// structs (Kafka's ConsumerGroup*Key/Value in group-coordinator/src/main/
// resources/common/message/), and their replay into a consumer_group_image.
//
// As in Kafka's new coordinator the group's state *is* the replay of its
// records: consumer_group applies every record it emits to its own image,
// a coordinator that takes over replays them from the log into the same
// image, and consumer_group::restore starts from it. storage/
// offsets_records turns them into bytes.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "domain/consumer_group/assignment.hpp"
#include "domain/consumer_group/member.hpp"
#include "domain/offset_store.hpp"
#include "domain/topic_partition.hpp"

namespace troupe {

// -- records (a `tombstone` carries only the key) -----------------------------

/// ConsumerGroupMetadata: the group epoch. Its tombstone deletes the group.
struct group_epoch_record {
  int32_t epoch = 0;
  bool tombstone = false;
};

/// ConsumerGroupPartitionMetadata: the subscribed topics' metadata.
struct subscription_metadata_record {
  std::vector<topic_info> topics;
  bool tombstone = false;
};

/// ConsumerGroupMemberMetadata: a member's subscription. Its tombstone
/// removes the member.
struct member_metadata_record {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
  bool tombstone = false;
};

/// ConsumerGroupTargetAssignmentMetadata: the assignment epoch.
struct target_assignment_epoch_record {
  int32_t assignment_epoch = 0;
  bool tombstone = false;
};

/// ConsumerGroupTargetAssignmentMember: one member's target assignment.
struct target_assignment_record {
  std::string member_id;
  partition_assignment partitions;
  bool tombstone = false;
};

/// ConsumerGroupCurrentMemberAssignment: a member's epochs, state and
/// current assignment.
struct current_assignment_record {
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  member_state state = member_state::stable;
  partition_assignment assigned;
  partition_assignment pending_revocation;
  bool tombstone = false;
};

/// OffsetCommit: a committed offset of the group (the classic groups'
/// record; storage keeps its existing encoding).
struct offset_record {
  topic_partition partition;
  committed_offset value;
  bool tombstone = false;
};

using consumer_group_record =
  std::variant<group_epoch_record, subscription_metadata_record,
               member_metadata_record, target_assignment_epoch_record,
               target_assignment_record, current_assignment_record,
               offset_record>;

// -- helpers building records from a member ------------------------------------

member_metadata_record metadata_record_of(const consumer_member& m);
current_assignment_record assignment_record_of(const consumer_member& m);

// -- the replayed state -----------------------------------------------------------

/// Everything the records say about one group: what a coordinator needs to
/// carry the group on (Kafka's ConsumerGroup as GroupMetadataManager.replay
/// builds it).
struct consumer_group_image {
  /// Some record created the group (and no epoch tombstone deleted it).
  bool exists = false;
  int32_t group_epoch = 0;
  /// By topic name.
  std::map<std::string, topic_info> subscription_metadata;
  std::map<std::string, consumer_member> members;
  /// -1 after its tombstone, as Kafka.
  int32_t assignment_epoch = 0;
  std::map<std::string, partition_assignment> target_assignment;
  std::map<topic_partition, committed_offset> offsets;

  /// Applies one record in log order (Kafka's GroupMetadataManager.replay
  /// for each record type).
  void apply(const consumer_group_record& record);
};

bool operator==(const consumer_member& x, const consumer_member& y);
bool operator==(const consumer_group_image& x, const consumer_group_image& y);
inline bool operator!=(const consumer_group_image& x,
                       const consumer_group_image& y) {
  return !(x == y);
}

} // namespace troupe
