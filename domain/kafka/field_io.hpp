#pragma once

// Internal to the codec (domain/kafka/*_messages.cpp, protocol.cpp): the
// three walks over a field list. Each message struct has one function
//   template <class Io> void fields(Io& io, X& x)
// that lists its fields in wire order, with the version conditions of
// Kafka's JSON schema. The same list decodes (decoder), encodes (encoder) and
// yields the smallest encoding of an array element (sizer), so the three
// cannot drift apart. `io.version` is the API version, `io.flexible` whether
// it is a flexible one: then strings, bytes and arrays are compact and every
// struct ends with a tagged-field section. The walks add that section after
// the field list unless the list writes its own with io.tags(...), naming
// its known tags in ascending order:
//   io.tags([&](auto& tag) { tag(0, x.current_leader); });

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire::detail {

template <class T>
struct is_vector : std::false_type {};

template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

/// What the three walks share: the version, flexibility, and the dispatch of
/// a value by its type (array elements, tagged fields, nested structs).
template <class Derived>
class walk {
public:
  walk(int16_t version, bool flexible) : version(version), flexible(flexible) {
    // nop
  }

  const int16_t version;
  const bool flexible;

  template <class T>
  void value(T& x) {
    auto& io = static_cast<Derived&>(*this);
    if constexpr (std::is_same_v<T, bool>)
      io.boolean(x);
    else if constexpr (std::is_same_v<T, int8_t>)
      io.i8(x);
    else if constexpr (std::is_same_v<T, int16_t>)
      io.i16(x);
    else if constexpr (std::is_same_v<T, int32_t>)
      io.i32(x);
    else if constexpr (std::is_same_v<T, int64_t>)
      io.i64(x);
    else if constexpr (std::is_same_v<T, error_code>)
      io.error(x);
    else if constexpr (std::is_same_v<T, wire::uuid>)
      io.uuid(x);
    else if constexpr (std::is_same_v<T, std::string>)
      io.string(x);
    else if constexpr (is_vector<T>::value)
      io.array(x);
    else
      structure(x);
  }

  /// A struct: its field list, then (flexible versions) the tagged fields.
  template <class T>
  void structure(T& x) {
    auto& io = static_cast<Derived&>(*this);
    auto outer = tagged_;
    tagged_ = false;
    fields(io, x);
    if (!tagged_)
      io.tags([](auto&) {});
    tagged_ = outer;
  }

  /// A struct-typed field that is not an array element.
  template <class T>
  void nested(T& x) {
    structure(x);
  }

protected:
  /// Whether the field list being walked wrote its tagged-field section.
  bool tagged_ = false;
};

// -- sizer --------------------------------------------------------------------

/// Adds up the smallest encoding of each field: empty strings and arrays,
/// no tagged fields.
class sizer : public walk<sizer> {
public:
  static constexpr bool reading = false;

  using walk::walk;

  size_t size = 0;

  void i8(int8_t) {
    size += 1;
  }
  void i16(int16_t) {
    size += 2;
  }
  void i32(int32_t) {
    size += 4;
  }
  void i64(int64_t) {
    size += 8;
  }
  void boolean(bool) {
    size += 1;
  }
  void error(error_code) {
    size += 2;
  }
  void uuid(const wire::uuid&) {
    size += 16;
  }
  template <class T>
  void string(const T&) {
    size += flexible ? 1 : 2;
  }
  template <class T>
  void nullable_string(const T&, bool = true) {
    size += flexible ? 1 : 2;
  }
  template <class T>
  void classic_nullable_string(const T&) {
    size += 2;
  }
  template <class T>
  void bytes(const T&) {
    size += flexible ? 1 : 4;
  }
  template <class T>
  void records(const T&) {
    size += flexible ? 1 : 4;
  }
  template <class T>
  void array(const T&) {
    size += flexible ? 1 : 4;
  }
  template <class T>
  void nullable_array(const T&, bool = true) {
    size += flexible ? 1 : 4;
  }
  template <class T>
  void nullable_struct(const T&) {
    size += 1;
  }
  template <class F>
  void tags(F&&) {
    tagged_ = true;
    if (flexible)
      size += 1;
  }
  template <class T>
  void absent(const T&, const T&, const char*) {
    // nop
  }
};

/// The fewest bytes one T takes on the wire: the bound that lets the reader
/// refuse an array count before allocating for it.
template <class T>
size_t min_size(int16_t version, bool flexible) {
  sizer io{version, flexible};
  T x{};
  io.value(x);
  return io.size;
}

// -- decoder ------------------------------------------------------------------

/// Reads fields into a struct; the first failure sticks in the reader and
/// makes every later read a no-op.
class decoder : public walk<decoder> {
public:
  static constexpr bool reading = true;

  decoder(reader& in, int16_t version, bool flexible)
    : walk(version, flexible), in_(in) {
    // nop
  }

  void i8(int8_t& x) {
    in_.i8(x);
  }

  /// A field the version does not carry: it reads as its default.
  template <class T>
  void absent(T& x, const T& default_value, const char*) {
    x = default_value;
  }
  void i16(int16_t& x) {
    in_.i16(x);
  }
  void i32(int32_t& x) {
    in_.i32(x);
  }
  void i64(int64_t& x) {
    in_.i64(x);
  }
  void boolean(bool& x) {
    in_.boolean(x);
  }
  void error(error_code& x) {
    int16_t value = 0;
    if (in_.i16(value))
      x = error_from_int(value);
  }
  void uuid(wire::uuid& x) {
    in_.uuid(x);
  }
  void string(std::string& x) {
    if (flexible)
      in_.compact_string(x);
    else
      in_.string(x);
  }

  /// A string that may be null; with `nullable` false (a version before its
  /// nullableVersions) null is malformed.
  void nullable_string(std::optional<std::string>& x, bool nullable = true) {
    if (!nullable) {
      std::string s;
      string(s);
      if (in_.ok())
        x = std::move(s);
    } else if (flexible) {
      in_.compact_nullable_string(x);
    } else {
      in_.nullable_string(x);
    }
  }

  /// The request header's ClientId: an int16 length even in header v2.
  void classic_nullable_string(std::optional<std::string>& x) {
    in_.nullable_string(x);
  }

  void bytes(std::vector<uint8_t>& x) {
    if (flexible)
      in_.compact_bytes(x);
    else
      in_.bytes(x);
  }

  /// Records are nullable on the wire; null reads as empty.
  void records(std::vector<uint8_t>& x) {
    std::optional<std::vector<uint8_t>> value;
    auto ok =
      flexible ? in_.compact_nullable_bytes(value) : in_.nullable_bytes(value);
    if (ok)
      x = value ? std::move(*value) : std::vector<uint8_t>{};
  }

  template <class T>
  void array(std::vector<T>& xs) {
    size_t n = 0;
    auto min = min_size<T>(version, flexible);
    if (flexible ? in_.compact_array_size(n, min) : in_.array_size(n, min))
      elements(xs, n);
  }

  template <class T>
  void nullable_array(std::optional<std::vector<T>>& xs, bool nullable = true) {
    if (!nullable) {
      xs.emplace();
      array(*xs);
      return;
    }
    std::optional<size_t> n;
    auto min = min_size<T>(version, flexible);
    if (!(flexible ? in_.compact_nullable_array_size(n, min)
                   : in_.nullable_array_size(n, min)))
      return;
    if (!n) {
      xs.reset();
      return;
    }
    xs.emplace();
    elements(*xs, *n);
  }

  /// Kafka's nullable struct: an int8 marker, -1 for null, then the struct.
  template <class T>
  void nullable_struct(std::optional<T>& x) {
    int8_t marker = 0;
    if (!in_.i8(marker))
      return;
    if (marker < 0) {
      x.reset();
      return;
    }
    structure(x.emplace());
  }

  /// Reads a tagged-field section: a count, then tag, size and value each.
  /// Known tags decode into their optional field (within their size; a value
  /// shorter than its size is tolerated); unknown ones are skipped, as
  /// Kafka's generated readers keep them aside without parsing them.
  template <class F>
  void tags(F&& visit) {
    tagged_ = true;
    if (!flexible)
      return;
    uint32_t n = 0;
    if (!in_.unsigned_varint(n))
      return;
    // Each entry takes at least two bytes, so the loop ends with the input.
    for (uint32_t i = 0; i < n && in_.ok(); ++i) {
      uint32_t tag = 0;
      uint32_t size = 0;
      if (!in_.unsigned_varint(tag) || !in_.unsigned_varint(size))
        return;
      auto end = in_.narrow(size);
      if (!in_.ok())
        return;
      auto known = false;
      auto read = [&](uint32_t t, auto& field) {
        if (t == tag && !known) {
          known = true;
          tagged(field);
        }
      };
      visit(read);
      if (in_.ok())
        in_.skip(in_.remaining());
      in_.widen(end);
    }
  }

private:
  template <class T>
  void tagged(std::optional<T>& field) {
    if constexpr (std::is_same_v<T, std::string>)
      nullable_string(field);
    else
      value(field.emplace());
  }

  // Grows one element at a time: a count that fits the bytes but whose
  // elements do not parse costs no more memory than the elements read.
  template <class T>
  void elements(std::vector<T>& xs, size_t n) {
    xs.clear();
    for (size_t i = 0; i < n && in_.ok(); ++i)
      value(xs.emplace_back());
  }

  reader& in_;
};

// -- encoder ------------------------------------------------------------------

/// Writes the fields of a struct. It takes the struct by non-const reference
/// only to share the field lists with the decoder; it never modifies it.
class encoder : public walk<encoder> {
public:
  static constexpr bool reading = false;

  encoder(writer& out, int16_t version, bool flexible)
    : walk(version, flexible), out_(out) {
    // nop
  }

  void i8(int8_t x) {
    out_.i8(x);
  }

  /// A field the version does not carry (a non-ignorable one in Kafka's
  /// schema): a value other than its default cannot be written, as Kafka's
  /// generated writers throw UnsupportedVersionException.
  template <class T>
  void absent(const T& x, const T& default_value, const char* name) {
    if (!(x == default_value))
      out_.fail(std::string{"version "} + std::to_string(version)
                + " cannot carry a non-default " + name);
  }
  void i16(int16_t x) {
    out_.i16(x);
  }
  void i32(int32_t x) {
    out_.i32(x);
  }
  void i64(int64_t x) {
    out_.i64(x);
  }
  void boolean(bool x) {
    out_.boolean(x);
  }
  void error(error_code x) {
    out_.i16(to_int(x));
  }
  void uuid(const wire::uuid& x) {
    out_.uuid(x);
  }
  void string(const std::string& x) {
    if (flexible)
      out_.compact_string(x);
    else
      out_.string(x);
  }
  void nullable_string(const std::optional<std::string>& x,
                       bool nullable = true) {
    if (!x && !nullable)
      out_.fail("null string in a version where it is not nullable");
    else if (!nullable)
      string(*x);
    else if (flexible)
      out_.compact_nullable_string(x);
    else
      out_.nullable_string(x);
  }
  void classic_nullable_string(const std::optional<std::string>& x) {
    out_.nullable_string(x);
  }
  void bytes(const std::vector<uint8_t>& x) {
    if (flexible)
      out_.compact_bytes(x);
    else
      out_.bytes(x);
  }

  /// Empty records are size 0, never null (see fetch_partition_response).
  void records(const std::vector<uint8_t>& x) {
    bytes(x);
  }

  template <class T>
  void array(std::vector<T>& xs) {
    if (flexible)
      out_.compact_array_size(xs.size());
    else
      out_.array_size(xs.size());
    for (auto& x : xs)
      value(x);
  }

  template <class T>
  void nullable_array(std::optional<std::vector<T>>& xs, bool nullable = true) {
    if (xs)
      array(*xs);
    else if (!nullable)
      out_.fail("null array in a version where it is not nullable");
    else if (flexible)
      out_.compact_null_array();
    else
      out_.null_array();
  }

  template <class T>
  void nullable_struct(std::optional<T>& x) {
    out_.i8(x ? 1 : -1);
    if (x)
      structure(*x);
  }

  /// Writes the set fields among the known tags, in the ascending order the
  /// field list names them in, each as tag, size and value.
  template <class F>
  void tags(F&& visit) {
    tagged_ = true;
    if (!flexible)
      return;
    uint32_t n = 0;
    auto count = [&](uint32_t, auto& field) { n += field ? 1 : 0; };
    visit(count);
    out_.unsigned_varint(n);
    int64_t last = -1;
    auto write = [&](uint32_t tag, auto& field) {
      if (static_cast<int64_t>(tag) <= last)
        out_.fail("tagged fields out of ascending order");
      last = tag;
      if (!field || !out_.ok())
        return;
      wire::bytes buf;
      writer w{buf};
      encoder sub{w, version, flexible};
      sub.value(*field);
      if (w.ok())
        out_.tagged_field(tag, buf);
      else
        out_.fail(w.error());
    };
    visit(write);
  }

private:
  writer& out_;
};

// -- entry points -------------------------------------------------------------

inline std::string unsupported(api_key key, std::string_view kind,
                               int16_t version) {
  std::string result{"unsupported "};
  result += api_name(static_cast<int16_t>(key));
  result += kind;
  result += " version ";
  result += std::to_string(version);
  return result;
}

template <class T>
std::optional<T> decode_message(reader& in, api_key key, std::string_view kind,
                                int16_t version) {
  auto k = static_cast<int16_t>(key);
  if (!is_supported(k, version)) {
    in.fail(unsupported(key, kind, version));
    return std::nullopt;
  }
  T x{};
  decoder io{in, version, is_flexible(k, version)};
  io.structure(x);
  if (!in.ok())
    return std::nullopt;
  return x;
}

template <class T>
bool encode_message(writer& out, const T& x, api_key key, std::string_view kind,
                    int16_t version) {
  auto k = static_cast<int16_t>(key);
  if (!is_supported(k, version))
    return out.fail(unsupported(key, kind, version));
  encoder io{out, version, is_flexible(k, version)};
  io.structure(const_cast<T&>(x));
  return out.ok();
}

} // namespace troupe::wire::detail

/// Defines the four codec functions of one API (see protocol.hpp).
#define TROUPE_KAFKA_DEFINE_API(name, key)                                     \
  std::optional<name##_request> decode_##name##_request(reader& in,            \
                                                        int16_t version) {     \
    return detail::decode_message<name##_request>(in, key, " request",         \
                                                  version);                    \
  }                                                                            \
  bool encode_##name##_request(writer& out, const name##_request& x,           \
                               int16_t version) {                              \
    return detail::encode_message(out, x, key, " request", version);           \
  }                                                                            \
  std::optional<name##_response> decode_##name##_response(reader& in,          \
                                                          int16_t version) {   \
    return detail::decode_message<name##_response>(in, key, " response",       \
                                                   version);                   \
  }                                                                            \
  bool encode_##name##_response(writer& out, const name##_response& x,         \
                                int16_t version) {                             \
    return detail::encode_message(out, x, key, " response", version);          \
  }
