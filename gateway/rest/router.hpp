#pragma once

// The route table: a plain list of (method, pattern, handler, access), one
// handler signature for all. Patterns name their parameters
// ("/topics/{topic}/partitions/{partition}"); a parameter matches one path
// segment. Plain C++ apart from the handler type.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::rest {

class call;

using handler = void (*)(const call&);

enum class access {
  open,
  /// Changes the cluster: gateway/rest/auth.hpp decides (with an
  /// authorizer: CLUSTER ALTER).
  admin,
  /// Creates a topic: as admin, but with an authorizer CREATE on the
  /// cluster or on the topic.
  create,
};

struct route {
  std::string_view method;
  std::string_view pattern;
  handler fn;
  access acc = access::open;
};

/// Every route troupe serves.
const std::vector<route>& routes();

/// The path's segments, URL-decoded; false for a malformed escape.
bool split_path(std::string_view path, std::vector<std::string>& out);

struct route_match {
  /// Index into routes(), or -1.
  int index = -1;
  /// The `{...}` segments, in order.
  std::vector<std::string> params;
  /// Some route has this path (with another method): 405, not 404.
  bool path_known = false;
  /// Methods that route has, for the Allow header of a 405.
  std::string allow;
};

route_match find_route(const std::vector<route>& table, std::string_view method,
                       const std::vector<std::string>& segments);

/// Finds `key` in a raw query string; `value` gets it URL-decoded.
bool query_param(std::string_view query, std::string_view key,
                 std::string& value);

/// Request count, status counts and a latency histogram per route, as
/// relaxed atomics (written by whichever thread answers).
struct route_stats {
  static constexpr std::array<double, 9> bounds = {
    0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5};
  static constexpr std::array<unsigned, 18> statuses = {
    200, 201, 204, 400, 401, 403, 404, 405, 406,
    409, 413, 415, 422, 500, 502, 503, 504, 0 /* other */};

  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> sum_us{0};
  std::array<std::atomic<uint64_t>, bounds.size()> buckets{};
  std::array<std::atomic<uint64_t>, statuses.size()> by_status{};

  void record(unsigned status, double seconds);
};

} // namespace troupe::rest
