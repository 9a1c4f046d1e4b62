#include "domain/murmur2.hpp"

namespace troupe {

int32_t murmur2(std::string_view bytes) noexcept {
  // Kafka's Utils.murmur2, in unsigned arithmetic so that the wraparound
  // Java's int gives is defined here too.
  constexpr uint32_t seed = 0x9747b28c;
  constexpr uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  auto length = static_cast<uint32_t>(bytes.size());
  auto at = [&](uint32_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i]));
  };
  uint32_t h = seed ^ length;
  for (uint32_t i = 0; i + 4 <= length; i += 4) {
    uint32_t k =
      at(i) | (at(i + 1) << 8) | (at(i + 2) << 16) | (at(i + 3) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  auto tail = length & ~3u;
  switch (length % 4) {
    case 3:
      h ^= at(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= at(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= at(tail);
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

int32_t partition_for_key(std::string_view key, int32_t partitions) noexcept {
  if (partitions <= 0)
    return 0;
  // Utils.toPositive: clears the sign bit (not abs).
  return (murmur2(key) & 0x7fffffff) % partitions;
}

} // namespace troupe
