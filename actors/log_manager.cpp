#include "actors/log_manager.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "domain/log/record_batch.hpp"

namespace troupe {

namespace {

/// The partition's log, opened (or created) on first use; null when the
/// disk refuses, with the reason logged.
segment_log* log_for(log_manager_ptr self, const topic_partition& tp) {
  auto& st = self->state;
  auto i = st.logs.find(tp);
  if (i != st.logs.end())
    return i->second.get();
  if (tp.topic.empty() || tp.partition < 0)
    return nullptr;
  auto dir = st.dir + "/" + to_string(tp);
  auto opened = segment_log::open(dir, st.config);
  if (auto err = std::get_if<std::string>(&opened)) {
    spdlog::error("log_manager: cannot open {}: {}", dir, *err);
    return nullptr;
  }
  auto log =
    std::make_unique<segment_log>(std::move(std::get<segment_log>(opened)));
  return st.logs.emplace(tp, std::move(log)).first->second.get();
}

log_read_response offsets_of(const segment_log& log) {
  log_read_response res;
  res.log_start_offset = log.log_start_offset();
  res.log_end_offset = log.log_end_offset();
  return res;
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
      auto log = log_for(self, req.partition);
      if (!log) {
        res.error = error_code::kafka_storage_error;
        return res;
      }
      if (req.batch.size() >= batch_layout::header_size)
        set_leader_epoch(req.batch.data(), req.leader_epoch);
      res.error =
        log->append(std::move(req.batch), now_ms(self), &res.base_offset);
      if (res.error == error_code::kafka_storage_error)
        spdlog::error("log_manager: append to {} failed: {}",
                      to_string(req.partition), log->last_error());
      res.log_end_offset = log->log_end_offset();
      return res;
    },
    [self](log_read_request& req) {
      auto log = log_for(self, req.partition);
      if (!log)
        return log_read_response{error_code::kafka_storage_error, {}, -1, -1};
      auto res = offsets_of(*log);
      if (req.max_bytes < 0) {
        res.error = error_code::invalid_request;
        return res;
      }
      auto read = log->read(req.offset, static_cast<size_t>(req.max_bytes));
      res.error = read.error;
      res.records = std::move(read.records);
      return res;
    },
    [self](log_truncate_request& req) {
      auto log = log_for(self, req.partition);
      if (!log)
        return log_read_response{error_code::kafka_storage_error, {}, -1, -1};
      auto e = log->truncate_to(req.offset);
      auto res = offsets_of(*log);
      res.error = e;
      return res;
    },
    [self](log_maintenance_tick&) {
      auto& st = self->state;
      auto now = now_ms(self);
      for (auto& [tp, log] : st.logs) {
        if (log->apply_retention(now) != error_code::none
            || log->flush() != error_code::none)
          spdlog::error("log_manager: maintenance of {} failed: {}",
                        to_string(tp), log->last_error());
      }
      self->delayed_send(self, ms(st.retention_check_interval_ms),
                         log_maintenance_tick{});
    },
  };
}

} // namespace troupe
