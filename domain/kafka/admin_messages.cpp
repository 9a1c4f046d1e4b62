// Field lists of admin_messages.hpp, in wire order as Kafka's JSON schemas
// (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/admin_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

// -- CreateTopics -------------------------------------------------------------

template <class Io>
void fields(Io& io, creatable_replica_assignment& x) {
  io.i32(x.partition_index);
  io.array(x.broker_ids);
}

template <class Io>
void fields(Io& io, creatable_topic_config& x) {
  io.string(x.name);
  io.nullable_string(x.value);
}

template <class Io>
void fields(Io& io, creatable_topic& x) {
  io.string(x.name);
  io.i32(x.num_partitions);
  io.i16(x.replication_factor);
  io.array(x.assignments);
  io.array(x.configs);
}

template <class Io>
void fields(Io& io, create_topics_request& x) {
  io.array(x.topics);
  io.i32(x.timeout_ms);
  if (io.version >= 1)
    io.boolean(x.validate_only);
}

template <class Io>
void fields(Io& io, creatable_topic_configs& x) {
  io.string(x.name);
  io.nullable_string(x.value);
  io.boolean(x.read_only);
  io.i8(x.config_source);
  io.boolean(x.is_sensitive);
}

template <class Io>
void fields(Io& io, creatable_topic_result& x) {
  io.string(x.name);
  if (io.version >= 7)
    io.uuid(x.topic_id);
  io.error(x.error);
  if (io.version >= 1)
    io.nullable_string(x.error_message);
  if (io.version >= 5) {
    io.i32(x.num_partitions);
    io.i16(x.replication_factor);
    io.nullable_array(x.configs);
  }
  io.tags([&](auto& tag) { tag(0, x.topic_config_error); });
}

template <class Io>
void fields(Io& io, create_topics_response& x) {
  if (io.version >= 2)
    io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

// -- DeleteTopics -------------------------------------------------------------

template <class Io>
void fields(Io& io, delete_topic_state& x) {
  io.nullable_string(x.name);
  io.uuid(x.topic_id);
}

template <class Io>
void fields(Io& io, delete_topics_request& x) {
  if (io.version >= 6)
    io.array(x.topics);
  else
    io.array(x.topic_names);
  io.i32(x.timeout_ms);
}

template <class Io>
void fields(Io& io, deletable_topic_result& x) {
  io.nullable_string(x.name, io.version >= 6);
  if (io.version >= 6)
    io.uuid(x.topic_id);
  io.error(x.error);
  if (io.version >= 5)
    io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, delete_topics_response& x) {
  // ThrottleTimeMs: v1+, not ignorable.
  if (io.version >= 1)
    io.i32(x.throttle_time_ms);
  else
    io.absent(x.throttle_time_ms, int32_t{0}, "ThrottleTimeMs");
  io.array(x.responses);
}

// -- DescribeConfigs ----------------------------------------------------------

template <class Io>
void fields(Io& io, describe_configs_resource& x) {
  io.i8(x.resource_type);
  io.string(x.resource_name);
  io.nullable_array(x.configuration_keys);
}

template <class Io>
void fields(Io& io, describe_configs_request& x) {
  io.array(x.resources);
  // IncludeSynonyms: v1+, not ignorable.
  if (io.version >= 1)
    io.boolean(x.include_synonyms);
  else
    io.absent(x.include_synonyms, false, "IncludeSynonyms");
  if (io.version >= 3)
    io.boolean(x.include_documentation);
}

template <class Io>
void fields(Io& io, describe_configs_synonym& x) {
  io.string(x.name);
  io.nullable_string(x.value);
  io.i8(x.source);
}

template <class Io>
void fields(Io& io, describe_configs_resource_result& x) {
  io.string(x.name);
  io.nullable_string(x.value);
  io.boolean(x.read_only);
  // IsDefault (v0 only), then ConfigSource (v1+, ignorable).
  if (io.version == 0)
    io.boolean(x.is_default);
  else
    io.i8(x.config_source);
  io.boolean(x.is_sensitive);
  if (io.version >= 1) // ignorable
    io.array(x.synonyms);
  if (io.version >= 3) {
    io.i8(x.config_type);
    io.nullable_string(x.documentation);
  }
}

template <class Io>
void fields(Io& io, describe_configs_result& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.i8(x.resource_type);
  io.string(x.resource_name);
  io.array(x.configs);
}

template <class Io>
void fields(Io& io, describe_configs_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.results);
}

// -- AlterConfigs -------------------------------------------------------------

template <class Io>
void fields(Io& io, alterable_config& x) {
  io.string(x.name);
  io.nullable_string(x.value);
}

template <class Io>
void fields(Io& io, alter_configs_resource& x) {
  io.i8(x.resource_type);
  io.string(x.resource_name);
  io.array(x.configs);
}

template <class Io>
void fields(Io& io, alter_configs_request& x) {
  io.array(x.resources);
  io.boolean(x.validate_only);
}

template <class Io>
void fields(Io& io, alter_configs_resource_response& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.i8(x.resource_type);
  io.string(x.resource_name);
}

template <class Io>
void fields(Io& io, alter_configs_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.responses);
}

// -- IncrementalAlterConfigs --------------------------------------------------

template <class Io>
void fields(Io& io, incremental_alterable_config& x) {
  io.string(x.name);
  io.i8(x.config_operation);
  io.nullable_string(x.value);
}

template <class Io>
void fields(Io& io, incremental_alter_configs_resource& x) {
  io.i8(x.resource_type);
  io.string(x.resource_name);
  io.array(x.configs);
}

template <class Io>
void fields(Io& io, incremental_alter_configs_request& x) {
  io.array(x.resources);
  io.boolean(x.validate_only);
}

template <class Io>
void fields(Io& io, incremental_alter_configs_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.responses);
}

// -- DescribeCluster ----------------------------------------------------------

template <class Io>
void fields(Io& io, describe_cluster_request& x) {
  io.boolean(x.include_cluster_authorized_operations);
  if (io.version >= 1)
    io.i8(x.endpoint_type);
  if (io.version >= 2)
    io.boolean(x.include_fenced_brokers);
}

template <class Io>
void fields(Io& io, describe_cluster_broker& x) {
  io.i32(x.broker_id);
  io.string(x.host);
  io.i32(x.port);
  io.nullable_string(x.rack);
  if (io.version >= 2)
    io.boolean(x.is_fenced);
}

template <class Io>
void fields(Io& io, describe_cluster_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  if (io.version >= 1)
    io.i8(x.endpoint_type);
  io.string(x.cluster_id);
  io.i32(x.controller_id);
  io.array(x.brokers);
  io.i32(x.cluster_authorized_operations);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(create_topics, api_key::create_topics)
TROUPE_KAFKA_DEFINE_API(delete_topics, api_key::delete_topics)
TROUPE_KAFKA_DEFINE_API(describe_configs, api_key::describe_configs)
TROUPE_KAFKA_DEFINE_API(alter_configs, api_key::alter_configs)
TROUPE_KAFKA_DEFINE_API(incremental_alter_configs,
                        api_key::incremental_alter_configs)
TROUPE_KAFKA_DEFINE_API(describe_cluster, api_key::describe_cluster)

} // namespace troupe::wire
