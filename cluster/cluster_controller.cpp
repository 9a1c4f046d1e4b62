// A node's cluster_controller (docs/ARCHITECTURE.md §7), the node's side:
// its ZooKeeper session, its registration in /brokers/ids, the election,
// the connections to its peers, the snapshots of the active controller,
// the metadata its broker asks for; and the two behaviors, the follower's,
// which forwards what only a controller serves, and the active
// controller's, which hands it to its active_controller
// (cluster/active_controller.cpp).

#include "cluster/cluster_controller.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/metadata_view.hpp"
#include "actors/timeouts.hpp"
#include "cluster/active_controller.hpp"
#include "cluster/security_sync.hpp"
#include "cluster/zk_ops.hpp"
#include "cluster/zookeeper/zookeeper_client.hpp"

namespace troupe {

using namespace node_agent;

namespace {

using zk_error = cluster::zk_error;

using zk_ops::is;

constexpr auto peer_timeout = std::chrono::seconds(5);
constexpr auto retry_after = std::chrono::seconds(1);

using session_state = cluster::session_state;
using watch_kind = cluster::watch_kind;
using tick = cluster_tick::kind;

zk_operation op(zk_operation::kind k, std::string path, std::string data = {},
                bool ephemeral = false, bool watch = false) {
  zk_operation o;
  o.type = k;
  o.path = std::move(path);
  o.data = std::move(data);
  o.ephemeral = ephemeral;
  o.watch = watch;
  return o;
}

void later(cluster_controller_ptr self, tick what, uint64_t epoch,
           int32_t broker_id = -1) {
  self->delayed_send(self, retry_after, cluster_tick{what, epoch, broker_id});
}

const zk::broker_endpoint* kafka_endpoint(const zk::broker_registration& r) {
  for (auto& e : r.endpoints)
    if (e.listener != zk::troupe_listener)
      return &e;
  return nullptr;
}

/// Every Kafka listener a broker registered (troupe's own excluded): the
/// handlers answer the one the client came in on.
std::vector<listener_address>
listener_addresses(const zk::broker_registration& r) {
  std::vector<listener_address> out;
  for (auto& e : r.endpoints)
    if (e.listener != zk::troupe_listener)
      out.push_back({e.listener, e.host, e.port});
  return out;
}

// -- the local broker's view of its peers ------------------------------------------

/// Tells the local broker which brokers it can reach, whenever that changes.
void tell_broker_peers(cluster_controller_ptr self) {
  auto& st = self->state;
  cluster_peers peers;
  std::vector<int32_t> ids;
  for (auto& [id, p] : st.peers) {
    if (!p.broker)
      continue;
    auto e = kafka_endpoint(p.registration);
    peers.brokers.push_back({id, e ? e->host : std::string{}, e ? e->port : -1,
                             caf::actor_cast<caf::actor>(p.broker),
                             listener_addresses(p.registration)});
    ids.push_back(id);
  }
  st.told_peers = ids;
  if (st.broker)
    self->send(st.broker, std::move(peers));
}

// -- peers ---------------------------------------------------------------------------

std::vector<cluster_controller_actor>& unplaced_dialers();
void adopt(cluster_controller_ptr self, cluster_controller_actor dialer);

void connect_peer(cluster_controller_ptr self, int32_t id) {
  auto& st = self->state;
  auto i = st.peers.find(id);
  if (i == st.peers.end())
    return;
  auto& p = i->second;
  auto attempt = ++p.attempt;
  if (id == st.broker_id) {
    p.controller = self;
    p.broker = st.broker;
    tell_broker_peers(self);
    return;
  }
  auto e = zk::find_endpoint(p.registration, zk::troupe_listener);
  if (!e) {
    spdlog::error("cluster: broker {} registered no {} endpoint; it cannot be "
                  "reached",
                  id, zk::troupe_listener);
    return;
  }
  auto host = e->host.empty() ? std::string{"127.0.0.1"} : e->host;
  auto port = static_cast<uint16_t>(e->port);
  auto retry = [self, id, attempt] {
    later(self, tick::connect_peer, attempt, id);
  };
  // Over mutual TLS when CAF's OpenSSL module is loaded
  // (troupe.cluster.security=ssl, cluster_node.cpp configure_node_links).
  auto& sys = self->home_system();
  // Two nodes dialing each other at once race in CAF 0.17's BASP, and over
  // CAF's OpenSSL module the loser's link stops carrying messages (the
  // second dial's redundant connection; plain links recover). With TLS only
  // the node with the higher broker.id dials; the lower one takes its
  // controller from the node_info_request it sends (adopt_dialer).
  if (sys.has_openssl_manager() && id > st.broker_id) {
    auto waiting = std::exchange(unplaced_dialers(), {});
    for (auto& dialer : waiting)
      adopt(self, dialer);
    return;
  }
  auto mm = sys.has_openssl_manager() ? sys.openssl_manager().actor_handle()
                                      : sys.middleman().actor_handle();
  self->request(mm, peer_timeout, caf::connect_atom_v, host, port)
    .then(
      [self, id, attempt, retry, host, port](const caf::node_id&,
                                             caf::strong_actor_ptr& ptr,
                                             const std::set<std::string>&) {
        auto controller = caf::actor_cast<cluster_controller_actor>(ptr);
        if (!controller) {
          spdlog::warn("cluster: {}:{} published no controller", host, port);
          retry();
          return;
        }
        self->monitor(controller);
        self->request(controller, peer_timeout, node_info_request{})
          .then(
            [self, id, attempt, retry, controller, host,
             port](node_info& info) {
              auto& st = self->state;
              auto i = st.peers.find(id);
              if (i == st.peers.end() || i->second.attempt != attempt)
                return;
              if (info.broker_id != id) {
                spdlog::error("cluster: {}:{} hosts broker {}, not {}", host,
                              port, info.broker_id, id);
                retry();
                return;
              }
              i->second.controller = controller;
              i->second.broker = caf::actor_cast<broker_actor>(info.broker);
              i->second.link_lost = false;
              spdlog::info("cluster: connected to broker {} at {}:{}", id, host,
                           port);
              tell_broker_peers(self);
              if (auto active = st.active)
                active->send_snapshot_to(controller);
            },
            [id, retry](caf::error& err) {
              spdlog::warn("cluster: broker {}'s controller did not answer: {}",
                           id, caf::to_string(err));
              retry();
            });
      },
      [id, host, port, retry](caf::error& err) {
        spdlog::warn("cluster: cannot reach broker {} at {}:{}: {}", id, host,
                     port, caf::to_string(err));
        retry();
      });
}

/// With TLS links, a peer with a higher broker.id dials this node
/// (connect_peer) and asks for its node_info: its controller, the sender,
/// is taken as that peer's, over the link it opened. A dialer whose
/// registration this node has not read yet waits in unplaced_dialers until
/// update_peers connects that peer (one controller per process).
std::vector<cluster_controller_actor>& unplaced_dialers() {
  static std::vector<cluster_controller_actor> dialers;
  return dialers;
}

void adopt(cluster_controller_ptr self, cluster_controller_actor dialer) {
  self->request(dialer, peer_timeout, node_info_request{})
    .then(
      [self, dialer](node_info& info) {
        auto& st = self->state;
        if (info.broker_id <= st.broker_id)
          return;
        auto i = st.peers.find(info.broker_id);
        if (i == st.peers.end()) {
          unplaced_dialers().push_back(dialer);
          return;
        }
        if (i->second.controller)
          return;
        self->monitor(dialer);
        i->second.controller = dialer;
        i->second.broker = caf::actor_cast<broker_actor>(info.broker);
        i->second.link_lost = false;
        spdlog::info("cluster: connected to broker {} (it dialed in)",
                     info.broker_id);
        tell_broker_peers(self);
        if (auto active = st.active)
          active->send_snapshot_to(dialer);
      },
      [](caf::error&) {});
}

void adopt_dialer(cluster_controller_ptr self) {
  if (!self->home_system().has_openssl_manager())
    return;
  auto sender =
    caf::actor_cast<cluster_controller_actor>(self->current_sender());
  if (!sender || sender->node() == self->node())
    return;
  for (auto& [id, p] : self->state.peers)
    if (p.controller == sender)
      return;
  adopt(self, sender);
}

/// The registrations now in /brokers/ids: brokers gone are dropped, new or
/// restarted ones connected.
void update_peers(cluster_controller_ptr self,
                  std::map<int32_t, zk::broker_registration> fresh) {
  auto& st = self->state;
  bool changed = false;
  for (auto i = st.peers.begin(); i != st.peers.end();) {
    if (fresh.count(i->first)) {
      ++i;
      continue;
    }
    spdlog::warn("cluster: broker {} left the cluster", i->first);
    if (i->second.controller && i->first != st.broker_id)
      self->demonitor(i->second.controller.address());
    i = st.peers.erase(i);
    changed = true;
  }
  for (auto& [id, reg] : fresh) {
    auto i = st.peers.find(id);
    if (i != st.peers.end()
        && i->second.registration.timestamp_ms == reg.timestamp_ms)
      continue;
    if (i == st.peers.end())
      spdlog::info("cluster: broker {} joined the cluster", id);
    auto& p = st.peers[id];
    p.registration = std::move(reg);
    p.controller = nullptr;
    p.broker = nullptr;
    connect_peer(self, id);
    changed = true;
  }
  if (changed) {
    tell_broker_peers(self);
    if (auto active = st.active)
      active->on_brokers_changed();
  }
}

/// Reads /brokers/ids with a watch, then every registration.
void watch_brokers(cluster_controller_ptr self) {
  zk_ask(self,
         op(zk_operation::kind::children, std::string{zk::broker_ids_path}, {},
            false, true),
         [self](zk_result& r) {
           if (!is(r, zk_error::ok)) {
             later(self, tick::elect, self->state.session_epoch);
             return;
           }
           struct reading {
             std::map<int32_t, zk::broker_registration> found;
             size_t outstanding = 0;
           };
           auto acc = std::make_shared<reading>();
           acc->outstanding = r.children.size() + 1;
           auto done = [self, acc] {
             if (--acc->outstanding == 0)
               update_peers(self, std::move(acc->found));
           };
           for (auto& child : r.children) {
             auto id = zk::parse_java_int(child);
             if (!id) {
               done();
               continue;
             }
             auto broker = *id;
             zk_ask(self, op(zk_operation::kind::get, zk::broker_path(broker)),
                    [acc, broker, done](zk_result& g) {
                      if (is(g, zk_error::ok)) {
                        auto reg =
                          zk::decode_broker_registration(broker, g.data);
                        if (reg)
                          acc->found[broker] = *reg;
                        else
                          spdlog::error("cluster: {}", reg.error());
                      }
                      done();
                    });
           }
           done();
         });
}

// -- registration, election ------------------------------------------------------------

void elect(cluster_controller_ptr self);
void become_active(cluster_controller_ptr self);
void activate(cluster_controller_ptr self, int32_t epoch, int32_t zk_version);
zk_operation versioned(zk_operation::kind k, std::string path,
                       std::string data, int32_t version);
void resign(cluster_controller_ptr self, const std::string& why);

/// KIP-631's BrokerHeartbeat over the node link, every
/// broker.heartbeat.interval.ms while registered: the active controller
/// fences a broker it stops hearing from (cluster/broker_liveness.cpp).
void send_heartbeat(cluster_controller_ptr self) {
  auto& st = self->state;
  if (!st.registered || st.controller_id < 0
      || st.controller_id == st.broker_id)
    return;
  auto me = st.peers.find(st.broker_id);
  auto controller = st.peers.find(st.controller_id);
  if (me == st.peers.end() || controller == st.peers.end()
      || !controller->second.controller)
    return;
  auto timeout = ms(std::max(1000, 5 * st.config.zookeeper
                                         .broker_heartbeat_interval_ms));
  self
    ->request(controller->second.controller, timeout,
              broker_heartbeat{st.broker_id,
                               me->second.registration.timestamp_ms})
    .then(
      [self](broker_heartbeat_response& r) {
        auto& st = self->state;
        on_controller_heartbeat(self, true);
        if (r.fenced == st.fenced || r.controller_epoch < st.controller_epoch)
          return;
        st.fenced = r.fenced;
        if (r.fenced)
          spdlog::warn("cluster: the controller fenced broker {} (epoch {})",
                       st.broker_id, r.controller_epoch);
        else
          spdlog::info("cluster: the controller unfenced broker {}",
                       st.broker_id);
      },
      [self](caf::error&) {
        // The controller moved or the link dropped: the next one goes out
        // at the next interval. Unanswered for broker.session.timeout.ms,
        // the controller is suspected (controller_failover.cpp).
        on_controller_heartbeat(self, false);
      });
}

void on_registered(cluster_controller_ptr self) {
  auto& st = self->state;
  st.registered = true;
  spdlog::info("cluster: broker {} registered in ZooKeeper", st.broker_id);
  watch_broker_configs(self);
  self->delayed_send(self, ms(st.config.zookeeper.broker_heartbeat_interval_ms),
                     cluster_tick{tick::heartbeat, ++st.heartbeat_chain, -1});
  if (st.stepped_down) {
    st.stepped_down = false;
    spdlog::warn("cluster: broker {} serves again", st.broker_id);
    self->send(st.broker, broker_status_change{st.broker_id, true});
  }
}

/// Kafka's registerBroker: an ephemeral /brokers/ids/<id> with the
/// endpoints. A registration held by another session is waited for until
/// it expires (a restarted node's old session); past that, another live
/// node has this broker.id and the node refuses to start.
void register_broker(cluster_controller_ptr self) {
  auto& st = self->state;
  if (st.admin_stopped)
    return;
  zk::broker_registration reg;
  reg.id = st.broker_id;
  reg.endpoints = st.endpoints;
  reg.timestamp_ms = wall_clock_ms();
  auto path = zk::broker_path(st.broker_id);
  auto epoch = st.session_epoch;
  zk_ask(self,
         op(zk_operation::kind::create, path,
            zk::encode_broker_registration(reg), true),
         [self, path, epoch](zk_result& r) {
           if (is(r, zk_error::ok)) {
             on_registered(self);
             return;
           }
           if (!is(r, zk_error::node_exists)) {
             later(self, tick::register_broker, epoch);
             return;
           }
           zk_ask(self, op(zk_operation::kind::get, path),
                  [self, epoch](zk_result& g) {
                    auto& st = self->state;
                    if (is(g, zk_error::ok)
                        && g.ephemeral_owner == st.session_id) {
                      on_registered(self);
                    } else if (wall_clock_ms() < st.register_deadline_ms) {
                      spdlog::warn("cluster: /brokers/ids/{} is held by "
                                   "another session; waiting for it to "
                                   "expire",
                                   st.broker_id);
                      later(self, tick::register_broker, epoch);
                    } else {
                      st.fatal("broker.id " + std::to_string(st.broker_id)
                               + " is already registered in ZooKeeper by "
                                 "another live node");
                    }
                  });
         });
}

/// Watches /controller and follows whoever holds it (Kafka's
/// ControllerChangeHandler); gone meanwhile, the election runs again.
void follow_controller(cluster_controller_ptr self, uint64_t epoch) {
  zk_ask(self,
         op(zk_operation::kind::get, std::string{zk::controller_path}, {},
            false, true),
         [self, epoch](zk_result& g) {
           auto& st = self->state;
           if (is(g, zk_error::no_node)) {
             elect(self); // gone meanwhile: try again
             return;
           }
           if (!is(g, zk_error::ok)) {
             later(self, tick::elect, epoch);
             return;
           }
           auto c = zk::decode_controller(g.data);
           if (!c) {
             spdlog::error("cluster: {}", c.error());
             return;
           }
           st.controller_id = c->broker_id;
           // Ours already (the answer to our own election was lost): the
           // epoch is bumped again, on its own.
           if (c->broker_id == st.broker_id
               && g.ephemeral_owner == st.session_id && !st.active)
             become_active(self);
         });
}

/// Kafka's KafkaController.elect with KafkaZkClient's
/// registerControllerAndIncrementControllerEpoch: one multi checks
/// /controller_epoch's zkVersion, creates the ephemeral /controller and
/// bumps the epoch, so the controller and its epoch change together (no
/// reader sees the new controller under the old epoch, and two candidates
/// cannot both bump it). The winner leads; the others watch /controller.
void elect(cluster_controller_ptr self) {
  using kind = zk_operation::kind;
  auto& st = self->state;
  auto epoch = st.session_epoch;
  zk_ask(self, op(kind::get, std::string{zk::controller_epoch_path}),
         [self, epoch](zk_result& r) {
           auto& st = self->state;
           if (is(r, zk_error::no_node)) { // Kafka's createControllerEpochZNode
             zk_ask(self,
                    op(kind::create, std::string{zk::controller_epoch_path},
                       zk::encode_controller_epoch(0)),
                    [self](zk_result&) { elect(self); });
             return;
           }
           auto current =
             is(r, zk_error::ok)
               ? zk::decode_controller_epoch(r.data)
               : zk::decoded<int32_t>::failure("cannot read /controller_epoch");
           if (!current) {
             spdlog::warn("controller: {}", current.error());
             later(self, tick::elect, epoch);
             return;
           }
           auto next = *current + 1;
           auto version = r.version;
           std::vector<zk_operation> ops{
             versioned(kind::check, std::string{zk::controller_epoch_path}, {},
                       version),
             op(kind::create, std::string{zk::controller_path},
                zk::encode_controller(st.broker_id, wall_clock_ms()), true),
             versioned(kind::set, std::string{zk::controller_epoch_path},
                       zk::encode_controller_epoch(next), version)};
           zk_multi(self, std::move(ops),
                    [self, epoch, next, version](zk_result& m) {
                      auto& st = self->state;
                      if (epoch != st.session_epoch)
                        return; // the session this ran in is gone
                      if (is(m, zk_error::ok)) {
                        st.controller_id = st.broker_id;
                        // The winner watches /controller too (Kafka's
                        // ControllerChangeHandler is on every broker):
                        // deposed by another node deleting it
                        // (cluster/controller_failover.cpp), it resigns.
                        zk_ask(self,
                               op(zk_operation::kind::exists,
                                  std::string{zk::controller_path}, {}, false,
                                  true),
                               [](zk_result&) {});
                        activate(self, next, version + 1);
                        return;
                      }
                      auto failed = [&m](size_t i, zk_error e) {
                        return i < m.op_errors.size()
                               && m.op_errors[i] == static_cast<int32_t>(e);
                      };
                      // Another node leads, or bumped the epoch first.
                      if (failed(1, zk_error::node_exists)
                          || failed(0, zk_error::bad_version)
                          || is(m, zk_error::node_exists)
                          || is(m, zk_error::bad_version)) {
                        follow_controller(self, epoch);
                        return;
                      }
                      later(self, tick::elect, epoch);
                    });
         });
}

// -- the session --------------------------------------------------------------------------

/// A new session: create Kafka's persistent paths, register, watch the
/// other brokers, take part in the election.
void start_session(cluster_controller_ptr self) {
  auto& st = self->state;
  st.register_deadline_ms =
    wall_clock_ms() + st.config.zookeeper.session_timeout_ms + 2000;
  auto& paths = zk::persistent_paths();
  auto outstanding = std::make_shared<size_t>(paths.size());
  for (auto& path : paths)
    zk_ask(self, op(zk_operation::kind::create_recursive, path),
           [self, outstanding](zk_result&) {
             if (--*outstanding > 0)
               return;
             register_broker(self);
             watch_brokers(self);
             elect(self);
             cluster_security::start(self);
           });
}

/// The session is gone (expired, or silent for its whole timeout): the node
/// is out of the cluster, as Kafka's brokers are when their registration
/// disappears, and stops serving until it registered again.
void lose_session(cluster_controller_ptr self, const std::string& why) {
  auto& st = self->state;
  spdlog::warn("cluster: broker {}: {}; stepping down", st.broker_id, why);
  ++st.session_epoch;
  st.connected = false;
  st.registered = false;
  st.session_id = 0;
  resign(self, why);
  st.controller_id = -1;
  // What the last controller said may be outdated by now (others took over
  // this node's leaderships): once registered again, the broker waits for
  // the active controller's next snapshot instead of resuming from it.
  st.view = cluster_snapshot{};
  if (!st.stepped_down) {
    st.stepped_down = true;
    self->send(st.broker, broker_status_change{st.broker_id, false});
  }
}

void on_session(cluster_controller_ptr self, const zk_session_event& e) {
  auto& st = self->state;
  switch (static_cast<session_state>(e.state)) {
    case session_state::connected:
    case session_state::read_only:
      st.connected = true;
      if (e.session_id != st.session_id) {
        st.session_id = e.session_id;
        ++st.session_epoch;
        spdlog::info("cluster: ZooKeeper session {:x} (timeout {} ms)",
                     e.session_id, e.negotiated_timeout_ms);
        start_session(self);
      }
      return;
    case session_state::connecting:
      if (!st.connected)
        return;
      st.connected = false;
      spdlog::warn("cluster: lost ZooKeeper; serving on until the session "
                   "timeout");
      // ZooKeeper's client does not decide on its own that a session it
      // cannot reach has expired: after the timeout the node counts as
      // gone, as the other nodes see it.
      self->delayed_send(
        self, ms(st.config.zookeeper.session_timeout_ms),
        cluster_tick{tick::session_deadline, st.session_epoch, -1});
      return;
    case session_state::expired:
      lose_session(self, "ZooKeeper session expired");
      self->send(st.zk, zk_reconnect{});
      return;
    case session_state::auth_failed:
      st.fatal("ZooKeeper refused the session (authentication failed)");
      return;
  }
}

void on_watch(cluster_controller_ptr self, const zk_watch_event& e) {
  auto& st = self->state;
  auto kind = static_cast<watch_kind>(e.kind);
  // Every node follows the ACL and credential changes (/config/changes
  // also goes on to the active controller below).
  if (cluster_security::on_watch(self, e.path)
      && e.path != zk::config_changes_path)
    return;
  if (on_broker_configs_watch(self, e.path))
    return;
  if (e.path == zk::broker_ids_path) {
    watch_brokers(self);
  } else if (e.path == zk::config_changes_path) {
    if (auto active = st.active)
      active->on_config_changes();
  } else if (e.path == zk::delete_topics_path) {
    if (auto active = st.active)
      active->on_delete_topics();
  } else if (e.path == zk::reassign_partitions_path) {
    if (auto active = st.active)
      active->on_zk_reassignments(kind == watch_kind::created);
  } else if (e.path == zk::controller_path) {
    if (kind == watch_kind::deleted || kind == watch_kind::data_changed) {
      if (kind == watch_kind::deleted)
        resign(self, "/controller was deleted");
      st.controller_id = -1;
      elect(self);
    }
  }
}

/// The brokers metadata answers list, with the endpoints clients and CAF
/// use: registered, and live in the active controller's last snapshot (a
/// fenced broker is left out, as KRaft's metadata leaves out fenced
/// brokers).
std::vector<broker_info> live_broker_infos(const cluster_controller_state& st) {
  std::vector<broker_info> out;
  auto& live = st.view.live_brokers;
  for (auto& [id, p] : st.peers) {
    if (std::find(live.begin(), live.end(), id) == live.end())
      continue;
    auto e = kafka_endpoint(p.registration);
    out.push_back({id, e ? e->host : std::string{}, e ? e->port : -1,
                   caf::actor_cast<caf::actor>(p.broker),
                   listener_addresses(p.registration)});
  }
  return out;
}

metadata_response answer_metadata(const cluster_controller_state& st,
                                  const metadata_request& req) {
  metadata_response res;
  res.brokers = live_broker_infos(st);
  if (req.include_fenced) {
    // DescribeCluster v2 (KIP-1073): registered brokers the active
    // controller left out of its live set, marked fenced.
    auto& live = st.view.live_brokers;
    for (auto& [id, p] : st.peers) {
      if (std::find(live.begin(), live.end(), id) != live.end())
        continue;
      auto e = kafka_endpoint(p.registration);
      broker_info b{id, e ? e->host : std::string{}, e ? e->port : -1,
                    caf::actor{}, listener_addresses(p.registration)};
      b.fenced = true;
      res.brokers.push_back(std::move(b));
    }
  }
  if (st.peers.count(st.controller_id))
    res.controller_id = st.controller_id;
  if (req.topics.empty()) {
    res.topics = st.view.topics;
    return res;
  }
  for (auto& name : req.topics) {
    auto i = std::find_if(st.view.topics.begin(), st.view.topics.end(),
                          [&](auto& t) { return t.name == name; });
    if (i != st.view.topics.end())
      res.topics.push_back(*i);
    else
      res.topics.push_back(
        {error_code::unknown_topic_or_partition, name, 0, {}, {}});
  }
  return res;
}

bool missing_topics(const cluster_controller_state& st,
                    const metadata_request& req) {
  for (auto& name : req.topics)
    if (std::none_of(st.view.topics.begin(), st.view.topics.end(),
                     [&](auto& t) { return t.name == name; }))
      return true;
  return false;
}

/// The node whose controller is the active one, if connected (this one's
/// own entry holds this actor).
cluster_controller_actor active_peer(const cluster_controller_state& st) {
  auto i = st.peers.find(st.controller_id);
  return i == st.peers.end() ? cluster_controller_actor{}
                             : i->second.controller;
}

/// Forwards `req` to the active controller, or answers `fallback`.
template <class Response, class Request, class Fallback>
caf::result<Response> forward(cluster_controller_ptr self, Request req,
                              Fallback fallback) {
  auto active = active_peer(self->state);
  if (!active)
    return fallback();
  auto rp = self->make_response_promise<Response>();
  self->request(active, cluster_request_timeout, std::move(req))
    .then([rp](Response& res) mutable { rp.deliver(std::move(res)); },
          [rp, fallback](caf::error&) mutable { rp.deliver(fallback()); });
  return rp;
}

// -- DeleteTopics (Kafka's ZkAdminManager.deleteTopics) -----------------------------

/// How long a DeleteTopics answer waits for its topics to leave the
/// metadata (Kafka's DelayedDeleteTopics, with the admin client's default
/// timeout of 30 s; a little less, so that the broker's answer arrives
/// before the listener gives up).
constexpr auto delete_topics_wait = std::chrono::milliseconds(25000);

bool in_view(const cluster_controller_state& st, const std::string& topic) {
  return std::any_of(st.view.topics.begin(), st.view.topics.end(),
                     [&](auto& t) { return t.name == topic; });
}

/// The wait is over: what is still there timed out (REQUEST_TIMED_OUT,
/// as DelayedDeleteTopics.onComplete answers it).
void end_deletion_wait(cluster_controller_ptr self, uint64_t id) {
  auto& st = self->state;
  auto i = st.deletion_waits.find(id);
  if (i == st.deletion_waits.end())
    return;
  auto w = std::move(i->second);
  st.deletion_waits.erase(i);
  for (auto& r : w.answer.topics)
    if (r.error == error_code::none
        && std::find(w.topics.begin(), w.topics.end(), r.name)
             != w.topics.end()) {
      r.error = error_code::request_timed_out;
      r.message = std::string{error_message(r.error)};
    }
  w.promise.deliver(std::move(w.answer));
}

/// After each snapshot: waits whose topics are all gone are answered.
void check_deletion_waits(cluster_controller_ptr self) {
  auto& st = self->state;
  for (auto i = st.deletion_waits.begin(); i != st.deletion_waits.end();) {
    auto& w = i->second;
    w.topics.erase(std::remove_if(w.topics.begin(), w.topics.end(),
                                  [&](auto& t) { return !in_view(st, t); }),
                   w.topics.end());
    if (!w.topics.empty()) {
      ++i;
      continue;
    }
    w.promise.deliver(std::move(w.answer));
    i = st.deletion_waits.erase(i);
  }
}

/// Any node: each topic to delete gets /admin/delete_topics/<t> (Kafka's
/// AdminZkClient.deleteTopic; already there is fine, the deletion is under
/// way), the active controller's watch deletes it, and the answer waits
/// until the topics left this node's metadata or the wait ends. Unknown
/// topics: UNKNOWN_TOPIC_OR_PARTITION (KafkaApis, metadataCache.contains);
/// troupe keeps __consumer_offsets (as the embedded controller does).
caf::result<delete_topics_response>
delete_topics(cluster_controller_ptr self, delete_topics_request& req) {
  auto& st = self->state;
  delete_topics_response res;
  std::vector<size_t> asked;
  for (auto& t : req.topics) {
    deleted_topic r{t.name, t.topic_id, error_code::none, {}};
    if (!t.name.empty() && !t.topic_id.is_zero()) {
      r.error = error_code::invalid_request;
      r.message = "You may not specify both topic name and topic id.";
    } else if (t.name.empty() && t.topic_id.is_zero()) {
      r.error = error_code::invalid_request;
      r.message = "Neither topic name nor id were specified.";
    } else {
      if (r.name.empty())
        for (auto& v : st.view.topics)
          if (v.topic_id == t.topic_id)
            r.name = v.name;
      if (r.name.empty()) {
        r.error = error_code::unknown_topic_id;
        r.message = std::string{error_message(r.error)};
      } else if (r.name == offsets_topic) {
        r.error = error_code::invalid_request;
        r.message = "Topic " + r.name + " is internal and cannot be deleted.";
      } else if (!in_view(st, r.name)) {
        r.error = error_code::unknown_topic_or_partition;
        r.message = std::string{error_message(r.error)};
      } else {
        for (auto& v : st.view.topics)
          if (v.name == r.name)
            r.topic_id = v.topic_id;
        asked.push_back(res.topics.size());
      }
    }
    res.topics.push_back(std::move(r));
  }
  if (asked.empty())
    return res;
  auto rp = self->make_response_promise<delete_topics_response>();
  struct pending {
    delete_topics_response answer;
    std::vector<size_t> asked;
    size_t outstanding = 0;
  };
  auto p = std::make_shared<pending>();
  p->answer = std::move(res);
  p->asked = asked;
  p->outstanding = asked.size();
  for (auto j : asked) {
    auto name = p->answer.topics[j].name;
    zk_ask(self,
           op(zk_operation::kind::create_recursive, zk::delete_topic_path(name)),
           [self, rp, p, j, name](zk_result& r) mutable {
             if (!is(r, zk_error::ok) && !is(r, zk_error::node_exists)) {
               auto& d = p->answer.topics[j];
               d.error = error_code::unknown_server_error;
               d.message = "The deletion of " + name
                           + " could not be written to ZooKeeper: "
                           + std::string(cluster::to_string(static_cast<zk_error>(r.error)));
             } else {
               spdlog::info("cluster: topic {} marked for deletion", name);
             }
             if (--p->outstanding > 0)
               return;
             auto& st = self->state;
             deletion_wait w{rp, std::move(p->answer), {}};
             for (auto i : p->asked)
               if (w.answer.topics[i].error == error_code::none)
                 w.topics.push_back(w.answer.topics[i].name);
             auto id = ++st.next_deletion_wait;
             st.deletion_waits.emplace(id, std::move(w));
             check_deletion_waits(self);
             if (st.deletion_waits.count(id))
               self->delayed_send(self, delete_topics_wait,
                                  cluster_tick{tick::deletion_deadline, id, -1});
           });
  }
  return rp;
}

// -- the two behaviors ----------------------------------------------------------------

/// What a follower does with what only a controller serves: forwards it to
/// the active controller's node, or answers that there is none.
struct follower_role {
  /// Where a metadata request's missing topics are created, if anywhere.
  controller_actor creator(cluster_controller_ptr self) const {
    return caf::actor_cast<controller_actor>(active_peer(self->state));
  }

  caf::result<create_topics_response>
  create_topics(cluster_controller_ptr self, create_topics_request& req) const {
    auto fallback = [names = req.topics] {
      create_topics_response res;
      for (auto& t : names)
        res.topics.push_back({t.name, error_code::not_controller,
                              "No active controller is known."});
      return res;
    };
    return forward<create_topics_response>(self, std::move(req), fallback);
  }

  caf::result<allocate_producer_ids_response>
  allocate_producer_ids(cluster_controller_ptr self,
                        allocate_producer_ids_request& req) const {
    return forward<allocate_producer_ids_response>(self, std::move(req), [] {
      allocate_producer_ids_response res;
      res.error = error_code::coordinator_load_in_progress;
      return res;
    });
  }

  caf::result<alter_isr_response> alter_isr(cluster_controller_ptr self,
                                            alter_isr_request& req) const {
    auto fallback = [] {
      alter_isr_response res;
      res.error = error_code::not_controller;
      res.state.leader = -2; // not this leadership: the replica retries
      return res;
    };
    return forward<alter_isr_response>(self, std::move(req), fallback);
  }

  caf::result<alter_topic_configs_response>
  alter_topic_configs(cluster_controller_ptr self,
                      alter_topic_configs_request& req) const {
    return forward<alter_topic_configs_response>(self, std::move(req), [] {
      alter_topic_configs_response res;
      res.error = error_code::not_controller;
      res.message = "No active controller is known.";
      return res;
    });
  }

  caf::result<create_partitions_response>
  create_partitions(cluster_controller_ptr self,
                    create_partitions_request& req) const {
    auto fallback = [names = req.topics] {
      create_partitions_response res;
      for (auto& t : names)
        res.results.push_back({t.topic, error_code::not_controller,
                               "No active controller is known."});
      return res;
    };
    return forward<create_partitions_response>(self, std::move(req), fallback);
  }

  caf::result<elect_leaders_response>
  elect_leaders(cluster_controller_ptr self, elect_leaders_request& req) const {
    return forward<elect_leaders_response>(self, std::move(req), [] {
      return elect_leaders_response{error_code::not_controller, {}};
    });
  }

  caf::result<alter_partition_reassignments_response>
  alter_partition_reassignments(
    cluster_controller_ptr self,
    alter_partition_reassignments_request& req) const {
    return forward<alter_partition_reassignments_response>(
      self, std::move(req), [] {
        return alter_partition_reassignments_response{
          error_code::not_controller, "No active controller is known.", {}};
      });
  }

  caf::result<list_partition_reassignments_response>
  list_partition_reassignments(
    cluster_controller_ptr self,
    list_partition_reassignments_request& req) const {
    return forward<list_partition_reassignments_response>(
      self, std::move(req), [] {
        return list_partition_reassignments_response{
          error_code::not_controller, "No active controller is known.", {}};
      });
  }
};

/// The active controller's node hands it what only a controller serves.
struct active_role {
  std::shared_ptr<active_controller> controller;

  /// The active controller answers once ZooKeeper holds the topic and its
  /// own view has it.
  controller_actor creator(cluster_controller_ptr self) const {
    return caf::actor_cast<controller_actor>(self);
  }

  caf::result<create_topics_response>
  create_topics(cluster_controller_ptr, create_topics_request& req) const {
    return controller->create_topics(req);
  }

  caf::result<allocate_producer_ids_response>
  allocate_producer_ids(cluster_controller_ptr,
                        allocate_producer_ids_request& req) const {
    return controller->allocate_producer_ids(req);
  }

  caf::result<alter_isr_response> alter_isr(cluster_controller_ptr,
                                            alter_isr_request& req) const {
    return controller->alter_isr(req);
  }

  caf::result<alter_topic_configs_response>
  alter_topic_configs(cluster_controller_ptr,
                      alter_topic_configs_request& req) const {
    return controller->alter_topic_configs(req);
  }

  caf::result<create_partitions_response>
  create_partitions(cluster_controller_ptr,
                    create_partitions_request& req) const {
    return controller->create_partitions(req);
  }

  caf::result<elect_leaders_response>
  elect_leaders(cluster_controller_ptr, elect_leaders_request& req) const {
    return controller->elect_leaders(req);
  }

  caf::result<alter_partition_reassignments_response>
  alter_partition_reassignments(
    cluster_controller_ptr, alter_partition_reassignments_request& req) const {
    return controller->alter_partition_reassignments(req);
  }

  caf::result<list_partition_reassignments_response>
  list_partition_reassignments(
    cluster_controller_ptr, list_partition_reassignments_request& req) const {
    return controller->list_partition_reassignments(req);
  }
};

void on_tick(cluster_controller_ptr self, const cluster_tick& t) {
  auto& st = self->state;
  switch (t.what) {
    case tick::register_broker:
      if (t.epoch == st.session_epoch && !st.registered)
        register_broker(self);
      return;
    case tick::elect:
      if (t.epoch == st.session_epoch) {
        watch_brokers(self);
        elect(self);
      }
      return;
    case tick::connect_peer: {
      auto i = st.peers.find(t.broker_id);
      if (i != st.peers.end() && i->second.attempt == t.epoch
          && !i->second.controller)
        connect_peer(self, t.broker_id);
      return;
    }
    case tick::session_deadline:
      if (t.epoch != st.session_epoch || st.connected)
        return;
      if (st.session_id == 0) {
        // Never connected yet: say so and keep waiting (the client
        // retries with its own backoff).
        spdlog::error("cluster: cannot reach ZooKeeper at {}; still "
                      "trying",
                      st.config.zookeeper.connect);
        self->delayed_send(
          self, ms(st.config.zookeeper.session_timeout_ms),
          cluster_tick{tick::session_deadline, st.session_epoch, -1});
        return;
      }
      lose_session(self, "no ZooKeeper for zookeeper.session.timeout.ms");
      return;
    case tick::deletion_deadline:
      end_deletion_wait(self, t.epoch);
      return;
    case tick::heartbeat:
      if (t.epoch != st.heartbeat_chain || !st.registered)
        return;
      send_heartbeat(self);
      self->delayed_send(
        self, ms(st.config.zookeeper.broker_heartbeat_interval_ms), t);
      return;
    case tick::broker_sessions:
    case tick::leader_balance:
      if (auto active = st.active)
        active->on_tick(t);
      return;
    case tick::controller_suspect:
      on_controller_suspect(self, t);
      return;
  }
}

/// Nothing is served as if the cluster were empty before the active
/// controller's first snapshot: the broker's clients see it fail. Missing
/// topics are created first when the request and the config allow it.
template <class Role>
caf::result<metadata_response> on_metadata(cluster_controller_ptr self,
                                           const Role& role,
                                           metadata_request& req) {
  auto& st = self->state;
  if (st.view.controller_epoch == 0)
    return caf::make_error(caf::sec::request_receiver_down);
  if (req.allow_auto_topic_creation && st.config.auto_create_topics
      && missing_topics(st, req)) {
    create_topics_request create;
    for (auto& name : req.topics)
      create.topics.push_back({name, -1, -1});
    auto rp = self->make_response_promise<metadata_response>();
    auto answer = [self, rp, req]() mutable {
      rp.deliver(answer_metadata(self->state, req));
    };
    auto created = [answer](create_topics_response&) mutable { answer(); };
    auto failed = [answer](caf::error&) mutable { answer(); };
    if (auto creator = role.creator(self))
      self->request(creator, cluster_request_timeout, std::move(create))
        .then(created, failed);
    else
      answer();
    return rp;
  }
  return answer_metadata(st, req);
}

caf::result<leadership_update>
on_broker_status_change(cluster_controller_ptr self,
                        broker_status_change& req) {
  auto& st = self->state;
  if (req.broker_id != st.broker_id) {
    auto i = st.peers.find(req.broker_id);
    if (i == st.peers.end() || !i->second.controller)
      return leadership_update{error_code::broker_not_available, {}};
    return self->delegate(i->second.controller, std::move(req));
  }
  // An operator stops this node's broker: it leaves /brokers/ids (the
  // controller fails its partitions over) until started again.
  if (!req.alive) {
    st.admin_stopped = true;
    if (!st.stepped_down) {
      st.stepped_down = true;
      self->send(st.broker, broker_status_change{st.broker_id, false});
    }
    st.registered = false;
    st.view = cluster_snapshot{}; // outdated while it is out (lose_session)
    zk_ask(self, op(zk_operation::kind::remove, zk::broker_path(st.broker_id)),
           [](zk_result&) {});
  } else if (st.admin_stopped) {
    st.admin_stopped = false;
    register_broker(self);
  }
  return leadership_update{};
}

/// The node's handlers; `role` serves CreateTopics, AllocateProducerIds and
/// AlterIsr, and says where a metadata request's missing topics are
/// created.
template <class Role>
cluster_controller_actor::behavior_type
node_behavior(cluster_controller_ptr self, Role role) {
  return {
    [self](cluster_parts& parts) {
      auto& st = self->state;
      st.zk = caf::actor_cast<zookeeper_session_actor>(parts.zk);
      st.broker = caf::actor_cast<broker_actor>(parts.broker);
      self->delayed_send(self, ms(st.config.zookeeper.session_timeout_ms),
                         cluster_tick{tick::session_deadline, 0, -1});
    },
    [self](zk_session_event& e) { on_session(self, e); },
    [self](zk_watch_event& e) { on_watch(self, e); },
    [self](cluster_tick& t) { on_tick(self, t); },
    [self](cluster_snapshot& s) { apply_snapshot(self, std::move(s)); },
    [self](node_info_request&) {
      adopt_dialer(self);
      return node_info{self->state.broker_id,
                       caf::actor_cast<caf::actor>(self->state.broker)};
    },
    [self, role](metadata_request& req) -> caf::result<metadata_response> {
      return on_metadata(self, role, req);
    },
    [self, role](create_topics_request& req)
      -> caf::result<create_topics_response> {
      return role.create_topics(self, req);
    },
    [self, role](allocate_producer_ids_request& req)
      -> caf::result<allocate_producer_ids_response> {
      return role.allocate_producer_ids(self, req);
    },
    [self, role](create_partitions_request& req)
      -> caf::result<create_partitions_response> {
      return role.create_partitions(self, req);
    },
    [self, role](elect_leaders_request& req)
      -> caf::result<elect_leaders_response> {
      return role.elect_leaders(self, req);
    },
    [self, role](alter_partition_reassignments_request& req)
      -> caf::result<alter_partition_reassignments_response> {
      return role.alter_partition_reassignments(self, req);
    },
    [self, role](list_partition_reassignments_request& req)
      -> caf::result<list_partition_reassignments_response> {
      return role.list_partition_reassignments(self, req);
    },
    [self](delete_topics_request& req) -> caf::result<delete_topics_response> {
      return delete_topics(self, req);
    },
    [self](broker_heartbeat& hb) -> broker_heartbeat_response {
      auto& st = self->state;
      if (auto active = st.active)
        return active->on_heartbeat(hb);
      // Not the active controller (any more): nothing to say.
      return broker_heartbeat_response{st.controller_epoch, false};
    },
    [self](controller_silence_query& q) -> controller_silence_vote {
      return silence_vote(self, q);
    },
    [self, role](alter_isr_request& req) -> caf::result<alter_isr_response> {
      return role.alter_isr(self, req);
    },
    [self, role](alter_topic_configs_request& req)
      -> caf::result<alter_topic_configs_response> {
      return role.alter_topic_configs(self, req);
    },
    [self](alter_broker_configs_request& req)
      -> caf::result<alter_broker_configs_response> {
      return alter_broker_configs(self, req);
    },
    [self](broker_status_change& req) -> caf::result<leadership_update> {
      return on_broker_status_change(self, req);
    },
    [](cluster_peers&) {
      // The peers of a cluster node come from ZooKeeper, not from a node.
    },
    [self](create_acls_request& req) -> caf::result<create_acls_response> {
      return cluster_security::create_acls(self, req);
    },
    [self](delete_acls_request& req) -> caf::result<delete_acls_response> {
      return cluster_security::delete_acls(self, req);
    },
    [self](alter_scram_credentials_request& req)
      -> caf::result<alter_scram_credentials_response> {
      return cluster_security::alter_scram(self, req);
    },
  };
}

// -- becoming and ending the active controller -------------------------------------------

zk_operation versioned(zk_operation::kind k, std::string path,
                       std::string data, int32_t version) {
  auto o = op(k, std::move(path), std::move(data));
  o.version = version;
  return o;
}

/// Leads in controller epoch `epoch`, whose /controller_epoch znode is at
/// `zk_version` (every metadata write checks it): the active behavior; the
/// active controller loads the metadata from ZooKeeper, handles every
/// broker that is gone and tells everyone.
void activate(cluster_controller_ptr self, int32_t epoch, int32_t zk_version) {
  auto& st = self->state;
  if (st.active)
    return;
  st.controller_epoch = epoch;
  st.active = std::make_shared<active_controller>(self, epoch, zk_version);
  self->become(node_behavior(self, active_role{st.active}));
  st.active->start();
}

/// Holds /controller already (an election whose answer was lost): bumps
/// the epoch, version-checked, then leads.
void become_active(cluster_controller_ptr self) {
  using kind = zk_operation::kind;
  if (self->state.active)
    return;
  zk_ask(self, op(kind::get, std::string{zk::controller_epoch_path}),
         [self](zk_result& r) {
           auto epoch =
             is(r, zk_error::ok)
               ? zk::decode_controller_epoch(r.data)
               : zk::decoded<int32_t>::failure("cannot read /controller_epoch");
           if (!epoch) {
             spdlog::error("controller: {}", epoch.error());
             return;
           }
           auto next = *epoch + 1;
           zk_ask(self,
                  versioned(kind::set, std::string{zk::controller_epoch_path},
                            zk::encode_controller_epoch(next), r.version),
                  [self, next](zk_result& w) {
                    if (!is(w, zk_error::ok)) {
                      spdlog::warn("controller: another controller bumped the "
                                   "epoch first");
                      return;
                    }
                    activate(self, next, w.version);
                  });
         });
}

/// Lost the controllership (fenced, session lost, /controller deleted):
/// back to the follower behavior; what waits answers NOT_CONTROLLER.
void resign(cluster_controller_ptr self, const std::string& why) {
  auto& st = self->state;
  if (!st.active)
    return;
  auto ended = std::move(st.active);
  self->become(node_behavior(self, follower_role{}));
  ended->resign(why);
}

} // namespace

// -- what the active controller uses of its node ----------------------------------------

namespace node_agent {

void resign_and_retry(cluster_controller_ptr self, const std::string& why) {
  resign(self, why);
  later(self, tick::elect, self->state.session_epoch);
}

void zk_ask(cluster_controller_ptr self, zk_operation o,
            std::function<void(zk_result&)> then) {
  auto epoch = self->state.session_epoch;
  self->request(self->state.zk, cluster_request_timeout, zk_request{std::move(o)})
    .then(
      [self, epoch, then](zk_result& r) {
        if (epoch == self->state.session_epoch)
          then(r);
      },
      [self, epoch, then](caf::error&) {
        if (epoch != self->state.session_epoch)
          return;
        zk_result r;
        r.error = static_cast<int32_t>(zk_error::closing);
        then(r);
      });
}

void zk_multi(cluster_controller_ptr self, std::vector<zk_operation> ops,
              std::function<void(zk_result&)> then) {
  self->request(self->state.zk, cluster_request_timeout, zk_multi_request{std::move(ops)})
    .then([then](zk_result& r) { then(r); },
          [then](caf::error&) {
            zk_result r;
            r.error = static_cast<int32_t>(zk_error::closing);
            then(r);
          });
}

std::vector<int32_t> registered_brokers(const cluster_controller_state& st) {
  std::vector<int32_t> out;
  for (auto& [id, p] : st.peers)
    out.push_back(id);
  return out;
}

/// Kafka's stray logs (LogManager's findStrayReplicas, or in ZooKeeper
/// mode the StopReplica a broker offline during a topic's deletion gets
/// when it returns): at the first snapshot after the node started or
/// registered again (its broker stopped meanwhile, every log closed), a
/// partition directory of a topic the metadata no longer has, of a
/// partition past its count or of one this broker holds no replica of is
/// left from a deletion this node missed. It goes before the broker opens
/// any log (the broker opens logs only for the partitions it is told of
/// after this), else a topic created again with the name would take up the
/// deleted one's records. Internal topics (__*) are never touched.
void remove_stray_logs(cluster_controller_ptr self,
                       const cluster_snapshot& s) {
  auto& st = self->state;
  if (st.config.log_dirs.empty())
    return;
  namespace fs = std::filesystem;
  auto dir = st.config.log_dirs + "/broker-" + std::to_string(st.broker_id);
  std::error_code ec;
  std::vector<fs::path> strays;
  for (auto it = fs::directory_iterator(dir, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->is_directory(ec))
      continue;
    auto name = it->path().filename().string();
    auto dash = name.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == name.size())
      continue;
    auto digits = name.substr(dash + 1);
    if (!std::all_of(digits.begin(), digits.end(),
                     [](char c) { return c >= '0' && c <= '9'; })
        || digits.size() > 9)
      continue;
    auto topic = name.substr(0, dash);
    auto partition = std::stoi(digits);
    if (topic.rfind("__", 0) == 0)
      continue;
    auto t = std::find_if(s.topics.begin(), s.topics.end(),
                          [&](auto& x) { return x.name == topic; });
    bool held = false;
    if (t != s.topics.end())
      for (auto& p : t->partition_states)
        if (p.partition == partition
            && std::find(p.replicas.begin(), p.replicas.end(), st.broker_id)
                 != p.replicas.end())
          held = true;
    if (!held)
      strays.push_back(it->path());
  }
  for (auto& path : strays) {
    std::error_code rm;
    fs::remove_all(path, rm);
    if (rm)
      spdlog::error("cluster: cannot remove the stray log {}: {}",
                    path.string(), rm.message());
    else
      spdlog::warn("cluster: removed the stray log {} (its topic or this "
                   "replica was deleted while this node was away)",
                   path.string());
  }
}

void apply_snapshot(cluster_controller_ptr self, cluster_snapshot s) {
  auto& st = self->state;
  if (s.controller_epoch < st.controller_epoch) {
    spdlog::info("cluster: ignoring metadata of controller epoch {} (newest "
                 "{})",
                 s.controller_epoch, st.controller_epoch);
    return;
  }
  if (st.active && s.controller_epoch > st.controller_epoch) {
    // A newer controller sends its metadata: this one was deposed
    // (cluster/controller_failover.cpp) or its session lost /controller,
    // and the ZooKeeper event has not reached it (its connection may be
    // down): it stops now rather than act on a stale epoch, whose writes
    // /controller_epoch would refuse anyway.
    resign(self, "broker " + std::to_string(s.controller_id)
                   + " is the controller of the newer epoch "
                   + std::to_string(s.controller_epoch));
  }
  st.controller_epoch = s.controller_epoch;
  st.controller_id = s.controller_id;
  std::map<topic_partition, const partition_metadata*> before;
  std::map<std::string, const topic_configs*> configs_before;
  for (auto& t : st.view.topics) {
    configs_before[t.name] = &t.configs;
    for (auto& p : t.partition_states)
      before[{t.name, p.partition}] = &p;
  }
  // Changed configs go to the broker before the partitions: a new topic's
  // logs open with them (Kafka's brokers read /config/topics/<t> when they
  // create a partition's log).
  std::vector<topic_config_change> config_changes;
  for (auto& t : s.topics) {
    auto i = configs_before.find(t.name);
    if (i == configs_before.end() ? !t.configs.empty()
                                  : *i->second != t.configs)
      config_changes.push_back({t.name, t.configs});
  }
  if (st.broker)
    for (auto& c : config_changes)
      self->send(st.broker, std::move(c));
  leadership_update changes;
  for (auto& t : s.topics) {
    for (auto& p : t.partition_states) {
      auto i = before.find({t.name, p.partition});
      const partition_metadata* o = i == before.end() ? nullptr : i->second;
      if (!o || o->leader != p.leader || o->leader_epoch != p.leader_epoch
          || o->isr != p.isr || o->replicas != p.replicas
          || o->partition_epoch != p.partition_epoch)
        changes.partitions.push_back({t.name, p});
    }
  }
  // Topics the controller deleted: the broker stops and deletes its
  // replicas (Kafka's StopReplica with deletePartition). Against every
  // topic the broker was told of, not only the last view's: a view reset
  // by a lost session must not forget a deletion made meanwhile.
  topic_deletion gone;
  std::set<std::string> now;
  for (auto& t : s.topics)
    now.insert(t.name);
  for (auto& name : st.known_topics)
    if (now.count(name) == 0)
      gone.topics.push_back(name);
  st.known_topics = std::move(now);
  // The first snapshot since the node started or its view was reset (a
  // lost session or an operator's stop, which stopped the broker and
  // closed its logs): what it missed meanwhile is on disk only.
  if (st.view.controller_epoch == 0)
    remove_stray_logs(self, s);
  st.view = std::move(s);
  if (!gone.topics.empty() && st.broker)
    self->send(st.broker, std::move(gone));
  if (!changes.partitions.empty() && st.broker)
    self->send(st.broker, std::move(changes));
  check_deletion_waits(self);
}

} // namespace node_agent

// -- the actor ------------------------------------------------------------------------

cluster_controller_actor::behavior_type
cluster_controller(cluster_controller_ptr self, cluster_config config,
                   std::vector<zk::broker_endpoint> endpoints,
                   std::function<void(const std::string&)> fatal,
                   std::shared_ptr<security::security_store> security) {
  auto& st = self->state;
  st.security = std::move(security);
  st.config = std::move(config);
  st.broker_id = st.config.zookeeper.broker_id;
  st.endpoints = std::move(endpoints);
  st.fatal = std::move(fatal);
  st.rng.seed(st.config.seed != 0 ? st.config.seed : std::random_device{}());
  self->set_down_handler([self](caf::down_msg& msg) {
    auto& st = self->state;
    for (auto& [id, p] : st.peers) {
      if (!p.controller || p.controller.address() != msg.source)
        continue;
      spdlog::warn("cluster: lost the connection to broker {}: {}", id,
                   caf::to_string(msg.reason));
      p.controller = nullptr;
      p.broker = nullptr;
      p.link_lost = true;
      tell_broker_peers(self);
      later(self, tick::connect_peer, p.attempt, id);
      if (auto active = st.active)
        active->on_link_lost(id);
      else if (id == st.controller_id)
        on_controller_link_lost(self);
      return;
    }
  });
  return node_behavior(self, follower_role{});
}

} // namespace troupe
