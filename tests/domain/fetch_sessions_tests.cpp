// Incremental fetch sessions (KIP-227): Kafka's FetchManager.newContext and
// the incremental response's selection (domain/kafka/fetch_sessions.hpp).

#include <catch2/catch.hpp>

#include "domain/kafka/fetch_sessions.hpp"

using namespace troupe;
using namespace troupe::wire;

namespace {

wire::fetch_partition at(int32_t partition, int64_t offset) {
  wire::fetch_partition p;
  p.partition = partition;
  p.fetch_offset = offset;
  p.partition_max_bytes = 1 << 20;
  return p;
}

/// A Fetch v12 request (topics by name) of session `id` at `epoch`.
wire::fetch_request
fetch(int32_t id, int32_t epoch,
      std::vector<std::pair<std::string, std::vector<wire::fetch_partition>>>
        topics,
      std::vector<wire::forgotten_topic> forgotten = {}) {
  wire::fetch_request r;
  r.session_id = id;
  r.session_epoch = epoch;
  for (auto& [name, ps] : topics)
    r.topics.push_back({name, ps, {}});
  r.forgotten_topics_data = std::move(forgotten);
  return r;
}

fetch_partition_outcome quiet(int64_t hw) {
  return {error_code::none, hw, hw, 0, false};
}

fetch_partition_outcome with_records(int64_t hw) {
  return {error_code::none, hw, hw, 0, true};
}

std::vector<int32_t> partitions(const fetch_context& ctx) {
  std::vector<int32_t> out;
  for (auto& p : ctx.partitions)
    out.push_back(p.key.partition);
  return out;
}

/// Opens a session on t-0..t-(n-1) at offset 0, every partition at high
/// watermark 10; answers its id.
int32_t open_session(fetch_session_cache& cache, int n = 3, int64_t now = 0) {
  std::vector<wire::fetch_partition> ps;
  for (int i = 0; i < n; ++i)
    ps.push_back(at(i, 0));
  auto ctx = cache.open(fetch(0, 0, {{"t", ps}}), 12, now);
  std::vector<fetch_partition_outcome> outs(ps.size(), quiet(10));
  cache.answer(ctx, outs, now);
  return ctx.session_id;
}

} // namespace

TEST_CASE("a full fetch at epoch 0 opens a session and is answered in full") {
  fetch_session_cache cache;
  auto ctx = cache.open(fetch(0, 0, {{"t", {at(0, 0), at(1, 0)}}}), 12, 0);
  CHECK(ctx.error == error_code::none);
  CHECK_FALSE(ctx.incremental);
  auto included =
    cache.answer(ctx, {quiet(5), quiet(5)}, 0);
  CHECK(included == std::vector<size_t>{0, 1});
  CHECK(ctx.session_id != 0);
  CHECK(cache.size() == 1);
  CHECK(cache.epoch_of(ctx.session_id) == 1);
}

TEST_CASE("a full fetch at epoch -1 opens no session (session id 0)") {
  fetch_session_cache cache;
  auto ctx = cache.open(fetch(0, -1, {{"t", {at(0, 0)}}}), 12, 0);
  cache.answer(ctx, {quiet(5)}, 0);
  CHECK(ctx.session_id == 0);
  CHECK(cache.size() == 0);
}

TEST_CASE("an incremental fetch of a session that does not exist gets "
          "FETCH_SESSION_ID_NOT_FOUND") {
  fetch_session_cache cache;
  auto ctx = cache.open(fetch(12345, 1, {}), 12, 0);
  CHECK(ctx.error == error_code::fetch_session_id_not_found);
  CHECK(ctx.partitions.empty());
}

TEST_CASE("an incremental fetch at another epoch than the session expects "
          "gets INVALID_FETCH_SESSION_EPOCH, and a retried epoch too") {
  fetch_session_cache cache;
  auto id = open_session(cache);
  CHECK(cache.open(fetch(id, 2, {}), 12, 1).error
        == error_code::invalid_fetch_session_epoch);
  auto ok = cache.open(fetch(id, 1, {}), 12, 1);
  CHECK(ok.error == error_code::none);
  CHECK(cache.epoch_of(id) == 2);
  // The same epoch again (a resent request) is refused.
  CHECK(cache.open(fetch(id, 1, {}), 12, 2).error
        == error_code::invalid_fetch_session_epoch);
}

TEST_CASE("an incremental fetch keeps the session's partitions and fetch "
          "offsets, updates the ones it names and adds new ones") {
  fetch_session_cache cache;
  auto id = open_session(cache);
  auto ctx =
    cache.open(fetch(id, 1, {{"t", {at(1, 7)}}, {"u", {at(0, 3)}}}), 12, 1);
  REQUIRE(ctx.incremental);
  CHECK(ctx.session_id == id);
  REQUIRE(ctx.partitions.size() == 4);
  CHECK(ctx.partitions[1].request.fetch_offset == 7); // updated
  CHECK(ctx.partitions[0].request.fetch_offset == 0); // kept
  CHECK(ctx.partitions[3].key.topic == "u");          // added, at the end
  CHECK(ctx.partitions[3].request.fetch_offset == 3);
}

TEST_CASE("an incremental fetch drops its forgotten partitions") {
  fetch_session_cache cache;
  auto id = open_session(cache);
  auto ctx = cache.open(fetch(id, 1, {}, {{"t", {}, {0, 2}}}), 12, 1);
  CHECK(partitions(ctx) == std::vector<int32_t>{1});
  CHECK(cache.partitions_of(id).size() == 1);
}

TEST_CASE("an incremental response carries only the partitions with "
          "records, a new high watermark or log start, or an error") {
  fetch_session_cache cache;
  auto id = open_session(cache, 4);
  auto ctx = cache.open(fetch(id, 1, {}), 12, 1);
  REQUIRE(ctx.partitions.size() == 4);
  fetch_partition_outcome moved_start = quiet(10);
  moved_start.log_start_offset = 4;
  fetch_partition_outcome failed{error_code::not_leader_or_follower, -1, -1,
                                 -1, false};
  auto included =
    cache.answer(ctx, {quiet(10), with_records(12), moved_start, failed}, 1);
  CHECK(included == std::vector<size_t>{1, 2, 3});
  // Nothing new next time, except the partition that failed: its state is
  // answered again once it recovers.
  auto next = cache.open(fetch(id, 2, {}), 12, 2);
  std::vector<fetch_partition_outcome> outs;
  for (auto& p : next.partitions) {
    auto o = quiet(p.key.partition == 1 ? 12 : 10);
    if (p.key.partition == 2)
      o.log_start_offset = 4;
    outs.push_back(o);
  }
  auto again = cache.answer(next, outs, 2);
  REQUIRE(again.size() == 1);
  CHECK(next.partitions[again[0]].key.partition == 3);
}

TEST_CASE("a partition that returned records moves to the end of its "
          "session") {
  fetch_session_cache cache;
  auto id = open_session(cache, 3);
  auto ctx = cache.open(fetch(id, 1, {}), 12, 1);
  cache.answer(ctx, {with_records(11), quiet(10), quiet(10)}, 1);
  auto next = cache.open(fetch(id, 2, {}), 12, 2);
  CHECK(partitions(next) == std::vector<int32_t>{1, 2, 0});
}

TEST_CASE("a full fetch that names a session closes it") {
  fetch_session_cache cache;
  auto id = open_session(cache);
  auto ctx = cache.open(fetch(id, -1, {{"t", {at(0, 0)}}}), 12, 1);
  CHECK(ctx.error == error_code::none);
  CHECK(cache.size() == 0);
  CHECK(cache.open(fetch(id, 1, {}), 12, 1).error
        == error_code::fetch_session_id_not_found);
}

TEST_CASE("an incremental fetch that forgets every partition closes the "
          "session") {
  fetch_session_cache cache;
  auto id = open_session(cache, 1);
  auto ctx = cache.open(fetch(id, 1, {}, {{"t", {}, {0}}}), 12, 1);
  CHECK(ctx.error == error_code::none);
  CHECK(ctx.session_id == 0);
  CHECK(ctx.partitions.empty());
  CHECK(cache.size() == 0);
}

TEST_CASE("a session opened with topic ids refuses a fetch by names with "
          "FETCH_SESSION_TOPIC_ID_ERROR") {
  fetch_session_cache cache;
  wire::fetch_request r;
  r.session_epoch = 0;
  r.topics.push_back({"", {at(0, 0)}, uuid{1, 2}});
  auto ctx = cache.open(r, 13, 0);
  cache.answer(ctx, {quiet(1)}, 0);
  REQUIRE(ctx.session_id != 0);
  CHECK(cache.open(fetch(ctx.session_id, 1, {}), 12, 1).error
        == error_code::fetch_session_topic_id_error);
  wire::fetch_request by_id;
  by_id.session_id = ctx.session_id;
  by_id.session_epoch = 1;
  CHECK(cache.open(by_id, 13, 1).error == error_code::none);
}

TEST_CASE("max.incremental.fetch.session.cache.slots bounds the sessions: a "
          "full cache opens none, unless a session is stale or smaller") {
  fetch_session_cache cache{2, 1000};
  auto a = open_session(cache, 3, 0);
  auto b = open_session(cache, 3, 0);
  CHECK(a != 0);
  CHECK(b != 0);
  // Full: a session no larger than the smallest gets no id.
  CHECK(open_session(cache, 3, 10) == 0);
  CHECK(cache.size() == 2);
  // A larger one takes the smallest's slot.
  auto c = open_session(cache, 5, 20);
  CHECK(c != 0);
  CHECK(cache.size() == 2);
  // Past the eviction time any session takes a stale one's slot (a, unused
  // since 0, or b).
  cache.open(fetch(c, 1, {}), 12, 1500);
  auto d = open_session(cache, 1, 1500);
  CHECK(d != 0);
  CHECK(cache.epoch_of(c) == 2); // the one in use stays
}

TEST_CASE("slots 0 opens no session at all") {
  fetch_session_cache cache{0};
  CHECK(open_session(cache) == 0);
}
