#include "gateway/rest/json.hpp"

#include <unordered_map>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

namespace pbu = google::protobuf::util;

namespace troupe::rest {

namespace {

/// Protobuf's JSON parser takes a lone value for a repeated field; a REST
/// client that sends `"topics": "t"` made a mistake, so insist on arrays.
bool check_arrays(const google::protobuf::Descriptor* d,
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

} // namespace

std::string to_json(const google::protobuf::Message& msg) {
  std::string out;
  pbu::JsonPrintOptions opt;
  opt.always_print_primitive_fields = true;
  opt.preserve_proto_field_names = true; // snake_case, as REST Proxy
  (void)pbu::MessageToJsonString(msg, &out, opt);
  return out;
}

namespace {

/// Whether a message of type `d` has a repeated field anywhere, i.e.
/// whether check_arrays has anything to check. Cached per type: the
/// second parse it needs is half the cost of a small body.
bool has_repeated(const google::protobuf::Descriptor* d, int depth = 0) {
  if (depth > 8)
    return true;
  for (int i = 0; i < d->field_count(); ++i) {
    auto* f = d->field(i);
    if (f->is_repeated())
      return true;
    if (f->message_type() && f->message_type()->well_known_type() == 0
        && has_repeated(f->message_type(), depth + 1))
      return true;
  }
  return false;
}

bool needs_array_check(const google::protobuf::Descriptor* d) {
  // Descriptors of generated messages live forever; a thread-local cache
  // needs no lock.
  thread_local std::unordered_map<const google::protobuf::Descriptor*, bool>
    cache;
  auto i = cache.find(d);
  if (i == cache.end())
    i = cache.emplace(d, has_repeated(d)).first;
  return i->second;
}

} // namespace

bool from_json(std::string_view text, google::protobuf::Message& msg,
               std::string& error) {
  pbu::JsonParseOptions opt;
  opt.ignore_unknown_fields = false;
  auto st = pbu::JsonStringToMessage(std::string{text}, &msg, opt);
  if (!st.ok()) {
    error = std::string{st.message()};
    return false;
  }
  if (msg.GetDescriptor()->well_known_type() != 0
      || !needs_array_check(msg.GetDescriptor()))
    return true;
  google::protobuf::Value shape;
  if (pbu::JsonStringToMessage(std::string{text}, &shape, opt).ok())
    return check_arrays(msg.GetDescriptor(), shape, error);
  return true;
}

bool parse_json_value(std::string_view text, std::string* compact) {
  google::protobuf::Value v;
  pbu::JsonParseOptions opt;
  if (!pbu::JsonStringToMessage(std::string{text}, &v, opt).ok())
    return false;
  if (compact)
    (void)pbu::MessageToJsonString(v, compact);
  return true;
}

} // namespace troupe::rest
