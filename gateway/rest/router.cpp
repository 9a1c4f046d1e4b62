#include "gateway/rest/router.hpp"

#include <algorithm>

namespace troupe::rest {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool url_decode(std::string_view s, std::string& out, bool plus_is_space) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size())
        return false;
      auto hi = hex_value(s[i + 1]);
      auto lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0)
        return false;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return true;
}

bool is_param(std::string_view seg) {
  return seg.size() >= 2 && seg.front() == '{' && seg.back() == '}';
}

/// Whether `path` has the pattern's shape; `params` (once it matched) gets
/// the `{...}` segments. No allocation: it runs for every route of every
/// request.
bool matches(std::string_view pattern, const std::vector<std::string>& path,
             std::vector<std::string>* params) {
  size_t i = 0;
  while (true) {
    while (!pattern.empty() && pattern.front() == '/')
      pattern.remove_prefix(1);
    if (pattern.empty())
      break;
    auto seg = pattern.substr(0, pattern.find('/'));
    pattern.remove_prefix(seg.size());
    if (i >= path.size())
      return false;
    if (is_param(seg)) {
      if (params)
        params->push_back(path[i]);
    } else if (seg != path[i]) {
      return false;
    }
    ++i;
  }
  return i == path.size();
}

} // namespace

bool split_path(std::string_view path, std::vector<std::string>& out) {
  out.clear();
  while (!path.empty()) {
    auto slash = path.find('/');
    auto seg = path.substr(0, slash);
    if (!seg.empty()) {
      std::string decoded;
      if (!url_decode(seg, decoded, false))
        return false;
      out.push_back(std::move(decoded));
    }
    if (slash == std::string_view::npos)
      break;
    path.remove_prefix(slash + 1);
  }
  return true;
}

route_match find_route(const std::vector<route>& table, std::string_view method,
                       const std::vector<std::string>& segments) {
  route_match m;
  for (size_t i = 0; i < table.size(); ++i) {
    auto& r = table[i];
    if (!matches(r.pattern, segments, nullptr))
      continue;
    m.path_known = true;
    if (m.allow.find(r.method) == std::string::npos)
      m.allow += (m.allow.empty() ? "" : ", ") + std::string{r.method};
    if (r.method != method || m.index >= 0)
      continue;
    m.index = static_cast<int>(i);
    matches(r.pattern, segments, &m.params);
  }
  return m;
}

bool query_param(std::string_view query, std::string_view key,
                 std::string& value) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto kv = query.substr(0, amp);
    auto eq = kv.find('=');
    if (kv.substr(0, eq) == key) {
      if (eq == std::string_view::npos)
        value.clear();
      else if (!url_decode(kv.substr(eq + 1), value, true))
        value = std::string{kv.substr(eq + 1)};
      return true;
    }
    if (amp == std::string_view::npos)
      break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

void route_stats::record(unsigned status, double seconds) {
  constexpr auto relaxed = std::memory_order_relaxed;
  count.fetch_add(1, relaxed);
  sum_us.fetch_add(static_cast<uint64_t>(seconds * 1e6), relaxed);
  for (size_t i = 0; i < bounds.size(); ++i)
    if (seconds <= bounds[i]) {
      buckets[i].fetch_add(1, relaxed);
      break;
    }
  auto slot = std::find(statuses.begin(), statuses.end() - 1, status);
  by_status[static_cast<size_t>(slot - statuses.begin())].fetch_add(1, relaxed);
}

} // namespace troupe::rest
