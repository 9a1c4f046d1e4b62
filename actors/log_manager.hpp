#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "domain/cluster_config.hpp"
#include "domain/log/log_cleaner.hpp"
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
  /// The cleaner's first dirty offset (its cleaner-offset-checkpoint), -1
  /// before the first clean.
  int64_t cleaner_checkpoint = -1;
  /// The highest high watermark its replica reported (appends, consumer
  /// reads): the cleaner cleans whole segments below it only, so nothing
  /// a truncation could still remove is compacted away (Kafka cleans below
  /// the last stable offset). From the cleaner checkpoint at open.
  int64_t stable_offset = -1;
  /// When the cleaner looks at this log again (log.cleaner.backoff.ms).
  int64_t next_clean_check_ms = 0;
  /// The stable offset last written to its replication-offset-checkpoint.
  int64_t checkpointed_hw = -1;
};

/// The clean in progress: one log at a time, as Kafka's single cleaner
/// thread (log.cleaner.threads = 1), in slices between other messages.
struct log_cleaning {
  topic_partition partition;
  std::unique_ptr<log_cleaner> cleaner;
  uint64_t bytes_before = 0;
};

/// One per broker: owns the broker's partition logs under
/// `<log.dirs>/broker-<id>/<topic>-<partition>` (Kafka's LogManager). File
/// I/O blocks, so spawn it detached (caf::detached): a slow disk stalls its
/// own thread, never the actor scheduler. A failed disk answers
/// KAFKA_STORAGE_ERROR; the broker stays up.
struct log_manager_state {
  std::string dir;
  /// The broker's settings: default_log_config for each topic, the
  /// cleaner's log.cleaner.* settings.
  cluster_config config;
  /// Topics whose configs were changed (topic_log_config): these replace
  /// the defaults for every partition of the topic.
  std::map<std::string, log_config> topic_configs;
  int64_t retention_check_interval_ms = 300000;
  /// When the high watermarks were last checkpointed
  /// (replica.high.watermark.checkpoint.interval.ms), and the partitions'
  /// high watermarks as the checkpoint file holds them.
  int64_t hw_checkpoint_ms = 0;
  std::map<topic_partition, int64_t> hw_checkpoint;
  std::map<topic_partition, managed_log> logs;
  /// Partitions whose topic was deleted: a stray request of a replica that
  /// was stopping finds nothing instead of creating the log again; only a
  /// new replica's open (a plain log_epoch_request) clears the mark.
  std::set<topic_partition> deleted;
  /// The cleaner (docs/ARCHITECTURE.md §4): the clean in progress, and the
  /// throttle's window (log.cleaner.io.max.bytes.per.second, Kafka's
  /// Throttler): bytes since the window began.
  std::optional<log_cleaning> cleaning;
  int64_t throttle_start_ms = 0;
  double throttle_bytes = 0;
  /// The wall clock (record timestamps, delete horizons) as an offset from
  /// the actor clock, fixed at spawn (see log_clock_ms).
  int64_t clock_shift_ms = 0;

  static inline const char* name = "log_manager";
};

using log_manager_ptr = log_manager_actor::stateful_pointer<log_manager_state>;

log_manager_actor::behavior_type
log_manager(log_manager_ptr self, std::string dir, cluster_config config);

} // namespace troupe
