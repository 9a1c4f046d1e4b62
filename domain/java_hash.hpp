#pragma once

#include <cstdint>
#include <string_view>

namespace troupe {

/// Java's String.hashCode() of a UTF-8 string: s[0]*31^(n-1) + ... over the
/// string's UTF-16 code units, with 32-bit wraparound. Invalid UTF-8 bytes
/// count as U+FFFD, as Java's decoder replaces them.
int32_t java_string_hash(std::string_view utf8) noexcept;

/// Kafka's Utils.abs: abs(INT32_MIN) is 0, not INT32_MIN.
constexpr int32_t kafka_abs(int32_t n) noexcept {
  return n == INT32_MIN ? 0 : (n < 0 ? -n : n);
}

/// The __consumer_offsets partition that holds a group (Kafka's
/// GroupMetadataManager.partitionFor): abs(hash(group_id)) % partitions.
int32_t offsets_partition_for(std::string_view group_id,
                              int32_t offsets_topic_partitions) noexcept;

} // namespace troupe
