#pragma once

// Configuration in Kafka's property names, from a Java-style properties file
// and --override key=value, as Kafka's server.properties.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/cluster_config.hpp"

namespace troupe {

using properties = std::map<std::string, std::string>;

/// Parses `key=value` / `key: value` lines; `#` and `!` start comments.
/// Malformed lines are reported in `errors` with their line number.
properties parse_properties(std::string_view text,
                            std::vector<std::string>& errors);

/// Parses one `key=value` override; false when there is no `=`.
bool parse_override(std::string_view text, properties& into);

/// A property troupe understands, for --help and validation.
struct property_doc {
  std::string_view name;
  std::string_view default_value;
  std::string_view description;
};

/// Every property troupe reads, with its default.
const std::vector<property_doc>& known_properties();

/// Applies `props` to `cfg`. Unknown keys and bad values are reported in
/// `errors` (Kafka refuses to start on an invalid value too).
void apply_properties(const properties& props, cluster_config& cfg,
                      std::vector<std::string>& errors);

/// Settings of the process rather than of the cluster.
struct process_config {
  /// troupe.scheduler.threads: CAF worker threads (0: one per core).
  int32_t threads = 0;
  /// troupe.scheduler.policy: "sharing" (cheap when idle) or "stealing".
  std::string scheduler_policy = "sharing";
  /// troupe.http.admin.token: the HTTP gateway's routes that change the
  /// cluster need `Authorization: Bearer <token>`.
  std::string http_admin_token;
  /// troupe.http.admin.enable: without a token, allow them anyway.
  bool http_admin_enable = false;
  /// consumer.instance.timeout.ms (REST Proxy's name): a REST consumer
  /// instance that gets no request for this long is deleted.
  int32_t consumer_instance_timeout_ms = 300000;
};

void apply_process_properties(const properties& props, process_config& cfg,
                              std::vector<std::string>& errors);

} // namespace troupe
