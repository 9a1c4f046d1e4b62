#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "domain/cluster_config.hpp"
#include "domain/log/segment_log.hpp"
#include "domain/replication/leader_epoch_cache.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// A partition's log and the leader epochs found in it (Kafka's Log and its
/// LeaderEpochFileCache, rebuilt from the batches' partition leader epochs
/// when the log is opened instead of kept in a checkpoint file).
struct managed_log {
  std::unique_ptr<segment_log> log;
  leader_epoch_cache epochs;
};

/// One per broker: owns the broker's partition logs under
/// `<log.dirs>/broker-<id>/<topic>-<partition>` (Kafka's LogManager). File
/// I/O blocks, so spawn it detached (caf::detached): a slow disk stalls its
/// own thread, never the actor scheduler. A failed disk answers
/// KAFKA_STORAGE_ERROR; the broker stays up.
struct log_manager_state {
  std::string dir;
  log_config config;
  int64_t retention_check_interval_ms = 300000;
  std::map<topic_partition, managed_log> logs;
  /// Partitions whose topic was deleted: a stray request of a replica that
  /// was stopping finds nothing instead of creating the log again; only a
  /// new replica's open (a plain log_epoch_request) clears the mark.
  std::set<topic_partition> deleted;

  static inline const char* name = "log_manager";
};

using log_manager_ptr = log_manager_actor::stateful_pointer<log_manager_state>;

log_manager_actor::behavior_type
log_manager(log_manager_ptr self, std::string dir, cluster_config config);

} // namespace troupe
