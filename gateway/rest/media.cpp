#include "gateway/rest/media.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace troupe::rest {

namespace {

constexpr embedded_format all_formats[] = {
  embedded_format::binary, embedded_format::json, embedded_format::avro,
  embedded_format::jsonschema, embedded_format::protobuf};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The type without parameters, lower case.
std::string bare_type(std::string_view ctype) {
  return lower(trim(ctype.substr(0, ctype.find(';'))));
}

bool wildcard(const std::string& type) {
  return type == "*/*" || type == "application/*";
}

} // namespace

std::string_view name_of(embedded_format f) {
  switch (f) {
    case embedded_format::binary:
      return "binary";
    case embedded_format::json:
      return "json";
    case embedded_format::avro:
      return "avro";
    case embedded_format::jsonschema:
      return "jsonschema";
    case embedded_format::protobuf:
      return "protobuf";
  }
  return "binary";
}

std::string media_type_of(embedded_format f) {
  return "application/vnd.kafka." + std::string{name_of(f)} + ".v2+json";
}

std::optional<embedded_format> format_by_name(std::string_view name) {
  auto l = lower(name);
  for (auto f : all_formats)
    if (l == name_of(f))
      return f;
  return std::nullopt;
}

std::optional<embedded_format> embedded_format_of(std::string_view ctype) {
  auto t = bare_type(ctype);
  for (auto f : all_formats)
    if (t == media_type_of(f))
      return f;
  return std::nullopt;
}

bool is_json_body(std::string_view ctype) {
  auto t = bare_type(ctype);
  return t.empty() || t == v2_json || t == plain_json
         || embedded_format_of(t).has_value();
}

std::vector<media_range> parse_accept(std::string_view accept) {
  std::vector<media_range> out;
  while (!accept.empty()) {
    auto comma = accept.find(',');
    auto item = trim(accept.substr(0, comma));
    accept = comma == std::string_view::npos ? std::string_view{}
                                             : accept.substr(comma + 1);
    if (item.empty())
      continue;
    media_range r;
    r.type = bare_type(item);
    // Parameters: only q matters here.
    auto params = item.substr(std::min(item.size(), item.find(';')));
    while (!params.empty()) {
      params.remove_prefix(1); // ';'
      auto next = params.find(';');
      auto p = trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{}
                                              : params.substr(next);
      if (p.size() > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
        r.q = std::strtod(std::string{p.substr(2)}.c_str(), nullptr);
    }
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](auto& x, auto& y) { return x.q > y.q; });
  return out;
}

std::optional<std::string> negotiate(std::string_view accept,
                                     bool embedded_ok) {
  if (trim(accept).empty())
    return std::string{v2_json};
  for (auto& r : parse_accept(accept)) {
    if (r.q <= 0)
      continue;
    if (wildcard(r.type) || r.type == v2_json)
      return std::string{v2_json};
    if (r.type == plain_json)
      return std::string{plain_json};
    if (embedded_ok && embedded_format_of(r.type))
      return r.type;
  }
  return std::nullopt;
}

records_choice negotiate_records(std::string_view accept, embedded_format own) {
  if (trim(accept).empty())
    return records_choice::own;
  bool other = false;
  for (auto& r : parse_accept(accept)) {
    if (r.q <= 0)
      continue;
    if (wildcard(r.type))
      return records_choice::own;
    auto f = r.type == v2_json ? std::optional{embedded_format::binary}
                               : embedded_format_of(r.type);
    if (f == own)
      return records_choice::own;
    if (f)
      other = true;
  }
  return other ? records_choice::mismatch : records_choice::unacceptable;
}

} // namespace troupe::rest
