#include "storage/offsets_records.hpp"

#include "consumer_offsets.pb.h"

namespace troupe {

namespace {

bytes serialize(const google::protobuf::MessageLite& msg) {
  std::string out;
  msg.SerializeToString(&out);
  return bytes(out.begin(), out.end());
}

template <class Message>
bool parse(const bytes& buf, Message& msg) {
  return msg.ParseFromArray(buf.data(), static_cast<int>(buf.size()));
}

proto::ConsumerOffsetsRecord offset_key(const std::string& group,
                                        const topic_partition& tp) {
  proto::ConsumerOffsetsRecord key;
  auto k = key.mutable_offset_key();
  k->set_group(group);
  k->set_topic(tp.topic);
  k->set_partition(tp.partition);
  return key;
}

proto::ConsumerOffsetsRecord group_key(const std::string& group) {
  proto::ConsumerOffsetsRecord key;
  key.mutable_group_key()->set_group(group);
  return key;
}

// -- KIP-848 consumer group records -------------------------------------------

void put_id(proto::TopicId* out, const uuid& id) {
  out->set_high(id.high);
  out->set_low(id.low);
}

uuid get_id(const proto::TopicId& id) {
  return {id.high(), id.low()};
}

template <class Repeated>
void put_assignment(Repeated* out, const partition_assignment& a) {
  for (const auto& [topic, partitions] : a) {
    auto tp = out->Add();
    put_id(tp->mutable_topic_id(), topic);
    for (auto p : partitions)
      tp->add_partitions(p);
  }
}

template <class Repeated>
partition_assignment get_assignment(const Repeated& in) {
  partition_assignment a;
  for (const auto& tp : in)
    for (auto p : tp.partitions())
      add_partition(a, get_id(tp.topic_id()), p);
  return a;
}

template <class Optional, class Setter>
void put_optional(const Optional& x, Setter set) {
  if (x)
    set(*x);
}

/// Builds the key (and, unless a tombstone, the value) of each record type.
struct encode {
  const std::string& group;
  proto::ConsumerOffsetsRecord key;
  proto::ConsumerOffsetsRecord value;
  bool tombstone = false;

  void operator()(const group_epoch_record& r) {
    key.mutable_consumer_group_metadata_key()->set_group(group);
    tombstone = r.tombstone;
    value.mutable_consumer_group_metadata_value()->set_epoch(r.epoch);
  }

  void operator()(const subscription_metadata_record& r) {
    key.mutable_consumer_group_partition_metadata_key()->set_group(group);
    tombstone = r.tombstone;
    auto v = value.mutable_consumer_group_partition_metadata_value();
    for (const auto& t : r.topics) {
      auto pt = v->add_topics();
      put_id(pt->mutable_topic_id(), t.id);
      pt->set_topic_name(t.name);
      pt->set_num_partitions(t.partitions);
    }
  }

  void operator()(const member_metadata_record& r) {
    auto k = key.mutable_consumer_group_member_metadata_key();
    k->set_group(group);
    k->set_member_id(r.member_id);
    tombstone = r.tombstone;
    auto v = value.mutable_consumer_group_member_metadata_value();
    put_optional(r.instance_id,
                 [v](const std::string& x) { v->set_instance_id(x); });
    put_optional(r.rack_id, [v](const std::string& x) { v->set_rack_id(x); });
    v->set_client_id(r.client_id);
    v->set_client_host(r.client_host);
    for (const auto& t : r.subscribed_topic_names)
      v->add_subscribed_topic_names(t);
    put_optional(r.subscribed_topic_regex, [v](const std::string& x) {
      v->set_subscribed_topic_regex(x);
    });
    v->set_rebalance_timeout_ms(r.rebalance_timeout_ms);
    put_optional(r.server_assignor,
                 [v](const std::string& x) { v->set_server_assignor(x); });
  }

  void operator()(const target_assignment_epoch_record& r) {
    key.mutable_consumer_group_target_assignment_metadata_key()->set_group(
      group);
    tombstone = r.tombstone;
    value.mutable_consumer_group_target_assignment_metadata_value()
      ->set_assignment_epoch(r.assignment_epoch);
  }

  void operator()(const target_assignment_record& r) {
    auto k = key.mutable_consumer_group_target_assignment_member_key();
    k->set_group(group);
    k->set_member_id(r.member_id);
    tombstone = r.tombstone;
    put_assignment(
      value.mutable_consumer_group_target_assignment_member_value()
        ->mutable_topic_partitions(),
      r.partitions);
  }

  void operator()(const current_assignment_record& r) {
    auto k = key.mutable_consumer_group_current_member_assignment_key();
    k->set_group(group);
    k->set_member_id(r.member_id);
    tombstone = r.tombstone;
    auto v = value.mutable_consumer_group_current_member_assignment_value();
    v->set_member_epoch(r.member_epoch);
    v->set_previous_member_epoch(r.previous_member_epoch);
    v->set_state(static_cast<int32_t>(r.state));
    put_assignment(v->mutable_assigned_partitions(), r.assigned);
    put_assignment(v->mutable_partitions_pending_revocation(),
                   r.pending_revocation);
  }

  void operator()(const offset_record&) {
    // Encoded by offset_commit_record / offset_tombstone.
  }
};

std::optional<std::string> get_optional(bool present, const std::string& x) {
  if (!present)
    return std::nullopt;
  return x;
}

/// The consumer group record a key and value stand for; nullopt when the
/// key is not a consumer group key or the value does not fit it.
std::optional<std::pair<std::string, consumer_group_record>>
decode_consumer_group(const proto::ConsumerOffsetsRecord& key,
                      const proto::ConsumerOffsetsRecord* value) {
  using R = proto::ConsumerOffsetsRecord;
  switch (key.key_case()) {
    case R::kConsumerGroupMetadataKey: {
      group_epoch_record r;
      r.tombstone = !value;
      if (value) {
        if (!value->has_consumer_group_metadata_value())
          return std::nullopt;
        r.epoch = value->consumer_group_metadata_value().epoch();
      }
      return std::make_pair(key.consumer_group_metadata_key().group(),
                            consumer_group_record{r});
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
      return std::make_pair(key.consumer_group_partition_metadata_key().group(),
                            consumer_group_record{std::move(r)});
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
      return std::make_pair(k.group(), consumer_group_record{std::move(r)});
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
      return std::make_pair(
        key.consumer_group_target_assignment_metadata_key().group(),
        consumer_group_record{r});
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
      return std::make_pair(k.group(), consumer_group_record{std::move(r)});
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
      return std::make_pair(k.group(), consumer_group_record{std::move(r)});
    }
    default:
      return std::nullopt;
  }
}

bool is_tombstone(const consumer_group_record& r) {
  return std::visit([](const auto& x) { return x.tombstone; }, r);
}

} // namespace

record_kv consumer_group_record_kv(const std::string& group,
                                   const consumer_group_record& record) {
  if (auto o = std::get_if<offset_record>(&record))
    return o->tombstone ? offset_tombstone(group, o->partition)
                        : offset_commit_record(group, o->partition, o->value);
  encode e{group, {}, {}, false};
  std::visit(e, record);
  if (e.tombstone)
    return {serialize(e.key), std::nullopt};
  return {serialize(e.key), serialize(e.value)};
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

record_kv offset_commit_record(const std::string& group,
                               const topic_partition& tp,
                               const committed_offset& value) {
  proto::ConsumerOffsetsRecord v;
  auto o = v.mutable_offset_value();
  o->set_offset(value.offset);
  o->set_leader_epoch(value.leader_epoch);
  o->set_metadata(value.metadata);
  o->set_commit_timestamp_ms(value.commit_timestamp_ms);
  return {serialize(offset_key(group, tp)), serialize(v)};
}

record_kv offset_tombstone(const std::string& group,
                           const topic_partition& tp) {
  return {serialize(offset_key(group, tp)), std::nullopt};
}

record_kv group_metadata_record(const std::string& group,
                                const stored_group& value) {
  proto::ConsumerOffsetsRecord v;
  auto g = v.mutable_group_value();
  g->set_protocol_type(value.protocol_type);
  g->set_generation(value.generation);
  g->set_protocol(value.protocol);
  g->set_leader(value.leader);
  g->set_current_state_timestamp_ms(value.timestamp_ms);
  for (auto& m : value.members) {
    auto pm = g->add_members();
    pm->set_member_id(m.member_id);
    pm->set_group_instance_id(m.group_instance_id);
    pm->set_client_id(m.client_id);
    pm->set_client_host(m.client_host);
    pm->set_rebalance_timeout_ms(m.rebalance_timeout_ms);
    pm->set_session_timeout_ms(m.session_timeout_ms);
    pm->set_subscription(m.subscription.data(), m.subscription.size());
    pm->set_assignment(m.assignment.data(), m.assignment.size());
  }
  return {serialize(group_key(group)), serialize(v)};
}

record_kv group_tombstone(const std::string& group) {
  return {serialize(group_key(group)), std::nullopt};
}

void offsets_partition_state::apply(const record_kv& record) {
  proto::ConsumerOffsetsRecord key;
  if (!parse(record.key, key)) {
    ++malformed;
    return;
  }
  proto::ConsumerOffsetsRecord value;
  if (record.value && !parse(*record.value, value)) {
    ++malformed;
    return;
  }
  if (key.has_offset_key()) {
    auto& k = key.offset_key();
    topic_partition tp{k.topic(), k.partition()};
    if (!record.value) {
      auto i = offsets.find(k.group());
      if (i != offsets.end()) {
        i->second.erase(tp);
        if (i->second.empty())
          offsets.erase(i);
      }
      return;
    }
    if (!value.has_offset_value()) {
      ++malformed;
      return;
    }
    auto& v = value.offset_value();
    offsets[k.group()][tp] = {v.offset(), v.leader_epoch(), v.metadata(),
                              v.commit_timestamp_ms()};
  } else if (key.has_group_key()) {
    auto& group = key.group_key().group();
    if (!record.value) {
      groups.erase(group);
      return;
    }
    if (!value.has_group_value()) {
      ++malformed;
      return;
    }
    auto& v = value.group_value();
    stored_group g;
    g.protocol_type = v.protocol_type();
    g.generation = v.generation();
    g.protocol = v.protocol();
    g.leader = v.leader();
    g.timestamp_ms = v.current_state_timestamp_ms();
    for (auto& pm : v.members()) {
      stored_member m;
      m.member_id = pm.member_id();
      m.group_instance_id = pm.group_instance_id();
      m.client_id = pm.client_id();
      m.client_host = pm.client_host();
      m.rebalance_timeout_ms = pm.rebalance_timeout_ms();
      m.session_timeout_ms = pm.session_timeout_ms();
      m.subscription.assign(pm.subscription().begin(), pm.subscription().end());
      m.assignment.assign(pm.assignment().begin(), pm.assignment().end());
      g.members.push_back(std::move(m));
    }
    groups[group] = std::move(g);
  } else if (auto r =
               decode_consumer_group(key, record.value ? &value : nullptr)) {
    auto& [group, cg] = *r;
    auto i = consumer_groups.find(group);
    // Kafka ignores tombstones of groups it does not know, and a group
    // epoch tombstone deletes the group.
    if (is_tombstone(cg)) {
      if (i == consumer_groups.end())
        return;
      if (std::holds_alternative<group_epoch_record>(cg)) {
        consumer_groups.erase(i);
        return;
      }
    }
    consumer_groups[group].apply(cg);
  } else {
    ++malformed;
  }
}

} // namespace troupe
