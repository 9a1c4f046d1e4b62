#include "domain/replication/replication_quota.hpp"

#include <algorithm>

namespace troupe {

replication_rate::replication_rate(int64_t bytes_per_second, int32_t samples,
                                   int64_t window_ms)
  : quota_(bytes_per_second),
    samples_(std::max(samples, 2)),
    window_ms_(std::max<int64_t>(window_ms, 1)) {
  // nop
}

/// Kafka's SampledStat.purgeObsoleteSamples: samples that started more
/// than samples * window ago no longer count.
void replication_rate::purge(int64_t now_ms) {
  auto expire_age = samples_ * window_ms_;
  while (!kept_.empty() && now_ms - kept_.front().start_ms >= expire_age)
    kept_.pop_front();
}

void replication_rate::record(int64_t bytes, int64_t now_ms) {
  purge(now_ms);
  // SampledStat.record: a sample is current for one window from its
  // start; then a new one starts, the oldest dropped beyond `samples_`.
  if (kept_.empty() || now_ms - kept_.back().start_ms >= window_ms_) {
    kept_.push_back({now_ms, 0});
    while (kept_.size() > static_cast<size_t>(samples_))
      kept_.pop_front();
  }
  kept_.back().bytes += bytes;
}

double replication_rate::rate(int64_t now_ms) {
  purge(now_ms);
  if (kept_.empty())
    return 0;
  int64_t total = 0;
  for (auto& s : kept_)
    total += s.bytes;
  // SimpleRate.windowSize: the time since the oldest sample started, at
  // least one window.
  auto elapsed = std::max(now_ms - kept_.front().start_ms, window_ms_);
  return static_cast<double>(total) * 1000.0 / static_cast<double>(elapsed);
}

bool replication_rate::exceeded(int64_t now_ms) {
  if (unlimited())
    return false;
  return rate(now_ms) > static_cast<double>(quota_);
}

// -- throttled replicas ------------------------------------------------------------

bool throttled_replicas::covers(int32_t partition, int32_t broker) const {
  if (all)
    return true;
  return std::find(replicas.begin(), replicas.end(),
                   std::pair{partition, broker})
         != replicas.end();
}

namespace {

std::string_view trimmed(std::string_view s) {
  // String.trim: every char <= ' '.
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ')
    s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ')
    s.remove_suffix(1);
  return s;
}

/// [0-9]+ as a non-negative int32.
std::optional<int32_t> digits(std::string_view s) {
  if (s.empty() || s.size() > 10)
    return std::nullopt;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return static_cast<int32_t>(n);
}

} // namespace

std::optional<throttled_replicas> parse_throttled_replicas(std::string_view v) {
  throttled_replicas out;
  std::vector<std::string_view> items;
  size_t start = 0;
  while (true) {
    auto comma = v.find(',', start);
    items.push_back(trimmed(v.substr(
      start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  // ThrottledReplicaListValidator: every item matches ([0-9]+:[0-9]+)?, or
  // the items joined are "*".
  std::string joined;
  for (auto& i : items)
    joined += i;
  if (joined == "*") {
    out.all = true;
    return out;
  }
  for (auto& i : items) {
    if (i.empty())
      continue;
    auto colon = i.find(':');
    if (colon == std::string_view::npos)
      return std::nullopt;
    auto p = digits(i.substr(0, colon));
    auto b = digits(i.substr(colon + 1));
    if (!p || !b)
      return std::nullopt;
    out.replicas.emplace_back(*p, *b);
  }
  return out;
}

std::string to_config_value(const throttled_replicas& t) {
  if (t.all)
    return "*";
  std::string out;
  for (auto& [p, b] : t.replicas) {
    if (!out.empty())
      out += ',';
    out += std::to_string(p) + ':' + std::to_string(b);
  }
  return out;
}

} // namespace troupe
