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

} // namespace

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
  } else {
    ++malformed;
  }
}

} // namespace troupe
