// Idempotent producers (KIP-98) as Kafka's ProducerStateManager keeps them
// on a partition leader (docs/ARCHITECTURE.md §4).

#include <catch2/catch.hpp>

#include <limits>

#include "domain/log/record_batch.hpp"
#include "domain/replication/producer_state.hpp"

using namespace troupe;

namespace {

using outcome = producer_state::outcome;

const std::string tp = "t-0";

producer_batch batch(int64_t pid, int16_t epoch, int32_t first, int32_t count,
                     int64_t timestamp = 1000) {
  producer_batch b;
  b.producer_id = pid;
  b.producer_epoch = epoch;
  b.first_sequence = first;
  b.offset_delta = count - 1;
  // DefaultRecordBatch.incrementSequence: past INT32_MAX it wraps to 0
  // (computed in 64 bits: first + count overflowed an int, UBSan said).
  auto last = int64_t{first} + count - 1;
  b.last_sequence = static_cast<int32_t>(
    last > std::numeric_limits<int32_t>::max()
      ? last - std::numeric_limits<int32_t>::max() - 1
      : last);
  b.max_timestamp = timestamp;
  return b;
}

/// Checks, begins and completes an append at `offset`, as the leader does.
void append(producer_state& s, const producer_batch& b, int64_t offset) {
  auto v = s.check(b, tp);
  REQUIRE(v.what == outcome::append);
  s.begin_append(b);
  s.complete_append(b, offset, offset + b.offset_delta);
}

} // namespace

TEST_CASE("a producer id the partition has never seen may start at any "
          "sequence") {
  producer_state s;
  CHECK(s.check(batch(7, 0, 0, 3), tp).what == outcome::append);
  CHECK(s.check(batch(7, 0, 42, 3), tp).what == outcome::append);
}

TEST_CASE("a retried batch is a duplicate answered with the original's "
          "offsets") {
  producer_state s;
  append(s, batch(7, 0, 0, 3), 100);
  append(s, batch(7, 0, 3, 2), 103);
  auto v = s.check(batch(7, 0, 0, 3), tp);
  REQUIRE(v.what == outcome::duplicate);
  CHECK(v.original.first_offset == 100);
  CHECK(v.original.last_offset == 102);
  auto w = s.check(batch(7, 0, 3, 2), tp);
  REQUIRE(w.what == outcome::duplicate);
  CHECK(w.original.first_offset == 103);
}

TEST_CASE("a retry of a batch still being appended waits for it") {
  producer_state s;
  auto b = batch(7, 0, 0, 3);
  REQUIRE(s.check(b, tp).what == outcome::append);
  s.begin_append(b);
  CHECK(s.check(b, tp).what == outcome::duplicate_pending);
  // The next batch is checked against the one underway.
  CHECK(s.check(batch(7, 0, 3, 1), tp).what == outcome::append);
  CHECK(s.check(batch(7, 0, 4, 1), tp).error
        == error_code::out_of_order_sequence_number);
  s.complete_append(b, 50, 52);
  auto v = s.check(b, tp);
  REQUIRE(v.what == outcome::duplicate);
  CHECK(v.original.first_offset == 50);
}

TEST_CASE("a batch the log refused is forgotten and may be sent again") {
  producer_state s;
  auto b = batch(7, 0, 0, 3);
  s.begin_append(b);
  s.abort_append(b);
  CHECK(s.check(b, tp).what == outcome::append);
  CHECK(s.find(7)->batches.empty());
}

TEST_CASE("only the last five batches are retained for duplicate detection") {
  producer_state s;
  for (int32_t i = 0; i < 6; ++i)
    append(s, batch(7, 0, i * 2, 2), i * 2);
  CHECK(s.find(7)->batches.size() == producer_state::batches_to_retain);
  // The first batch fell out: its retry is no duplicate, and no longer in
  // sequence either.
  auto v = s.check(batch(7, 0, 0, 2), tp);
  CHECK(v.what == outcome::refused);
  CHECK(v.error == error_code::out_of_order_sequence_number);
  CHECK(s.check(batch(7, 0, 2, 2), tp).what == outcome::duplicate);
}

TEST_CASE("a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER") {
  producer_state s;
  append(s, batch(7, 0, 0, 3), 0);
  auto v = s.check(batch(7, 0, 4, 1), tp);
  CHECK(v.what == outcome::refused);
  CHECK(v.error == error_code::out_of_order_sequence_number);
  CHECK(v.message.find("Out of order sequence number") != std::string::npos);
  // An overlapping range that is not a retained batch is out of order too.
  CHECK(s.check(batch(7, 0, 1, 3), tp).error
        == error_code::out_of_order_sequence_number);
  CHECK(s.check(batch(7, 0, 3, 1), tp).what == outcome::append);
}

TEST_CASE("an epoch older than the producer's is INVALID_PRODUCER_EPOCH") {
  producer_state s;
  append(s, batch(7, 3, 0, 1), 0);
  auto v = s.check(batch(7, 2, 1, 1), tp);
  CHECK(v.what == outcome::refused);
  CHECK(v.error == error_code::invalid_producer_epoch);
  // Even with the sequence range of a retained batch: another epoch's
  // batch is no duplicate.
  CHECK(s.check(batch(7, 2, 0, 1), tp).error
        == error_code::invalid_producer_epoch);
}

TEST_CASE("a new producer epoch must start at sequence 0") {
  producer_state s;
  append(s, batch(7, 0, 0, 5), 0);
  CHECK(s.check(batch(7, 1, 5, 1), tp).error
        == error_code::out_of_order_sequence_number);
  append(s, batch(7, 1, 0, 1), 5);
  // The new epoch replaced the old one's batches.
  CHECK(s.find(7)->epoch == 1);
  CHECK(s.find(7)->batches.size() == 1);
  CHECK(s.check(batch(7, 0, 5, 1), tp).error
        == error_code::invalid_producer_epoch);
}

TEST_CASE("a batch with a producer id and a negative sequence is "
          "INVALID_RECORD") {
  producer_state s;
  auto v = s.check(batch(7, 0, -1, 1), tp);
  CHECK(v.what == outcome::refused);
  CHECK(v.error == error_code::invalid_record);
}

TEST_CASE("the sequence wraps from INT32_MAX to 0") {
  constexpr auto max = std::numeric_limits<int32_t>::max();
  producer_state s;
  auto last = batch(7, 0, max, 1);
  s.replay(last, 10, 10);
  CHECK(s.check(batch(7, 0, 0, 1), tp).what == outcome::append);
  // A batch spanning the wrap ends at a small sequence (DefaultRecordBatch
  // .incrementSequence).
  auto bytes = encode_batch(0, 0,
                            {{std::nullopt, std::nullopt, 1, {}},
                             {std::nullopt, std::nullopt, 1, {}},
                             {std::nullopt, std::nullopt, 1, {}}},
                            7, 0, max - 1);
  auto h = parse_header(bytes.data(), bytes.size());
  REQUIRE(h);
  auto b = producer_batch::of(*h);
  CHECK(b.first_sequence == max - 1);
  CHECK(b.last_sequence == 0);
}

TEST_CASE("the state rebuilt from the log's batches detects the same "
          "duplicates") {
  producer_state leader;
  append(leader, batch(7, 0, 0, 3), 0);
  append(leader, batch(9, 2, 10, 1), 3);
  append(leader, batch(7, 0, 3, 3), 4);
  producer_state rebuilt;
  rebuilt.replay(batch(7, 0, 0, 3), 0, 2);
  rebuilt.replay(batch(9, 2, 10, 1), 3, 3);
  rebuilt.replay(batch(7, 0, 3, 3), 4, 6);
  for (auto* s : {&leader, &rebuilt}) {
    auto v = s->check(batch(7, 0, 3, 3), tp);
    REQUIRE(v.what == outcome::duplicate);
    CHECK(v.original.first_offset == 4);
    CHECK(s->check(batch(7, 0, 6, 1), tp).what == outcome::append);
    CHECK(s->check(batch(9, 1, 11, 1), tp).error
          == error_code::invalid_producer_epoch);
  }
  // Batches without a producer id leave no state.
  rebuilt.replay(batch(-1, -1, -1, 1), 7, 7);
  CHECK(rebuilt.size() == 2);
}

TEST_CASE("producers idle for producer.id.expiration.ms are forgotten") {
  producer_state s;
  append(s, batch(7, 0, 0, 1, 1000), 0);
  append(s, batch(8, 0, 0, 1, 5000), 1);
  s.remove_expired(86401000 - 1, 86400000);
  CHECK(s.size() == 2);
  s.remove_expired(86401000, 86400000);
  CHECK(s.find(7) == nullptr);
  CHECK(s.find(8) != nullptr);
}
