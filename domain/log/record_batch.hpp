#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"

namespace troupe {

// Kafka's record batch, magic v2 (DefaultRecordBatch / DefaultRecord): the
// unit a producer sends, a broker appends and fetches, and a consumer reads.
// Every multi-byte header field is big-endian.

namespace batch_layout {

constexpr size_t base_offset = 0;             // int64
constexpr size_t batch_length = 8;            // int32: bytes after this field
constexpr size_t partition_leader_epoch = 12; // int32
constexpr size_t magic = 16;                  // int8
constexpr size_t crc = 17;                    // uint32, CRC-32C of [21, end)
constexpr size_t attributes = 21;             // int16
constexpr size_t last_offset_delta = 23;      // int32
constexpr size_t base_timestamp = 27;         // int64
constexpr size_t max_timestamp = 35;          // int64
constexpr size_t producer_id = 43;            // int64
constexpr size_t producer_epoch = 51;         // int16
constexpr size_t base_sequence = 53;          // int32
constexpr size_t records_count = 57;          // int32
constexpr size_t records = 61;

/// Kafka's LOG_OVERHEAD: baseOffset and batchLength precede the length.
constexpr size_t log_overhead = 12;
/// Kafka's RECORD_BATCH_OVERHEAD: a batch with no records.
constexpr size_t header_size = 61;
constexpr int8_t current_magic = 2;
/// attributes bits 0-2: none, gzip, snappy, lz4, zstd.
constexpr int16_t compression_mask = 0x07;
/// attributes bit 4: part of a transaction; bit 5: a control batch
/// (transaction markers).
constexpr int16_t transactional_flag = 0x10;
constexpr int16_t control_flag = 0x20;
/// attributes bit 3: the timestamps are LogAppendTime (the broker's clock,
/// in maxTimestamp), not CreateTime.
constexpr int16_t log_append_time_flag = 0x08;
/// attributes bit 6 (KIP-534): baseTimestamp holds the batch's delete
/// horizon, set by the clean that first kept a tombstone in it; the
/// records' timestamp deltas stay relative to baseTimestamp.
constexpr int16_t delete_horizon_flag = 0x40;
/// Kafka's RecordBatch.NO_TIMESTAMP.
constexpr int64_t no_timestamp = -1;

} // namespace batch_layout

struct record_header {
  std::string key; // UTF-8; Kafka forbids a null header key
  std::optional<std::vector<uint8_t>> value;

  bool operator==(const record_header& other) const {
    return key == other.key && value == other.value;
  }
};

/// One record as a producer hands it over.
struct record {
  std::optional<std::vector<uint8_t>> key;
  std::optional<std::vector<uint8_t>> value;
  int64_t timestamp = 0; // CreateTime, ms since the epoch
  std::vector<record_header> headers;
};

/// One record as read back: absolute offset and timestamp.
struct decoded_record {
  int64_t offset = 0;
  int64_t timestamp = 0;
  std::optional<std::vector<uint8_t>> key;
  std::optional<std::vector<uint8_t>> value;
  std::vector<record_header> headers;
};

struct batch_header {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = 0;
  int8_t magic = 0;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t base_sequence = 0;
  int32_t records_count = 0;

  /// Total bytes of the batch on the wire and on disk (may be negative on
  /// hostile input; validate first).
  int64_t size_in_bytes() const {
    return int64_t{batch_length} + int64_t{batch_layout::log_overhead};
  }
  int compression() const {
    return attributes & batch_layout::compression_mask;
  }
};

/// Encodes a batch: magic 2, attributes 0 (no compression, CreateTime, not
/// transactional), base timestamp = first record's, max timestamp = the
/// largest, offset deltas 0..n-1. Returns empty for an empty record list or
/// fields that do not fit Kafka's int32 sizes.
std::vector<uint8_t> encode_batch(int64_t base_offset, int32_t leader_epoch,
                                  const std::vector<record>& records,
                                  int64_t producer_id = -1,
                                  int16_t producer_epoch = -1,
                                  int32_t base_sequence = -1);

/// The fixed 61-byte header; nullopt when fewer bytes are given. Does not
/// check anything beyond the length.
std::optional<batch_header> parse_header(const uint8_t* p, size_t n);

/// Kafka's checks on a produced batch (ensureValid + LogValidator):
/// MESSAGE_TOO_LARGE when n > max_batch_bytes; CORRUPT_MESSAGE for a bad
/// magic, a batchLength that is not n - 12, a CRC mismatch, an unknown
/// compression codec, a record count that is not lastOffsetDelta + 1 (or not
/// positive), and, for uncompressed batches, records that do not parse
/// exactly to the end of the batch or whose offset deltas are not 0..n-1.
/// Compressed batches get the header and CRC checks only: troupe does not
/// decompress.
error_code validate_batch(const uint8_t* p, size_t n, size_t max_batch_bytes);

/// Kafka's checks on a batch already in a log (DefaultRecordBatch
/// .ensureValid and the record structure), for a follower's append and for
/// recovery: the produce-time rules are relaxed as compaction leaves them
/// (MemoryRecords.filterTo): the record count may be below lastOffsetDelta
/// + 1, even 0 (a batch kept only for its producer state), and the offset
/// deltas of an uncompressed batch rise strictly within [0,
/// lastOffsetDelta]. CORRUPT_MESSAGE otherwise.
error_code validate_stored_batch(const uint8_t* p, size_t n);

/// message.timestamp.type=LogAppendTime on the leader (Kafka's
/// LogValidator, setMaxTimestamp(LOG_APPEND_TIME, now)): sets attributes
/// bit 3 and maxTimestamp = now, and recomputes the CRC. `n` is the
/// batch's size (>= 61).
void set_log_append_time(uint8_t* batch, size_t n, int64_t now_ms);

/// The delete horizon of a batch (KIP-534), when bit 6 is set.
std::optional<int64_t> delete_horizon(const batch_header& h);

/// One record of an uncompressed batch, pointing into the batch's bytes (no
/// copies): what the log cleaner reads and rewrites.
struct record_view {
  int64_t offset = 0;
  int64_t timestamp = 0;
  const uint8_t* key = nullptr;
  int32_t key_size = -1; // -1: null
  const uint8_t* value = nullptr;
  int32_t value_size = -1; // -1: null (a tombstone)
  /// The header count and the headers, as they are in the batch.
  const uint8_t* headers = nullptr;
  size_t headers_size = 0;
};

/// The records of one uncompressed batch as views; false for a compressed
/// or malformed batch (bounds are checked, the CRC is not).
bool record_views(const uint8_t* p, size_t n, std::vector<record_view>& out);

/// The cleaner's rewrite of an uncompressed batch with only `kept` of its
/// records (Kafka's MemoryRecords.buildRetainedRecordsInto): the original
/// base offset, lastOffsetDelta, partition leader epoch, producer id,
/// epoch, base sequence and flags are kept, so offsets do not move and the
/// producer's last sequence survives; each record's offset delta is its
/// offset - base offset. With `delete_horizon_ms` >= 0 (a tombstone kept
/// for the first time) baseTimestamp becomes the horizon and bit 6 is set;
/// otherwise baseTimestamp is the first kept record's and an existing
/// horizon is carried over. An empty `kept` writes Kafka's empty batch
/// header (writeEmptyHeader: no records, baseTimestamp -1). The CRC is
/// computed afresh. Empty on records that do not fit Kafka's int32 sizes.
std::vector<uint8_t> encode_retained_batch(const batch_header& original,
                                           const std::vector<record_view>& kept,
                                           int64_t delete_horizon_ms);

/// The records of one uncompressed batch, with absolute offsets and
/// timestamps. nullopt on any malformed input (structure only: the CRC is
/// validate_batch's job) and for compressed batches, which troupe does not
/// decompress; `reason`, when given, says why.
std::optional<std::vector<decoded_record>>
decode_records(const uint8_t* p, size_t n, std::string* reason = nullptr);

/// The size of the batch starting at p, from its batchLength, when at least
/// the 12-byte log overhead is present and the length is plausible (>= 49);
/// the batch itself may extend past n. For walking a run of batches.
std::optional<size_t> next_batch_size(const uint8_t* p, size_t n);

/// Patch the fields outside the CRC in place (as Kafka's
/// DefaultRecordBatch.setLastOffset / setPartitionLeaderEpoch): the leader
/// assigns offsets to a producer's batch without recomputing the CRC.
void set_base_offset(uint8_t* batch, int64_t base_offset);
void set_leader_epoch(uint8_t* batch, int32_t leader_epoch);

// -- varints (Kafka's ByteUtils: zigzag, 7 bits per byte, LSB first) ---------

// The one varint codec of troupe: record batches use the zigzag ones, the
// flexible versions of the Kafka protocol (KIP-482) the unsigned one.

void put_varint(std::vector<uint8_t>& out, int32_t value);
void put_varlong(std::vector<uint8_t>& out, int64_t value);

/// ByteUtils.writeUnsignedVarint: no zigzag, at most 5 bytes.
void put_unsigned_varint(std::vector<uint8_t>& out, uint32_t value);

/// Read one varint (at most 5 bytes) / varlong (at most 10 bytes) at p,
/// advancing p; nullopt when the input ends first or the encoding is too
/// long. Like Kafka, excess high bits in the last byte are ignored.
std::optional<int32_t> get_varint(const uint8_t*& p, const uint8_t* end);
std::optional<int64_t> get_varlong(const uint8_t*& p, const uint8_t* end);

/// ByteUtils.readUnsignedVarint, with the same limits as get_varint.
std::optional<uint32_t> get_unsigned_varint(const uint8_t*& p,
                                            const uint8_t* end);

} // namespace troupe
