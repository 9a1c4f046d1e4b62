#pragma once

// Kafka's Uuid (org.apache.kafka.common.Uuid): 128 bits, printed as URL-safe
// base64 without padding (22 characters), e.g. a topic id in
// /brokers/topics/<t>.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "domain/zookeeper/decoded.hpp"

namespace troupe::zk {

struct kafka_uuid {
  uint64_t most_significant = 0;
  uint64_t least_significant = 0;

  friend bool operator==(const kafka_uuid& x, const kafka_uuid& y) {
    return x.most_significant == y.most_significant
           && x.least_significant == y.least_significant;
  }
  friend bool operator!=(const kafka_uuid& x, const kafka_uuid& y) {
    return !(x == y);
  }
};

/// Uuid.toString: Base64.getUrlEncoder().withoutPadding() of the 16 bytes,
/// most significant first.
std::string to_string(const kafka_uuid& id);

/// Uuid.fromString: URL-safe base64 (padding optional) of exactly 16 bytes,
/// at most 24 characters.
decoded<kafka_uuid> parse_kafka_uuid(std::string_view text);

/// Uuid.randomUuid: a version 4 UUID that is neither of Kafka's reserved ids
/// (0 and 1) nor printed with a leading '-'.
kafka_uuid random_kafka_uuid(std::mt19937_64& rng);

} // namespace troupe::zk
