#include "domain/log/record_batch.hpp"

#include <algorithm>
#include <climits>

#include "domain/log/crc32c.hpp"

namespace troupe {

namespace {

namespace L = batch_layout;

// -- big-endian fields --------------------------------------------------------

template <class T>
void store_be(uint8_t* p, T value) {
  auto u = static_cast<std::make_unsigned_t<T>>(value);
  for (size_t i = sizeof(T); i > 0; --i) {
    p[i - 1] = static_cast<uint8_t>(u & 0xFF);
    u = static_cast<decltype(u)>(u >> 8);
  }
}

template <class T>
T load_be(const uint8_t* p) {
  std::make_unsigned_t<T> u = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    u = static_cast<decltype(u)>((u << 8) | p[i]);
  return static_cast<T>(u);
}

// -- record walking -----------------------------------------------------------

/// A length-prefixed byte field inside the batch; size -1 is null.
struct bytes_view {
  const uint8_t* data = nullptr;
  int32_t size = -1;

  std::optional<std::vector<uint8_t>> copy() const {
    if (size < 0)
      return std::nullopt;
    return std::vector<uint8_t>(data, data + size);
  }
};

// Smallest possible encodings, to bound counts by the bytes that remain
// before trusting them: a record is a length varint plus attributes,
// timestampDelta, offsetDelta, key length, value length and header count
// (one byte each at least); a header is two length varints.
constexpr ptrdiff_t min_record_bytes = 7;
constexpr ptrdiff_t min_header_bytes = 2;

/// A varint length followed by that many bytes; -1 is null, and any other
/// negative length or one past `end` is malformed (Kafka treats every
/// negative length as null; no Kafka client writes anything but -1).
bool read_bytes(const uint8_t*& p, const uint8_t* end, bytes_view& out,
                bool nullable) {
  auto len = get_varint(p, end);
  if (!len || *len < -1 || (*len == -1 && !nullable) || *len > end - p)
    return false;
  out.size = *len;
  out.data = p;
  if (*len > 0)
    p += *len;
  return true;
}

bool fail(std::string* reason, const char* why) {
  if (reason)
    *reason = why;
  return false;
}

/// Walks `count` records in [p, end), which they must fill exactly. The sink
/// sees each record (on_record) and then its headers (on_header); either may
/// refuse by returning false.
template <class Sink>
bool walk_records(const uint8_t* p, const uint8_t* end, int32_t count,
                  Sink& sink, std::string* reason) {
  if (count < 0)
    return fail(reason, "negative record count");
  if (count > (end - p) / min_record_bytes)
    return fail(reason, "record count exceeds what the batch can hold");
  for (int32_t i = 0; i < count; ++i) {
    auto length = get_varint(p, end);
    if (!length || *length < 0 || *length > end - p)
      return fail(reason, "record length runs past the batch");
    const uint8_t* rec_end = p + *length;
    if (p == rec_end)
      return fail(reason, "empty record");
    ++p; // attributes: unused in v2
    auto ts_delta = get_varlong(p, rec_end);
    auto offset_delta = get_varint(p, rec_end);
    if (!ts_delta || !offset_delta)
      return fail(reason, "truncated record fields");
    bytes_view key, value;
    if (!read_bytes(p, rec_end, key, true)
        || !read_bytes(p, rec_end, value, true))
      return fail(reason, "bad key or value length");
    if (!sink.on_record(i, *ts_delta, *offset_delta, key, value))
      return fail(reason, "record offset or timestamp out of range");
    auto headers = get_varint(p, rec_end);
    if (!headers || *headers < 0 || *headers > (rec_end - p) / min_header_bytes)
      return fail(reason, "bad header count");
    for (int32_t h = 0; h < *headers; ++h) {
      bytes_view hkey, hvalue;
      if (!read_bytes(p, rec_end, hkey, false)
          || !read_bytes(p, rec_end, hvalue, true))
        return fail(reason, "bad header key or value length");
      sink.on_header(hkey, hvalue);
    }
    if (p != rec_end)
      return fail(reason, "record length does not match its fields");
  }
  if (p != end)
    return fail(reason, "bytes left after the last record");
  return true;
}

/// Checks only: offset deltas must be 0..n-1, absolute timestamps in range.
struct validating_sink {
  int64_t base_timestamp;
  bool on_record(int32_t i, int64_t ts_delta, int32_t offset_delta,
                 const bytes_view&, const bytes_view&) {
    int64_t ts;
    return offset_delta == i
           && !__builtin_add_overflow(base_timestamp, ts_delta, &ts);
  }
  void on_header(const bytes_view&, const bytes_view&) {}
};

/// Checks only, for a batch in a log: offset deltas rise strictly within
/// [0, last_offset_delta] (compaction leaves gaps), timestamps in range.
struct stored_validating_sink {
  int64_t base_timestamp;
  int32_t last_offset_delta;
  int64_t previous = -1;
  bool on_record(int32_t, int64_t ts_delta, int32_t offset_delta,
                 const bytes_view&, const bytes_view&) {
    int64_t ts;
    if (offset_delta <= previous || offset_delta > last_offset_delta
        || __builtin_add_overflow(base_timestamp, ts_delta, &ts))
      return false;
    previous = offset_delta;
    return true;
  }
  void on_header(const bytes_view&, const bytes_view&) {}
};

struct decoding_sink {
  int64_t base_offset;
  int64_t base_timestamp;
  std::vector<decoded_record> out;

  bool on_record(int32_t, int64_t ts_delta, int32_t offset_delta,
                 const bytes_view& key, const bytes_view& value) {
    int64_t offset, timestamp;
    if (__builtin_add_overflow(base_offset, int64_t{offset_delta}, &offset)
        || __builtin_add_overflow(base_timestamp, ts_delta, &timestamp))
      return false;
    out.push_back(
      decoded_record{offset, timestamp, key.copy(), value.copy(), {}});
    return true;
  }
  void on_header(const bytes_view& key, const bytes_view& value) {
    auto& headers = out.back().headers;
    headers.push_back(record_header{
      std::string(reinterpret_cast<const char*>(key.data), key.size),
      value.copy()});
  }
};

uint32_t batch_crc(const uint8_t* p, size_t n) {
  return crc32c(p + L::attributes, n - L::attributes);
}

// -- encoding -----------------------------------------------------------------

bool put_bytes(std::vector<uint8_t>& out,
               const std::optional<std::vector<uint8_t>>& bytes) {
  if (!bytes) {
    put_varint(out, -1);
    return true;
  }
  if (bytes->size() > INT32_MAX)
    return false;
  put_varint(out, static_cast<int32_t>(bytes->size()));
  out.insert(out.end(), bytes->begin(), bytes->end());
  return true;
}

bool put_record_body(std::vector<uint8_t>& body, const record& r,
                     int64_t base_timestamp, int32_t offset_delta) {
  int64_t ts_delta;
  if (__builtin_sub_overflow(r.timestamp, base_timestamp, &ts_delta)
      || r.headers.size() > INT32_MAX)
    return false;
  body.push_back(0); // attributes
  put_varlong(body, ts_delta);
  put_varint(body, offset_delta);
  if (!put_bytes(body, r.key) || !put_bytes(body, r.value))
    return false;
  put_varint(body, static_cast<int32_t>(r.headers.size()));
  for (auto& h : r.headers) {
    if (h.key.size() > INT32_MAX)
      return false;
    put_varint(body, static_cast<int32_t>(h.key.size()));
    body.insert(body.end(), h.key.begin(), h.key.end());
    if (!put_bytes(body, h.value))
      return false;
  }
  return body.size() <= INT32_MAX;
}

} // namespace

// -- varints ------------------------------------------------------------------

namespace {

template <class U>
void put_unsigned(std::vector<uint8_t>& out, U v) {
  for (; v >= 0x80; v >>= 7)
    out.push_back(static_cast<uint8_t>(v | 0x80));
  out.push_back(static_cast<uint8_t>(v));
}

template <class U>
std::optional<U> get_unsigned(const uint8_t*& p, const uint8_t* end) {
  constexpr unsigned max_bytes = (sizeof(U) * 8 + 6) / 7; // 5 or 10
  U v = 0;
  const uint8_t* q = p;
  for (unsigned i = 0; i < max_bytes; ++i) {
    if (q == end)
      return std::nullopt;
    uint8_t b = *q++;
    v |= static_cast<U>(b & 0x7F) << (7 * i); // bits past the width drop
    if (!(b & 0x80)) {
      p = q;
      return v;
    }
  }
  return std::nullopt; // Kafka's IllegalArgumentException: varint too long
}

} // namespace

void put_varint(std::vector<uint8_t>& out, int32_t value) {
  // Zigzag: small magnitudes of either sign become small unsigned numbers.
  put_unsigned(out, (static_cast<uint32_t>(value) << 1)
                      ^ static_cast<uint32_t>(value >> 31));
}

void put_varlong(std::vector<uint8_t>& out, int64_t value) {
  put_unsigned(out, (static_cast<uint64_t>(value) << 1)
                      ^ static_cast<uint64_t>(value >> 63));
}

void put_unsigned_varint(std::vector<uint8_t>& out, uint32_t value) {
  put_unsigned(out, value);
}

std::optional<uint32_t> get_unsigned_varint(const uint8_t*& p,
                                            const uint8_t* end) {
  return get_unsigned<uint32_t>(p, end);
}

std::optional<int32_t> get_varint(const uint8_t*& p, const uint8_t* end) {
  auto v = get_unsigned<uint32_t>(p, end);
  if (!v)
    return std::nullopt;
  return static_cast<int32_t>((*v >> 1) ^ (~(*v & 1) + 1));
}

std::optional<int64_t> get_varlong(const uint8_t*& p, const uint8_t* end) {
  auto v = get_unsigned<uint64_t>(p, end);
  if (!v)
    return std::nullopt;
  return static_cast<int64_t>((*v >> 1) ^ (~(*v & 1) + 1));
}

// -- batches ------------------------------------------------------------------

std::vector<uint8_t> encode_batch(int64_t base_offset, int32_t leader_epoch,
                                  const std::vector<record>& records,
                                  int64_t producer_id, int16_t producer_epoch,
                                  int32_t base_sequence) {
  if (records.empty() || records.size() > INT32_MAX)
    return {};
  int64_t base_ts = records.front().timestamp;
  int64_t max_ts = base_ts;
  std::vector<uint8_t> out(L::header_size);
  std::vector<uint8_t> body;
  for (size_t i = 0; i < records.size(); ++i) {
    max_ts = std::max(max_ts, records[i].timestamp);
    body.clear();
    if (!put_record_body(body, records[i], base_ts, static_cast<int32_t>(i)))
      return {};
    put_varint(out, static_cast<int32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  if (out.size() - L::log_overhead > INT32_MAX)
    return {};
  auto last_delta = static_cast<int32_t>(records.size() - 1);
  uint8_t* p = out.data();
  store_be<int64_t>(p + L::base_offset, base_offset);
  store_be<int32_t>(p + L::batch_length,
                    static_cast<int32_t>(out.size() - L::log_overhead));
  store_be<int32_t>(p + L::partition_leader_epoch, leader_epoch);
  p[L::magic] = static_cast<uint8_t>(L::current_magic);
  store_be<int16_t>(p + L::attributes, 0);
  store_be<int32_t>(p + L::last_offset_delta, last_delta);
  store_be<int64_t>(p + L::base_timestamp, base_ts);
  store_be<int64_t>(p + L::max_timestamp, max_ts);
  store_be<int64_t>(p + L::producer_id, producer_id);
  store_be<int16_t>(p + L::producer_epoch, producer_epoch);
  store_be<int32_t>(p + L::base_sequence, base_sequence);
  store_be<int32_t>(p + L::records_count, static_cast<int32_t>(records.size()));
  store_be<uint32_t>(p + L::crc, batch_crc(p, out.size()));
  return out;
}

std::optional<batch_header> parse_header(const uint8_t* p, size_t n) {
  if (p == nullptr || n < L::header_size)
    return std::nullopt;
  batch_header h;
  h.base_offset = load_be<int64_t>(p + L::base_offset);
  h.batch_length = load_be<int32_t>(p + L::batch_length);
  h.partition_leader_epoch = load_be<int32_t>(p + L::partition_leader_epoch);
  h.magic = static_cast<int8_t>(p[L::magic]);
  h.crc = load_be<uint32_t>(p + L::crc);
  h.attributes = load_be<int16_t>(p + L::attributes);
  h.last_offset_delta = load_be<int32_t>(p + L::last_offset_delta);
  h.base_timestamp = load_be<int64_t>(p + L::base_timestamp);
  h.max_timestamp = load_be<int64_t>(p + L::max_timestamp);
  h.producer_id = load_be<int64_t>(p + L::producer_id);
  h.producer_epoch = load_be<int16_t>(p + L::producer_epoch);
  h.base_sequence = load_be<int32_t>(p + L::base_sequence);
  h.records_count = load_be<int32_t>(p + L::records_count);
  return h;
}

std::optional<size_t> next_batch_size(const uint8_t* p, size_t n) {
  if (p == nullptr || n < L::log_overhead)
    return std::nullopt;
  auto length = load_be<int32_t>(p + L::batch_length);
  if (length < static_cast<int32_t>(L::header_size - L::log_overhead))
    return std::nullopt;
  return static_cast<size_t>(length) + L::log_overhead;
}

error_code validate_batch(const uint8_t* p, size_t n, size_t max_batch_bytes) {
  // Size first, as Kafka's analyzeAndValidateRecords does.
  if (n > max_batch_bytes)
    return error_code::message_too_large;
  auto h = parse_header(p, n);
  if (!h || h->magic != L::current_magic
      || h->batch_length
           < static_cast<int32_t>(L::header_size - L::log_overhead)
      || h->size_in_bytes() != static_cast<int64_t>(n)
      || h->crc != batch_crc(p, n))
    return error_code::corrupt_message;
  // Codecs 5-7 do not exist (Kafka: "Unknown compression type id").
  if (h->compression() > 4)
    return error_code::corrupt_message;
  // LogValidator: a positive count equal to the offset range. (Kafka says
  // INVALID_RECORD here; troupe's vocabulary has CORRUPT_MESSAGE.)
  int64_t last_offset;
  if (h->records_count <= 0
      || int64_t{h->records_count} != int64_t{h->last_offset_delta} + 1
      || __builtin_add_overflow(h->base_offset, int64_t{h->last_offset_delta},
                                &last_offset))
    return error_code::corrupt_message;
  // A compressed batch's records are opaque to us: we do not decompress, so
  // the header and the CRC over the compressed bytes are all we can check.
  if (h->compression() != 0)
    return error_code::none;
  validating_sink sink{h->base_timestamp};
  if (!walk_records(p + L::records, p + n, h->records_count, sink, nullptr))
    return error_code::corrupt_message;
  return error_code::none;
}

error_code validate_stored_batch(const uint8_t* p, size_t n) {
  auto h = parse_header(p, n);
  int64_t last_offset;
  if (!h || h->magic != L::current_magic
      || h->batch_length
           < static_cast<int32_t>(L::header_size - L::log_overhead)
      || h->size_in_bytes() != static_cast<int64_t>(n)
      || h->crc != batch_crc(p, n) || h->compression() > 4
      || h->last_offset_delta < 0 || h->records_count < 0
      || int64_t{h->records_count} > int64_t{h->last_offset_delta} + 1
      || __builtin_add_overflow(h->base_offset, int64_t{h->last_offset_delta},
                                &last_offset))
    return error_code::corrupt_message;
  if (h->compression() != 0)
    return error_code::none;
  stored_validating_sink sink{h->base_timestamp, h->last_offset_delta};
  if (!walk_records(p + L::records, p + n, h->records_count, sink, nullptr))
    return error_code::corrupt_message;
  return error_code::none;
}

void set_log_append_time(uint8_t* batch, size_t n, int64_t now_ms) {
  auto attributes = load_be<int16_t>(batch + L::attributes);
  store_be<int16_t>(batch + L::attributes,
                    static_cast<int16_t>(attributes | L::log_append_time_flag));
  store_be<int64_t>(batch + L::max_timestamp, now_ms);
  store_be<uint32_t>(batch + L::crc, batch_crc(batch, n));
}

std::optional<int64_t> delete_horizon(const batch_header& h) {
  if (h.magic < L::current_magic || !(h.attributes & L::delete_horizon_flag))
    return std::nullopt;
  return h.base_timestamp;
}

bool record_views(const uint8_t* p, size_t n, std::vector<record_view>& out) {
  out.clear();
  auto h = parse_header(p, n);
  if (!h || h->magic != L::current_magic
      || h->size_in_bytes() != static_cast<int64_t>(n) || h->compression() != 0
      || h->records_count < 0)
    return false;
  const uint8_t* q = p + L::records;
  const uint8_t* end = p + n;
  if (h->records_count > (end - q) / min_record_bytes)
    return false;
  out.reserve(static_cast<size_t>(h->records_count));
  for (int32_t i = 0; i < h->records_count; ++i) {
    auto length = get_varint(q, end);
    if (!length || *length <= 0 || *length > end - q)
      return false;
    const uint8_t* rec_end = q + *length;
    ++q; // attributes
    auto ts_delta = get_varlong(q, rec_end);
    auto offset_delta = get_varint(q, rec_end);
    bytes_view key, value;
    if (!ts_delta || !offset_delta || !read_bytes(q, rec_end, key, true)
        || !read_bytes(q, rec_end, value, true))
      return false;
    record_view v;
    if (__builtin_add_overflow(h->base_offset, int64_t{*offset_delta},
                               &v.offset)
        || __builtin_add_overflow(h->base_timestamp, *ts_delta, &v.timestamp))
      return false;
    v.key = key.data;
    v.key_size = key.size;
    v.value = value.data;
    v.value_size = value.size;
    v.headers = q;
    v.headers_size = static_cast<size_t>(rec_end - q);
    if (v.headers_size == 0)
      return false; // the header count is missing
    out.push_back(v);
    q = rec_end;
  }
  return q == end;
}

namespace {

void put_view_bytes(std::vector<uint8_t>& out, const uint8_t* data,
                    int32_t size) {
  put_varint(out, size);
  if (size > 0)
    out.insert(out.end(), data, data + size);
}

} // namespace

std::vector<uint8_t>
encode_retained_batch(const batch_header& original,
                      const std::vector<record_view>& kept,
                      int64_t delete_horizon_ms) {
  std::vector<uint8_t> out(L::header_size);
  auto attributes = static_cast<int16_t>(
    original.attributes & ~(L::compression_mask | L::delete_horizon_flag));
  int64_t base_ts = L::no_timestamp;
  int64_t max_ts = original.max_timestamp;
  if (!kept.empty()) {
    auto carried = delete_horizon(original);
    if (delete_horizon_ms >= 0 || carried) {
      base_ts = delete_horizon_ms >= 0 ? delete_horizon_ms : *carried;
      attributes = static_cast<int16_t>(attributes | L::delete_horizon_flag);
    } else {
      base_ts = kept.front().timestamp;
    }
    // MemoryRecordsBuilder: CreateTime batches get the largest kept
    // timestamp; LogAppendTime ones keep the broker's.
    if (!(original.attributes & L::log_append_time_flag)) {
      max_ts = L::no_timestamp;
      for (auto& r : kept)
        max_ts = std::max(max_ts, r.timestamp);
    }
  }
  if (kept.size() > INT32_MAX)
    return {};
  std::vector<uint8_t> body;
  for (auto& r : kept) {
    int64_t delta, ts_delta;
    if (__builtin_sub_overflow(r.offset, original.base_offset, &delta)
        || delta < 0 || delta > original.last_offset_delta
        || __builtin_sub_overflow(r.timestamp, base_ts, &ts_delta))
      return {};
    body.clear();
    body.push_back(0); // attributes
    put_varlong(body, ts_delta);
    put_varint(body, static_cast<int32_t>(delta));
    put_view_bytes(body, r.key, r.key_size);
    put_view_bytes(body, r.value, r.value_size);
    body.insert(body.end(), r.headers, r.headers + r.headers_size);
    if (body.size() > INT32_MAX)
      return {};
    put_varint(out, static_cast<int32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  if (out.size() - L::log_overhead > INT32_MAX)
    return {};
  uint8_t* p = out.data();
  store_be<int64_t>(p + L::base_offset, original.base_offset);
  store_be<int32_t>(p + L::batch_length,
                    static_cast<int32_t>(out.size() - L::log_overhead));
  store_be<int32_t>(p + L::partition_leader_epoch,
                    original.partition_leader_epoch);
  p[L::magic] = static_cast<uint8_t>(L::current_magic);
  store_be<int16_t>(p + L::attributes, attributes);
  store_be<int32_t>(p + L::last_offset_delta, original.last_offset_delta);
  store_be<int64_t>(p + L::base_timestamp, base_ts);
  store_be<int64_t>(p + L::max_timestamp, max_ts);
  store_be<int64_t>(p + L::producer_id, original.producer_id);
  store_be<int16_t>(p + L::producer_epoch, original.producer_epoch);
  store_be<int32_t>(p + L::base_sequence, original.base_sequence);
  store_be<int32_t>(p + L::records_count, static_cast<int32_t>(kept.size()));
  store_be<uint32_t>(p + L::crc, batch_crc(p, out.size()));
  return out;
}

std::optional<std::vector<decoded_record>>
decode_records(const uint8_t* p, size_t n, std::string* reason) {
  auto h = parse_header(p, n);
  if (!h) {
    fail(reason, "shorter than the 61-byte batch header");
    return std::nullopt;
  }
  if (h->magic != L::current_magic) {
    fail(reason, "not a magic v2 record batch");
    return std::nullopt;
  }
  if (h->size_in_bytes() != static_cast<int64_t>(n)) {
    fail(reason, "batchLength does not match the bytes given");
    return std::nullopt;
  }
  if (h->compression() != 0) {
    // Deliberate: troupe stores and serves compressed batches as they came
    // but has no codecs to open them.
    fail(reason, "compressed batch: troupe does not decompress");
    return std::nullopt;
  }
  decoding_sink sink{h->base_offset, h->base_timestamp, {}};
  if (h->records_count > 0)
    sink.out.reserve(static_cast<size_t>(
      std::min<int64_t>(h->records_count, static_cast<int64_t>(n - L::records)
                                            / min_record_bytes)));
  if (!walk_records(p + L::records, p + n, h->records_count, sink, reason))
    return std::nullopt;
  return std::move(sink.out);
}

void set_base_offset(uint8_t* batch, int64_t base_offset) {
  store_be<int64_t>(batch + L::base_offset, base_offset);
}

void set_leader_epoch(uint8_t* batch, int32_t leader_epoch) {
  store_be<int32_t>(batch + L::partition_leader_epoch, leader_epoch);
}

} // namespace troupe
