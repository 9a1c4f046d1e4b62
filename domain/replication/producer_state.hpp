#pragma once

// Idempotent producers (KIP-98) on a partition leader, as Kafka's
// ProducerStateManager, ProducerStateEntry and ProducerAppendInfo keep
// them: per producer id its epoch and the sequence ranges and offsets of
// its last five batches. The leader checks each client batch before it
// appends it (a retried batch is a duplicate answered with the original's
// offsets; a gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch
// INVALID_PRODUCER_EPOCH) and records it once the log assigned its offsets.
// A replica that becomes leader rebuilds the state by replaying its log's
// batch headers (docs/ARCHITECTURE.md §4). No transactions: transactional
// and control batches are not tracked.

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

#include "domain/error_code.hpp"

namespace troupe {

struct batch_header;

/// The producer fields of one RecordBatch v2 header.
struct producer_batch {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t first_sequence = -1;
  int32_t last_sequence = -1;
  /// The batch's max timestamp (Kafka's lastTimestamp of the entry).
  int64_t max_timestamp = -1;
  int32_t offset_delta = 0;

  /// Kafka's RecordBatch.hasProducerId: producer id -1 is "none".
  bool has_producer_id() const noexcept {
    return producer_id >= 0;
  }

  /// The header's producer fields; the last sequence wraps past INT32_MAX
  /// to 0 as Kafka's DefaultRecordBatch.incrementSequence.
  static producer_batch of(const batch_header& h);
};

/// One retained batch (Kafka's BatchMetadata). first_offset is -1 while
/// the log has not yet assigned the offsets of an accepted batch.
struct producer_batch_metadata {
  int32_t first_sequence = -1;
  int32_t last_sequence = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t timestamp = -1;

  bool pending() const noexcept {
    return first_offset < 0;
  }
};

/// Kafka's ProducerStateEntry without the transaction fields.
struct producer_entry {
  int16_t epoch = -1;
  std::deque<producer_batch_metadata> batches;
  int64_t last_timestamp = -1;

  int32_t last_sequence() const noexcept {
    return batches.empty() ? -1 : batches.back().last_sequence;
  }
};

class producer_state {
public:
  /// Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: the producer's
  /// max.in.flight.requests.per.connection may be at most 5 for
  /// idempotence, so a retry is always one of the last five.
  static constexpr size_t batches_to_retain = 5;

  enum class outcome {
    /// New and in sequence: append it, then complete_append.
    append,
    /// Already in the log: answer with `original`'s offsets.
    duplicate,
    /// The same batch is being appended right now: answer once it is.
    duplicate_pending,
    /// Refused with `error` and `message`.
    refused,
  };

  struct verdict {
    outcome what = outcome::append;
    error_code error = error_code::none;
    std::string message;
    producer_batch_metadata original;
  };

  // -- the leader's appends -----------------------------------------------

  /// Kafka's UnifiedLog.analyzeAndValidateProducerState for a batch from a
  /// client (AppendOrigin.CLIENT): a batch of the current epoch with the
  /// sequence range of a retained one is a duplicate; an epoch older than
  /// the producer's is INVALID_PRODUCER_EPOCH (Kafka >= 2.7, where
  /// PRODUCER_FENCED is for transaction coordinators only); a new epoch
  /// must start at sequence 0 and the current one must continue the last
  /// sequence (OUT_OF_ORDER_SEQUENCE_NUMBER otherwise). A producer id with
  /// no state may start at any sequence (Kafka since KIP-360, which
  /// retired UNKNOWN_PRODUCER_ID for the produce path). A negative base
  /// sequence is INVALID_RECORD (LogValidator). `partition` names the
  /// partition in the messages.
  verdict check(const producer_batch& b, const std::string& partition) const;

  /// Records a batch check() accepted, before the log assigned its offsets:
  /// later batches are checked against it and its retry waits for it.
  void begin_append(const producer_batch& b);

  /// The log wrote the batch begin_append recorded at these offsets.
  void complete_append(const producer_batch& b, int64_t first_offset,
                       int64_t last_offset);

  /// The log refused the batch begin_append recorded: it is forgotten.
  void abort_append(const producer_batch& b);

  // -- the log --------------------------------------------------------------

  /// A batch already in the log (a replay or a follower's copy, Kafka's
  /// AppendOrigin.REPLICATION): taken as it is, without checks.
  void replay(const producer_batch& b, int64_t first_offset,
              int64_t last_offset);

  /// Kafka's removeExpiredProducers: producers whose last batch is older
  /// than producer.id.expiration.ms are forgotten.
  void remove_expired(int64_t now_ms, int64_t expiration_ms);

  void clear() {
    producers_.clear();
  }

  // -- observers --------------------------------------------------------------

  const producer_entry* find(int64_t producer_id) const;

  size_t size() const noexcept {
    return producers_.size();
  }

private:
  void add(int64_t producer_id, int16_t epoch, producer_batch_metadata m);

  std::unordered_map<int64_t, producer_entry> producers_;
};

} // namespace troupe
