#pragma once

#include <map>
#include <memory>
#include <string>

#include "domain/cluster_config.hpp"
#include "domain/log/segment_log.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per broker: owns the broker's partition logs under
/// `<log.dirs>/broker-<id>/<topic>-<partition>` (Kafka's LogManager). File
/// I/O blocks, so spawn it detached (caf::detached): a slow disk stalls its
/// own thread, never the actor scheduler. A failed disk answers
/// KAFKA_STORAGE_ERROR; the broker stays up.
struct log_manager_state {
  std::string dir;
  log_config config;
  int64_t retention_check_interval_ms = 300000;
  std::map<topic_partition, std::unique_ptr<segment_log>> logs;

  static inline const char* name = "log_manager";
};

using log_manager_ptr = log_manager_actor::stateful_pointer<log_manager_state>;

log_manager_actor::behavior_type
log_manager(log_manager_ptr self, std::string dir, cluster_config config);

} // namespace troupe
