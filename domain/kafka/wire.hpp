#pragma once

// The primitive types of Kafka's wire protocol, read with bounds checks and
// written big-endian, plus the int32 size-prefixed framing every request and
// response travels in. Both encodings of variable-size fields are here: the
// classic one (int16 string lengths, int32 byte and array lengths) and the
// compact one of the flexible versions (KIP-482: unsigned varint length + 1,
// 0 for null), with UUIDs and the pieces of a tagged-field section.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/uuid.hpp"

namespace troupe::wire {

using bytes = std::vector<uint8_t>;

// Kafka's Uuid (topic ids, KIP-848 member ids) is troupe's one uuid type.
using troupe::uuid;

// -- reading ------------------------------------------------------------------

/// A bounds-checked big-endian cursor over bytes it does not own. The first
/// malformed or missing field fails the reader with a reason; from then on
/// every read fails too and leaves its target untouched, so a decoder may read
/// a whole structure and check ok() once at the end.
class reader {
public:
  // -- constructors -----------------------------------------------------------

  reader(const uint8_t* data, size_t size) noexcept;

  explicit reader(const std::vector<uint8_t>& buf) noexcept;

  // -- state ------------------------------------------------------------------

  bool ok() const noexcept {
    return error_.empty();
  }

  /// Why the reader failed; empty while ok().
  const std::string& error() const noexcept {
    return error_;
  }

  size_t position() const noexcept {
    return pos_;
  }

  size_t remaining() const noexcept {
    return size_ - pos_;
  }

  /// The unread bytes.
  const uint8_t* current() const noexcept {
    return data_ + pos_;
  }

  /// Fails the reader with `reason` at the current position unless it has
  /// failed already (the first reason wins). Always returns false.
  bool fail(std::string_view reason);

  // -- fixed-size fields ------------------------------------------------------

  bool i8(int8_t& x);
  bool i16(int16_t& x);
  bool i32(int32_t& x);
  bool i64(int64_t& x);

  /// Kafka's BOOLEAN: one byte, any non-zero value is true.
  bool boolean(bool& x);

  /// Zigzag varints as in record batches (at most 5 / 10 bytes).
  bool varint(int32_t& x);
  bool varlong(int64_t& x);

  // -- variable-size fields ---------------------------------------------------

  /// STRING: int16 length then UTF-8 bytes; null (-1) is malformed here.
  bool string(std::string& x);

  /// NULLABLE_STRING: -1 is null, any other negative length is malformed.
  bool nullable_string(std::optional<std::string>& x);

  /// BYTES: int32 length then the bytes; null (-1) is malformed here.
  bool bytes(std::vector<uint8_t>& x);

  /// NULLABLE_BYTES: -1 is null, any other negative length is malformed.
  bool nullable_bytes(std::optional<std::vector<uint8_t>>& x);

  /// The int32 count of a non-null ARRAY whose elements take at least
  /// `min_element_size` bytes each: negative counts and counts the remaining
  /// bytes cannot hold are malformed, so nothing is allocated for them.
  bool array_size(size_t& n, size_t min_element_size);

  /// As array_size, but -1 reads as nullopt (a null array).
  bool nullable_array_size(std::optional<size_t>& n, size_t min_element_size);

  /// Consumes n bytes without looking at them.
  bool skip(size_t n);

  // -- flexible versions (KIP-482) --------------------------------------------

  /// ByteUtils.readUnsignedVarint: at most 5 bytes.
  bool unsigned_varint(uint32_t& x);

  /// UUID: 16 bytes.
  bool uuid(wire::uuid& x);

  /// COMPACT_STRING: unsigned varint length + 1, then UTF-8 bytes. Null (0)
  /// is malformed here; like Kafka, lengths above 32767 are too.
  bool compact_string(std::string& x);

  /// COMPACT_NULLABLE_STRING: a length field of 0 is null.
  bool compact_nullable_string(std::optional<std::string>& x);

  /// COMPACT_BYTES: unsigned varint length + 1, then the bytes.
  bool compact_bytes(std::vector<uint8_t>& x);

  /// COMPACT_NULLABLE_BYTES: a length field of 0 is null.
  bool compact_nullable_bytes(std::optional<std::vector<uint8_t>>& x);

  /// The unsigned varint count + 1 of a non-null COMPACT_ARRAY, bounded by
  /// the remaining bytes as array_size is.
  bool compact_array_size(size_t& n, size_t min_element_size);

  /// As compact_array_size, but 0 reads as nullopt (a null array).
  bool compact_nullable_array_size(std::optional<size_t>& n,
                                   size_t min_element_size);

  /// Ends the readable bytes n bytes from here (a tagged field's value), so
  /// that nothing reads past them; returns the previous end for widen().
  /// Fails the reader when fewer than n bytes remain.
  size_t narrow(size_t n);

  /// Restores the end that narrow() returned.
  void widen(size_t end) noexcept;

private:
  bool need(size_t n, std::string_view what);
  bool count(int64_t n, size_t min_element_size, std::string_view what);
  bool compact_length(int64_t& n, std::string_view what);

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
};

// -- writing ------------------------------------------------------------------

/// Appends big-endian fields to a caller-owned buffer. A value the wire format
/// cannot carry (a string over 32767 bytes, a frame over 2 GiB) fails the
/// writer with a reason; a failed writer appends nothing more, so the caller
/// checks ok() once after encoding a whole message. The compact fields write
/// what the reader's compact fields read.
class writer {
public:
  // -- constructors -----------------------------------------------------------

  explicit writer(std::vector<uint8_t>& out) noexcept : out_(out) {
    // nop
  }

  // -- state ------------------------------------------------------------------

  bool ok() const noexcept {
    return error_.empty();
  }

  const std::string& error() const noexcept {
    return error_;
  }

  /// Size of the whole buffer written to, including what it held before.
  size_t size() const noexcept {
    return out_.size();
  }

  /// Fails the writer unless it has failed already. Always returns false.
  bool fail(std::string_view reason);

  // -- fields -----------------------------------------------------------------

  void i8(int8_t x);
  void i16(int16_t x);
  void i32(int32_t x);
  void i64(int64_t x);
  void boolean(bool x);
  void varint(int32_t x);
  void varlong(int64_t x);
  void string(std::string_view x);
  void nullable_string(const std::optional<std::string>& x);
  void bytes(const uint8_t* data, size_t size);
  void bytes(const std::vector<uint8_t>& x);
  void nullable_bytes(const std::optional<std::vector<uint8_t>>& x);
  void array_size(size_t n);
  void null_array();

  // -- flexible versions (KIP-482) --------------------------------------------

  void unsigned_varint(uint32_t x);
  void uuid(const wire::uuid& x);
  void compact_string(std::string_view x);
  void compact_nullable_string(const std::optional<std::string>& x);
  void compact_bytes(const uint8_t* data, size_t size);
  void compact_bytes(const std::vector<uint8_t>& x);
  void compact_nullable_bytes(const std::optional<std::vector<uint8_t>>& x);
  void compact_array_size(size_t n);
  void compact_null_array();

  /// One entry of a tagged-field section: the tag, the value's size, the
  /// value as already encoded.
  void tagged_field(uint32_t tag, const std::vector<uint8_t>& value);

  // -- framing ----------------------------------------------------------------

  /// Appends an int32 placeholder for a size prefix and returns its offset.
  size_t begin_frame();

  /// Back-patches the placeholder at `mark` with the number of bytes written
  /// after it. False (and the writer fails) when that exceeds INT32_MAX.
  bool end_frame(size_t mark);

private:
  void raw(const uint8_t* data, size_t size);

  std::vector<uint8_t>& out_;
  std::string error_;
};

// -- framing ------------------------------------------------------------------

enum class frame_status {
  /// Not enough bytes for the size prefix or the request it announces.
  need_more,
  /// A whole request is present.
  complete,
  /// The size prefix is negative or larger than the limit: close the socket.
  error,
};

/// One int32 size-prefixed frame found at the start of a byte stream.
struct frame {
  frame_status status = frame_status::need_more;
  /// The request's bytes after the prefix (complete only).
  const uint8_t* data = nullptr;
  /// The announced size, once the prefix has arrived.
  size_t size = 0;
  /// Bytes to drop from the stream: 4 + size (complete only).
  size_t consumed = 0;
  /// Why the frame is refused (error only).
  std::string error;
};

/// Splits the next frame off a stream as Kafka's NetworkReceive does: a
/// negative size or one above `max_request_bytes` (socket.request.max.bytes)
/// is an error, a size of 0 is a valid, empty frame.
frame decode_frame(const uint8_t* p, size_t n, size_t max_request_bytes);

} // namespace troupe::wire
