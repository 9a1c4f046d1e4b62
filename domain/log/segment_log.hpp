#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "domain/error_code.hpp"

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

  /// Whole batches from the one containing `offset`, up to max_bytes but at
  /// least one batch, from a single segment (as Kafka's fetch). Empty at the
  /// log end offset; OFFSET_OUT_OF_RANGE outside [start, end].
  log_read read(int64_t offset, size_t max_bytes);

  /// Drops every offset at and after `offset` (a follower after a leader
  /// change). Whole batches only: a batch straddling `offset` goes too.
  error_code truncate_to(int64_t offset);

  /// Deletes whole segments from the oldest, never the active one: those
  /// whose largest timestamp is older than retention.ms, then as many as
  /// keep the log at or above retention.bytes.
  error_code apply_retention(int64_t now_ms);

  /// fsyncs the active segment and its index.
  error_code flush();

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

private:
  segment_log(std::string dir, log_config config);

  std::string path_of(int64_t base_offset, const char* suffix) const;
  error_code io_error(const std::string& what);
  bool load_segment(int64_t base_offset, int64_t next_base, bool active);
  bool recover(detail::segment& s);
  bool rebuild_index(detail::segment& s);
  bool write_index(detail::segment& s);
  std::optional<detail::segment> create_segment(int64_t base_offset);
  bool delete_segment_files(int64_t base_offset);
  bool delete_oldest();
  bool needs_roll(uint64_t batch_size, int64_t last_offset) const;
  error_code roll();
  error_code undo_append(detail::segment& s, const std::string& what);
  error_code maybe_flush(int64_t now_ms);
  std::optional<int64_t> largest_timestamp(detail::segment& s);
  error_code truncate_segment(detail::segment& s, int64_t offset);
  error_code truncate_fully_and_start_at(int64_t offset);

  std::string dir_;
  log_config config_;
  std::vector<detail::segment> segments_; // by base offset; back() active
  std::string last_error_;
  int64_t unflushed_messages_ = 0;
  std::optional<int64_t> last_flush_ms_;
  bool failed_ = false; // a write could not be undone: reads only
};

} // namespace troupe
