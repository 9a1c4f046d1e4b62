#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "domain/cluster_config.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// Another node of the cluster (or this one), as /brokers/ids/<id> and the
/// middleman know it.
struct cluster_peer {
  zk::broker_registration registration;
  /// Its published controller and its broker, once connected.
  cluster_controller_actor controller;
  broker_actor broker;
  /// Guards connection attempts: a newer attempt or registration wins.
  uint64_t attempt = 0;
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

  // -- the active controller -----------------------------------------------------

  bool active = false;
  /// zkVersion of /controller_epoch as this controller wrote it: every
  /// write checks it, so a deposed controller's writes fail.
  int32_t epoch_zk_version = -1;
  /// The metadata as stored in ZooKeeper; partition_epoch is each state
  /// znode's zkVersion.
  cluster_metadata metadata;
  /// Operations run one at a time, each with its ZooKeeper write, like
  /// Kafka's controller event queue; called with true when the
  /// controllership ends before they ran (they answer NOT_CONTROLLER).
  std::deque<std::function<void(bool)>> ops;
  bool op_running = false;
  std::mt19937_64 rng;

  static inline const char* name = "cluster_controller";
};

using cluster_controller_ptr =
  cluster_controller_actor::stateful_pointer<cluster_controller_state>;

/// Waits for cluster_parts (its ZooKeeper session and broker are spawned
/// after it: both need its handle), then for the session's events.
cluster_controller_actor::behavior_type
cluster_controller(cluster_controller_ptr self, cluster_config config,
                   std::vector<zk::broker_endpoint> endpoints,
                   std::function<void(const std::string&)> fatal);

} // namespace troupe
