#pragma once

// Drives the plain group state machine the way the coordinator actor does:
// parks what the group parks, collects the answers it releases, and tracks
// the timers it asks for, against a hand-moved clock.

#include <map>
#include <string>
#include <vector>

#include "domain/group.hpp"

namespace troupe::test {

inline join_protocol proto(std::string name, std::string meta = "m") {
  return {std::move(name), bytes(meta.begin(), meta.end())};
}

struct group_driver {
  explicit group_driver(group_config cfg = default_config())
    : g("g", cfg, nullptr, 42) {
    // nop
  }

  static group_config default_config() {
    group_config cfg;
    cfg.initial_rebalance_delay_ms = 0;
    return cfg;
  }

  group g;
  int64_t now = 0;
  std::map<std::string, join_group_response> joined; // released answers
  std::map<std::string, sync_group_response> synced;
  std::map<std::string, int> parked_joins;
  std::map<std::string, int> parked_syncs;
  std::optional<timer_request> join_timer;
  std::optional<timer_request> sync_timer;
  std::map<std::string, int64_t> sessions; // member -> next check at
  std::vector<state_transition> transitions;
  /// Generations whose group metadata the group asked to store.
  std::vector<int32_t> stores;

  join_group_request
  join_req(std::string member_id,
           std::vector<join_protocol> protocols = {proto("range")},
           int32_t session_ms = 10000, int32_t rebalance_ms = 5000) {
    join_group_request r;
    r.group_id = "g";
    r.member_id = std::move(member_id);
    r.protocol_type = "consumer";
    r.protocols = std::move(protocols);
    r.session_timeout_ms = session_ms;
    r.rebalance_timeout_ms = rebalance_ms;
    r.client_id = "client";
    r.require_known_member_id = false;
    return r;
  }

  /// Sends a JoinGroup; returns the immediate answer or, when parked, the
  /// member id under which it waits (answer.member_id) with error NONE and
  /// generation -2 as a marker.
  maybe_parked<join_group_response> join(const join_group_request& r) {
    auto res = g.join(r, now);
    if (res.parked())
      ++parked_joins[res.parked_member_id];
    drain();
    return res;
  }

  /// Joins a new dynamic member (no id yet); returns its member id.
  std::string join_new(std::vector<join_protocol> protocols = {proto("range")},
                       int32_t session_ms = 10000,
                       int32_t rebalance_ms = 5000) {
    auto res =
      join(join_req("", std::move(protocols), session_ms, rebalance_ms));
    REQUIRE(res.parked());
    return res.parked_member_id;
  }

  maybe_parked<sync_group_response>
  sync(const std::string& member, std::vector<sync_group_assignment> a = {}) {
    sync_group_request r;
    r.group_id = "g";
    r.member_id = member;
    r.generation_id = g.generation();
    r.assignments = std::move(a);
    auto res = g.sync(r, now);
    if (res.parked())
      ++parked_syncs[res.parked_member_id];
    drain();
    return res;
  }

  error_code heartbeat(const std::string& member, int32_t generation) {
    heartbeat_request r{"g", generation, member, ""};
    auto res = g.heartbeat(r, now);
    drain();
    return res.error;
  }

  error_code leave(const std::string& member) {
    auto res = g.leave({"g", {{member, ""}}}, now);
    drain();
    return res.error;
  }

  /// Moves the clock, firing due timers and session checks in time order.
  void advance(int64_t ms) {
    auto until = now + ms;
    for (;;) {
      int64_t next = until + 1;
      if (join_timer)
        next = std::min(next, join_at);
      if (sync_timer)
        next = std::min(next, sync_at);
      for (auto& [id, at] : sessions)
        next = std::min(next, at);
      if (next > until)
        break;
      now = next;
      if (join_timer && join_at == now) {
        auto t = *join_timer;
        join_timer.reset();
        g.on_join_timer(t.epoch, now);
        drain();
        continue;
      }
      if (sync_timer && sync_at == now) {
        auto t = *sync_timer;
        sync_timer.reset();
        g.on_sync_timer(t.epoch, now);
        drain();
        continue;
      }
      for (auto& [id, at] : sessions) {
        if (at != now)
          continue;
        auto member_id = id;
        auto again = g.check_session(member_id, now);
        if (again)
          sessions[member_id] = now + *again;
        else
          sessions.erase(member_id);
        drain();
        break;
      }
    }
    now = until;
  }

  void drain() {
    auto fx = g.take_effects();
    for (auto& [id, a] : fx.join_answers) {
      REQUIRE(parked_joins[id] > 0); // every answer goes to a parked request
      --parked_joins[id];
      joined[id] = a;
    }
    for (auto& [id, a] : fx.sync_answers) {
      REQUIRE(parked_syncs[id] > 0);
      --parked_syncs[id];
      synced[id] = a;
    }
    if (fx.join_timer) {
      join_timer = fx.join_timer;
      join_at = now + fx.join_timer->delay_ms;
    }
    if (fx.sync_timer) {
      sync_timer = fx.sync_timer;
      sync_at = now + fx.sync_timer->delay_ms;
    }
    for (auto& id : fx.sessions_stopped)
      sessions.erase(id);
    for (auto& [id, first] : fx.sessions_started)
      sessions[id] = now + first;
    for (auto& t : fx.transitions)
      transitions.push_back(t);
    if (fx.store_group)
      stores.push_back(*fx.store_group);
  }

  size_t parked_join_count() const {
    size_t n = 0;
    for (auto& [id, k] : parked_joins)
      n += k;
    return n;
  }

  size_t parked_sync_count() const {
    size_t n = 0;
    for (auto& [id, k] : parked_syncs)
      n += k;
    return n;
  }

  /// Brings `n` members to Stable; returns their ids in join order.
  std::vector<std::string> stable_group(size_t n) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < n; ++i)
      ids.push_back(join_new());
    advance(0);
    // initial delay 0: the first member completes alone, then the others
    // make a second round; drive until all joined one generation.
    for (int round = 0; round < 5 && g.state() != group_state::stable;
         ++round) {
      if (g.state() == group_state::completing_rebalance) {
        sync(g.leader());
        for (auto& id : ids)
          if (id != g.leader())
            sync(id);
      }
      if (g.state() == group_state::preparing_rebalance) {
        for (auto& id : ids)
          if (!g.member(id)->awaiting_join)
            join(join_req(id));
        advance(0);
      }
    }
    REQUIRE(g.state() == group_state::stable);
    REQUIRE(g.size() == n);
    return ids;
  }

  int64_t join_at = 0;
  int64_t sync_at = 0;
};

} // namespace troupe::test
