#pragma once

// The messages of the admin client: CreateTopics (19), DeleteTopics (20),
// DescribeConfigs (32), AlterConfigs (33), IncrementalAlterConfigs (44) and
// DescribeCluster (60), field for field as Kafka's
// JSON schemas. The codec is in protocol.hpp; members added after the first
// release of a struct are appended to it, so positional initializers keep
// their meaning.
//
// Members added after a struct's first release are appended, and every member
// has a default initializer: a positional initializer naming only the first
// members keeps its meaning and compiles without -Wmissing-field-initializers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/data_messages.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire {

// -- CreateTopics (19), v0-7 --------------------------------------------------

struct creatable_replica_assignment {
  int32_t partition_index = 0;
  std::vector<int32_t> broker_ids{};
};

struct creatable_topic_config {
  std::string name{};
  std::optional<std::string> value{};
};

struct creatable_topic {
  std::string name{};
  int32_t num_partitions = -1;     // -1: the broker's default
  int16_t replication_factor = -1; // -1: the broker's default
  std::vector<creatable_replica_assignment> assignments{};
  std::vector<creatable_topic_config> configs{};
};

struct create_topics_request {
  std::vector<creatable_topic> topics{};
  int32_t timeout_ms = 60000;
  bool validate_only = false; // v1+
};

/// A config of the created topic as the broker applied it (KIP-525), v5+.
struct creatable_topic_configs {
  std::string name{};
  std::optional<std::string> value{};
  bool read_only = false;
  int8_t config_source = -1;
  bool is_sensitive = false;
};

struct creatable_topic_result {
  std::string name{};
  error_code error = error_code::none;
  std::optional<std::string> error_message{};     // v1+
  uuid topic_id{};                                // v7+
  std::optional<error_code> topic_config_error{}; // v5+, tag 0
  int32_t num_partitions = -1;                    // v5+
  int16_t replication_factor = -1;                // v5+
  /// v5+; null when the configs could not be described.
  std::optional<std::vector<creatable_topic_configs>> configs =
    std::vector<creatable_topic_configs>{};
};

struct create_topics_response {
  std::vector<creatable_topic_result> topics{};
  int32_t throttle_time_ms = 0; // v2+
};

// -- DeleteTopics (20), v0-6 --------------------------------------------------

/// A topic to delete by name or, with a null name, by id (v6+).
struct delete_topic_state {
  std::optional<std::string> name{};
  uuid topic_id{};
};

struct delete_topics_request {
  std::vector<delete_topic_state> topics{}; // v6+
  std::vector<std::string> topic_names{};   // v0-5
  int32_t timeout_ms = 0;
};

struct deletable_topic_result {
  std::optional<std::string> name{}; // null only in v6+
  uuid topic_id{};                   // v6+
  error_code error = error_code::none;
  std::optional<std::string> error_message{}; // v5+
};

struct delete_topics_response {
  int32_t throttle_time_ms = 0;
  std::vector<deletable_topic_result> responses{};
};

// -- DescribeConfigs (32), v0-4 -----------------------------------------------

/// ResourceType of the config APIs (Kafka's ConfigResource.Type).
constexpr int8_t config_resource_topic = 2;
constexpr int8_t config_resource_broker = 4;
constexpr int8_t config_resource_broker_logger = 8;
constexpr int8_t config_resource_client_metrics = 16;
constexpr int8_t config_resource_group = 32;

struct describe_configs_resource {
  int8_t resource_type = 0;
  std::string resource_name{};
  /// Null: every config of the resource.
  std::optional<std::vector<std::string>> configuration_keys{};
};

struct describe_configs_request {
  std::vector<describe_configs_resource> resources{};
  bool include_synonyms = false;      // v1+
  bool include_documentation = false; // v3+
};

struct describe_configs_synonym {
  std::string name{};
  std::optional<std::string> value{};
  int8_t source = 0;
};

struct describe_configs_resource_result {
  std::string name{};
  std::optional<std::string> value{};
  bool read_only = false;
  int8_t config_source = -1; // v1+
  bool is_sensitive = false;
  std::vector<describe_configs_synonym> synonyms{}; // v1+
  int8_t config_type = 0;                           // v3+
  std::optional<std::string> documentation{};       // v3+
  bool is_default = false; // v0 only: the source is DEFAULT_CONFIG
};

struct describe_configs_result {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  int8_t resource_type = 0;
  std::string resource_name{};
  std::vector<describe_configs_resource_result> configs{};
};

struct describe_configs_response {
  int32_t throttle_time_ms = 0;
  std::vector<describe_configs_result> results{};
};

// -- AlterConfigs (33), v0-2 --------------------------------------------------

/// One config of the resource's new set: AlterConfigs replaces every
/// dynamic config of the resource with the ones listed.
struct alterable_config {
  std::string name{};
  std::optional<std::string> value{};
};

struct alter_configs_resource {
  int8_t resource_type = 0;
  std::string resource_name{};
  std::vector<alterable_config> configs{};
};

struct alter_configs_request {
  std::vector<alter_configs_resource> resources{};
  bool validate_only = false;
};

/// The answer for one resource, of AlterConfigs and IncrementalAlterConfigs
/// alike (both schemas' AlterConfigsResourceResponse).
struct alter_configs_resource_response {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  int8_t resource_type = 0;
  std::string resource_name{};
};

struct alter_configs_response {
  int32_t throttle_time_ms = 0;
  std::vector<alter_configs_resource_response> responses{};
};

// -- IncrementalAlterConfigs (44), v0-1 (KIP-339) -----------------------------

/// ConfigOperation: Kafka's AlterConfigOp.OpType ids.
constexpr int8_t config_operation_set = 0;
constexpr int8_t config_operation_delete = 1;
constexpr int8_t config_operation_append = 2;
constexpr int8_t config_operation_subtract = 3;

struct incremental_alterable_config {
  std::string name{};
  int8_t config_operation = config_operation_set;
  std::optional<std::string> value{};
};

struct incremental_alter_configs_resource {
  int8_t resource_type = 0;
  std::string resource_name{};
  std::vector<incremental_alterable_config> configs{};
};

struct incremental_alter_configs_request {
  std::vector<incremental_alter_configs_resource> resources{};
  bool validate_only = false;
};

struct incremental_alter_configs_response {
  int32_t throttle_time_ms = 0;
  std::vector<alter_configs_resource_response> responses{};
};

// -- DescribeCluster (60), v0-2 -----------------------------------------------

/// EndpointType of DescribeCluster v1+ (KIP-919).
constexpr int8_t endpoint_type_brokers = 1;
constexpr int8_t endpoint_type_controllers = 2;

struct describe_cluster_request {
  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = endpoint_type_brokers; // v1+
  bool include_fenced_brokers = false;          // v2+ (KIP-1073)
};

struct describe_cluster_broker {
  int32_t broker_id = 0;
  std::string host{};
  int32_t port = 0;
  std::optional<std::string> rack{};
  bool is_fenced = false; // v2+
};

struct describe_cluster_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  int8_t endpoint_type = endpoint_type_brokers; // v1+
  std::string cluster_id{};
  int32_t controller_id = -1;
  std::vector<describe_cluster_broker> brokers{};
  int32_t cluster_authorized_operations = authorized_operations_omitted;
};

} // namespace troupe::wire
