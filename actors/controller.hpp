#pragma once

#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "domain/cluster_config.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "messages/interfaces.hpp"
#include "storage/metadata_file.hpp"

namespace troupe {

/// The cluster's metadata (Kafka kept it in ZooKeeper): brokers and whether
/// they are alive, topics, each partition's replicas, leader, leader epoch
/// and ISR. Persisted to `<log.dirs>/__cluster_metadata` after every
/// change, so a restarted node comes back with it. Spawned detached: its
/// file writes block its own thread only.
struct controller_state {
  cluster_config config;
  cluster_metadata metadata;
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
/// exists but cannot be read.
std::variant<cluster_metadata, std::string>
load_cluster_metadata(const cluster_config& config);

/// Also answers DeleteTopics and hands out producer ids in blocks
/// (admin_controller_actor).
embedded_controller_actor::behavior_type
controller(controller_ptr self, cluster_config config,
           cluster_metadata metadata);

} // namespace troupe
