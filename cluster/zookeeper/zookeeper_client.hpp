#pragma once

// An asynchronous ZooKeeper client for actors: a small wrapper over
// ZooKeeper's C client (libzookeeper-mt). No CAF here; the actor layer wraps
// it (cluster/zookeeper_session, docs/ARCHITECTURE.md §7).
//
// Threads. Every result, watch and session event is delivered by calling a
// handler on one of ZooKeeper's own threads (the handle's completion thread;
// a request that fails before it is sent is answered at once on the calling
// thread). A handler must not block and must not wait for ZooKeeper: an
// actor turns each call into a message to itself (anon_send) and returns.
// The client's member functions are called from one thread at a time (the
// owning actor's).
//
// Lifetime. Destroying the client ends its session (ephemeral znodes go
// away) and drops every handler still outstanding: none is called after the
// destructor has begun, so a handler may safely refer to its owner. The
// destructor may block for one round trip to the server (ZooKeeper's
// zookeeper_close, bounded by its own 4.5 s); called from inside a handler,
// it closes on a helper thread instead.
//
// Sessions. A session survives disconnects shorter than its timeout
// (session_state::connecting, then connected again, watches kept). When
// ZooKeeper expires it (session_state::expired), its ephemeral znodes and
// watches are gone and the handle is dead: the owner calls reconnect() for a
// new session, then re-creates its ephemerals and re-reads what it watches,
// as Kafka's ZooKeeperClient.reinitialize and its state-change handlers do.
// Requests are not retried here; CONNECTIONLOSS is the owner's to retry.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/zookeeper/connect_string.hpp"

namespace troupe::cluster {

// -- results -----------------------------------------------------------------------

/// ZooKeeper's return codes (KeeperException.Code), by name.
enum class zk_error {
  ok,
  no_node,                    // NONODE
  node_exists,                // NODEEXISTS
  bad_version,                // BADVERSION: a version-checked write lost
  not_empty,                  // NOTEMPTY: delete of a node with children
  no_children_for_ephemerals, // NOCHILDRENFOREPHEMERALS
  connection_loss,            // CONNECTIONLOSS: outcome unknown, may retry
  operation_timeout,          // OPERATIONTIMEOUT
  session_expired,            // SESSIONEXPIRED
  session_moved,              // SESSIONMOVED
  closing,                    // ZCLOSING: the handle is being closed
  invalid_state,              // the handle is dead (expired, failed)
  bad_arguments,              // BADARGUMENTS, e.g. an invalid path
  no_auth,                    // NOAUTH
  auth_failed,                // AUTHFAILED
  invalid_acl,                // INVALIDACL
  not_read_only,              // NOTREADONLY
  marshalling_error,          // MARSHALLINGERROR
  throttled,                  // THROTTLEDOP
  system_error,               // SYSTEMERROR and the rest
};

/// ZooKeeper's upper-case name, e.g. "BADVERSION".
std::string_view to_string(zk_error error);

/// True when the same request may succeed once connected again.
bool is_retriable(zk_error error);

/// A znode's Stat; `version` is Kafka's zkVersion.
struct znode_stat {
  int64_t czxid = 0;
  int64_t mzxid = 0;
  int64_t ctime = 0;
  int64_t mtime = 0;
  int32_t version = 0;
  int32_t cversion = 0;
  int32_t aversion = 0;
  int64_t ephemeral_owner = 0; // session id of an ephemeral's owner, else 0
  int32_t data_length = 0;
  int32_t num_children = 0;
  int64_t pzxid = 0;
};

struct create_result {
  zk_error error = zk_error::ok;
  std::string path; // the created path (differs for sequential nodes)
};

struct stat_result {
  zk_error error = zk_error::ok;
  znode_stat stat;
};

struct data_result {
  zk_error error = zk_error::ok;
  std::string data; // empty for a znode created without data
  znode_stat stat;
};

struct children_result {
  zk_error error = zk_error::ok;
  std::vector<std::string> children; // names, not paths, in no order
  znode_stat stat;                   // the parent's
};

struct multi_result {
  zk_error error = zk_error::ok; // the first failing op's error, or ok
  std::vector<zk_error> op_errors;
};

// -- requests ----------------------------------------------------------------------

/// Matches any version in set, remove and check (ZkVersion.MatchAnyVersion).
inline constexpr int32_t any_version = -1;

enum class create_mode {
  persistent,
  ephemeral,
  persistent_sequential,
  ephemeral_sequential,
};

/// One operation of an atomic multi (Kafka fences a controller's writes with
/// a check of /controller_epoch's version in the same multi).
struct zk_op {
  enum class kind { create, remove, set, check };
  kind type = kind::check;
  std::string path;
  std::string data;
  int32_t version = any_version;
  create_mode mode = create_mode::persistent;

  static zk_op create(std::string path, std::string data,
                      create_mode mode = create_mode::persistent) {
    return {kind::create, std::move(path), std::move(data), any_version, mode};
  }
  static zk_op remove(std::string path, int32_t version = any_version) {
    return {
      kind::remove, std::move(path), {}, version, create_mode::persistent};
  }
  static zk_op set(std::string path, std::string data, int32_t version) {
    return {kind::set, std::move(path), std::move(data), version,
            create_mode::persistent};
  }
  static zk_op check(std::string path, int32_t version) {
    return {kind::check, std::move(path), {}, version, create_mode::persistent};
  }
};

// -- events ------------------------------------------------------------------------

enum class session_state {
  connecting, // not (yet, or no longer) connected; the client keeps trying
  connected,
  read_only, // connected to a read-only server
  expired,   // gone for good: reconnect() for a new session
  auth_failed,
};

/// "CONNECTING", "CONNECTED", ...
std::string_view to_string(session_state state);

struct session_event {
  session_state state = session_state::connecting;
  int64_t session_id = 0;            // once connected
  int32_t negotiated_timeout_ms = 0; // the server's choice, once connected
};

enum class watch_kind {
  created,
  deleted,
  data_changed,
  children_changed,
  not_watching, // the server dropped the watch
};

/// A one-shot watch fired. The path is relative to the chroot.
struct watch_event {
  watch_kind kind = watch_kind::data_changed;
  std::string path;
};

// -- configuration -----------------------------------------------------------------

struct zookeeper_config {
  /// zookeeper.connect: host:port[,host:port...][/chroot].
  std::string connect;
  /// zookeeper.session.timeout.ms (Kafka's default); the server bounds it by
  /// its min/maxSessionTimeout.
  int32_t session_timeout_ms = 18000;
  /// troupe.zookeeper.digest, "user:password": every session of the client
  /// authenticates with zoo_add_auth("digest", ...), as Kafka's brokers do
  /// with their JAAS login (empty: anonymous).
  std::string digest;
  /// zookeeper.set.acl: every znode the client creates gets Kafka's ACLs
  /// (kafka_default_acls) instead of world:anyone ALL.
  bool set_acl = false;
};

/// One ACL entry of a znode: ZooKeeper's permission bits (READ 1, WRITE 2,
/// CREATE 4, DELETE 8, ADMIN 16, ALL 31), scheme and id.
struct zk_acl_entry {
  int32_t perms = 0;
  std::string scheme;
  std::string id;

  friend bool operator==(const zk_acl_entry& x, const zk_acl_entry& y) {
    return x.perms == y.perms && x.scheme == y.scheme && x.id == y.id;
  }
};

/// Kafka's ZkData.defaultAcls (3.9): with zookeeper.set.acl, the creator's
/// identity gets ALL (auth:"") and everyone READ (world:anyone), except
/// that the sensitive paths (/config/users, /config/brokers,
/// /delegation_token/tokens and below) are readable by the creator only;
/// /consumers (the old consumers' path) and every znode without
/// zookeeper.set.acl stay open (world:anyone ALL). `path` is relative to
/// the chroot.
std::vector<zk_acl_entry> kafka_default_acls(bool secure,
                                             std::string_view path);

// -- the client --------------------------------------------------------------------

class zookeeper_client {
public:
  template <class Result>
  using handler = std::function<void(Result)>;
  using session_handler = std::function<void(const session_event&)>;
  using watch_handler = std::function<void(const watch_event&)>;

  struct control_block;
  struct session;

  // -- constructors, destructors ---------------------------------------------------

  /// Parses the connect string and starts connecting; it does not wait for
  /// the connection (session_handler hears of it). Fails only on a bad
  /// connect string or a handle ZooKeeper cannot create (e.g. an
  /// unresolvable host).
  static std::variant<std::unique_ptr<zookeeper_client>, std::string>
  connect(zookeeper_config config, session_handler on_session,
          watch_handler on_watch);

  ~zookeeper_client();

  zookeeper_client(const zookeeper_client&) = delete;
  zookeeper_client& operator=(const zookeeper_client&) = delete;

  // -- requests: each handler is called exactly once (unless destroyed first) ------

  void create(const std::string& path, std::string data, create_mode mode,
              handler<create_result> done);

  /// Kafka's KafkaZkClient.createRecursive: creates `path`, and first its
  /// missing parents (persistent, no data) when ZooKeeper answers NONODE.
  /// NODEEXISTS of `path` itself is reported.
  void create_recursive(const std::string& path, std::string data,
                        create_mode mode, handler<create_result> done);

  /// Reads data and stat; `watch` sets a data watch (fires on change or
  /// delete) when the znode exists.
  void get(const std::string& path, bool watch, handler<data_result> done);

  /// Writes when the znode's version is `version` (or any_version), else
  /// BADVERSION.
  void set(const std::string& path, std::string data, int32_t version,
           handler<stat_result> done);

  /// Deletes when the version matches (or any_version).
  void remove(const std::string& path, int32_t version, handler<zk_error> done);

  /// NONODE when absent; `watch` then waits for its creation, otherwise for
  /// its change or deletion.
  void exists(const std::string& path, bool watch, handler<stat_result> done);

  /// `watch` sets a child watch (fires when a child is added or removed, or
  /// the znode is deleted).
  void get_children(const std::string& path, bool watch,
                    handler<children_result> done);

  /// All ops or none, atomically.
  void multi(std::vector<zk_op> ops, handler<multi_result> done);

  // -- sessions --------------------------------------------------------------------

  /// Ends the current session (its ephemerals go) and starts a new one.
  /// Requests of the old session still outstanding are answered (CLOSING,
  /// SESSIONEXPIRED), some of them on this thread before it returns. Empty
  /// on success; otherwise
  /// why no handle could be created (requests then fail with invalid_state
  /// until a later reconnect() succeeds).
  std::string reconnect();

  session_state state() const;

  /// 0 until connected.
  int64_t session_id() const;

  const zk::connect_string& connect_string() const noexcept {
    return connect_;
  }

private:
  zookeeper_client(zk::connect_string connect, int32_t session_timeout_ms,
                   std::shared_ptr<control_block> cb);

  std::string open_session();

  zk::connect_string connect_;
  int32_t session_timeout_ms_;
  std::string digest_;
  std::shared_ptr<control_block> cb_;
  std::unique_ptr<session> session_;
};

} // namespace troupe::cluster
