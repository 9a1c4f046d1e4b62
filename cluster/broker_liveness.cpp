// Broker liveness on the active controller, as KRaft does it (KIP-631's
// broker heartbeats and fencing) over troupe's node links
// (docs/ARCHITECTURE.md §7 "Broker liveness"). ZooKeeper stays the store of
// record: a broker is live while it is registered in /brokers/ids and not
// fenced, and its session expiry still deregisters it.
//
// - Every broker heartbeats the active controller each
//   broker.heartbeat.interval.ms over its node link.
// - The controller fences a broker whose node link closed (the middleman's
//   down_msg: a killed process's TCP connection closes at once), or whose
//   heartbeats stopped for broker.session.timeout.ms (a paused process, a
//   hung link). Fencing is the failure path of a broker gone from
//   /brokers/ids: it leaves every ISR, its leaderships move with leader
//   epoch + 1, written to ZooKeeper and sent to every node.
// - The debounce: fencing is at once, unfencing only after heartbeats
//   without a gap for the unfence delay, and leadership comes back only
//   through the leader imbalance check (leader_balance.cpp). A flapping
//   link therefore moves a broker's leaderships away once, not at the rate
//   it flaps.
// - A controller that would keep contact with fewer than a majority of the
//   registered brokers (itself included) fences nobody: then it is most
//   likely this node that is cut off, and ZooKeeper's session expiry
//   decides as before.

#include "cluster/active_controller.hpp"

#include <algorithm>
#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"

namespace troupe {

using namespace node_agent;

namespace {

using tick = cluster_tick::kind;

/// Heartbeats must have come without a gap (none missed twice over) for
/// this long before a fenced broker is unfenced.
int64_t unfence_delay_ms(const zookeeper_mode& z) {
  return std::max<int64_t>(2 * int64_t{z.broker_heartbeat_interval_ms},
                           z.broker_session_timeout_ms / 2);
}

} // namespace

void active_controller::schedule(tick what, int64_t delay_ms) {
  self_->delayed_send(self_, ms(delay_ms),
                      cluster_tick{what, static_cast<uint64_t>(epoch_), -1});
}

void active_controller::sync_sessions() {
  auto& st = self_->state;
  auto now = now_ms(self_);
  for (auto i = sessions_.begin(); i != sessions_.end();) {
    auto p = st.peers.find(i->first);
    if (p == st.peers.end() || i->first == st.broker_id)
      i = sessions_.erase(i);
    else
      ++i;
  }
  for (auto& [id, peer] : st.peers) {
    if (id == st.broker_id)
      continue;
    auto& s = sessions_[id];
    if (s.registration_ms != peer.registration.timestamp_ms) {
      // A new registration (a restarted broker) or a new controllership:
      // a fresh session with two session timeouts of grace, time for the
      // broker to link up with this node and learn who the controller is.
      s = broker_session{};
      s.registration_ms = peer.registration.timestamp_ms;
      s.last_heartbeat_ms = now + self_->state.config.zookeeper
                                    .broker_session_timeout_ms;
    }
  }
}

std::vector<int32_t> active_controller::live_brokers() const {
  std::vector<int32_t> out;
  for (auto id : registered_brokers(self_->state)) {
    auto s = sessions_.find(id);
    if (s == sessions_.end() || !s->second.fenced)
      out.push_back(id);
  }
  return out;
}

bool active_controller::fence(int32_t broker_id, const char* why) {
  auto s = sessions_.find(broker_id);
  if (s == sessions_.end() || s->second.fenced || resigned_)
    return false;
  auto& st = self_->state;
  // In touch: this node, and every unfenced broker whose link is up.
  size_t registered = st.peers.size();
  size_t in_touch = 0;
  for (auto& [id, peer] : st.peers) {
    if (id == broker_id)
      continue;
    auto o = sessions_.find(id);
    if (id == st.broker_id
        || (peer.controller && o != sessions_.end() && !o->second.fenced))
      ++in_touch;
  }
  if (2 * in_touch <= registered) {
    spdlog::warn("controller: not fencing broker {} ({}): only {} of {} "
                 "brokers are in touch with this controller",
                 broker_id, why, in_touch, registered);
    return false;
  }
  spdlog::warn("controller: fencing broker {} ({})", broker_id, why);
  s->second.fenced = true;
  s->second.steady_since_ms = -1;
  on_brokers_changed();
  return true;
}

broker_heartbeat_response
active_controller::on_heartbeat(const broker_heartbeat& hb) {
  auto& st = self_->state;
  broker_heartbeat_response res{epoch_, false};
  sync_sessions();
  auto s = sessions_.find(hb.broker_id);
  // Not (yet) known by this registration: the controller reads
  // /brokers/ids first; the broker counts as unfenced meanwhile.
  if (s == sessions_.end() || s->second.registration_ms != hb.registration_ms)
    return res;
  auto& z = st.config.zookeeper;
  auto now = now_ms(self_);
  auto& b = s->second;
  if (b.fenced) {
    auto peer = st.peers.find(hb.broker_id);
    bool linked = peer != st.peers.end() && peer->second.controller;
    if (!linked)
      b.steady_since_ms = -1;
    else if (b.steady_since_ms < 0
             || now - b.last_heartbeat_ms
                  > 2 * int64_t{z.broker_heartbeat_interval_ms})
      b.steady_since_ms = now;
    b.last_heartbeat_ms = now;
    if (linked && now - b.steady_since_ms >= unfence_delay_ms(z)) {
      spdlog::info("controller: unfencing broker {} (heartbeats for {} ms)",
                   hb.broker_id, now - b.steady_since_ms);
      b.fenced = false;
      b.steady_since_ms = -1;
      on_brokers_changed();
    }
  } else {
    b.last_heartbeat_ms = now;
  }
  res.fenced = b.fenced;
  return res;
}

void active_controller::on_link_lost(int32_t broker_id) {
  sync_sessions();
  auto s = sessions_.find(broker_id);
  if (s == sessions_.end())
    return;
  if (s->second.fenced)
    s->second.steady_since_ms = -1;
  else
    fence(broker_id, "its node link closed");
}

void active_controller::fence_unlinked() {
  sync_sessions();
  auto& st = self_->state;
  std::vector<int32_t> unlinked;
  for (auto& [id, peer] : st.peers)
    if (id != st.broker_id
        && ((!peer.controller && peer.link_lost)
            || id == st.suspected_controller))
      unlinked.push_back(id);
  for (auto id : unlinked)
    fence(id, id == st.suspected_controller
                ? "this node suspected it as the controller it replaces"
                : "its node link closed before this controllership");
}

void active_controller::on_tick(const cluster_tick& t) {
  if (resigned_ || t.epoch != static_cast<uint64_t>(epoch_))
    return;
  auto& st = self_->state;
  switch (t.what) {
    case tick::broker_sessions: {
      sync_sessions();
      auto now = now_ms(self_);
      auto& z = st.config.zookeeper;
      auto since = now - std::exchange(last_session_check_ms_, now);
      if (since > std::max(z.broker_session_timeout_ms / 2,
                           2 * z.broker_heartbeat_interval_ms)) {
        // This controller itself did not run for a while: what it did not
        // hear meanwhile says nothing about the brokers.
        for (auto& [id, s] : sessions_)
          s.last_heartbeat_ms = std::max(s.last_heartbeat_ms, now);
      }
      std::vector<int32_t> silent;
      for (auto& [id, s] : sessions_)
        if (!s.fenced
            && now - s.last_heartbeat_ms > st.config.zookeeper
                                             .broker_session_timeout_ms)
          silent.push_back(id);
      for (auto id : silent)
        fence(id, "no heartbeat for broker.session.timeout.ms");
      schedule(tick::broker_sessions,
               st.config.zookeeper.broker_heartbeat_interval_ms);
      return;
    }
    case tick::leader_balance:
      check_leader_balance();
      schedule(tick::leader_balance,
               st.config.leader_imbalance_check_interval_seconds * 1000);
      return;
    default:
      return;
  }
}

} // namespace troupe
