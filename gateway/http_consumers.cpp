// REST Proxy v2 consumer instances and /v1/ws member sessions. Both are
// troupe's client-side consumer actor (actors/consumer.hpp) driven from
// HTTP: the actor joins, runs the assignor when it leads, syncs and
// heartbeats; the gateway adds positions, long-poll fetches and commits.

#include <algorithm>
#include <chrono>
#include <future>

#include <spdlog/spdlog.h>

#include "actors/consumer.hpp"
#include "domain/log/record_batch.hpp"
#include "gateway.pb.h"
#include "gateway/http_api_impl.hpp"
#include "gateway/http_util.hpp"

namespace pb = troupe::gateway;

namespace troupe {

using namespace troupe::http;
using api_ptr = std::shared_ptr<http_api::impl>;
using instance_ptr = std::shared_ptr<consumer_instance>;

namespace {

http_response instance_not_found(const std::string& group,
                                 const std::string& name) {
  return error(404, 40403, "CONSUMER_INSTANCE_NOT_FOUND",
               "Consumer instance " + name + " of group " + group
                 + " not found.");
}

instance_ptr find_instance(api_ptr& api, const std::string& group,
                           const std::string& name) {
  std::lock_guard<std::mutex> guard{api->mtx};
  auto i = api->instances.find({group, name});
  return i == api->instances.end() ? nullptr : i->second;
}

bool json_body(const http_request& req, google::protobuf::Message& msg,
               http_reply_fn& reply) {
  if (!req.content_type.empty()
      && req.content_type.find("json") == std::string::npos) {
    reply(
      error(415, 415, "UNSUPPORTED_MEDIA_TYPE",
            "expected application/vnd.kafka.v2+json, got " + req.content_type));
    return false;
  }
  std::string err;
  if (!from_json(req.body.empty() ? "{}" : req.body, msg, err)) {
    reply(bad_request(err));
    return false;
  }
  return true;
}

/// A property value given as a string, as the REST Proxy takes them.
bool parse_ms(const std::string& text, int32_t& out) {
  if (text.empty())
    return true;
  try {
    size_t used = 0;
    auto v = std::stol(text, &used);
    if (used != text.size() || v <= 0 || v > 86400000)
      return false;
    out = static_cast<int32_t>(v);
    return true;
  } catch (...) {
    return false;
  }
}

google::protobuf::Value to_value(const std::optional<bytes>& data) {
  google::protobuf::Value v;
  if (!data) {
    v.set_null_value(google::protobuf::NULL_VALUE);
    return v;
  }
  std::string text(data->begin(), data->end());
  std::string err;
  if (!from_json(text, v, err))
    v.set_string_value(text); // not JSON (e.g. produced by kcat)
  return v;
}

/// Call without holding api->mtx or an instance's mutex: it asks for a
/// bootstrap broker.
consumer_actor spawn_consumer(api_ptr& api, const consumer_instance& inst,
                              event_listener_actor listener = {}) {
  consumer_config c;
  c.name = inst.name;
  c.client_id = inst.name;
  c.group_id = inst.group;
  c.topics = inst.topics;
  c.assignors = inst.assignors;
  c.session_timeout_ms = inst.session_timeout_ms;
  c.heartbeat_interval_ms = inst.heartbeat_interval_ms;
  c.max_poll_interval_ms = inst.max_poll_interval_ms;
  c.bootstrap_servers = api->node.brokers;
  return api->sys.spawn(consumer, c, api->bootstrap(), listener);
}

void close_consumer(
  api_ptr& api, consumer_actor c, std::function<void()> done = [] {}) {
  ask<consumer_status>(
    api->sys, std::move(c), consumer_close{}, [done](auto) { done(); },
    milliseconds{10000});
}

// -- polling -------------------------------------------------------------------------

struct poll_ctx {
  api_ptr api;
  instance_ptr inst;
  http_reply_fn reply;
  int32_t timeout_ms = 1000;
  int32_t max_bytes = 1048576;
  std::vector<topic_partition> assignment;
  std::map<topic_partition, int32_t> leaders;
};

using poll_ptr = std::shared_ptr<poll_ctx>;

void fetch_records(poll_ptr ctx) {
  std::vector<std::pair<topic_partition, int64_t>> from;
  {
    std::lock_guard<std::mutex> guard{ctx->inst->mtx};
    for (auto& tp : ctx->assignment) {
      auto i = ctx->inst->positions.find(tp);
      if (i != ctx->inst->positions.end())
        from.emplace_back(tp, i->second);
    }
  }
  if (from.empty())
    return ctx->reply(json(200, "[]"));
  struct gather {
    std::mutex mtx;
    size_t outstanding;
    bool answered = false;
  };
  auto g = std::make_shared<gather>();
  g->outstanding = from.size();
  for (auto& [tp, pos] : from) {
    fetch_request fr;
    fr.partition = tp;
    fr.offset = pos;
    fr.max_bytes = ctx->max_bytes;
    fr.max_wait_ms = ctx->timeout_ms;
    fr.min_bytes = 1;
    auto leader = ctx->api->broker_by_id(ctx->leaders[tp]);
    ask<fetch_response>(
      ctx->api->sys, leader, fr,
      [ctx, g, tp = tp, pos = pos](std::optional<fetch_response> res) {
        std::vector<pb::ConsumerRecord> out;
        if (res && res->error == error_code::offset_out_of_range) {
          std::lock_guard<std::mutex> guard{ctx->inst->mtx};
          ctx->inst->positions.erase(tp); // re-resolved on the next poll
        } else if (res && res->error == error_code::none) {
          const uint8_t* p = res->records.data();
          size_t n = res->records.size();
          while (n > 0) {
            auto size = next_batch_size(p, n);
            if (!size || *size > n)
              break;
            if (auto recs = decode_records(p, *size))
              for (auto& r : *recs) {
                if (r.offset < pos)
                  continue;
                pb::ConsumerRecord cr;
                cr.set_topic(tp.topic);
                cr.set_partition(tp.partition);
                cr.set_offset(r.offset);
                *cr.mutable_key() = to_value(r.key);
                *cr.mutable_value() = to_value(r.value);
                out.push_back(std::move(cr));
              }
            p += *size;
            n -= *size;
          }
        }
        std::lock_guard<std::mutex> guard{g->mtx};
        --g->outstanding;
        if (g->answered || (out.empty() && g->outstanding > 0))
          return;
        g->answered = true;
        if (!out.empty()) {
          std::lock_guard<std::mutex> inst_guard{ctx->inst->mtx};
          auto i = ctx->inst->positions.find(tp);
          // A concurrent poll that moved the position first wins.
          if (i == ctx->inst->positions.end() || i->second != pos) {
            out.clear();
          } else {
            i->second = out.back().offset() + 1;
          }
        }
        ctx->reply(json(200, to_json_array(out)));
      },
      milliseconds{ctx->timeout_ms + 10000});
  }
}

/// Positions for newly assigned partitions: the committed offset, else
/// auto.offset.reset.
void resolve_positions(poll_ptr ctx) {
  std::vector<topic_partition> missing;
  {
    std::lock_guard<std::mutex> guard{ctx->inst->mtx};
    auto& pos = ctx->inst->positions;
    for (auto i = pos.begin(); i != pos.end();)
      if (std::find(ctx->assignment.begin(), ctx->assignment.end(), i->first)
          == ctx->assignment.end())
        i = pos.erase(i);
      else
        ++i;
    for (auto& tp : ctx->assignment)
      if (!pos.count(tp))
        missing.push_back(tp);
  }
  if (missing.empty())
    return fetch_records(ctx);
  ask<find_coordinator_response>(
    ctx->api->sys, ctx->api->bootstrap(),
    find_coordinator_request{ctx->inst->group}, [ctx, missing](auto fc) {
      auto b = fc ? caf::actor_cast<broker_actor>(fc->broker) : broker_actor{};
      ask<offset_fetch_response>(
        ctx->api->sys, b, offset_fetch_request{ctx->inst->group, missing},
        [ctx, missing](auto offs) {
          std::map<topic_partition, int64_t> committed;
          if (offs)
            for (auto& o : offs->partitions)
              if (o.error == error_code::none && o.offset >= 0)
                committed[{o.topic, o.partition}] = o.offset;
          std::vector<topic_partition> reset;
          std::vector<std::pair<broker_actor, list_offsets_request>> reqs;
          auto ts = ctx->inst->offset_reset == "earliest" ? -2 : -1;
          for (auto& tp : missing)
            if (!committed.count(tp)) {
              reset.push_back(tp);
              reqs.emplace_back(ctx->api->broker_by_id(ctx->leaders[tp]),
                                list_offsets_request{tp, ts});
            }
          ask_all<list_offsets_response>(
            ctx->api->sys, std::move(reqs), [ctx, committed, reset](auto ends) {
              {
                std::lock_guard<std::mutex> guard{ctx->inst->mtx};
                auto& pos = ctx->inst->positions;
                for (auto& [tp, o] : committed)
                  pos.emplace(tp, o);
                for (size_t i = 0; i < reset.size(); ++i)
                  if (ends[i] && ends[i]->error == error_code::none)
                    pos.emplace(reset[i], ends[i]->offset);
              }
              fetch_records(ctx);
            });
        });
    });
}

void poll_assigned(poll_ptr ctx) {
  std::vector<std::string> topics;
  for (auto& tp : ctx->assignment)
    if (std::find(topics.begin(), topics.end(), tp.topic) == topics.end())
      topics.push_back(tp.topic);
  ask<metadata_response>(ctx->api->sys, ctx->api->bootstrap(),
                         metadata_request{topics, false}, [ctx](auto md) {
                           if (md)
                             for (auto& t : md->topics)
                               for (auto& p : t.partition_states)
                                 ctx->leaders[{t.name, p.partition}] = p.leader;
                           resolve_positions(ctx);
                         });
}

} // namespace

// -- instances -----------------------------------------------------------------------------

void create_instance(api_ptr api, const std::string& group,
                     const http_request& req, http_reply_fn reply) {
  pb::CreateConsumerRequest body;
  if (!json_body(req, body, reply))
    return;
  auto inst = std::make_shared<consumer_instance>();
  inst->group = group;
  auto bad_config = [&](const std::string& what) {
    reply(error(422, 42204, "INVALID_CONSUMER_CONFIG", what));
  };
  auto reset = body.auto_offset_reset();
  if (!reset.empty() && reset != "earliest" && reset != "latest"
      && reset != "none")
    return bad_config("auto.offset.reset must be earliest, latest or none");
  if (!reset.empty())
    inst->offset_reset = reset;
  auto commit = body.auto_commit_enable();
  if (!commit.empty() && commit != "true" && commit != "false")
    return bad_config("auto.commit.enable must be \"true\" or \"false\"");
  inst->auto_commit = commit != "false";
  if (!body.format().empty() && body.format() != "json")
    return bad_config("format must be json (binary and avro are not "
                      "supported)");
  if (!parse_ms(body.max_poll_interval_ms(), inst->max_poll_interval_ms)
      || !parse_ms(body.session_timeout_ms(), inst->session_timeout_ms)
      || !parse_ms(body.heartbeat_interval_ms(), inst->heartbeat_interval_ms))
    return bad_config("timeouts must be positive integers in ms");
  auto& gc = api->cluster.group;
  if (inst->session_timeout_ms < gc.min_session_timeout_ms
      || inst->session_timeout_ms > gc.max_session_timeout_ms)
    return bad_config("session.timeout.ms must lie within "
                      "group.min.session.timeout.ms and "
                      "group.max.session.timeout.ms");
  if (!body.partition_assignment_strategy().empty())
    inst->assignors = {body.partition_assignment_strategy()};
  bool duplicate = false;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    inst->name = body.name().empty()
                   ? "rest-consumer-" + std::to_string(api->next_instance++)
                   : body.name();
    inst->last_poll = std::chrono::steady_clock::now();
    duplicate =
      !api->instances.emplace(std::make_pair(group, inst->name), inst).second;
  }
  if (duplicate)
    return reply(error(409, 40902, "CONSUMER_ALREADY_EXISTS",
                       "Consumer with specified consumer ID already "
                       "exists in the specified consumer group."));
  pb::CreateConsumerResponse out;
  out.set_instance_id(inst->name);
  out.set_base_uri(api->config.base_uri + "/consumers/" + group + "/instances/"
                   + inst->name);
  reply(json(200, to_json(out)));
}

void subscribe_instance(api_ptr api, const std::string& group,
                        const std::string& name, const http_request& req,
                        http_reply_fn reply) {
  pb::SubscriptionRequest body;
  if (!json_body(req, body, reply))
    return;
  if (!body.topic_pattern().empty())
    return reply(bad_request("topic_pattern is not supported; list topics"));
  if (body.topics_size() == 0)
    return reply(bad_request("field 'topics' is required and not empty"));
  auto inst = find_instance(api, group, name);
  if (!inst)
    return reply(instance_not_found(group, name));
  consumer_actor old;
  consumer_instance spec;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    inst->topics.assign(body.topics().begin(), body.topics().end());
    spec.group = inst->group;
    spec.name = inst->name;
    spec.topics = inst->topics;
    spec.assignors = inst->assignors;
    spec.session_timeout_ms = inst->session_timeout_ms;
    spec.heartbeat_interval_ms = inst->heartbeat_interval_ms;
    spec.max_poll_interval_ms = inst->max_poll_interval_ms;
  }
  auto fresh = spawn_consumer(api, spec);
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    old = std::exchange(inst->consumer, fresh);
    inst->positions.clear();
    inst->last_poll = std::chrono::steady_clock::now();
  }
  if (old)
    close_consumer(api, old);
  http_response res;
  res.status = 204;
  reply(std::move(res));
}

void get_subscription(api_ptr api, const std::string& group,
                      const std::string& name, http_reply_fn reply) {
  auto inst = find_instance(api, group, name);
  if (!inst)
    return reply(instance_not_found(group, name));
  pb::SubscriptionRequest out;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    for (auto& t : inst->topics)
      out.add_topics(t);
  }
  reply(json(200, to_json(out)));
}

void poll_instance(api_ptr api, const std::string& group,
                   const std::string& name, const http_request& req,
                   http_reply_fn reply) {
  auto inst = find_instance(api, group, name);
  if (!inst)
    return reply(instance_not_found(group, name));
  auto ctx = std::make_shared<poll_ctx>();
  ctx->api = api;
  ctx->inst = inst;
  ctx->reply = std::move(reply);
  ctx->timeout_ms = api->config.default_poll_timeout_ms;
  auto q = req.query;
  for (auto key : {std::string{"timeout="}, std::string{"max_bytes="}}) {
    auto at = q.find(key);
    if (at == std::string::npos || (at > 0 && q[at - 1] != '&'))
      continue;
    int32_t v = 0;
    auto text = q.substr(at + key.size());
    text = text.substr(0, text.find('&'));
    if (!parse_ms(text, v) && text != "0")
      return ctx->reply(bad_request(key + " must be a positive integer"));
    if (key == "timeout=")
      ctx->timeout_ms = std::min(v, api->config.max_poll_timeout_ms);
    else
      ctx->max_bytes = v;
  }
  consumer_actor c;
  std::vector<offset_commit_partition> commits;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    inst->last_poll = std::chrono::steady_clock::now();
    c = inst->consumer;
    if (inst->auto_commit)
      for (auto& [tp, off] : inst->positions) {
        offset_commit_partition p;
        p.topic = tp.topic;
        p.partition = tp.partition;
        p.offset = off;
        commits.push_back(std::move(p));
      }
  }
  if (!c)
    return ctx->reply(error(409, 40903, "ILLEGAL_STATE",
                            "Consumer is not subscribed to any topics."));
  // enable.auto.commit: what the previous poll returned is committed now,
  // as the Java consumer does at the start of poll().
  if (!commits.empty())
    ask<offset_commit_response>(api->sys, c, consumer_commit{commits},
                                [](auto) {});
  ask<consumer_status>(api->sys, c, consumer_status_request{},
                       [ctx](std::optional<consumer_status> st) {
                         if (!st || st->assignment.empty()) {
                           // Still joining: hold the poll a little.
                           auto wait = std::min(ctx->timeout_ms, 500);
                           after(ctx->api->sys, milliseconds{wait},
                                 [ctx] { ctx->reply(json(200, "[]")); });
                           return;
                         }
                         ctx->assignment = st->assignment;
                         poll_assigned(ctx);
                       });
}

void commit_instance(api_ptr api, const std::string& group,
                     const std::string& name, const http_request& req,
                     http_reply_fn reply) {
  pb::CommitOffsetsRequest body;
  if (!json_body(req, body, reply))
    return;
  auto inst = find_instance(api, group, name);
  if (!inst)
    return reply(instance_not_found(group, name));
  std::vector<offset_commit_partition> commits;
  for (auto& o : body.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return reply(bad_request("every offset needs 'topic', 'partition' and "
                               "'offset'"));
    offset_commit_partition p;
    p.topic = o.topic();
    p.partition = o.partition();
    p.offset = o.offset() + 1; // the next record to read, as Java commits
    commits.push_back(std::move(p));
  }
  consumer_actor c;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    c = inst->consumer;
    if (body.offsets_size() == 0)
      for (auto& [tp, off] : inst->positions) {
        offset_commit_partition p;
        p.topic = tp.topic;
        p.partition = tp.partition;
        p.offset = off;
        commits.push_back(std::move(p));
      }
  }
  if (!c)
    return reply(error(409, 40903, "ILLEGAL_STATE",
                       "Consumer is not subscribed to any topics."));
  ask<offset_commit_response>(
    api->sys, c, consumer_commit{commits}, [reply](auto res) {
      if (!res)
        return reply(kafka_error(500, error_code::request_timed_out,
                                 "OffsetCommit timed out"));
      for (auto& p : res->partitions)
        if (p.error != error_code::none)
          return reply(kafka_error(409, p.error,
                                   "commit of " + p.topic + "-"
                                     + std::to_string(p.partition)
                                     + " failed"));
      http_response ok;
      ok.status = 204;
      reply(std::move(ok));
    });
}

void instance_assignments(api_ptr api, const std::string& group,
                          const std::string& name, http_reply_fn reply) {
  auto inst = find_instance(api, group, name);
  if (!inst)
    return reply(instance_not_found(group, name));
  consumer_actor c;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    c = inst->consumer;
  }
  if (!c)
    return reply(json(200, "{\"partitions\":[]}"));
  ask<consumer_status>(api->sys, c, consumer_status_request{},
                       [reply](auto st) {
                         pb::AssignmentsResponse out;
                         if (st)
                           for (auto& tp : st->assignment) {
                             auto* p = out.add_partitions();
                             p->set_topic(tp.topic);
                             p->set_partition(tp.partition);
                           }
                         reply(json(200, to_json(out)));
                       });
}

void delete_instance(api_ptr api, const std::string& group,
                     const std::string& name, http_reply_fn reply) {
  instance_ptr inst;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    auto i = api->instances.find({group, name});
    if (i == api->instances.end())
      return reply(instance_not_found(group, name));
    inst = i->second;
    api->instances.erase(i);
  }
  consumer_actor c;
  {
    std::lock_guard<std::mutex> guard{inst->mtx};
    inst->closed = true;
    c = std::exchange(inst->consumer, {});
  }
  auto done = [reply] {
    http_response res;
    res.status = 204;
    reply(std::move(res));
  };
  if (!c)
    return done();
  // LeaveGroup is sent before the answer: the group rebalances at once.
  close_consumer(api, c, done);
}

// -- WebSocket members ----------------------------------------------------------------------

namespace {

void ws_send(const ws_peer& peer, const pb::WsEvent& ev) {
  peer.send(to_json(ev));
}

void ws_fail(const ws_peer& peer, const std::string& message, bool close = true,
             error_code e = error_code::invalid_request) {
  pb::WsEvent ev;
  ev.set_type("error");
  ev.set_error_code(static_cast<int>(e));
  ev.set_error_name(std::string{error_name(e)});
  ev.set_message(message);
  ws_send(peer, ev);
  if (close)
    peer.close(message);
}

void add_tps(pb::WsEvent& ev, const std::vector<topic_partition>& tps) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (auto& tp : tps)
    by_topic[tp.topic].push_back(tp.partition);
  for (auto& [t, ps] : by_topic) {
    auto* x = ev.add_partitions();
    x->set_topic(t);
    for (auto p : ps)
      x->add_partitions(p);
  }
}

/// Turns the member's consumer events into pushed WebSocket events.
event_listener_actor spawn_ws_listener(caf::actor_system& sys, ws_peer peer,
                                       std::string group) {
  struct seen {
    int32_t generation = 0;
    bool rebalancing = false;
  };
  auto s = std::make_shared<seen>();
  return sys.spawn([peer, group, s](event_listener_actor::pointer self)
                     -> event_listener_actor::behavior_type {
    return {
      [peer, group, s, self](consumer_event& e) {
        pb::WsEvent ev;
        ev.set_group(group);
        ev.set_member_id(e.member_id);
        ev.set_generation(e.generation);
        ev.set_leader(e.leader);
        ev.set_protocol(e.protocol);
        ev.set_at_ms(e.at_ms);
        add_tps(ev, e.partitions);
        switch (e.kind) {
          case consumer_event_kind::revoked:
            s->rebalancing = true;
            ev.set_type("rebalance");
            break;
          case consumer_event_kind::joined:
            // A rebalance that revoked nothing from us still started one.
            if (!s->rebalancing && s->generation > 0) {
              pb::WsEvent rb;
              rb.set_type("rebalance");
              rb.set_group(group);
              rb.set_member_id(e.member_id);
              rb.set_generation(s->generation);
              ws_send(peer, rb);
            }
            s->rebalancing = false;
            s->generation = e.generation;
            ev.set_type("joined");
            break;
          case consumer_event_kind::assigned:
            ev.set_type("assignment");
            break;
          case consumer_event_kind::lost:
            ev.set_type("lost");
            break;
          case consumer_event_kind::left:
            ev.set_type("left");
            ws_send(peer, ev);
            self->quit();
            return;
          case consumer_event_kind::failed:
            ev.set_type("error");
            ev.set_error_code(static_cast<int>(e.error));
            ev.set_error_name(std::string{error_name(e.error)});
            break;
        }
        ws_send(peer, ev);
      },
      [](group_event&) {
        // nop
      },
    };
  });
}

std::shared_ptr<ws_member> find_member(api_ptr& api, uint64_t id) {
  std::lock_guard<std::mutex> guard{api->mtx};
  auto i = api->ws.find(id);
  return i == api->ws.end() ? nullptr : i->second;
}

} // namespace

uint64_t open_ws(api_ptr api, ws_peer peer) {
  auto m = std::make_shared<ws_member>();
  m->peer = std::move(peer);
  m->last_heartbeat = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> guard{api->mtx};
  auto id = api->next_ws++;
  api->ws.emplace(id, std::move(m));
  return id;
}

void on_ws_message(api_ptr api, uint64_t id, const std::string& text) {
  auto m = find_member(api, id);
  if (!m)
    return;
  pb::WsRequest req;
  std::string err;
  if (!from_json(text, req, err))
    return ws_fail(m->peer, "malformed message: " + err);
  if (!req.has_type())
    return ws_fail(m->peer, "field 'type' is required");
  auto& type = req.type();
  if (type == "watch") {
    std::lock_guard<std::mutex> guard{api->mtx};
    m->watching = true;
    return;
  }
  if (type == "heartbeat") {
    std::lock_guard<std::mutex> guard{api->mtx};
    m->last_heartbeat = std::chrono::steady_clock::now();
    return;
  }
  if (type == "join") {
    if (req.group().empty() || req.topics_size() == 0)
      return ws_fail(m->peer, "join needs 'group' and 'topics'");
    consumer_instance spec;
    spec.group = req.group();
    spec.name =
      req.client_id().empty() ? "ws-" + std::to_string(id) : req.client_id();
    spec.topics.assign(req.topics().begin(), req.topics().end());
    if (req.assignors_size() > 0)
      spec.assignors.assign(req.assignors().begin(), req.assignors().end());
    spec.session_timeout_ms =
      req.session_timeout_ms() > 0 ? req.session_timeout_ms() : 10000;
    auto& gc = api->cluster.group;
    if (spec.session_timeout_ms < gc.min_session_timeout_ms
        || spec.session_timeout_ms > gc.max_session_timeout_ms)
      return ws_fail(m->peer, "session_timeout_ms out of range", false,
                     error_code::invalid_session_timeout);
    spec.heartbeat_interval_ms = std::max(100, spec.session_timeout_ms / 3);
    spec.max_poll_interval_ms = req.rebalance_timeout_ms() > 0
                                  ? req.rebalance_timeout_ms()
                                  : spec.session_timeout_ms;
    bool joined = false;
    {
      std::lock_guard<std::mutex> guard{api->mtx};
      joined = m->joining;
      m->joining = true;
    }
    if (joined)
      return ws_fail(m->peer,
                     "this socket already joined a group; open "
                     "another socket per member",
                     false);
    auto c = spawn_consumer(api, spec,
                            spawn_ws_listener(api->sys, m->peer, spec.group));
    std::lock_guard<std::mutex> guard{api->mtx};
    m->group = spec.group;
    m->session_timeout_ms = spec.session_timeout_ms;
    m->last_heartbeat = std::chrono::steady_clock::now();
    if (api->ws.count(id)) {
      m->consumer = c;
      return;
    }
    // The socket closed meanwhile.
    close_consumer(api, c);
    return;
  }
  if (type == "commit") {
    consumer_actor c;
    {
      std::lock_guard<std::mutex> guard{api->mtx};
      c = m->consumer;
    }
    if (!c)
      return ws_fail(m->peer, "commit before join", false);
    std::vector<offset_commit_partition> commits;
    for (auto& o : req.offsets()) {
      if (!o.has_topic() || !o.has_partition() || !o.has_offset())
        return ws_fail(m->peer, "every offset needs topic, partition, offset",
                       false);
      offset_commit_partition p;
      p.topic = o.topic();
      p.partition = o.partition();
      p.offset = o.offset();
      commits.push_back(std::move(p));
    }
    auto peer = m->peer;
    ask<offset_commit_response>(
      api->sys, c, consumer_commit{commits}, [peer](auto res) {
        pb::WsEvent ev;
        ev.set_type("committed");
        auto e = res ? error_code::none : error_code::request_timed_out;
        if (res)
          for (auto& p : res->partitions)
            if (p.error != error_code::none)
              e = p.error;
        ev.set_error_code(static_cast<int>(e));
        ev.set_error_name(std::string{error_name(e)});
        ws_send(peer, ev);
      });
    return;
  }
  if (type == "leave") {
    consumer_actor c;
    {
      std::lock_guard<std::mutex> guard{api->mtx};
      c = std::exchange(m->consumer, {});
    }
    if (c)
      close_consumer(api, c);
    return;
  }
  ws_fail(m->peer, "unknown message type '" + type + "'");
}

void on_ws_closed(api_ptr api, uint64_t id) {
  std::shared_ptr<ws_member> m;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    auto i = api->ws.find(id);
    if (i == api->ws.end())
      return;
    m = i->second;
    api->ws.erase(i);
  }
  // Closing the socket leaves the group at once (LeaveGroup, no session
  // timeout to wait for).
  if (m->consumer)
    close_consumer(api, m->consumer);
}

void expire_idle(api_ptr api) {
  auto now = std::chrono::steady_clock::now();
  std::vector<instance_ptr> idle;
  std::vector<std::shared_ptr<ws_member>> silent;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    for (auto i = api->instances.begin(); i != api->instances.end();) {
      auto& inst = i->second;
      std::lock_guard<std::mutex> inst_guard{inst->mtx};
      if (inst->consumer
          && now - inst->last_poll > milliseconds{inst->max_poll_interval_ms}) {
        idle.push_back(inst);
        i = api->instances.erase(i);
      } else {
        ++i;
      }
    }
    for (auto& [id, m] : api->ws)
      if (m->consumer
          && now - m->last_heartbeat > milliseconds{m->session_timeout_ms})
        silent.push_back(m);
  }
  for (auto& inst : idle) {
    spdlog::info("http: consumer instance {} of group {} not polled within "
                 "max.poll.interval.ms={}; it leaves the group",
                 inst->name, inst->group, inst->max_poll_interval_ms);
    consumer_actor c;
    {
      std::lock_guard<std::mutex> guard{inst->mtx};
      inst->closed = true;
      c = std::exchange(inst->consumer, {});
    }
    close_consumer(api, c);
  }
  for (auto& m : silent) {
    consumer_actor c;
    {
      std::lock_guard<std::mutex> guard{api->mtx};
      c = std::exchange(m->consumer, {});
    }
    if (!c)
      continue;
    ws_fail(m->peer, "no heartbeat within session.timeout.ms", true,
            error_code::unknown_member_id);
    close_consumer(api, c);
  }
}

void close_all(api_ptr api) {
  std::vector<consumer_actor> all;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    for (auto& [key, inst] : api->instances) {
      std::lock_guard<std::mutex> inst_guard{inst->mtx};
      if (inst->consumer)
        all.push_back(std::exchange(inst->consumer, {}));
    }
    api->instances.clear();
    for (auto& [id, m] : api->ws)
      if (m->consumer)
        all.push_back(std::exchange(m->consumer, {}));
  }
  if (all.empty())
    return;
  auto left = std::make_shared<std::atomic<size_t>>(all.size());
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  for (auto& c : all)
    close_consumer(api, c, [left, done] {
      if (--*left == 0)
        done->set_value();
    });
  fut.wait_for(std::chrono::seconds(5));
}

} // namespace troupe
