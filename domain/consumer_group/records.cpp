#include "domain/consumer_group/records.hpp"

#include <algorithm>

namespace troupe {

member_metadata_record metadata_record_of(const consumer_member& m) {
  member_metadata_record r;
  r.member_id = m.member_id;
  r.instance_id = m.instance_id;
  r.rack_id = m.rack_id;
  r.client_id = m.client_id;
  r.client_host = m.client_host;
  r.subscribed_topic_names.assign(m.subscribed_topic_names.begin(),
                                  m.subscribed_topic_names.end());
  r.subscribed_topic_regex = m.subscribed_topic_regex;
  r.rebalance_timeout_ms = m.rebalance_timeout_ms;
  r.server_assignor = m.server_assignor;
  return r;
}

current_assignment_record assignment_record_of(const consumer_member& m) {
  current_assignment_record r;
  r.member_id = m.member_id;
  r.member_epoch = m.member_epoch;
  r.previous_member_epoch = m.previous_member_epoch;
  r.state = m.state;
  r.assigned = m.assigned;
  r.pending_revocation = m.pending_revocation;
  return r;
}

namespace {

struct replay {
  consumer_group_image& g;

  void operator()(const group_epoch_record& r) {
    if (r.tombstone) {
      // Kafka's removeGroup; the offsets have records of their own.
      auto offsets = std::move(g.offsets);
      g = consumer_group_image{};
      g.offsets = std::move(offsets);
      return;
    }
    g.exists = true;
    g.group_epoch = r.epoch;
  }

  void operator()(const subscription_metadata_record& r) {
    g.subscription_metadata.clear();
    if (r.tombstone)
      return;
    g.exists = true;
    for (const auto& t : r.topics)
      g.subscription_metadata[t.name] = t;
  }

  void operator()(const member_metadata_record& r) {
    if (r.tombstone) {
      g.members.erase(r.member_id);
      return;
    }
    g.exists = true;
    auto& m = g.members[r.member_id];
    m.member_id = r.member_id;
    m.instance_id = r.instance_id;
    m.rack_id = r.rack_id;
    m.client_id = r.client_id;
    m.client_host = r.client_host;
    m.subscribed_topic_names = {r.subscribed_topic_names.begin(),
                                r.subscribed_topic_names.end()};
    m.subscribed_topic_regex = r.subscribed_topic_regex;
    m.rebalance_timeout_ms = r.rebalance_timeout_ms;
    m.server_assignor = r.server_assignor;
  }

  void operator()(const target_assignment_epoch_record& r) {
    if (r.tombstone) {
      g.assignment_epoch = -1;
      return;
    }
    g.exists = true;
    g.assignment_epoch = r.assignment_epoch;
  }

  void operator()(const target_assignment_record& r) {
    if (r.tombstone) {
      g.target_assignment.erase(r.member_id);
      return;
    }
    g.exists = true;
    g.target_assignment[r.member_id] = r.partitions;
  }

  void operator()(const current_assignment_record& r) {
    if (r.tombstone) {
      // Kafka keeps the member (its metadata tombstone follows) with epoch
      // -1 and nothing assigned.
      auto i = g.members.find(r.member_id);
      if (i == g.members.end())
        return;
      auto& m = i->second;
      m.member_epoch = leave_group_member_epoch;
      m.previous_member_epoch = leave_group_member_epoch;
      m.assigned.clear();
      m.pending_revocation.clear();
      return;
    }
    g.exists = true;
    auto& m = g.members[r.member_id];
    m.member_id = r.member_id;
    m.member_epoch = r.member_epoch;
    m.previous_member_epoch = r.previous_member_epoch;
    m.state = r.state;
    m.assigned = r.assigned;
    m.pending_revocation = r.pending_revocation;
  }

  void operator()(const offset_record& r) {
    if (r.tombstone)
      g.offsets.erase(r.partition);
    else
      g.offsets[r.partition] = r.value;
  }
};

} // namespace

void consumer_group_image::apply(const consumer_group_record& record) {
  std::visit(replay{*this}, record);
}

bool operator==(const consumer_member& x, const consumer_member& y) {
  return x.member_id == y.member_id && x.same_metadata(y)
         && x.same_assignment(y);
}

bool operator==(const consumer_group_image& x, const consumer_group_image& y) {
  auto same_offsets = [](const auto& a, const auto& b) {
    return std::equal(
      a.begin(), a.end(), b.begin(), b.end(), [](const auto& l, const auto& r) {
        return l.first == r.first && l.second.offset == r.second.offset
               && l.second.leader_epoch == r.second.leader_epoch
               && l.second.metadata == r.second.metadata
               && l.second.commit_timestamp_ms == r.second.commit_timestamp_ms;
      });
  };
  return x.exists == y.exists && x.group_epoch == y.group_epoch
         && x.subscription_metadata == y.subscription_metadata
         && x.members == y.members && x.assignment_epoch == y.assignment_epoch
         && x.target_assignment == y.target_assignment
         && same_offsets(x.offsets, y.offsets);
}

} // namespace troupe
