// The log cleaner's throughput (issue 20's benchmark; docs/ARCHITECTURE.md
// §4, log compaction): a compacted log of --mib MiB of updates to --keys
// distinct keys is written to a real segment_log, then in the same run
//
//   1. its segment files are read raw from disk (1 MiB preads, the page
//      cache dropped first with posix_fadvise), and
//   2. troupe's log_cleaner cleans it as the log manager runs it (4 MiB
//      slices), the page cache dropped first as well.
//
// Both rates are MB/s of the log's bytes (10^6 bytes per MB). Also the
// bytes and segments before and after.
//
//   log_cleaner_bench [--mib N] [--keys N] [--value-bytes N]
//                     [--segment-mib N] [--dir DIR]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "domain/log/log_cleaner.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/segment_log.hpp"

using namespace troupe;
namespace fs = std::filesystem;

namespace {

struct options {
  uint64_t mib = 512;
  int64_t keys = 100000;
  size_t value_bytes = 100;
  uint64_t segment_mib = 64;
  std::string dir;
};

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "log_cleaner_bench: %s\n", why.c_str());
  std::exit(1);
}

segment_log open_log(const std::string& dir, const log_config& config) {
  auto opened = segment_log::open(dir, config);
  if (auto err = std::get_if<std::string>(&opened))
    die("cannot open " + dir + ": " + *err);
  return std::move(std::get<segment_log>(opened));
}

std::vector<std::string> segment_files(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Drops the files' pages from the page cache (they were fsynced), so the
/// next read comes from the disk.
void drop_cache(const std::string& dir) {
  for (auto& e : fs::directory_iterator(dir)) {
    int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

/// Reads every segment file whole; returns the bytes read.
uint64_t read_raw(const std::string& dir) {
  std::vector<uint8_t> buf(1u << 20);
  uint64_t total = 0;
  for (auto& path : segment_files(dir)) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      die("open " + path);
    for (off_t at = 0;;) {
      auto n = ::pread(fd, buf.data(), buf.size(), at);
      if (n < 0)
        die("read " + path);
      if (n == 0)
        break;
      total += static_cast<uint64_t>(n);
      at += n;
    }
    ::close(fd);
  }
  return total;
}

double mb(uint64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--mib")
      o.mib = std::stoull(next());
    else if (a == "--keys")
      o.keys = std::stoll(next());
    else if (a == "--value-bytes")
      o.value_bytes = std::stoull(next());
    else if (a == "--segment-mib")
      o.segment_mib = std::stoull(next());
    else if (a == "--dir")
      o.dir = next();
    else
      die("unknown option " + a
          + " (--mib --keys --value-bytes --segment-mib --dir)");
  }
  bool own_dir = o.dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/troupe_cleaner_bench_XXXXXX";
    if (!::mkdtemp(tmpl))
      die("mkdtemp");
    o.dir = tmpl;
  }
  auto dir = o.dir + "/bench-0";
  log_config config;
  config.compact = true;
  config.delete_policy = false;
  config.segment_bytes = o.segment_mib << 20;
  config.segment_ms = INT64_MAX;

  // The log: batches of 10 updates of random keys, until --mib MiB.
  int64_t now = 1700000000000;
  uint64_t records = 0;
  {
    auto log = open_log(dir, config);
    std::mt19937_64 rng{42};
    std::string value(o.value_bytes, 'v');
    while (log.size_in_bytes() < (o.mib << 20)) {
      std::vector<record> batch;
      for (int i = 0; i < 10; ++i) {
        auto key = "key-" + std::to_string(rng() % o.keys);
        batch.push_back({std::vector<uint8_t>(key.begin(), key.end()),
                         std::vector<uint8_t>(value.begin(), value.end()),
                         now,
                         {}});
      }
      records += batch.size();
      if (log.append(encode_batch(0, 0, batch), now) != error_code::none)
        die("append: " + log.last_error());
    }
    log.flush();
  }

  auto log = open_log(dir, config);
  auto bytes_before = log.size_in_bytes();
  auto segments_before = log.segment_base_offsets().size();

  drop_cache(dir);
  auto t0 = clock_type::now();
  auto raw = read_raw(dir);
  auto raw_s = seconds_since(t0);

  drop_cache(dir);
  auto t1 = clock_type::now();
  auto range = find_cleanable(log, -1, now + 1);
  if (!range)
    die("find_cleanable: " + log.last_error());
  log_cleaner cleaner{log, *range, now + 1};
  auto st = log_cleaner::status::running;
  while (st == log_cleaner::status::running)
    st = cleaner.step(4u << 20);
  if (st != log_cleaner::status::done)
    die("clean: " + cleaner.error());
  auto clean_s = seconds_since(t1);
  auto& stats = cleaner.stats();
  auto bytes_after = log.size_in_bytes();

  std::printf("log: %llu MiB, %llu records, %lld distinct keys, %zu-byte "
              "values, %llu MiB segments (the active one is not cleaned)\n\n",
              static_cast<unsigned long long>(o.mib),
              static_cast<unsigned long long>(records),
              static_cast<long long>(o.keys), o.value_bytes,
              static_cast<unsigned long long>(o.segment_mib));
  std::printf("| what | bytes | seconds | MB/s |\n");
  std::printf("|---|---:|---:|---:|\n");
  std::printf("| raw read of the segment files | %llu | %.3f | %.0f |\n",
              static_cast<unsigned long long>(raw), raw_s, mb(raw) / raw_s);
  std::printf("| troupe's cleaner, the cleaned segments (read twice: map, "
              "then copy) | %llu | %.3f | %.0f |\n",
              static_cast<unsigned long long>(stats.bytes_before), clean_s,
              mb(stats.bytes_before) / clean_s);
  std::printf("\n| | bytes | segments |\n|---|---:|---:|\n");
  std::printf("| before | %llu | %zu |\n",
              static_cast<unsigned long long>(bytes_before), segments_before);
  std::printf("| after | %llu | %zu |\n",
              static_cast<unsigned long long>(bytes_after),
              log.segment_base_offsets().size());
  std::printf("\ncleaner: read %llu bytes, wrote %llu, kept %llu of %llu "
              "records\n",
              static_cast<unsigned long long>(stats.bytes_read),
              static_cast<unsigned long long>(stats.bytes_written),
              static_cast<unsigned long long>(stats.records_kept),
              static_cast<unsigned long long>(stats.records_read));
  if (own_dir) {
    std::error_code ec;
    fs::remove_all(o.dir, ec);
  }
  return 0;
}
