#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <caf/result.hpp>

#include "domain/cluster_config.hpp"
#include "domain/security/security_store.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

class active_controller;

namespace cluster_security {
struct sync_state;
} // namespace cluster_security

/// Another node of the cluster (or this one), as /brokers/ids/<id> and the
/// middleman know it.
struct cluster_peer {
  zk::broker_registration registration;
  /// Its published controller and its broker, once connected.
  cluster_controller_actor controller;
  broker_actor broker;
  /// Guards connection attempts: a newer attempt or registration wins.
  uint64_t attempt = 0;
  /// Its node link closed and has not come back (false too while never
  /// linked yet). A new active controller fences the brokers whose link
  /// it saw close (cluster/controller_failover.cpp).
  bool link_lost = false;
};

/// A DeleteTopics request that wrote its /admin/delete_topics znodes and
/// waits for the topics to leave the metadata (Kafka's DelayedDeleteTopics).
struct deletion_wait {
  caf::typed_response_promise<delete_topics_response> promise;
  delete_topics_response answer;
  /// The topics still to go.
  std::vector<std::string> topics;
};

/// One node's controller in a cluster of processes (docs/ARCHITECTURE.md
/// §7), Kafka's KafkaController in ZooKeeper mode. Every node runs one; it
/// registers the node's broker in /brokers/ids, watches the other brokers,
/// connects to them through CAF's middleman, and keeps the cluster's
/// metadata as the active controller last sent it. The node that wins the
/// ephemeral /controller znode is the active controller: it owns the
/// metadata in ZooKeeper (every write version-checked and fenced by
/// /controller_epoch), handles brokers that come and go with the embedded
/// controller's failure handling (cluster_metadata), and sends a
/// cluster_snapshot to every node after each change. The others forward
/// topic creation and ISR changes to it.
struct cluster_controller_state {
  cluster_config config;
  int32_t broker_id = -1;
  /// This node's endpoints: the Kafka listener (advertised) and troupe's own
  /// (zk::troupe_listener) for the other nodes.
  std::vector<zk::broker_endpoint> endpoints;
  zookeeper_session_actor zk;
  broker_actor broker;
  /// Ends the process with a reason (e.g. the broker id is taken).
  std::function<void(const std::string&)> fatal;

  // -- the ZooKeeper session ---------------------------------------------------

  int64_t session_id = 0;
  bool connected = false;
  /// Bumped per session and per loss: answers and timers of an older one
  /// are dropped.
  uint64_t session_epoch = 0;
  bool registered = false;
  /// Until then a registration that exists under another session is
  /// waited for (a restarted node's old session expiring); then it is
  /// another live node with this broker.id.
  int64_t register_deadline_ms = 0;
  /// The node lost its session and stopped serving until it registers
  /// again; or an operator stopped it (it stays out until started).
  bool stepped_down = false;
  bool admin_stopped = false;
  /// Bumped each time the broker registers: heartbeat ticks of an earlier
  /// registration are dropped (one heartbeat chain at a time).
  uint64_t heartbeat_chain = 0;
  /// What the active controller last answered: this broker is fenced.
  bool fenced = false;
  /// Controller failover over the node links
  /// (cluster/controller_failover.cpp): the id of the current suspicion
  /// (its tick carries it), since when the controller's heartbeat answers
  /// stopped (-1: they come), and the controller already suspected for
  /// that (one deposition per silence).
  uint64_t suspect_chain = 0;
  int64_t controller_silent_since_ms = -1;
  int32_t silent_controller = -1;
  int32_t suspected_controller = -1;
  /// The suspicion whose failed pre-vote was last logged (once each).
  uint64_t prevote_logged_chain = 0;

  // -- the cluster as this node sees it ------------------------------------------

  std::map<int32_t, cluster_peer> peers;
  /// The controller named in /controller, and the newest controller epoch
  /// any snapshot carried.
  int32_t controller_id = -1;
  int32_t controller_epoch = 0;
  /// The last snapshot applied: what metadata requests are answered from.
  cluster_snapshot view;
  /// The brokers last told to the local broker.
  std::vector<int32_t> told_peers;
  /// The topics the local broker was told of and not yet told gone. Kept
  /// when `view` is reset (a lost session): a topic deleted meanwhile still
  /// reaches the broker as gone with the next snapshot.
  std::set<std::string> known_topics;
  /// DeleteTopics requests waiting for their topics to go, by id.
  std::map<uint64_t, deletion_wait> deletion_waits;
  uint64_t next_deletion_wait = 0;

  // -- the active controller -----------------------------------------------------

  /// While this node is the active controller: its state and operations
  /// (cluster/active_controller.hpp); the actor's behavior is then the
  /// active one, which hands it the requests only a controller serves.
  std::shared_ptr<active_controller> active;
  /// Seeded once per node (troupe.seed): topic ids and replica placement of
  /// every controllership this node holds draw from it.
  std::mt19937_64 rng;

  // -- ACLs and SCRAM credentials (cluster/security_sync.hpp) ------------------

  /// The process's store (null: none); kept current from ZooKeeper.
  std::shared_ptr<security::security_store> security;
  std::shared_ptr<cluster_security::sync_state> security_sync;

  static inline const char* name = "cluster_controller";
};

using cluster_controller_ptr =
  cluster_controller_actor::stateful_pointer<cluster_controller_state>;

/// Waits for cluster_parts (its ZooKeeper session and broker are spawned
/// after it: both need its handle), then for the session's events. Starts
/// as a follower, which forwards what only a controller serves to the
/// active controller; becomes() the active behavior when it wins /controller
/// and bumped /controller_epoch, and the follower again when it resigns.
cluster_controller_actor::behavior_type
cluster_controller(cluster_controller_ptr self, cluster_config config,
                   std::vector<zk::broker_endpoint> endpoints,
                   std::function<void(const std::string&)> fatal,
                   std::shared_ptr<security::security_store> security);

/// What the active controller uses of its node (cluster_controller.cpp).
namespace node_agent {

/// One ZooKeeper operation; `then` gets the result (a lost session actor
/// reads as CLOSING). Dropped when the session epoch moved on meanwhile.
void zk_ask(cluster_controller_ptr self, zk_operation op,
            std::function<void(zk_result&)> then);

/// Several operations, all or none; always answered.
void zk_multi(cluster_controller_ptr self, std::vector<zk_operation> ops,
              std::function<void(zk_result&)> then);

/// Brokers registered in /brokers/ids, ascending.
std::vector<int32_t> registered_brokers(const cluster_controller_state& st);

/// Applies the active controller's view: changed partitions go to the local
/// broker; older controller epochs are ignored.
void apply_snapshot(cluster_controller_ptr self, cluster_snapshot s);

/// A metadata write or read failed with an unknown outcome (ZooKeeper slow
/// or briefly gone, the session still alive): resign, and run the election
/// again a little later. While this node's session still holds
/// /controller it becomes active again and reads ZooKeeper afresh (Kafka's
/// controller retries its ZooKeeper requests until the session expires);
/// if a newer controller won meanwhile, it follows that one. Without this a
/// resigned controller would keep /controller and leave the cluster with
/// no active controller until its session expired.
void resign_and_retry(cluster_controller_ptr self, const std::string& why);

// -- the broker's dynamic configs (cluster/broker_configs.cpp) ----------------

/// Reads /config/brokers/<own id> with a watch and tells the local broker;
/// at every registration (a new session has no watches).
void watch_broker_configs(cluster_controller_ptr self);

/// A watch on `path` fired: true when it was the broker's config znode
/// (read again).
bool on_broker_configs_watch(cluster_controller_ptr self,
                             const std::string& path);

/// AlterConfigs on this node's broker: stored in /config/brokers/<id>,
/// then applied.
caf::result<alter_broker_configs_response>
alter_broker_configs(cluster_controller_ptr self,
                     alter_broker_configs_request& req);

// -- controller failover over the node links (cluster/controller_failover.cpp)

/// The active controller's node link closed (its down_msg).
void on_controller_link_lost(cluster_controller_ptr self);

/// A heartbeat to the active controller was answered, or was not.
void on_controller_heartbeat(cluster_controller_ptr self, bool answered);

/// A controller_suspect tick.
void on_controller_suspect(cluster_controller_ptr self, const cluster_tick& t);

/// Another broker's pre-vote before it deposes the controller: whether
/// this broker stopped hearing that controller too.
controller_silence_vote silence_vote(cluster_controller_ptr self,
                                     const controller_silence_query& q);

} // namespace node_agent

} // namespace troupe
