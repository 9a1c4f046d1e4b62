#include "cluster/cluster_node.hpp"

#include <caf/all.hpp>

#include "actors/broker.hpp"
#include "cluster/cluster_controller.hpp"
#include "cluster/zookeeper_session.hpp"

namespace troupe {

cluster_node
spawn_cluster_node(caf::actor_system& sys, const cluster_config& config,
                   std::vector<zk::broker_endpoint> endpoints,
                   event_listener_actor listener,
                   std::function<void(const std::string&)> fatal,
                   [[maybe_unused]] std::shared_ptr<security::security_store>
                     security) {
  cluster_node n;
  // The controller first: the session sends it its events and the broker
  // asks it for metadata; it learns of both from cluster_parts.
  n.controller = sys.spawn(cluster_controller, config, std::move(endpoints),
                           std::move(fatal));
  cluster::zookeeper_config zc{config.zookeeper.connect,
                               config.zookeeper.session_timeout_ms};
  n.zk = sys.spawn<caf::detached>(
    zookeeper_session, zc,
    caf::actor_cast<zookeeper_owner_actor>(n.controller));
  auto broker_id = config.zookeeper.broker_id;
  auto ctl = caf::actor_cast<controller_actor>(n.controller);
  auto b = sys.spawn(broker, broker_id, config, ctl, listener);
  n.node.controller = ctl;
  n.node.brokers.push_back(b);
  caf::anon_send(n.controller, cluster_parts{caf::actor_cast<caf::actor>(n.zk),
                                             caf::actor_cast<caf::actor>(b)});
  return n;
}

void stop_cluster_node(cluster_node& node) {
  stop_embedded_node(node.node);
  caf::anon_send_exit(node.controller, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(node.zk, caf::exit_reason::user_shutdown);
}

} // namespace troupe
