#pragma once

// Record batches of plain string values, and back: what the replication and
// idempotence tests produce and read.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "domain/log/record_batch.hpp"

namespace troupe::test {

/// One batch of `values` (timestamp 1000, no keys); an idempotent
/// producer's when `producer_id` is set, its sequence starting at `first`.
inline bytes batch_of(const std::vector<std::string>& values,
                      int64_t producer_id = -1, int16_t epoch = -1,
                      int32_t first = -1) {
  std::vector<record> rs;
  for (auto& v : values)
    rs.push_back({std::nullopt, bytes(v.begin(), v.end()), 1000, {}});
  return encode_batch(0, 0, rs, producer_id, epoch, first);
}

/// The values of every batch in `records`, in order.
inline std::vector<std::string> values_of(const bytes& records) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < records.size()) {
    auto size = next_batch_size(records.data() + pos, records.size() - pos);
    REQUIRE(size);
    auto rs = decode_records(records.data() + pos, *size);
    REQUIRE(rs);
    for (auto& r : *rs)
      out.emplace_back(r.value->begin(), r.value->end());
    pos += *size;
  }
  return out;
}

} // namespace troupe::test
