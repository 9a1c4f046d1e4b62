#pragma once

// Kafka's embedded consumer protocol: the bytes a consumer puts in its
// JoinGroup protocol metadata (ConsumerProtocolSubscription) and the bytes the
// leader sends per member in SyncGroup (ConsumerProtocolAssignment), big-endian
// as on the wire, so real Kafka clients and troupe's consumer interoperate.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

using bytes = std::vector<uint8_t>;

struct consumer_subscription {
  std::vector<std::string> topics;
  bytes user_data; // nullable on the wire; empty = null
  std::vector<topic_partition> owned_partitions; // v1+
  int32_t generation = -1;                       // v2+
  std::string rack_id;                           // v3+, empty = null
};

struct consumer_assignment {
  std::vector<topic_partition> partitions;
  bytes user_data;
};

/// Encodes with the given schema version (0..3; 1 is what Kafka 2.4+ sends
/// when owned partitions matter).
bytes encode_subscription(const consumer_subscription& x, int16_t version = 1);
bytes encode_assignment(const consumer_assignment& x, int16_t version = 1);

/// Decodes any version >= 0; fields of versions newer than the reader's are
/// ignored, as Kafka's ConsumerProtocol does. std::nullopt on malformed bytes
/// (truncated, negative lengths other than null, lengths past the end).
std::optional<consumer_subscription> decode_subscription(const bytes& buf);
std::optional<consumer_assignment> decode_assignment(const bytes& buf);

/// User data of Kafka's StickyAssignor (eager): the previous assignment and
/// its generation (STICKY_ASSIGNOR_USER_DATA_V1).
bytes encode_sticky_user_data(const std::vector<topic_partition>& owned,
                              int32_t generation);
struct sticky_user_data {
  std::vector<topic_partition> owned;
  int32_t generation = -1;
};
std::optional<sticky_user_data> decode_sticky_user_data(const bytes& buf);

/// User data of Kafka's CooperativeStickyAssignor: the generation (int32).
bytes encode_cooperative_user_data(int32_t generation);
std::optional<int32_t> decode_cooperative_user_data(const bytes& buf);

} // namespace troupe
