#pragma once

#include <cstdint>
#include <string_view>

namespace troupe {

/// Kafka's Utils.murmur2: MurmurHash2 (32 bit, seed 0x9747b28c) over the
/// key's bytes, as the Java producer's default partitioner computes it.
int32_t murmur2(std::string_view bytes) noexcept;

/// The partition Kafka's default partitioner picks for a keyed record
/// (BuiltInPartitioner.partitionForKey): toPositive(murmur2(key)) % n.
int32_t partition_for_key(std::string_view key, int32_t partitions) noexcept;

} // namespace troupe
