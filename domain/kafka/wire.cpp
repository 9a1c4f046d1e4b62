#include "domain/kafka/wire.hpp"

#include <limits>
#include <type_traits>
#include <utility>

#include "domain/log/record_batch.hpp"

namespace troupe::wire {

namespace {

template <class T>
T get_be(const uint8_t* p) {
  using unsigned_t = std::make_unsigned_t<T>;
  unsigned_t u = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    u = static_cast<unsigned_t>((u << 8) | p[i]);
  return static_cast<T>(u);
}

template <class T>
void put_be(std::vector<uint8_t>& out, T x) {
  auto u = static_cast<std::make_unsigned_t<T>>(x);
  for (size_t i = sizeof(T); i-- > 0;)
    out.push_back(static_cast<uint8_t>(u >> (8 * i)));
}

std::string at(std::string_view what, size_t pos) {
  std::string result{what};
  result += " at byte ";
  result += std::to_string(pos);
  return result;
}

/// Kafka's strings are at most Short.MAX_VALUE bytes, compact ones included.
constexpr size_t max_string_size = std::numeric_limits<int16_t>::max();

constexpr size_t max_bytes_size = std::numeric_limits<int32_t>::max();

} // namespace

// -- reader -------------------------------------------------------------------

reader::reader(const uint8_t* data, size_t size) noexcept
  : data_(data), size_(data == nullptr ? 0 : size) {
  // nop
}

reader::reader(const std::vector<uint8_t>& buf) noexcept
  : reader(buf.data(), buf.size()) {
  // nop
}

bool reader::fail(std::string_view reason) {
  if (ok())
    error_ = at(reason, pos_);
  return false;
}

bool reader::need(size_t n, std::string_view what) {
  if (!ok())
    return false;
  if (n > remaining())
    return fail(std::string{"truncated "} + std::string{what});
  return true;
}

bool reader::count(int64_t n, size_t min_element_size, std::string_view what) {
  if (n < 0)
    return fail(std::string{"negative "} + std::string{what} + " length "
                + std::to_string(n));
  if (min_element_size > 0
      && static_cast<uint64_t>(n) > remaining() / min_element_size)
    return fail(std::string{what} + " length " + std::to_string(n)
                + " exceeds the remaining " + std::to_string(remaining())
                + " bytes");
  return true;
}

bool reader::i8(int8_t& x) {
  if (!need(1, "int8"))
    return false;
  x = static_cast<int8_t>(data_[pos_++]);
  return true;
}

bool reader::i16(int16_t& x) {
  if (!need(2, "int16"))
    return false;
  x = get_be<int16_t>(data_ + pos_);
  pos_ += 2;
  return true;
}

bool reader::i32(int32_t& x) {
  if (!need(4, "int32"))
    return false;
  x = get_be<int32_t>(data_ + pos_);
  pos_ += 4;
  return true;
}

bool reader::i64(int64_t& x) {
  if (!need(8, "int64"))
    return false;
  x = get_be<int64_t>(data_ + pos_);
  pos_ += 8;
  return true;
}

bool reader::boolean(bool& x) {
  int8_t b = 0;
  if (!i8(b))
    return false;
  x = b != 0;
  return true;
}

bool reader::varint(int32_t& x) {
  if (!ok())
    return false;
  auto p = current();
  auto v = get_varint(p, data_ + size_);
  if (!v)
    return fail("malformed varint");
  pos_ = static_cast<size_t>(p - data_);
  x = *v;
  return true;
}

bool reader::varlong(int64_t& x) {
  if (!ok())
    return false;
  auto p = current();
  auto v = get_varlong(p, data_ + size_);
  if (!v)
    return fail("malformed varlong");
  pos_ = static_cast<size_t>(p - data_);
  x = *v;
  return true;
}

bool reader::string(std::string& x) {
  std::optional<std::string> s;
  if (!nullable_string(s))
    return false;
  if (!s)
    return fail("null string");
  x = std::move(*s);
  return true;
}

bool reader::nullable_string(std::optional<std::string>& x) {
  int16_t n = 0;
  if (!i16(n))
    return false;
  if (n == -1) {
    x.reset();
    return true;
  }
  if (!count(n, 1, "string"))
    return false;
  x.emplace(reinterpret_cast<const char*>(current()), static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return true;
}

bool reader::bytes(std::vector<uint8_t>& x) {
  std::optional<std::vector<uint8_t>> b;
  if (!nullable_bytes(b))
    return false;
  if (!b)
    return fail("null bytes");
  x = std::move(*b);
  return true;
}

bool reader::nullable_bytes(std::optional<std::vector<uint8_t>>& x) {
  int32_t n = 0;
  if (!i32(n))
    return false;
  if (n == -1) {
    x.reset();
    return true;
  }
  if (!count(n, 1, "bytes"))
    return false;
  x.emplace(current(), current() + n);
  pos_ += static_cast<size_t>(n);
  return true;
}

bool reader::array_size(size_t& n, size_t min_element_size) {
  std::optional<size_t> m;
  if (!nullable_array_size(m, min_element_size))
    return false;
  if (!m)
    return fail("null array");
  n = *m;
  return true;
}

bool reader::nullable_array_size(std::optional<size_t>& n,
                                 size_t min_element_size) {
  int32_t x = 0;
  if (!i32(x))
    return false;
  if (x == -1) {
    n.reset();
    return true;
  }
  if (!count(x, min_element_size, "array"))
    return false;
  n = static_cast<size_t>(x);
  return true;
}

bool reader::skip(size_t n) {
  if (!need(n, "skipped bytes"))
    return false;
  pos_ += n;
  return true;
}

bool reader::unsigned_varint(uint32_t& x) {
  if (!ok())
    return false;
  auto p = current();
  auto v = get_unsigned_varint(p, data_ + size_);
  if (!v)
    return fail("malformed unsigned varint");
  pos_ = static_cast<size_t>(p - data_);
  x = *v;
  return true;
}

bool reader::uuid(wire::uuid& x) {
  if (!need(16, "uuid"))
    return false;
  x.high = get_be<uint64_t>(data_ + pos_);
  x.low = get_be<uint64_t>(data_ + pos_ + 8);
  pos_ += 16;
  return true;
}

bool reader::compact_length(int64_t& n, std::string_view what) {
  uint32_t v = 0;
  if (!unsigned_varint(v))
    return false;
  n = static_cast<int64_t>(v) - 1; // 0 is null: -1
  if (n > static_cast<int64_t>(max_bytes_size))
    return fail(std::string{what} + " length " + std::to_string(n)
                + " exceeds 2147483647");
  return true;
}

bool reader::compact_string(std::string& x) {
  std::optional<std::string> s;
  if (!compact_nullable_string(s))
    return false;
  if (!s)
    return fail("null string");
  x = std::move(*s);
  return true;
}

bool reader::compact_nullable_string(std::optional<std::string>& x) {
  int64_t n = 0;
  if (!compact_length(n, "string"))
    return false;
  if (n < 0) {
    x.reset();
    return true;
  }
  if (static_cast<size_t>(n) > max_string_size)
    return fail("string length " + std::to_string(n) + " exceeds 32767");
  if (!count(n, 1, "string"))
    return false;
  x.emplace(reinterpret_cast<const char*>(current()), static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return true;
}

bool reader::compact_bytes(std::vector<uint8_t>& x) {
  std::optional<std::vector<uint8_t>> b;
  if (!compact_nullable_bytes(b))
    return false;
  if (!b)
    return fail("null bytes");
  x = std::move(*b);
  return true;
}

bool reader::compact_nullable_bytes(std::optional<std::vector<uint8_t>>& x) {
  int64_t n = 0;
  if (!compact_length(n, "bytes"))
    return false;
  if (n < 0) {
    x.reset();
    return true;
  }
  if (!count(n, 1, "bytes"))
    return false;
  x.emplace(current(), current() + n);
  pos_ += static_cast<size_t>(n);
  return true;
}

bool reader::compact_array_size(size_t& n, size_t min_element_size) {
  std::optional<size_t> m;
  if (!compact_nullable_array_size(m, min_element_size))
    return false;
  if (!m)
    return fail("null array");
  n = *m;
  return true;
}

bool reader::compact_nullable_array_size(std::optional<size_t>& n,
                                         size_t min_element_size) {
  int64_t x = 0;
  if (!compact_length(x, "array"))
    return false;
  if (x < 0) {
    n.reset();
    return true;
  }
  if (!count(x, min_element_size, "array"))
    return false;
  n = static_cast<size_t>(x);
  return true;
}

size_t reader::narrow(size_t n) {
  auto end = size_;
  if (need(n, "tagged field"))
    size_ = pos_ + n;
  return end;
}

void reader::widen(size_t end) noexcept {
  size_ = end;
}

// -- writer -------------------------------------------------------------------

bool writer::fail(std::string_view reason) {
  if (ok())
    error_ = reason;
  return false;
}

void writer::raw(const uint8_t* data, size_t size) {
  if (ok() && size > 0)
    out_.insert(out_.end(), data, data + size);
}

void writer::i8(int8_t x) {
  if (ok())
    out_.push_back(static_cast<uint8_t>(x));
}

void writer::i16(int16_t x) {
  if (ok())
    put_be(out_, x);
}

void writer::i32(int32_t x) {
  if (ok())
    put_be(out_, x);
}

void writer::i64(int64_t x) {
  if (ok())
    put_be(out_, x);
}

void writer::boolean(bool x) {
  i8(x ? 1 : 0);
}

void writer::varint(int32_t x) {
  if (ok())
    put_varint(out_, x);
}

void writer::varlong(int64_t x) {
  if (ok())
    put_varlong(out_, x);
}

void writer::string(std::string_view x) {
  if (x.size() > static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
    fail("string longer than 32767 bytes");
    return;
  }
  i16(static_cast<int16_t>(x.size()));
  raw(reinterpret_cast<const uint8_t*>(x.data()), x.size());
}

void writer::nullable_string(const std::optional<std::string>& x) {
  if (x)
    string(*x);
  else
    i16(-1);
}

void writer::bytes(const uint8_t* data, size_t size) {
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail("bytes longer than 2147483647");
    return;
  }
  i32(static_cast<int32_t>(size));
  raw(data, size);
}

void writer::bytes(const std::vector<uint8_t>& x) {
  bytes(x.data(), x.size());
}

void writer::nullable_bytes(const std::optional<std::vector<uint8_t>>& x) {
  if (x)
    bytes(*x);
  else
    i32(-1);
}

void writer::array_size(size_t n) {
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail("array longer than 2147483647");
    return;
  }
  i32(static_cast<int32_t>(n));
}

void writer::null_array() {
  i32(-1);
}

void writer::unsigned_varint(uint32_t x) {
  if (ok())
    put_unsigned_varint(out_, x);
}

void writer::uuid(const wire::uuid& x) {
  if (ok()) {
    put_be(out_, x.high);
    put_be(out_, x.low);
  }
}

void writer::compact_string(std::string_view x) {
  if (x.size() > max_string_size) {
    fail("string longer than 32767 bytes");
    return;
  }
  unsigned_varint(static_cast<uint32_t>(x.size() + 1));
  raw(reinterpret_cast<const uint8_t*>(x.data()), x.size());
}

void writer::compact_nullable_string(const std::optional<std::string>& x) {
  if (x)
    compact_string(*x);
  else
    unsigned_varint(0);
}

void writer::compact_bytes(const uint8_t* data, size_t size) {
  if (size > max_bytes_size) {
    fail("bytes longer than 2147483647");
    return;
  }
  unsigned_varint(static_cast<uint32_t>(size + 1));
  raw(data, size);
}

void writer::compact_bytes(const std::vector<uint8_t>& x) {
  compact_bytes(x.data(), x.size());
}

void writer::compact_nullable_bytes(
  const std::optional<std::vector<uint8_t>>& x) {
  if (x)
    compact_bytes(*x);
  else
    unsigned_varint(0);
}

void writer::compact_array_size(size_t n) {
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail("array longer than 2147483647");
    return;
  }
  unsigned_varint(static_cast<uint32_t>(n + 1));
}

void writer::compact_null_array() {
  unsigned_varint(0);
}

void writer::tagged_field(uint32_t tag, const std::vector<uint8_t>& value) {
  if (value.size() > max_bytes_size) {
    fail("tagged field longer than 2147483647");
    return;
  }
  unsigned_varint(tag);
  unsigned_varint(static_cast<uint32_t>(value.size()));
  raw(value.data(), value.size());
}

size_t writer::begin_frame() {
  auto mark = out_.size();
  i32(0);
  return mark;
}

bool writer::end_frame(size_t mark) {
  if (!ok())
    return false;
  if (mark + 4 > out_.size())
    return fail("frame mark past the end of the buffer");
  auto size = out_.size() - mark - 4;
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return fail("frame larger than 2147483647 bytes");
  auto u = static_cast<uint32_t>(size);
  for (size_t i = 0; i < 4; ++i)
    out_[mark + i] = static_cast<uint8_t>(u >> (8 * (3 - i)));
  return true;
}

// -- framing ------------------------------------------------------------------

frame decode_frame(const uint8_t* p, size_t n, size_t max_request_bytes) {
  frame result;
  if (p == nullptr || n < 4)
    return result;
  auto size = get_be<int32_t>(p);
  if (size < 0) {
    result.status = frame_status::error;
    result.error = "negative frame size " + std::to_string(size);
    return result;
  }
  result.size = static_cast<size_t>(size);
  if (result.size > max_request_bytes) {
    result.status = frame_status::error;
    result.error = "frame size " + std::to_string(size)
                   + " larger than socket.request.max.bytes "
                   + std::to_string(max_request_bytes);
    return result;
  }
  if (n - 4 < result.size)
    return result;
  result.status = frame_status::complete;
  result.data = p + 4;
  result.consumed = 4 + result.size;
  return result;
}

} // namespace troupe::wire
