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
// Then a broker deposes it only if a majority of the registered brokers,
// itself included, find it silent: Raft's pre-vote. It asks the brokers
// whose node link is up (controller_silence_query); each answers whether
// its own link to the controller closed or a heartbeat of its own went
// unanswered since the last answer. A node link that is up proves nothing:
// a connection whose packets are dropped stays open until the middleman's
// timeout closes it, so a broker cut off from the others but not from
// ZooKeeper still counts them as linked. Its questions go unanswered and
// it deposes nobody; ZooKeeper's session expiry decides, as before. With a
// majority, the broker deletes /controller, version-checked against the
// znode it read, if it still names the suspect. Every node watches
// /controller, so the election runs at once, and the new controller fences
// the brokers whose node link it saw close, the old controller's among
// them (active_controller::start).
//
// The debounce: the lowest such broker acts after the grace (two heartbeat
// intervals, at least 250 ms), the next one a grace later if the first did
// not, and so on; a link that comes back within the grace cancels it. A
// pre-vote that finds no majority is asked again a grace later while the
// silence lasts. Each loss of the link or of the answers deposes at most
// once: a broker cut off from a controller that wins the election again
// does not depose it again until it has seen it answer.
//
// Safety does not rest on the suspicion being right: a deposed controller
// that is alive sees /controller deleted and resigns, and every metadata
// write of any controller is fenced by /controller_epoch, which the next
// one bumps. A wrong suspicion costs one election.

#include "cluster/cluster_controller.hpp"

#include <algorithm>
#include <memory>
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

/// Whether this broker has stopped hearing `controller_id`: its node link
/// closed, or a heartbeat went unanswered since the last answer.
bool hears_nothing_from(const cluster_controller_state& st,
                        int32_t controller_id) {
  auto p = st.peers.find(controller_id);
  bool linked = p != st.peers.end() && p->second.controller;
  return !linked || st.controller_silent_since_ms >= 0;
}

/// Whether suspicion `chain` of `suspect_id` still stands: no newer one,
/// this node not the controller itself, the suspect still named in
/// /controller, the broker registered.
bool suspicion_stands(const cluster_controller_state& st, uint64_t chain,
                      int32_t suspect_id) {
  return chain == st.suspect_chain && !st.active
         && st.controller_id == suspect_id && st.registered;
}

/// The pre-vote of suspicion `chain`: asks every broker in touch whether it
/// finds `suspect_id` silent too, and deposes it once a majority of the
/// registered brokers (this one included) do. Unanswered questions count
/// as no; without a majority the question is asked again a grace later.
void pre_vote(cluster_controller_ptr self, uint64_t chain,
              int32_t suspect_id) {
  auto& st = self->state;
  struct tally {
    size_t needed = 0;
    size_t yes = 1; // this broker
    size_t pending = 0;
    bool decided = false;
  };
  auto t = std::make_shared<tally>();
  t->needed = st.peers.size() / 2 + 1;
  auto current = [self, chain, suspect_id] {
    return suspicion_stands(self->state, chain, suspect_id);
  };
  auto settle = [self, t, chain, suspect_id, current](bool answered_yes) {
    if (t->decided)
      return;
    if (answered_yes)
      ++t->yes;
    if (t->yes >= t->needed) {
      t->decided = true;
      if (current())
        depose(self, suspect_id);
      return;
    }
    if (t->pending > 0 && --t->pending > 0)
      return;
    t->decided = true;
    if (!current())
      return;
    auto& st = self->state;
    if (st.prevote_logged_chain != chain) {
      st.prevote_logged_chain = chain;
      spdlog::warn("cluster: not deposing controller {} yet: {} of {} "
                   "brokers (this one included) find it silent, {} needed; "
                   "asking again every {} ms while it stays silent",
                   suspect_id, t->yes, st.peers.size(), t->needed,
                   grace_ms(st));
    }
    self->delayed_send(self, ms(grace_ms(st)),
                       cluster_tick{tick::controller_suspect, chain,
                                    suspect_id});
  };
  std::vector<cluster_controller_actor> asked;
  for (auto id : in_touch(st, suspect_id))
    if (id != st.broker_id)
      asked.push_back(st.peers.at(id).controller);
  if (t->yes >= t->needed || asked.empty()) {
    settle(false);
    return;
  }
  t->pending = asked.size();
  for (auto& peer : asked)
    self
      ->request(peer, ms(grace_ms(st)),
                controller_silence_query{st.broker_id, suspect_id})
      .then([settle](controller_silence_vote& v) { settle(v.silent); },
            [settle](caf::error&) { settle(false); });
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
  if (!suspicion_stands(st, t.epoch, t.broker_id))
    return;
  if (!hears_nothing_from(st, t.broker_id)) {
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
  pre_vote(self, t.epoch, t.broker_id);
}

controller_silence_vote silence_vote(cluster_controller_ptr self,
                                     const controller_silence_query& q) {
  auto& st = self->state;
  controller_silence_vote v{st.broker_id, false};
  if (st.controller_id != q.controller_id)
    v.silent = true; // it is not the controller here (any more)
  else if (!st.active)
    v.silent = hears_nothing_from(st, q.controller_id);
  return v;
}

} // namespace troupe::node_agent
