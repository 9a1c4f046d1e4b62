#include "domain/log/segment_log.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain/log/offset_checkpoint.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace L = batch_layout;
using detail::index_entry;
using detail::segment;
using detail::unique_fd;

// -- unique_fd ----------------------------------------------------------------

unique_fd& unique_fd::operator=(unique_fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

unique_fd::~unique_fd() {
  if (fd_ >= 0)
    ::close(fd_);
}

namespace {

constexpr size_t index_entry_size = 8;

// -- POSIX I/O that retries EINTR and short transfers -------------------------

/// Bytes read (fewer than n only at end of file), or -1 with errno set.
ssize_t pread_full(int fd, uint8_t* buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    auto r = ::pread(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

bool pwrite_full(int fd, const uint8_t* buf, size_t n, uint64_t off) {
  while (n > 0) {
    auto r = ::pwrite(fd, buf, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return false;
    if (r == 0) { // no progress on a regular file: out of space
      errno = ENOSPC;
      return false;
    }
    buf += r, n -= static_cast<size_t>(r), off += static_cast<uint64_t>(r);
  }
  return true;
}

bool truncate_file(int fd, uint64_t size) {
  int r;
  do
    r = ::ftruncate(fd, static_cast<off_t>(size));
  while (r < 0 && errno == EINTR);
  return r == 0;
}

bool sync_file(int fd) {
  return ::fdatasync(fd) == 0;
}

/// Makes a created or deleted file name durable.
bool sync_dir(const std::string& dir) {
  unique_fd fd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  return fd.get() >= 0 && ::fsync(fd.get()) == 0;
}

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

/// Kafka's log-start-offset-checkpoint (domain/log/offset_checkpoint.hpp),
/// kept in the partition directory beside the cleaner-offset-checkpoint
/// and the leader-epoch-checkpoint.
constexpr const char* log_start_checkpoint = "log-start-offset-checkpoint";

int64_t read_log_start_checkpoint(const std::string& dir) {
  return read_offset_checkpoint(dir, log_start_checkpoint);
}

bool write_log_start_checkpoint(const std::string& dir, int64_t offset) {
  return write_offset_checkpoint(dir, log_start_checkpoint, offset);
}

/// mkdir -p; false with `error` set when a component cannot be created or
/// is not a directory.
bool make_dirs(const std::string& dir, std::string& error) {
  if (dir.empty()) {
    error = "empty log directory name";
    return false;
  }
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/')
      continue;
    auto prefix = dir.substr(0, i);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      error = errno_text("mkdir " + prefix);
      return false;
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    error = errno_text("stat " + dir);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    error = errno_text("open " + dir);
    return false;
  }
  return true;
}

void store_be32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24), p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8), p[3] = static_cast<uint8_t>(v);
}

uint32_t load_be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8
         | uint32_t{p[3]};
}

/// "00000000000000000042.log": the base offset, zero-padded to 20 digits.
std::optional<int64_t> parse_segment_name(const std::string& name,
                                          const std::string& suffix) {
  if (name.size() != 20 + suffix.size()
      || name.compare(20, suffix.size(), suffix) != 0)
    return std::nullopt;
  uint64_t v = 0;
  for (size_t i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9')
      return std::nullopt;
    if (v > (static_cast<uint64_t>(INT64_MAX) - (name[i] - '0')) / 10)
      return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return static_cast<int64_t>(v);
}

// -- walking the batches of a segment file ------------------------------------

enum class scan { batch, end, torn, io_error };

struct batch_info {
  uint64_t position = 0;
  uint64_t size = 0;
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int64_t max_timestamp = 0;
};

/// The header of the batch at `pos`, trusting nothing: a header that runs
/// past `end`, a bad magic or length, or an overflowing offset is torn.
scan read_batch_info(int fd, uint64_t pos, uint64_t end, batch_info& out) {
  out.position = pos;
  if (pos >= end)
    return scan::end;
  if (end - pos < L::header_size)
    return scan::torn;
  uint8_t buf[L::header_size];
  auto got = pread_full(fd, buf, sizeof buf, pos);
  if (got < 0)
    return scan::io_error;
  if (static_cast<size_t>(got) < sizeof buf)
    return scan::torn;
  auto h = parse_header(buf, sizeof buf);
  if (h->magic != L::current_magic
      || h->size_in_bytes() < static_cast<int64_t>(L::header_size)
      || static_cast<uint64_t>(h->size_in_bytes()) > end - pos
      || h->last_offset_delta < 0
      || __builtin_add_overflow(h->base_offset, int64_t{h->last_offset_delta},
                                &out.last_offset))
    return scan::torn;
  out.size = static_cast<uint64_t>(h->size_in_bytes());
  out.base_offset = h->base_offset;
  out.max_timestamp = h->max_timestamp;
  return scan::batch;
}

/// Kafka's LogSegment.append: an index entry for a batch once more than
/// index.interval.bytes went in since the previous entry. Segment offsets
/// are relative int32s (a roll guarantees they fit).
std::optional<index_entry>
due_index_entry(const segment& s, const batch_info& b, uint64_t interval) {
  if (s.bytes_since_index <= interval)
    return std::nullopt;
  return index_entry{static_cast<int32_t>(b.last_offset - s.base_offset),
                     static_cast<int32_t>(b.position)};
}

/// Accounts a batch at the end of `s` in the in-memory index and stats.
void note_batch(segment& s, const batch_info& b, uint64_t interval) {
  if (auto e = due_index_entry(s, b, interval)) {
    s.entries.push_back(*e);
    s.bytes_since_index = 0;
  }
  s.bytes_since_index += b.size;
  if (s.max_timestamp)
    s.max_timestamp = std::max(*s.max_timestamp, b.max_timestamp);
}

void reset_accounting(segment& s) {
  s.entries.clear();
  s.bytes_since_index = 0;
  s.max_timestamp = -1; // Kafka's NO_TIMESTAMP
}

/// Index entries from the file, if they are sane (Kafka's sanityCheck plus
/// monotonicity); nullopt means rebuild.
std::optional<std::vector<index_entry>> load_index_entries(const segment& s,
                                                           int64_t next_base) {
  struct stat st;
  if (::fstat(s.index.get(), &st) != 0 || st.st_size % index_entry_size != 0)
    return std::nullopt;
  auto count = static_cast<uint64_t>(st.st_size) / index_entry_size;
  // Each entry points at a distinct batch of at least 61 bytes.
  if (count > s.size / L::header_size + 1)
    return std::nullopt;
  std::vector<uint8_t> bytes(count * index_entry_size);
  if (pread_full(s.index.get(), bytes.data(), bytes.size(), 0)
      != static_cast<ssize_t>(bytes.size()))
    return std::nullopt;
  std::vector<index_entry> entries(count);
  for (size_t i = 0; i < count; ++i) {
    auto& e = entries[i];
    e.relative_offset =
      static_cast<int32_t>(load_be32(&bytes[i * index_entry_size]));
    e.position =
      static_cast<int32_t>(load_be32(&bytes[i * index_entry_size + 4]));
    bool monotonic = i == 0
                     || (e.relative_offset > entries[i - 1].relative_offset
                         && e.position > entries[i - 1].position);
    if (!monotonic || e.relative_offset < 0 || e.position < 0
        || static_cast<uint64_t>(e.position) >= s.size
        || e.relative_offset >= next_base - s.base_offset)
      return std::nullopt;
  }
  return entries;
}

bool ends_with(const std::string& name, const std::string& suffix) {
  return name.size() > suffix.size()
         && name.compare(name.size() - suffix.size(), suffix.size(), suffix)
              == 0;
}

bool rename_file(const std::string& from, const std::string& to) {
  return ::rename(from.c_str(), to.c_str()) == 0;
}

/// Kafka's LogLoader.removeTempFilesAndCollectSwapFiles, made exact: a
/// clean that crashed leaves `.cleaned`, `.deleted` and `.swap` files (see
/// segment_log::replace_with_cleaned). With a `<base>.log.swap` the swap
/// had committed: the retired (`.deleted`) segments go and the `.swap`
/// files are renamed into place. Without one it had not: the retired
/// segments are renamed back and the `.cleaned` files deleted.
bool finish_interrupted_swap(const std::string& dir, std::string& error) {
  std::vector<std::string> names;
  {
    std::unique_ptr<DIR, int (*)(DIR*)> d{::opendir(dir.c_str()), ::closedir};
    if (!d) {
      error = errno_text("opendir " + dir);
      return false;
    }
    while (auto* entry = ::readdir(d.get()))
      names.emplace_back(entry->d_name);
  }
  bool committed = false;
  bool any = false;
  for (auto& n : names) {
    committed = committed || ends_with(n, ".log.swap");
    any = any || ends_with(n, ".swap") || ends_with(n, ".cleaned")
          || ends_with(n, ".deleted");
  }
  if (!any)
    return true;
  auto strip = [](const std::string& n, size_t suffix) {
    return n.substr(0, n.size() - suffix);
  };
  for (auto& n : names) {
    auto path = dir + "/" + n;
    bool ok = true;
    if (ends_with(n, ".cleaned")) {
      ok = ::unlink(path.c_str()) == 0 || errno == ENOENT;
    } else if (ends_with(n, ".deleted")) {
      ok = committed ? ::unlink(path.c_str()) == 0 || errno == ENOENT
                     : rename_file(path, dir + "/" + strip(n, 8));
    } else if (ends_with(n, ".index.swap") && !committed) {
      ok = ::unlink(path.c_str()) == 0 || errno == ENOENT;
    }
    if (!ok) {
      error = errno_text("recover " + path);
      return false;
    }
  }
  if (committed) {
    // The index first: a .log.swap left means the swap is not finished.
    for (auto& n : names)
      if (ends_with(n, ".index.swap")
          && !rename_file(dir + "/" + n, dir + "/" + strip(n, 5))) {
        error = errno_text("rename " + dir + "/" + n);
        return false;
      }
    for (auto& n : names)
      if (ends_with(n, ".log.swap")
          && !rename_file(dir + "/" + n, dir + "/" + strip(n, 5))) {
        error = errno_text("rename " + dir + "/" + n);
        return false;
      }
  }
  if (!sync_dir(dir)) {
    error = errno_text("fsync " + dir);
    return false;
  }
  return true;
}

} // namespace

// -- opening and recovery -----------------------------------------------------

segment_log::segment_log(std::string dir, log_config config)
  : dir_(std::move(dir)), config_(config) {
  // Index positions are int32, as Kafka's segment.bytes is an int.
  config_.segment_bytes = std::min<uint64_t>(config_.segment_bytes, INT32_MAX);
}

segment_log::~segment_log() {
  // A clean close leaves nothing unflushed, as Kafka's Log.close.
  if (!segments_.empty() && !failed_ && unflushed_messages_ > 0)
    flush();
}

std::variant<segment_log, std::string> segment_log::open(const std::string& dir,
                                                         log_config config) {
  std::string error;
  if (!make_dirs(dir, error))
    return error;
  segment_log log{dir, config};
  if (!finish_interrupted_swap(dir, error))
    return error;
  std::vector<int64_t> bases;
  std::vector<std::string> indexes;
  {
    std::unique_ptr<DIR, int (*)(DIR*)> d{::opendir(dir.c_str()), ::closedir};
    if (!d)
      return errno_text("opendir " + dir);
    while (auto* entry = ::readdir(d.get())) {
      std::string name = entry->d_name;
      if (auto base = parse_segment_name(name, ".log"))
        bases.push_back(*base);
      else if (parse_segment_name(name, ".index"))
        indexes.push_back(name);
    }
  }
  std::sort(bases.begin(), bases.end());
  // An index whose segment is gone was left by a crash mid-delete.
  for (auto& name : indexes)
    if (!std::binary_search(bases.begin(), bases.end(),
                            *parse_segment_name(name, ".index")))
      ::unlink((dir + "/" + name).c_str());
  if (bases.empty()) {
    auto s = log.create_segment(0);
    if (!s)
      return log.last_error_;
    log.segments_.push_back(std::move(*s));
    if (!sync_dir(dir))
      return errno_text("fsync " + dir);
  }
  for (size_t i = 0; i < bases.size(); ++i) {
    bool active = i + 1 == bases.size();
    if (!log.load_segment(bases[i], active ? INT64_MAX : bases[i + 1], active))
      return log.last_error_;
  }
  // Kafka's LogLoader: max(checkpoint, the first segment's base offset),
  // never past the log end (a torn tail cut in recovery).
  auto checkpointed = read_log_start_checkpoint(dir);
  if (checkpointed > log.segments_.front().base_offset)
    log.log_start_offset_ = std::min(checkpointed, log.log_end_offset());
  return std::variant<segment_log, std::string>{std::move(log)};
}

std::string segment_log::path_of(int64_t base_offset,
                                 const char* suffix) const {
  char name[64]; // 20 digits and the longest suffix, ".index.cleaned"
  std::snprintf(name, sizeof name, "%020" PRId64 "%s", base_offset, suffix);
  return dir_ + "/" + name;
}

error_code segment_log::io_error(const std::string& what) {
  last_error_ = errno_text(what);
  return error_code::kafka_storage_error;
}

bool segment_log::load_segment(int64_t base_offset, int64_t next_base,
                               bool active) {
  segment s;
  s.base_offset = base_offset;
  auto log_path = path_of(base_offset, ".log");
  s.log = unique_fd{::open(log_path.c_str(), O_RDWR | O_CLOEXEC)};
  if (s.log.get() < 0)
    return io_error("open " + log_path), false;
  struct stat st;
  if (::fstat(s.log.get(), &st) != 0)
    return io_error("stat " + log_path), false;
  s.size = static_cast<uint64_t>(st.st_size);
  auto index_path = path_of(base_offset, ".index");
  s.index =
    unique_fd{::open(index_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
  if (s.index.get() < 0)
    return io_error("open " + index_path), false;
  if (active) {
    if (!recover(s))
      return false;
  } else {
    // Older segments were fsynced before the next one was created (roll),
    // so only their index may need rebuilding, as Kafka's sanity check.
    s.next_offset = next_base;
    // An empty index beside data is most likely a lost file: rebuilding
    // costs one header scan.
    auto entries = load_index_entries(s, next_base);
    if (entries && !(entries->empty() && s.size > 0)) {
      s.entries = std::move(*entries);
    } else if (!rebuild_index(s) || !write_index(s)) {
      return false;
    }
  }
  segments_.push_back(std::move(s));
  return true;
}

bool segment_log::recover(segment& s) {
  // The active segment may end in a torn write: keep the longest prefix of
  // batches that validate (size, CRC, records) with increasing offsets,
  // cut the rest, and rebuild the index from what stays.
  reset_accounting(s);
  uint64_t file_size = s.size;
  uint64_t pos = 0;
  int64_t next = s.base_offset;
  std::vector<uint8_t> buf;
  for (;;) {
    batch_info b;
    auto st = read_batch_info(s.log.get(), pos, file_size, b);
    if (st == scan::io_error)
      return io_error("read " + path_of(s.base_offset, ".log")), false;
    // A batch starts where the last one ended: this catches damage to
    // baseOffset, which the CRC does not cover. A compacted log has holes
    // (a cleaned segment becomes the active one after a truncation; a
    // follower copies its leader's holes), so there a batch may start
    // past where the last one ended, never before.
    if (st != scan::batch || !follows(b.base_offset, next)
        || b.last_offset - s.base_offset > INT32_MAX)
      break;
    buf.resize(b.size);
    auto got = pread_full(s.log.get(), buf.data(), buf.size(), pos);
    if (got < 0)
      return io_error("read " + path_of(s.base_offset, ".log")), false;
    if (static_cast<size_t>(got) != b.size
        || validate_stored_batch(buf.data(), buf.size()) != error_code::none)
      break;
    if (pos == 0)
      s.rolling_timestamp = b.max_timestamp;
    note_batch(s, b, config_.index_interval_bytes);
    next = b.last_offset + 1;
    pos += b.size;
  }
  s.size = pos;
  s.next_offset = next;
  if (pos < file_size) {
    if (!truncate_file(s.log.get(), pos) || !sync_file(s.log.get()))
      return io_error("truncate " + path_of(s.base_offset, ".log")), false;
  }
  return write_index(s);
}

bool segment_log::follows(int64_t base_offset, int64_t next) const {
  return config_.compact ? base_offset >= next : base_offset == next;
}

bool segment_log::rebuild_index(segment& s) {
  reset_accounting(s);
  int64_t next = s.base_offset;
  for (uint64_t pos = 0;;) {
    batch_info b;
    auto st = read_batch_info(s.log.get(), pos, s.size, b);
    if (st == scan::io_error)
      return io_error("read " + path_of(s.base_offset, ".log")), false;
    // A damaged old segment keeps the index up to the damage (entries stay
    // sorted); a fetch that reaches the damage reports CORRUPT_MESSAGE.
    if (st != scan::batch || !follows(b.base_offset, next)
        || b.last_offset - s.base_offset > INT32_MAX)
      return true;
    note_batch(s, b, config_.index_interval_bytes);
    next = b.last_offset + 1;
    pos += b.size;
  }
}

bool segment_log::write_index(segment& s) {
  std::vector<uint8_t> bytes(s.entries.size() * index_entry_size);
  for (size_t i = 0; i < s.entries.size(); ++i) {
    store_be32(&bytes[i * index_entry_size],
               static_cast<uint32_t>(s.entries[i].relative_offset));
    store_be32(&bytes[i * index_entry_size + 4],
               static_cast<uint32_t>(s.entries[i].position));
  }
  if (!pwrite_full(s.index.get(), bytes.data(), bytes.size(), 0)
      || !truncate_file(s.index.get(), bytes.size())
      || !sync_file(s.index.get()))
    return io_error("write " + path_of(s.base_offset, ".index")), false;
  return true;
}

std::optional<segment> segment_log::create_segment(int64_t base_offset) {
  segment s;
  s.base_offset = base_offset;
  s.next_offset = base_offset;
  s.max_timestamp = -1;
  auto log_path = path_of(base_offset, ".log");
  auto index_path = path_of(base_offset, ".index");
  constexpr int flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;
  s.log = unique_fd{::open(log_path.c_str(), flags, 0644)};
  if (s.log.get() < 0)
    return io_error("create " + log_path), std::nullopt;
  s.index = unique_fd{::open(index_path.c_str(), flags, 0644)};
  if (s.index.get() < 0) {
    io_error("create " + index_path);
    ::unlink(log_path.c_str());
    return std::nullopt;
  }
  return s;
}

bool segment_log::delete_segment_files(int64_t base_offset) {
  // The .log goes first: an orphaned .index is harmless and removed at the
  // next open, a .log without its index is just re-indexed.
  auto log_path = path_of(base_offset, ".log");
  if (::unlink(log_path.c_str()) != 0 && errno != ENOENT)
    return io_error("delete " + log_path), false;
  ::unlink(path_of(base_offset, ".index").c_str());
  return true;
}

// -- appending ----------------------------------------------------------------

error_code segment_log::append(std::vector<uint8_t> batch, int64_t now_ms,
                               int64_t* base_offset_out) {
  if (failed_)
    return error_code::kafka_storage_error;
  auto err =
    validate_batch(batch.data(), batch.size(), config_.max_batch_bytes);
  if (err != error_code::none)
    return err;
  auto h = *parse_header(batch.data(), batch.size());
  int64_t base = log_end_offset();
  set_base_offset(batch.data(), base);
  if (auto e = append_at(batch, base, h, now_ms); e != error_code::none)
    return e;
  if (base_offset_out)
    *base_offset_out = base;
  return maybe_flush(now_ms);
}

error_code segment_log::append_replicated(std::vector<uint8_t> batch,
                                          int64_t now_ms) {
  if (failed_)
    return error_code::kafka_storage_error;
  if (batch.size() > config_.max_batch_bytes)
    return error_code::message_too_large;
  if (auto e = validate_stored_batch(batch.data(), batch.size());
      e != error_code::none)
    return e;
  auto h = *parse_header(batch.data(), batch.size());
  // Kafka's UnexpectedAppendOffsetException: a follower's batch never
  // starts below its log end offset; past it is a hole of the leader's
  // compacted log.
  if (h.base_offset < log_end_offset())
    return error_code::offset_out_of_range;
  if (auto e = append_at(batch, h.base_offset, h, now_ms);
      e != error_code::none)
    return e;
  return maybe_flush(now_ms);
}

void segment_log::set_config(const log_config& config) {
  config_ = config;
  config_.segment_bytes = std::min<uint64_t>(config_.segment_bytes, INT32_MAX);
}

error_code segment_log::append_at(std::vector<uint8_t>& batch, int64_t base,
                                  const batch_header& h, int64_t now_ms) {
  int64_t last;
  if (__builtin_add_overflow(base, int64_t{h.last_offset_delta}, &last)) {
    last_error_ = "offsets exhausted";
    return error_code::kafka_storage_error;
  }
  if (needs_roll(batch.size(), last, h.max_timestamp, now_ms)) {
    if (auto e = roll(base); e != error_code::none)
      return e;
  }
  segment& s = segments_.back();
  if (s.created_ms < 0)
    s.created_ms = now_ms;
  batch_info b;
  b.position = s.size;
  b.size = batch.size();
  b.base_offset = base;
  b.last_offset = last;
  b.max_timestamp = h.max_timestamp;
  if (!pwrite_full(s.log.get(), batch.data(), batch.size(), s.size))
    return undo_append(s, "write " + path_of(s.base_offset, ".log"));
  if (auto e = due_index_entry(s, b, config_.index_interval_bytes)) {
    uint8_t bytes[index_entry_size];
    store_be32(bytes, static_cast<uint32_t>(e->relative_offset));
    store_be32(bytes + 4, static_cast<uint32_t>(e->position));
    if (!pwrite_full(s.index.get(), bytes, sizeof bytes,
                     s.entries.size() * index_entry_size))
      return undo_append(s, "write " + path_of(s.base_offset, ".index"));
  }
  note_batch(s, b, config_.index_interval_bytes);
  if (s.size == 0)
    s.rolling_timestamp = h.max_timestamp;
  s.size += b.size;
  s.next_offset = last + 1;
  unflushed_messages_ += h.records_count;
  return error_code::none;
}

bool segment_log::needs_roll(uint64_t batch_size, int64_t last_offset,
                             int64_t max_timestamp, int64_t now_ms) {
  // Kafka's maybeRoll: never roll an empty segment (a batch larger than
  // segment.bytes gets one to itself); roll when the batch would not fit,
  // its offsets would not fit the index's int32 relative offsets, or
  // segment.ms has passed (LogSegment.shouldRoll: the batch's max timestamp
  // against the segment's first batch's, or, without timestamps, the clock
  // against the segment's creation).
  segment& s = segments_.back();
  if (s.size == 0)
    return false;
  if (s.size + batch_size > config_.segment_bytes
      || last_offset - s.base_offset > INT32_MAX)
    return true;
  if (s.created_ms < 0)
    s.created_ms = now_ms;
  int64_t waited;
  bool overflow =
    s.rolling_timestamp >= 0
      ? __builtin_sub_overflow(max_timestamp, s.rolling_timestamp, &waited)
      : __builtin_sub_overflow(now_ms, s.created_ms, &waited);
  return !overflow && waited > config_.segment_ms;
}

error_code segment_log::undo_append(segment& s, const std::string& what) {
  auto result = io_error(what);
  // Cut both files back to what is already accounted for, so nothing is
  // half-written; if even that fails, stop writing.
  if (!truncate_file(s.log.get(), s.size)
      || !truncate_file(s.index.get(), s.entries.size() * index_entry_size))
    failed_ = true;
  return result;
}

error_code segment_log::maybe_flush(int64_t now_ms) {
  if (!last_flush_ms_)
    last_flush_ms_ = now_ms;
  int64_t elapsed;
  if (__builtin_sub_overflow(now_ms, *last_flush_ms_, &elapsed))
    elapsed = now_ms > *last_flush_ms_ ? INT64_MAX : INT64_MIN;
  if (unflushed_messages_ < config_.flush_messages
      && elapsed < config_.flush_ms)
    return error_code::none;
  last_flush_ms_ = now_ms;
  return flush();
}

error_code segment_log::roll(int64_t base_offset) {
  // The outgoing segment is made durable before the next exists (Kafka
  // flushes it on roll), so recovery only ever needs the last segment. The
  // new one is named by the first offset it will hold.
  segment& old = segments_.back();
  if (!sync_file(old.log.get()) || !sync_file(old.index.get())) {
    failed_ = true; // fsync errors may have dropped pages: trust nothing
    return io_error("fsync " + path_of(old.base_offset, ".log"));
  }
  unflushed_messages_ = 0;
  old.next_offset = base_offset;
  auto s = create_segment(base_offset);
  if (!s)
    return error_code::kafka_storage_error;
  segments_.push_back(std::move(*s));
  if (!sync_dir(dir_))
    return io_error("fsync " + dir_);
  return error_code::none;
}

error_code segment_log::flush() {
  if (segments_.empty())
    return error_code::none;
  segment& s = segments_.back();
  if (!sync_file(s.log.get()) || !sync_file(s.index.get())) {
    failed_ = true;
    return io_error("fsync " + path_of(s.base_offset, ".log"));
  }
  unflushed_messages_ = 0;
  return error_code::none;
}

// -- reading ------------------------------------------------------------------

int64_t segment_log::log_start_offset() const {
  auto base = segments_.front().base_offset;
  if (log_start_offset_ <= base)
    return base;
  // A truncation may cut a batch holding the log start offset.
  return std::max(base, std::min(log_start_offset_, log_end_offset()));
}

int64_t segment_log::log_end_offset() const {
  return segments_.back().next_offset;
}

uint64_t segment_log::size_in_bytes() const {
  uint64_t total = 0;
  for (auto& s : segments_)
    total += s.size;
  return total;
}

std::vector<int64_t> segment_log::segment_base_offsets() const {
  std::vector<int64_t> result;
  for (auto& s : segments_)
    result.push_back(s.base_offset);
  return result;
}

namespace {

/// The first batch of `s` whose last offset is >= `offset`: from the index
/// entry at or below it (Kafka's OffsetIndex.lookup), then batch by batch.
/// `passed_end`, if given, gets one past the last batch stepped over.
scan locate(const segment& s, int64_t offset, batch_info& out,
            int64_t* passed_end = nullptr) {
  uint64_t pos = 0;
  if (passed_end)
    *passed_end = s.base_offset;
  auto it = std::upper_bound(
    s.entries.begin(), s.entries.end(), offset - s.base_offset,
    [](int64_t rel, const index_entry& e) { return rel < e.relative_offset; });
  if (it != s.entries.begin())
    pos = static_cast<uint64_t>(std::prev(it)->position);
  for (;;) {
    auto st = read_batch_info(s.log.get(), pos, s.size, out);
    if (st != scan::batch || out.last_offset >= offset)
      return st;
    if (passed_end)
      *passed_end = out.last_offset + 1;
    pos += out.size;
  }
}

/// One read of up to max_bytes from the first batch (at least that batch,
/// as Kafka's minOneMessage), cut back to whole batches. nullopt with errno
/// set on failure.
std::optional<std::vector<uint8_t>>
read_batches(const segment& s, const batch_info& first, size_t max_bytes) {
  uint64_t want = std::max<uint64_t>(
    first.size, std::min<uint64_t>(max_bytes, s.size - first.position));
  std::vector<uint8_t> bytes(want);
  auto got = pread_full(s.log.get(), bytes.data(), want, first.position);
  if (got < 0)
    return std::nullopt;
  if (static_cast<uint64_t>(got) != want) {
    errno = EIO; // the file is shorter than what was appended
    return std::nullopt;
  }
  // At least the first batch, then the whole ones after it.
  auto end = first.size
             + record_batches{bytes.data() + first.size, want - first.size}
                 .whole_size();
  bytes.resize(end);
  return bytes;
}

} // namespace

log_read segment_log::read(int64_t offset, size_t max_bytes) {
  if (offset < log_start_offset() || offset > log_end_offset())
    return {error_code::offset_out_of_range, {}};
  auto it = std::upper_bound(
    segments_.begin(), segments_.end(), offset,
    [](int64_t o, const segment& s) { return o < s.base_offset; });
  for (auto i = std::prev(it); i != segments_.end(); ++i) {
    batch_info b;
    switch (locate(*i, offset, b)) {
      case scan::end:
        continue;
      case scan::batch:
        if (auto bytes = read_batches(*i, b, max_bytes))
          return {error_code::none, std::move(*bytes)};
        return {io_error("read " + path_of(i->base_offset, ".log")), {}};
      case scan::torn:
        last_error_ = "corrupt batch header at position "
                      + std::to_string(b.position) + " of "
                      + path_of(i->base_offset, ".log");
        return {error_code::corrupt_message, {}};
      case scan::io_error:
        return {io_error("read " + path_of(i->base_offset, ".log")), {}};
    }
  }
  return {}; // at the log end offset
}

// -- truncation and retention -------------------------------------------------

error_code segment_log::truncate_to(int64_t offset) {
  if (failed_)
    return error_code::kafka_storage_error;
  if (offset < 0)
    return error_code::offset_out_of_range;
  if (offset >= log_end_offset())
    return error_code::none;
  ++generation_;
  if (offset < log_start_offset())
    return truncate_fully_and_start_at(offset);
  if (offset < log_start_offset_ && !set_log_start_offset(offset))
    return error_code::kafka_storage_error;
  // Newest first, so a crash part-way leaves a shorter log, never a gap.
  while (segments_.size() > 1 && segments_.back().base_offset > offset) {
    if (!delete_segment_files(segments_.back().base_offset))
      return error_code::kafka_storage_error;
    segments_.pop_back();
  }
  auto result = truncate_segment(segments_.back(), offset);
  if (result == error_code::none && !sync_dir(dir_))
    return io_error("fsync " + dir_);
  return result;
}

error_code segment_log::truncate_segment(segment& s, int64_t offset) {
  batch_info b;
  int64_t passed_end;
  auto st = locate(s, offset, b, &passed_end);
  if (st == scan::io_error)
    return io_error("read " + path_of(s.base_offset, ".log"));
  if (st == scan::torn) {
    last_error_ = "corrupt batch header at position "
                  + std::to_string(b.position) + " of "
                  + path_of(s.base_offset, ".log");
    return error_code::corrupt_message;
  }
  // A batch straddling `offset` goes whole: batches are never split, and
  // the log end offset stays where the kept data ends, so there is no gap
  // (Kafka sets it to `offset` regardless).
  // After compaction `offset` may fall in a hole: the batches from the
  // first one at or after it go, and the log ends at `offset`.
  uint64_t cut = st == scan::batch ? b.position : s.size;
  int64_t new_end = st == scan::batch ? std::min(b.base_offset, offset)
                                      : std::max(passed_end, offset);
  auto kept = std::lower_bound(s.entries.begin(), s.entries.end(), cut,
                               [](const index_entry& e, uint64_t c) {
                                 return static_cast<uint64_t>(e.position) < c;
                               });
  s.entries.erase(kept, s.entries.end());
  if (!truncate_file(s.log.get(), cut)
      || !truncate_file(s.index.get(), s.entries.size() * index_entry_size))
    return io_error("truncate " + path_of(s.base_offset, ".log"));
  s.size = cut;
  s.next_offset = new_end;
  s.bytes_since_index =
    cut - (s.entries.empty() ? 0 : s.entries.back().position);
  if (cut == 0)
    s.max_timestamp = -1;
  else
    s.max_timestamp.reset(); // rescanned when retention asks
  if (!sync_file(s.log.get()) || !sync_file(s.index.get())) {
    failed_ = true;
    return io_error("fsync " + path_of(s.base_offset, ".log"));
  }
  unflushed_messages_ = 0;
  return error_code::none;
}

error_code segment_log::truncate_fully_and_start_at(int64_t offset) {
  // Kafka's truncateFullyAndStartAt: the target is below every segment.
  // The new segment is created first so the log is never without one.
  auto fresh = create_segment(offset);
  if (!fresh)
    return error_code::kafka_storage_error;
  while (!segments_.empty()) {
    if (!delete_segment_files(segments_.back().base_offset)) {
      failed_ = true;
      return error_code::kafka_storage_error;
    }
    segments_.pop_back();
  }
  segments_.push_back(std::move(*fresh));
  unflushed_messages_ = 0;
  if (!sync_dir(dir_))
    return io_error("fsync " + dir_);
  // The checkpoint must not keep an older, higher start.
  if (!set_log_start_offset(-1))
    return error_code::kafka_storage_error;
  return error_code::none;
}

bool segment_log::set_log_start_offset(int64_t offset) {
  auto checkpoint = offset < 0 ? segments_.front().base_offset : offset;
  if (!write_log_start_checkpoint(dir_, checkpoint)) {
    io_error("write " + dir_ + "/" + log_start_checkpoint);
    return false;
  }
  log_start_offset_ = offset;
  return true;
}

error_code segment_log::increment_log_start_offset(int64_t offset) {
  if (failed_)
    return error_code::kafka_storage_error;
  if (offset < 0)
    return error_code::offset_out_of_range;
  if (offset > log_end_offset()) {
    ++generation_;
    if (auto e = truncate_fully_and_start_at(offset); e != error_code::none)
      return e;
    return error_code::none;
  }
  if (offset <= log_start_offset())
    return error_code::none;
  if (!set_log_start_offset(offset))
    return error_code::kafka_storage_error;
  return error_code::none;
}

std::optional<int64_t> segment_log::largest_timestamp(segment& s) {
  if (!s.max_timestamp) {
    int64_t max_ts = -1;
    for (uint64_t pos = 0;;) {
      batch_info b;
      auto st = read_batch_info(s.log.get(), pos, s.size, b);
      if (st == scan::io_error)
        return io_error("read " + path_of(s.base_offset, ".log")), std::nullopt;
      if (st != scan::batch)
        break;
      max_ts = std::max(max_ts, b.max_timestamp);
      pos += b.size;
    }
    s.max_timestamp = max_ts;
  }
  if (*s.max_timestamp >= 0)
    return s.max_timestamp;
  // No record timestamps: Kafka falls back to the file's last-modified time.
  struct stat st;
  if (::fstat(s.log.get(), &st) != 0)
    return io_error("stat " + path_of(s.base_offset, ".log")), std::nullopt;
  return int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
}

error_code segment_log::apply_retention(int64_t now_ms) {
  if (failed_)
    return error_code::kafka_storage_error;
  // Kafka's deleteLogStartOffsetBreachedSegments, under any policy: a
  // segment goes once the next one starts at or below the log start.
  while (segments_.size() > 1 && segments_[1].base_offset <= log_start_offset())
    if (!delete_oldest())
      return error_code::kafka_storage_error;
  // Only cleanup.policy=delete (or compact,delete) deletes by age and size:
  // a compacted log, __consumer_offsets among them, keeps every segment
  // and is shrunk by the cleaner alone (Kafka's UnifiedLog
  // .deleteOldSegments checks config.delete).
  if (!config_.delete_policy)
    return error_code::none;
  // Oldest first, never the active segment (Kafka rolls to delete that
  // too; troupe keeps it).
  if (config_.retention_ms >= 0) {
    while (segments_.size() > 1) {
      auto ts = largest_timestamp(segments_.front());
      if (!ts)
        return error_code::kafka_storage_error;
      int64_t age;
      if (__builtin_sub_overflow(now_ms, *ts, &age))
        age = now_ms > *ts ? INT64_MAX : INT64_MIN;
      if (age <= config_.retention_ms)
        break;
      if (!delete_oldest())
        return error_code::kafka_storage_error;
    }
  }
  if (config_.retention_bytes >= 0) {
    // Kafka: delete while what remains stays >= retention.bytes.
    auto excess =
      static_cast<int64_t>(size_in_bytes()) - config_.retention_bytes;
    while (segments_.size() > 1) {
      auto size = static_cast<int64_t>(segments_.front().size);
      if (excess - size < 0)
        break;
      if (!delete_oldest())
        return error_code::kafka_storage_error;
      excess -= size;
    }
  }
  return error_code::none;
}

bool segment_log::delete_oldest() {
  ++generation_;
  if (!delete_segment_files(segments_.front().base_offset))
    return false;
  segments_.erase(segments_.begin());
  return true;
}

// -- for the log cleaner ------------------------------------------------------

std::optional<std::vector<segment_log::segment_summary>>
segment_log::summaries() {
  std::vector<segment_summary> out;
  for (auto& s : segments_) {
    auto ts = largest_timestamp(s);
    if (!ts)
      return std::nullopt;
    segment_summary sum{s.base_offset, s.next_offset, s.size, *ts, -1};
    batch_info first;
    auto st = read_batch_info(s.log.get(), 0, s.size, first);
    if (st == scan::io_error)
      return io_error("read " + path_of(s.base_offset, ".log")), std::nullopt;
    if (st == scan::batch)
      sum.first_batch_timestamp = first.max_timestamp;
    out.push_back(sum);
  }
  return out;
}

error_code segment_log::segment_headers(int64_t base_offset,
                                        uint64_t& position, size_t max_count,
                                        std::vector<batch_header>& out) {
  auto it = std::lower_bound(
    segments_.begin(), segments_.end(), base_offset,
    [](const segment& s, int64_t o) { return s.base_offset < o; });
  if (it == segments_.end() || it->base_offset != base_offset)
    return error_code::none;
  uint8_t buf[L::header_size];
  for (size_t n = 0; n < max_count; ++n) {
    batch_info b;
    auto st = read_batch_info(it->log.get(), position, it->size, b);
    if (st == scan::io_error)
      return io_error("read " + path_of(base_offset, ".log"));
    if (st != scan::batch)
      break;
    if (pread_full(it->log.get(), buf, sizeof buf, position)
        != static_cast<ssize_t>(sizeof buf))
      return io_error("read " + path_of(base_offset, ".log"));
    out.push_back(*parse_header(buf, sizeof buf));
    position += b.size;
  }
  return error_code::none;
}

log_read segment_log::read_segment(int64_t base_offset, uint64_t position,
                                   size_t max_bytes) {
  auto it = std::lower_bound(
    segments_.begin(), segments_.end(), base_offset,
    [](const segment& s, int64_t o) { return s.base_offset < o; });
  if (it == segments_.end() || it->base_offset != base_offset)
    return {};
  batch_info b;
  switch (read_batch_info(it->log.get(), position, it->size, b)) {
    case scan::end:
      return {};
    case scan::batch:
      if (auto bytes = read_batches(*it, b, max_bytes))
        return {error_code::none, std::move(*bytes)};
      return {io_error("read " + path_of(base_offset, ".log")), {}};
    case scan::torn:
      last_error_ = "corrupt batch header at position "
                    + std::to_string(position) + " of "
                    + path_of(base_offset, ".log");
      return {error_code::corrupt_message, {}};
    case scan::io_error:
      break;
  }
  return {io_error("read " + path_of(base_offset, ".log")), {}};
}

error_code segment_log::begin_cleaned(int64_t base_offset) {
  abort_cleaned();
  segment s;
  s.base_offset = base_offset;
  s.next_offset = base_offset;
  s.max_timestamp = -1;
  auto log_path = path_of(base_offset, ".log.cleaned");
  auto index_path = path_of(base_offset, ".index.cleaned");
  constexpr int flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;
  s.log = unique_fd{::open(log_path.c_str(), flags, 0644)};
  if (s.log.get() < 0)
    return io_error("create " + log_path);
  s.index = unique_fd{::open(index_path.c_str(), flags, 0644)};
  if (s.index.get() < 0) {
    auto e = io_error("create " + index_path);
    ::unlink(log_path.c_str());
    return e;
  }
  cleaned_ = std::move(s);
  cleaned_buffer_.clear();
  return error_code::none;
}

error_code segment_log::append_cleaned(const uint8_t* batch, size_t size,
                                       int64_t last_offset) {
  if (!cleaned_)
    return error_code::invalid_request;
  auto& s = *cleaned_;
  auto h = *parse_header(batch, size);
  batch_info b;
  b.position = s.size;
  b.size = size;
  b.base_offset = h.base_offset;
  b.last_offset = last_offset;
  b.max_timestamp = h.max_timestamp;
  note_batch(s, b, config_.index_interval_bytes);
  s.size += size;
  s.next_offset = last_offset + 1;
  cleaned_buffer_.insert(cleaned_buffer_.end(), batch, batch + size);
  if (cleaned_buffer_.size() >= (1u << 20))
    return flush_cleaned();
  return error_code::none;
}

error_code segment_log::flush_cleaned() {
  auto& s = *cleaned_;
  auto at = s.size - cleaned_buffer_.size();
  if (!pwrite_full(s.log.get(), cleaned_buffer_.data(), cleaned_buffer_.size(),
                   at))
    return io_error("write " + path_of(s.base_offset, ".log.cleaned"));
  cleaned_buffer_.clear();
  return error_code::none;
}

uint64_t segment_log::cleaned_size() const {
  return cleaned_ ? cleaned_->size : 0;
}

void segment_log::abort_cleaned() {
  if (!cleaned_)
    return;
  auto base = cleaned_->base_offset;
  cleaned_.reset();
  cleaned_buffer_.clear();
  ::unlink(path_of(base, ".log.cleaned").c_str());
  ::unlink(path_of(base, ".index.cleaned").c_str());
}

error_code segment_log::replace_with_cleaned(int64_t end,
                                             const fault_hook& hook,
                                             bool* stopped) {
  if (stopped)
    *stopped = false;
  if (failed_ || !cleaned_)
    return error_code::kafka_storage_error;
  auto base = cleaned_->base_offset;
  // The old segments: [base, end), never the active one.
  auto first = std::find_if(segments_.begin(), segments_.end(),
                            [&](const segment& s) {
                              return s.base_offset == base;
                            });
  auto last = std::find_if(first, segments_.end(), [&](const segment& s) {
    return s.base_offset >= end;
  });
  if (first == segments_.end() || first == last
      || last == segments_.end()) {
    abort_cleaned();
    last_error_ = "the segments to replace are gone";
    return error_code::invalid_request;
  }
  auto stop = [&](swap_step step) {
    if (hook && !hook(step)) {
      if (stopped)
        *stopped = true;
      return true;
    }
    return false;
  };
  auto fail_before_commit = [&](const std::string& what) {
    auto e = io_error(what);
    abort_cleaned();
    return e;
  };
  // 1. The cleaned files, complete and durable.
  if (stop(swap_step::write_cleaned))
    return error_code::none;
  if (auto e = flush_cleaned(); e != error_code::none) {
    abort_cleaned();
    return e;
  }
  if (!write_index(*cleaned_)) {
    abort_cleaned();
    return error_code::kafka_storage_error;
  }
  if (stop(swap_step::sync_cleaned))
    return error_code::none;
  if (!sync_file(cleaned_->log.get()) || !sync_file(cleaned_->index.get()))
    return fail_before_commit("fsync " + path_of(base, ".log.cleaned"));
  // 2. Retire the old segments: renamed to .deleted, which open() renames
  // back while no .swap exists.
  std::vector<int64_t> retired;
  auto unretire = [&] {
    for (auto b : retired) {
      rename_file(path_of(b, ".log.deleted"), path_of(b, ".log"));
      rename_file(path_of(b, ".index.deleted"), path_of(b, ".index"));
    }
  };
  for (auto i = first; i != last; ++i) {
    if (stop(swap_step::retire_old))
      return error_code::none;
    auto b = i->base_offset;
    if (!rename_file(path_of(b, ".log"), path_of(b, ".log.deleted"))) {
      auto e = fail_before_commit("rename " + path_of(b, ".log"));
      unretire();
      return e;
    }
    retired.push_back(b);
    if (!rename_file(path_of(b, ".index"), path_of(b, ".index.deleted"))
        && errno != ENOENT) {
      auto e = fail_before_commit("rename " + path_of(b, ".index"));
      unretire();
      return e;
    }
  }
  if (!sync_dir(dir_)) {
    auto e = fail_before_commit("fsync " + dir_);
    unretire();
    return e;
  }
  // 3. The commit: the cleaned files become .swap.
  if (stop(swap_step::commit_index))
    return error_code::none;
  if (!rename_file(path_of(base, ".index.cleaned"),
                   path_of(base, ".index.swap"))) {
    auto e = fail_before_commit("rename " + path_of(base, ".index.cleaned"));
    unretire();
    return e;
  }
  if (stop(swap_step::commit_log))
    return error_code::none;
  if (!rename_file(path_of(base, ".log.cleaned"), path_of(base, ".log.swap"))) {
    ::unlink(path_of(base, ".index.swap").c_str());
    auto e = fail_before_commit("rename " + path_of(base, ".log.cleaned"));
    unretire();
    return e;
  }
  // From here on the new segment is the log's: a failure leaves the log to
  // the next open() to finish, and takes no more writes.
  auto fail_after_commit = [&](const std::string& what) {
    failed_ = true;
    return io_error(what);
  };
  if (!sync_dir(dir_))
    return fail_after_commit("fsync " + dir_);
  // 4. The retired files go.
  for (auto b : retired) {
    if (stop(swap_step::delete_old))
      return error_code::none;
    if ((::unlink(path_of(b, ".log.deleted").c_str()) != 0 && errno != ENOENT)
        || (::unlink(path_of(b, ".index.deleted").c_str()) != 0
            && errno != ENOENT))
      return fail_after_commit("delete " + path_of(b, ".log.deleted"));
  }
  // 5. The .swap files take the segment's name.
  if (stop(swap_step::install_index))
    return error_code::none;
  if (!rename_file(path_of(base, ".index.swap"), path_of(base, ".index")))
    return fail_after_commit("rename " + path_of(base, ".index.swap"));
  if (stop(swap_step::install_log))
    return error_code::none;
  if (!rename_file(path_of(base, ".log.swap"), path_of(base, ".log")))
    return fail_after_commit("rename " + path_of(base, ".log.swap"));
  if (!sync_dir(dir_))
    return fail_after_commit("fsync " + dir_);
  // In memory: the cleaned segment spans to the next one's base (holes
  // are fine: offsets never move).
  segment fresh = std::move(*cleaned_);
  cleaned_.reset();
  fresh.next_offset = end;
  auto at = segments_.erase(first, last);
  segments_.insert(at, std::move(fresh));
  ++generation_;
  return error_code::none;
}

} // namespace troupe
