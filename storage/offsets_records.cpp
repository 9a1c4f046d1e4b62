#include "storage/offsets_records.hpp"

#include <algorithm>
#include <set>

#include "consumer_offsets.pb.h"
#include "domain/kafka/coordinator_records.hpp"
#include "domain/offsets/committed_offsets.hpp"

namespace troupe {

namespace {

// -- what a record says, in either format --------------------------------------

/// A committed offset (or its tombstone).
struct offset_entry {
  std::string group;
  topic_partition partition;
  std::optional<committed_offset> value;
};

/// A classic group's metadata (or its tombstone).
struct group_entry {
  std::string group;
  std::optional<stored_group> value;
};

/// A KIP-848 group's record.
struct consumer_group_entry {
  std::string group;
  consumer_group_record record;
};

using logical_record =
  std::variant<offset_entry, group_entry, consumer_group_entry>;

// -- Kafka's format ---------------------------------------------------------------

std::optional<std::string> non_empty(const std::string& x) {
  if (x.empty())
    return std::nullopt;
  return x;
}

std::vector<wire::record_topic_partitions>
to_wire(const partition_assignment& a) {
  std::vector<wire::record_topic_partitions> out;
  for (const auto& [topic, partitions] : a)
    out.push_back({topic, {partitions.begin(), partitions.end()}});
  return out;
}

partition_assignment
from_wire(const std::vector<wire::record_topic_partitions>& in) {
  partition_assignment a;
  for (const auto& tp : in)
    for (auto p : tp.partitions)
      add_partition(a, tp.topic_id, p);
  return a;
}

record_kv kafka_record(const wire::coordinator_key& key,
                       std::optional<wire::coordinator_value> value) {
  if (!value)
    return {wire::encode_coordinator_key(key), std::nullopt};
  return {wire::encode_coordinator_key(key),
          wire::encode_coordinator_value(*value)};
}

wire::offset_commit_key offset_key(const std::string& group,
                                   const topic_partition& tp) {
  return {group, tp.topic, tp.partition};
}

wire::offset_commit_value offset_value(const committed_offset& v) {
  wire::offset_commit_value x;
  x.offset = v.offset;
  x.leader_epoch = v.leader_epoch;
  x.metadata = v.metadata;
  x.commit_timestamp = v.commit_timestamp_ms;
  return x;
}

wire::group_metadata_value group_value(const stored_group& g) {
  // Kafka writes null for the protocol and leader of a group without
  // members (newEmptyGroupMetadataRecord), and for a member without a
  // group.instance.id.
  wire::group_metadata_value x;
  x.protocol_type = g.protocol_type;
  x.generation = g.generation;
  x.protocol = non_empty(g.protocol);
  x.leader = non_empty(g.leader);
  x.current_state_timestamp = g.timestamp_ms;
  for (const auto& m : g.members)
    x.members.push_back({m.member_id, non_empty(m.group_instance_id),
                         m.client_id, m.client_host, m.rebalance_timeout_ms,
                         m.session_timeout_ms, m.subscription, m.assignment});
  return x;
}

stored_group stored_group_of(const wire::group_metadata_value& x) {
  stored_group g;
  g.protocol_type = x.protocol_type;
  g.generation = x.generation;
  g.protocol = x.protocol.value_or("");
  g.leader = x.leader.value_or("");
  // -1 (Kafka's default) before v2 and for a group that never changed state.
  g.timestamp_ms = x.current_state_timestamp;
  for (const auto& m : x.members)
    g.members.push_back({m.member_id, m.group_instance_id.value_or(""),
                         m.client_id, m.client_host, m.rebalance_timeout,
                         m.session_timeout, m.subscription, m.assignment});
  return g;
}

/// The key and (unless a tombstone) the value of a KIP-848 group's record.
struct to_kafka {
  const std::string& group;

  template <class Key, class Value>
  record_kv make(Key key, bool tombstone, Value value) {
    if (tombstone)
      return kafka_record(std::move(key), std::nullopt);
    return kafka_record(std::move(key), std::move(value));
  }

  record_kv operator()(const group_epoch_record& r) {
    return make(wire::consumer_group_metadata_key{group}, r.tombstone,
                wire::consumer_group_metadata_value{r.epoch});
  }

  record_kv operator()(const subscription_metadata_record& r) {
    wire::consumer_group_partition_metadata_value v;
    for (const auto& t : r.topics)
      v.topics.push_back({t.id, t.name, t.partitions, {}});
    return make(wire::consumer_group_partition_metadata_key{group}, r.tombstone,
                std::move(v));
  }

  record_kv operator()(const member_metadata_record& r) {
    wire::consumer_group_member_metadata_value v;
    v.instance_id = r.instance_id;
    v.rack_id = r.rack_id;
    v.client_id = r.client_id;
    v.client_host = r.client_host;
    v.subscribed_topic_names = r.subscribed_topic_names;
    v.subscribed_topic_regex = r.subscribed_topic_regex;
    v.rebalance_timeout_ms = r.rebalance_timeout_ms;
    v.server_assignor = r.server_assignor;
    return make(wire::consumer_group_member_metadata_key{group, r.member_id},
                r.tombstone, std::move(v));
  }

  record_kv operator()(const target_assignment_epoch_record& r) {
    return make(wire::consumer_group_target_assignment_metadata_key{group},
                r.tombstone,
                wire::consumer_group_target_assignment_metadata_value{
                  r.assignment_epoch});
  }

  record_kv operator()(const target_assignment_record& r) {
    return make(
      wire::consumer_group_target_assignment_member_key{group, r.member_id},
      r.tombstone,
      wire::consumer_group_target_assignment_member_value{
        to_wire(r.partitions)});
  }

  record_kv operator()(const current_assignment_record& r) {
    wire::consumer_group_current_member_assignment_value v;
    v.member_epoch = r.member_epoch;
    v.previous_member_epoch = r.previous_member_epoch;
    v.state = static_cast<int8_t>(r.state);
    v.assigned_partitions = to_wire(r.assigned);
    v.partitions_pending_revocation = to_wire(r.pending_revocation);
    return make(
      wire::consumer_group_current_member_assignment_key{group, r.member_id},
      r.tombstone, std::move(v));
  }

  record_kv operator()(const offset_record& r) {
    return r.tombstone ? offset_tombstone(group, r.partition)
                       : offset_commit_record(group, r.partition, r.value);
  }
};

/// What a Kafka key and value (nullptr: tombstone) say.
struct from_kafka {
  const wire::coordinator_value* value;

  template <class T>
  const T* get() const {
    return value ? std::get_if<T>(value) : nullptr;
  }

  logical_record operator()(const wire::offset_commit_key& k) const {
    offset_entry e{k.group, {k.topic, k.partition}, std::nullopt};
    if (auto v = get<wire::offset_commit_value>())
      e.value = committed_offset{v->offset, v->leader_epoch, v->metadata,
                                 v->commit_timestamp};
    return e;
  }

  logical_record operator()(const wire::group_metadata_key& k) const {
    group_entry e{k.group, std::nullopt};
    if (auto v = get<wire::group_metadata_value>())
      e.value = stored_group_of(*v);
    return e;
  }

  logical_record operator()(const wire::consumer_group_metadata_key& k) const {
    group_epoch_record r;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_metadata_value>())
      r.epoch = v->epoch;
    return consumer_group_entry{k.group_id, r};
  }

  logical_record
  operator()(const wire::consumer_group_partition_metadata_key& k) const {
    subscription_metadata_record r;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_partition_metadata_value>())
      for (const auto& t : v->topics)
        r.topics.push_back({t.topic_id, t.topic_name, t.num_partitions});
    return consumer_group_entry{k.group_id, std::move(r)};
  }

  logical_record
  operator()(const wire::consumer_group_member_metadata_key& k) const {
    member_metadata_record r;
    r.member_id = k.member_id;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_member_metadata_value>()) {
      r.instance_id = v->instance_id;
      r.rack_id = v->rack_id;
      r.client_id = v->client_id;
      r.client_host = v->client_host;
      r.subscribed_topic_names = v->subscribed_topic_names;
      r.subscribed_topic_regex = v->subscribed_topic_regex;
      r.rebalance_timeout_ms = v->rebalance_timeout_ms;
      r.server_assignor = v->server_assignor;
    }
    return consumer_group_entry{k.group_id, std::move(r)};
  }

  logical_record operator()(
    const wire::consumer_group_target_assignment_metadata_key& k) const {
    target_assignment_epoch_record r;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_target_assignment_metadata_value>())
      r.assignment_epoch = v->assignment_epoch;
    return consumer_group_entry{k.group_id, r};
  }

  logical_record
  operator()(const wire::consumer_group_target_assignment_member_key& k) const {
    target_assignment_record r;
    r.member_id = k.member_id;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_target_assignment_member_value>())
      r.partitions = from_wire(v->topic_partitions);
    return consumer_group_entry{k.group_id, std::move(r)};
  }

  logical_record operator()(
    const wire::consumer_group_current_member_assignment_key& k) const {
    current_assignment_record r;
    r.member_id = k.member_id;
    r.tombstone = !value;
    if (auto v = get<wire::consumer_group_current_member_assignment_value>()) {
      r.member_epoch = v->member_epoch;
      r.previous_member_epoch = v->previous_member_epoch;
      r.state = member_state_from_int(v->state);
      r.assigned = from_wire(v->assigned_partitions);
      r.pending_revocation = from_wire(v->partitions_pending_revocation);
    }
    return consumer_group_entry{k.group_id, std::move(r)};
  }
};

std::optional<logical_record> decode_kafka(const record_kv& record) {
  std::string error;
  auto key = wire::decode_coordinator_key(record.key, error);
  if (!key)
    return std::nullopt;
  if (!record.value)
    return std::visit(from_kafka{nullptr}, *key);
  auto value = wire::decode_coordinator_value(*key, *record.value, error);
  if (!value)
    return std::nullopt;
  return std::visit(from_kafka{&*value}, *key);
}

// -- the release before issue 20: protobuf (read only) ------------------------------

template <class Message>
bool parse(const bytes& buf, Message& msg) {
  return msg.ParseFromArray(buf.data(), static_cast<int>(buf.size()));
}

uuid get_id(const proto::TopicId& id) {
  return {id.high(), id.low()};
}

template <class Repeated>
partition_assignment get_assignment(const Repeated& in) {
  partition_assignment a;
  for (const auto& tp : in)
    for (auto p : tp.partitions())
      add_partition(a, get_id(tp.topic_id()), p);
  return a;
}

std::optional<std::string> get_optional(bool present, const std::string& x) {
  if (!present)
    return std::nullopt;
  return x;
}

/// What a protobuf key and value (nullptr: tombstone) say; nullopt when the
/// value does not fit the key.
std::optional<logical_record>
decode_legacy(const proto::ConsumerOffsetsRecord& key,
              const proto::ConsumerOffsetsRecord* value) {
  using R = proto::ConsumerOffsetsRecord;
  switch (key.key_case()) {
    case R::kOffsetKey: {
      const auto& k = key.offset_key();
      offset_entry e{k.group(), {k.topic(), k.partition()}, std::nullopt};
      if (value) {
        if (!value->has_offset_value())
          return std::nullopt;
        const auto& v = value->offset_value();
        e.value = committed_offset{v.offset(), v.leader_epoch(), v.metadata(),
                                   v.commit_timestamp_ms()};
      }
      return e;
    }
    case R::kGroupKey: {
      group_entry e{key.group_key().group(), std::nullopt};
      if (value) {
        if (!value->has_group_value())
          return std::nullopt;
        const auto& v = value->group_value();
        stored_group g;
        g.protocol_type = v.protocol_type();
        g.generation = v.generation();
        g.protocol = v.protocol();
        g.leader = v.leader();
        g.timestamp_ms = v.current_state_timestamp_ms();
        for (const auto& pm : v.members())
          g.members.push_back(
            {pm.member_id(), pm.group_instance_id(), pm.client_id(),
             pm.client_host(), pm.rebalance_timeout_ms(),
             pm.session_timeout_ms(),
             bytes(pm.subscription().begin(), pm.subscription().end()),
             bytes(pm.assignment().begin(), pm.assignment().end())});
        e.value = std::move(g);
      }
      return e;
    }
    case R::kConsumerGroupMetadataKey: {
      group_epoch_record r;
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_metadata_value())
          return std::nullopt;
        r.epoch = value->consumer_group_metadata_value().epoch();
      }
      return consumer_group_entry{key.consumer_group_metadata_key().group(), r};
    }
    case R::kConsumerGroupPartitionMetadataKey: {
      subscription_metadata_record r;
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_partition_metadata_value())
          return std::nullopt;
        for (const auto& t :
             value->consumer_group_partition_metadata_value().topics())
          r.topics.push_back(
            {get_id(t.topic_id()), t.topic_name(), t.num_partitions()});
      }
      return consumer_group_entry{
        key.consumer_group_partition_metadata_key().group(), std::move(r)};
    }
    case R::kConsumerGroupMemberMetadataKey: {
      const auto& k = key.consumer_group_member_metadata_key();
      member_metadata_record r;
      r.member_id = k.member_id();
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_member_metadata_value())
          return std::nullopt;
        const auto& v = value->consumer_group_member_metadata_value();
        r.instance_id = get_optional(v.has_instance_id(), v.instance_id());
        r.rack_id = get_optional(v.has_rack_id(), v.rack_id());
        r.client_id = v.client_id();
        r.client_host = v.client_host();
        r.subscribed_topic_names.assign(v.subscribed_topic_names().begin(),
                                        v.subscribed_topic_names().end());
        r.subscribed_topic_regex = get_optional(v.has_subscribed_topic_regex(),
                                                v.subscribed_topic_regex());
        r.rebalance_timeout_ms = v.rebalance_timeout_ms();
        r.server_assignor =
          get_optional(v.has_server_assignor(), v.server_assignor());
      }
      return consumer_group_entry{k.group(), std::move(r)};
    }
    case R::kConsumerGroupTargetAssignmentMetadataKey: {
      target_assignment_epoch_record r;
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_target_assignment_metadata_value())
          return std::nullopt;
        r.assignment_epoch =
          value->consumer_group_target_assignment_metadata_value()
            .assignment_epoch();
      }
      return consumer_group_entry{
        key.consumer_group_target_assignment_metadata_key().group(), r};
    }
    case R::kConsumerGroupTargetAssignmentMemberKey: {
      const auto& k = key.consumer_group_target_assignment_member_key();
      target_assignment_record r;
      r.member_id = k.member_id();
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_target_assignment_member_value())
          return std::nullopt;
        r.partitions =
          get_assignment(value->consumer_group_target_assignment_member_value()
                           .topic_partitions());
      }
      return consumer_group_entry{k.group(), std::move(r)};
    }
    case R::kConsumerGroupCurrentMemberAssignmentKey: {
      const auto& k = key.consumer_group_current_member_assignment_key();
      current_assignment_record r;
      r.member_id = k.member_id();
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_current_member_assignment_value())
          return std::nullopt;
        const auto& v = value->consumer_group_current_member_assignment_value();
        r.member_epoch = v.member_epoch();
        r.previous_member_epoch = v.previous_member_epoch();
        r.state = member_state_from_int(static_cast<int8_t>(v.state()));
        r.assigned = get_assignment(v.assigned_partitions());
        r.pending_revocation =
          get_assignment(v.partitions_pending_revocation());
      }
      return consumer_group_entry{k.group(), std::move(r)};
    }
    default:
      return std::nullopt;
  }
}

std::optional<logical_record> decode_legacy(const record_kv& record) {
  proto::ConsumerOffsetsRecord key;
  if (!parse(record.key, key))
    return std::nullopt;
  if (!record.value)
    return decode_legacy(key, nullptr);
  proto::ConsumerOffsetsRecord value;
  if (!parse(*record.value, value))
    return std::nullopt;
  return decode_legacy(key, &value);
}

bool is_tombstone(const consumer_group_record& r) {
  return std::visit([](const auto& x) { return x.tombstone; }, r);
}

// -- the replay -------------------------------------------------------------------

struct replay {
  offsets_partition_state& st;

  void operator()(offset_entry& e) {
    if (!e.value) {
      auto i = st.offsets.find(e.group);
      if (i != st.offsets.end()) {
        i->second.erase(e.partition);
        if (i->second.empty())
          st.offsets.erase(i);
      }
      return;
    }
    st.offsets[e.group][e.partition] = std::move(*e.value);
  }

  void operator()(group_entry& e) {
    if (!e.value)
      st.groups.erase(e.group);
    else
      st.groups[e.group] = std::move(*e.value);
  }

  void operator()(consumer_group_entry& e) {
    auto i = st.consumer_groups.find(e.group);
    // Kafka ignores tombstones of groups it does not know, and a group
    // epoch tombstone deletes the group.
    if (is_tombstone(e.record)) {
      if (i == st.consumer_groups.end())
        return;
      if (std::holds_alternative<group_epoch_record>(e.record)) {
        st.consumer_groups.erase(i);
        return;
      }
    }
    st.consumer_groups[e.group].apply(e.record);
  }
};

} // namespace

// -- writing ------------------------------------------------------------------------

record_kv offset_commit_record(const std::string& group,
                               const topic_partition& tp,
                               const committed_offset& value) {
  return kafka_record(offset_key(group, tp), offset_value(value));
}

record_kv offset_tombstone(const std::string& group,
                           const topic_partition& tp) {
  return kafka_record(offset_key(group, tp), std::nullopt);
}

record_kv group_metadata_record(const std::string& group,
                                const stored_group& value) {
  return kafka_record(wire::group_metadata_key{group}, group_value(value));
}

record_kv group_tombstone(const std::string& group) {
  return kafka_record(wire::group_metadata_key{group}, std::nullopt);
}

record_kv consumer_group_record_kv(const std::string& group,
                                   const consumer_group_record& record) {
  return std::visit(to_kafka{group}, record);
}

std::vector<record_kv> consumer_group_records(const std::string& group,
                                              const consumer_group_image& g) {
  std::vector<record_kv> out;
  auto add = [&](consumer_group_record r) {
    out.push_back(consumer_group_record_kv(group, r));
  };
  for (const auto& [id, m] : g.members)
    add(metadata_record_of(m));
  subscription_metadata_record sub;
  for (const auto& [name, t] : g.subscription_metadata)
    sub.topics.push_back(t);
  add(std::move(sub));
  add(group_epoch_record{g.group_epoch, false});
  for (const auto& [id, partitions] : g.target_assignment)
    add(target_assignment_record{id, partitions, false});
  target_assignment_epoch_record epoch{g.assignment_epoch, false};
  epoch.tombstone = g.assignment_epoch < 0;
  add(epoch);
  for (const auto& [id, m] : g.members)
    add(assignment_record_of(m));
  return out;
}

// -- reading ------------------------------------------------------------------------

bool is_legacy_key(const bytes& key) noexcept {
  return !key.empty() && key[0] != 0;
}

void offsets_partition_state::apply(const record_kv& record) {
  std::optional<logical_record> decoded;
  if (is_legacy_key(record.key)) {
    decoded = decode_legacy(record);
    if (decoded)
      legacy_keys[record.key] = record.value.has_value();
  } else {
    decoded = decode_kafka(record);
  }
  if (!decoded) {
    ++malformed;
    return;
  }
  std::visit(replay{*this}, *decoded);
}

bool offsets_partition_state::needs_upgrade() const {
  return std::any_of(legacy_keys.begin(), legacy_keys.end(),
                     [](const auto& kv) { return kv.second; });
}

consumer_group_image loaded_consumer_group(const offsets_partition_state& st,
                                           const std::string& group) {
  consumer_group_image image;
  if (auto i = st.consumer_groups.find(group); i != st.consumer_groups.end())
    image = i->second;
  if (auto i = st.offsets.find(group); i != st.offsets.end())
    image.offsets = i->second;
  return image;
}

// -- the upgrade rewrite --------------------------------------------------------------

namespace {

size_t size_of(const record_kv& r) {
  // Key, value and a record's framing in a v2 batch (about 20 bytes).
  return r.key.size() + (r.value ? r.value->size() : 0) + 20;
}

/// The Kafka record that states `e`'s logical key as `st` has it now,
/// stamped as a coordinator loads it.
struct current_state {
  const offsets_partition_state& st;
  int64_t now_ms;

  record_kv operator()(const offset_entry& e) const {
    if (auto g = st.offsets.find(e.group); g != st.offsets.end())
      if (auto o = g->second.find(e.partition); o != g->second.end()) {
        auto value = o->second;
        value.commit_timestamp_ms =
          loaded_timestamp_ms(value.commit_timestamp_ms, now_ms);
        return offset_commit_record(e.group, e.partition, value);
      }
    return offset_tombstone(e.group, e.partition);
  }

  record_kv operator()(const group_entry& e) const {
    if (auto g = st.groups.find(e.group); g != st.groups.end()) {
      auto value = g->second;
      value.timestamp_ms = loaded_timestamp_ms(value.timestamp_ms, now_ms);
      return group_metadata_record(e.group, value);
    }
    return group_tombstone(e.group);
  }

  record_kv operator()(const consumer_group_entry&) const {
    return {}; // whole groups, see upgrade_batches
  }
};

/// The same key with its tombstone flag set (to name a logical key).
consumer_group_record tombstone_of(consumer_group_record r) {
  std::visit([](auto& x) { x.tombstone = true; }, r);
  return r;
}

} // namespace

std::vector<std::vector<record_kv>>
upgrade_batches(const offsets_partition_state& st, int64_t now_ms,
                size_t max_batch_bytes) {
  // Each unit: protobuf tombstones, then the Kafka records that replace
  // them; a unit is never split across batches.
  struct unit {
    std::vector<record_kv> tombstones;
    std::vector<record_kv> records;
  };
  std::vector<unit> units;
  // KIP-848 groups as a whole: protobuf tombstones of the group's keys, and
  // Kafka tombstones of those of its keys the image no longer has.
  std::map<std::string, unit> consumer_groups;
  for (const auto& [key, has_value] : st.legacy_keys) {
    if (!has_value)
      continue;
    auto decoded = decode_legacy(record_kv{key, std::nullopt});
    if (!decoded)
      continue;
    record_kv legacy_tombstone{key, std::nullopt};
    if (auto cg = std::get_if<consumer_group_entry>(&*decoded)) {
      auto& u = consumer_groups[cg->group];
      u.tombstones.push_back(std::move(legacy_tombstone));
      u.records.push_back(
        consumer_group_record_kv(cg->group, tombstone_of(cg->record)));
      continue;
    }
    unit u;
    u.tombstones.push_back(std::move(legacy_tombstone));
    u.records.push_back(std::visit(current_state{st, now_ms}, *decoded));
    units.push_back(std::move(u));
  }
  for (auto& [group, u] : consumer_groups) {
    auto i = st.consumer_groups.find(group);
    if (i != st.consumer_groups.end() && i->second.exists) {
      auto current = consumer_group_records(group, i->second);
      // A Kafka tombstone only for keys the current records do not state.
      std::set<bytes> stated;
      for (const auto& r : current)
        stated.insert(r.key);
      std::vector<record_kv> gone;
      for (auto& r : u.records)
        if (!stated.count(r.key))
          gone.push_back(std::move(r));
      u.records = std::move(gone);
      u.records.insert(u.records.end(), current.begin(), current.end());
    }
    units.push_back(std::move(u));
  }
  // Units into batches; in each batch every protobuf tombstone comes
  // before every Kafka record (the rule in offsets_records.hpp).
  std::vector<unit> batches;
  size_t bytes_in_batch = 0;
  for (auto& u : units) {
    size_t n = 0;
    for (const auto& r : u.tombstones)
      n += size_of(r);
    for (const auto& r : u.records)
      n += size_of(r);
    if (batches.empty()
        || (bytes_in_batch > 0 && bytes_in_batch + n > max_batch_bytes)) {
      batches.emplace_back();
      bytes_in_batch = 0;
    }
    auto& b = batches.back();
    for (auto& r : u.tombstones)
      b.tombstones.push_back(std::move(r));
    for (auto& r : u.records)
      b.records.push_back(std::move(r));
    bytes_in_batch += n;
  }
  std::vector<std::vector<record_kv>> out;
  for (auto& b : batches) {
    auto& batch = out.emplace_back(std::move(b.tombstones));
    for (auto& r : b.records)
      batch.push_back(std::move(r));
  }
  return out;
}

} // namespace troupe
