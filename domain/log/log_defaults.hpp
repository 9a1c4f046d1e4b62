#pragma once

// The broker's log settings for a topic (Kafka's LogConfig built from the
// broker's log.* defaults, docs/ARCHITECTURE.md §4). Topic-level overrides
// (CreateTopics and AlterConfigs) are layered on top of it.

#include <string>
#include <string_view>

#include "domain/cluster_config.hpp"
#include "domain/log/segment_log.hpp"

namespace troupe {

/// The broker's defaults (cluster_config::log) for `topic`; for
/// __consumer_offsets, Kafka's GroupCoordinator.offsetsTopicConfigs:
/// cleanup.policy=compact only (its records are never deleted by
/// retention.ms or retention.bytes) and segment.bytes =
/// offsets.topic.segment.bytes.
log_config default_log_config(const cluster_config& config,
                              const std::string& topic);

/// cleanup.policy's value (Kafka's ValidList of `delete` and `compact`,
/// comma-separated, either order, spaces allowed): sets config.compact and
/// config.delete_policy; false (config untouched) for anything else or an
/// empty list.
bool parse_cleanup_policy(std::string_view text, log_config& config);

/// The value as Kafka writes it: "delete", "compact" or "compact,delete".
std::string cleanup_policy_name(const log_config& config);

} // namespace troupe
