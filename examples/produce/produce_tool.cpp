// produce_tool: drives the embedded node's replicated log from inside the
// process.
//
//   bench   produce throughput and latency (replication factor 3, acks=1 and
//           acks=all, 100-byte and 1 KiB records) beside the raw sequential
//           write bandwidth of the same disk, measured in the same run.
//   write   produce acks=all batches forever, printing "acked <offset>
//           <value>" for each acknowledged record (the crash test kills it
//           with SIGKILL mid-write).
//   verify  restart on the same log.dirs and check that every record a
//           `write` run acknowledged is there, at its offset, in order.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/node.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

using namespace troupe;
using clock_type = std::chrono::steady_clock;

namespace {

bytes make_batch(size_t records, size_t size, const std::string& prefix) {
  std::vector<record> rs;
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  for (size_t i = 0; i < records; ++i) {
    std::string v = prefix.empty() ? std::string(size, 'x')
                                   : prefix + "-" + std::to_string(i);
    rs.push_back({std::nullopt, bytes(v.begin(), v.end()), now, {}});
  }
  return encode_batch(0, 0, rs);
}

/// The partition's leader broker once it leads (waits for the cluster to
/// settle).
broker_actor await_leader(caf::scoped_actor& self, embedded_node& node,
                          const topic_partition& tp,
                          std::chrono::seconds within) {
  auto deadline = clock_type::now() + within;
  while (clock_type::now() < deadline) {
    int32_t leader = -1;
    self
      ->request(node.controller, std::chrono::seconds(5),
                metadata_request{{tp.topic}, false})
      .receive(
        [&](metadata_response& md) {
          if (!md.topics.empty() && !md.topics[0].partition_states.empty())
            leader = md.topics[0]
                       .partition_states[static_cast<size_t>(tp.partition)]
                       .leader;
        },
        [](caf::error&) {});
    if (leader >= 0) {
      auto b = node.brokers[static_cast<size_t>(leader)];
      bool ready = false;
      self->request(b, std::chrono::seconds(5), list_offsets_request{tp, -1})
        .receive(
          [&](list_offsets_response& r) {
            ready = r.error == error_code::none;
          },
          [](caf::error&) {});
      if (ready)
        return b;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

void create_topic(caf::scoped_actor& self, embedded_node& node,
                  const std::string& name, int16_t rf) {
  self
    ->request(node.controller, std::chrono::seconds(5),
              create_topics_request{{{name, 1, rf}}})
    .receive([](create_topics_response&) {}, [](caf::error&) {});
}

/// Waits until the followers hold everything the leader has (HW = LEO), so
/// one workload's replication backlog does not slow the next.
void drain(caf::scoped_actor& self, broker_actor leader,
           const topic_partition& tp) {
  auto deadline = clock_type::now() + std::chrono::seconds(120);
  while (clock_type::now() < deadline) {
    bool caught_up = false;
    self->request(leader, std::chrono::seconds(5), broker_status_request{})
      .receive(
        [&](replica_statuses& s) {
          for (auto& r : s.replicas)
            if (r.partition == tp)
              caught_up = r.high_watermark == r.log_end_offset;
        },
        [](caf::error&) {});
    if (caught_up)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// -- bench ---------------------------------------------------------------------------

struct bench_result {
  double records_per_s = 0;
  double mb_per_s = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  size_t errors = 0;
};

/// Keeps `inflight` produce requests outstanding for `seconds`.
bench_result run_produce(caf::actor_system& sys, broker_actor leader,
                         topic_partition tp, int16_t acks, size_t size,
                         size_t per_batch, int inflight, double seconds) {
  struct shared {
    std::vector<double> latencies;
    size_t records = 0;
    size_t errors = 0;
    int outstanding = 0;
  };
  auto out = std::make_shared<shared>();
  auto batch = make_batch(per_batch, size, "");
  auto end = clock_type::now()
             + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  auto start = clock_type::now();
  {
    caf::scoped_actor waiter{sys};
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    sys.spawn([=](caf::event_based_actor* self) {
      auto send_one = std::make_shared<std::function<void()>>();
      *send_one = [=] {
        if (clock_type::now() >= end) {
          if (out->outstanding == 0)
            done->set_value();
          return;
        }
        ++out->outstanding;
        auto t0 = clock_type::now();
        self
          ->request(leader, std::chrono::seconds(30),
                    produce_request{tp, acks, 30000, batch})
          .then(
            [=](produce_response& r) {
              --out->outstanding;
              if (r.error == error_code::none) {
                out->records += per_batch;
                out->latencies.push_back(
                  std::chrono::duration<double, std::milli>(clock_type::now()
                                                            - t0)
                    .count());
              } else {
                ++out->errors;
              }
              (*send_one)();
            },
            [=](caf::error&) {
              --out->outstanding;
              ++out->errors;
              (*send_one)();
            });
      };
      for (int i = 0; i < inflight; ++i)
        (*send_one)();
    });
    finished.wait();
  }
  auto elapsed =
    std::chrono::duration<double>(clock_type::now() - start).count();
  bench_result r;
  r.records_per_s = static_cast<double>(out->records) / elapsed;
  r.mb_per_s = r.records_per_s * static_cast<double>(size) / 1e6;
  r.errors = out->errors;
  auto& l = out->latencies;
  if (!l.empty()) {
    std::sort(l.begin(), l.end());
    r.p50_ms = l[l.size() / 2];
    r.p99_ms = l[std::min(l.size() - 1, l.size() * 99 / 100)];
  }
  return r;
}

/// Sequential write() of 1 MiB blocks for `seconds`, then one fdatasync —
/// what the disk takes when nothing else is in the way.
double raw_write_mb_per_s(const std::string& dir, double seconds) {
  auto path = dir + "/raw-write-baseline";
  int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0)
    return 0;
  std::vector<char> block(1 << 20, 'x');
  size_t written = 0;
  auto start = clock_type::now();
  auto end =
    start + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (clock_type::now() < end) {
    auto n = ::write(fd, block.data(), block.size());
    if (n <= 0)
      break;
    written += static_cast<size_t>(n);
  }
  ::fdatasync(fd);
  auto elapsed =
    std::chrono::duration<double>(clock_type::now() - start).count();
  ::close(fd);
  ::unlink(path.c_str());
  return static_cast<double>(written) / 1e6 / elapsed;
}

int bench(caf::actor_system& sys, cluster_config config, double seconds,
          int inflight) {
  auto node = spawn_embedded_node(sys, config);
  caf::scoped_actor self{sys};
  std::filesystem::create_directories(config.log_dirs);
  auto raw = raw_write_mb_per_s(config.log_dirs, seconds);
  std::printf("| workload | acks | record | records/s | MB/s | vs raw write "
              "| p50 ms | p99 ms | errors |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  std::printf("| raw sequential write(), same disk | - | 1 MiB blocks | - | "
              "%.0f | 1.00 | - | - | - |\n",
              raw);
  int n = 0;
  for (size_t size : {size_t{100}, size_t{1024}}) {
    for (int16_t acks : {int16_t{1}, int16_t{-1}}) {
      auto topic = "bench-" + std::to_string(n++);
      create_topic(self, node, topic, 3);
      topic_partition tp{topic, 0};
      auto leader = await_leader(self, node, tp, std::chrono::seconds(10));
      if (!leader) {
        std::fprintf(stderr, "no leader for %s\n", topic.c_str());
        return 1;
      }
      // ~16 KiB batches, like a producer's batch.size default.
      auto per_batch = std::max<size_t>(1, 16384 / size);
      auto r =
        run_produce(sys, leader, tp, acks, size, per_batch, inflight, seconds);
      std::printf(
        "| produce RF 3, %zu records/batch, %d in flight | %s | %zu B "
        "| %.0f | %.1f | %.2f | %.2f | %.2f | %zu |\n",
        per_batch, inflight, acks == 1 ? "1" : "all", size, r.records_per_s,
        r.mb_per_s, raw > 0 ? r.mb_per_s / raw : 0.0, r.p50_ms, r.p99_ms,
        r.errors);
      std::fflush(stdout);
      drain(self, leader, tp);
    }
  }
  std::printf("\nvs raw write = produce MB/s (record values) / raw write "
              "MB/s; every record is written three times (three replica "
              "logs on the same disk).\n");
  stop_embedded_node(node);
  return 0;
}

// -- crash test -------------------------------------------------------------------------

int write_forever(caf::actor_system& sys, cluster_config config) {
  auto node = spawn_embedded_node(sys, config);
  caf::scoped_actor self{sys};
  create_topic(self, node, "crash", 3);
  topic_partition tp{"crash", 0};
  auto leader = await_leader(self, node, tp, std::chrono::seconds(20));
  if (!leader) {
    std::fprintf(stderr, "no leader\n");
    return 1;
  }
  std::fprintf(stderr, "writing\n");
  for (uint64_t batch = 0;; ++batch) {
    auto prefix = "b" + std::to_string(batch);
    size_t records = 1 + batch % 20;
    self
      ->request(leader, std::chrono::seconds(30),
                produce_request{tp, -1, 30000, make_batch(records, 0, prefix)})
      .receive(
        [&](produce_response& r) {
          if (r.error != error_code::none)
            return;
          for (size_t i = 0; i < records; ++i)
            std::printf(
              "acked %lld %s-%zu\n",
              static_cast<long long>(r.base_offset + static_cast<int64_t>(i)),
              prefix.c_str(), i);
          std::fflush(stdout);
        },
        [](caf::error&) {});
  }
}

int verify(caf::actor_system& sys, cluster_config config,
           const std::string& acked_file) {
  std::map<int64_t, std::string> acked;
  std::ifstream in{acked_file};
  std::string word, value;
  long long offset = 0;
  while (in >> word >> offset >> value)
    if (word == "acked")
      acked[offset] = value;
  auto node = spawn_embedded_node(sys, config);
  caf::scoped_actor self{sys};
  topic_partition tp{"crash", 0};
  auto leader = await_leader(self, node, tp, std::chrono::seconds(30));
  if (!leader) {
    std::printf("FAIL: no leader for crash-0 after restart\n");
    return 1;
  }
  int64_t need = acked.empty() ? 0 : acked.rbegin()->first + 1;
  // The HW is rebuilt as the followers fetch again.
  auto deadline = clock_type::now() + std::chrono::seconds(30);
  int64_t hw = 0;
  while (clock_type::now() < deadline) {
    self->request(leader, std::chrono::seconds(5), list_offsets_request{tp, -1})
      .receive([&](list_offsets_response& r) { hw = r.offset; },
               [](caf::error&) {});
    if (hw >= need)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::vector<std::string> log;
  bool failed = false;
  while (static_cast<int64_t>(log.size()) < hw && !failed) {
    self
      ->request(leader, std::chrono::seconds(5),
                fetch_request{tp, -1, static_cast<int64_t>(log.size()), 1 << 20,
                              0, 1, -1})
      .receive(
        [&](fetch_response& f) {
          if (f.error != error_code::none || f.records.empty()) {
            std::printf("FAIL: fetch at %zu: %s\n", log.size(),
                        std::string{error_name(f.error)}.c_str());
            failed = true;
            return;
          }
          record_batches batches{f.records};
          for (auto& b : batches) {
            auto rs = b.records();
            if (!rs) {
              std::printf("FAIL: undecodable batch at %zu\n", log.size());
              failed = true;
              return;
            }
            for (auto& r : *rs)
              log.emplace_back(r.value->begin(), r.value->end());
          }
          if (!batches.whole()) {
            std::printf("FAIL: undecodable batch at %zu\n", log.size());
            failed = true;
            return;
          }
        },
        [&](caf::error&) { failed = true; });
  }
  size_t missing = 0;
  for (auto& [o, v] : acked)
    if (o >= static_cast<int64_t>(log.size())
        || log[static_cast<size_t>(o)] != v)
      ++missing;
  std::printf("acknowledged before the kill: %zu records; log after restart: "
              "%zu records (HW %lld); acknowledged records missing or "
              "misplaced: %zu\n",
              acked.size(), log.size(), static_cast<long long>(hw), missing);
  stop_embedded_node(node);
  return failed || missing > 0 || acked.empty() ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"produce_tool: produce benchmark and crash test of troupe's "
               "replicated log"};
  std::string mode = "bench";
  std::string log_dirs = "/tmp/troupe-produce-bench";
  std::string acked_file;
  double seconds = 3;
  int inflight = 8;
  app.add_option("mode", mode, "bench, write or verify")
    ->check(CLI::IsMember({"bench", "write", "verify"}));
  app.add_option("--log-dirs", log_dirs, "log.dirs of the embedded node");
  app.add_option("--acked", acked_file, "verify: the output of a write run");
  app.add_option("--seconds", seconds, "bench: seconds per workload");
  app.add_option("--inflight", inflight, "bench: produce requests in flight");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::err);
  cluster_config config;
  config.log_dirs = log_dirs;
  config.min_insync_replicas = 2;
  config.replica_fetch_wait_max_ms = 500;
  caf::actor_system_config cfg;
  configure_actor_system(cfg, process_config{});
  caf::actor_system sys{cfg};
  if (mode == "bench") {
    std::filesystem::remove_all(log_dirs); // a clean log for every run
    auto rc = bench(sys, config, seconds, inflight);
    return rc;
  }
  if (mode == "write")
    return write_forever(sys, config);
  return verify(sys, config, acked_file);
}
