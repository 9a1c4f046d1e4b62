#pragma once

// Kafka's log compaction (LogCleaner, Cleaner.doClean, LogCleanerManager),
// docs/ARCHITECTURE.md §4: for each key the last record is kept; offsets
// never move, so a cleaned log has holes. Plain C++ over one segment_log,
// run in bounded slices by the broker's log manager on its own thread.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "domain/log/record_batches.hpp"
#include "domain/log/segment_log.hpp"

namespace troupe {

/// The cleaner's broker-level settings beside the topic's log_config.
struct cleaner_options {
  /// log.cleaner.dedupe.buffer.size: what the key → offset map of one
  /// clean may hold (offset_map::bytes_per_key per key); a clean whose
  /// dirty keys do not fit covers a prefix of the dirty segments and the
  /// next clean goes on from there.
  size_t max_map_bytes = 128u << 20;
  /// producer.id.expiration.ms: a producer id whose last batch is older is
  /// no longer active, and its last batch need not be kept.
  int64_t producer_id_expiration_ms = 86400000;
};

/// Kafka's LogToClean: the part of a log a clean would cover.
struct cleanable_log {
  /// Where the uncleaned part starts (the cleaner's checkpoint, within
  /// [log start, first uncleanable]).
  int64_t first_dirty_offset = 0;
  /// The base offset of the first segment the clean may not touch: the
  /// active segment, the first one holding a record newer than
  /// min.compaction.lag.ms, or the one holding the stable offset.
  int64_t first_uncleanable_offset = 0;
  /// Bytes of [log start, first dirty) and [first dirty, first uncleanable).
  uint64_t clean_bytes = 0;
  uint64_t cleanable_bytes = 0;
  /// max.compaction.lag.ms has passed for the oldest dirty segment.
  bool compaction_due = false;

  /// Kafka's cleanableRatio: cleanable bytes / (clean + cleanable bytes).
  double dirty_ratio() const {
    auto total = clean_bytes + cleanable_bytes;
    return total == 0 ? 0.0 : static_cast<double>(cleanable_bytes) / total;
  }
};

/// Kafka's LogCleanerManager.cleanableOffsets and LogToClean for a log of
/// cleanup.policy compact, with `checkpoint` its first dirty offset (-1:
/// none yet). `stable_offset` caps the cleanable part to whole segments
/// below it (Kafka never cleans beyond the last stable offset, which is at
/// most the high watermark). nullopt on a read error.
std::optional<cleanable_log> find_cleanable(segment_log& log,
                                            int64_t checkpoint, int64_t now_ms,
                                            int64_t stable_offset = INT64_MAX);

/// LogCleanerManager.grabFilthiestCompactedLog's test: a dirty ratio above
/// min.cleanable.dirty.ratio, or max.compaction.lag.ms passed, with
/// something cleanable.
bool needs_cleaning(const cleanable_log& c, const log_config& config);

/// The cleaner's offset checkpoint of one partition (Kafka keeps
/// cleaner-offset-checkpoint per log directory): the first dirty offset,
/// in Kafka's checkpoint format (version 0, a count, the entry). -1 when
/// there is none or it does not parse.
int64_t read_cleaner_checkpoint(const std::string& dir);
/// Writes it atomically (a temporary file, fsync, rename, fsync of the
/// directory); false with errno set on failure.
bool write_cleaner_checkpoint(const std::string& dir, int64_t offset);

/// Kafka's SkimpyOffsetMap: key → latest offset, each key held as a 128-bit
/// hash (Kafka uses MD5's 16 bytes) in an open-addressed table, so the map
/// costs the same per key whatever the key's size. Two keys with the same
/// 128-bit hash would be taken for one, as in Kafka.
class offset_map {
public:
  /// Bytes a key costs in the map (a 24-byte slot at a load of at most 1/2).
  static constexpr size_t bytes_per_key = 48;

  void put(const uint8_t* key, size_t size, int64_t offset);
  /// The latest offset of the key, -1 when it is not in the map.
  int64_t get(const uint8_t* key, size_t size) const;
  size_t size() const {
    return used_;
  }
  bool empty() const {
    return used_ == 0;
  }

private:
  struct slot {
    uint64_t h1 = 0;
    uint64_t h2 = 0;
    int64_t offset = -1; // -1: empty
  };

  size_t find(uint64_t h1, uint64_t h2) const;
  void grow();

  std::vector<slot> slots_;
  size_t used_ = 0;
};

/// What one clean did.
struct clean_stats {
  uint64_t bytes_read = 0;     // map building and copying together
  uint64_t bytes_written = 0;  // the cleaned segments
  uint64_t segments_before = 0;
  uint64_t segments_after = 0;
  uint64_t bytes_before = 0; // of the segments that were replaced
  uint64_t bytes_after = 0;
  uint64_t records_read = 0;
  uint64_t records_kept = 0;
  uint64_t tombstones_dropped = 0;
  uint64_t batches_kept_whole = 0; // compressed or untouched
};

/// One clean of one log (Kafka's Cleaner.doClean), in slices: each step()
/// reads at most about `max_read_bytes` (at least one batch) and returns.
/// Between steps the log may take appends and reads. A retention run,
/// truncation or another swap of the log in between (its generation()
/// changes) aborts the clean: its .cleaned files go, the log is as it was.
///
/// The rules, as Kafka's:
/// - the key → offset map is built from the dirty segments [first dirty,
///   first uncleanable); then every segment from the log start to where the
///   map ends is rewritten, in groups of consecutive segments whose total
///   size fits segment.bytes (groupSegmentsBySize), each group into one
///   segment named by its first base offset;
/// - a record is kept when no later record of its key is in the map, and
///   it has a value or is a tombstone whose batch's delete horizon has not
///   passed; a record without a key is dropped;
/// - the first clean that keeps a tombstone sets its batch's delete
///   horizon to now + delete.retention.ms (KIP-534: attributes bit 6,
///   baseTimestamp); a later clean after the horizon drops it;
/// - the last batch of each active producer id is kept, with no records if
///   none survive, so the producer's sequence and epoch survive;
/// - control batches keep their records; a marker of an emptied
///   transaction gets a delete horizon and goes after it (troupe refuses
///   transactional produces, so these only come from replicated logs);
/// - a rewritten batch keeps its base offset, last offset delta, leader
///   epoch, producer fields and flags; its CRC is recomputed; a batch whose
///   records all stay is copied as it is;
/// - compressed batches are kept whole: troupe does not decompress, so
///   their keys are neither read into the map nor compacted.
class log_cleaner {
public:
  enum class status {
    running, // call step() again
    done,    // cleaned_to() is the new first dirty offset
    aborted, // the log changed or an I/O error: nothing was replaced
    stopped, // the fault hook stopped it (a simulated crash)
  };

  log_cleaner(segment_log& log, const cleanable_log& range, int64_t now_ms,
              cleaner_options options = {});
  log_cleaner(const log_cleaner&) = delete;
  log_cleaner& operator=(const log_cleaner&) = delete;
  /// An unfinished clean is aborted (its .cleaned files deleted), unless
  /// the fault hook stopped it.
  ~log_cleaner();

  status step(size_t max_read_bytes);

  /// Abandons the clean: its .cleaned files are deleted.
  void abort();

  /// Tests: called before each file step of every swap.
  void set_fault_hook(segment_log::fault_hook hook) {
    hook_ = std::move(hook);
  }

  int64_t cleaned_to() const {
    return map_end_;
  }
  const clean_stats& stats() const {
    return stats_;
  }
  /// Why it aborted.
  const std::string& error() const {
    return error_;
  }

private:
  enum class phase { producers, map, clean, finished };

  struct producer_last {
    int64_t last_offset = -1;
    int64_t max_timestamp = -1;
  };

  status fail(const std::string& why);
  status step_producers(size_t budget);
  status step_map(size_t budget);
  status step_clean(size_t budget);
  bool plan_groups();
  error_code clean_batch(const batch_view& b);

  segment_log& log_;
  cleanable_log range_;
  int64_t now_ms_;
  cleaner_options options_;
  uint64_t generation_;
  phase phase_ = phase::producers;
  status status_ = status::running;
  std::string error_;
  clean_stats stats_;
  segment_log::fault_hook hook_;

  // Where the walk is: a segment (by base offset) and a file position.
  std::vector<segment_log::segment_summary> segments_;
  size_t segment_index_ = 0;
  uint64_t position_ = 0;

  std::unordered_map<int64_t, producer_last> producers_;
  offset_map map_;
  int64_t map_end_ = 0;
  // Scratch space reused batch after batch.
  std::vector<record_view> views_;
  std::vector<record_view> kept_;
  /// Producers with a transaction whose data survives this clean.
  std::unordered_map<int64_t, bool> open_transaction_data_;

  struct group {
    size_t first = 0; // indexes into segments_
    size_t last = 0;  // inclusive
  };
  std::vector<group> groups_;
  size_t group_index_ = 0;
  bool group_started_ = false;
};

} // namespace troupe
