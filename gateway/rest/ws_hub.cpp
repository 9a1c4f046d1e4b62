#include "gateway/rest/ws_hub.hpp"

#include <algorithm>
#include <map>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "client/consumer.hpp"
#include "gateway.pb.h"
#include "gateway/rest/json.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds close_timeout{10000};

struct member {
  ws_peer peer;
  /// The socket's principal's decisions (empty: everything allowed).
  access_check may;
  bool watching = false;
  std::string group;
  consumer_actor consumer;
  int32_t session_timeout_ms = 10000;
  uint64_t beat_epoch = 0;
  /// What the socket saw, to tell it a rebalance started even when it lost
  /// no partition.
  int32_t generation = 0;
  bool rebalancing = false;
};

struct hub_state {
  group_config limits;
  std::shared_ptr<const cluster_view> cluster;
  std::map<uint64_t, member> sockets;
  std::map<std::string, int32_t> last_generation;
  uint64_t generation_changes = 0;
  uint64_t group_transitions = 0;

  static inline const char* name = "ws_hub";
};

using hub_ptr = ws_hub_actor::stateful_pointer<hub_state>;

void send(const ws_peer& peer, const pb::WsEvent& ev) {
  peer.send(to_json(ev));
}

void fail(const ws_peer& peer, const std::string& message, bool close = true,
          error_code e = error_code::invalid_request) {
  pb::WsEvent ev;
  ev.set_type("error");
  ev.set_error_code(static_cast<int>(e));
  ev.set_error_name(std::string{error_name(e)});
  ev.set_message(message);
  send(peer, ev);
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

/// The socket a member's consumer belongs to: consumers are named "ws-<id>".
uint64_t socket_of(const std::string& consumer) {
  if (consumer.rfind("ws-", 0) != 0)
    return 0;
  return std::strtoull(consumer.c_str() + 3, nullptr, 10);
}

void close_consumer(hub_ptr self, consumer_actor c) {
  if (c)
    ask<consumer_status>(self, c, close_timeout, consumer_close{},
                         [](caf::expected<consumer_status>) {});
}

void arm_session(hub_ptr self, uint64_t id, member& m) {
  self->delayed_send(self, milliseconds{m.session_timeout_ms},
                     ws_expire{id, ++m.beat_epoch});
}

/// Turns a member's consumer event into pushed WebSocket events.
void on_consumer_event(hub_ptr self, consumer_event& e) {
  auto i = self->state.sockets.find(socket_of(e.consumer));
  if (i == self->state.sockets.end())
    return;
  auto& m = i->second;
  pb::WsEvent ev;
  ev.set_group(m.group);
  ev.set_member_id(e.member_id);
  ev.set_generation(e.generation);
  ev.set_leader(e.leader);
  ev.set_protocol(e.protocol);
  ev.set_at_ms(static_cast<double>(e.at_ms));
  add_tps(ev, e.partitions);
  switch (e.kind) {
    case consumer_event_kind::revoked:
      m.rebalancing = true;
      ev.set_type("rebalance");
      break;
    case consumer_event_kind::joined:
      // A rebalance that revoked nothing from us still started one.
      if (!m.rebalancing && m.generation > 0) {
        pb::WsEvent rb;
        rb.set_type("rebalance");
        rb.set_group(m.group);
        rb.set_member_id(e.member_id);
        rb.set_generation(m.generation);
        send(m.peer, rb);
      }
      m.rebalancing = false;
      m.generation = e.generation;
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
      break;
    case consumer_event_kind::failed:
      ev.set_type("error");
      ev.set_error_code(static_cast<int>(e.error));
      ev.set_error_name(std::string{error_name(e.error)});
      break;
  }
  send(m.peer, ev);
}

void on_group_event(hub_ptr self, group_event& ev) {
  auto& st = self->state;
  ++st.group_transitions;
  auto& g = st.last_generation[ev.group_id];
  if (ev.generation != g) {
    g = ev.generation;
    ++st.generation_changes;
  }
  pb::WsEvent out;
  out.set_type("group");
  out.set_group(ev.group_id);
  out.set_from(std::string{state_name(ev.from)});
  out.set_to(std::string{state_name(ev.to)});
  out.set_generation(ev.generation);
  out.set_reason(ev.reason);
  out.set_at_ms(static_cast<double>(ev.at_ms));
  out.set_members(static_cast<int32_t>(ev.members));
  out.set_leader_id(ev.leader);
  out.set_protocol(ev.protocol);
  auto text = to_json(out);
  // A watcher sees the groups its principal may DESCRIBE (DescribeGroups).
  for (auto& [id, m] : st.sockets)
    if (m.watching
        && (!m.may
            || m.may(security::acl_operation::describe,
                     security::resource_type::group, ev.group_id)))
      m.peer.send(text);
}

void join(hub_ptr self, uint64_t id, member& m, const pb::WsRequest& req) {
  auto& st = self->state;
  if (req.group().empty() || req.topics_size() == 0)
    return fail(m.peer, "join needs 'group' and 'topics'");
  // As JoinGroup and the fetches behind a member: READ on the group and on
  // every topic (docs/ARCHITECTURE.md §9).
  using security::acl_operation;
  using security::resource_type;
  if (m.may && !m.may(acl_operation::read, resource_type::group, req.group()))
    return fail(m.peer, "Not authorized to access group: " + req.group(), false,
                error_code::group_authorization_failed);
  if (m.may) {
    std::string denied;
    for (auto& t : req.topics())
      if (!m.may(acl_operation::read, resource_type::topic, t))
        denied += (denied.empty() ? "" : ", ") + t;
    if (!denied.empty())
      return fail(m.peer, "Not authorized to access topics: [" + denied + "]",
                  false, error_code::topic_authorization_failed);
  }
  if (m.consumer)
    return fail(m.peer,
                "this socket already joined a group; open another socket "
                "per member",
                false);
  consumer_config c;
  c.name = "ws-" + std::to_string(id);
  c.client_id = req.client_id().empty() ? c.name : req.client_id();
  c.group_id = req.group();
  c.topics.assign(req.topics().begin(), req.topics().end());
  c.assignors = {"range"};
  if (req.assignors_size() > 0)
    c.assignors.assign(req.assignors().begin(), req.assignors().end());
  c.session_timeout_ms =
    req.session_timeout_ms() > 0 ? req.session_timeout_ms() : 10000;
  if (c.session_timeout_ms < st.limits.min_session_timeout_ms
      || c.session_timeout_ms > st.limits.max_session_timeout_ms)
    return fail(m.peer, "session_timeout_ms out of range", false,
                error_code::invalid_session_timeout);
  c.heartbeat_interval_ms = std::max(100, c.session_timeout_ms / 3);
  c.max_poll_interval_ms = req.rebalance_timeout_ms() > 0
                             ? req.rebalance_timeout_ms()
                             : c.session_timeout_ms;
  if (!st.cluster)
    return fail(m.peer, "the node is not up yet", false,
                error_code::coordinator_not_available);
  m.group = c.group_id;
  m.session_timeout_ms = c.session_timeout_ms;
  event_listener_actor listener = self;
  c.bootstrap_servers = st.cluster->broker_handles();
  m.consumer = self->spawn<consumer>(c, st.cluster->bootstrap(), listener);
  arm_session(self, id, m);
}

void commit(hub_ptr self, member& m, const pb::WsRequest& req) {
  if (!m.consumer)
    return fail(m.peer, "commit before join", false);
  std::vector<offset_commit_partition> commits;
  for (auto& o : req.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return fail(m.peer, "every offset needs topic, partition, offset", false);
    if (m.may
        && !m.may(security::acl_operation::read, security::resource_type::topic,
                  o.topic()))
      return fail(m.peer, "Not authorized to access topics: [" + o.topic() + "]",
                  false, error_code::topic_authorization_failed);
    offset_commit_partition p;
    p.topic = o.topic();
    p.partition = o.partition();
    p.offset = o.offset();
    commits.push_back(std::move(p));
  }
  ask<offset_commit_response>(
    self, m.consumer, close_timeout, consumer_commit{commits},
    [peer = m.peer](caf::expected<offset_commit_response> res) {
      pb::WsEvent ev;
      ev.set_type("committed");
      auto e = res ? error_code::none : error_code::request_timed_out;
      if (res)
        for (auto& p : res->partitions)
          if (p.error != error_code::none)
            e = p.error;
      ev.set_error_code(static_cast<int>(e));
      ev.set_error_name(std::string{error_name(e)});
      send(peer, ev);
    });
}

void on_text(hub_ptr self, ws_text& msg) {
  auto i = self->state.sockets.find(msg.id);
  if (i == self->state.sockets.end())
    return;
  auto& m = i->second;
  pb::WsRequest req;
  std::string err;
  if (!from_json(msg.text, req, err))
    return fail(m.peer, "malformed message: " + err);
  if (!req.has_type())
    return fail(m.peer, "field 'type' is required");
  auto& type = req.type();
  if (type == "watch") {
    m.watching = true;
  } else if (type == "heartbeat") {
    if (m.consumer)
      arm_session(self, msg.id, m);
  } else if (type == "join") {
    join(self, msg.id, m, req);
  } else if (type == "commit") {
    commit(self, m, req);
  } else if (type == "leave") {
    close_consumer(self, std::exchange(m.consumer, {}));
  } else {
    fail(m.peer, "unknown message type '" + type + "'");
  }
}

void on_expire(hub_ptr self, ws_expire& x) {
  auto i = self->state.sockets.find(x.id);
  if (i == self->state.sockets.end())
    return;
  auto& m = i->second;
  if (x.epoch != m.beat_epoch || !m.consumer)
    return;
  spdlog::info("http: WebSocket member ws-{} of group {} sent no heartbeat "
               "within session.timeout.ms={}; it leaves the group",
               x.id, m.group, m.session_timeout_ms);
  fail(m.peer, "no heartbeat within session.timeout.ms", true,
       error_code::unknown_member_id);
  close_consumer(self, std::exchange(m.consumer, {}));
}

hub_stats stats_of(const hub_state& st) {
  hub_stats out;
  out.sockets = st.sockets.size();
  for (auto& [id, m] : st.sockets)
    if (m.consumer)
      ++out.members;
  out.generation_changes = st.generation_changes;
  out.group_transitions = st.group_transitions;
  return out;
}

ws_hub_actor::behavior_type hub(hub_ptr self, group_config limits) {
  self->state.limits = limits;
  // The members' consumers go with the hub.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    for (auto& [id, m] : self->state.sockets)
      if (m.consumer)
        self->send_exit(m.consumer, msg.reason);
    self->quit(msg.reason);
  });
  return {
    [self](consumer_event& e) { on_consumer_event(self, e); },
    [self](group_event& e) { on_group_event(self, e); },
    [self](hub_attach& a) { self->state.cluster = std::move(a.cluster); },
    [self](ws_opened& o) {
      auto& m = self->state.sockets[o.id];
      m.peer = std::move(o.peer);
      m.may = std::move(o.may);
    },
    [self](ws_text& t) { on_text(self, t); },
    [self](ws_gone& g) {
      auto i = self->state.sockets.find(g.id);
      if (i == self->state.sockets.end())
        return;
      // Closing the socket leaves the group at once (LeaveGroup, no session
      // timeout to wait for).
      close_consumer(self, i->second.consumer);
      self->state.sockets.erase(i);
    },
    [self](ws_expire& x) { on_expire(self, x); },
    [self](hub_stats_request&) { return stats_of(self->state); },
    [self](hub_close&) -> caf::result<hub_stats> {
      std::vector<std::pair<consumer_actor, consumer_close>> closes;
      for (auto& [id, m] : self->state.sockets)
        if (m.consumer)
          closes.emplace_back(std::exchange(m.consumer, {}), consumer_close{});
      auto rp = self->make_response_promise<hub_stats>();
      ask_all<consumer_status>(
        self, std::move(closes), close_timeout,
        [self, rp](std::vector<caf::expected<consumer_status>>) mutable {
          rp.deliver(stats_of(self->state));
        });
      return rp;
    },
  };
}

} // namespace

ws_hub_actor spawn_ws_hub(caf::actor_system& sys, group_config limits) {
  return sys.spawn(hub, limits);
}

} // namespace troupe::rest
