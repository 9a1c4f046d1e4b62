#pragma once

// JSON for the gateway's bodies: requests parse into protobuf messages
// (proto/gateway.proto) with protobuf's JSON mapping; small or hot answers
// are written directly. No CAF.

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "domain/json_string.hpp" // json_quote

namespace troupe::rest {

/// `msg` as JSON with its proto field names (snake_case, as REST Proxy) and
/// every field printed.
std::string to_json(const google::protobuf::Message& msg);

/// A JSON array of messages (the v2 API answers lists as bare arrays).
template <class Container>
std::string to_json_array(const Container& msgs) {
  std::string out = "[";
  for (auto& m : msgs) {
    if (out.size() > 1)
      out += ',';
    out += to_json(m);
  }
  out += ']';
  return out;
}

/// Parses `text` into `msg`. Unknown fields, wrong types and a lone value
/// where an array belongs are errors (`error` says which).
bool from_json(std::string_view text, google::protobuf::Message& msg,
               std::string& error);

/// Whether `text` is one well-formed JSON value; `compact` gets it
/// re-printed without insignificant whitespace.
bool parse_json_value(std::string_view text, std::string* compact = nullptr);

} // namespace troupe::rest
