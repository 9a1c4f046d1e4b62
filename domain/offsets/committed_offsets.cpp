#include "domain/offsets/committed_offsets.hpp"

namespace troupe {

int64_t loaded_timestamp_ms(int64_t stored_ms, int64_t now_ms) noexcept {
  constexpr int64_t year_2000_ms = 946684800000;
  return stored_ms < year_2000_ms ? now_ms : stored_ms;
}

offset_fetch_response
fetch_offsets(const std::map<topic_partition, committed_offset>& offsets,
              const offset_fetch_request& req) {
  offset_fetch_response result;
  auto add = [&](const topic_partition& tp, const committed_offset* c) {
    offset_fetch_partition p;
    p.topic = tp.topic;
    p.partition = tp.partition;
    if (c) {
      p.offset = c->offset;
      p.leader_epoch = c->leader_epoch;
      p.metadata = c->metadata;
    }
    result.partitions.push_back(std::move(p));
  };
  if (req.partitions.empty()) {
    for (const auto& [tp, c] : offsets)
      add(tp, &c);
  } else {
    for (const auto& tp : req.partitions) {
      auto i = offsets.find(tp);
      add(tp, i == offsets.end() ? nullptr : &i->second);
    }
  }
  return result;
}

error_code offsets_write_error(offsets_write what, error_code e) noexcept {
  switch (e) {
    case error_code::none:
      return e;
    case error_code::unknown_topic_or_partition:
    case error_code::not_enough_replicas:
    case error_code::not_enough_replicas_after_append:
      return error_code::coordinator_not_available;
    case error_code::request_timed_out:
      // storeGroup: the member rejoins (Kafka's doSyncGroup).
      return what == offsets_write::group_metadata
               ? error_code::rebalance_in_progress
               : error_code::coordinator_not_available;
    case error_code::not_leader_or_follower:
    case error_code::kafka_storage_error:
      return error_code::not_coordinator;
    case error_code::message_too_large:
    case error_code::record_list_too_large:
    case error_code::invalid_fetch_size:
      return what == offsets_write::offset_commit
               ? error_code::invalid_commit_offset_size
               : error_code::unknown_server_error;
    case error_code::network_exception:
      return what == offsets_write::group_records
               ? error_code::coordinator_load_in_progress
               : error_code::unknown_server_error;
    default:
      return error_code::unknown_server_error;
  }
}

} // namespace troupe
