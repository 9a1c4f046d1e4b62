// A cluster node's dynamic broker configs (docs/ARCHITECTURE.md §7): as a
// ZooKeeper-mode Kafka broker does, the node that receives the change
// writes /config/brokers/<id> itself (AdminZkClient.changeBrokerConfig,
// with a /config/changes notification for other readers of Kafka's
// layout) and every node follows its own znode with a watch, so a change
// made by another writer (kafka-configs.sh --zookeeper) applies too. The
// broker sets its replication quotas from what it is told.

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/timeouts.hpp"
#include "cluster/cluster_controller.hpp"
#include "cluster/zk_ops.hpp"
#include "cluster/zookeeper/zookeeper_client.hpp"

namespace troupe::node_agent {

namespace {

using zk_error = cluster::zk_error;
using kind = zk_operation::kind;
using zk_ops::is;
using zk_ops::zop;

/// zk_ask for a request that waits on a response promise: always called
/// back (CLOSING when the session went away meanwhile), so the promise is
/// answered on every path; zk_ask drops the answers of an older session.
void zk_ask_answered(cluster_controller_ptr self, zk_operation o,
                     std::function<void(zk_result&)> then) {
  self
    ->request(self->state.zk, cluster_request_timeout, zk_request{std::move(o)})
    .then([then](zk_result& r) { then(r); },
          [then](caf::error&) {
            zk_result r;
            r.error = static_cast<int32_t>(zk_error::closing);
            then(r);
          });
}

void tell_broker(cluster_controller_ptr self, broker_configs configs) {
  if (auto& b = self->state.broker)
    self->send(b, dynamic_broker_configs{std::move(configs)});
}

} // namespace

void watch_broker_configs(cluster_controller_ptr self) {
  auto path = zk::broker_config_path(self->state.broker_id);
  auto get = zop(kind::get, path);
  get.watch = true;
  zk_ask(self, std::move(get), [self, path](zk_result& r) {
    if (is(r, zk_error::ok)) {
      auto c = zk::decode_topic_config(r.data);
      if (!c) {
        spdlog::error("cluster: {} cannot be read: {}", path, c.error());
        return;
      }
      tell_broker(self, std::move(*c));
      return;
    }
    if (!is(r, zk_error::no_node))
      return; // the session is going; the next registration reads again
    // None yet: the broker runs with its static settings, and a watch
    // waits for the znode's creation.
    tell_broker(self, {});
    auto exists = zop(kind::exists, path);
    exists.watch = true;
    zk_ask(self, std::move(exists), [self](zk_result& e) {
      // Created in between: read it (and watch it) now.
      if (is(e, zk_error::ok))
        watch_broker_configs(self);
    });
  });
}

bool on_broker_configs_watch(cluster_controller_ptr self,
                             const std::string& path) {
  if (path != zk::broker_config_path(self->state.broker_id))
    return false;
  watch_broker_configs(self);
  return true;
}

caf::result<alter_broker_configs_response>
alter_broker_configs(cluster_controller_ptr self,
                     alter_broker_configs_request& req) {
  auto rp = self->make_response_promise<alter_broker_configs_response>();
  auto path = zk::broker_config_path(req.broker_id);
  auto fail = [rp](error_code e, std::string message) mutable {
    alter_broker_configs_response res;
    res.error = e;
    res.message = std::move(message);
    rp.deliver(std::move(res));
  };
  if (req.broker_id != self->state.broker_id) {
    fail(error_code::invalid_request, "Unexpected broker id, expected "
                                        + std::to_string(self->state.broker_id)
                                        + ", but received "
                                        + std::to_string(req.broker_id));
    return rp;
  }
  zk_ask_answered(
    self, zop(kind::get, path),
    [self, rp, req, path, fail](zk_result& r) mutable {
      bool exists = is(r, zk_error::ok);
      if (!exists && !is(r, zk_error::no_node)) {
        fail(error_code::unknown_server_error,
             "ZooKeeper did not answer; retry.");
        return;
      }
      broker_configs current;
      if (exists) {
        auto c = zk::decode_topic_config(r.data);
        if (c)
          current = std::move(*c);
      }
      broker_configs next;
      auto e = troupe::alter_broker_configs(req.broker_id, current, req.ops,
                                            req.incremental, next);
      if (!e.ok()) {
        fail(e.error, std::move(e.message));
        return;
      }
      alter_broker_configs_response res;
      res.configs = next;
      if (req.validate_only) {
        rp.deliver(std::move(res));
        return;
      }
      // AdminZkClient.changeEntityConfig: set or create the entity's
      // znode, then the change notification, in one multi (the
      // version check makes a concurrent writer's change fail this
      // one instead of being overwritten).
      std::vector<zk_operation> ops;
      auto data = zk::encode_topic_config(next);
      if (exists) {
        auto set = zop(kind::set, path, data);
        set.version = r.version;
        ops.push_back(std::move(set));
      } else {
        ops.push_back(zop(kind::create, path, data));
      }
      auto note =
        zop(kind::create, std::string{zk::config_change_prefix},
            zk::encode_config_change(zk::broker_entity_path(req.broker_id)));
      note.sequential = true;
      ops.push_back(std::move(note));
      zk_multi(self, std::move(ops),
               [self, rp, res, fail](zk_result& w) mutable {
                 if (!is(w, zk_error::ok)) {
                   fail(error_code::unknown_server_error,
                        "The change was not stored (it raced another "
                        "writer or ZooKeeper did not answer); retry.");
                   return;
                 }
                 spdlog::info("cluster: broker {} has new dynamic "
                              "configs",
                              self->state.broker_id);
                 tell_broker(self, res.configs);
                 rp.deliver(std::move(res));
               });
    });
  return rp;
}

} // namespace troupe::node_agent
