#pragma once

// Kafka's Uuid (org.apache.kafka.common.Uuid): 128 bits, printed as 22
// characters of URL-safe base64 without padding. Topic ids and the member
// ids of KIP-848 groups are Uuids.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>

namespace troupe {

struct uuid {
  uint64_t high = 0;
  uint64_t low = 0;

  bool is_zero() const noexcept {
    return high == 0 && low == 0;
  }

  friend bool operator==(const uuid& x, const uuid& y) noexcept {
    return x.high == y.high && x.low == y.low;
  }
  friend bool operator!=(const uuid& x, const uuid& y) noexcept {
    return !(x == y);
  }
  friend bool operator<(const uuid& x, const uuid& y) noexcept {
    return std::tie(x.high, x.low) < std::tie(y.high, y.low);
  }
};

/// Kafka's Uuid.toString: URL-safe base64 of the 16 big-endian bytes, no
/// padding.
std::string to_string(const uuid& x);

/// Kafka's Uuid.fromString; nullopt unless `text` is 22 base64url
/// characters (optionally padded with "==") that decode to 16 bytes.
std::optional<uuid> uuid_from_string(std::string_view text);

/// Kafka's Uuid.randomUuid: a version-4 UUID that is neither of the
/// reserved ids (zero, the metadata topic's 1) and whose string form does
/// not start with '-' (so that it never reads as a command-line flag).
uuid random_uuid(std::mt19937_64& rng);

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, uuid& x) {
  return f(x.high, x.low);
}

} // namespace troupe
