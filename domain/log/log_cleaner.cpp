#include "domain/log/log_cleaner.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "domain/log/offset_checkpoint.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace L = batch_layout;

namespace {

// -- hashing for the offset map (MurmurHash3's mixing, 64 bits at a time) --

uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

uint64_t fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

uint64_t hash_bytes(const uint8_t* p, size_t n, uint64_t seed) {
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
  auto mix = [&](uint64_t k) {
    k *= 0x87c37b91114253d5ULL;
    k = rotl(k, 31);
    k *= 0x4cf5ad432745937fULL;
    h ^= k;
    h = rotl(h, 27) * 5 + 0x52dce729;
  };
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t k;
    std::memcpy(&k, p, 8);
    mix(k);
  }
  if (n > 0) {
    uint64_t k = 0;
    std::memcpy(&k, p, n);
    mix(k ^ (uint64_t{0x80} << (8 * n % 64)));
  }
  return fmix(h);
}

/// Header scans per step: about the same I/O as `budget` bytes of reads.
size_t headers_for(size_t budget) {
  return std::max<size_t>(1, budget / 4096);
}

bool is_control(const batch_header& h) {
  return (h.attributes & L::control_flag) != 0;
}

bool is_transactional(const batch_header& h) {
  return (h.attributes & L::transactional_flag) != 0;
}

constexpr const char* checkpoint_name = "cleaner-offset-checkpoint";

} // namespace

// -- the offset map -------------------------------------------------------------

size_t offset_map::find(uint64_t h1, uint64_t h2) const {
  auto mask = slots_.size() - 1;
  for (auto i = static_cast<size_t>(h1) & mask;; i = (i + 1) & mask) {
    auto& s = slots_[i];
    if (s.offset < 0 || (s.h1 == h1 && s.h2 == h2))
      return i;
  }
}

void offset_map::grow() {
  std::vector<slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, slot{});
  for (auto& s : old)
    if (s.offset >= 0)
      slots_[find(s.h1, s.h2)] = s;
}

void offset_map::put(const uint8_t* key, size_t size, int64_t offset) {
  if ((used_ + 1) * 2 > slots_.size())
    grow();
  auto h1 = hash_bytes(key, size, 0x6a09e667f3bcc908ULL);
  auto h2 = hash_bytes(key, size, 0xbb67ae8584caa73bULL);
  auto& s = slots_[find(h1, h2)];
  if (s.offset < 0) {
    ++used_;
    s.h1 = h1;
    s.h2 = h2;
  }
  s.offset = offset;
}

int64_t offset_map::get(const uint8_t* key, size_t size) const {
  if (slots_.empty())
    return -1;
  auto h1 = hash_bytes(key, size, 0x6a09e667f3bcc908ULL);
  auto h2 = hash_bytes(key, size, 0xbb67ae8584caa73bULL);
  return slots_[find(h1, h2)].offset;
}

// -- planning -----------------------------------------------------------------

std::optional<cleanable_log> find_cleanable(segment_log& log,
                                            int64_t checkpoint, int64_t now_ms,
                                            int64_t stable_offset) {
  auto segments = log.summaries();
  if (!segments)
    return std::nullopt;
  auto& config = log.config();
  cleanable_log c;
  auto start = log.log_start_offset();
  auto active_base = segments->back().base_offset;
  // LogCleanerManager.cleanableOffsets: a checkpoint below the log start
  // (retention moved it) or past the log end (truncation) starts over.
  c.first_dirty_offset = checkpoint;
  if (checkpoint < start || checkpoint > log.log_end_offset())
    c.first_dirty_offset = start;
  // The first uncleanable offset: the active segment; the segment holding
  // the stable offset; the first dirty segment with a record newer than
  // min.compaction.lag.ms.
  int64_t uncleanable = active_base;
  for (auto& s : *segments) {
    if (s.base_offset >= uncleanable)
      break;
    if (s.next_offset > stable_offset) {
      uncleanable = s.base_offset;
      break;
    }
    if (config.min_compaction_lag_ms > 0 && s.next_offset > c.first_dirty_offset
        && s.largest_timestamp > now_ms - config.min_compaction_lag_ms) {
      uncleanable = s.base_offset;
      break;
    }
  }
  c.first_uncleanable_offset = std::max(uncleanable, c.first_dirty_offset);
  // LogToClean's byte counts, by whole segments.
  int64_t earliest_dirty = INT64_MAX;
  for (auto& s : *segments) {
    if (s.base_offset >= c.first_uncleanable_offset)
      break;
    if (s.next_offset <= c.first_dirty_offset) {
      c.clean_bytes += s.size;
    } else {
      c.cleanable_bytes += s.size;
      if (s.first_batch_timestamp > 0)
        earliest_dirty = std::min(earliest_dirty, s.first_batch_timestamp);
    }
  }
  // LogCleanerManager.maxCompactionDelay.
  auto lag = std::max<int64_t>(config.max_compaction_lag_ms, 0);
  int64_t clean_until;
  if (!__builtin_sub_overflow(now_ms, lag, &clean_until))
    c.compaction_due = earliest_dirty < clean_until;
  return c;
}

bool needs_cleaning(const cleanable_log& c, const log_config& config) {
  if (c.cleanable_bytes == 0)
    return false;
  return c.compaction_due || c.dirty_ratio() > config.min_cleanable_dirty_ratio;
}

// -- the checkpoint -----------------------------------------------------------

int64_t read_cleaner_checkpoint(const std::string& dir) {
  return read_offset_checkpoint(dir, checkpoint_name);
}

bool write_cleaner_checkpoint(const std::string& dir, int64_t offset) {
  return write_offset_checkpoint(dir, checkpoint_name, offset);
}

// -- the clean ----------------------------------------------------------------

log_cleaner::log_cleaner(segment_log& log, const cleanable_log& range,
                         int64_t now_ms, cleaner_options options)
  : log_(log),
    range_(range),
    now_ms_(now_ms),
    options_(options),
    generation_(log.generation()),
    map_end_(range.first_dirty_offset) {
  if (auto s = log_.summaries())
    segments_ = std::move(*s);
  else
    fail("cannot read the segments: " + log_.last_error());
}

log_cleaner::~log_cleaner() {
  if (status_ == status::running)
    abort();
}

void log_cleaner::abort() {
  if (status_ == status::stopped)
    return;
  log_.abort_cleaned();
  if (status_ == status::running)
    status_ = status::aborted;
}

log_cleaner::status log_cleaner::fail(const std::string& why) {
  error_ = why;
  log_.abort_cleaned();
  status_ = status::aborted;
  return status_;
}

log_cleaner::status log_cleaner::step(size_t max_read_bytes) {
  if (status_ != status::running)
    return status_;
  if (log_.generation() != generation_)
    return fail("the log changed under the clean");
  if (log_.failed())
    return fail("the log failed: " + log_.last_error());
  switch (phase_) {
    case phase::producers:
      return step_producers(max_read_bytes);
    case phase::map:
      return step_map(max_read_bytes);
    case phase::clean:
      return step_clean(max_read_bytes);
    case phase::finished:
      break;
  }
  return status_;
}

log_cleaner::status log_cleaner::step_producers(size_t budget) {
  // Kafka's lastRecordsOfActiveProducers, from the batch headers of the
  // whole log: the last batch of each producer id.
  auto count = headers_for(budget);
  while (count > 0 && segment_index_ < segments_.size()) {
    std::vector<batch_header> headers;
    auto before = position_;
    auto e = log_.segment_headers(segments_[segment_index_].base_offset,
                                  position_, count, headers);
    if (e != error_code::none)
      return fail("cannot read batch headers: " + log_.last_error());
    for (auto& h : headers) {
      if (h.producer_id < 0)
        continue;
      auto& p = producers_[h.producer_id];
      p.last_offset = h.base_offset + h.last_offset_delta;
      p.max_timestamp = h.max_timestamp;
    }
    count -= std::min(count, headers.size());
    if (headers.empty() || position_ == before) {
      ++segment_index_;
      position_ = 0;
    }
  }
  if (segment_index_ < segments_.size())
    return status::running;
  // Producers whose last batch is older than producer.id.expiration.ms
  // have expired: nothing of theirs need be kept.
  for (auto i = producers_.begin(); i != producers_.end();) {
    if (i->second.max_timestamp >= 0
        && i->second.max_timestamp
             < now_ms_ - std::min(now_ms_, options_.producer_id_expiration_ms))
      i = producers_.erase(i);
    else
      ++i;
  }
  phase_ = phase::map;
  segment_index_ = 0;
  position_ = 0;
  while (segment_index_ < segments_.size()
         && segments_[segment_index_].next_offset <= range_.first_dirty_offset)
    ++segment_index_;
  return status::running;
}

log_cleaner::status log_cleaner::step_map(size_t budget) {
  // Kafka's buildOffsetMap over [first dirty, first uncleanable): each key's
  // latest offset. Control batches carry no keys of their own; compressed
  // batches cannot be read (troupe does not decompress).
  size_t read = 0;
  bool full = false;
  while (!full && read < budget && segment_index_ < segments_.size()
         && segments_[segment_index_].base_offset
              < range_.first_uncleanable_offset) {
    auto& seg = segments_[segment_index_];
    auto chunk = log_.read_segment(seg.base_offset, position_,
                                   std::min<size_t>(budget - read, 1u << 20));
    if (chunk.error != error_code::none)
      return fail("cannot read the dirty segments: " + log_.last_error());
    if (chunk.records.empty()) {
      ++segment_index_;
      position_ = 0;
      map_end_ = std::max(map_end_, seg.next_offset);
      continue;
    }
    read += chunk.records.size();
    stats_.bytes_read += chunk.records.size();
    for (auto& b : record_batches{chunk.records}) {
      if (b.last_offset() < range_.first_dirty_offset) {
        position_ += b.size;
        continue;
      }
      if (!is_control(b.header) && b.header.compression() == 0) {
        if (!record_views(b.data, b.size, views_))
          return fail("a corrupt batch at offset "
                      + std::to_string(b.header.base_offset));
        // The map is full: this clean covers what is in it, the next goes
        // on from here.
        if (!map_.empty()
            && (map_.size() + views_.size()) * offset_map::bytes_per_key
                 > options_.max_map_bytes) {
          full = true;
          break;
        }
        for (auto& r : views_)
          if (r.key_size >= 0)
            map_.put(r.key, static_cast<size_t>(r.key_size), r.offset);
      }
      position_ += b.size;
      map_end_ = b.next_offset();
    }
  }
  bool done = full || segment_index_ >= segments_.size()
              || segments_[segment_index_].base_offset
                   >= range_.first_uncleanable_offset;
  if (!done)
    return status::running;
  if (!full)
    map_end_ = std::max(map_end_, range_.first_uncleanable_offset);
  if (!plan_groups())
    return fail("nothing to clean");
  phase_ = phase::clean;
  return status::running;
}

bool log_cleaner::plan_groups() {
  // Kafka's groupSegmentsBySize over the segments below the map's end:
  // consecutive segments whose sizes add up to at most segment.bytes and
  // whose offsets fit one segment's int32 relative offsets.
  auto& config = log_.config();
  size_t n = 0;
  while (n + 1 < segments_.size() && segments_[n].base_offset < map_end_)
    ++n; // never the active segment (the last)
  for (size_t i = 0; i < n;) {
    group g{i, i};
    uint64_t size = segments_[i].size;
    while (g.last + 1 < n) {
      auto& next = segments_[g.last + 1];
      if (size + next.size > config.segment_bytes
          || next.next_offset - 1 - segments_[i].base_offset > INT32_MAX)
        break;
      size += next.size;
      ++g.last;
    }
    groups_.push_back(g);
    i = g.last + 1;
  }
  segment_index_ = groups_.empty() ? 0 : groups_.front().first;
  position_ = 0;
  return !groups_.empty();
}

log_cleaner::status log_cleaner::step_clean(size_t budget) {
  size_t read = 0;
  while (read < budget && group_index_ < groups_.size()) {
    auto& g = groups_[group_index_];
    if (!group_started_) {
      if (log_.begin_cleaned(segments_[g.first].base_offset)
          != error_code::none)
        return fail("cannot create the cleaned segment: " + log_.last_error());
      group_started_ = true;
      segment_index_ = g.first;
      position_ = 0;
    }
    if (segment_index_ <= g.last) {
      auto& seg = segments_[segment_index_];
      auto chunk = log_.read_segment(seg.base_offset, position_,
                                     std::min<size_t>(budget - read, 1u << 20));
      if (chunk.error != error_code::none)
        return fail("cannot read a segment: " + log_.last_error());
      if (chunk.records.empty()) {
        stats_.bytes_before += seg.size;
        ++stats_.segments_before;
        ++segment_index_;
        position_ = 0;
        continue;
      }
      read += chunk.records.size();
      stats_.bytes_read += chunk.records.size();
      for (auto& b : record_batches{chunk.records}) {
        if (clean_batch(b) != error_code::none)
          return fail("cannot write the cleaned segment: "
                      + log_.last_error());
        position_ += b.size;
      }
      continue;
    }
    // The group is read: swap its cleaned segment in.
    auto end = segments_[g.last + 1].base_offset;
    auto size = log_.cleaned_size();
    bool stopped = false;
    auto e = log_.replace_with_cleaned(end, hook_, &stopped);
    if (stopped) {
      status_ = status::stopped;
      return status_;
    }
    if (e != error_code::none)
      return fail("cannot swap in the cleaned segment: " + log_.last_error());
    stats_.bytes_after += size;
    ++stats_.segments_after;
    // The swap changed the log's generation; the rest of the plan holds.
    generation_ = log_.generation();
    ++group_index_;
    group_started_ = false;
  }
  if (group_index_ < groups_.size())
    return status::running;
  phase_ = phase::finished;
  status_ = status::done;
  return status_;
}

error_code log_cleaner::clean_batch(const batch_view& b) {
  auto& h = b.header;
  auto& config = log_.config();
  auto last_offset = b.last_offset();
  auto keep_whole = [&] {
    ++stats_.batches_kept_whole;
    stats_.bytes_written += b.size;
    return log_.append_cleaned(b.data, b.size, last_offset);
  };
  // Past the map (it filled up) or opaque (compressed): kept as it is.
  if (h.base_offset >= map_end_ || h.compression() != 0) {
    if (is_transactional(h) && !is_control(h))
      open_transaction_data_[h.producer_id] = true;
    return keep_whole();
  }
  auto horizon = delete_horizon(h);
  // Kafka's checkBatchRetention: a marker of a transaction whose data is
  // all gone may be discarded once its delete horizon has passed.
  bool can_discard = false;
  if (is_control(h)) {
    auto i = open_transaction_data_.find(h.producer_id);
    can_discard = i == open_transaction_data_.end() || !i->second;
    open_transaction_data_[h.producer_id] = false;
  }
  bool discard_records = is_control(h) && can_discard && horizon
                         && *horizon <= now_ms_;
  bool last_of_producer = false;
  if (h.producer_id >= 0) {
    auto i = producers_.find(h.producer_id);
    last_of_producer = i != producers_.end()
                       && i->second.last_offset == last_offset;
  }
  if (!last_of_producer && discard_records)
    return error_code::none; // BatchRetention.DELETE
  if (!record_views(b.data, b.size, views_))
    return keep_whole(); // not readable: never drop what cannot be checked
  auto& records = views_;
  stats_.records_read += records.size();
  kept_.clear();
  auto& kept = kept_;
  bool contains_tombstones = false;
  if (!discard_records) {
    for (auto& r : records) {
      bool retain;
      if (is_control(h)) {
        retain = true;
      } else if (r.key_size < 0) {
        retain = false; // Kafka counts it as an invalid message
      } else {
        // A key not in the map has no later record in the dirty part.
        auto found = map_.get(r.key, static_cast<size_t>(r.key_size));
        bool latest = r.offset >= found;
        bool keep_delete = !horizon || now_ms_ < *horizon;
        retain = latest && (r.value_size >= 0 || keep_delete);
        if (latest && r.value_size < 0 && !keep_delete)
          ++stats_.tombstones_dropped;
      }
      if (retain) {
        if (r.value_size < 0 && !is_control(h))
          contains_tombstones = true;
        kept.push_back(r);
      }
    }
  }
  stats_.records_kept += kept.size();
  if (!kept.empty() && is_transactional(h) && !is_control(h))
    open_transaction_data_[h.producer_id] = true;
  bool set_horizon = (contains_tombstones || (is_control(h) && can_discard))
                     && !horizon;
  if (!kept.empty()) {
    if (kept.size() == records.size() && !set_horizon)
      return keep_whole(); // writeOriginalBatch
    int64_t new_horizon = -1;
    if (set_horizon
        && __builtin_add_overflow(now_ms_, config.delete_retention_ms,
                                  &new_horizon))
      new_horizon = INT64_MAX;
    auto out = encode_retained_batch(h, kept, new_horizon);
    if (out.empty())
      return keep_whole();
    stats_.bytes_written += out.size();
    return log_.append_cleaned(out.data(), out.size(), last_offset);
  }
  if (last_of_producer) {
    // BatchRetention.RETAIN_EMPTY: the header alone keeps the producer's
    // last sequence and epoch.
    auto out = encode_retained_batch(h, {}, -1);
    stats_.bytes_written += out.size();
    return log_.append_cleaned(out.data(), out.size(), last_offset);
  }
  return error_code::none; // every record went: the batch goes
}

} // namespace troupe
