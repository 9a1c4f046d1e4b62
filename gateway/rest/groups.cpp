// troupe's /v1 group routes: list and describe groups (members, their
// assignments, lag), and the membership protocol for clients that run it
// themselves (join, sync, heartbeat, leave, commit). Answers carry Kafka's
// error code and name.

#include <algorithm>
#include <map>

#include "domain/consumer_protocol.hpp"
#include "gateway.pb.h"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/json_value.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/routes.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

constexpr auto json_type = "application/json";

http_response ok(const google::protobuf::Message& msg) {
  return json_response(to_json(msg), json_type);
}

/// `{error_code, error_name}`, written directly: a heartbeat's whole
/// answer, on the hottest route.
http_response kafka_code(error_code e) {
  return json_response("{\"error_code\":" + std::to_string(static_cast<int>(e))
                         + ",\"error_name\":\"" + std::string{error_name(e)}
                         + "\"}",
                       json_type);
}

/// Calls `k` in the bridge with the group's coordinating broker (null, with
/// the error, when there is none). The bridge's lookup caches FindCoordinator
/// answers for a few seconds: a heartbeat then costs one broker request.
void with_coordinator(const call& c, std::string group,
                      std::function<void(broker_actor, error_code)> k) {
  c.run([c, group = std::move(group), k = std::move(k)](bridge_self self) {
    c.cache().coordinators.find(self, c.cluster().bootstrap(), group,
                                edge_request_timeout,
                                [self, k](client::coordinator found) {
                                  bridge_scope scope{self};
                                  k(found.broker, found.error);
                                });
  });
}

/// A NOT_COORDINATOR answer means the cached coordinator moved.
void forget_coordinator(const call& c, const std::string& group, error_code e) {
  c.cache().coordinators.forget(group, e);
}

/// The broker id of a coordinator's handle, -1 when the cluster view does
/// not know it.
int32_t broker_id_of(const call& c, const broker_actor& b) {
  for (auto& bi : c.cluster().brokers())
    if (bi.handle == caf::actor_cast<caf::actor>(b))
      return bi.node_id;
  return -1;
}

void add_partitions(
  google::protobuf::RepeatedPtrField<pb::TopicPartitions>* out,
  const std::vector<topic_partition>& tps) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (auto& tp : tps)
    by_topic[tp.topic].push_back(tp.partition);
  for (auto& [t, ps] : by_topic) {
    auto* x = out->Add();
    x->set_topic(t);
    std::sort(ps.begin(), ps.end());
    for (auto p : ps)
      x->add_partitions(p);
  }
}

/// Lag: committed offsets against each partition's high watermark.
void add_lag(const call& c, std::shared_ptr<pb::GroupDescription> out,
             broker_actor coordinator, std::string group,
             std::vector<topic_partition> assigned) {
  c.ask<offset_fetch_response>(
    coordinator, offset_fetch_request{group, assigned},
    [c, out, assigned](caf::expected<offset_fetch_response> offs) {
      with_metadata(
        c, {}, false,
        [c, out, assigned, offs](caf::expected<metadata_response> md) {
          std::map<topic_partition, int32_t> leaders;
          if (md)
            for (auto& t : md->topics)
              for (auto& p : t.partition_states)
                leaders[{t.name, p.partition}] = p.leader;
          std::vector<std::pair<broker_actor, list_offsets_request>> reqs;
          for (auto& tp : assigned)
            reqs.emplace_back(c.cluster().broker(leaders[tp]),
                              list_offsets_request{tp, -1});
          c.ask_all<list_offsets_response>(
            std::move(reqs),
            [c, out, assigned,
             offs](std::vector<caf::expected<list_offsets_response>> ends) {
              for (size_t i = 0; i < assigned.size(); ++i) {
                auto* l = out->add_lag();
                l->set_topic(assigned[i].topic);
                l->set_partition(assigned[i].partition);
                int64_t committed = -1;
                if (offs)
                  for (auto& o : offs->partitions)
                    if (o.topic == assigned[i].topic
                        && o.partition == assigned[i].partition)
                      committed = o.offset;
                int64_t hw = ends[i] ? ends[i]->offset : -1;
                l->set_committed(static_cast<double>(committed));
                l->set_high_watermark(static_cast<double>(hw));
                if (committed >= 0 && hw >= 0)
                  l->set_lag(static_cast<double>(
                    std::max<int64_t>(hw - committed, 0)));
              }
              c.reply(ok(*out));
            },
            milliseconds{5000});
        });
    });
}

void list_groups_of_brokers(const call& c) {
  std::vector<std::pair<broker_actor, list_groups_request>> reqs;
  std::vector<int32_t> ids;
  for (auto& b : c.cluster().brokers()) {
    reqs.emplace_back(caf::actor_cast<broker_actor>(b.handle),
                      list_groups_request{});
    ids.push_back(b.node_id);
  }
  c.ask_all<list_groups_response>(
    std::move(reqs),
    [c, ids](std::vector<caf::expected<list_groups_response>> rs) {
      pb::GroupList out;
      for (size_t i = 0; i < rs.size(); ++i)
        if (rs[i])
          for (auto& g : rs[i]->groups) {
            // ListGroups shows the groups the caller may DESCRIBE.
            if (!c.may(security::acl_operation::describe,
                       security::resource_type::group, g.group_id))
              continue;
            auto* gs = out.add_groups();
            gs->set_group_id(g.group_id);
            gs->set_state(std::string{state_name(g.state)});
            gs->set_protocol_type(g.protocol_type);
            gs->set_coordinator(ids[i]);
          }
      c.reply(ok(out));
    },
    milliseconds{5000});
}

/// A KIP-848 assignment by topic name.
std::vector<topic_partition> partitions_of(const consumer_group_assignment& a) {
  std::vector<topic_partition> out;
  for (auto& t : a.topic_partitions)
    for (auto p : t.partitions)
      out.push_back({t.topic_name, p});
  return out;
}

/// A consumer group (KIP-848), which DescribeGroups sees as Dead: its
/// epochs and each member's current and target assignment. Neither kind:
/// GROUP_ID_NOT_FOUND from ConsumerGroupDescribe.
void describe_consumer_group(const call& c, broker_actor b,
                             const std::string& group) {
  c.ask<consumer_group_describe_response>(
    b, consumer_group_describe_request{{group}, false},
    [c, b, group](caf::expected<consumer_group_describe_response> res) {
      if (!res)
        return c.reply(ask_failed(res.error(), "ConsumerGroupDescribe", false));
      if (res->groups.empty())
        return c.reply(kafka_error(500, error_code::unknown_server_error,
                                   "the coordinator answered nothing"));
      auto& g = res->groups[0];
      forget_coordinator(c, group, g.error);
      if (g.error != error_code::none)
        return c.reply(kafka_error(404, g.error, "no group " + group));
      auto out = std::make_shared<pb::GroupDescription>();
      out->set_group_id(g.group_id);
      out->set_state(std::string{state_name(g.group_state)});
      out->set_generation(g.group_epoch);
      out->set_protocol_type("consumer");
      out->set_group_type("consumer");
      out->set_group_epoch(g.group_epoch);
      out->set_assignment_epoch(g.assignment_epoch);
      out->set_assignor(g.assignor_name);
      out->set_coordinator(broker_id_of(c, b));
      out->set_error_name("NONE");
      std::vector<topic_partition> assigned;
      for (auto& m : g.members) {
        auto* md = out->add_members();
        md->set_member_id(m.member_id);
        if (m.instance_id)
          md->set_group_instance_id(*m.instance_id);
        md->set_client_id(m.client_id);
        md->set_client_host(m.client_host);
        md->set_member_epoch(m.member_epoch);
        md->set_member_state(std::string{member_state_name(m.state)});
        auto current = partitions_of(m.assignment);
        add_partitions(md->mutable_assignment(), current);
        add_partitions(md->mutable_target_assignment(),
                       partitions_of(m.target_assignment));
        add_partitions(md->mutable_pending_revocation(),
                       partitions_of(m.partitions_pending_revocation));
        assigned.insert(assigned.end(), current.begin(), current.end());
      }
      add_lag(c, out, b, group, std::move(assigned));
    });
}

} // namespace

void list_groups(const call& c) {
  with_brokers(c, [c] { list_groups_of_brokers(c); });
}

void describe_group(const call& c) {
  if (!c.allow_group(security::acl_operation::describe, c.param(0)))
    return;
  auto group = c.param(0);
  with_coordinator(c, group, [c, group](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_error(503, e, "no coordinator for " + group));
    c.ask<describe_groups_response>(
      b, describe_groups_request{{group}},
      [c, b, group](caf::expected<describe_groups_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "DescribeGroups", false));
        if (res->groups.empty())
          return c.reply(kafka_error(500, error_code::unknown_server_error,
                                     "the coordinator answered nothing"));
        auto& g = res->groups[0];
        forget_coordinator(c, group, g.error);
        if (g.error != error_code::none)
          return c.reply(kafka_error(404, g.error, "group " + group));
        if (g.state == any_group_state::dead)
          return describe_consumer_group(c, b, group);
        auto out = std::make_shared<pb::GroupDescription>();
        out->set_group_id(g.group_id);
        out->set_state(std::string{state_name(g.state)});
        out->set_group_type("classic");
        out->set_generation(g.generation_id);
        out->set_protocol_type(g.protocol_type);
        out->set_protocol(g.protocol_data);
        out->set_leader(g.leader);
        out->set_coordinator(broker_id_of(c, b));
        out->set_error_name("NONE");
        std::vector<topic_partition> assigned;
        for (auto& m : g.members) {
          auto* md = out->add_members();
          md->set_member_id(m.member_id);
          md->set_group_instance_id(m.group_instance_id);
          md->set_client_id(m.client_id);
          md->set_client_host(m.client_host);
          if (auto a = decode_assignment(m.assignment)) {
            add_partitions(md->mutable_assignment(), a->partitions);
            assigned.insert(assigned.end(), a->partitions.begin(),
                            a->partitions.end());
          }
        }
        add_lag(c, out, b, group, std::move(assigned));
      });
  });
}

void group_join(const call& c) {
  if (!c.allow_group(security::acl_operation::read, c.param(0)))
    return;
  pb::JoinRequest body;
  if (!read_body(c, body))
    return;
  if (!body.has_session_timeout_ms())
    return c.reply(v2::bad_request("field 'session_timeout_ms' is required"));
  if (body.protocols_size() == 0)
    return c.reply(v2::bad_request("field 'protocols' is required"));
  join_group_request jr;
  jr.group_id = c.param(0);
  jr.member_id = body.member_id();
  jr.group_instance_id = body.group_instance_id();
  jr.session_timeout_ms = body.session_timeout_ms();
  jr.rebalance_timeout_ms = body.rebalance_timeout_ms() > 0
                              ? body.rebalance_timeout_ms()
                              : body.session_timeout_ms();
  jr.protocol_type =
    body.protocol_type().empty() ? "consumer" : body.protocol_type();
  jr.client_id = body.client_id().empty() ? "rest" : body.client_id();
  jr.client_host = "/http";
  jr.require_known_member_id = false;
  for (auto& p : body.protocols()) {
    if (!p.has_name())
      return c.reply(v2::bad_request("every protocol needs a 'name'"));
    join_protocol jp{p.name(), {p.metadata().begin(), p.metadata().end()}};
    if (jp.metadata.empty()) {
      consumer_subscription s;
      s.topics.assign(p.topics().begin(), p.topics().end());
      jp.metadata = encode_subscription(s);
    }
    jr.protocols.push_back(std::move(jp));
  }
  with_coordinator(c, jr.group_id, [c, jr](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_code(e));
    // The JoinGroup barrier: this request is held until the rebalance.
    auto timeout = milliseconds{jr.rebalance_timeout_ms + 10000};
    c.ask<join_group_response>(
      b, jr,
      [c, group = jr.group_id](caf::expected<join_group_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "JoinGroup", false));
        forget_coordinator(c, group, res->error);
        pb::JoinResponse out;
        out.set_error_code(static_cast<int>(res->error));
        out.set_error_name(std::string{error_name(res->error)});
        out.set_generation_id(res->generation_id);
        out.set_protocol_type(res->protocol_type);
        out.set_protocol_name(res->protocol_name);
        out.set_leader(res->leader);
        out.set_member_id(res->member_id);
        for (auto& m : res->members) {
          auto* jm = out.add_members();
          jm->set_member_id(m.member_id);
          jm->set_group_instance_id(m.group_instance_id);
          jm->set_metadata(std::string(m.metadata.begin(), m.metadata.end()));
          if (auto s = decode_subscription(m.metadata))
            for (auto& t : s->topics)
              jm->add_topics(t);
        }
        c.reply(ok(out));
      },
      timeout);
  });
}

void group_sync(const call& c) {
  if (!c.allow_group(security::acl_operation::read, c.param(0)))
    return;
  pb::SyncRequest body;
  if (!read_body(c, body))
    return;
  if (!body.has_generation_id() || !body.has_member_id())
    return c.reply(v2::bad_request("fields 'generation_id' and 'member_id' "
                                   "are required"));
  sync_group_request sr;
  sr.group_id = c.param(0);
  sr.generation_id = body.generation_id();
  sr.member_id = body.member_id();
  sr.group_instance_id = body.group_instance_id();
  sr.protocol_type = body.protocol_type();
  sr.protocol_name = body.protocol_name();
  for (auto& a : body.assignments()) {
    if (!a.has_member_id())
      return c.reply(v2::bad_request("every assignment needs a 'member_id'"));
    sync_group_assignment sa{a.member_id(),
                             {a.assignment().begin(), a.assignment().end()}};
    if (sa.assignment.empty()) {
      consumer_assignment ca;
      for (auto& tp : a.partitions())
        for (auto p : tp.partitions())
          ca.partitions.push_back({tp.topic(), p});
      sa.assignment = encode_assignment(ca);
    }
    sr.assignments.push_back(std::move(sa));
  }
  with_coordinator(c, sr.group_id, [c, sr](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_code(e));
    c.ask<sync_group_response>(
      b, sr, [c, group = sr.group_id](caf::expected<sync_group_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "SyncGroup", false));
        forget_coordinator(c, group, res->error);
        pb::SyncResponse out;
        out.set_error_code(static_cast<int>(res->error));
        out.set_error_name(std::string{error_name(res->error)});
        out.set_protocol_type(res->protocol_type);
        out.set_protocol_name(res->protocol_name);
        out.set_assignment(
          std::string(res->assignment.begin(), res->assignment.end()));
        if (auto a = decode_assignment(res->assignment))
          add_partitions(out.mutable_partitions(), a->partitions);
        c.reply(ok(out));
      });
  });
}

void group_heartbeat(const call& c) {
  if (!c.allow_group(security::acl_operation::read, c.param(0)))
    return;
  // The hottest /v1 route reads its small body with json_value rather than
  // protobuf's JSON mapping (a third of its cost); same strictness.
  auto& req = c.request();
  if (!is_json_body(req.content_type))
    return c.reply(v2::unsupported_media_type("expected a JSON body, got "
                                              + req.content_type));
  json_value body;
  std::string err;
  if (!parse_json(req.body.empty() ? std::string_view{"{}"} : req.body, body,
                  err))
    return c.reply(v2::bad_request("malformed JSON: " + err));
  if (body.type != json_value::kind::object)
    return c.reply(v2::bad_request("the body must be a JSON object"));
  heartbeat_request hr;
  hr.group_id = c.param(0);
  bool has_generation = false;
  bool has_member = false;
  for (auto& [name, v] : body.members) {
    int64_t n = 0;
    if (name == "generation_id") {
      if (v.type != json_value::kind::number || !parse_int(v.text, n)
          || n < INT32_MIN || n > INT32_MAX)
        return c.reply(v2::bad_request("generation_id must be an integer"));
      hr.generation_id = static_cast<int32_t>(n);
      has_generation = true;
    } else if (name == "member_id" || name == "group_instance_id") {
      if (v.type != json_value::kind::string)
        return c.reply(v2::bad_request(name + " must be a string"));
      (name == "member_id" ? hr.member_id : hr.group_instance_id) = v.text;
      has_member = has_member || name == "member_id";
    } else {
      return c.reply(v2::bad_request("unknown field '" + name + "'"));
    }
  }
  if (!has_generation || !has_member)
    return c.reply(v2::bad_request("fields 'generation_id' and 'member_id' "
                                   "are required"));
  with_coordinator(c, hr.group_id, [c, hr](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_code(e));
    c.ask<heartbeat_response>(
      b, hr, [c, group = hr.group_id](caf::expected<heartbeat_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "Heartbeat", false));
        forget_coordinator(c, group, res->error);
        c.reply(kafka_code(res->error));
      });
  });
}

void group_leave(const call& c) {
  if (!c.allow_group(security::acl_operation::read, c.param(0)))
    return;
  pb::LeaveRequest body;
  if (!read_body(c, body))
    return;
  if (!body.has_member_id())
    return c.reply(v2::bad_request("field 'member_id' is required"));
  leave_group_request lr{c.param(0),
                         {{body.member_id(), body.group_instance_id()}}};
  with_coordinator(c, lr.group_id, [c, lr](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_code(e));
    c.ask<leave_group_response>(
      b, lr, [c, group = lr.group_id](caf::expected<leave_group_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "LeaveGroup", false));
        auto e = res->error;
        if (e == error_code::none && !res->members.empty())
          e = res->members[0].error;
        forget_coordinator(c, group, e);
        c.reply(kafka_code(e));
      });
  });
}

void group_commit(const call& c) {
  if (!c.allow_group(security::acl_operation::read, c.param(0)))
    return;
  pb::CommitRequest body;
  if (!read_body(c, body))
    return;
  offset_commit_request cr;
  cr.group_id = c.param(0);
  cr.generation_id = body.generation_id();
  cr.member_id = body.member_id();
  for (auto& o : body.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return c.reply(v2::bad_request("every offset needs 'topic', "
                                     "'partition' and 'offset'"));
    offset_commit_partition p;
    p.topic = o.topic();
    p.partition = o.partition();
    p.offset = o.offset();
    p.metadata = o.metadata();
    cr.partitions.push_back(std::move(p));
  }
  std::vector<std::string> topics;
  for (auto& p : cr.partitions)
    topics.push_back(p.topic);
  if (!c.allow_topics(security::acl_operation::read, topics))
    return;
  with_coordinator(c, cr.group_id, [c, cr](broker_actor b, error_code e) {
    if (!b)
      return c.reply(kafka_code(e));
    c.ask<offset_commit_response>(
      b, cr,
      [c, group = cr.group_id](caf::expected<offset_commit_response> res) {
        if (!res)
          return c.reply(ask_failed(res.error(), "OffsetCommit", false));
        pb::CommitResponse out;
        auto top = error_code::none;
        for (auto& p : res->partitions) {
          auto* pe = out.add_partitions();
          pe->set_topic(p.topic);
          pe->set_partition(p.partition);
          pe->set_error_code(static_cast<int>(p.error));
          pe->set_error_name(std::string{error_name(p.error)});
          if (top == error_code::none)
            top = p.error;
        }
        forget_coordinator(c, group, top);
        out.set_error_code(static_cast<int>(top));
        out.set_error_name(std::string{error_name(top)});
        c.reply(ok(out));
      });
  });
}

} // namespace troupe::rest
