// Field lists of topic_admin_messages.hpp, in wire order as Kafka's JSON
// schemas (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/topic_admin_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

// -- DeleteRecords ------------------------------------------------------------

template <class Io>
void fields(Io& io, delete_records_partition& x) {
  io.i32(x.partition_index);
  io.i64(x.offset);
}

template <class Io>
void fields(Io& io, delete_records_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, delete_records_request& x) {
  io.array(x.topics);
  io.i32(x.timeout_ms);
}

template <class Io>
void fields(Io& io, delete_records_partition_result& x) {
  io.i32(x.partition_index);
  io.i64(x.low_watermark);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, delete_records_topic_result& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, delete_records_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

// -- DescribeLogDirs ----------------------------------------------------------

template <class Io>
void fields(Io& io, describable_log_dir_topic& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, describe_log_dirs_request& x) {
  io.nullable_array(x.topics);
}

template <class Io>
void fields(Io& io, describe_log_dirs_partition& x) {
  io.i32(x.partition_index);
  io.i64(x.partition_size);
  io.i64(x.offset_lag);
  io.boolean(x.is_future_key);
}

template <class Io>
void fields(Io& io, describe_log_dirs_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, describe_log_dirs_result& x) {
  io.error(x.error);
  io.string(x.log_dir);
  io.array(x.topics);
  // Ignorable: v0-3 drop them and read them as -1.
  if (io.version >= 4) {
    io.i64(x.total_bytes);
    io.i64(x.usable_bytes);
  }
}

template <class Io>
void fields(Io& io, describe_log_dirs_response& x) {
  io.i32(x.throttle_time_ms);
  // Ignorable: v0-2 drop the top-level error (Kafka's handler then has only
  // the per-directory ones to say it with).
  if (io.version >= 3)
    io.error(x.error);
  io.array(x.results);
}

// -- CreatePartitions ---------------------------------------------------------

template <class Io>
void fields(Io& io, create_partitions_assignment& x) {
  io.array(x.broker_ids);
}

template <class Io>
void fields(Io& io, create_partitions_topic& x) {
  io.string(x.name);
  io.i32(x.count);
  io.nullable_array(x.assignments);
}

template <class Io>
void fields(Io& io, create_partitions_request& x) {
  io.array(x.topics);
  io.i32(x.timeout_ms);
  io.boolean(x.validate_only);
}

template <class Io>
void fields(Io& io, create_partitions_topic_result& x) {
  io.string(x.name);
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, create_partitions_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.results);
}

// -- ElectLeaders -------------------------------------------------------------

template <class Io>
void fields(Io& io, elect_leaders_topic_partitions& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, elect_leaders_request& x) {
  // v1+; v0 elects the preferred replica and cannot ask for anything else
  // (the field is not ignorable).
  if (io.version >= 1)
    io.i8(x.election_type);
  else
    io.absent(x.election_type, int8_t{0}, "ElectionType");
  io.nullable_array(x.topic_partitions);
  io.i32(x.timeout_ms);
}

template <class Io>
void fields(Io& io, elect_leaders_partition_result& x) {
  io.i32(x.partition_id);
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, elect_leaders_replica_result& x) {
  io.string(x.topic);
  io.array(x.partition_result);
}

template <class Io>
void fields(Io& io, elect_leaders_response& x) {
  io.i32(x.throttle_time_ms);
  // v1+, "ignorable": false: v0 has no top-level error and cannot carry one.
  if (io.version >= 1)
    io.error(x.error);
  else
    io.absent(x.error, error_code::none, "ErrorCode");
  io.array(x.replica_election_results);
}

template <class Io>
void fields(Io& io, reassignable_partition& x) {
  io.i32(x.partition_index);
  io.nullable_array(x.replicas);
}

template <class Io>
void fields(Io& io, reassignable_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, alter_partition_reassignments_request& x) {
  io.i32(x.timeout_ms);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, reassignable_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, reassignable_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, alter_partition_reassignments_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.responses);
}

template <class Io>
void fields(Io& io, list_partition_reassignments_topics& x) {
  io.string(x.name);
  io.array(x.partition_indexes);
}

template <class Io>
void fields(Io& io, list_partition_reassignments_request& x) {
  io.i32(x.timeout_ms);
  io.nullable_array(x.topics);
}

template <class Io>
void fields(Io& io, ongoing_partition_reassignment& x) {
  io.i32(x.partition_index);
  io.array(x.replicas);
  io.array(x.adding_replicas);
  io.array(x.removing_replicas);
}

template <class Io>
void fields(Io& io, ongoing_topic_reassignment& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, list_partition_reassignments_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.topics);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(delete_records, api_key::delete_records)
TROUPE_KAFKA_DEFINE_API(describe_log_dirs, api_key::describe_log_dirs)
TROUPE_KAFKA_DEFINE_API(create_partitions, api_key::create_partitions)
TROUPE_KAFKA_DEFINE_API(elect_leaders, api_key::elect_leaders)
TROUPE_KAFKA_DEFINE_API(alter_partition_reassignments,
                        api_key::alter_partition_reassignments)
TROUPE_KAFKA_DEFINE_API(list_partition_reassignments,
                        api_key::list_partition_reassignments)

} // namespace troupe::wire
