// Controller failover over the node links (docs/ARCHITECTURE.md §7
// "Broker liveness"). In ZooKeeper mode the active controller holds the
// ephemeral /controller znode, and another node takes over only when that
// znode goes: when the controller's ZooKeeper session expires
// (zookeeper.session.timeout.ms, 18 s by default). The brokers learn of a
// dead controller much sooner, the way the controller learns of a dead
// broker (broker_liveness.cpp):
//
// - its node link closes (a killed process's TCP connection closes at once:
//   the down_msg), or
// - it stops answering this broker's heartbeats for
//   broker.session.timeout.ms (a paused process, a hung link).
//
// Then the brokers that still reach a majority of the registered brokers
// (themselves included, the suspect excluded) depose it: they delete
// /controller, version-checked against the znode they read, if it still
// names the suspect. Every node watches /controller, so the election runs
// at once, and the new controller fences the brokers whose node link it
// saw close, the old controller's among them (active_controller::start).
//
// The debounce: the lowest such broker acts after the grace (two heartbeat
// intervals, at least 250 ms), the next one a grace later if the first did
// not, and so on; a link that comes back within the grace cancels it. Each
// loss of the link or of the answers deposes at most once: a broker cut
// off from a controller that wins the election again does not depose it
// again until it has seen it answer.
//
// Safety does not rest on the suspicion being right: a deposed controller
// that is alive sees /controller deleted and resigns, and every metadata
// write of any controller is fenced by /controller_epoch, which the next
// one bumps. A wrong suspicion costs one election.

#include "cluster/cluster_controller.hpp"

#include <algorithm>
#include <vector>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "cluster/zk_ops.hpp"

namespace troupe::node_agent {

namespace {

using tick = cluster_tick::kind;
using cluster::zk_error;
using zk_ops::is;
using zk_ops::zop;

int64_t grace_ms(const cluster_controller_state& st) {
  return std::max<int64_t>(
    250, 2 * int64_t{st.config.zookeeper.broker_heartbeat_interval_ms});
}

/// The brokers this node is in touch with, the suspect excluded: itself and
/// every registered broker whose node link is up, ascending.
std::vector<int32_t> in_touch(const cluster_controller_state& st,
                              int32_t suspect) {
  std::vector<int32_t> out;
  for (auto& [id, p] : st.peers)
    if (id != suspect && (id == st.broker_id || p.controller))
      out.push_back(id);
  return out;
}

/// Arms the check for `suspect`: after the grace times this broker's rank
/// among the brokers in touch.
void suspect(cluster_controller_ptr self, int32_t suspect_id,
             const char* why) {
  auto& st = self->state;
  if (st.active || suspect_id < 0 || suspect_id == st.broker_id
      || !st.registered || st.suspected_controller == suspect_id)
    return;
  st.suspected_controller = suspect_id;
  auto peers = in_touch(st, suspect_id);
  auto rank = std::find(peers.begin(), peers.end(), st.broker_id)
              - peers.begin();
  auto delay = grace_ms(st) * (1 + rank);
  spdlog::warn("cluster: broker {}: the controller (broker {}) {}; deposing "
               "it in {} ms unless it comes back",
               st.broker_id, suspect_id, why, delay);
  self->delayed_send(self, ms(delay),
                     cluster_tick{tick::controller_suspect, ++st.suspect_chain,
                                  suspect_id});
}

/// Deletes /controller if it still names `suspect_id`, version-checked.
void depose(cluster_controller_ptr self, int32_t suspect_id) {
  auto epoch = self->state.session_epoch;
  zk_ask(self, zop(zk_operation::kind::get, std::string{zk::controller_path}),
         [self, suspect_id, epoch](zk_result& r) {
           auto& st = self->state;
           if (epoch != st.session_epoch || !is(r, zk_error::ok))
             return;
           auto c = zk::decode_controller(r.data);
           if (!c || c->broker_id != suspect_id)
             return; // another controller meanwhile
           zk_ask(self,
                  zop(zk_operation::kind::remove,
                      std::string{zk::controller_path}, {}, r.version),
                  [self, suspect_id](zk_result& d) {
                    if (is(d, zk_error::ok))
                      spdlog::warn("cluster: broker {} deposed controller {} "
                                   "(deleted /controller)",
                                   self->state.broker_id, suspect_id);
                  });
         });
}

} // namespace

void on_controller_link_lost(cluster_controller_ptr self) {
  suspect(self, self->state.controller_id, "lost its node link");
}

void on_controller_heartbeat(cluster_controller_ptr self, bool answered) {
  auto& st = self->state;
  if (answered) {
    st.controller_silent_since_ms = -1;
    st.suspected_controller = -1;
    return;
  }
  auto now = now_ms(self);
  if (st.controller_silent_since_ms < 0
      || st.silent_controller != st.controller_id) {
    st.controller_silent_since_ms = now;
    st.silent_controller = st.controller_id;
  } else if (now - st.controller_silent_since_ms
           >= st.config.zookeeper.broker_session_timeout_ms)
    suspect(self, st.controller_id,
            "answered no heartbeat for broker.session.timeout.ms");
}

void on_controller_suspect(cluster_controller_ptr self,
                           const cluster_tick& t) {
  auto& st = self->state;
  if (t.epoch != st.suspect_chain || st.active
      || st.controller_id != t.broker_id || !st.registered)
    return;
  auto p = st.peers.find(t.broker_id);
  bool linked = p != st.peers.end() && p->second.controller;
  bool silent = st.controller_silent_since_ms >= 0;
  if (linked && !silent) {
    spdlog::info("cluster: the controller (broker {}) is back", t.broker_id);
    st.suspected_controller = -1;
    return;
  }
  // Cut off from most of the cluster, it is more likely this node than the
  // controller: ZooKeeper's session expiry decides, as before.
  auto peers = in_touch(st, t.broker_id);
  if (2 * peers.size() <= st.peers.size()) {
    spdlog::warn("cluster: not deposing controller {}: broker {} is in touch "
                 "with only {} of {} brokers",
                 t.broker_id, st.broker_id, peers.size(), st.peers.size());
    return;
  }
  depose(self, t.broker_id);
}

} // namespace troupe::node_agent
