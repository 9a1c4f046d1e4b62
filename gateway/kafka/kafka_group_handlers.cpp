// Consumer groups through the Kafka listener: OffsetCommit, OffsetFetch,
// FindCoordinator and the classic group protocol (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup, DescribeGroups, ListGroups), every version the
// codec speaks (docs/ARCHITECTURE.md §3, §5).

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <utility>

#include "gateway/kafka/kafka_authorization.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

namespace {

using kafka_auth::acl_operation;
using kafka_auth::request_authorizer;
using kafka_auth::resource_type;

request_authorizer authorizer_of(kafka_session_ptr self) {
  return {self->state.ctx.security, self->state.identity};
}

/// Errors that concern the whole group rather than one member.
bool group_level(error_code e) {
  switch (e) {
    case error_code::not_coordinator:
    case error_code::coordinator_not_available:
    case error_code::coordinator_load_in_progress:
    case error_code::invalid_group_id:
      return true;
    default:
      return false;
  }
}

/// The coordinator's per-partition errors written into the answer's shape
/// (the request's topics and partitions, in their order): OffsetCommit and
/// OffsetDelete answer every partition asked, with its error or NONE.
template <class WireTopics, class Partitions>
void fill_partition_errors(WireTopics& topics, const Partitions& answered) {
  std::map<std::pair<std::string, int32_t>, error_code> errors;
  for (auto& p : answered)
    errors[{p.topic, p.partition}] = p.error;
  for (auto& t : topics)
    for (auto& p : t.partitions)
      if (auto i = errors.find({t.name, p.partition_index}); i != errors.end())
        p.error = i->second;
}

} // namespace

// -- OffsetCommit (8) -------------------------------------------------------------

void serve_offset_commit(kafka_session_ptr self, const wire::request_header& h,
                         wire::offset_commit_request& req,
                         kafka_reply_fn reply) {
  // handleOffsetCommitRequest: READ on the group, else every partition
  // gets GROUP_AUTHORIZATION_FAILED; then READ on each topic, else its
  // partitions get TOPIC_AUTHORIZATION_FAILED and are not committed.
  auto auth = authorizer_of(self);
  bool group_allowed = auth.group(acl_operation::read, req.group_id);
  offset_commit_request out;
  out.group_id = req.group_id;
  // v9: the member epoch of a KIP-848 member, passed on as it is.
  out.generation_id = req.generation_id;
  out.member_id = req.member_id;
  out.group_instance_id = or_empty(req.group_instance_id);
  // v2-4's retention time is not kept: troupe expires no offsets.
  wire::offset_commit_response shape;
  for (auto& t : req.topics) {
    wire::offset_commit_topic_response tr;
    tr.name = t.name;
    auto denied = !group_allowed ? error_code::group_authorization_failed
                  : auth.topic(acl_operation::read, t.name)
                    ? error_code::none
                    : error_code::topic_authorization_failed;
    for (auto& p : t.partitions) {
      if (denied == error_code::none)
        out.partitions.push_back({t.name, p.partition_index,
                                  p.committed_offset, p.committed_leader_epoch,
                                  or_empty(p.committed_metadata)});
      tr.partitions.push_back({p.partition_index, denied});
    }
    shape.topics.push_back(std::move(tr));
  }
  // Nothing left to commit: Kafka answers without the coordinator.
  if (!group_allowed || (out.partitions.empty() && !req.topics.empty())) {
    reply(frame(h, shape, wire::encode_offset_commit_response));
    return;
  }
  ask_one<offset_commit_response>(
    self, edge_request_timeout, std::move(out), std::move(reply),
    [h, shape = std::move(shape)](offset_commit_response& res) mutable {
      fill_partition_errors(shape.topics, res.partitions);
      return frame(h, shape, wire::encode_offset_commit_response);
    });
}

// -- OffsetFetch (9) ---------------------------------------------------------------

namespace {

offset_fetch_request to_internal(
  const std::string& group,
  const std::optional<std::vector<wire::offset_fetch_topic>>& topics) {
  offset_fetch_request out;
  out.group_id = group;
  if (topics)
    for (auto& t : *topics)
      for (auto p : t.partition_indexes)
        out.partitions.push_back({t.name, p});
  return out;
}

std::vector<wire::offset_fetch_topic_response>
to_wire(const offset_fetch_response& res) {
  std::vector<wire::offset_fetch_topic_response> out;
  for (auto& p : res.partitions) {
    if (out.empty() || out.back().name != p.topic)
      out.push_back({p.topic, {}});
    out.back().partitions.push_back(
      {p.partition, p.offset, p.metadata, p.error, p.leader_epoch});
  }
  return out;
}

/// One group's topics as Kafka's fetchOffsetsForGroup splits them: those
/// the principal may DESCRIBE are asked for, the others are answered
/// TOPIC_AUTHORIZATION_FAILED. Null topics (every committed one) stay null:
/// the answer is filtered instead (fetchAllOffsetsForGroup).
struct fetch_topics {
  std::optional<std::vector<wire::offset_fetch_topic>> asked;
  std::vector<wire::offset_fetch_topic> denied;
};

fetch_topics
split_topics(const request_authorizer& auth,
             const std::optional<std::vector<wire::offset_fetch_topic>>& xs) {
  fetch_topics out;
  if (!xs)
    return out;
  out.asked.emplace();
  for (auto& t : *xs)
    (auth.topic(acl_operation::describe, t.name) ? *out.asked : out.denied)
      .push_back(t);
  return out;
}

/// Named topics that were all refused: nothing to ask the coordinator.
bool nothing_to_ask(const fetch_topics& x) {
  return x.asked && x.asked->empty() && !x.denied.empty();
}

void finish_topics(const request_authorizer& auth, const fetch_topics& split,
                   std::vector<wire::offset_fetch_topic_response>& topics) {
  if (!split.asked)
    topics.erase(std::remove_if(topics.begin(), topics.end(),
                                [&](auto& t) {
                                  return !auth.topic(acl_operation::describe,
                                                     t.name);
                                }),
                 topics.end());
  for (auto& t : split.denied) {
    wire::offset_fetch_topic_response tr;
    tr.name = t.name;
    for (auto p : t.partition_indexes)
      tr.partitions.push_back(
        {p, -1, std::string{}, error_code::topic_authorization_failed, -1});
    topics.push_back(std::move(tr));
  }
}

} // namespace

void serve_offset_fetch(kafka_session_ptr self, const wire::request_header& h,
                        wire::offset_fetch_request& req, kafka_reply_fn reply) {
  auto v = h.api_version;
  // require_stable (v7+) waits for pending transactional offsets: without
  // transactions there are none.
  // handleOffsetFetchRequestFromCoordinator: DESCRIBE on each group, else
  // GROUP_AUTHORIZATION_FAILED; then DESCRIBE on each topic (split_topics).
  auto auth = authorizer_of(self);
  if (v >= 8) {
    // KIP-709: one answer per group, each asked of its coordinator.
    struct group_plan {
      std::string id;
      error_code refused = error_code::none;
      fetch_topics split;
      bool asked = false;
    };
    auto plans = std::make_shared<std::vector<group_plan>>();
    std::vector<offset_fetch_request> groups;
    for (auto& g : req.groups) {
      group_plan plan{g.group_id, error_code::none, {}, false};
      if (!auth.group(acl_operation::describe, g.group_id)) {
        plan.refused = error_code::group_authorization_failed;
      } else {
        plan.split = split_topics(auth, g.topics);
        if (!nothing_to_ask(plan.split)) {
          auto out = to_internal(g.group_id, plan.split.asked);
          out.member_id = or_empty(g.member_id);
          out.member_epoch = g.member_epoch;
          groups.push_back(std::move(out));
          plan.asked = true;
        }
      }
      plans->push_back(std::move(plan));
    }
    ask_broker<offset_fetch_response>(
      self, edge_request_timeout, std::move(groups),
      [h, plans, auth, reply = std::move(reply)](
        std::vector<std::optional<offset_fetch_response>> results) {
        wire::offset_fetch_response out;
        size_t i = 0;
        for (auto& plan : *plans) {
          wire::offset_fetch_group_response g;
          g.group_id = plan.id;
          if (plan.refused != error_code::none) {
            g.error = plan.refused;
          } else if (!plan.asked) {
            finish_topics(auth, plan.split, g.topics);
          } else if (auto& r = results[i++]; !r) {
            g.error = error_code::not_coordinator;
          } else {
            g.error = r->error;
            g.topics = to_wire(*r);
            if (g.error == error_code::none)
              finish_topics(auth, plan.split, g.topics);
          }
          out.groups.push_back(std::move(g));
        }
        reply(frame(h, out, wire::encode_offset_fetch_response));
      });
    return;
  }
  bool group_allowed = auth.group(acl_operation::describe, req.group_id);
  auto split = group_allowed ? split_topics(auth, req.topics) : fetch_topics{};
  if (!group_allowed || nothing_to_ask(split)) {
    wire::offset_fetch_response out;
    if (group_allowed) {
      finish_topics(auth, split, out.topics);
    } else if (v >= 2) {
      out.error = error_code::group_authorization_failed;
    } else if (req.topics) {
      // v1 has no top-level error: the group's goes to every partition.
      for (auto& t : *req.topics) {
        wire::offset_fetch_topic_response tr;
        tr.name = t.name;
        for (auto p : t.partition_indexes)
          tr.partitions.push_back(
            {p, -1, std::string{}, error_code::group_authorization_failed, -1});
        out.topics.push_back(std::move(tr));
      }
    }
    reply(frame(h, out, wire::encode_offset_fetch_response));
    return;
  }
  auto out = to_internal(req.group_id, split.asked);
  auto requested = out.partitions;
  ask_one<offset_fetch_response>(
    self, edge_request_timeout, std::move(out), std::move(reply),
    [h, v, requested, auth, split](offset_fetch_response& res) {
      wire::offset_fetch_response out;
      if (v >= 2) {
        out.error = res.error;
      } else if (res.error != error_code::none && res.partitions.empty()) {
        // v1 has no top-level error: a group-wide one goes to every
        // requested partition, as Kafka's v1 responses carry it.
        for (auto& tp : requested)
          res.partitions.push_back(
            {tp.topic, tp.partition, -1, -1, {}, res.error});
      }
      out.topics = to_wire(res);
      if (res.error == error_code::none)
        finish_topics(auth, split, out.topics);
      return frame(h, out, wire::encode_offset_fetch_response);
    });
}

// -- FindCoordinator (10) ---------------------------------------------------------

void serve_find_coordinator(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::find_coordinator_request& req,
                            kafka_reply_fn reply) {
  auto v = h.api_version;
  auto keys = v >= 4 ? req.coordinator_keys : std::vector<std::string>{req.key};
  // KafkaApis.getCoordinator: a transaction coordinator needs DESCRIBE on
  // the transactional id, which no principal has on a broker without
  // transactions; share groups (and unknown key types) are refused.
  error_code refused = error_code::none;
  if (req.key_type == wire::coordinator_key_transaction)
    refused = error_code::transactional_id_authorization_failed;
  else if (req.key_type != wire::coordinator_key_group)
    refused = error_code::invalid_request;
  // getCoordinator: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED
  // for that key (only the allowed keys are asked).
  auto auth = authorizer_of(self);
  std::vector<error_code> denied;
  std::vector<find_coordinator_request> asks;
  for (auto& key : keys) {
    denied.push_back(refused != error_code::none
                       ? refused
                       : kafka_auth::find_coordinator_error(auth, req.key_type,
                                                            key));
    if (denied.back() == error_code::none)
      asks.push_back({key});
  }
  auto listener = self->state.ctx.listener_name;
  ask_broker<find_coordinator_response>(
    self, edge_request_timeout, std::move(asks),
    [h, v, keys, denied, listener, reply = std::move(reply)](
      std::vector<std::optional<find_coordinator_response>> results) {
      std::vector<wire::found_coordinator> found;
      size_t j = 0;
      for (size_t i = 0; i < keys.size(); ++i) {
        wire::found_coordinator c;
        c.key = keys[i];
        std::optional<find_coordinator_response>* r = nullptr;
        if (denied[i] != error_code::none)
          c.error = denied[i];
        else if (r = &results[j++]; !*r)
          c.error = error_code::coordinator_not_available;
        else
          c.error = (*r)->error;
        if (c.error == error_code::none) {
          // The coordinator's endpoint of the client's listener.
          auto& found_at = **r;
          auto e = endpoint_for(found_at.listeners, found_at.host,
                                found_at.port, listener);
          c.node_id = found_at.node_id;
          c.host = e.host;
          c.port = e.port;
        } else {
          c.host = "";
          c.error_message = std::string{error_message(c.error)};
        }
        found.push_back(std::move(c));
      }
      wire::find_coordinator_response out;
      if (v >= 4) {
        out.coordinators = std::move(found);
      } else {
        auto& c = found.front();
        out.error = c.error;
        out.node_id = c.node_id;
        out.host = c.host;
        out.port = c.port;
        out.error_message = c.error_message;
      }
      reply(frame(h, out, wire::encode_find_coordinator_response));
    });
}

// -- JoinGroup (11) -------------------------------------------------------------------

void serve_join_group(kafka_session_ptr self, const wire::request_header& h,
                      wire::join_group_request& req, kafka_reply_fn reply) {
  auto v = h.api_version;
  // handleJoinGroupRequest: READ on the group (JoinGroupRequest's error
  // response: no generation, no protocol, no members).
  if (!authorizer_of(self).group(acl_operation::read, req.group_id)) {
    wire::join_group_response out;
    out.error = error_code::group_authorization_failed;
    if (v < 7)
      out.protocol_name = std::string{};
    reply(frame(h, out, wire::encode_join_group_response));
    return;
  }
  join_group_request out;
  out.group_id = req.group_id;
  out.session_timeout_ms = req.session_timeout_ms;
  out.rebalance_timeout_ms = req.rebalance_timeout_ms;
  out.member_id = req.member_id;
  out.group_instance_id = or_empty(req.group_instance_id);
  out.protocol_type = req.protocol_type;
  for (auto& p : req.protocols)
    out.protocols.push_back({p.name, p.metadata});
  out.client_id = or_empty(h.client_id);
  out.client_host = self->state.ctx.client_host;
  // KIP-394: from v4 a new member first gets MEMBER_ID_REQUIRED and an id.
  out.require_known_member_id = v >= 4;
  // KIP-800: Kafka logs the client's reason with the rebalance it causes.
  if (req.reason)
    spdlog::info("kafka: {} joins group {}: {}", self->state.ctx.client_host,
                 req.group_id, *req.reason);
  // The coordinator parks the request up to the rebalance timeout.
  auto wait = std::max(req.rebalance_timeout_ms, req.session_timeout_ms);
  auto timeout = milliseconds{std::max(wait, 0)} + edge_request_timeout;
  ask_one<join_group_response>(
    self, timeout, std::move(out), std::move(reply),
    [h, v](join_group_response& res) {
      wire::join_group_response out;
      out.error = res.error;
      out.generation_id = res.generation_id;
      // v7+: no protocol yet is null, before it is the empty string.
      if (v >= 7)
        out.protocol_name = null_if_empty(res.protocol_name);
      else
        out.protocol_name = res.protocol_name;
      out.protocol_type = null_if_empty(res.protocol_type);
      out.leader = res.leader;
      out.member_id = res.member_id;
      for (auto& m : res.members)
        out.members.push_back(
          {m.member_id, m.metadata, null_if_empty(m.group_instance_id)});
      return frame(h, out, wire::encode_join_group_response);
    });
}

// -- SyncGroup (14), Heartbeat (12), LeaveGroup (13) --------------------------------

void serve_sync_group(kafka_session_ptr self, const wire::request_header& h,
                      wire::sync_group_request& req, kafka_reply_fn reply) {
  // handleSyncGroupRequest: READ on the group.
  if (!authorizer_of(self).group(acl_operation::read, req.group_id)) {
    wire::sync_group_response out;
    out.error = error_code::group_authorization_failed;
    reply(frame(h, out, wire::encode_sync_group_response));
    return;
  }
  sync_group_request out;
  out.group_id = req.group_id;
  out.generation_id = req.generation_id;
  out.member_id = req.member_id;
  out.group_instance_id = or_empty(req.group_instance_id);
  out.protocol_type = or_empty(req.protocol_type);
  out.protocol_name = or_empty(req.protocol_name);
  for (auto& a : req.assignments)
    out.assignments.push_back({a.member_id, a.assignment});
  ask_one<sync_group_response>(
    self, edge_request_timeout + slack, std::move(out), std::move(reply),
    [h](sync_group_response& res) {
      wire::sync_group_response out;
      out.error = res.error;
      out.assignment = res.assignment;
      out.protocol_type = null_if_empty(res.protocol_type);
      out.protocol_name = null_if_empty(res.protocol_name);
      return frame(h, out, wire::encode_sync_group_response);
    });
}

void serve_heartbeat(kafka_session_ptr self, const wire::request_header& h,
                     wire::heartbeat_request& req, kafka_reply_fn reply) {
  // handleHeartbeatRequest: READ on the group.
  if (!authorizer_of(self).group(acl_operation::read, req.group_id)) {
    reply(frame(h, wire::heartbeat_response{error_code::group_authorization_failed},
                wire::encode_heartbeat_response));
    return;
  }
  heartbeat_request out;
  out.group_id = req.group_id;
  out.generation_id = req.generation_id;
  out.member_id = req.member_id;
  out.group_instance_id = or_empty(req.group_instance_id);
  ask_one<heartbeat_response>(self, edge_request_timeout, std::move(out),
                              std::move(reply), [h](heartbeat_response& res) {
                                return frame(
                                  h, wire::heartbeat_response{res.error},
                                  wire::encode_heartbeat_response);
                              });
}

void serve_leave_group(kafka_session_ptr self, const wire::request_header& h,
                       wire::leave_group_request& req, kafka_reply_fn reply) {
  auto v = h.api_version;
  // handleLeaveGroupRequest: READ on the group, one top-level error.
  if (!authorizer_of(self).group(acl_operation::read, req.group_id)) {
    wire::leave_group_response out;
    out.error = error_code::group_authorization_failed;
    reply(frame(h, out, wire::encode_leave_group_response));
    return;
  }
  leave_group_request out;
  out.group_id = req.group_id;
  if (v < 3) {
    out.members.push_back({req.member_id, {}});
  } else {
    // KIP-345: a batch of members, static ones by their instance id.
    for (auto& m : req.members) {
      out.members.push_back({m.member_id, or_empty(m.group_instance_id)});
      if (m.reason)
        spdlog::info("kafka: {} leaves group {}: {}", m.member_id,
                     req.group_id, *m.reason);
    }
  }
  ask_one<leave_group_response>(
    self, edge_request_timeout, std::move(out), std::move(reply),
    [h, v](leave_group_response& res) {
      wire::leave_group_response out;
      if (v < 3) {
        // LeaveGroupResponse before v3: the one member's error on top.
        out.error = res.error;
        if (out.error == error_code::none && !res.members.empty())
          out.error = res.members.front().error;
      } else if (group_level(res.error) || res.members.empty()) {
        out.error = res.error;
      } else {
        for (auto& m : res.members)
          out.members.push_back(
            {m.member_id, null_if_empty(m.group_instance_id), m.error});
      }
      return frame(h, out, wire::encode_leave_group_response);
    });
}

// -- DescribeGroups (15), ListGroups (16) ----------------------------------------------

void serve_describe_groups(kafka_session_ptr self,
                           const wire::request_header& h,
                           wire::describe_groups_request& req,
                           kafka_reply_fn reply) {
  auto v = h.api_version;
  bool with_operations = v >= 3 && req.include_authorized_operations;
  // handleDescribeGroupsRequest: groups without DESCRIBE come first, as
  // GROUP_AUTHORIZATION_FAILED (DescribeGroupsResponse.groupError); the
  // others are described, with their real authorized operations.
  auto auth = authorizer_of(self);
  wire::describe_groups_response refused;
  std::vector<std::string> allowed;
  for (auto& g : req.groups) {
    if (auth.group(acl_operation::describe, g)) {
      allowed.push_back(g);
      continue;
    }
    wire::described_group dg;
    dg.error = error_code::group_authorization_failed;
    dg.group_id = g;
    refused.groups.push_back(std::move(dg));
  }
  if (allowed.empty() && !req.groups.empty()) {
    reply(frame(h, refused, wire::encode_describe_groups_response));
    return;
  }
  ask_one<describe_groups_response>(
    self, edge_request_timeout, describe_groups_request{allowed},
    std::move(reply),
    [h, v, with_operations, auth,
     refused = std::move(refused)](describe_groups_response& res) {
      wire::describe_groups_response out = refused;
      for (auto& g : res.groups) {
        wire::described_group dg;
        dg.error = g.error;
        dg.group_id = g.group_id;
        dg.group_state = std::string{state_name(g.state)};
        dg.protocol_type = g.protocol_type;
        dg.protocol_data = g.protocol_data;
        for (auto& m : g.members)
          dg.members.push_back({m.member_id, m.client_id, m.client_host,
                                m.metadata, m.assignment,
                                null_if_empty(m.group_instance_id)});
        bool unknown = g.error == error_code::none
                       && g.state == any_group_state::dead && g.members.empty();
        // KIP-1043: v6 names an unknown group instead of describing it
        // as Dead (GroupMetadataManager.describeGroups).
        if (v >= 6 && unknown) {
          dg.error = error_code::group_id_not_found;
          dg.error_message = "Group " + g.group_id + " not found.";
        } else if (v >= 6 && g.error != error_code::none) {
          dg.error_message = std::string{error_message(g.error)};
        }
        if (with_operations && dg.error == error_code::none)
          dg.authorized_operations =
            auth.operations(resource_type::group, dg.group_id,
                            group_operations);
        out.groups.push_back(std::move(dg));
      }
      return frame(h, out, wire::encode_describe_groups_response);
    });
}

void serve_list_groups(kafka_session_ptr self, const wire::request_header& h,
                       wire::list_groups_request& req, kafka_reply_fn reply) {
  auto v = h.api_version;
  // Kafka matches both filters case-insensitively (v4+ states, v5+ types);
  // a name of no state or type matches no group.
  std::vector<any_group_state> states;
  std::vector<group_type> types;
  if (v >= 4)
    for (auto& s : req.states_filter)
      states.push_back(parse_group_state(s));
  if (v >= 5)
    for (auto& t : req.types_filter)
      types.push_back(parse_group_type(t));
  // handleListGroupsRequest: DESCRIBE on the CLUSTER lists every group,
  // else only the groups the principal may DESCRIBE.
  auto auth = authorizer_of(self);
  bool cluster_describe = auth.cluster(acl_operation::describe);
  ask_one<list_groups_response>(
    self, edge_request_timeout, list_groups_request{}, std::move(reply),
    [h, states, types, auth, cluster_describe](list_groups_response& res) {
      auto in = [](const auto& filter, auto x) {
        return filter.empty()
               || std::find(filter.begin(), filter.end(), x) != filter.end();
      };
      wire::list_groups_response out;
      out.error = res.error;
      for (auto& g : res.groups) {
        // Groups that do not say otherwise are classic groups.
        auto type = g.group_type;
        if (in(states, g.state) && in(types, type)
            && kafka_auth::lists_group(auth, cluster_describe, g.group_id))
          out.groups.push_back({g.group_id, g.protocol_type,
                                std::string{state_name(g.state)},
                                std::string{group_type_name(type)}});
      }
      return frame(h, out, wire::encode_list_groups_response);
    });
}

// -- DeleteGroups (42), OffsetDelete (47) --------------------------------------------

void serve_delete_groups(kafka_session_ptr self, const wire::request_header& h,
                         wire::delete_groups_request& req,
                         kafka_reply_fn reply) {
  // handleDeleteGroupsRequest: each group once; DELETE on a group, else
  // GROUP_AUTHORIZATION_FAILED, listed after the coordinator's results.
  auto auth = authorizer_of(self);
  std::vector<std::string> allowed;
  std::vector<std::string> refused;
  for (auto& g : req.groups_names) {
    if (std::find(allowed.begin(), allowed.end(), g) != allowed.end()
        || std::find(refused.begin(), refused.end(), g) != refused.end())
      continue;
    (auth.group(acl_operation::delete_, g) ? allowed : refused).push_back(g);
  }
  auto answer = [h, refused](std::vector<deleted_group> results) {
    wire::delete_groups_response out;
    for (auto& r : results)
      out.results.push_back({r.group_id, r.error});
    for (auto& g : refused)
      out.results.push_back({g, error_code::group_authorization_failed});
    return frame(h, out, wire::encode_delete_groups_response);
  };
  if (allowed.empty()) {
    reply(answer({}));
    return;
  }
  ask_one<delete_groups_response>(
    self, edge_request_timeout, delete_groups_request{allowed},
    std::move(reply), [answer](delete_groups_response& res) {
      return answer(std::move(res.results));
    });
}

void serve_offset_delete(kafka_session_ptr self, const wire::request_header& h,
                         wire::offset_delete_request& req,
                         kafka_reply_fn reply) {
  // handleOffsetDeleteRequest: DELETE on the group, else only
  // GROUP_AUTHORIZATION_FAILED; READ on each topic, else its partitions
  // get TOPIC_AUTHORIZATION_FAILED and are not asked for.
  auto auth = authorizer_of(self);
  if (!auth.group(acl_operation::delete_, req.group_id)) {
    wire::offset_delete_response out;
    out.error = error_code::group_authorization_failed;
    reply(frame(h, out, wire::encode_offset_delete_response));
    return;
  }
  offset_delete_request out;
  out.group_id = req.group_id;
  wire::offset_delete_response shape;
  for (auto& t : req.topics) {
    wire::offset_delete_response_topic tr;
    tr.name = t.name;
    auto denied = auth.topic(acl_operation::read, t.name)
                    ? error_code::none
                    : error_code::topic_authorization_failed;
    for (auto& p : t.partitions) {
      if (denied == error_code::none)
        out.partitions.push_back({t.name, p.partition_index});
      tr.partitions.push_back({p.partition_index, denied});
    }
    shape.topics.push_back(std::move(tr));
  }
  // The coordinator is asked even with nothing left: the group's own
  // errors come first (GroupCoordinator.handleDeleteOffsets).
  ask_one<offset_delete_response>(
    self, edge_request_timeout, std::move(out), std::move(reply),
    [h, shape = std::move(shape)](offset_delete_response& res) mutable {
      if (res.error != error_code::none) {
        // OffsetDeleteRequest.getErrorResponse: the group's error alone.
        wire::offset_delete_response out;
        out.error = res.error;
        return frame(h, out, wire::encode_offset_delete_response);
      }
      fill_partition_errors(shape.topics, res.partitions);
      return frame(h, shape, wire::encode_offset_delete_response);
    });
}

} // namespace troupe::kafka_handlers
