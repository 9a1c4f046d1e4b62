#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <dirent.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "domain/log/offset_checkpoint.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/segment_log.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

using bytes = std::vector<uint8_t>;

// -- a fresh directory per test -----------------------------------------------

using test::temp_dir;

// -- files ----------------------------------------------------------------------

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

uint64_t file_size(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_size);
}

bytes read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  return bytes{std::istreambuf_iterator<char>{in}, {}};
}

void write_file(const std::string& path, const bytes& data) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size()));
}

void append_file(const std::string& path, const bytes& data) {
  std::ofstream out{path, std::ios::binary | std::ios::app};
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size()));
}

std::string segment_name(int64_t base, const char* suffix) {
  char name[40];
  std::snprintf(name, sizeof name, "%020lld%s", static_cast<long long>(base),
                suffix);
  return name;
}

// -- batches --------------------------------------------------------------------

/// `n` records "k<i>" = value_size bytes of `fill`, all at `timestamp`.
bytes make_batch(int n, size_t value_size, int64_t timestamp = 1000,
                 uint8_t fill = 'x') {
  std::vector<record> records;
  for (int i = 0; i < n; ++i) {
    auto key = "k" + std::to_string(i);
    records.push_back(record{
      bytes(key.begin(), key.end()), bytes(value_size, fill), timestamp, {}});
  }
  // A producer sends base offset 0; the log assigns the real one.
  return encode_batch(0, 0, records);
}

segment_log open_log(const std::string& dir, log_config config = {}) {
  auto opened = segment_log::open(dir, config);
  if (auto* error = std::get_if<std::string>(&opened))
    FAIL("open failed: " << *error);
  return std::move(std::get<segment_log>(opened));
}

int64_t append_ok(segment_log& log, bytes batch, int64_t now_ms = 0) {
  int64_t base = -1;
  REQUIRE(log.append(std::move(batch), now_ms, &base) == error_code::none);
  return base;
}

/// Splits a fetch response into batches, checking each is whole and valid.
std::vector<bytes> split_batches(const bytes& data) {
  std::vector<bytes> batches;
  size_t pos = 0;
  while (pos < data.size()) {
    auto n = next_batch_size(data.data() + pos, data.size() - pos);
    REQUIRE(n);
    REQUIRE(*n <= data.size() - pos);
    batches.emplace_back(data.begin() + static_cast<ptrdiff_t>(pos),
                         data.begin() + static_cast<ptrdiff_t>(pos + *n));
    REQUIRE(validate_batch(batches.back().data(), *n, SIZE_MAX)
            == error_code::none);
    pos += *n;
  }
  return batches;
}

/// Every record from `from` to the log end offset, fetch after fetch, as a
/// consumer would (whole batches, so the first may start before `from`).
std::vector<decoded_record> read_all(segment_log& log, int64_t from,
                                     size_t max_bytes = 64 * 1024) {
  std::vector<decoded_record> out;
  int64_t next = from;
  while (next < log.log_end_offset()) {
    auto r = log.read(next, max_bytes);
    REQUIRE(r.error == error_code::none);
    REQUIRE_FALSE(r.records.empty());
    for (auto& batch : split_batches(r.records)) {
      auto records = decode_records(batch.data(), batch.size());
      REQUIRE(records);
      for (auto& rec : *records)
        if (rec.offset >= next)
          out.push_back(std::move(rec));
    }
    REQUIRE(out.back().offset + 1 > next); // progress
    next = out.back().offset + 1;
  }
  return out;
}

/// Offsets 0..n-1, each exactly once, in order.
void check_contiguous(const std::vector<decoded_record>& records, int64_t first,
                      int64_t end) {
  REQUIRE(static_cast<int64_t>(records.size()) == end - first);
  for (size_t i = 0; i < records.size(); ++i)
    REQUIRE(records[i].offset == first + static_cast<int64_t>(i));
}

log_config small_segments(uint64_t segment_bytes = 10 * 1024) {
  log_config config;
  config.segment_bytes = segment_bytes;
  return config;
}

} // namespace

// -- appending and reading ------------------------------------------------------

TEST_CASE("appended batches read back with offsets assigned contiguously by "
          "the log") {
  temp_dir dir;
  auto log = open_log(dir.path);
  CHECK(log.log_start_offset() == 0);
  CHECK(log.log_end_offset() == 0);
  auto producer_batch = make_batch(5, 10);
  set_base_offset(producer_batch.data(), 999); // whatever the client says
  CHECK(append_ok(log, make_batch(1, 10)) == 0);
  CHECK(append_ok(log, producer_batch) == 1);
  CHECK(append_ok(log, make_batch(3, 10)) == 6);
  CHECK(log.log_end_offset() == 9);
  CHECK(list_dir(dir.path)
        == std::vector<std::string>{segment_name(0, ".index"),
                                    segment_name(0, ".log")});

  auto r = log.read(0, 1 << 20);
  REQUIRE(r.error == error_code::none);
  auto batches = split_batches(r.records);
  REQUIRE(batches.size() == 3);
  CHECK(parse_header(batches[1].data(), batches[1].size())->base_offset == 1);
  auto records = read_all(log, 0);
  check_contiguous(records, 0, 9);
  CHECK(records[3].key == bytes{'k', '2'}); // second batch, third record
  CHECK(records[3].value == bytes(10, 'x'));
}

TEST_CASE("a fetch returns whole batches from the one containing the offset, "
          "at least one even past max_bytes") {
  temp_dir dir;
  auto log = open_log(dir.path);
  append_ok(log, make_batch(4, 100)); // 0-3
  append_ok(log, make_batch(4, 100)); // 4-7
  append_ok(log, make_batch(4, 100)); // 8-11
  auto one = log.read(6, 1);
  REQUIRE(one.error == error_code::none);
  auto batches = split_batches(one.records);
  REQUIRE(batches.size() == 1);
  CHECK(parse_header(batches[0].data(), batches[0].size())->base_offset == 4);
  auto two = log.read(5, 2 * batches[0].size() + 10);
  CHECK(split_batches(two.records).size() == 2); // the third does not fit
  auto at_end = log.read(12, 1 << 20);
  CHECK(at_end.error == error_code::none);
  CHECK(at_end.records.empty());
}

TEST_CASE("fetching outside the log start and end offsets is "
          "OFFSET_OUT_OF_RANGE") {
  temp_dir dir;
  auto config = small_segments(2000);
  config.retention_bytes = 0;
  auto log = open_log(dir.path, config);
  for (int i = 0; i < 10; ++i)
    append_ok(log, make_batch(2, 300));
  CHECK(log.read(-1, 100).error == error_code::offset_out_of_range);
  CHECK(log.read(21, 100).error == error_code::offset_out_of_range);
  CHECK(log.read(20, 100).error == error_code::none);
  REQUIRE(log.apply_retention(0) == error_code::none);
  REQUIRE(log.log_start_offset() > 0);
  CHECK(log.read(log.log_start_offset() - 1, 100).error
        == error_code::offset_out_of_range);
  CHECK(log.read(log.log_start_offset(), 100).error == error_code::none);
}

TEST_CASE("an invalid or oversized batch is refused and nothing is written") {
  temp_dir dir;
  log_config config;
  config.max_batch_bytes = 2000;
  auto log = open_log(dir.path, config);
  append_ok(log, make_batch(1, 10));
  auto size = file_size(dir / segment_name(0, ".log"));
  auto corrupt = make_batch(1, 10);
  corrupt.back() ^= 1;
  int64_t base = -7;
  CHECK(log.append(corrupt, 0, &base) == error_code::corrupt_message);
  CHECK(log.append(bytes(30, 0), 0) == error_code::corrupt_message);
  CHECK(log.append(make_batch(1, 3000), 0) == error_code::message_too_large);
  CHECK(base == -7);
  CHECK(log.log_end_offset() == 1);
  CHECK(file_size(dir / segment_name(0, ".log")) == size);
}

// -- segments and the index -----------------------------------------------------

TEST_CASE("the log rolls a new segment before the active one would exceed "
          "segment.bytes, and reads span segments") {
  temp_dir dir;
  auto log = open_log(dir.path, small_segments(10 * 1024));
  for (int i = 0; i < 100; ++i)
    append_ok(log, make_batch(3, 300)); // ~1 KiB each
  CHECK(log.log_end_offset() == 300);
  auto bases = log.segment_base_offsets();
  REQUIRE(bases.size() >= 10);
  CHECK(bases.front() == 0);
  for (size_t i = 0; i < bases.size(); ++i) {
    auto path = dir / segment_name(bases[i], ".log");
    CHECK(file_size(path) <= 10 * 1024);
    CHECK(::access((dir / segment_name(bases[i], ".index")).c_str(), F_OK)
          == 0);
    // A segment starts with the batch of its base offset.
    auto r = log.read(bases[i], 1);
    REQUIRE(r.error == error_code::none);
    CHECK(parse_header(r.records.data(), r.records.size())->base_offset
          == bases[i]);
  }
  CHECK(list_dir(dir.path).size() == 2 * bases.size());
  check_contiguous(read_all(log, 0), 0, 300);
  check_contiguous(read_all(log, 150, 1), 150, 300);
}

TEST_CASE("a batch larger than segment.bytes gets a segment to itself") {
  temp_dir dir;
  auto log = open_log(dir.path, small_segments(1000));
  append_ok(log, make_batch(1, 3000)); // into the empty first segment
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0});
  append_ok(log, make_batch(1, 10));
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0, 1});
  append_ok(log, make_batch(1, 3000));
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0, 1, 2});
  check_contiguous(read_all(log, 0), 0, 3);
}

TEST_CASE("the sparse offset index finds the batch containing any offset of "
          "a large log") {
  temp_dir dir;
  auto log = open_log(dir.path, small_segments(256 * 1024));
  std::mt19937 rng{1};
  std::vector<std::pair<int64_t, int64_t>> ranges; // [base, last] per batch
  for (int i = 0; i < 2000; ++i) {
    int n = 1 + static_cast<int>(rng() % 5);
    auto base = append_ok(log, make_batch(n, 100 + rng() % 400));
    ranges.emplace_back(base, base + n - 1);
  }
  REQUIRE(log.segment_base_offsets().size() > 3);
  for (auto [base, last] : ranges) {
    for (int64_t o = base; o <= last; ++o) {
      auto r = log.read(o, 1);
      REQUIRE(r.error == error_code::none);
      auto h = parse_header(r.records.data(), r.records.size());
      REQUIRE(h);
      REQUIRE(h->base_offset == base);
      REQUIRE(h->base_offset + h->last_offset_delta == last);
    }
  }
  // Kafka's .index format: (int32 relative last offset, int32 position),
  // big-endian, one entry after each index.interval.bytes of log.
  for (auto base : log.segment_base_offsets()) {
    auto index = read_file(dir / segment_name(base, ".index"));
    auto data = read_file(dir / segment_name(base, ".log"));
    REQUIRE(index.size() % 8 == 0);
    REQUIRE(index.size() / 8 > 10);
    auto be32 = [&](size_t at) {
      return static_cast<int32_t>(
        uint32_t{index[at]} << 24 | uint32_t{index[at + 1]} << 16
        | uint32_t{index[at + 2]} << 8 | uint32_t{index[at + 3]});
    };
    int32_t previous_position = 0;
    for (size_t at = 0; at < index.size(); at += 8) {
      auto rel = be32(at);
      auto pos = be32(at + 4);
      REQUIRE(pos - previous_position > 4096);
      auto h = parse_header(data.data() + pos, data.size() - pos);
      REQUIRE(h);
      CHECK(h->base_offset + h->last_offset_delta == base + rel);
      previous_position = pos;
    }
  }
}

TEST_CASE("reopening a log restores its segments, log end offset and "
          "contents") {
  temp_dir dir;
  std::vector<int64_t> bases;
  bytes first_fetch;
  {
    auto log = open_log(dir.path, small_segments(4096));
    for (int i = 0; i < 40; ++i)
      append_ok(log, make_batch(2, 200));
    bases = log.segment_base_offsets();
    first_fetch = log.read(0, 1 << 20).records;
  }
  auto log = open_log(dir.path, small_segments(4096));
  CHECK(log.log_end_offset() == 80);
  CHECK(log.log_start_offset() == 0);
  CHECK(log.segment_base_offsets() == bases);
  CHECK(log.read(0, 1 << 20).records == first_fetch);
  CHECK(append_ok(log, make_batch(2, 200)) == 80);
  check_contiguous(read_all(log, 0), 0, 82);
}

TEST_CASE("a corrupt or missing index of an older segment is rebuilt at "
          "start-up") {
  temp_dir dir;
  log_config config = small_segments(64 * 1024);
  config.index_interval_bytes = 1024;
  std::vector<int64_t> bases;
  {
    auto log = open_log(dir.path, config);
    for (int i = 0; i < 200; ++i)
      append_ok(log, make_batch(2, 300));
    bases = log.segment_base_offsets();
  }
  REQUIRE(bases.size() >= 3);
  auto good_index = read_file(dir / segment_name(bases[0], ".index"));
  write_file(dir / segment_name(bases[0], ".index"), bytes(77, 0xEE));
  ::unlink((dir / segment_name(bases[1], ".index")).c_str());
  auto log = open_log(dir.path, config);
  CHECK(read_file(dir / segment_name(bases[0], ".index")) == good_index);
  CHECK(file_size(dir / segment_name(bases[1], ".index")) > 0);
  for (int64_t o = 0; o < log.log_end_offset(); o += 7) {
    auto r = log.read(o, 1);
    REQUIRE(r.error == error_code::none);
    auto h = parse_header(r.records.data(), r.records.size());
    REQUIRE((h->base_offset <= o && o <= h->base_offset + 1));
  }
}

// -- recovery ---------------------------------------------------------------------

TEST_CASE("a torn tail is truncated at start-up and every complete batch "
          "survives") {
  temp_dir dir;
  auto config = small_segments(8 * 1024);
  int64_t active_base = 0;
  uint64_t good_size = 0;
  bytes last_batch;
  {
    auto log = open_log(dir.path, config);
    for (int i = 0; i < 30; ++i)
      append_ok(log, make_batch(3, 250));
    active_base = log.segment_base_offsets().back();
    REQUIRE(active_base > 0); // the torn segment is not the first
    good_size = file_size(dir / segment_name(active_base, ".log"));
    auto r = log.read(log.log_end_offset() - 1, 1);
    last_batch = r.records;
  }
  auto active = dir / segment_name(active_base, ".log");
  int64_t expected_end = 90;

  SECTION("garbage after the last batch") {
    append_file(active, bytes(100, 0xAB));
  }
  SECTION("zeroes after the last batch, as a crash can leave") {
    append_file(active, bytes(4096, 0));
  }
  SECTION("half of a batch") {
    append_file(active, bytes(last_batch.begin(),
                              last_batch.begin() + last_batch.size() / 2));
  }
  SECTION("only part of a batch header") {
    append_file(active, bytes(last_batch.begin(), last_batch.begin() + 20));
  }
  SECTION("a batch whose length runs past the end of the file") {
    auto bad = last_batch;
    bad[10] = 0x7F; // batchLength ~ 8 MiB
    append_file(active, bad);
  }
  SECTION("a flipped byte in the last batch's CRC-covered records") {
    auto data = read_file(active);
    data[data.size() - 5] ^= 0x10;
    write_file(active, data);
    good_size -= last_batch.size();
    expected_end -= 3;
  }
  SECTION("a flipped byte in the last batch's CRC field") {
    auto data = read_file(active);
    data[data.size() - last_batch.size() + 17] ^= 0x01;
    write_file(active, data);
    good_size -= last_batch.size();
    expected_end -= 3;
  }

  auto log = open_log(dir.path, config);
  CHECK(file_size(active) == good_size);
  CHECK(log.log_end_offset() == expected_end);
  check_contiguous(read_all(log, 0), 0, expected_end);
  CHECK(append_ok(log, make_batch(2, 50)) == expected_end);
  check_contiguous(read_all(log, 0), 0, expected_end + 2);
  auto reopened = open_log(dir.path + "/", config); // and it stays so
  CHECK(reopened.log_end_offset() == expected_end + 2);
}

TEST_CASE("random damage to the active segment never crashes recovery and "
          "keeps every batch before it") {
  std::mt19937 rng{99};
  for (int round = 0; round < 150; ++round) {
    temp_dir dir;
    std::vector<std::pair<uint64_t, int64_t>> batch_at; // file pos, base
    {
      auto log = open_log(dir.path);
      for (int i = 0; i < 12; ++i) {
        uint64_t pos = log.size_in_bytes();
        batch_at.emplace_back(pos, append_ok(log, make_batch(2, rng() % 200)));
      }
    }
    auto path = dir / segment_name(0, ".log");
    auto data = read_file(path);
    const uint64_t file_size_before = data.size();
    size_t first_damage = data.size();
    switch (rng() % 3) {
      case 0: { // flip bytes
        for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
          size_t at = rng() % data.size();
          data[at] = static_cast<uint8_t>(data[at] ^ (1 + rng() % 255));
          first_damage = std::min(first_damage, at);
        }
        break;
      }
      case 1: // cut
        first_damage = rng() % data.size();
        data.resize(first_damage);
        break;
      default: // garbage tail
        for (int k = 0, n = static_cast<int>(rng() % 300); k < n; ++k)
          data.push_back(static_cast<uint8_t>(rng()));
    }
    write_file(path, data);
    auto log = open_log(dir.path);
    // Every batch wholly before the first damaged byte survives.
    int64_t must_keep = 0;
    for (size_t i = 0; i < batch_at.size(); ++i) {
      uint64_t end =
        i + 1 < batch_at.size() ? batch_at[i + 1].first : file_size_before;
      if (end <= first_damage)
        must_keep += 2;
    }
    INFO("round " << round);
    REQUIRE(log.log_end_offset() >= must_keep);
    REQUIRE(log.log_end_offset() <= 24);
    check_contiguous(read_all(log, 0), 0, log.log_end_offset());
    auto end = log.log_end_offset();
    REQUIRE(append_ok(log, make_batch(1, 5)) == end);
  }
}

// -- truncation -------------------------------------------------------------------

TEST_CASE("truncate_to drops every offset at and after the target across "
          "segment boundaries") {
  temp_dir dir;
  auto config = small_segments(4096);
  auto log = open_log(dir.path, config);
  for (int i = 0; i < 60; ++i)
    append_ok(log, make_batch(2, 300)); // batches start at even offsets
  auto bases = log.segment_base_offsets();
  REQUIRE(bases.size() >= 5);

  SECTION("to a batch boundary in an earlier segment") {
    int64_t target = bases[1] + 2;
    REQUIRE(log.truncate_to(target) == error_code::none);
    CHECK(log.log_end_offset() == target);
    CHECK(log.segment_base_offsets()
          == std::vector<int64_t>{bases[0], bases[1]});
    CHECK(list_dir(dir.path).size() == 4); // later segment files are gone
    check_contiguous(read_all(log, 0), 0, target);
    CHECK(log.read(target, 100).records.empty());
    CHECK(append_ok(log, make_batch(3, 10)) == target);
    auto reopened_end = log.log_end_offset();
    log = open_log(dir.path, config);
    CHECK(log.log_end_offset() == reopened_end);
    check_contiguous(read_all(log, 0), 0, reopened_end);
  }
  SECTION("to exactly a segment's base offset") {
    REQUIRE(log.truncate_to(bases[2]) == error_code::none);
    CHECK(log.log_end_offset() == bases[2]);
    CHECK(log.segment_base_offsets().back() == bases[2]);
    CHECK(file_size(dir / segment_name(bases[2], ".log")) == 0);
    CHECK(append_ok(log, make_batch(1, 10)) == bases[2]);
  }
  SECTION("into the middle of a batch takes the whole batch") {
    REQUIRE(log.truncate_to(bases[1] + 3) == error_code::none);
    CHECK(log.log_end_offset() == bases[1] + 2);
  }
  SECTION("at or past the log end offset changes nothing") {
    REQUIRE(log.truncate_to(120) == error_code::none);
    REQUIRE(log.truncate_to(500) == error_code::none);
    CHECK(log.log_end_offset() == 120);
    CHECK(log.segment_base_offsets() == bases);
  }
  SECTION("below the log start offset empties the log and restarts there") {
    auto retained = small_segments(4096);
    retained.retention_bytes = 0;
    log = open_log(dir.path, retained);
    REQUIRE(log.apply_retention(0) == error_code::none);
    REQUIRE(log.log_start_offset() == bases.back());
    REQUIRE(log.truncate_to(10) == error_code::none);
    CHECK(log.log_start_offset() == 10);
    CHECK(log.log_end_offset() == 10);
    CHECK(log.segment_base_offsets() == std::vector<int64_t>{10});
    // The log start offset is checkpointed (Kafka's
    // log-start-offset-checkpoint), so a restart starts at 10 too.
    CHECK(list_dir(dir.path)
          == std::vector<std::string>{segment_name(10, ".index"),
                                      segment_name(10, ".log"),
                                      "log-start-offset-checkpoint"});
    CHECK(append_ok(log, make_batch(1, 10)) == 10);
  }
}

// -- retention --------------------------------------------------------------------

TEST_CASE("retention by size deletes the oldest segments but never the active "
          "one") {
  temp_dir dir;
  auto config = small_segments(4096);
  auto log = open_log(dir.path, config);
  for (int i = 0; i < 60; ++i)
    append_ok(log, make_batch(2, 300));
  auto bases = log.segment_base_offsets();
  auto before = log.size_in_bytes();

  SECTION("down to, never below, retention.bytes") {
    config.retention_bytes = static_cast<int64_t>(before / 2);
    log = open_log(dir.path, config);
    REQUIRE(log.apply_retention(0) == error_code::none);
    auto kept = log.segment_base_offsets();
    REQUIRE(kept.size() < bases.size());
    REQUIRE(kept.size() > 1);
    CHECK(log.size_in_bytes() >= before / 2);
    // One more deletion would have gone below the limit.
    CHECK(log.size_in_bytes()
            - file_size(dir / segment_name(kept.front(), ".log"))
          < before / 2);
    CHECK(log.log_start_offset() == kept.front());
    CHECK(::access((dir / segment_name(0, ".log")).c_str(), F_OK) != 0);
    check_contiguous(read_all(log, log.log_start_offset()),
                     log.log_start_offset(), 120);
  }
  SECTION("retention.bytes = 0 keeps just the active segment") {
    config.retention_bytes = 0;
    log = open_log(dir.path, config);
    REQUIRE(log.apply_retention(0) == error_code::none);
    CHECK(log.segment_base_offsets() == std::vector<int64_t>{bases.back()});
    CHECK(log.log_end_offset() == 120);
    CHECK(list_dir(dir.path).size() == 2);
  }
  SECTION("retention.bytes = retention.ms = -1 keeps everything") {
    config.retention_ms = -1;
    log = open_log(dir.path, config);
    REQUIRE(log.apply_retention(INT64_MAX) == error_code::none);
    CHECK(log.segment_base_offsets().size() == bases.size());
  }
}

TEST_CASE("retention by time deletes segments whose newest record is older "
          "than retention.ms, never the active one") {
  temp_dir dir;
  auto config = small_segments(4096);
  config.retention_ms = 1000;
  auto log = open_log(dir.path, config);
  for (int i = 0; i < 20; ++i) // old: offsets 0-39, timestamps 10'000..
    append_ok(log, make_batch(2, 300, 10'000 + i));
  for (int i = 0; i < 20; ++i) // new: offsets 40-79, timestamps 50'000..
    append_ok(log, make_batch(2, 300, 50'000 + i));
  auto bases = log.segment_base_offsets();
  REQUIRE(bases.size() > 4);

  auto check_time_retention = [&](segment_log& log) {
    REQUIRE(log.apply_retention(50'500) == error_code::none);
    // Kept from the segment holding offset 40, the first new record (its
    // largest timestamp is new even if it starts with old batches).
    auto holding_40 =
      *std::prev(std::upper_bound(bases.begin(), bases.end(), int64_t{40}));
    CHECK(log.log_start_offset() == holding_40);
    CHECK(log.log_start_offset() > 0);
    CHECK(log.segment_base_offsets().back() == bases.back());
    // Long after, only the active segment is left, expired or not.
    REQUIRE(log.apply_retention(1'000'000) == error_code::none);
    CHECK(log.segment_base_offsets() == std::vector<int64_t>{bases.back()});
    CHECK(log.log_end_offset() == 80);
    CHECK(append_ok(log, make_batch(1, 10)) == 80);
  };
  SECTION("timestamps tracked while appending") {
    check_time_retention(log);
  }
  SECTION("timestamps rescanned after a restart") {
    log = open_log(dir.path, config);
    check_time_retention(log);
  }
}

// -- flushing and failures --------------------------------------------------------

TEST_CASE("flush.messages and flush.ms decide when appends are fsynced") {
  temp_dir dir;
  SECTION("flush.messages counts records") {
    log_config config;
    config.flush_messages = 10;
    auto log = open_log(dir.path, config);
    append_ok(log, make_batch(4, 10));
    CHECK(log.unflushed_messages() == 4);
    append_ok(log, make_batch(4, 10));
    CHECK(log.unflushed_messages() == 8);
    append_ok(log, make_batch(4, 10));
    CHECK(log.unflushed_messages() == 0);
  }
  SECTION("flush.ms counts time since the last flush") {
    log_config config;
    config.flush_ms = 100;
    auto log = open_log(dir.path, config);
    append_ok(log, make_batch(1, 10), 1000);
    append_ok(log, make_batch(1, 10), 1050);
    CHECK(log.unflushed_messages() == 2);
    append_ok(log, make_batch(1, 10), 1100);
    CHECK(log.unflushed_messages() == 0);
    append_ok(log, make_batch(1, 10), 1150);
    CHECK(log.unflushed_messages() == 1);
  }
  SECTION("by default the OS decides; flush() forces it") {
    auto log = open_log(dir.path);
    for (int i = 0; i < 100; ++i)
      append_ok(log, make_batch(1, 10), i * 1'000'000'000LL);
    CHECK(log.unflushed_messages() == 100);
    CHECK(log.flush() == error_code::none);
    CHECK(log.unflushed_messages() == 0);
  }
}

TEST_CASE("an unusable log directory is an error value, not a crash") {
  temp_dir dir;
  write_file(dir / "plain_file", bytes{1, 2, 3});
  auto opened = segment_log::open(dir / "plain_file/topic-0");
  auto* error = std::get_if<std::string>(&opened);
  REQUIRE(error);
  CHECK(error->find("Not a directory") != std::string::npos);
  opened = segment_log::open(dir / "plain_file");
  REQUIRE(std::get_if<std::string>(&opened));
  opened = segment_log::open("");
  REQUIRE(std::get_if<std::string>(&opened));
  // A segment name past INT64_MAX is ignored rather than misread.
  ::mkdir((dir / "odd").c_str(), 0755);
  write_file(dir / "odd/99999999999999999999.log", bytes{});
  opened = segment_log::open(dir / "odd");
  REQUIRE(std::get_if<segment_log>(&opened));
  CHECK(std::get<segment_log>(opened).segment_base_offsets()
        == std::vector<int64_t>{0});
}

TEST_CASE("a write the disk refuses fails the append cleanly and the log stays "
          "readable and appendable") {
  temp_dir dir;
  auto log = open_log(dir.path);
  for (int i = 0; i < 5; ++i)
    append_ok(log, make_batch(2, 100));
  auto size = file_size(dir / segment_name(0, ".log"));

  // RLIMIT_FSIZE stands in for a full disk: the write lands partly, then
  // fails (EFBIG instead of ENOSPC; the same path).
  struct rlimit saved;
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = saved;
  limited.rlim_cur = size + 100;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
  int64_t base = -1;
  auto result = log.append(make_batch(2, 1000), 0, &base);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  CHECK(result == error_code::kafka_storage_error);
  CHECK(log.last_error().find("File too large") != std::string::npos);
  CHECK(base == -1);
  CHECK(file_size(dir / segment_name(0, ".log")) == size); // no torn bytes
  CHECK(log.log_end_offset() == 10);
  check_contiguous(read_all(log, 0), 0, 10);
  CHECK(append_ok(log, make_batch(2, 1000)) == 10);
  auto reopened_end = log.log_end_offset();
  log = open_log(dir.path);
  CHECK(log.log_end_offset() == reopened_end);
}

TEST_CASE("segment.ms rolls the active segment once an appended batch is "
          "that much newer than the segment's first") {
  temp_dir dir;
  log_config config;
  config.segment_ms = 1000;
  auto log = open_log(dir.path, config);
  append_ok(log, make_batch(1, 10, 5000));
  append_ok(log, make_batch(1, 10, 6000)); // 1000 ms newer: not yet
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0});
  append_ok(log, make_batch(1, 10, 6001));
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0, 2});
  // An old timestamp does not roll; the new segment counts from its first.
  append_ok(log, make_batch(1, 10, 100));
  append_ok(log, make_batch(1, 10, 7001));
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0, 2});
  append_ok(log, make_batch(1, 10, 7002));
  CHECK(log.segment_base_offsets() == std::vector<int64_t>{0, 2, 5});
}

TEST_CASE("a log directory's replication-offset-checkpoint is Kafka's "
          "CheckpointFile of topic, partition and offset lines") {
  test::temp_dir dir;
  std::map<topic_partition, int64_t> hw{{{"orders", 0}, 42},
                                        {{"__consumer_offsets", 17}, 7}};
  REQUIRE(write_partition_checkpoint(dir.path, "replication-offset-checkpoint",
                                     hw));
  std::ifstream in{dir.path + "/replication-offset-checkpoint"};
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  CHECK(text == "0\n2\n__consumer_offsets 17 7\norders 0 42\n");
  CHECK(read_partition_checkpoint(dir.path, "replication-offset-checkpoint")
        == hw);
  CHECK(read_partition_checkpoint(dir.path, "missing").empty());
  std::ofstream{dir.path + "/bad"} << "0\n2\norders 0 42\n";
  CHECK(read_partition_checkpoint(dir.path, "bad").empty());
}
