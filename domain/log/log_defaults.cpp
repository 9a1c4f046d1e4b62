#include "domain/log/log_defaults.hpp"

#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

log_config default_log_config(const cluster_config& config,
                              const std::string& topic) {
  auto result = config.log;
  if (topic == offsets_topic) {
    result.compact = true;
    result.delete_policy = false;
    result.segment_bytes = config.offsets_topic_segment_bytes;
  }
  return result;
}

bool parse_cleanup_policy(std::string_view text, log_config& config) {
  bool compact = false;
  bool remove = false;
  bool any = false;
  while (true) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
      item.remove_suffix(1);
    if (item == "compact")
      compact = true;
    else if (item == "delete")
      remove = true;
    else
      return false;
    any = true;
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  if (!any)
    return false;
  config.compact = compact;
  config.delete_policy = remove;
  return true;
}

std::string cleanup_policy_name(const log_config& config) {
  if (config.compact && config.delete_policy)
    return "compact,delete";
  return config.compact ? "compact" : "delete";
}

} // namespace troupe
