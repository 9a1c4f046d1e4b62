// Kafka's log compaction (LogCleaner) on a real temporary directory: the
// plain log_cleaner over a segment_log, no actors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain/log/log_cleaner.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"
#include "domain/log/segment_log.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

using bytes = std::vector<uint8_t>;

using test::temp_dir;

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (auto* e = ::readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bytes read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  return bytes{std::istreambuf_iterator<char>{in}, {}};
}

/// The segment files (.log) of a directory, by name, with their bytes.
std::map<std::string, bytes> segment_files(const std::string& dir) {
  std::map<std::string, bytes> out;
  for (auto& n : list_dir(dir))
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".log") == 0)
      out[n] = read_file(dir + "/" + n);
  return out;
}

bool has_temp_files(const std::string& dir) {
  for (auto& n : list_dir(dir))
    for (auto* suffix : {".cleaned", ".swap", ".deleted"})
      if (n.find(suffix) != std::string::npos)
        return true;
  return false;
}

using kv = std::pair<std::string, std::optional<std::string>>;

bytes opt_bytes(const std::string& s) {
  return bytes(s.begin(), s.end());
}

/// One batch of keyed records (a nullopt value is a tombstone).
bytes batch_of(const std::vector<kv>& records, int64_t timestamp,
               int64_t producer_id = -1, int16_t epoch = -1,
               int32_t sequence = -1) {
  std::vector<record> rs;
  for (auto& [k, v] : records) {
    record r;
    r.key = opt_bytes(k);
    if (v)
      r.value = opt_bytes(*v);
    r.timestamp = timestamp;
    rs.push_back(std::move(r));
  }
  return encode_batch(0, 0, rs, producer_id, epoch, sequence);
}

segment_log open_log(const std::string& dir, const log_config& config) {
  auto opened = segment_log::open(dir, config);
  if (auto* error = std::get_if<std::string>(&opened))
    FAIL("open failed: " << *error);
  return std::move(std::get<segment_log>(opened));
}

log_config compacted(uint64_t segment_bytes = 1024) {
  log_config c;
  c.compact = true;
  c.delete_policy = false;
  c.segment_bytes = segment_bytes;
  c.index_interval_bytes = 256;
  return c;
}

int64_t append_ok(segment_log& log, bytes batch, int64_t now = 0) {
  int64_t base = -1;
  REQUIRE(log.append(std::move(batch), now, &base) == error_code::none);
  return base;
}

struct stored {
  int64_t offset;
  std::string key;
  std::optional<std::string> value;
};

/// Every record from the log start as a consumer reads it: fetch after
/// fetch from the offset after the last batch; every batch must be valid.
std::vector<stored> read_all(segment_log& log, size_t max_bytes = 700) {
  std::vector<stored> out;
  int64_t next = log.log_start_offset();
  while (next < log.log_end_offset()) {
    auto r = log.read(next, max_bytes);
    REQUIRE(r.error == error_code::none);
    REQUIRE_FALSE(r.records.empty());
    record_batches batches{r.records};
    REQUIRE(batches.whole());
    int64_t after = next;
    for (auto& b : batches) {
      REQUIRE(validate_stored_batch(b.data, b.size) == error_code::none);
      REQUIRE(b.last_offset() >= next);
      auto records = b.records();
      REQUIRE(records);
      for (auto& rec : *records) {
        if (rec.offset < next)
          continue;
        stored s{rec.offset, std::string(rec.key->begin(), rec.key->end()),
                 std::nullopt};
        if (rec.value)
          s.value = std::string(rec.value->begin(), rec.value->end());
        out.push_back(std::move(s));
      }
      after = b.next_offset();
    }
    REQUIRE(after > next);
    next = after;
  }
  return out;
}

/// The latest record of each key, as a consumer from the beginning ends up
/// seeing it (tombstones included).
std::map<std::string, stored> latest(const std::vector<stored>& records) {
  std::map<std::string, stored> out;
  for (auto& r : records)
    out.insert_or_assign(r.key, r);
  return out;
}

bool same(const std::map<std::string, stored>& a,
          const std::map<std::string, stored>& b) {
  if (a.size() != b.size())
    return false;
  for (auto& [k, r] : a) {
    auto i = b.find(k);
    if (i == b.end() || i->second.offset != r.offset
        || i->second.value != r.value)
      return false;
  }
  return true;
}

/// Runs a whole clean if the log needs one; the new first dirty offset, or
/// -1 when nothing was cleaned.
int64_t clean(segment_log& log, int64_t checkpoint, int64_t now,
              clean_stats* stats = nullptr, size_t slice = 300) {
  auto range = find_cleanable(log, checkpoint, now);
  REQUIRE(range);
  if (!needs_cleaning(*range, log.config()))
    return -1;
  log_cleaner cleaner{log, *range, now};
  auto st = log_cleaner::status::running;
  while (st == log_cleaner::status::running)
    st = cleaner.step(slice);
  INFO(cleaner.error());
  REQUIRE(st == log_cleaner::status::done);
  if (stats)
    *stats = cleaner.stats();
  return cleaner.cleaned_to();
}

/// 20 keys written 10 times each (200 records in 2-record batches), with
/// a few records per batch so segments of 1 KiB roll often.
void write_updates(segment_log& log, int64_t ts, int rounds = 10,
                   int keys = 20) {
  for (int round = 0; round < rounds; ++round)
    for (int k = 0; k < keys; k += 2)
      append_ok(log,
                batch_of({{"key-" + std::to_string(k),
                           "v" + std::to_string(round) + "-" + std::to_string(k)},
                          {"key-" + std::to_string(k + 1),
                           "v" + std::to_string(round) + "-"
                             + std::to_string(k + 1)}},
                         ts));
}

constexpr int64_t t0 = 1700000000000; // record timestamps: wall-clock ms

} // namespace

// -- the rules of a clean ----------------------------------------------------------

TEST_CASE("log compaction keeps the last value of each key and no offset "
          "changes") {
  temp_dir dir;
  auto log = open_log(dir.path, compacted());
  write_updates(log, t0);
  auto before = read_all(log);
  auto expected = latest(before);
  auto start = log.log_start_offset();
  auto end = log.log_end_offset();
  auto active = log.segment_base_offsets().back();
  auto size_before = log.size_in_bytes();
  REQUIRE(log.segment_base_offsets().size() > 5);

  clean_stats stats;
  auto to = clean(log, -1, t0 + 1000, &stats);
  CHECK(to == active); // everything up to the active segment is clean now
  CHECK(log.log_start_offset() == start);
  CHECK(log.log_end_offset() == end);
  CHECK(log.size_in_bytes() < size_before);

  auto after = read_all(log);
  CHECK(same(latest(after), expected));
  // Every record kept is the original one at its original offset, and
  // below the active segment each key appears once.
  std::map<int64_t, stored> original;
  for (auto& r : before)
    original.emplace(r.offset, r);
  std::set<std::string> seen;
  for (auto& r : after) {
    auto i = original.find(r.offset);
    REQUIRE(i != original.end());
    CHECK(i->second.key == r.key);
    CHECK(i->second.value == r.value);
    if (r.offset < active)
      CHECK(seen.insert(r.key).second);
  }
  CHECK(after.size() < before.size());

  // The next clean groups the small cleaned segments into one
  // (groupSegmentsBySize, by their sizes before this clean).
  write_updates(log, t0, 10);
  expected = latest(read_all(log));
  end = log.log_end_offset();
  auto segments = log.segment_base_offsets().size();
  REQUIRE(clean(log, to, t0 + 2000, &stats) > to);
  CHECK(stats.segments_after < stats.segments_before);
  CHECK(log.segment_base_offsets().size() < segments);
  CHECK(log.segment_base_offsets().front() == start);
  CHECK(same(latest(read_all(log)), expected));

  // And it all survives a restart.
  auto config = log.config();
  {
    auto closing = std::move(log);
  }
  auto reopened = open_log(dir.path, config);
  CHECK(reopened.log_end_offset() == end);
  CHECK(same(latest(read_all(reopened)), expected));
  CHECK_FALSE(has_temp_files(dir.path));
}

TEST_CASE("log compaction never touches the active segment") {
  temp_dir dir;
  auto log = open_log(dir.path, compacted());
  write_updates(log, t0);
  // The same key five times over, the last ones in the active segment.
  for (int i = 0; i < 5; ++i)
    append_ok(log, batch_of({{"key-0", "again-" + std::to_string(i)}}, t0));
  auto active = log.segment_base_offsets().back();
  char name[40];
  std::snprintf(name, sizeof name, "%020lld.log",
                static_cast<long long>(active));
  auto active_bytes = read_file(dir.path + "/" + name);
  auto in_active = [&] {
    std::vector<int64_t> offsets;
    for (auto& r : read_all(log))
      if (r.offset >= active)
        offsets.push_back(r.offset);
    return offsets;
  };
  auto before = in_active();
  REQUIRE(before.size() > 3);

  REQUIRE(clean(log, -1, t0 + 1000) == active);
  CHECK(read_file(dir.path + "/" + name) == active_bytes);
  // Every record of the active segment stays, superseded ones included.
  // (Its keys are not in the offset map either, as in Kafka: the latest
  // key-0 below it stays too, until the next clean.)
  CHECK(in_active() == before);
}

TEST_CASE("a tombstone survives delete.retention.ms after the clean that "
          "first kept it, and a later clean drops it") {
  temp_dir dir;
  auto config = compacted();
  config.delete_retention_ms = 60000;
  auto log = open_log(dir.path, config);
  append_ok(log, batch_of({{"gone", "v1"}, {"kept", "v1"}}, t0));
  append_ok(log, batch_of({{"gone", std::nullopt}}, t0)); // the tombstone
  write_updates(log, t0, 3);
  auto tombstone_at = [&]() -> std::optional<stored> {
    for (auto& r : read_all(log))
      if (r.key == "gone")
        return r;
    return std::nullopt;
  };

  // The first clean keeps it (the value before it goes) and stamps its
  // batch with the delete horizon (KIP-534).
  auto cp = clean(log, -1, t0 + 1000);
  REQUIRE(cp > 0);
  auto t = tombstone_at();
  REQUIRE(t);
  CHECK_FALSE(t->value);
  CHECK(t->offset == 2);
  auto r = log.read(2, 1);
  auto h = parse_header(r.records.data(), r.records.size());
  REQUIRE(h);
  CHECK((h->attributes & batch_layout::delete_horizon_flag) != 0);
  CHECK(delete_horizon(*h) == t0 + 1000 + 60000);

  // A clean before the horizon keeps it.
  write_updates(log, t0, 3);
  cp = clean(log, cp, t0 + 1000 + 59999);
  REQUIRE(cp > 0);
  REQUIRE(tombstone_at());

  // One after it drops it; the other keys are untouched.
  write_updates(log, t0, 3);
  auto expected = latest(read_all(log));
  expected.erase("gone");
  clean_stats stats;
  cp = clean(log, cp, t0 + 1000 + 60000, &stats);
  REQUIRE(cp > 0);
  CHECK_FALSE(tombstone_at());
  CHECK(stats.tombstones_dropped == 1);
  auto now = latest(read_all(log));
  CHECK(same(now, expected));
  CHECK(now.count("kept") == 1);
}

TEST_CASE("min.compaction.lag.ms keeps records younger than the lag out of "
          "the clean") {
  temp_dir dir;
  auto config = compacted();
  config.min_compaction_lag_ms = 10000;
  auto log = open_log(dir.path, config);
  write_updates(log, t0);
  auto before = read_all(log);

  // Every segment holds records younger than 10 s: nothing is cleanable.
  auto range = find_cleanable(log, -1, t0 + 9999);
  REQUIRE(range);
  CHECK(range->cleanable_bytes == 0);
  CHECK(clean(log, -1, t0 + 9999) == -1);
  CHECK(read_all(log).size() == before.size());

  // Once they are older, they are.
  CHECK(clean(log, -1, t0 + 10001) > 0);
  CHECK(read_all(log).size() < before.size());
}

TEST_CASE("min.cleanable.dirty.ratio and max.compaction.lag.ms decide "
          "whether a log is cleaned") {
  temp_dir dir;
  auto config = compacted();
  auto log = open_log(dir.path, config);
  write_updates(log, t0, 3, 200);
  auto cp = clean(log, -1, t0 + 1000);
  REQUIRE(cp > 0);
  // A little new dirty data: the ratio stays below 0.5.
  write_updates(log, t0 + 2000, 1, 20);
  auto range = find_cleanable(log, cp, t0 + 3000);
  REQUIRE(range);
  CHECK(range->cleanable_bytes > 0);
  CHECK(range->dirty_ratio() < 0.5);
  CHECK_FALSE(needs_cleaning(*range, log.config()));
  // max.compaction.lag.ms forces it once the oldest dirty record is older.
  config.max_compaction_lag_ms = 5000;
  log.set_config(config);
  range = find_cleanable(log, cp, t0 + 2000 + 5001);
  REQUIRE(range);
  CHECK(range->compaction_due);
  CHECK(needs_cleaning(*range, log.config()));
}

TEST_CASE("cleanup.policy compact,delete applies retention and then "
          "compaction") {
  temp_dir dir;
  auto config = compacted();
  config.delete_policy = true;
  config.retention_ms = 100000;
  auto log = open_log(dir.path, config);
  write_updates(log, t0, 4);          // old: deleted by retention.ms
  auto old_end = log.log_end_offset();
  write_updates(log, t0 + 500000, 6); // new: compacted
  auto now = t0 + 500000 + 1000;
  REQUIRE(log.apply_retention(now) == error_code::none);
  CHECK(log.log_start_offset() > 0);
  CHECK(log.log_start_offset() <= old_end);
  auto before = read_all(log);
  auto cp = clean(log, -1, now);
  REQUIRE(cp > 0);
  auto after = read_all(log);
  CHECK(after.size() < before.size());
  CHECK(same(latest(after), latest(before)));
  // A compact-only log keeps every old segment under the same retention.
  temp_dir dir2;
  auto only_compact = compacted();
  only_compact.retention_ms = 100000;
  auto log2 = open_log(dir2.path, only_compact);
  write_updates(log2, t0, 4);
  write_updates(log2, t0 + 500000, 6);
  REQUIRE(log2.apply_retention(now) == error_code::none);
  CHECK(log2.log_start_offset() == 0);
}

TEST_CASE("the last batch of an idempotent producer stays, empty, after its "
          "records are compacted away") {
  temp_dir dir;
  auto log = open_log(dir.path, compacted());
  // Producer 7 writes key-0 three times (sequences 0, 1, 2); then others
  // overwrite key-0.
  for (int i = 0; i < 3; ++i)
    append_ok(log, batch_of({{"key-0", "p7-" + std::to_string(i)}}, t0, 7, 3,
                            i));
  write_updates(log, t0, 5);
  clean(log, -1, t0 + 1000);
  int producer_batches = 0;
  auto r = log.read(0, 1 << 20);
  REQUIRE(r.error == error_code::none);
  for (auto& b : record_batches{r.records}) {
    auto& h = b.header;
    if (h.producer_id != 7)
      continue;
    ++producer_batches;
    // The last one only: its header intact, no records.
    CHECK(h.base_offset == 2);
    CHECK(h.last_offset_delta == 0);
    CHECK(h.records_count == 0);
    CHECK(h.base_sequence == 2);
    CHECK(h.producer_epoch == 3);
    CHECK(validate_stored_batch(b.data, b.size) == error_code::none);
  }
  CHECK(producer_batches == 1);
}

// -- reads across holes -------------------------------------------------------------

TEST_CASE("a fetch from an offset inside a hole returns the next batch") {
  temp_dir dir;
  auto log = open_log(dir.path, compacted());
  write_updates(log, t0);
  clean(log, -1, t0 + 1000);
  auto records = read_all(log);
  std::set<int64_t> kept;
  for (auto& r : records)
    kept.insert(r.offset);
  int holes = 0;
  for (int64_t o = log.log_start_offset(); o < log.log_end_offset(); ++o) {
    if (kept.count(o))
      continue;
    ++holes;
    auto r = log.read(o, 1);
    REQUIRE(r.error == error_code::none);
    REQUIRE_FALSE(r.records.empty());
    auto h = parse_header(r.records.data(), r.records.size());
    REQUIRE(h);
    // The first batch holding a record after the hole.
    auto next = *kept.upper_bound(o);
    CHECK(h->base_offset + h->last_offset_delta >= o);
    auto batch = decode_records(r.records.data(),
                                *next_batch_size(r.records.data(),
                                                 r.records.size()));
    REQUIRE(batch);
    int64_t first_after = -1;
    for (auto& rec : *batch)
      if (rec.offset >= o) {
        first_after = rec.offset;
        break;
      }
    CHECK(first_after == next);
  }
  CHECK(holes > 100);
}

TEST_CASE("a truncation into a cleaned segment leaves a log that reopens "
          "with its holes") {
  temp_dir dir;
  auto config = compacted();
  std::map<std::string, stored> expected;
  int64_t cut = 0;
  {
    auto log = open_log(dir.path, config);
    write_updates(log, t0);
    clean(log, -1, t0 + 1000);
    auto records = read_all(log);
    // Into the middle of the cleaned part: the last cleaned segment
    // becomes the active one.
    cut = records[records.size() / 3].offset + 1;
    REQUIRE(cut < log.segment_base_offsets().back());
    REQUIRE(log.truncate_to(cut) == error_code::none);
    CHECK(log.log_end_offset() == cut);
    std::vector<stored> kept;
    for (auto& r : records)
      if (r.offset < cut)
        kept.push_back(r);
    expected = latest(kept);
    append_ok(log, batch_of({{"after", "x"}}, t0));
    expected.insert_or_assign("after", stored{cut, "after", "x"});
  }
  auto log = open_log(dir.path, config);
  CHECK(log.log_end_offset() == cut + 1);
  CHECK(same(latest(read_all(log)), expected));
}

TEST_CASE("a follower appends its leader's compacted batches, holes and "
          "empty batches included") {
  temp_dir leader_dir, follower_dir;
  auto config = compacted();
  auto leader = open_log(leader_dir.path, config);
  for (int i = 0; i < 3; ++i)
    append_ok(leader, batch_of({{"key-0", "p7"}}, t0, 7, 0, i));
  write_updates(leader, t0);
  clean(leader, -1, t0 + 1000);
  auto follower = open_log(follower_dir.path, config);
  int64_t next = 0;
  while (next < leader.log_end_offset()) {
    auto r = leader.read(next, 500);
    REQUIRE(r.error == error_code::none);
    for (auto& b : record_batches{r.records}) {
      if (b.last_offset() < follower.log_end_offset())
        continue;
      REQUIRE(follower.append_replicated(bytes(b.data, b.data + b.size), 0)
              == error_code::none);
      next = b.next_offset();
    }
  }
  CHECK(follower.log_end_offset() == leader.log_end_offset());
  CHECK(same(latest(read_all(follower)), latest(read_all(leader))));
  // A batch below the log end offset is refused.
  auto r = leader.read(0, 1);
  CHECK(follower.append_replicated(r.records, 0)
        == error_code::offset_out_of_range);
}

// -- crash safety ---------------------------------------------------------------

TEST_CASE("a clean killed at every step of its swaps recovers to a valid log "
          "holding either the old or the new segments") {
  auto config = compacted(1500);
  auto fill = [&](const std::string& path) {
    auto log = open_log(path, config);
    write_updates(log, t0, 12);
    append_ok(log, batch_of({{"key-3", std::nullopt}}, t0));
    write_updates(log, t0, 2, 6);
  };
  auto now = t0 + 1000;

  // The reference: the states a clean passes through, one per group
  // swapped, recorded when each swap starts (and at the end).
  temp_dir ref;
  fill(ref.path);
  std::vector<std::map<std::string, bytes>> states;
  std::map<std::string, stored> expected;
  {
    auto log = open_log(ref.path, config);
    expected = latest(read_all(log));
    auto range = find_cleanable(log, -1, now);
    REQUIRE(range);
    log_cleaner cleaner{log, *range, now};
    cleaner.set_fault_hook([&](segment_log::swap_step step) {
      if (step == segment_log::swap_step::write_cleaned)
        states.push_back(segment_files(ref.path));
      return true;
    });
    auto st = log_cleaner::status::running;
    while (st == log_cleaner::status::running)
      st = cleaner.step(400);
    REQUIRE(st == log_cleaner::status::done);
    states.push_back(segment_files(ref.path));
  }
  REQUIRE(states.size() >= 3); // at least two groups

  int crashes = 0;
  for (int kill_at = 0;; ++kill_at) {
    INFO("killed before step " << kill_at);
    temp_dir dir;
    fill(dir.path);
    bool killed = false;
    {
      auto log = open_log(dir.path, config);
      auto range = find_cleanable(log, -1, now);
      REQUIRE(range);
      log_cleaner cleaner{log, *range, now};
      int step = 0;
      cleaner.set_fault_hook([&](segment_log::swap_step) {
        if (step++ == kill_at) {
          killed = true;
          return false;
        }
        return true;
      });
      auto st = log_cleaner::status::running;
      while (st == log_cleaner::status::running)
        st = cleaner.step(400);
      REQUIRE(st == (killed ? log_cleaner::status::stopped
                            : log_cleaner::status::done));
      // Destroyed here as a killed process leaves it: files as they are.
    }
    auto log = open_log(dir.path, config);
    CHECK_FALSE(has_temp_files(dir.path));
    auto files = segment_files(dir.path);
    CHECK(std::find(states.begin(), states.end(), files) != states.end());
    CHECK(same(latest(read_all(log)), expected));
    if (!killed)
      break;
    ++crashes;
  }
  // Every group passes through 8 steps or more.
  CHECK(crashes >= 16);
}
