#pragma once

// A small strict JSON reader (RFC 8259) for the produce route's bodies,
// which carry arbitrary embedded JSON: protobuf's JSON mapping (used for
// every other body) costs a fifth of a produce there. Values keep what
// REST Proxy's serializer needs: the compact text of each value. Plain C++.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace troupe::rest {

struct json_value {
  enum class kind : uint8_t { null, boolean, number, string, array, object };

  kind type = kind::null;
  bool boolean = false;
  /// A string's decoded text (UTF-8), or a number's text as written.
  std::string text;
  std::vector<json_value> items;
  std::vector<std::pair<std::string, json_value>> members;

  bool is_null() const {
    return type == kind::null;
  }

  /// A member of an object, or nullptr.
  const json_value* find(std::string_view name) const;

  /// The value without insignificant whitespace (what Jackson's
  /// ObjectMapper writes for a JsonNode).
  std::string compact() const;
};

/// Parses one JSON value that makes up the whole of `text` (at most 64
/// levels deep); `error` says what is wrong otherwise.
bool parse_json(std::string_view text, json_value& out, std::string& error);

} // namespace troupe::rest
