// Field lists of coordinator_records.hpp, in the order and with the version
// conditions of Kafka 3.9's JSON schemas (see field_io.hpp for how one list
// decodes, encodes and sizes).

#include "domain/kafka/coordinator_records.hpp"

#include "domain/kafka/field_io.hpp"

namespace troupe::wire {

namespace detail {

// -- OffsetCommit ----------------------------------------------------------------

template <class Io>
void fields(Io& io, offset_commit_key& x) {
  io.string(x.group);
  io.string(x.topic);
  io.i32(x.partition);
}

template <class Io>
void fields(Io& io, offset_commit_value& x) {
  io.i64(x.offset);
  if (io.version >= 3)
    io.i32(x.leader_epoch);
  io.string(x.metadata);
  io.i64(x.commit_timestamp);
  if (io.version == 1)
    io.i64(x.expire_timestamp);
}

// -- GroupMetadata -----------------------------------------------------------------

template <class Io>
void fields(Io& io, group_metadata_key& x) {
  io.string(x.group);
}

template <class Io>
void fields(Io& io, group_member_metadata& x) {
  io.string(x.member_id);
  if (io.version >= 3)
    io.nullable_string(x.group_instance_id);
  io.string(x.client_id);
  io.string(x.client_host);
  if (io.version >= 1)
    io.i32(x.rebalance_timeout);
  io.i32(x.session_timeout);
  io.bytes(x.subscription);
  io.bytes(x.assignment);
}

template <class Io>
void fields(Io& io, group_metadata_value& x) {
  io.string(x.protocol_type);
  io.i32(x.generation);
  io.nullable_string(x.protocol);
  io.nullable_string(x.leader);
  if (io.version >= 2)
    io.i64(x.current_state_timestamp);
  io.array(x.members);
}

// -- KIP-848 consumer groups -------------------------------------------------------

template <class Io>
void fields(Io& io, consumer_group_metadata_key& x) {
  io.string(x.group_id);
}

template <class Io>
void fields(Io& io, consumer_group_metadata_value& x) {
  io.i32(x.epoch);
}

template <class Io>
void fields(Io& io, consumer_group_partition_metadata_key& x) {
  io.string(x.group_id);
}

template <class Io>
void fields(Io& io, consumer_group_partition_racks& x) {
  io.i32(x.partition);
  io.array(x.racks);
}

template <class Io>
void fields(Io& io, consumer_group_topic_metadata& x) {
  io.uuid(x.topic_id);
  io.string(x.topic_name);
  io.i32(x.num_partitions);
  io.array(x.partition_metadata);
}

template <class Io>
void fields(Io& io, consumer_group_partition_metadata_value& x) {
  io.array(x.topics);
}

template <class Io>
void fields(Io& io, consumer_group_member_metadata_key& x) {
  io.string(x.group_id);
  io.string(x.member_id);
}

template <class Io>
void fields(Io& io, consumer_group_member_metadata_value& x) {
  io.nullable_string(x.instance_id);
  io.nullable_string(x.rack_id);
  io.string(x.client_id);
  io.string(x.client_host);
  io.array(x.subscribed_topic_names);
  io.nullable_string(x.subscribed_topic_regex);
  io.i32(x.rebalance_timeout_ms);
  io.nullable_string(x.server_assignor);
  // Tag 0, ClassicMemberMetadata, is not read (an unknown tag is skipped)
  // and never written.
}

template <class Io>
void fields(Io& io, consumer_group_target_assignment_metadata_key& x) {
  io.string(x.group_id);
}

template <class Io>
void fields(Io& io, consumer_group_target_assignment_metadata_value& x) {
  io.i32(x.assignment_epoch);
}

template <class Io>
void fields(Io& io, consumer_group_target_assignment_member_key& x) {
  io.string(x.group_id);
  io.string(x.member_id);
}

template <class Io>
void fields(Io& io, record_topic_partitions& x) {
  io.uuid(x.topic_id);
  io.array(x.partitions);
}

template <class Io>
void fields(Io& io, consumer_group_target_assignment_member_value& x) {
  io.array(x.topic_partitions);
}

template <class Io>
void fields(Io& io, consumer_group_current_member_assignment_key& x) {
  io.string(x.group_id);
  io.string(x.member_id);
}

template <class Io>
void fields(Io& io, consumer_group_current_member_assignment_value& x) {
  io.i32(x.member_epoch);
  io.i32(x.previous_member_epoch);
  io.i8(x.state);
  io.array(x.assigned_partitions);
  io.array(x.partitions_pending_revocation);
}

} // namespace detail

namespace {

/// The versions of each value a Kafka 3.9 broker reads, and its first
/// flexible version.
struct value_versions {
  int16_t lowest;
  int16_t highest;
  int16_t first_flexible;
};

value_versions versions_of(size_t type_index) {
  switch (type_index) {
    case 0: // OffsetCommitValue
    case 1: // GroupMetadataValue
      return {0, 4, 4};
    default: // the ConsumerGroup* values
      return {0, 0, 0};
  }
}

template <class T>
bool decode_struct(reader& in, T& x, int16_t version, bool flexible) {
  detail::decoder io{in, version, flexible};
  io.structure(x);
  return in.ok();
}

template <class T>
void encode_struct(writer& out, const T& x, int16_t version, bool flexible) {
  detail::encoder io{out, version, flexible};
  io.structure(const_cast<T&>(x));
}

/// Sets `x` to alternative `index` of the variant (a runtime index).
template <class Variant, size_t I = 0>
bool emplace_index(Variant& x, size_t index) {
  if constexpr (I < std::variant_size_v<Variant>) {
    if (index == I) {
      x.template emplace<I>();
      return true;
    }
    return emplace_index<Variant, I + 1>(x, index);
  } else {
    return false;
  }
}

} // namespace

int16_t record_type(const coordinator_key& key) {
  return static_cast<int16_t>(key.index() + 1);
}

int16_t value_version(const coordinator_value& value) {
  if (auto v = std::get_if<offset_commit_value>(&value))
    return v->expire_timestamp >= 0 ? 1 : 3;
  if (std::holds_alternative<group_metadata_value>(value))
    return 3;
  return 0;
}

bytes encode_coordinator_key(const coordinator_key& key) {
  bytes buf;
  writer out{buf};
  auto version = record_type(key);
  out.i16(version);
  std::visit([&](const auto& k) { encode_struct(out, k, version, false); },
             key);
  return buf;
}

bytes encode_coordinator_value(const coordinator_value& value,
                               int16_t version) {
  bytes buf;
  writer out{buf};
  auto v = versions_of(value.index());
  if (version < v.lowest || version > v.highest)
    return buf; // not a version of this value: empty, which reads as malformed
  out.i16(version);
  std::visit(
    [&](const auto& x) {
      encode_struct(out, x, version, version >= v.first_flexible);
    },
    value);
  return buf;
}

std::optional<coordinator_key> decode_coordinator_key(const bytes& in_bytes,
                                                      std::string& error) {
  reader in{in_bytes};
  int16_t version = 0;
  if (!in.i16(version)) {
    error = "key too short for its version";
    return std::nullopt;
  }
  if (version < 0 || version > 8) {
    error = "unknown record type " + std::to_string(version);
    return std::nullopt;
  }
  coordinator_key key;
  emplace_index(key, version == 0 ? 0 : static_cast<size_t>(version - 1));
  auto ok = std::visit(
    [&](auto& k) { return decode_struct(in, k, version, false); }, key);
  if (!ok) {
    error = "key of record type " + std::to_string(version) + ": " + in.error();
    return std::nullopt;
  }
  return key;
}

std::optional<coordinator_value>
decode_coordinator_value(const coordinator_key& key, const bytes& in_bytes,
                         std::string& error) {
  reader in{in_bytes};
  int16_t version = 0;
  if (!in.i16(version)) {
    error = "value too short for its version";
    return std::nullopt;
  }
  auto v = versions_of(key.index());
  if (version < v.lowest || version > v.highest) {
    error = "unsupported value version " + std::to_string(version)
            + " of record type " + std::to_string(record_type(key));
    return std::nullopt;
  }
  coordinator_value value;
  emplace_index(value, key.index());
  auto ok = std::visit(
    [&](auto& x) {
      return decode_struct(in, x, version, version >= v.first_flexible);
    },
    value);
  if (!ok) {
    error = "value v" + std::to_string(version) + " of record type "
            + std::to_string(record_type(key)) + ": " + in.error();
    return std::nullopt;
  }
  return value;
}

} // namespace troupe::wire
