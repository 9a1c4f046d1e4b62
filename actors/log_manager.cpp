#include "actors/log_manager.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/statvfs.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "domain/log/log_defaults.hpp"
#include "domain/log/offset_checkpoint.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace {

/// Kafka's time.milliseconds() for the logs: record timestamps, segment.ms,
/// retention.ms and the cleaner's delete horizons are wall-clock
/// milliseconds, and horizons are stored on disk. The actor clock, shifted
/// once by the wall clock at spawn: the wall clock in production, while
/// CAF's test coordinator's simulated time stays in control.
int64_t log_clock_ms(log_manager_ptr self) {
  return now_ms(self) + self->state.clock_shift_ms;
}

// -- the leader epoch checkpoint -------------------------------------------------

/// Kafka's leader-epoch-checkpoint file in the partition directory
/// (LeaderEpochCheckpointFile: version 0, the count, "epoch startOffset"
/// lines). The cache is rebuilt from the batches' leader epochs at open,
/// but compaction removes batches, and with them the first batch of an
/// epoch: the checkpoint keeps where each epoch began.
constexpr const char* epoch_checkpoint = "leader-epoch-checkpoint";
/// Kafka's name and format: one file in the broker's log directory, a line
/// per partition (domain/log/offset_checkpoint.hpp), so that a checkpoint
/// is one fsync whatever the partition count.
constexpr const char* hw_checkpoint_name = "replication-offset-checkpoint";

void save_epochs(const segment_log& log, const leader_epoch_cache& epochs) {
  auto path = log.dir() + "/" + epoch_checkpoint;
  auto tmp = path + ".tmp";
  std::string text = "0\n" + std::to_string(epochs.entries().size()) + "\n";
  for (auto& [epoch, offset] : epochs.entries())
    text += std::to_string(epoch) + " " + std::to_string(offset) + "\n";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size()
            && std::fflush(f) == 0 && ::fdatasync(::fileno(f)) == 0;
  if (f)
    ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    spdlog::error("log_manager: cannot write {}", path);
  }
}

void load_epochs(managed_log& m) {
  std::ifstream in{m.log->dir() + "/" + epoch_checkpoint};
  int version = -1;
  size_t count = 0;
  if (!(in >> version >> count) || version != 0)
    return;
  for (size_t i = 0; i < count; ++i) {
    int32_t epoch;
    int64_t offset;
    if (!(in >> epoch >> offset))
      return;
    m.epochs.assign(epoch, offset);
  }
}

/// Runs `change` on the epoch cache and checkpoints it if it changed.
template <class Change>
void update_epochs(managed_log& m, Change change) {
  auto before = m.epochs.entries();
  change(m.epochs);
  if (m.epochs.entries() != before)
    save_epochs(*m.log, m.epochs);
}

/// Reads every batch header once to learn where each leader epoch starts.
void rebuild_epochs(managed_log& m) {
  auto offset = m.log->log_start_offset();
  while (offset < m.log->log_end_offset()) {
    auto chunk = m.log->read(offset, 1 << 20);
    if (chunk.error != error_code::none || chunk.records.empty())
      return;
    record_batches batches{chunk.records};
    for (auto& b : batches) {
      m.epochs.assign(b.header.partition_leader_epoch, b.header.base_offset);
      offset = b.next_offset();
    }
    if (!batches.whole())
      return;
  }
}

/// A topic's log settings: its own (topic_log_config), else the broker's.
log_config config_for(const log_manager_state& st, const std::string& topic) {
  if (auto i = st.topic_configs.find(topic); i != st.topic_configs.end())
    return i->second;
  return default_log_config(st.config, topic);
}

/// The partition's log, opened (or created and recovered) on first use;
/// null when the disk refuses, with the reason logged.
managed_log* log_for(log_manager_ptr self, const topic_partition& tp) {
  auto& st = self->state;
  auto i = st.logs.find(tp);
  if (i != st.logs.end())
    return &i->second;
  if (tp.topic.empty() || tp.partition < 0 || st.deleted.count(tp))
    return nullptr;
  auto dir = st.dir + "/" + to_string(tp);
  auto opened = segment_log::open(dir, config_for(st, tp.topic));
  if (auto err = std::get_if<std::string>(&opened)) {
    spdlog::error("log_manager: cannot open {}: {}", dir, *err);
    return nullptr;
  }
  managed_log m;
  m.log =
    std::make_unique<segment_log>(std::move(std::get<segment_log>(opened)));
  // The checkpointed epochs first, then any newer ones the batches show
  // (assign ignores older epochs), cut to the log's offsets.
  load_epochs(m);
  rebuild_epochs(m);
  m.epochs.truncate_from_end(m.log->log_end_offset());
  m.epochs.truncate_from_start(m.log->log_start_offset());
  m.cleaner_checkpoint = read_cleaner_checkpoint(dir);
  // The high watermark as last checkpointed (Kafka's
  // replication-offset-checkpoint), never past the recovered log's end.
  auto hw = st.hw_checkpoint.find(tp);
  m.checkpointed_hw = std::min(hw == st.hw_checkpoint.end() ? -1 : hw->second,
                               m.log->log_end_offset());
  m.stable_offset = std::max(m.cleaner_checkpoint, m.checkpointed_hw);
  return &st.logs.emplace(tp, std::move(m)).first->second;
}

/// Kafka's ReplicaManager.checkpointHighWatermarks: every partition whose
/// known high watermark moved since its last checkpoint gets it written, at
/// most every replica.high.watermark.checkpoint.interval.ms (5 s, Kafka's
/// default) and when the log manager stops, so that a replica that opens
/// its log again (a restart, a lost ZooKeeper session) starts from it and
/// not from the log start: a leader that started from 0 answered ListOffsets
/// with a high watermark far behind the one clients had seen.
void checkpoint_high_watermarks(log_manager_state& st) {
  bool changed = false;
  for (auto& [tp, m] : st.logs) {
    if (m.stable_offset == m.checkpointed_hw || m.log->failed()
        || m.stable_offset < 0)
      continue;
    st.hw_checkpoint[tp] = m.stable_offset;
    changed = true;
  }
  if (!changed)
    return;
  if (!write_partition_checkpoint(st.dir, hw_checkpoint_name,
                                  st.hw_checkpoint)) {
    spdlog::error("log_manager: cannot write {}/{}", st.dir,
                  hw_checkpoint_name);
    return;
  }
  for (auto& [tp, m] : st.logs)
    if (auto i = st.hw_checkpoint.find(tp); i != st.hw_checkpoint.end())
      m.checkpointed_hw = i->second;
}

constexpr int64_t hw_checkpoint_interval_ms = 5000;

void maybe_checkpoint_high_watermarks(log_manager_ptr self) {
  auto& st = self->state;
  auto now = now_ms(self);
  if (now - st.hw_checkpoint_ms < hw_checkpoint_interval_ms)
    return;
  st.hw_checkpoint_ms = now;
  checkpoint_high_watermarks(st);
}

log_read_response offsets_of(const segment_log& log) {
  log_read_response res;
  res.log_start_offset = log.log_start_offset();
  res.log_end_offset = log.log_end_offset();
  return res;
}

log_epoch_response epochs_of(const managed_log& m, int32_t requested_epoch) {
  log_epoch_response res;
  res.log_start_offset = m.log->log_start_offset();
  res.log_end_offset = m.log->log_end_offset();
  res.latest_epoch = m.epochs.latest_epoch();
  res.high_watermark = m.stable_offset;
  if (requested_epoch >= 0)
    std::tie(res.epoch, res.end_offset) =
      m.epochs.end_offset_for(requested_epoch, res.log_end_offset);
  return res;
}

/// Cuts a read at the first batch that starts at or after `max_offset`.
void cut_at(bytes& records, int64_t max_offset) {
  size_t keep = 0;
  for (auto& b : record_batches{records}) {
    if (b.header.base_offset >= max_offset)
      break;
    keep = b.end();
  }
  records.resize(keep);
}

/// Kafka's LogValidator.validateKey: a compacted topic takes only records
/// with keys (INVALID_RECORD). A compressed batch's records are opaque to
/// troupe (it does not decompress), so it cannot be checked and passes.
bool has_null_key(const bytes& batch) {
  auto records = decode_records(batch.data(), batch.size());
  if (!records)
    return false;
  for (auto& r : *records)
    if (!r.key)
      return true;
  return false;
}

/// A leader's append: offsets from the log end, its leader epoch stamped;
/// a compacted topic refuses records without a key, and a LogAppendTime
/// topic stamps the batch with the broker's clock.
error_code append_as_leader(log_manager_ptr self, managed_log& m,
                            log_append_request& req, int64_t* base,
                            std::string& message) {
  auto& config = m.log->config();
  auto now = log_clock_ms(self);
  if ((config.compact || config.log_append_time)
      && req.batch.size() >= batch_layout::header_size
      && validate_batch(req.batch.data(), req.batch.size(),
                        config.max_batch_bytes)
           == error_code::none) {
    if (config.compact && has_null_key(req.batch)) {
      message = "Compacted topic cannot accept message without key in topic "
                "partition "
                + to_string(req.partition) + ".";
      return error_code::invalid_record;
    }
    if (config.log_append_time)
      set_log_append_time(req.batch.data(), req.batch.size(), now);
  }
  if (req.batch.size() >= batch_layout::header_size)
    set_leader_epoch(req.batch.data(), req.leader_epoch);
  auto e = m.log->append(std::move(req.batch), now, base);
  if (e == error_code::none
      && req.leader_epoch > m.epochs.latest_epoch())
    update_epochs(m, [&](auto& c) { c.assign(req.leader_epoch, *base); });
  return e;
}

/// A follower's append: the leader's batches as they are, in order from the
/// log end offset (a batch already held is skipped). A batch may start past
/// the log end offset when the leader's log was compacted: the offsets
/// between are holes on both replicas.
error_code append_as_follower(log_manager_ptr self, managed_log& m,
                              log_append_request& req, int64_t* base) {
  auto& r = req.batch;
  size_t walked = 0;
  for (auto& b : record_batches{r}) {
    walked = b.end();
    auto leo = m.log->log_end_offset();
    if (b.last_offset() < leo)
      continue;
    if (b.header.base_offset < leo)
      return error_code::offset_out_of_range;
    bytes one(b.data, b.data + b.size);
    int64_t at = b.header.base_offset;
    if (auto e = m.log->append_replicated(std::move(one), log_clock_ms(self));
        e != error_code::none)
      return e;
    if (*base < 0)
      *base = at;
    if (b.header.partition_leader_epoch > m.epochs.latest_epoch())
      update_epochs(m, [&](auto& c) {
          c.assign(b.header.partition_leader_epoch, at);
        });
  }
  // A batch cut short or malformed.
  if (walked != r.size())
    return error_code::corrupt_message;
  return error_code::none;
}

/// Walks the log's batches from its start; `visit(batch_view)` returns
/// false to stop. Answers the read's error, or CORRUPT_MESSAGE for
/// a batch whose header does not fit.
template <class Visit>
error_code for_each_batch(managed_log& m, Visit visit) {
  auto offset = m.log->log_start_offset();
  while (offset < m.log->log_end_offset()) {
    auto chunk = m.log->read(offset, 1 << 20);
    if (chunk.error != error_code::none)
      return chunk.error;
    if (chunk.records.empty())
      break;
    auto& r = chunk.records;
    size_t walked = 0;
    for (auto& b : record_batches{r}) {
      if (!visit(b))
        return error_code::none;
      offset = b.next_offset();
      walked = b.end();
    }
    if (walked != r.size())
      return error_code::corrupt_message;
  }
  return error_code::none;
}

/// Kafka's offsetsForTimes: the first record whose timestamp is at or after
/// `timestamp` (a scan of the batch headers, then of one batch's records;
/// Kafka keeps a time index for this).
list_offsets_response offset_for_time(managed_log& m, int64_t timestamp) {
  list_offsets_response found{error_code::none, -1, -1};
  // Records below the log start offset (DeleteRecords) are not answered,
  // as Kafka's findOffsetByTimestamp(timestamp, logStartOffset).
  auto start = m.log->log_start_offset();
  auto e = for_each_batch(m, [&](const batch_view& b) {
      auto& h = b.header;
      if (h.max_timestamp < timestamp || b.last_offset() < start)
        return true;
      auto epoch = h.partition_leader_epoch;
      found = {error_code::none, h.max_timestamp,
               std::max(h.base_offset, start), epoch};
      if (auto records = b.records())
        for (auto& rec : *records)
          if (rec.timestamp >= timestamp && rec.offset >= start) {
            found = {error_code::none, rec.timestamp, rec.offset, epoch};
            break;
          }
      return false;
    });
  if (e != error_code::none)
    return {e, -1, -1};
  return found;
}

/// ListOffsets' MAX_TIMESTAMP (KIP-734), as Kafka's UnifiedLog answers it:
/// the first batch holding the largest timestamp, and in it the first
/// record with that timestamp (a compressed batch, which troupe does not
/// decompress, answers its base offset).
list_offsets_response offset_of_max_timestamp(managed_log& m) {
  std::optional<batch_header> best;
  bytes best_bytes;
  auto e = for_each_batch(m, [&](const batch_view& b) {
      if (!best || b.header.max_timestamp > best->max_timestamp) {
        best = b.header;
        best_bytes.assign(b.data, b.data + b.size);
      }
      return true;
    });
  if (e != error_code::none)
    return {e, -1, -1};
  if (!best)
    return {error_code::none, -1, -1};
  auto epoch = best->partition_leader_epoch;
  if (auto records = decode_records(best_bytes.data(), best_bytes.size()))
    for (auto& rec : *records)
      if (rec.timestamp == best->max_timestamp)
        return {error_code::none, rec.timestamp, rec.offset, epoch};
  return {error_code::none, best->max_timestamp, best->base_offset, epoch};
}

// -- after a truncation -------------------------------------------------------------

/// Epochs starting at or after the new log end go; a cleaner checkpoint
/// past it comes back to it (Kafka's LogCleanerManager
/// .maybeTruncateCheckpoint), so the new records there count as dirty.
void after_truncation(managed_log& m) {
  auto leo = m.log->log_end_offset();
  update_epochs(m, [&](auto& c) { c.truncate_from_end(leo); });
  m.stable_offset = std::min(m.stable_offset, leo);
  if (m.cleaner_checkpoint > leo) {
    m.cleaner_checkpoint = leo;
    if (!write_cleaner_checkpoint(m.log->dir(), leo))
      spdlog::error("log_manager: cannot write the cleaner checkpoint of {}",
                    m.log->dir());
  }
}

// -- the cleaner ---------------------------------------------------------------------

/// What one cleaner slice reads at most before the log manager takes its
/// next message.
constexpr size_t cleaner_slice_bytes = 4u << 20;

/// Kafka's LogCleanerManager.grabFilthiestCompactedLog: of the compacted
/// logs not in their backoff, the one with the highest dirty ratio that
/// needs cleaning; its clean starts. False when there is none.
bool start_clean(log_manager_ptr self, int64_t now) {
  auto& st = self->state;
  auto steady = now_ms(self);
  managed_log* best = nullptr;
  const topic_partition* best_tp = nullptr;
  cleanable_log best_range;
  for (auto& [tp, m] : st.logs) {
    if (!m.log->config().compact || m.log->failed()
        || steady < m.next_clean_check_ms)
      continue;
    auto range =
      find_cleanable(*m.log, m.cleaner_checkpoint, now, m.stable_offset);
    if (!range) {
      spdlog::error("log_manager: cannot plan a clean of {}: {}",
                    to_string(tp), m.log->last_error());
      m.next_clean_check_ms = steady + st.config.log_cleaner_backoff_ms;
      continue;
    }
    if (!needs_cleaning(*range, m.log->config())) {
      m.next_clean_check_ms = steady + st.config.log_cleaner_backoff_ms;
      continue;
    }
    if (!best || range->dirty_ratio() > best_range.dirty_ratio()) {
      best = &m;
      best_tp = &tp;
      best_range = *range;
    }
  }
  if (!best)
    return false;
  log_cleaning c;
  c.partition = *best_tp;
  c.bytes_before = best->log->size_in_bytes();
  c.cleaner = std::make_unique<log_cleaner>(*best->log, best_range, now);
  st.cleaning = std::move(c);
  return true;
}

/// One slice of the clean in progress (or the start of the next), then the
/// next tick: at once, later when the throttle says so, or after
/// log.cleaner.backoff.ms when no log needs cleaning.
void run_cleaner(log_manager_ptr self) {
  auto& st = self->state;
  auto now = log_clock_ms(self);
  auto steady = now_ms(self);
  auto backoff = st.config.log_cleaner_backoff_ms;
  if (!st.cleaning && !start_clean(self, now)) {
    self->delayed_send(self, ms(backoff), log_cleaner_tick{});
    return;
  }
  auto& c = *st.cleaning;
  auto& m = st.logs.at(c.partition);
  auto& stats = c.cleaner->stats();
  auto moved_before = stats.bytes_read + stats.bytes_written;
  auto status = c.cleaner->step(cleaner_slice_bytes);
  auto moved = stats.bytes_read + stats.bytes_written - moved_before;
  if (status == log_cleaner::status::done) {
    auto to = c.cleaner->cleaned_to();
    m.cleaner_checkpoint = to;
    if (!write_cleaner_checkpoint(m.log->dir(), to))
      spdlog::error("log_manager: cannot write the cleaner checkpoint of {}",
                    to_string(c.partition));
    spdlog::info("log_manager: cleaned {}: {} bytes in {} segments became {} "
                 "in {}; {} of {} records kept, {} tombstones dropped; log "
                 "{} -> {} bytes; first dirty offset {}",
                 to_string(c.partition), stats.bytes_before,
                 stats.segments_before, stats.bytes_after,
                 stats.segments_after, stats.records_kept, stats.records_read,
                 stats.tombstones_dropped, c.bytes_before,
                 m.log->size_in_bytes(), to);
  } else if (status != log_cleaner::status::running) {
    spdlog::warn("log_manager: clean of {} abandoned: {}",
                 to_string(c.partition), c.cleaner->error());
  }
  if (status != log_cleaner::status::running) {
    m.next_clean_check_ms = steady + backoff;
    st.cleaning.reset();
  }
  // Kafka's Throttler (log.cleaner.io.max.bytes.per.second, checked every
  // 300 ms): when the bytes read and written since the window began came
  // faster than the rate, the next slice waits the difference.
  st.throttle_bytes += static_cast<double>(moved);
  auto elapsed = steady - st.throttle_start_ms;
  auto rate = st.config.log_cleaner_io_max_bytes_per_second;
  int64_t delay = 0;
  double needed = st.throttle_bytes * 1000.0 / rate;
  if (needed > static_cast<double>(elapsed) + 1) {
    delay = static_cast<int64_t>(needed) - elapsed;
    st.throttle_start_ms = steady + delay;
    st.throttle_bytes = 0;
  } else if (elapsed >= 300) {
    st.throttle_start_ms = steady;
    st.throttle_bytes = 0;
  }
  if (delay > 0)
    self->delayed_send(self, ms(delay), log_cleaner_tick{});
  else
    self->send(self, log_cleaner_tick{});
}

/// Kafka's ReplicaManager.describeLogDirs for the broker's one log
/// directory: its partitions (those asked for, or all), each with the bytes
/// of its segments; the file system's size and space left (statvfs, as
/// Java's FileStore); KAFKA_STORAGE_ERROR when it cannot be read.
describe_log_dirs_response describe_log_dirs(log_manager_ptr self,
                                             const describe_log_dirs_request& req) {
  auto& st = self->state;
  log_dir_description d;
  std::error_code ec;
  auto absolute = std::filesystem::absolute(st.dir, ec);
  d.path = ec ? st.dir : absolute.lexically_normal().string();
  struct statvfs fs;
  if (::statvfs(st.dir.c_str(), &fs) != 0) {
    d.error = error_code::kafka_storage_error;
    return describe_log_dirs_response{{std::move(d)}};
  }
  d.total_bytes = static_cast<int64_t>(fs.f_blocks) * fs.f_frsize;
  d.usable_bytes = static_cast<int64_t>(fs.f_bavail) * fs.f_frsize;
  for (auto& [tp, m] : st.logs) {
    if (!req.all
        && std::find(req.partitions.begin(), req.partitions.end(), tp)
             == req.partitions.end())
      continue;
    d.partitions.push_back(
      {tp, static_cast<int64_t>(m.log->size_in_bytes()), 0});
  }
  return describe_log_dirs_response{{std::move(d)}};
}

} // namespace

log_manager_actor::behavior_type
log_manager(log_manager_ptr self, std::string dir, cluster_config config) {
  auto& st = self->state;
  st.dir = std::move(dir);
  st.config = config;
  st.retention_check_interval_ms = config.log_retention_check_interval_ms;
  st.clock_shift_ms = wall_clock_ms() - now_ms(self);
  st.throttle_start_ms = now_ms(self);
  self->delayed_send(self, ms(st.retention_check_interval_ms),
                     log_maintenance_tick{});
  if (config.log_cleaner_enable)
    self->delayed_send(self, ms(config.log_cleaner_backoff_ms),
                       log_cleaner_tick{});
  st.hw_checkpoint_ms = now_ms(self);
  st.hw_checkpoint = read_partition_checkpoint(st.dir, hw_checkpoint_name);
  // A stop (the broker stopped, the node lost its session, the process
  // shuts down) writes the high watermarks first (Kafka's shutdown does).
  self->set_exit_handler([self](caf::exit_msg& msg) {
    if (msg.reason == caf::exit_reason::normal)
      return; // CAF's default: a normal exit of a linked actor is ignored
    checkpoint_high_watermarks(self->state);
    self->quit(msg.reason);
  });
  return {
    [self](log_append_request& req) {
      log_append_response res;
      auto m = log_for(self, req.partition);
      if (!m) {
        res.error = error_code::kafka_storage_error;
        return res;
      }
      if (req.high_watermark > m->stable_offset)
        m->stable_offset = req.high_watermark;
      res.error =
        req.as_follower
          ? append_as_follower(self, *m, req, &res.base_offset)
          : append_as_leader(self, *m, req, &res.base_offset,
                             res.error_message);
      if (res.error == error_code::kafka_storage_error)
        spdlog::error("log_manager: append to {} failed: {}",
                      to_string(req.partition), m->log->last_error());
      res.log_end_offset = m->log->log_end_offset();
      maybe_checkpoint_high_watermarks(self);
      return res;
    },
    [self](log_read_request& req) {
      auto m = log_for(self, req.partition);
      if (!m)
        return log_read_response{error_code::kafka_storage_error, {}, -1, -1};
      auto res = offsets_of(*m->log);
      if (req.max_bytes < 0) {
        res.error = error_code::invalid_request;
        return res;
      }
      // A consumer's read stops at the high watermark.
      if (req.max_offset > m->stable_offset)
        m->stable_offset = req.max_offset;
      if (req.max_offset >= 0 && req.offset >= req.max_offset)
        return res; // nothing below the limit yet
      auto read = m->log->read(req.offset, static_cast<size_t>(req.max_bytes));
      res.error = read.error;
      res.records = std::move(read.records);
      if (req.max_offset >= 0)
        cut_at(res.records, req.max_offset);
      return res;
    },
    [self](log_truncate_request& req) {
      auto m = log_for(self, req.partition);
      if (!m)
        return log_read_response{error_code::kafka_storage_error, {}, -1, -1};
      auto e = m->log->truncate_to(req.offset);
      if (e == error_code::none)
        after_truncation(*m);
      auto res = offsets_of(*m->log);
      res.error = e;
      return res;
    },
    [self](log_epoch_request& req) {
      if (req.requested_epoch < 0 && req.assign_epoch < 0)
        self->state.deleted.erase(req.partition); // a new replica opens it
      auto m = log_for(self, req.partition);
      if (!m)
        return log_epoch_response{error_code::kafka_storage_error};
      if (req.assign_epoch > m->epochs.latest_epoch())
        update_epochs(*m, [&](auto& c) {
            c.assign(req.assign_epoch, m->log->log_end_offset());
          });
      return epochs_of(*m, req.requested_epoch);
    },
    [self](log_diverge_request& req) {
      auto m = log_for(self, req.partition);
      if (!m)
        return log_epoch_response{error_code::kafka_storage_error};
      auto leo = m->log->log_end_offset();
      auto cut = follower_truncation_offset(
        m->epochs, {req.leader_epoch, req.leader_end_offset}, leo,
        req.high_watermark);
      if (cut < leo) {
        spdlog::info("log_manager: truncating {} from {} to {}",
                     to_string(req.partition), leo, cut);
        if (auto e = m->log->truncate_to(cut); e != error_code::none) {
          auto res = epochs_of(*m, -1);
          res.error = e;
          return res;
        }
        after_truncation(*m);
      }
      return epochs_of(*m, -1);
    },
    [self](list_offsets_request& req) {
      auto m = log_for(self, req.partition);
      if (!m)
        return list_offsets_response{error_code::kafka_storage_error, -1, -1};
      if (req.timestamp == max_timestamp_lookup)
        return offset_of_max_timestamp(*m);
      return offset_for_time(*m, req.timestamp);
    },
    [self](describe_log_dirs_request& req) {
      return describe_log_dirs(self, req);
    },
    [self](delete_records_request& req) {
      // The replica checked the offset against its high watermark (or it
      // follows its leader's log start); cleanup.policy is the log's.
      auto m = log_for(self, req.partition);
      if (!m)
        return delete_records_response{error_code::kafka_storage_error, -1};
      auto& log = *m->log;
      if (!log.config().delete_policy)
        return delete_records_response{error_code::policy_violation, -1};
      if (req.offset < 0) // the check alone
        return delete_records_response{error_code::none,
                                       log.log_start_offset()};
      auto before = log.log_end_offset();
      if (auto e = log.increment_log_start_offset(req.offset);
          e != error_code::none) {
        spdlog::error("log_manager: cannot move the log start of {} to {}: {}",
                      to_string(req.partition), req.offset, log.last_error());
        return delete_records_response{e, -1};
      }
      if (log.log_end_offset() != before) {
        // Started again past its end (Kafka's truncateFullyAndStartAt
        // clears the epoch cache).
        update_epochs(*m, [](auto& c) { c = leader_epoch_cache{}; });
        after_truncation(*m);
      }
      update_epochs(*m, [&](auto& c) {
          c.truncate_from_start(log.log_start_offset());
        });
      return delete_records_response{error_code::none, log.log_start_offset()};
    },
    [self](log_delete_request& req) {
      auto& st = self->state;
      for (auto& tp : req.partitions) {
        // A clean of this log in progress ends first, its .cleaned files
        // deleted (it holds the log).
        if (st.cleaning && st.cleaning->partition == tp) {
          st.cleaning->cleaner->abort();
          st.cleaning.reset();
        }
        st.logs.erase(tp); // closes its files
        st.hw_checkpoint.erase(tp);
        st.deleted.insert(tp);
        std::error_code ec;
        auto dir = st.dir + "/" + to_string(tp);
        std::filesystem::remove_all(dir, ec);
        if (ec)
          spdlog::error("log_manager: cannot remove {}: {}", dir, ec.message());
        else
          spdlog::info("log_manager: removed the log of {}", to_string(tp));
      }
    },
    [self](topic_log_config& msg) {
      auto& st = self->state;
      // A topic no longer compacted stops its clean in progress.
      if (st.cleaning && st.cleaning->partition.topic == msg.topic
          && !msg.config.compact) {
        st.cleaning->cleaner->abort();
        st.cleaning.reset();
      }
      for (auto& [tp, m] : st.logs)
        if (tp.topic == msg.topic)
          m.log->set_config(msg.config);
      st.topic_configs[msg.topic] = std::move(msg.config);
    },
    [self](log_cleaner_tick&) {
      run_cleaner(self);
    },
    [self](log_maintenance_tick&) {
      auto& st = self->state;
      auto now = log_clock_ms(self);
      for (auto& [tp, m] : st.logs) {
        // cleanup.policy=delete (or compact,delete) only: retention leaves
        // a compacted log to the cleaner (segment_log::apply_retention).
        if (m.log->apply_retention(now) != error_code::none
            || m.log->flush() != error_code::none)
          spdlog::error("log_manager: maintenance of {} failed: {}",
                        to_string(tp), m.log->last_error());
        else
          update_epochs(m, [&](auto& c) {
              c.truncate_from_start(m.log->log_start_offset());
            });
      }
      self->delayed_send(self, ms(st.retention_check_interval_ms),
                         log_maintenance_tick{});
    },
  };
}

} // namespace troupe
