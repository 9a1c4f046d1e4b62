#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/log/record_batch.hpp"

namespace troupe {

/// Per-partition log settings, by Kafka's topic-level names.
struct log_config {
  /// segment.bytes (log.segment.bytes): roll when the active segment would
  /// grow past this. Default 1 GiB. Capped at INT32_MAX, as index positions
  /// are int32 (Kafka's is an int config).
  uint64_t segment_bytes = 1ULL << 30;
  /// index.interval.bytes (log.index.interval.bytes): log bytes between two
  /// entries of the sparse offset index. Default 4096.
  uint64_t index_interval_bytes = 4096;
  /// retention.bytes (log.retention.bytes): -1 keeps any size.
  int64_t retention_bytes = -1;
  /// retention.ms (log.retention.hours = 168): 7 days; -1 keeps forever.
  int64_t retention_ms = 7 * 24 * 3600 * 1000LL;
  /// flush.messages (log.flush.interval.messages): fsync after this many
  /// records. Default Long.MAX_VALUE: leave it to the OS and replication.
  int64_t flush_messages = INT64_MAX;
  /// flush.ms (log.flush.interval.ms): fsync when this long since the last
  /// one (checked on append). Default Long.MAX_VALUE.
  int64_t flush_ms = INT64_MAX;
  /// max.message.bytes (message.max.bytes): the largest batch accepted,
  /// default 1048588 = 1 MiB + the 12-byte log overhead.
  size_t max_batch_bytes = 1048588;
  /// cleanup.policy (log.cleanup.policy): `delete` (retention.ms and
  /// retention.bytes drop old segments), `compact` (the cleaner keeps the
  /// last record of each key, docs/ARCHITECTURE.md §4), or both
  /// (`compact,delete`: retention, then cleaning). Default `delete`.
  bool compact = false;
  bool delete_policy = true;
  /// segment.ms (log.roll.ms, log.roll.hours = 168): roll the active
  /// segment when an appended batch is this much newer than the segment's
  /// first batch (Kafka's LogSegment.shouldRoll), so that old data becomes
  /// deletable and cleanable.
  int64_t segment_ms = 7 * 24 * 3600 * 1000LL;
  /// delete.retention.ms (log.cleaner.delete.retention.ms): how long a
  /// tombstone (a record with a null value) survives after the clean that
  /// first saw it (KIP-534's delete horizon). Default 1 day.
  int64_t delete_retention_ms = 86400000;
  /// min.compaction.lag.ms (log.cleaner.min.compaction.lag.ms): a segment
  /// is cleanable only when all its records are at least this old.
  int64_t min_compaction_lag_ms = 0;
  /// max.compaction.lag.ms (log.cleaner.max.compaction.lag.ms): a log whose
  /// oldest uncleaned record is older than this is cleaned whatever its
  /// dirty ratio.
  int64_t max_compaction_lag_ms = INT64_MAX;
  /// min.cleanable.dirty.ratio (log.cleaner.min.cleanable.ratio): clean a
  /// log only when dirty bytes / cleanable bytes reach this. Default 0.5.
  double min_cleanable_dirty_ratio = 0.5;
  /// message.timestamp.type (log.message.timestamp.type) = LogAppendTime:
  /// the leader stamps each appended batch with its own clock (attributes
  /// bit 3, max timestamp = now), as Kafka's LogValidator. Default
  /// CreateTime (false).
  bool log_append_time = false;
};

/// What a fetch gets: whole batches, concatenated, or an error.
struct log_read {
  error_code error = error_code::none;
  std::vector<uint8_t> records;
};

namespace detail {

/// Owns a POSIX file descriptor.
class unique_fd {
public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(other.release()) {}
  unique_fd& operator=(unique_fd&& other) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd();

  int get() const {
    return fd_;
  }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

private:
  int fd_ = -1;
};

/// One entry of the sparse offset index: the last offset of a batch,
/// relative to the segment's base offset, and the batch's file position.
struct index_entry {
  int32_t relative_offset = 0;
  int32_t position = 0;
};

/// One `<base>.log` file and its `<base>.index`.
struct segment {
  int64_t base_offset = 0;
  int64_t next_offset = 0; // one past its last record
  uint64_t size = 0;       // bytes of valid batches in the .log
  unique_fd log;
  unique_fd index;
  std::vector<index_entry> entries; // mirrors the .index file
  uint64_t bytes_since_index = 0;
  std::optional<int64_t> max_timestamp; // unknown until appended or scanned
  /// segment.ms: the max timestamp of its first batch (Kafka's
  /// rollingBasedTimestamp), -1 when it has none; and when it was created
  /// (the fallback), learnt at the first append.
  int64_t rolling_timestamp = -1;
  int64_t created_ms = -1;
};

} // namespace detail

/// The append-only on-disk log of one partition, as Kafka's Log/LogSegment:
/// record batches in segment files named by their base offset, each with a
/// sparse offset index. Synchronous and single-threaded: the caller runs it
/// on a dedicated I/O thread. No exceptions: I/O failures become error
/// values, with the errno text in last_error().
class segment_log {
public:
  /// Opens (creating if needed) the partition directory, loads its
  /// segments and recovers the active one: every batch is validated and the
  /// file is cut at the first torn or corrupt one. Returns the log or why
  /// it could not be opened.
  static std::variant<segment_log, std::string> open(const std::string& dir,
                                                     log_config config = {});

  segment_log(segment_log&&) noexcept = default;
  segment_log& operator=(segment_log&&) noexcept = default;
  ~segment_log();

  /// Validates the batch, gives it offsets from the log end offset onward,
  /// writes it (rolling a segment first when the active one would exceed
  /// segment.bytes) and fsyncs per flush.messages / flush.ms. The batch's
  /// base offset goes to base_offset_out. CORRUPT_MESSAGE or
  /// MESSAGE_TOO_LARGE for a bad batch; KAFKA_STORAGE_ERROR (see
  /// last_error) when the disk fails, and nothing is left half-written. If
  /// the write succeeds but the fsync after it fails, the batch stays (its
  /// offset is reported) and the log refuses further writes, as Kafka takes
  /// the log directory offline: after a failed fsync the page cache cannot
  /// be trusted.
  error_code append(std::vector<uint8_t> batch, int64_t now_ms,
                    int64_t* base_offset_out = nullptr);

  /// A follower's append of one batch from its leader, offsets kept: the
  /// batch may start past the log end offset (the leader's log was
  /// compacted: offsets in between are holes), never before it
  /// (OFFSET_OUT_OF_RANGE). Checked as a stored batch
  /// (validate_stored_batch): a cleaned batch has offset gaps and may hold
  /// no records.
  error_code append_replicated(std::vector<uint8_t> batch, int64_t now_ms);

  /// New settings (a topic config change): the next append, roll,
  /// retention run and clean use them.
  void set_config(const log_config& config);
  const log_config& config() const {
    return config_;
  }

  /// Whole batches from the first whose last offset is at or after
  /// `offset` (the one containing it, or, when `offset` is in a hole left
  /// by compaction, the next one, in a later segment if need be), up to
  /// max_bytes but at least one batch, from a single segment (as Kafka's
  /// fetch). Empty at the log end offset; OFFSET_OUT_OF_RANGE outside
  /// [start, end].
  log_read read(int64_t offset, size_t max_bytes);

  /// Drops every offset at and after `offset` (a follower after a leader
  /// change). Whole batches only: a batch straddling `offset` goes too.
  error_code truncate_to(int64_t offset);

  /// Kafka's UnifiedLog.maybeIncrementLogStartOffset (DeleteRecords, and a
  /// follower following its leader's log start): the log start offset
  /// moves up to `offset`, never down, and is checkpointed
  /// (`log-start-offset-checkpoint`) before this returns, so a restart
  /// keeps it. Reads below it are OFFSET_OUT_OF_RANGE at once; the
  /// segments wholly below it go at the next apply_retention, as Kafka's
  /// deleteLogStartOffsetBreachedSegments. An offset past the log end
  /// offset is Kafka's truncateFullyAndStartAt: a follower whose log ends
  /// below its leader's start drops everything and starts there.
  error_code increment_log_start_offset(int64_t offset);

  /// Deletes whole segments from the oldest, never the active one: those
  /// wholly below the log start offset (whatever cleanup.policy says), then
  /// with cleanup.policy=delete those whose largest timestamp is older than
  /// retention.ms, then as many as keep the log at or above
  /// retention.bytes.
  error_code apply_retention(int64_t now_ms);

  /// fsyncs the active segment and its index.
  error_code flush();

  /// The first offset a read may ask for: the checkpointed one moved by
  /// increment_log_start_offset, else the oldest segment's base offset.
  int64_t log_start_offset() const;
  /// The next offset to assign (LEO).
  int64_t log_end_offset() const;
  uint64_t size_in_bytes() const;
  std::vector<int64_t> segment_base_offsets() const;
  /// Records appended since the last fsync.
  int64_t unflushed_messages() const {
    return unflushed_messages_;
  }
  const std::string& dir() const {
    return dir_;
  }
  /// The errno text of the latest I/O failure.
  const std::string& last_error() const {
    return last_error_;
  }
  /// True once a write could not be undone: the log takes reads only.
  bool failed() const {
    return failed_;
  }

  // -- for the log cleaner (log_cleaner.hpp) ---------------------------------

  /// One segment as the cleaner plans with it.
  struct segment_summary {
    int64_t base_offset = 0;
    int64_t next_offset = 0; // the next segment's base (LEO for the active)
    uint64_t size = 0;
    /// Kafka's LogSegment.largestTimestamp: the largest batch max
    /// timestamp, or the file's last-modified time without one.
    int64_t largest_timestamp = -1;
    /// The max timestamp of its first batch, -1 without one (Kafka's
    /// getFirstBatchTimestampForSegments, for max.compaction.lag.ms).
    int64_t first_batch_timestamp = -1;
  };

  /// Every segment, oldest first; the last is the active one. nullopt on a
  /// read error.
  std::optional<std::vector<segment_summary>> summaries();

  /// The headers of the batches of the segment with this base offset from
  /// file position `position` on, at most max_count; `position` moves past
  /// them. Stops at the segment's end or at a torn header.
  error_code segment_headers(int64_t base_offset, uint64_t& position,
                             size_t max_count, std::vector<batch_header>& out);

  /// Whole batches of the segment with this base offset from file position
  /// `position` on, at least one, up to max_bytes. Empty at the segment's
  /// end or when no such segment exists (any more).
  log_read read_segment(int64_t base_offset, uint64_t position,
                        size_t max_bytes);

  /// Changes whenever segments below the active one are deleted, truncated
  /// or replaced (retention, truncation, a swap), so a clean in progress
  /// can tell that its plan no longer holds. Appends and rolls leave it.
  uint64_t generation() const {
    return generation_;
  }

  /// The steps of replacing segments with a cleaned one; a fault hook may
  /// stop the swap before any of them (a simulated crash: files stay as
  /// they are, and the log must be reopened).
  enum class swap_step {
    write_cleaned,   // a chunk of the .cleaned files
    sync_cleaned,    // fsync the .cleaned files
    retire_old,      // rename one old segment to .deleted
    commit_index,    // rename <base>.index.cleaned to .index.swap
    commit_log,      // rename <base>.log.cleaned to .log.swap: the commit
    delete_old,      // delete one retired segment's files
    install_index,   // rename <base>.index.swap to <base>.index
    install_log,     // rename <base>.log.swap to <base>.log
  };
  /// Returns false to stop the swap before `step` (tests only).
  using fault_hook = std::function<bool(swap_step)>;

  /// Starts `<base>.log.cleaned` and `<base>.index.cleaned`, dropping any
  /// earlier unfinished ones.
  error_code begin_cleaned(int64_t base_offset);
  /// Appends one batch (already validated) to the cleaned segment.
  error_code append_cleaned(const uint8_t* batch, size_t size,
                            int64_t last_offset);
  /// Bytes in the cleaned segment so far.
  uint64_t cleaned_size() const;
  /// Replaces every segment with a base offset in [cleaned base, end) by
  /// the cleaned one, as Kafka's replaceSegments, crash-safe: the .cleaned
  /// files are fsynced; each old segment is renamed to `.deleted`; the
  /// cleaned files are renamed to `.swap` (the commit point); the retired
  /// files are deleted; the `.swap` files are renamed into place. open()
  /// rolls a crash before the commit back (the `.deleted` files return,
  /// the `.cleaned` ones go) and one after it forward, so a log holds
  /// either all the old segments or the cleaned one, never a mix. Returns
  /// false from `hook` stops it as a crash would (`stopped` set). On an
  /// I/O error before the commit the old segments stay; after it the log
  /// refuses writes until reopened.
  error_code replace_with_cleaned(int64_t end, const fault_hook& hook = {},
                                  bool* stopped = nullptr);
  /// Drops the cleaned segment's files (a clean that was aborted).
  void abort_cleaned();

private:
  segment_log(std::string dir, log_config config);

  std::string path_of(int64_t base_offset, const char* suffix) const;
  error_code io_error(const std::string& what);
  bool load_segment(int64_t base_offset, int64_t next_base, bool active);
  bool recover(detail::segment& s);
  bool follows(int64_t base_offset, int64_t next) const;
  bool rebuild_index(detail::segment& s);
  bool write_index(detail::segment& s);
  std::optional<detail::segment> create_segment(int64_t base_offset);
  bool delete_segment_files(int64_t base_offset);
  bool delete_oldest();
  error_code append_at(std::vector<uint8_t>& batch, int64_t base,
                       const batch_header& h, int64_t now_ms);
  bool needs_roll(uint64_t batch_size, int64_t last_offset,
                  int64_t max_timestamp, int64_t now_ms);
  error_code roll(int64_t base_offset);
  error_code undo_append(detail::segment& s, const std::string& what);
  error_code maybe_flush(int64_t now_ms);
  std::optional<int64_t> largest_timestamp(detail::segment& s);
  error_code truncate_segment(detail::segment& s, int64_t offset);
  error_code truncate_fully_and_start_at(int64_t offset);
  bool set_log_start_offset(int64_t offset);

  error_code flush_cleaned();

  std::string dir_;
  log_config config_;
  std::optional<detail::segment> cleaned_;
  std::vector<uint8_t> cleaned_buffer_;
  uint64_t generation_ = 0;
  std::vector<detail::segment> segments_; // by base offset; back() active
  /// Kafka's logStartOffset when it is above the oldest segment's base
  /// (DeleteRecords), as checkpointed; -1 when it is that base.
  int64_t log_start_offset_ = -1;
  std::string last_error_;
  int64_t unflushed_messages_ = 0;
  std::optional<int64_t> last_flush_ms_;
  bool failed_ = false; // a write could not be undone: reads only
};

} // namespace troupe
