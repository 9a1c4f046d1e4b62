#pragma once

// The messages of the ZooKeeper mode (docs/ARCHITECTURE.md §7), between the
// actors in cluster/: a node's zookeeper_session (ZooKeeper operations as
// requests, every answer as one zk_result, the session's and watches' events
// for its owner) and the nodes' cluster_controllers (the active
// controller's snapshots, a node's parts and timers). Plain structs with
// inspect(), listed in the type-id block of messages/type_ids.hpp like every
// message; actor handles travel as caf::actor so that they serialize across
// nodes.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "messages/cluster_messages.hpp"

namespace troupe {

// -- a node's ZooKeeper session (cluster/zookeeper_session) ---------------------

/// One ZooKeeper operation (cluster::zk_op's fields, for multi too).
struct zk_operation {
  /// create, remove, set, check (cluster::zk_op::kind), get, exists,
  /// children.
  enum class kind : uint8_t {
    create,
    remove,
    set,
    check,
    get,
    exists,
    children,
    create_recursive,
  };
  kind type = kind::get;
  std::string path;
  std::string data;
  /// zkVersion for remove/set/check; -1 matches any.
  int32_t version = -1;
  bool ephemeral = false;
  /// create: ZooKeeper appends a sequence number to the path (Kafka's
  /// PERSISTENT_SEQUENTIAL, /config/changes/config_change_).
  bool sequential = false;
  /// get, exists, children: leave a watch.
  bool watch = false;
};

/// A single operation.
struct zk_request {
  zk_operation op;
};

/// Several create/remove/set/check operations, all or none.
struct zk_multi_request {
  std::vector<zk_operation> ops;
};

/// The answer to either: `error` is cluster::zk_error as an integer (0 ok).
struct zk_result {
  int32_t error = 0;
  std::string data;
  /// The created path, or the path asked about.
  std::string path;
  /// The znode's zkVersion (its Stat's version).
  int32_t version = -1;
  /// Session id owning an ephemeral znode, else 0.
  int64_t ephemeral_owner = 0;
  std::vector<std::string> children;
  /// A multi's per-operation errors.
  std::vector<int32_t> op_errors;
  /// get, exists: when the znode was created (its Stat's ctime, ms since
  /// the epoch).
  int64_t ctime_ms = 0;
};

/// Posted from ZooKeeper's thread to the session actor: the answer of
/// request `id`.
struct zk_completion {
  uint64_t id = 0;
  zk_result result;
};

/// The session changed state (cluster::session_state as an integer).
struct zk_session_event {
  int32_t state = 0;
  int64_t session_id = 0;
  int32_t negotiated_timeout_ms = 0;
};

/// A one-shot watch fired (cluster::watch_kind as an integer).
struct zk_watch_event {
  int32_t kind = 0;
  std::string path;
};

/// The owner asks for a new session after the old one expired.
struct zk_reconnect {
  // nop
};

// -- the nodes' controllers (cluster/cluster_controller) -------------------------

/// The active controller's view of the cluster, sent to every node's
/// controller after each change; a node ignores one from an older
/// controller epoch than the newest it has seen.
struct cluster_snapshot {
  int32_t controller_epoch = 0;
  int32_t controller_id = -1;
  std::vector<int32_t> live_brokers;
  std::vector<topic_metadata> topics;
};

/// Asks a node's controller for its broker.
struct node_info_request {
  // nop
};

struct node_info {
  int32_t broker_id = -1;
  caf::actor broker;
};

/// A node hands its controller the ZooKeeper session and the broker, which
/// are spawned after it (both need its handle).
struct cluster_parts {
  caf::actor zk;
  caf::actor broker;
};

/// A broker's heartbeat to the active controller over the node link
/// (KIP-631's BrokerHeartbeat, docs/ARCHITECTURE.md §7), every
/// broker.heartbeat.interval.ms. `registration_ms` is the timestamp of the
/// broker's /brokers/ids registration, so that a heartbeat of an earlier
/// incarnation of the broker is not taken for the current one.
struct broker_heartbeat {
  int32_t broker_id = -1;
  int64_t registration_ms = 0;
};

/// The controller's answer: whether the broker is fenced (out of every
/// ISR, leading nothing) and the controller epoch that says so.
struct broker_heartbeat_response {
  int32_t controller_epoch = 0;
  bool fenced = false;
};

/// Before deposing the active controller, a broker asks the brokers it
/// still reaches whether they stopped hearing it too
/// (cluster/controller_failover.cpp): Raft's pre-vote. A broker cut off
/// from the other brokers but not from ZooKeeper gets no answers and
/// deposes nobody.
struct controller_silence_query {
  /// The broker asking, and the controller it suspects.
  int32_t broker_id = -1;
  int32_t controller_id = -1;
};

/// The answer: whether the answering broker finds that controller silent
/// too (its node link closed, or a heartbeat unanswered since the last
/// answer), or already names another controller.
struct controller_silence_vote {
  int32_t broker_id = -1;
  bool silent = false;
};

/// A cluster controller's own timers; stale epochs are ignored.
struct cluster_tick {
  enum class kind : uint8_t {
    register_broker,
    connect_peer,
    session_deadline,
    elect,
    /// A DeleteTopics request's wait ends (epoch: the wait's id).
    deletion_deadline,
    /// This broker's next heartbeat to the active controller.
    heartbeat,
    /// The active controller checks the brokers' sessions (fencing);
    /// epoch: the controller epoch.
    broker_sessions,
    /// The active controller's leader imbalance check
    /// (leader.imbalance.check.interval.seconds); epoch: the controller
    /// epoch.
    leader_balance,
    /// A broker that lost the active controller's node link (or its
    /// heartbeat answers) checks whether to depose it
    /// (cluster/controller_failover.cpp); epoch: the suspicion's id,
    /// broker_id: the controller suspected.
    controller_suspect,
  };
  kind what = kind::register_broker;
  uint64_t epoch = 0;
  int32_t broker_id = -1;
};

// -- inspect ------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_operation& x) {
  return f(x.type, x.path, x.data, x.version, x.ephemeral, x.sequential,
           x.watch);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_request& x) {
  return f(x.op);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_multi_request& x) {
  return f(x.ops);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_result& x) {
  return f(x.error, x.data, x.path, x.version, x.ephemeral_owner, x.children,
           x.op_errors, x.ctime_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_completion& x) {
  return f(x.id, x.result);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_session_event& x) {
  return f(x.state, x.session_id, x.negotiated_timeout_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_watch_event& x) {
  return f(x.kind, x.path);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_reconnect&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_snapshot& x) {
  return f(x.controller_epoch, x.controller_id, x.live_brokers, x.topics);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_info_request&) {
  return f();
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_info& x) {
  return f(x.broker_id, x.broker);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_parts& x) {
  return f(x.zk, x.broker);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broker_heartbeat& x) {
  return f(x.broker_id, x.registration_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        broker_heartbeat_response& x) {
  return f(x.controller_epoch, x.fenced);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        controller_silence_query& x) {
  return f(x.broker_id, x.controller_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        controller_silence_vote& x) {
  return f(x.broker_id, x.silent);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_tick& x) {
  return f(x.what, x.epoch, x.broker_id);
}

} // namespace troupe
