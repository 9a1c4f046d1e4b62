#include "domain/log/legacy_records.hpp"

#include <algorithm>
#include <climits>

#include <zlib.h>

#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace {

namespace M = legacy_layout;

using bytes = std::vector<uint8_t>;

uint64_t load_be(const uint8_t* p, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i)
    v = (v << 8) | p[i];
  return v;
}

int32_t load_i32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(load_be(p, 4)));
}

void store_be(uint8_t* p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

void put_be(bytes& out, uint64_t v, int width) {
  auto at = out.size();
  out.resize(at + static_cast<size_t>(width));
  store_be(out.data() + at, v, width);
}

/// One message as it is in the set, pointing into its bytes.
struct raw_message {
  int64_t offset = 0;
  int8_t magic = 0;
  int8_t attributes = 0;
  int64_t timestamp = -1;
  const uint8_t* key = nullptr;
  int32_t key_size = -1;
  const uint8_t* value = nullptr;
  int32_t value_size = -1;

  compression_codec codec() const {
    return static_cast<compression_codec>(attributes & M::compression_mask);
  }
  bool log_append_time() const {
    return magic > 0 && (attributes & M::log_append_time_flag);
  }
};

/// How a read of one message went.
struct read_result {
  error_code error = error_code::none;
  std::string reason;
  /// The message's bytes, log overhead included; 0 when the set ends or the
  /// message is cut short.
  size_t used = 0;
};

read_result corrupt(std::string why) {
  return {error_code::corrupt_message, std::move(why), 0};
}

/// Kafka's ByteBufferLogInputStream.nextBatchSize and LegacyRecord
/// .ensureValid for the message at p, then its fields.
read_result read_message(const uint8_t* p, size_t n, raw_message& m) {
  if (n < M::log_overhead)
    return {};
  auto size = load_i32(p + M::size);
  if (size < M::record_overhead_v0)
    return corrupt("Record size " + std::to_string(size)
                   + " is less than the minimum record overhead (14)");
  if (n < M::magic + 1)
    return {};
  auto magic = static_cast<int8_t>(p[M::magic]);
  if (magic < 0 || magic > 2)
    return corrupt("Invalid magic found in record: " + std::to_string(magic));
  size_t total = M::log_overhead + static_cast<size_t>(size);
  if (n < total)
    return {};
  if (magic == 2)
    return corrupt("a magic v2 record batch inside a magic 0/1 message set");
  if (magic == 1 && size < M::record_overhead_v1)
    return corrupt("Record size " + std::to_string(size)
                   + " is less than the magic 1 record overhead (22)");
  uint32_t stored = static_cast<uint32_t>(load_be(p + M::crc, 4));
  uint32_t computed = legacy_crc32(p + M::magic, static_cast<size_t>(size) - 4);
  if (stored != computed)
    return corrupt("Record is corrupt (stored crc = " + std::to_string(stored)
                   + ", computed crc = " + std::to_string(computed) + ")");
  m.offset = static_cast<int64_t>(load_be(p + M::offset, 8));
  m.magic = magic;
  m.attributes = static_cast<int8_t>(p[M::attributes]);
  const uint8_t* q = p + M::timestamp;
  const uint8_t* end = p + total;
  m.timestamp = -1;
  if (magic == 1) {
    m.timestamp = static_cast<int64_t>(load_be(q, 8));
    q += 8;
  }
  auto field = [&](const uint8_t*& data, int32_t& len) {
    if (end - q < 4)
      return false;
    len = load_i32(q);
    q += 4;
    if (len < -1 || len > end - q)
      return false;
    data = len >= 0 ? q : nullptr;
    if (len > 0)
      q += len;
    return true;
  };
  if (!field(m.key, m.key_size) || !field(m.value, m.value_size))
    return corrupt("key or value length past the end of the record");
  return {error_code::none, {}, total};
}

std::optional<bytes> copy_of(const uint8_t* data, int32_t size) {
  if (size < 0)
    return std::nullopt;
  return bytes(data, data + size);
}

legacy_message to_message(const raw_message& m, int64_t offset,
                          int64_t timestamp, bool log_append_time) {
  legacy_message out;
  out.offset = offset;
  out.magic = m.magic;
  out.timestamp = m.magic == 0 ? -1 : timestamp;
  out.log_append_time = m.magic > 0 && log_append_time;
  out.key = copy_of(m.key, m.key_size);
  out.value = copy_of(m.value, m.value_size);
  return out;
}

legacy_set refuse(legacy_set& set, error_code e, std::string why) {
  set.error = e;
  set.reason = std::move(why);
  set.messages.clear();
  return std::move(set);
}

/// AbstractLegacyRecordBatch.DeepRecordsIterator and LogValidator
/// .validateRecord for one wrapper: its inner messages into `set`.
bool open_wrapper(const raw_message& wrapper, legacy_set& set) {
  auto codec = wrapper.codec();
  auto invalid = [&](std::string why) {
    set.error = error_code::invalid_record;
    set.reason = std::move(why);
    return false;
  };
  if (codec == compression_codec::zstd)
    return invalid("Invalid wrapper compressionType found in legacy deep "
                   "record iterator");
  if (static_cast<int>(codec) > static_cast<int>(compression_codec::zstd)) {
    set.error = error_code::corrupt_message;
    set.reason = "Unknown compression type id";
    return false;
  }
  if (wrapper.value_size < 0)
    return invalid("Found invalid compressed record set with null value (magic "
                   "= " + std::to_string(wrapper.magic) + ")");
  std::string why;
  auto inner = decompress(codec, wrapper.value,
                          static_cast<size_t>(wrapper.value_size), &why,
                          wrapper.magic == 0 ? lz4_header_checksum::broken_magic0
                                             : lz4_header_checksum::correct);
  if (!inner) {
    set.error = error_code::corrupt_message;
    set.reason = "compressed message set does not decompress: " + why;
    return false;
  }
  std::vector<raw_message> entries;
  const uint8_t* p = inner->data();
  size_t left = inner->size();
  for (;;) {
    raw_message m;
    auto r = read_message(p, left, m);
    if (r.error != error_code::none) {
      set.error = r.error;
      set.reason = std::move(r.reason);
      return false;
    }
    if (r.used == 0)
      break; // DataLogInputStream: the stream ends or cuts one short
    if (m.codec() != compression_codec::none)
      return invalid("Compressed outer record should not have an inner record "
                     "with a compression attribute set");
    if (m.magic != wrapper.magic)
      return invalid("Record's magic does not match outer magic "
                     + std::to_string(wrapper.magic));
    entries.push_back(m);
    p += r.used;
    left -= r.used;
  }
  if (entries.empty())
    return invalid("Found invalid compressed record set with no inner records");
  int64_t base = 0;
  if (wrapper.magic == 1 && wrapper.offset != 0) {
    auto last = entries.back().offset;
    if (wrapper.offset < last)
      return invalid("Found invalid wrapper offset in compressed v1 message "
                     "set, wrapper offset '" + std::to_string(wrapper.offset)
                     + "' is less than the last inner message offset '"
                     + std::to_string(last) + "' and it is not zero.");
    base = wrapper.offset - last;
  }
  bool lat = wrapper.log_append_time();
  for (auto& e : entries) {
    int64_t offset = e.offset;
    if (wrapper.magic == 1
        && __builtin_add_overflow(base, e.offset, &offset))
      return invalid("inner offset overflows");
    set.messages.push_back(
      to_message(e, offset, lat ? wrapper.timestamp : e.timestamp, lat));
  }
  set.codec = codec;
  return true;
}

void write_message(bytes& out, int64_t offset, int8_t magic, int8_t attributes,
                   int64_t timestamp, const std::optional<bytes>& key,
                   const uint8_t* value, int32_t value_size) {
  auto at = out.size();
  put_be(out, static_cast<uint64_t>(offset), 8);
  put_be(out, 0, 4); // size, below
  put_be(out, 0, 4); // crc, below
  out.push_back(static_cast<uint8_t>(magic));
  out.push_back(static_cast<uint8_t>(attributes));
  if (magic == 1)
    put_be(out, static_cast<uint64_t>(timestamp), 8);
  put_be(out, key ? static_cast<uint32_t>(key->size()) : 0xFFFFFFFFu, 4);
  if (key)
    out.insert(out.end(), key->begin(), key->end());
  put_be(out, static_cast<uint32_t>(value_size), 4);
  if (value_size > 0)
    out.insert(out.end(), value, value + value_size);
  auto* m = out.data() + at;
  auto size = out.size() - at - M::log_overhead;
  store_be(m + M::size, size, 4);
  store_be(m + M::crc, legacy_crc32(m + M::magic, size - 4), 4);
}

bool fits_int32(const std::optional<bytes>& b) {
  return !b || b->size() <= static_cast<size_t>(INT32_MAX) - 64;
}

} // namespace

uint32_t legacy_crc32(const uint8_t* p, size_t n) noexcept {
  uLong c = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    auto chunk = static_cast<uInt>(std::min<size_t>(n, UINT_MAX));
    c = crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

bool is_legacy_set(const uint8_t* p, size_t n) {
  return n > M::magic && p[M::magic] < 2;
}

legacy_set decode_legacy(const uint8_t* p, size_t n) {
  legacy_set set;
  while (n > 0) {
    raw_message m;
    auto r = read_message(p, n, m);
    if (r.error != error_code::none)
      return refuse(set, r.error, std::move(r.reason));
    if (r.used == 0)
      break;
    if (m.codec() == compression_codec::none) {
      set.messages.push_back(
        to_message(m, m.offset, m.timestamp, m.log_append_time()));
    } else if (!open_wrapper(m, set)) {
      return refuse(set, set.error, std::move(set.reason));
    }
    p += r.used;
    n -= r.used;
  }
  return set;
}

converted_records up_convert(const uint8_t* p, size_t n) {
  auto set = decode_legacy(p, n);
  if (set.error != error_code::none)
    return {set.error, std::move(set.reason), {}};
  if (set.messages.empty())
    return {};
  std::vector<record> records;
  records.reserve(set.messages.size());
  for (auto& m : set.messages)
    records.push_back(record{std::move(m.key), std::move(m.value),
                             m.timestamp, {}});
  auto batch = encode_compressed_batch(set.codec, 0, -1, records);
  if (batch.empty())
    return {error_code::corrupt_message,
            "the messages do not fit one record batch", {}};
  return {error_code::none, {}, std::move(batch)};
}

std::vector<uint8_t> encode_legacy(int8_t magic, compression_codec codec,
                                   const std::vector<legacy_message>& messages,
                                   bool log_append_time,
                                   int64_t log_append_time_ms) {
  if ((magic != 0 && magic != 1) || messages.empty()
      || codec == compression_codec::zstd
      || static_cast<int>(codec) > static_cast<int>(compression_codec::zstd))
    return {};
  bool lat = magic == 1 && log_append_time;
  auto attributes =
    static_cast<int8_t>(lat ? legacy_layout::log_append_time_flag : 0);
  auto timestamp_of = [&](const legacy_message& m) {
    return lat ? log_append_time_ms : m.timestamp;
  };
  auto value_size = [](const legacy_message& m) {
    return m.value ? static_cast<int32_t>(m.value->size()) : -1;
  };
  auto value_data = [](const legacy_message& m) {
    return m.value ? m.value->data() : nullptr;
  };
  for (auto& m : messages)
    if (!fits_int32(m.key) || !fits_int32(m.value))
      return {};
  bytes out;
  if (codec == compression_codec::none) {
    for (auto& m : messages)
      write_message(out, m.offset, magic, attributes, timestamp_of(m), m.key,
                    value_data(m), value_size(m));
    return out;
  }
  // MemoryRecordsBuilder for a legacy codec: inner messages uncompressed,
  // offsets relative to the first for magic 1 (toInnerOffset), absolute
  // for magic 0; the wrapper takes the last offset and the largest
  // timestamp.
  bytes inner;
  int64_t max_timestamp = -1;
  for (auto& m : messages) {
    auto offset = magic == 1 ? m.offset - messages.front().offset : m.offset;
    write_message(inner, offset, magic, attributes, timestamp_of(m), m.key,
                  value_data(m), value_size(m));
    max_timestamp = std::max(max_timestamp, timestamp_of(m));
  }
  auto value = compress(codec, inner.data(), inner.size(),
                        magic == 0 ? lz4_header_checksum::broken_magic0
                                   : lz4_header_checksum::correct);
  if (!value || value->size() > static_cast<size_t>(INT32_MAX) - 64)
    return {};
  write_message(out, messages.back().offset, magic,
                static_cast<int8_t>(attributes | static_cast<int8_t>(codec)),
                lat ? log_append_time_ms : max_timestamp, std::nullopt,
                value->data(), static_cast<int32_t>(value->size()));
  return out;
}

converted_records down_convert(const uint8_t* p, size_t n, int8_t to_magic,
                               int64_t fetch_offset) {
  converted_records out;
  for (auto& b : record_batches{p, n}) {
    auto& h = b.header;
    if (h.magic != batch_layout::current_magic)
      return {error_code::corrupt_message, "not a magic v2 batch in the log",
              {}};
    if (h.attributes & batch_layout::control_flag)
      continue; // transaction markers: old consumers have no use for them
    auto codec = static_cast<compression_codec>(h.compression());
    if (codec == compression_codec::zstd)
      return {error_code::unsupported_compression_type,
              "Down-conversion of zstandard-compressed batches is not "
              "supported",
              {}};
    std::string why;
    auto records = decode_batch_records(b.data, b.size, &why);
    if (!records)
      return {error_code::corrupt_message, std::move(why), {}};
    bool lat = h.attributes & batch_layout::log_append_time_flag;
    std::vector<legacy_message> kept;
    for (auto& r : *records) {
      // RecordsUtil.downConvert: a compressed batch is converted whole (the
      // consumer skips the offsets below its fetch), an uncompressed one
      // from the fetch offset.
      if (codec == compression_codec::none && r.offset < fetch_offset)
        continue;
      legacy_message m;
      m.offset = r.offset;
      m.magic = to_magic;
      m.timestamp = to_magic == 0 ? -1 : r.timestamp;
      m.key = std::move(r.key);
      m.value = std::move(r.value);
      kept.push_back(std::move(m));
    }
    if (kept.empty())
      continue;
    auto converted = encode_legacy(to_magic, codec, kept, lat, h.max_timestamp);
    if (converted.empty())
      return {error_code::corrupt_message,
              "records do not fit a magic 0/1 message", {}};
    out.records.insert(out.records.end(), converted.begin(), converted.end());
  }
  return out;
}

size_t fitting_legacy_messages(const uint8_t* p, size_t n, int64_t limit,
                               bool at_least_one) {
  size_t pos = 0;
  while (n - pos >= M::log_overhead) {
    auto size = load_i32(p + pos + M::size);
    if (size < 0)
      break;
    auto total = M::log_overhead + static_cast<size_t>(size);
    if (total > n - pos)
      break;
    if (static_cast<int64_t>(pos + total) > limit && !(at_least_one && pos == 0))
      break;
    pos += total;
  }
  return pos;
}

} // namespace troupe
