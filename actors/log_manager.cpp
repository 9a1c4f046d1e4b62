#include "actors/log_manager.hpp"

#include <filesystem>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

namespace troupe {

namespace {

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
  auto opened = segment_log::open(dir, st.config);
  if (auto err = std::get_if<std::string>(&opened)) {
    spdlog::error("log_manager: cannot open {}: {}", dir, *err);
    return nullptr;
  }
  managed_log m;
  m.log =
    std::make_unique<segment_log>(std::move(std::get<segment_log>(opened)));
  rebuild_epochs(m);
  return &st.logs.emplace(tp, std::move(m)).first->second;
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

/// A leader's append: offsets from the log end, its leader epoch stamped.
error_code append_as_leader(log_manager_ptr self, managed_log& m,
                            log_append_request& req, int64_t* base) {
  if (req.batch.size() >= batch_layout::header_size)
    set_leader_epoch(req.batch.data(), req.leader_epoch);
  auto e = m.log->append(std::move(req.batch), now_ms(self), base);
  if (e == error_code::none)
    m.epochs.assign(req.leader_epoch, *base);
  return e;
}

/// A follower's append: the leader's batches as they are, in order from the
/// log end offset (a batch already held is skipped).
error_code append_as_follower(log_manager_ptr self, managed_log& m,
                              log_append_request& req, int64_t* base) {
  auto& r = req.batch;
  size_t walked = 0;
  for (auto& b : record_batches{r}) {
    walked = b.end();
    auto leo = m.log->log_end_offset();
    if (b.last_offset() < leo)
      continue;
    if (b.header.base_offset != leo)
      return error_code::offset_out_of_range;
    bytes one(b.data, b.data + b.size);
    int64_t at = -1;
    if (auto e = m.log->append(std::move(one), now_ms(self), &at);
        e != error_code::none)
      return e;
    if (*base < 0)
      *base = at;
    m.epochs.assign(b.header.partition_leader_epoch, at);
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
  auto e = for_each_batch(m, [&](const batch_view& b) {
      auto& h = b.header;
      if (h.max_timestamp < timestamp)
        return true;
      auto epoch = h.partition_leader_epoch;
      found = {error_code::none, h.max_timestamp, h.base_offset, epoch};
      if (auto records = b.records())
        for (auto& rec : *records)
          if (rec.timestamp >= timestamp) {
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

} // namespace

log_manager_actor::behavior_type
log_manager(log_manager_ptr self, std::string dir, cluster_config config) {
  auto& st = self->state;
  st.dir = std::move(dir);
  st.config = config.log;
  st.retention_check_interval_ms = config.log_retention_check_interval_ms;
  self->delayed_send(self, ms(st.retention_check_interval_ms),
                     log_maintenance_tick{});
  return {
    [self](log_append_request& req) {
      log_append_response res;
      auto m = log_for(self, req.partition);
      if (!m) {
        res.error = error_code::kafka_storage_error;
        return res;
      }
      res.error = req.as_follower
                    ? append_as_follower(self, *m, req, &res.base_offset)
                    : append_as_leader(self, *m, req, &res.base_offset);
      if (res.error == error_code::kafka_storage_error)
        spdlog::error("log_manager: append to {} failed: {}",
                      to_string(req.partition), m->log->last_error());
      res.log_end_offset = m->log->log_end_offset();
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
        m->epochs.truncate_from_end(m->log->log_end_offset());
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
      if (req.assign_epoch >= 0)
        m->epochs.assign(req.assign_epoch, m->log->log_end_offset());
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
        m->epochs.truncate_from_end(m->log->log_end_offset());
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
    [self](log_delete_request& req) {
      auto& st = self->state;
      for (auto& tp : req.partitions) {
        st.logs.erase(tp); // closes its files
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
    [self](log_maintenance_tick&) {
      auto& st = self->state;
      auto now = now_ms(self);
      for (auto& [tp, m] : st.logs) {
        if (m.log->apply_retention(now) != error_code::none
            || m.log->flush() != error_code::none)
          spdlog::error("log_manager: maintenance of {} failed: {}",
                        to_string(tp), m.log->last_error());
        else
          m.epochs.truncate_from_start(m.log->log_start_offset());
      }
      self->delayed_send(self, ms(st.retention_check_interval_ms),
                         log_maintenance_tick{});
    },
  };
}

} // namespace troupe
