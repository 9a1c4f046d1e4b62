#pragma once

// Messages to and from a node's zookeeper_session actor (docs/ARCHITECTURE.md
// §7): ZooKeeper operations as requests, every answer as one zk_result, and
// the session's and watches' events for its owner. Local to a node, but in
// the type-id block like every message.

#include <cstdint>
#include <string>
#include <vector>

namespace troupe {

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

// -- inspect ------------------------------------------------------------------

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, zk_operation& x) {
  return f(x.type, x.path, x.data, x.version, x.ephemeral, x.watch);
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
           x.op_errors);
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

} // namespace troupe
