// Field lists of data_messages.hpp, in wire order as Kafka's JSON schemas
// (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/data_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

template <class Io>
void fields(Io& io, node_endpoint& x) {
  io.i32(x.node_id);
  io.string(x.host);
  io.i32(x.port);
  io.nullable_string(x.rack);
}

template <class Io>
void fields(Io& io, leader_id_and_epoch& x) {
  io.i32(x.leader_id);
  io.i32(x.leader_epoch);
}

// -- Metadata -----------------------------------------------------------------

template <class Io>
void fields(Io& io, metadata_request_topic& x) {
  if (io.version >= 10)
    io.uuid(x.topic_id);
  io.nullable_string(x.name, io.version >= 10);
}

template <class Io>
void fields(Io& io, metadata_request& x) {
  io.nullable_array(x.topics, io.version >= 1);
  if (io.version >= 4)
    io.boolean(x.allow_auto_topic_creation);
  if (io.version >= 8 && io.version <= 10)
    io.boolean(x.include_cluster_authorized_operations);
  if (io.version >= 8)
    io.boolean(x.include_topic_authorized_operations);
}

template <class Io>
void fields(Io& io, metadata_broker& x) {
  io.i32(x.node_id);
  io.string(x.host);
  io.i32(x.port);
  if (io.version >= 1)
    io.nullable_string(x.rack);
}

template <class Io>
void fields(Io& io, metadata_partition& x) {
  io.error(x.error);
  io.i32(x.partition_index);
  io.i32(x.leader_id);
  if (io.version >= 7)
    io.i32(x.leader_epoch);
  io.array(x.replica_nodes);
  io.array(x.isr_nodes);
  if (io.version >= 5)
    io.array(x.offline_replicas);
}

template <class Io>
void fields(Io& io, metadata_topic& x) {
  io.error(x.error);
  io.nullable_string(x.name, io.version >= 12);
  if (io.version >= 10)
    io.uuid(x.topic_id);
  if (io.version >= 1)
    io.boolean(x.is_internal);
  io.array(x.partitions);
  if (io.version >= 8)
    io.i32(x.topic_authorized_operations);
}

template <class Io>
void fields(Io& io, metadata_response& x) {
  if (io.version >= 3)
    io.i32(x.throttle_time_ms);
  io.array(x.brokers);
  if (io.version >= 2)
    io.nullable_string(x.cluster_id);
  if (io.version >= 1)
    io.i32(x.controller_id);
  io.array(x.topics);
  if (io.version >= 8 && io.version <= 10)
    io.i32(x.cluster_authorized_operations);
  if (io.version >= 13)
    io.error(x.error);
}

// -- Produce ------------------------------------------------------------------

template <class Io>
void fields(Io& io, produce_partition& x) {
  io.i32(x.index);
  io.records(x.records);
}

template <class Io>
void fields(Io& io, produce_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, produce_request& x) {
  // v3+, not ignorable: v0-2 carry no transactions.
  if (io.version >= 3)
    io.nullable_string(x.transactional_id);
  else
    io.absent(x.transactional_id, std::optional<std::string>{},
              "TransactionalId");
  io.i16(x.acks);
  io.i32(x.timeout_ms);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, batch_index_and_error_message& x) {
  io.i32(x.batch_index);
  io.nullable_string(x.batch_index_error_message);
}

template <class Io>
void fields(Io& io, produce_partition_response& x) {
  io.i32(x.index);
  io.error(x.error);
  io.i64(x.base_offset);
  if (io.version >= 2) // ignorable
    io.i64(x.log_append_time_ms);
  if (io.version >= 5)
    io.i64(x.log_start_offset);
  if (io.version >= 8) {
    io.array(x.record_errors);
    io.nullable_string(x.error_message);
  }
  io.tags([&](auto& tag) {
    if (io.version >= 10)
      tag(0, x.current_leader);
  });
}

template <class Io>
void fields(Io& io, produce_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, produce_response& x) {
  io.array(x.responses);
  if (io.version >= 1) // ignorable
    io.i32(x.throttle_time_ms);
  io.tags([&](auto& tag) {
    if (io.version >= 10)
      tag(0, x.node_endpoints);
  });
}

// -- Fetch --------------------------------------------------------------------

template <class Io>
void fields(Io& io, fetch_partition& x) {
  io.i32(x.partition);
  if (io.version >= 9)
    io.i32(x.current_leader_epoch);
  io.i64(x.fetch_offset);
  if (io.version >= 12)
    io.i32(x.last_fetched_epoch);
  if (io.version >= 5)
    io.i64(x.log_start_offset);
  io.i32(x.partition_max_bytes);
  io.tags([&](auto& tag) {
    if (io.version >= 17)
      tag(0, x.replica_directory_id);
  });
}

template <class Io>
void fields(Io& io, fetch_topic& x) {
  if (io.version <= 12)
    io.string(x.topic);
  else
    io.uuid(x.topic_id);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, forgotten_topic& x) {
  if (io.version <= 12)
    io.string(x.topic);
  else
    io.uuid(x.topic_id);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, fetch_replica_state& x) {
  io.i32(x.replica_id);
  io.i64(x.replica_epoch);
}

template <class Io>
void fields(Io& io, fetch_request& x) {
  if (io.version <= 14)
    io.i32(x.replica_id);
  io.i32(x.max_wait_ms);
  io.i32(x.min_bytes);
  if (io.version >= 3) // ignorable, default 0x7fffffff
    io.i32(x.max_bytes);
  if (io.version >= 4) // ignorable, default read_uncommitted
    io.i8(x.isolation_level);
  if (io.version >= 7) {
    io.i32(x.session_id);
    io.i32(x.session_epoch);
  }
  io.array(x.topics);
  if (io.version >= 7)
    io.array(x.forgotten_topics_data);
  if (io.version >= 11)
    io.string(x.rack_id);
  io.tags([&](auto& tag) {
    tag(0, x.cluster_id);
    if (io.version >= 15)
      tag(1, x.replica_state);
  });
}

template <class Io>
void fields(Io& io, aborted_transaction& x) {
  io.i64(x.producer_id);
  io.i64(x.first_offset);
}

template <class Io>
void fields(Io& io, epoch_end_offset& x) {
  io.i32(x.epoch);
  io.i64(x.end_offset);
}

template <class Io>
void fields(Io& io, fetch_snapshot_id& x) {
  io.i64(x.end_offset);
  io.i32(x.epoch);
}

template <class Io>
void fields(Io& io, fetch_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
  io.i64(x.high_watermark);
  if (io.version >= 4) // ignorable
    io.i64(x.last_stable_offset);
  if (io.version >= 5)
    io.i64(x.log_start_offset);
  if (io.version >= 4) // ignorable
    io.nullable_array(x.aborted_transactions);
  if (io.version >= 11)
    io.i32(x.preferred_read_replica);
  io.records(x.records);
  io.tags([&](auto& tag) {
    tag(0, x.diverging_epoch);
    tag(1, x.current_leader);
    tag(2, x.snapshot_id);
  });
}

template <class Io>
void fields(Io& io, fetch_topic_response& x) {
  if (io.version <= 12)
    io.string(x.topic);
  else
    io.uuid(x.topic_id);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, fetch_response& x) {
  if (io.version >= 1) // ignorable
    io.i32(x.throttle_time_ms);
  if (io.version >= 7) {
    io.error(x.error);
    io.i32(x.session_id);
  }
  io.array(x.responses);
  io.tags([&](auto& tag) {
    if (io.version >= 16)
      tag(0, x.node_endpoints);
  });
}

// -- ListOffsets --------------------------------------------------------------

template <class Io>
void fields(Io& io, list_offsets_partition& x) {
  io.i32(x.partition_index);
  if (io.version >= 4)
    io.i32(x.current_leader_epoch);
  io.i64(x.timestamp);
  if (io.version == 0) // v0 only, not ignorable
    io.i32(x.max_num_offsets);
  else
    io.absent(x.max_num_offsets, int32_t{1}, "MaxNumOffsets");
}

template <class Io>
void fields(Io& io, list_offsets_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, list_offsets_request& x) {
  io.i32(x.replica_id);
  if (io.version >= 2)
    io.i8(x.isolation_level);
  io.array(x.topics);
  if (io.version >= 10)
    io.i32(x.timeout_ms);
}

template <class Io>
void fields(Io& io, list_offsets_partition_response& x) {
  io.i32(x.partition_index);
  io.error(x.error);
  // OldStyleOffsets (v0 only), Timestamp and Offset (v1+): none ignorable.
  if (io.version == 0) {
    io.array(x.old_style_offsets);
    io.absent(x.timestamp, int64_t{-1}, "Timestamp");
    io.absent(x.offset, int64_t{-1}, "Offset");
  } else {
    io.absent(x.old_style_offsets, std::vector<int64_t>{}, "OldStyleOffsets");
    io.i64(x.timestamp);
    io.i64(x.offset);
  }
  if (io.version >= 4)
    io.i32(x.leader_epoch);
}

template <class Io>
void fields(Io& io, list_offsets_topic_response& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, list_offsets_response& x) {
  if (io.version >= 2)
    io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

// -- InitProducerId -----------------------------------------------------------

template <class Io>
void fields(Io& io, init_producer_id_request& x) {
  io.nullable_string(x.transactional_id);
  io.i32(x.transaction_timeout_ms);
  if (io.version >= 3) {
    io.i64(x.producer_id);
    io.i16(x.producer_epoch);
  }
}

template <class Io>
void fields(Io& io, init_producer_id_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.i64(x.producer_id);
  io.i16(x.producer_epoch);
}

// -- OffsetForLeaderEpoch -----------------------------------------------------

template <class Io>
void fields(Io& io, offset_for_leader_partition& x) {
  io.i32(x.partition);
  if (io.version >= 2) // ignorable
    io.i32(x.current_leader_epoch);
  io.i32(x.leader_epoch);
}

template <class Io>
void fields(Io& io, offset_for_leader_topic& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_for_leader_epoch_request& x) {
  if (io.version >= 3)
    io.i32(x.replica_id);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, offset_for_leader_partition_result& x) {
  io.error(x.error);
  io.i32(x.partition);
  if (io.version >= 1) // ignorable
    io.i32(x.leader_epoch);
  io.i64(x.end_offset);
}

template <class Io>
void fields(Io& io, offset_for_leader_topic_result& x) {
  io.string(x.topic);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_for_leader_epoch_response& x) {
  if (io.version >= 2) // ignorable
    io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(metadata, api_key::metadata)
TROUPE_KAFKA_DEFINE_API(produce, api_key::produce)
TROUPE_KAFKA_DEFINE_API(fetch, api_key::fetch)
TROUPE_KAFKA_DEFINE_API(list_offsets, api_key::list_offsets)
TROUPE_KAFKA_DEFINE_API(init_producer_id, api_key::init_producer_id)
TROUPE_KAFKA_DEFINE_API(offset_for_leader_epoch,
                        api_key::offset_for_leader_epoch)

} // namespace troupe::wire
