#pragma once

// Helpers shared by the gateway's CAF-side translation units: one-shot asks
// from short-lived actors, and JSON bodies through protobuf's JSON mapping.
// Include only from .cpp files (it pulls in caf/all.hpp and protobuf).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <google/protobuf/util/json_util.h>

#include "domain/error_code.hpp"
#include "gateway/actor_ask.hpp"
#include "gateway/http_handler.hpp"

namespace troupe::http {

using std::chrono::milliseconds;

/// Broker requests wait this long; the broker's own timeouts come first.
constexpr milliseconds ask_timeout{35000};

/// request_one / request_all (gateway/actor_ask.hpp) with the gateway's
/// timeout.
template <class Res, class Handle, class Req, class Done>
void ask(caf::actor_system& sys, Handle to, Req req, Done done,
         milliseconds timeout = ask_timeout) {
  troupe::request_one<Res>(sys, std::move(to), std::move(req), std::move(done),
                           timeout);
}

template <class Res, class Handle, class Req, class Done>
void ask_all(caf::actor_system& sys,
             std::vector<std::pair<Handle, Req>> requests, Done done,
             milliseconds timeout = ask_timeout) {
  troupe::request_all<Res>(sys, std::move(requests), std::move(done), timeout);
}

/// Calls `fn` on a CAF worker after `delay`.
inline void after(caf::actor_system& sys, milliseconds delay,
                  std::function<void()> fn) {
  sys.spawn([delay, fn = std::move(fn)](caf::event_based_actor* self) {
    self->delayed_send(self, delay, caf::atom("wake"));
    return caf::behavior{[self, fn](caf::atom_value) {
      fn();
      self->quit();
    }};
  });
}

// -- JSON --------------------------------------------------------------------------------

inline std::string to_json(const google::protobuf::Message& msg) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opt;
  opt.always_print_primitive_fields = true;
  opt.preserve_proto_field_names = true; // snake_case, as the REST Proxy
  (void)google::protobuf::util::MessageToJsonString(msg, &out, opt);
  return out;
}

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

/// Protobuf's JSON parser takes a lone value for a repeated field; a REST
/// client that sends `"topics": "t"` made a mistake, so insist on arrays.
inline bool check_arrays(const google::protobuf::Descriptor* d,
                         const google::protobuf::Value& v, std::string& error) {
  if (!v.has_struct_value() || d->well_known_type() != 0)
    return true;
  for (auto& [key, child] : v.struct_value().fields()) {
    const google::protobuf::FieldDescriptor* f = d->FindFieldByName(key);
    for (int i = 0; !f && i < d->field_count(); ++i)
      if (d->field(i)->json_name() == key)
        f = d->field(i);
    if (!f || child.has_null_value())
      continue;
    if (f->is_repeated() && !f->is_map()) {
      if (!child.has_list_value()) {
        error = "field '" + key + "' must be an array";
        return false;
      }
      if (f->message_type())
        for (auto& item : child.list_value().values())
          if (!check_arrays(f->message_type(), item, error))
            return false;
    } else if (f->message_type() && !f->is_map()
               && !check_arrays(f->message_type(), child, error)) {
      return false;
    }
  }
  return true;
}

/// Parses `text` into `msg`; unknown fields and wrong types are errors.
inline bool from_json(const std::string& text, google::protobuf::Message& msg,
                      std::string& error) {
  google::protobuf::util::JsonParseOptions opt;
  opt.ignore_unknown_fields = false;
  auto st = google::protobuf::util::JsonStringToMessage(text, &msg, opt);
  if (!st.ok()) {
    error = std::string{st.message()};
    return false;
  }
  if (msg.GetDescriptor()->well_known_type() != 0)
    return true;
  google::protobuf::Value shape;
  if (google::protobuf::util::JsonStringToMessage(text, &shape, opt).ok())
    return check_arrays(msg.GetDescriptor(), shape, error);
  return true;
}

inline http_response json(unsigned status, std::string body) {
  http_response res;
  res.status = status;
  res.body = std::move(body);
  return res;
}

inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/// `{error_code, error_name, message}`; `code` is the REST Proxy's code on
/// v2 routes and Kafka's on /v1.
inline http_response error(unsigned status, int code, const std::string& name,
                           const std::string& message) {
  return json(status, "{\"error_code\":" + std::to_string(code)
                        + ",\"error_name\":\"" + escape(name)
                        + "\",\"message\":\"" + escape(message) + "\"}");
}

inline http_response bad_request(const std::string& message) {
  return error(400, 400, "BAD_REQUEST", message);
}

inline http_response kafka_error(unsigned status, error_code e,
                                 const std::string& message) {
  return error(status, static_cast<int>(e), std::string{error_name(e)},
               message);
}

} // namespace troupe::http
