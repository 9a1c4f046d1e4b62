// The broker's log manager actor on a real temporary directory.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "actors/log_manager.hpp"
#include "domain/log/log_cleaner.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;
using troupe::test::temp_dir;

namespace {

std::vector<uint8_t> batch_of(int n, const std::string& value) {
  std::vector<record> rs;
  for (int i = 0; i < n; ++i)
    rs.push_back({std::nullopt,
                  std::vector<uint8_t>(value.begin(), value.end()),
                  1000 + i,
                  {}});
  return encode_batch(0, 0, rs);
}

struct log_fixture : test::sim_fixture {
  temp_dir dir;
  cluster_config config;
  log_manager_actor logs;

  explicit log_fixture(cluster_config c = {}) : config(c) {
    start();
  }

  void start() {
    logs = sys.spawn(log_manager, dir.path + "/broker-0", config);
    to_stop.push_back(caf::actor_cast<caf::actor>(logs));
    run();
  }

  /// A leader's append; `high_watermark` as its replica reports it (by
  /// default every record is replicated).
  log_append_response append(topic_partition tp, std::vector<uint8_t> b,
                             int32_t epoch = 0,
                             int64_t high_watermark = INT64_MAX) {
    auto p = ask<log_append_response>(
      logs, log_append_request{tp, epoch, b, false, high_watermark});
    REQUIRE(p.ready());
    return p.get();
  }
};

} // namespace

TEST_CASE("the log manager assigns offsets and reads batches back") {
  log_fixture fx;
  topic_partition tp{"orders", 2};
  auto a = fx.append(tp, batch_of(3, "a"));
  CHECK(a.error == error_code::none);
  CHECK(a.base_offset == 0);
  CHECK(a.log_end_offset == 3);
  auto b = fx.append(tp, batch_of(2, "b"), 4);
  CHECK(b.base_offset == 3);
  CHECK(b.log_end_offset == 5);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{tp, 3, 1024});
  REQUIRE(r.ready());
  CHECK(r.get().error == error_code::none);
  auto hdr = parse_header(r.get().records.data(), r.get().records.size());
  REQUIRE(hdr);
  CHECK(hdr->base_offset == 3);
  CHECK(hdr->partition_leader_epoch == 4); // stamped by the leader
  CHECK(r.get().log_end_offset == 5);
}

TEST_CASE("a corrupt batch is refused with CORRUPT_MESSAGE and nothing is "
          "written") {
  log_fixture fx;
  auto b = batch_of(2, "x");
  b.back() ^= 0xff;
  CHECK(fx.append({"t", 0}, b).error == error_code::corrupt_message);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{{"t", 0}, 0, 1});
  CHECK(r.get().log_end_offset == 0);
}

TEST_CASE("reading past the log end is OFFSET_OUT_OF_RANGE") {
  log_fixture fx;
  fx.append({"t", 0}, batch_of(1, "x"));
  auto r =
    fx.ask<log_read_response>(fx.logs, log_read_request{{"t", 0}, 7, 100});
  CHECK(r.get().error == error_code::offset_out_of_range);
}

TEST_CASE("a follower's truncation drops the divergent tail") {
  log_fixture fx;
  topic_partition tp{"t", 1};
  fx.append(tp, batch_of(2, "a"));
  fx.append(tp, batch_of(2, "b"));
  auto t = fx.ask<log_read_response>(fx.logs, log_truncate_request{tp, 2});
  CHECK(t.get().error == error_code::none);
  CHECK(t.get().log_end_offset == 2);
  CHECK(fx.append(tp, batch_of(1, "c")).base_offset == 2);
}

TEST_CASE("a restarted log manager finds its partitions' logs again") {
  log_fixture fx;
  fx.append({"t", 0}, batch_of(5, "a"));
  caf::anon_send_exit(fx.logs, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  CHECK(fx.append({"t", 0}, batch_of(1, "b")).base_offset == 5);
}

TEST_CASE("a log opened again starts from its checkpointed high watermark "
          "(replication-offset-checkpoint), written at most every 5 s and "
          "when the log manager stops") {
  log_fixture fx;
  topic_partition tp{"t", 0};
  auto epochs = [&] {
    auto e = fx.ask<log_epoch_response>(fx.logs, log_epoch_request{tp, -1, -1});
    REQUIRE(e.ready());
    return e.get();
  };
  fx.append(tp, batch_of(5, "a"), 0, 0);
  fx.append(tp, batch_of(5, "b"), 0, 5);
  auto file = fx.dir.path + "/broker-0/replication-offset-checkpoint";
  // Not yet: the first checkpoint comes 5 s after the log manager started.
  CHECK_FALSE(std::filesystem::exists(file));
  fx.advance(5000, 100);
  fx.append(tp, batch_of(5, "c"), 0, 10);
  fx.append({"u", 3}, batch_of(2, "x"), 0, 2);
  REQUIRE(std::filesystem::exists(file));
  // Kafka's format: version, count, "topic partition offset" lines; the
  // partition written after the checkpoint is not in it yet.
  std::ifstream in{file};
  std::string version, count, entry;
  std::getline(in, version);
  std::getline(in, count);
  std::getline(in, entry);
  CHECK(version == "0");
  CHECK(count == "1");
  CHECK(entry == "t 0 10");
  // A later high watermark reaches the file when the log manager stops.
  fx.append(tp, batch_of(1, "d"), 0, 15);
  caf::anon_send_exit(fx.logs, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  auto e = epochs();
  CHECK(e.log_end_offset == 16);
  CHECK(e.high_watermark == 15);
}

TEST_CASE("an unusable log directory answers KAFKA_STORAGE_ERROR and the "
          "log manager stays up") {
  test::sim_fixture fx;
  temp_dir dir;
  std::ofstream{dir.path + "/file"} << "x";
  auto logs =
    fx.sys.spawn(log_manager, dir.path + "/file/broker-0", cluster_config{});
  fx.to_stop.push_back(caf::actor_cast<caf::actor>(logs));
  auto r = fx.ask<log_append_response>(
    logs, log_append_request{{"t", 0}, 0, batch_of(1, "x")});
  CHECK(r.get().error == error_code::kafka_storage_error);
  auto again = fx.ask<log_append_response>(
    logs, log_append_request{{"t", 0}, 0, batch_of(1, "x")});
  CHECK(again.ready()); // still answering
}

// -- log compaction (docs/ARCHITECTURE.md §4) ---------------------------------------

namespace {

/// Keyed records, all at `timestamp`.
std::vector<uint8_t>
keyed_batch(const std::vector<std::pair<std::string, std::string>>& kvs,
            int64_t timestamp) {
  std::vector<record> rs;
  for (auto& [k, v] : kvs)
    rs.push_back({std::vector<uint8_t>(k.begin(), k.end()),
                  std::vector<uint8_t>(v.begin(), v.end()),
                  timestamp,
                  {}});
  return encode_batch(0, 0, rs);
}

/// Every record of the partition as a consumer from the start reads it:
/// offset → (key, value).
std::map<int64_t, std::pair<std::string, std::string>>
read_all(log_fixture& fx, const topic_partition& tp, int64_t* start = nullptr) {
  std::map<int64_t, std::pair<std::string, std::string>> out;
  auto first =
    fx.ask<log_epoch_response>(fx.logs, log_epoch_request{tp, -1, -1});
  REQUIRE(first.ready());
  auto offset = first.get().log_start_offset;
  if (start)
    *start = offset;
  while (offset < first.get().log_end_offset) {
    auto r = fx.ask<log_read_response>(fx.logs,
                                       log_read_request{tp, offset, 4096});
    REQUIRE(r.ready());
    REQUIRE(r.get().error == error_code::none);
    REQUIRE_FALSE(r.get().records.empty());
    for (auto& b : record_batches{r.get().records}) {
      auto records = b.records();
      REQUIRE(records);
      for (auto& rec : *records)
        if (rec.offset >= offset && rec.key)
          out[rec.offset] = {std::string(rec.key->begin(), rec.key->end()),
                             rec.value ? std::string(rec.value->begin(),
                                                     rec.value->end())
                                       : std::string{}};
      offset = b.next_offset();
    }
  }
  return out;
}

cluster_config small_logs() {
  cluster_config c;
  c.log.segment_bytes = 2048;
  c.offsets_topic_segment_bytes = 2048;
  c.log_cleaner_backoff_ms = 1000;
  return c;
}

log_config compact_only(uint64_t segment_bytes = 2048) {
  log_config c;
  c.compact = true;
  c.delete_policy = false;
  c.segment_bytes = segment_bytes;
  return c;
}

} // namespace

TEST_CASE("a compacted topic refuses a record without a key with "
          "INVALID_RECORD") {
  log_fixture fx;
  caf::anon_send(fx.logs, topic_log_config{"orders", compact_only()});
  fx.run();
  topic_partition tp{"orders", 2};
  auto refused = fx.append(tp, batch_of(2, "no key"));
  CHECK(refused.error == error_code::invalid_record);
  CHECK(refused.error_message
        == "Compacted topic cannot accept message without key in topic "
           "partition orders-2.");
  CHECK(refused.log_end_offset == 0);
  CHECK(fx.append(tp, keyed_batch({{"k", "v"}}, 1000)).error
        == error_code::none);
  // Another topic, not compacted, takes records without keys.
  CHECK(fx.append({"plain", 0}, batch_of(1, "no key")).error
        == error_code::none);
}

TEST_CASE("__consumer_offsets keeps its records past log.retention.ms while "
          "a delete topic loses them") {
  auto config = small_logs();
  config.log.retention_ms = 1000;
  config.log_retention_check_interval_ms = 500;
  config.log_cleaner_enable = false; // retention alone
  log_fixture fx{config};
  topic_partition offsets{"__consumer_offsets", 0};
  topic_partition plain{"orders", 0};
  // Records an hour old: every group commits once and goes quiet.
  auto old = wall_clock_ms() - 3600 * 1000;
  for (int g = 0; g < 100; ++g) {
    auto key = "group-" + std::to_string(g);
    REQUIRE(fx.append(offsets, keyed_batch({{key, "offset 100"}}, old)).error
            == error_code::none);
    REQUIRE(fx.append(plain, keyed_batch({{key, "offset 100"}}, old)).error
            == error_code::none);
  }
  fx.advance(2000, 100);
  int64_t start = -1;
  auto kept = read_all(fx, offsets, &start);
  CHECK(start == 0);
  CHECK(kept.size() == 100);
  int64_t plain_start = -1;
  read_all(fx, plain, &plain_start);
  CHECK(plain_start > 0); // the delete topic's old segments went
  // And after a restart.
  caf::anon_send_exit(fx.logs, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  fx.advance(2000, 100);
  CHECK(read_all(fx, offsets).size() == 100);
}

TEST_CASE("the log manager compacts __consumer_offsets on its own, keeping "
          "the latest commit of every group") {
  auto config = small_logs();
  log_fixture fx{config};
  topic_partition tp{"__consumer_offsets", 3};
  auto ts = wall_clock_ms();
  std::map<std::string, std::string> expected;
  for (int round = 0; round < 30; ++round)
    for (int g = 0; g < 10; ++g) {
      auto key = "group-" + std::to_string(g);
      auto value = "offset " + std::to_string(round * 10 + g);
      expected[key] = value;
      REQUIRE(fx.append(tp, keyed_batch({{key, value}}, ts)).error
              == error_code::none);
    }
  auto before = read_all(fx, tp);
  fx.advance(1500, 50); // past log.cleaner.backoff.ms
  auto after = read_all(fx, tp);
  CHECK(after.size() < before.size());
  std::map<std::string, std::string> seen;
  for (auto& [offset, kv] : after) {
    REQUIRE(before.count(offset)); // offsets never move
    CHECK(before.at(offset) == kv);
    seen[kv.first] = kv.second;
  }
  CHECK(seen == expected);
  // The first dirty offset is checkpointed for the next clean.
  CHECK(read_cleaner_checkpoint(fx.dir.path + "/broker-0/__consumer_offsets-3")
        > 0);
  // A fetch from a hole (an offset the clean removed) gets the next batch.
  int64_t hole = -1;
  for (int64_t o = 0; o < 300 && hole < 0; ++o)
    if (!after.count(o))
      hole = o;
  REQUIRE(hole >= 0);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{tp, hole, 1});
  REQUIRE(r.ready());
  REQUIRE(r.get().error == error_code::none);
  record_batches batches{r.get().records};
  REQUIRE(batches.begin() != batches.end());
  auto records = batches.begin()->records();
  REQUIRE(records);
  REQUIRE_FALSE(records->empty());
  CHECK(records->front().offset == after.upper_bound(hole)->first);
}

TEST_CASE("the cleaner is throttled to log.cleaner.io.max.bytes.per.second "
          "and a log deleted mid-clean abandons it") {
  auto config = small_logs();
  config.log_cleaner_io_max_bytes_per_second = 20000;
  log_fixture fx{config};
  caf::anon_send(fx.logs, topic_log_config{"t", compact_only()});
  fx.run();
  topic_partition cleaned{"t", 0};
  topic_partition deleted{"t", 1};
  auto ts = wall_clock_ms();
  std::string value(100, 'v');
  for (int i = 0; i < 600; ++i) {
    auto key = "key-" + std::to_string(i % 20);
    REQUIRE(fx.append(cleaned, keyed_batch({{key, value}}, ts)).error
            == error_code::none);
  }
  auto checkpoint = [&](const topic_partition& tp) {
    return read_cleaner_checkpoint(fx.dir.path + "/broker-0/" + to_string(tp));
  };
  // About 100 KB to read and write at 20 KB/s: seconds, not one tick.
  fx.advance(2000, 50);
  CHECK(checkpoint(cleaned) < 0);
  fx.advance(30000, 100);
  CHECK(checkpoint(cleaned) > 0);

  for (int i = 0; i < 600; ++i) {
    auto key = "key-" + std::to_string(i % 20);
    REQUIRE(fx.append(deleted, keyed_batch({{key, value}}, ts)).error
            == error_code::none);
  }
  fx.advance(3000, 50); // its clean is under way
  REQUIRE(checkpoint(deleted) < 0);
  caf::anon_send(fx.logs, log_delete_request{{deleted}});
  fx.run();
  fx.advance(30000, 100);
  CHECK_FALSE(std::filesystem::exists(fx.dir.path + "/broker-0/t-1"));
  // The manager still serves the other log.
  CHECK(fx.append(cleaned, keyed_batch({{"key-0", "x"}}, ts)).error
        == error_code::none);
}

TEST_CASE("message.timestamp.type=LogAppendTime stamps the leader's batch "
          "with the broker's clock") {
  log_fixture fx;
  log_config config;
  config.log_append_time = true;
  caf::anon_send(fx.logs, topic_log_config{"stamped", config});
  fx.run();
  topic_partition tp{"stamped", 0};
  auto before = wall_clock_ms();
  REQUIRE(fx.append(tp, keyed_batch({{"k", "v"}}, 1000)).error
          == error_code::none);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{tp, 0, 1024});
  REQUIRE(r.ready());
  auto& records = r.get().records;
  REQUIRE(validate_batch(records.data(), records.size(), SIZE_MAX)
          == error_code::none); // the CRC was recomputed
  auto h = parse_header(records.data(), records.size());
  REQUIRE(h);
  CHECK((h->attributes & batch_layout::log_append_time_flag) != 0);
  // The broker's clock is the actor clock shifted once by the wall clock
  // (actors/clock.hpp): it may trail the wall clock by a rounding step.
  CHECK(h->max_timestamp >= before - 1000);
  CHECK(h->max_timestamp < before + 60000);
}

TEST_CASE("the leader epoch cache survives a clean that removed an epoch's "
          "batches and a restart (leader-epoch-checkpoint)") {
  auto config = small_logs();
  log_fixture fx{config};
  topic_partition tp{"__consumer_offsets", 1};
  auto ts = wall_clock_ms();
  // Epoch 1: offsets 0..99; epoch 3: 100..299 overwrite every key.
  for (int i = 0; i < 100; ++i)
    REQUIRE(fx.append(tp, keyed_batch({{"g" + std::to_string(i % 10), "a"}},
                                      ts),
                      1)
              .error
            == error_code::none);
  for (int i = 0; i < 200; ++i)
    REQUIRE(fx.append(tp, keyed_batch({{"g" + std::to_string(i % 10), "b"}},
                                      ts),
                      3)
              .error
            == error_code::none);
  auto epoch_end = [&](int32_t epoch) {
    auto r = fx.ask<log_epoch_response>(fx.logs,
                                        log_epoch_request{tp, epoch, -1});
    REQUIRE(r.ready());
    return std::make_pair(r.get().epoch, r.get().end_offset);
  };
  REQUIRE(epoch_end(1) == std::make_pair(1, int64_t{100}));
  REQUIRE(epoch_end(2) == std::make_pair(1, int64_t{100}));
  fx.advance(1500, 50); // cleaned: no batch of epoch 1 is left
  auto records = read_all(fx, tp);
  REQUIRE_FALSE(records.empty());
  REQUIRE(records.begin()->first >= 100);
  caf::anon_send_exit(fx.logs, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  // KIP-101's answer is still the log's history, not its survivors'.
  CHECK(epoch_end(1) == std::make_pair(1, int64_t{100}));
  CHECK(epoch_end(2) == std::make_pair(1, int64_t{100}));
  CHECK(epoch_end(3).first == 3);
}

TEST_CASE("the cleaner cleans only below the high watermark its replica "
          "reports") {
  auto config = small_logs();
  log_fixture fx{config};
  topic_partition tp{"__consumer_offsets", 2};
  auto ts = wall_clock_ms();
  // Nothing replicated yet: the high watermark stays 0.
  for (int i = 0; i < 300; ++i)
    REQUIRE(fx.append(tp, keyed_batch({{"g" + std::to_string(i % 10), "x"}},
                                      ts),
                      0, 0)
              .error
            == error_code::none);
  auto before = read_all(fx, tp);
  fx.advance(3000, 50);
  CHECK(read_all(fx, tp).size() == before.size());
  // The followers caught up: the next append reports it.
  REQUIRE(fx.append(tp, keyed_batch({{"g0", "y"}}, ts), 0, 300).error
          == error_code::none);
  fx.advance(3000, 50);
  CHECK(read_all(fx, tp).size() < before.size());
}
