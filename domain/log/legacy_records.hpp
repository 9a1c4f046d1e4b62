#pragma once

// Kafka's old message formats, magic 0 and 1 (LegacyRecord,
// AbstractLegacyRecordBatch): what Produce v0-v2 carries and Fetch v0-v3
// answers with. troupe's log holds RecordBatch v2 only, so a produced
// message set is converted up (LogValidator) and a fetched one down
// (RecordsUtil.downConvert). Plain C++.
//
// A message set is messages back to back:
//   offset int64, size int32 (bytes after this field),
//   crc uint32 (CRC-32 of magic .. the end), magic int8, attributes int8,
//   [magic 1: timestamp int64], key bytes (int32 length, -1 null),
//   value bytes (int32 length, -1 null).
// attributes bits 0-2: compression (gzip, snappy, lz4; zstd never), bit 3
// (magic 1): LogAppendTime. A compressed message is a wrapper: its value is
// a compressed message set of the same magic. Magic 1 inner offsets are
// relative (0..n-1, the wrapper's offset is the last absolute offset),
// magic 0 inner offsets absolute.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/log/compression.hpp"

namespace troupe {

namespace legacy_layout {

constexpr size_t offset = 0;     // int64
constexpr size_t size = 8;       // int32
constexpr size_t crc = 12;       // uint32, CRC-32 of [magic, end)
constexpr size_t magic = 16;     // int8
constexpr size_t attributes = 17; // int8
constexpr size_t timestamp = 18; // int64, magic 1 only
constexpr size_t log_overhead = 12;
/// Kafka's LegacyRecord.RECORD_OVERHEAD_V0 / _V1: crc, magic, attributes,
/// [timestamp], key and value lengths.
constexpr int32_t record_overhead_v0 = 14;
constexpr int32_t record_overhead_v1 = 22;
constexpr int8_t compression_mask = 0x07;
constexpr int8_t log_append_time_flag = 0x08;

} // namespace legacy_layout

/// One message as a consumer of it sees it: absolute offset, and the
/// timestamp (-1, Kafka's NO_TIMESTAMP, for magic 0).
struct legacy_message {
  int64_t offset = 0;
  int8_t magic = 0;
  int64_t timestamp = -1;
  bool log_append_time = false;
  std::optional<std::vector<uint8_t>> key;
  std::optional<std::vector<uint8_t>> value;
};

/// A decoded message set: its messages (wrappers opened), and the codec of
/// its compressed wrappers (the last one, as Kafka's
/// analyzeAndValidateRecords takes it; none if all were plain).
struct legacy_set {
  error_code error = error_code::none;
  std::string reason;
  std::vector<legacy_message> messages;
  compression_codec codec = compression_codec::none;
};

/// True when the record set's first entry is a magic 0 or 1 message
/// (the magic byte sits where a v2 batch has its own).
bool is_legacy_set(const uint8_t* p, size_t n);

/// Decodes a message set with Kafka's checks: CORRUPT_MESSAGE for a size
/// below the magic's overhead, a magic outside 0-1 (a v2 batch inside a
/// magic 0/1 set is refused too), a CRC mismatch (outer and inner), key or
/// value lengths past the message, a wrapper that does not decompress, an
/// unknown codec; INVALID_RECORD for zstd, a wrapper with a null value or no
/// inner messages, inner messages compressed or of another magic, a magic 1
/// wrapper offset below its last inner offset. A message cut short at the
/// end (a fetch cut it) is dropped, as Kafka's ByteBufferLogInputStream.
legacy_set decode_legacy(const uint8_t* p, size_t n);

/// The result of a conversion.
struct converted_records {
  error_code error = error_code::none;
  std::string reason;
  std::vector<uint8_t> records;
};

/// Kafka's LogValidator for a produced magic 0/1 set into the v2 log
/// (convertAndAssignOffsetsNonCompressed and
/// validateMessagesAndAssignOffsetsCompressed): one v2 batch with every
/// message's key, value and timestamp (magic 0: -1), in order, at base
/// offset 0 (the leader assigns offsets as for any batch), CreateTime,
/// compressed with the set's codec. Empty records for an empty set.
converted_records up_convert(const uint8_t* p, size_t n);

/// Kafka's RecordsUtil.downConvert of v2 batches read from the log to magic
/// `to_magic` (0 or 1) for a fetch from `fetch_offset`: each uncompressed
/// batch gives one message per record at or after `fetch_offset`, each
/// compressed one (gzip, snappy, lz4) one wrapper of the same codec holding
/// all its records; offsets, keys, values and timestamps are kept (magic 0
/// has none; LogAppendTime batches stamp their maxTimestamp), headers
/// dropped, control batches skipped, a batch cut short at the end dropped.
/// UNSUPPORTED_COMPRESSION_TYPE for a zstd batch (Kafka's rule for fetch
/// below v10), CORRUPT_MESSAGE for a batch whose records do not decode.
converted_records down_convert(const uint8_t* p, size_t n, int8_t to_magic,
                               int64_t fetch_offset);

/// One message of a set to encode: absolute offset and its fields.
/// encode_legacy writes `messages` as magic `magic` messages, plain
/// (codec none) or as one wrapper of `codec` (LogAppendTime: every
/// timestamp is `log_append_time_ms` and bit 3 is set, magic 1 only).
/// Empty when a field does not fit Kafka's int32 sizes or the codec is
/// zstd.
std::vector<uint8_t> encode_legacy(int8_t magic, compression_codec codec,
                                   const std::vector<legacy_message>& messages,
                                   bool log_append_time = false,
                                   int64_t log_append_time_ms = -1);

/// The bytes of whole top-level messages from the start of a message set
/// that fit in `limit` (at least the first, when `at_least_one`).
size_t fitting_legacy_messages(const uint8_t* p, size_t n, int64_t limit,
                               bool at_least_one);

/// CRC-32 (zlib's, java.util.zip.CRC32), the message checksum.
uint32_t legacy_crc32(const uint8_t* p, size_t n) noexcept;

} // namespace troupe
