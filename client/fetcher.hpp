#pragma once

// troupe's Kafka client: a consumer's fetching side (Kafka's Fetcher and
// FetchCollector; docs/ARCHITECTURE.md §8), used by the REST consumer
// instances' poll (§5, REST consumer instances). Given each
// partition's position and leader, it sends one long-poll fetch per
// partition to its leader, all at once; the first answer with records
// ends the fetch, and the answer gives those records with the partition's
// next position. OFFSET_OUT_OF_RANGE resets a position by
// auto.offset.reset; NOT_LEADER_OR_FOLLOWER, any other error and a failed
// ask give nothing (the owner asks the metadata again on its next poll).
//
// troupe's internal fetch has no isolation level: a consumer reads up to
// the high watermark, Kafka's read_uncommitted.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "domain/log/record_batch.hpp"
#include "domain/topic_partition.hpp"
#include "messages/cluster_messages.hpp"
#include "messages/replication_messages.hpp"

namespace troupe::client {

/// Fetch at most this much per partition (Kafka's
/// max.partition.fetch.bytes default).
constexpr int32_t max_partition_fetch_bytes = 1048576;

/// What one fetch asks for.
struct fetch_settings {
  /// fetch.max.wait.ms: how long a leader holds the fetch for min_bytes.
  std::chrono::milliseconds max_wait{0};
  /// fetch.min.bytes.
  int32_t min_bytes = 1;
  /// max.partition.fetch.bytes.
  int32_t max_partition_bytes = max_partition_fetch_bytes;
  /// The records returned per partition, counted as their keys' and
  /// values' bytes, at least one record; negative: no limit. When positive
  /// and smaller, it also caps what each fetch asks for.
  int64_t max_bytes = -1;
  /// auto.offset.reset for an out-of-range position: position_earliest or
  /// position_latest.
  int64_t reset_to = position_latest;
  /// How long to wait for a leader's answer (request.timeout.ms).
  std::chrono::milliseconds request_timeout{0};
};

/// One partition's fetched records (Kafka's CompletedFetch.fetchRecords).
struct fetched_records {
  topic_partition partition;
  std::vector<decoded_record> records;
  /// The partition's position after them: the last record's offset + 1.
  int64_t next_offset = -1;
};

/// What a fetch brought back.
struct fetch_result {
  /// The records per partition: the first answer with records ends the
  /// fetch, so at most one partition.
  std::vector<fetched_records> fetched;
  /// Partitions answered OFFSET_OUT_OF_RANGE, at auto.offset.reset, in the
  /// order the answers came.
  std::vector<partition_position> resets;

  /// Where the positions move: the resets, then each fetched partition's
  /// next offset.
  std::vector<partition_position> next_positions() const {
    auto moves = resets;
    for (auto& f : fetched)
      moves.push_back({f.partition, f.next_offset});
    return moves;
  }
};

/// The fetch for one partition at `position`.
fetch_request fetch_request_for(const partition_position& position,
                                const fetch_settings& settings);

/// The records of one answer from `from` on, at most `max_bytes` of keys
/// and values (at least one record; negative: all). Batches whose records
/// cannot be decoded (compressed) are skipped. `next_offset` is -1 when
/// there are none.
fetched_records collect_records(const topic_partition& tp,
                                const fetch_response& res, int64_t from,
                                int64_t max_bytes);

/// Kafka's FetchCollector for one answer to the fetch of `asked`: records
/// go to `out.fetched` (true: the fetch ends), OFFSET_OUT_OF_RANGE to
/// `out.resets`; other errors, a failed ask and an answer with no records
/// from the position on add nothing.
bool collect_fetch(const partition_position& asked,
                   const caf::expected<fetch_response>& answer,
                   const fetch_settings& settings, fetch_result& out);

// `Io` is what the fetcher's owner gives it to reach the cluster. It has:
//   broker_actor broker(int32_t id) const;        // null when unknown
//   void fetch(broker_actor, fetch_request, std::chrono::milliseconds timeout,
//              std::function<void(caf::expected<fetch_response>)>) const;
// All of it runs in the owning actor. (The handle is whatever broker()
// returns, so a test may use plain ids.)

/// Kafka's Fetcher.sendFetches: one fetch per partition with a position
/// (offset >= 0) to its leader in `leaders`; a partition missing there is
/// asked of broker id 0, as the REST poll always did. Returns how many
/// fetches went out; when none, `k` never runs. Otherwise `k(fetch_result)`
/// runs once, in the owner: at the first answer with records, or after the
/// last answer; answers after that are dropped.
template <class Io>
size_t send_fetches(const Io& io,
                    const std::vector<partition_position>& positions,
                    const std::map<topic_partition, int32_t>& leaders,
                    const fetch_settings& settings,
                    std::function<void(fetch_result)> k) {
  using handle = decltype(io.broker(int32_t{0}));
  std::vector<std::pair<handle, fetch_request>> reqs;
  std::vector<partition_position> asked;
  for (auto& p : positions) {
    if (p.offset < 0)
      continue;
    auto l = leaders.find(p.partition);
    reqs.emplace_back(io.broker(l == leaders.end() ? 0 : l->second),
                      fetch_request_for(p, settings));
    asked.push_back(p);
  }
  if (reqs.empty())
    return 0;
  struct gather {
    std::vector<partition_position> asked;
    fetch_settings settings;
    std::function<void(fetch_result)> k;
    fetch_result result;
    size_t outstanding = 1; // released once every fetch is out
    bool finished = false;
    void finish() {
      if (!finished) {
        finished = true;
        k(std::move(result));
      }
    }
    void release() {
      if (--outstanding == 0)
        finish();
    }
  };
  auto g = std::make_shared<gather>();
  g->asked = std::move(asked);
  g->settings = settings;
  g->k = std::move(k);
  auto n = reqs.size();
  for (size_t i = 0; i < n; ++i) {
    ++g->outstanding;
    io.fetch(
      std::move(reqs[i].first), std::move(reqs[i].second),
      settings.request_timeout, [g, i](caf::expected<fetch_response> answer) {
        if (!g->finished
            && collect_fetch(g->asked[i], answer, g->settings, g->result))
          g->finish();
        g->release();
      });
  }
  g->release();
  return n;
}

} // namespace troupe::client
