#pragma once

// The table layouts of Kafka 3.9's tools, byte for byte: Java's
// printf("%-Ns") pads on the right and never truncates. Each function is
// the Kafka function it mirrors (ConsumerGroupCommand.printOffsets,
// printMembers, printStates, printGroupInfo, printOffsetsToReset,
// deleteOffsets; TopicCommand's TopicDescription/PartitionDescription;
// ConfigCommand.describeResourceConfig). Kafka prints most of these
// without a final newline; troupe ends every table with one.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/kafka/admin_client.hpp"

namespace troupe::tools {

/// Java's String.format("%-Ns", s).
std::string pad(const std::string& s, size_t width);

inline constexpr const char* missing = "-";

struct offset_row {
  std::string group;
  std::optional<std::string> topic;
  std::optional<int32_t> partition;
  std::optional<int64_t> current_offset;
  std::optional<int64_t> log_end_offset;
  std::optional<int64_t> lag;
  std::optional<std::string> consumer_id;
  std::optional<std::string> host;
  std::optional<std::string> client_id;
};

/// printOffsets for one group: a blank line, the header, the rows.
std::string format_offsets(const std::vector<offset_row>& rows);

struct member_row {
  std::string group;
  std::string consumer_id;
  std::string group_instance_id;
  std::string host;
  std::string client_id;
  size_t partitions = 0;
  std::vector<kafka_client::topic_partition> assignment;
};

/// printMembers for one group (the header is printed even when `rows` is
/// empty, as Kafka does).
std::string format_members(const std::vector<member_row>& rows, bool verbose);

struct state_row {
  std::string group;
  std::string coordinator; // "host:port  (id)"
  std::string assignment_strategy;
  std::string state;
  size_t members = 0;
};

std::string format_state(const state_row& row);

struct listing_row {
  std::string group;
  std::string type;  // Classic, Consumer
  std::string state; // Stable, Empty, ...
};

/// printGroupInfo: --list with --state and/or --type.
std::string format_group_listing(const std::vector<listing_row>& rows,
                                 bool include_type, bool include_state);

/// printOffsetsToReset (Kafka 3.9.1's layout: one row per line).
std::string format_reset(
  const std::map<std::string, std::map<kafka_client::topic_partition, int64_t>>&
    plan);

/// deleteOffsets' table; an error text, or nullopt for "Successful".
std::string format_delete_offsets(
  const std::map<kafka_client::topic_partition, std::optional<std::string>>&
    results);

/// TopicCommand's TopicDescription line.
std::string format_topic_line(const std::string& topic,
                              const std::string& topic_id, size_t partitions,
                              size_t replication_factor,
                              const std::string& configs);

/// TopicCommand's PartitionDescription line (no reassignment, no ELR: the
/// Metadata API carries neither, so "Elr: N/A" as Kafka prints then).
std::string format_partition_line(const std::string& topic,
                                  const wire::metadata_partition& p);

/// ConfigCommand's config source names (ConfigEntry.ConfigSource).
std::string config_source_name(int8_t source);

/// "  name=value sensitive=false synonyms={SOURCE:name=value, ...}".
std::string
format_config_entry(const wire::describe_configs_resource_result& entry);

/// The int list Kafka joins with commas.
std::string join_ints(const std::vector<int32_t>& xs);

} // namespace troupe::tools
