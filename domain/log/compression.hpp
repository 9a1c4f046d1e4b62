#pragma once

// Kafka's compression codecs as its Java clients frame them
// (org.apache.kafka.common.compress): the records section of a compressed
// RecordBatch v2, and the value of a magic 0/1 wrapper message. Plain C++
// over zlib, liblz4 and libsnappy. zstd is not here: troupe keeps zstd
// batches as they came and refuses to open them (UNSUPPORTED_COMPRESSION_TYPE
// where Kafka would have to).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/log/record_batch.hpp"

namespace troupe {

/// Kafka's CompressionType ids (attributes bits 0-2).
enum class compression_codec : int8_t {
  none = 0,
  gzip = 1,
  snappy = 2,
  lz4 = 3,
  zstd = 4,
};

/// The largest decompressed size troupe accepts (a bound against a
/// decompression bomb; Kafka's own bound is the JVM heap).
constexpr size_t max_decompressed_bytes = size_t{256} << 20;

/// How an LZ4 frame's header checksum is written and read. Kafka's
/// KafkaLZ4BlockOutputStream wrote it over the magic number too for magic 0
/// messages (KAFKA-3160); Kafka's reader ignores it there and checks it
/// everywhere else.
enum class lz4_header_checksum : int8_t {
  correct,
  broken_magic0,
};

/// Compresses `n` bytes as Kafka's writers do: gzip is a gzip member
/// (GZIPOutputStream), snappy is xerial's SnappyOutputStream framing
/// (header, then [int32 length][snappy block] per 32 KiB), lz4 is Kafka's
/// LZ4 frame (64 KiB independent blocks, no checksums but the header's).
/// nullopt for none, zstd and an unknown codec.
std::optional<std::vector<uint8_t>>
compress(compression_codec codec, const uint8_t* p, size_t n,
         lz4_header_checksum lz4_checksum = lz4_header_checksum::correct);

/// The reverse, as Kafka's readers accept it: gzip members back to back
/// (GZIPInputStream), xerial snappy or a raw snappy block when the xerial
/// header is absent (SnappyInputStream), an LZ4 frame with independent
/// blocks (Lz4BlockInputStream; block checksums are verified, the content
/// checksum is not, as Kafka). nullopt on any malformed input or more than
/// `max_size` bytes of output; `reason`, when given, says why.
std::optional<std::vector<uint8_t>>
decompress(compression_codec codec, const uint8_t* p, size_t n,
           std::string* reason = nullptr,
           lz4_header_checksum lz4_checksum = lz4_header_checksum::correct,
           size_t max_size = max_decompressed_bytes);

/// XXH32, the LZ4 frame's checksum (seed 0 in Kafka's use).
uint32_t xxh32(const uint8_t* p, size_t n, uint32_t seed = 0) noexcept;

/// The records of one v2 batch, compressed (gzip, snappy, lz4) or not, with
/// absolute offsets and timestamps, as decode_records gives them for an
/// uncompressed batch. nullopt for zstd, a malformed batch or records that
/// do not decompress; `reason` says why.
std::optional<std::vector<decoded_record>>
decode_batch_records(const uint8_t* p, size_t n, std::string* reason = nullptr);

/// A v2 batch of `records` (as encode_batch) whose records section is
/// compressed with `codec` (gzip, snappy or lz4; none gives encode_batch's
/// batch), as Kafka's MemoryRecordsBuilder writes it. Empty where
/// encode_batch is empty.
std::vector<uint8_t> encode_compressed_batch(compression_codec codec,
                                             int64_t base_offset,
                                             int32_t leader_epoch,
                                             const std::vector<record>& records);

} // namespace troupe
