#include "cluster/zookeeper_session.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace troupe {

namespace {

using cluster::zk_error;
using kind = zk_operation::kind;

int32_t code(zk_error e) {
  return static_cast<int32_t>(e);
}

/// A handler for the client: runs on ZooKeeper's thread and only posts the
/// result back to the session actor. A weak handle: a session that is gone
/// gets nothing.
template <class Fill>
auto post(zookeeper_session_ptr self, uint64_t id, Fill fill) {
  caf::weak_actor_ptr weak = self->ctrl();
  return [weak, id, fill](auto result) {
    if (auto strong = weak.lock()) {
      zk_completion c{id, {}};
      fill(c.result, result);
      caf::anon_send(caf::actor_cast<zookeeper_session_actor>(strong),
                     std::move(c));
    }
  };
}

cluster::create_mode mode_of(const zk_operation& op) {
  if (op.sequential)
    return op.ephemeral ? cluster::create_mode::ephemeral_sequential
                        : cluster::create_mode::persistent_sequential;
  return op.ephemeral ? cluster::create_mode::ephemeral
                      : cluster::create_mode::persistent;
}

void start(zookeeper_session_ptr self, uint64_t id, const zk_operation& op) {
  auto& zk = *self->state.client;
  auto path = op.path;
  switch (op.type) {
    case kind::create:
    case kind::create_recursive: {
      auto done = post(self, id, [](zk_result& r, cluster::create_result x) {
        r.error = code(x.error);
        r.path = std::move(x.path);
      });
      if (op.type == kind::create)
        zk.create(op.path, op.data, mode_of(op), done);
      else
        zk.create_recursive(op.path, op.data, mode_of(op), done);
      return;
    }
    case kind::remove:
      zk.remove(op.path, op.version,
                post(self, id, [path](zk_result& r, zk_error x) {
                  r.error = code(x);
                  r.path = path;
                }));
      return;
    case kind::set:
      zk.set(op.path, op.data, op.version,
             post(self, id, [path](zk_result& r, cluster::stat_result x) {
               r.error = code(x.error);
               r.path = path;
               r.version = x.stat.version;
             }));
      return;
    case kind::get:
      zk.get(op.path, op.watch,
             post(self, id, [path](zk_result& r, cluster::data_result x) {
               r.error = code(x.error);
               r.path = path;
               r.data = std::move(x.data);
               r.version = x.stat.version;
               r.ephemeral_owner = x.stat.ephemeral_owner;
               r.ctime_ms = x.stat.ctime;
             }));
      return;
    case kind::exists:
    case kind::check:
      zk.exists(op.path, op.watch,
                post(self, id, [path](zk_result& r, cluster::stat_result x) {
                  r.error = code(x.error);
                  r.path = path;
                  r.version = x.stat.version;
                  r.ephemeral_owner = x.stat.ephemeral_owner;
                  r.ctime_ms = x.stat.ctime;
                }));
      return;
    case kind::children:
      zk.get_children(
        op.path, op.watch,
        post(self, id, [path](zk_result& r, cluster::children_result x) {
          r.error = code(x.error);
          r.path = path;
          r.children = std::move(x.children);
          r.version = x.stat.cversion;
        }));
      return;
  }
}

cluster::zk_op to_op(const zk_operation& op) {
  switch (op.type) {
    case kind::create:
    case kind::create_recursive:
      return cluster::zk_op::create(op.path, op.data, mode_of(op));
    case kind::remove:
      return cluster::zk_op::remove(op.path, op.version);
    case kind::set:
      return cluster::zk_op::set(op.path, op.data, op.version);
    default:
      return cluster::zk_op::check(op.path, op.version);
  }
}

template <class Request>
caf::result<zk_result> begin(zookeeper_session_ptr self, Request&& run) {
  auto& st = self->state;
  if (!st.client)
    return zk_result{code(zk_error::invalid_state), {}, {}, -1, 0, {}, {}};
  auto id = st.next_id++;
  auto rp = self->make_response_promise<zk_result>();
  st.pending.emplace(id, rp);
  run(id);
  return rp;
}

} // namespace

zookeeper_session_actor::behavior_type
zookeeper_session(zookeeper_session_ptr self, cluster::zookeeper_config config,
                  zookeeper_owner_actor owner) {
  auto& st = self->state;
  st.owner = std::move(owner);
  // Session and watch events, like results, become messages to the owner.
  auto to_owner = st.owner;
  auto connected = cluster::zookeeper_client::connect(
    std::move(config),
    [to_owner](const cluster::session_event& e) {
      caf::anon_send(to_owner,
                     zk_session_event{static_cast<int32_t>(e.state),
                                      e.session_id, e.negotiated_timeout_ms});
    },
    [to_owner](const cluster::watch_event& e) {
      caf::anon_send(to_owner,
                     zk_watch_event{static_cast<int32_t>(e.kind), e.path});
    });
  if (auto err = std::get_if<std::string>(&connected)) {
    spdlog::error("zookeeper: {}", *err);
    self->quit(caf::make_error(caf::sec::invalid_argument, *err));
    return {
      [](zk_request&) -> caf::result<zk_result> {
        return caf::make_error(caf::sec::invalid_argument);
      },
      [](zk_multi_request&) -> caf::result<zk_result> {
        return caf::make_error(caf::sec::invalid_argument);
      },
      [](zk_completion&) {},
      [](zk_reconnect&) {},
    };
  }
  st.client =
    std::move(std::get<std::unique_ptr<cluster::zookeeper_client>>(connected));
  // Whatever is still pending when the session actor ends gets an answer.
  self->attach_functor([self] {
    for (auto& [id, rp] : self->state.pending)
      rp.deliver(zk_result{code(zk_error::closing), {}, {}, -1, 0, {}, {}});
    self->state.pending.clear();
    self->state.client.reset();
  });
  return {
    [self](zk_request& req) {
      return begin(self, [&](uint64_t id) { start(self, id, req.op); });
    },
    [self](zk_multi_request& req) {
      return begin(self, [&](uint64_t id) {
        std::vector<cluster::zk_op> ops;
        for (auto& op : req.ops)
          ops.push_back(to_op(op));
        self->state.client->multi(
          std::move(ops),
          post(self, id, [](zk_result& r, cluster::multi_result x) {
            r.error = code(x.error);
            for (auto e : x.op_errors)
              r.op_errors.push_back(code(e));
          }));
      });
    },
    [self](zk_completion& c) {
      auto& pending = self->state.pending;
      auto i = pending.find(c.id);
      if (i == pending.end())
        return;
      i->second.deliver(std::move(c.result));
      pending.erase(i);
    },
    [self](zk_reconnect&) {
      if (auto err = self->state.client->reconnect(); !err.empty())
        spdlog::error("zookeeper: no new session: {}", err);
    },
  };
}

} // namespace troupe
