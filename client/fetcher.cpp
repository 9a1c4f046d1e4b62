// troupe's Kafka client: the fetcher's requests and its collector (see
// client/fetcher.hpp).

#include "client/fetcher.hpp"

#include "domain/log/record_batches.hpp"

namespace troupe::client {

fetch_request fetch_request_for(const partition_position& position,
                                const fetch_settings& settings) {
  fetch_request fr;
  fr.partition = position.partition;
  fr.offset = position.offset;
  fr.max_bytes = settings.max_partition_bytes;
  if (settings.max_bytes > 0 && settings.max_bytes < fr.max_bytes)
    fr.max_bytes = static_cast<int32_t>(settings.max_bytes);
  fr.max_wait_ms = static_cast<int32_t>(settings.max_wait.count());
  fr.min_bytes = settings.min_bytes;
  return fr;
}

fetched_records collect_records(const topic_partition& tp,
                                const fetch_response& res, int64_t from,
                                int64_t max_bytes) {
  fetched_records out;
  out.partition = tp;
  int64_t size = 0;
  for (auto& batch : record_batches{res.records}) {
    if (auto recs = batch.records())
      for (auto& r : *recs) {
        if (r.offset < from)
          continue;
        auto bytes = static_cast<int64_t>((r.key ? r.key->size() : 0)
                                          + (r.value ? r.value->size() : 0));
        if (!out.records.empty() && max_bytes >= 0 && size + bytes > max_bytes)
          return out;
        size += bytes;
        out.next_offset = r.offset + 1;
        out.records.push_back(std::move(r));
      }
  }
  return out;
}

bool collect_fetch(const partition_position& asked,
                   const caf::expected<fetch_response>& answer,
                   const fetch_settings& settings, fetch_result& out) {
  if (!answer)
    return false;
  if (answer->error == error_code::offset_out_of_range) {
    // Kafka: an out-of-range position resets by auto.offset.reset.
    out.resets.push_back({asked.partition, settings.reset_to});
    return false;
  }
  // NOT_LEADER_OR_FOLLOWER and the rest: nothing from this partition now.
  if (answer->error != error_code::none)
    return false;
  auto got =
    collect_records(asked.partition, *answer, asked.offset, settings.max_bytes);
  if (got.records.empty())
    return false;
  out.fetched.push_back(std::move(got));
  return true;
}

} // namespace troupe::client
