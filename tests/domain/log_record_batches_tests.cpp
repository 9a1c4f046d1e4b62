#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

using namespace troupe;

namespace {

using bytes = std::vector<uint8_t>;

/// A batch of `n` one-byte records starting at `base`.
bytes batch_at(int64_t base, int n) {
  std::vector<record> rs;
  for (int i = 0; i < n; ++i)
    rs.push_back({std::nullopt, bytes{static_cast<uint8_t>('a' + i)}, 1000, {}});
  return encode_batch(base, 0, rs);
}

bytes concat(const std::vector<bytes>& parts) {
  bytes out;
  for (auto& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

} // namespace

TEST_CASE("a record set is walked batch by batch in order", "[record_batches]") {
  auto first = batch_at(0, 2);
  auto second = batch_at(2, 3);
  auto set = concat({first, second});
  std::vector<int64_t> bases;
  std::vector<size_t> positions;
  for (auto& b : record_batches{set}) {
    bases.push_back(b.header.base_offset);
    positions.push_back(b.position);
    CHECK(b.records());
  }
  CHECK(bases == std::vector<int64_t>{0, 2});
  CHECK(positions == std::vector<size_t>{0, first.size()});
  CHECK(record_batches{set}.whole());
  CHECK(record_batches{set}.whole_size() == set.size());
}

TEST_CASE("a batch's next offset follows its last offset delta",
          "[record_batches]") {
  auto set = batch_at(5, 3);
  auto b = *record_batches{set}.begin();
  CHECK(b.last_offset() == 7);
  CHECK(b.next_offset() == 8);
  CHECK(b.end() == set.size());
}

TEST_CASE("the walk stops before a batch cut short, as Kafka's "
          "ByteBufferLogInputStream",
          "[record_batches]") {
  auto first = batch_at(0, 2);
  auto set = concat({first, batch_at(2, 3)});
  set.resize(set.size() - 1);
  size_t n = 0;
  for (auto& b : record_batches{set}) {
    CHECK(b.header.base_offset == 0);
    ++n;
  }
  CHECK(n == 1);
  CHECK_FALSE(record_batches{set}.whole());
  CHECK(record_batches{set}.whole_size() == first.size());
}

TEST_CASE("the walk stops at a batch length shorter than a batch header",
          "[record_batches]") {
  auto set = batch_at(0, 1);
  set[8] = set[9] = set[10] = 0;
  set[11] = 10; // batchLength 10 < 49
  CHECK(record_batches{set}.begin() == record_batches{set}.end());
  CHECK(record_batches{set}.whole_size() == 0);
}

TEST_CASE("an empty record set has no batches and is whole",
          "[record_batches]") {
  bytes none;
  CHECK(record_batches{none}.begin() == record_batches{none}.end());
  CHECK(record_batches{none}.whole());
}
