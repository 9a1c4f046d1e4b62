// Coordinator takeover of a __consumer_offsets partition (issue 20's
// benchmark; docs/ARCHITECTURE.md §3, the load): a partition that took
// 1,000,000 offset commits from 10,000 groups is written to a real
// segment_log on disk, then replayed as a new coordinator replays it
// (actors/groups/offsets_load.cpp: 1 MiB reads from the log start, every
// batch walked, every record applied to offsets_partition_state), then
// handed to the groups (finish_load: each group's offsets and metadata).
// The same partition is measured uncompacted, after troupe's log cleaner
// (domain/log/log_cleaner.hpp) and as an ideal log of only the last record
// per key, in one run, with its bytes on disk.
//
//   offsets_takeover_bench [--groups N] [--commits N] [--partitions N]
//                          [--segment-bytes N] [--runs N] [--dir DIR]
//
// With --dir the logs stay there for takeover_serve.py (the same partition
// taken over by a real `troupe serve`): DIR/uncompacted/, DIR/compacted/
// and DIR/ideal/, each holding __consumer_offsets-0.
//
// --commits is the number of offset commit records: each commit request of
// a group stores all its --partitions partitions in one batch, and each
// group stores its metadata (one member) at its first commit and every
// 20th. The log rolls at --segment-bytes (default 8 MiB; the active segment
// is never cleaned, so with Kafka's 100 MiB offsets.topic.segment.bytes a
// partition of this size would not be compacted at all). Times are the
// median of --runs replays, with the files in the page cache.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "domain/log/log_cleaner.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"
#include "domain/log/segment_log.hpp"
#include "storage/offsets_records.hpp"

using namespace troupe;
namespace fs = std::filesystem;

namespace {

struct options {
  int groups = 10000;
  int64_t commits = 1000000;
  int partitions = 10;
  uint64_t segment_bytes = 8u << 20;
  int runs = 3;
  std::string dir;
};

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0)
    .count();
}

log_config offsets_config(const options& o) {
  log_config c;
  c.segment_bytes = o.segment_bytes;
  c.compact = true;
  c.delete_policy = false;
  c.retention_ms = -1;
  return c;
}

segment_log open_log(const std::string& dir, const log_config& config) {
  auto opened = segment_log::open(dir, config);
  if (auto err = std::get_if<std::string>(&opened)) {
    std::fprintf(stderr, "cannot open %s: %s\n", dir.c_str(), err->c_str());
    std::exit(1);
  }
  return std::move(std::get<segment_log>(opened));
}

void append(segment_log& log, const std::vector<record_kv>& kvs, int64_t now) {
  std::vector<record> batch;
  batch.reserve(kvs.size());
  for (const auto& kv : kvs)
    batch.push_back(record{kv.key, kv.value, now, {}});
  if (auto e = log.append(encode_batch(0, 0, batch), now);
      e != error_code::none) {
    std::fprintf(stderr, "append: %s (%s)\n", to_string(e).c_str(),
                 log.last_error().c_str());
    std::exit(1);
  }
}

std::string group_name(int g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "group-%05d", g);
  return buf;
}

stored_group group_metadata(int g, int generation) {
  auto member = group_name(g) + "-member-1";
  stored_group sg{"consumer",
                  generation,
                  "range",
                  member,
                  1000,
                  {{member, "", "client-" + std::to_string(g), "/10.0.0.1",
                    300000, 45000, bytes(40, 1), bytes(60, 2)}}};
  return sg;
}

/// The partition after `o.commits` offset commits, as the coordinators
/// write it: per commit request one batch of the group's partitions.
int64_t write_commits(segment_log& log, const options& o) {
  int64_t records = 0;
  int64_t now = 1;
  std::vector<int> commits_of(static_cast<size_t>(o.groups), 0);
  for (int64_t c = 0; records < o.commits; ++c) {
    auto g = static_cast<int>(c % o.groups);
    auto group = group_name(g);
    auto n = commits_of[static_cast<size_t>(g)]++;
    std::vector<record_kv> kvs;
    if (n % 20 == 0)
      kvs.push_back(
        group_metadata_record(group, group_metadata(g, n / 20 + 1)));
    for (int p = 0; p < o.partitions && records < o.commits; ++p, ++records)
      kvs.push_back(
        offset_commit_record(group, {"topic-" + std::to_string(g % 100), p},
                             {int64_t{n} * 100 + p, 0, "", now}));
    append(log, kvs, now++);
  }
  log.flush();
  return now;
}

struct replay_result {
  double ms = 0;
  double handoff_ms = 0;
  int64_t records = 0;
  offsets_partition_state state;
};

/// offsets_load.cpp's loop on the log directly: 1 MiB reads from the log
/// start, each batch walked and each record applied; then finish_load's
/// hand-off, each group's offsets and metadata put together.
replay_result replay(segment_log& log) {
  replay_result r;
  auto t0 = clock_type::now();
  auto next = log.log_start_offset();
  for (;;) {
    auto read = log.read(next, 1 << 20);
    if (read.error != error_code::none || read.records.empty())
      break;
    for (const auto& b : record_batches{read.records}) {
      if (auto records = b.records()) {
        for (auto& rec : *records) {
          r.state.apply(record_kv{rec.key.value_or(bytes{}), rec.value});
          ++r.records;
        }
      }
      next = b.next_offset();
    }
  }
  r.ms = ms_since(t0);
  auto t1 = clock_type::now();
  struct loaded {
    std::map<topic_partition, committed_offset> offsets;
    std::optional<stored_group> metadata;
  };
  std::map<std::string, loaded> groups;
  for (const auto& [id, offsets] : r.state.offsets)
    groups[id].offsets = offsets;
  for (const auto& [id, g] : r.state.groups)
    groups[id].metadata = g;
  r.handoff_ms = ms_since(t1);
  if (groups.empty())
    std::fprintf(stderr, "nothing loaded\n");
  return r;
}

struct measured {
  std::string name;
  uint64_t disk_bytes = 0;
  size_t segments = 0;
  replay_result best;
  std::vector<double> times;
};

measured measure(const std::string& name, segment_log& log, int runs) {
  measured m;
  m.name = name;
  m.disk_bytes = log.size_in_bytes();
  m.segments = log.segment_base_offsets().size();
  std::vector<replay_result> results;
  for (int i = 0; i < runs; ++i)
    results.push_back(replay(log));
  std::sort(results.begin(), results.end(),
            [](const auto& x, const auto& y) { return x.ms < y.ms; });
  for (const auto& r : results)
    m.times.push_back(r.ms + r.handoff_ms);
  m.best = std::move(results[results.size() / 2]);
  return m;
}

bool same_state(const offsets_partition_state& x,
                const offsets_partition_state& y) {
  if (x.groups != y.groups || x.offsets.size() != y.offsets.size())
    return false;
  for (const auto& [g, offsets] : x.offsets) {
    auto i = y.offsets.find(g);
    if (i == y.offsets.end() || i->second.size() != offsets.size())
      return false;
    for (const auto& [tp, o] : offsets) {
      auto j = i->second.find(tp);
      if (j == i->second.end() || j->second.offset != o.offset)
        return false;
    }
  }
  return true;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    std::string v = argv[i + 1];
    if (a == "--groups")
      o.groups = std::stoi(v);
    else if (a == "--commits")
      o.commits = std::stoll(v);
    else if (a == "--partitions")
      o.partitions = std::stoi(v);
    else if (a == "--segment-bytes")
      o.segment_bytes = std::stoull(v);
    else if (a == "--runs")
      o.runs = std::stoi(v);
    else if (a == "--dir")
      o.dir = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

} // namespace

int main(int argc, char** argv) {
  auto o = parse(argc, argv);
  auto own_dir = o.dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/troupe-offsets-takeover-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 1;
    }
    o.dir = tmpl;
  }
  auto config = offsets_config(o);
  auto dir = o.dir + "/compacted/__consumer_offsets-0";
  auto ideal_dir = o.dir + "/ideal/__consumer_offsets-0";

  std::printf("offsets takeover: %lld offset commits by %d groups (%d "
              "partitions each), segment.bytes %llu, in %s\n",
              static_cast<long long>(o.commits), o.groups, o.partitions,
              static_cast<unsigned long long>(o.segment_bytes), o.dir.c_str());
  auto log = open_log(dir, config);
  auto t0 = clock_type::now();
  auto now = write_commits(log, o);
  std::printf("written in %.0f ms\n", ms_since(t0));

  std::vector<measured> rows;
  rows.push_back(measure("uncompacted", log, o.runs));
  auto reference = rows[0].best.state; // a copy: rows grows
  if (!own_dir) {
    log.flush();
    fs::create_directories(o.dir + "/uncompacted");
    fs::copy(dir, o.dir + "/uncompacted/__consumer_offsets-0",
             fs::copy_options::recursive
               | fs::copy_options::overwrite_existing);
  }

  // troupe's cleaner, as the log manager runs it (in 1 MiB slices).
  auto t1 = clock_type::now();
  auto range = find_cleanable(log, -1, now + 1);
  clean_stats stats;
  if (!range) {
    std::fprintf(stderr, "find_cleanable failed\n");
    if (own_dir)
      fs::remove_all(o.dir);
    return 1;
  }
  {
    log_cleaner cleaner{log, *range, now + 1};
    auto s = log_cleaner::status::running;
    while (s == log_cleaner::status::running)
      s = cleaner.step(1 << 20);
    if (s != log_cleaner::status::done) {
      std::fprintf(stderr, "clean failed: %s\n", cleaner.error().c_str());
      if (own_dir)
        fs::remove_all(o.dir);
      return 1;
    }
    stats = cleaner.stats();
  }
  auto clean_ms = ms_since(t1);
  rows.push_back(measure("compacted (troupe's cleaner)", log, o.runs));

  // The ideal: only the last record of each key, in one segment log.
  {
    auto ideal = open_log(ideal_dir, config);
    std::vector<record_kv> batch;
    auto add = [&](record_kv kv) {
      batch.push_back(std::move(kv));
      if (batch.size() >= 1000) {
        append(ideal, batch, now);
        batch.clear();
      }
    };
    for (const auto& [g, sg] : reference.groups)
      add(group_metadata_record(g, sg));
    for (const auto& [g, offsets] : reference.offsets)
      for (const auto& [tp, v] : offsets)
        add(offset_commit_record(g, tp, v));
    if (!batch.empty())
      append(ideal, batch, now);
    ideal.flush();
    rows.push_back(measure("ideal (last record per key)", ideal, o.runs));
  }

  size_t keys = reference.groups.size();
  for (const auto& [g, offsets] : reference.offsets)
    keys += offsets.size();
  std::printf("live keys: %zu (%zu groups); cleaner: %.0f ms, read %llu "
              "bytes, kept %llu of %llu records\n",
              keys, reference.offsets.size(), clean_ms,
              static_cast<unsigned long long>(stats.bytes_read),
              static_cast<unsigned long long>(stats.records_kept),
              static_cast<unsigned long long>(stats.records_read));
  std::printf("\n| log | segments | disk bytes | records replayed | replay "
              "ms | hand-off ms | takeover ms (median of %d) | same groups "
              "and offsets |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
              o.runs);
  for (const auto& r : rows)
    std::printf("| %s | %zu | %llu | %lld | %.1f | %.1f | %.1f | %s |\n",
                r.name.c_str(), r.segments,
                static_cast<unsigned long long>(r.disk_bytes),
                static_cast<long long>(r.best.records), r.best.ms,
                r.best.handoff_ms, r.best.ms + r.best.handoff_ms,
                same_state(r.best.state, reference) ? "yes" : "NO");
  if (own_dir)
    fs::remove_all(o.dir);
  for (const auto& r : rows)
    if (!same_state(r.best.state, reference))
      return 1;
  return 0;
}
