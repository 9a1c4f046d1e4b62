// Field lists of group_admin_messages.hpp, in wire order as Kafka's JSON
// schemas (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/group_admin_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

// -- DeleteGroups -------------------------------------------------------------

template <class Io>
void fields(Io& io, delete_groups_request& x) {
  io.array(x.groups_names);
}

template <class Io>
void fields(Io& io, deletable_group_result& x) {
  io.string(x.group_id);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, delete_groups_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.results);
}

// -- OffsetDelete -------------------------------------------------------------

template <class Io>
void fields(Io& io, offset_delete_request_partition& x) {
  io.i32(x.partition_index);
}

template <class Io>
void fields(Io& io, offset_delete_request_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_delete_request& x) {
  io.string(x.group_id);
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, offset_delete_response_partition& x) {
  io.i32(x.partition_index);
  io.error(x.error);
}

template <class Io>
void fields(Io& io, offset_delete_response_topic& x) {
  io.string(x.name);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, offset_delete_response& x) {
  io.error(x.error);
  io.i32(x.throttle_time_ms);
  io.array(x.topics);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(delete_groups, api_key::delete_groups)
TROUPE_KAFKA_DEFINE_API(offset_delete, api_key::offset_delete)

} // namespace troupe::wire
