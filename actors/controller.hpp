#pragma once

#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "domain/cluster_config.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/security/security_store.hpp"
#include "messages/interfaces.hpp"
#include "storage/metadata_file.hpp"

namespace troupe {

/// The ACLs and SCRAM credentials a controller starts with, and the
/// process's store it keeps current (null: none, e.g. in tests).
struct controller_security {
  std::shared_ptr<security::security_store> store;
  stored_security stored;
};

/// The cluster's metadata (Kafka kept it in ZooKeeper): brokers and whether
/// they are alive, topics, each partition's replicas, leader, leader epoch
/// and ISR, and the ACLs and SCRAM credentials (docs/ARCHITECTURE.md §9).
/// Persisted to `<log.dirs>/__cluster_metadata` after every change, so a
/// restarted node comes back with it. Spawned detached: its file writes
/// block its own thread only.
struct controller_state {
  cluster_config config;
  cluster_metadata metadata;
  /// CreateAcls, DeleteAcls and AlterUserScramCredentials change these;
  /// after each change (and at start) the store's snapshot is replaced.
  stored_security secured;
  std::shared_ptr<security::security_store> store;
  std::unique_ptr<metadata_file> file;
  /// The brokers to tell about leadership changes.
  std::vector<broker_info> brokers;
  /// Topic ids (Kafka's Uuid.randomUuid).
  std::mt19937_64 rng;

  static inline const char* name = "controller";
};

using controller_ptr =
  embedded_controller_actor::stateful_pointer<controller_state>;

/// Reads `<log.dirs>/__cluster_metadata` (blocking: call it before
/// spawning) and registers the node's brokers; the error text when the file
/// exists but cannot be read. `security` (if not null) receives the stored
/// ACLs and SCRAM credentials.
std::variant<cluster_metadata, std::string>
load_cluster_metadata(const cluster_config& config,
                      stored_security* security = nullptr);

/// Also answers DeleteTopics and hands out producer ids in blocks
/// (admin_controller_actor), and CreateAcls, DeleteAcls and
/// AlterUserScramCredentials (security_admin_actor).
embedded_controller_actor::behavior_type
controller(controller_ptr self, cluster_config config,
           cluster_metadata metadata, controller_security security);

} // namespace troupe
