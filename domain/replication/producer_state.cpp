#include "domain/replication/producer_state.hpp"

#include <algorithm>
#include <limits>

#include "domain/log/record_batch.hpp"

namespace troupe {

namespace {

constexpr int32_t int32_max = std::numeric_limits<int32_t>::max();

/// Kafka's DefaultRecordBatch.incrementSequence.
int32_t increment_sequence(int32_t sequence, int32_t increment) {
  if (sequence > int32_max - increment)
    return increment - (int32_max - sequence) - 1;
  return sequence + increment;
}

/// Kafka's ProducerAppendInfo.inSequence.
bool in_sequence(int32_t last, int32_t next) {
  return int64_t{next} == int64_t{last} + 1 || (next == 0 && last == int32_max);
}

std::string producer_name(int64_t id) {
  return "producer " + std::to_string(id);
}

} // namespace

producer_batch producer_batch::of(const batch_header& h) {
  producer_batch b;
  b.producer_id = h.producer_id;
  b.producer_epoch = h.producer_epoch;
  b.first_sequence = h.base_sequence;
  b.offset_delta = h.last_offset_delta;
  b.last_sequence =
    h.base_sequence < 0
      ? h.base_sequence
      : increment_sequence(h.base_sequence, std::max(0, h.last_offset_delta));
  b.max_timestamp = h.max_timestamp;
  return b;
}

// -- the leader's appends -----------------------------------------------------

producer_state::verdict
producer_state::check(const producer_batch& b,
                      const std::string& partition) const {
  verdict v;
  auto refuse = [&](error_code e, std::string message) {
    v.what = outcome::refused;
    v.error = e;
    v.message = std::move(message);
    return v;
  };
  if (b.first_sequence < 0)
    return refuse(error_code::invalid_record,
                  "Invalid sequence number " + std::to_string(b.first_sequence)
                    + " in record batch with producerId "
                    + std::to_string(b.producer_id));
  auto i = producers_.find(b.producer_id);
  if (i == producers_.end())
    return v; // no state: any sequence starts the producer (KIP-360)
  auto& e = i->second;
  // UnifiedLog: duplicates are looked for before anything is validated.
  if (b.producer_epoch == e.epoch)
    for (auto& m : e.batches)
      if (m.first_sequence == b.first_sequence
          && m.last_sequence == b.last_sequence) {
        v.what = m.pending() ? outcome::duplicate_pending : outcome::duplicate;
        v.original = m;
        return v;
      }
  // ProducerAppendInfo.checkProducerEpoch
  if (b.producer_epoch < e.epoch)
    return refuse(error_code::invalid_producer_epoch,
                  "Epoch of " + producer_name(b.producer_id) + " in "
                    + partition + " is " + std::to_string(b.producer_epoch)
                    + ", which is smaller than the last seen epoch "
                    + std::to_string(e.epoch));
  // ProducerAppendInfo.checkSequence
  if (b.producer_epoch != e.epoch) {
    if (b.first_sequence != 0 && e.epoch != -1)
      return refuse(error_code::out_of_order_sequence_number,
                    "Invalid sequence number for new epoch of "
                      + producer_name(b.producer_id) + " in partition "
                      + partition + ": " + std::to_string(b.producer_epoch)
                      + " (request epoch), "
                      + std::to_string(b.first_sequence) + " (seq. number), "
                      + std::to_string(e.epoch) + " (current producer epoch)");
    return v;
  }
  if (e.epoch != -1 && !in_sequence(e.last_sequence(), b.first_sequence))
    return refuse(error_code::out_of_order_sequence_number,
                  "Out of order sequence number for "
                    + producer_name(b.producer_id) + " in partition "
                    + partition + ": " + std::to_string(b.first_sequence)
                    + " (incoming seq. number), "
                    + std::to_string(e.last_sequence())
                    + " (current end sequence number)");
  return v;
}

void producer_state::begin_append(const producer_batch& b) {
  add(b.producer_id, b.producer_epoch,
      {b.first_sequence, b.last_sequence, -1, -1, b.max_timestamp});
}

void producer_state::complete_append(const producer_batch& b,
                                     int64_t first_offset,
                                     int64_t last_offset) {
  auto i = producers_.find(b.producer_id);
  if (i == producers_.end() || i->second.epoch != b.producer_epoch)
    return; // a newer epoch replaced it meanwhile
  for (auto& m : i->second.batches)
    if (m.pending() && m.first_sequence == b.first_sequence
        && m.last_sequence == b.last_sequence) {
      m.first_offset = first_offset;
      m.last_offset = last_offset;
      return;
    }
}

void producer_state::abort_append(const producer_batch& b) {
  auto i = producers_.find(b.producer_id);
  if (i == producers_.end() || i->second.epoch != b.producer_epoch)
    return;
  auto& batches = i->second.batches;
  batches.erase(std::remove_if(batches.begin(), batches.end(),
                               [&](const producer_batch_metadata& m) {
                                 return m.pending()
                                        && m.first_sequence == b.first_sequence
                                        && m.last_sequence == b.last_sequence;
                               }),
                batches.end());
}

// -- the log ------------------------------------------------------------------

void producer_state::replay(const producer_batch& b, int64_t first_offset,
                            int64_t last_offset) {
  if (!b.has_producer_id())
    return;
  add(b.producer_id, b.producer_epoch,
      {b.first_sequence, b.last_sequence, first_offset, last_offset,
       b.max_timestamp});
}

void producer_state::remove_expired(int64_t now_ms, int64_t expiration_ms) {
  for (auto i = producers_.begin(); i != producers_.end();) {
    auto& e = i->second;
    bool pending = std::any_of(e.batches.begin(), e.batches.end(),
                               [](auto& m) { return m.pending(); });
    if (!pending && now_ms - e.last_timestamp >= expiration_ms)
      i = producers_.erase(i);
    else
      ++i;
  }
}

const producer_entry* producer_state::find(int64_t producer_id) const {
  auto i = producers_.find(producer_id);
  return i == producers_.end() ? nullptr : &i->second;
}

// -- private ------------------------------------------------------------------

void producer_state::add(int64_t producer_id, int16_t epoch,
                         producer_batch_metadata m) {
  auto& e = producers_[producer_id];
  // ProducerStateEntry.maybeUpdateProducerEpoch: another epoch starts over.
  if (e.epoch != epoch) {
    e.batches.clear();
    e.epoch = epoch;
  }
  if (e.batches.size() == batches_to_retain)
    e.batches.pop_front();
  e.last_timestamp = m.timestamp;
  e.batches.push_back(m);
}

} // namespace troupe
