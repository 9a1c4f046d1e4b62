// old_fetch_bench: Fetch throughput of an old consumer (Fetch v0, v1, v3:
// magic 0/1 message sets the broker converts down from its stored
// RecordBatch v2, issue 22) against a current one (Fetch v4 and v12: the
// stored batches as they are), in the same run, on the same topic and data.
//
// It produces --records records of --record-bytes bytes once (batches of
// --batch-records, round robin over the topic's partitions, acks=all),
// then each consumer reads every partition from offset 0 to the high
// watermark with the same partition max bytes, one Fetch per partition
// leader per round (sent to all leaders, then received). The client only
// walks the message / batch headers to find the next offset (no record
// decoding, no CRC), so the time is the broker's. Each version is read
// --runs times, the versions interleaved; the table gives the medians and
// each version's ratio to Fetch v12.
//
//   old_fetch_bench --bootstrap-server 127.0.0.1:9092 --topic t
//                   [--records 200000] [--record-bytes 100] [--runs 5]
//
// scripts/bench_old_fetch.sh starts `troupe serve`, creates the topic and
// runs this. Not a test: it asserts nothing about speed.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/kafka/connection.hpp"
#include "domain/kafka/protocol.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;
namespace kc = troupe::kafka_client;

namespace {

struct options {
  std::string bootstrap = "127.0.0.1:9092";
  std::string topic = "old-fetch-bench";
  int64_t records = 200000;
  int32_t record_bytes = 100;
  int32_t batch_records = 100;
  int32_t partition_max_bytes = 1 << 20;
  int32_t runs = 5;
  std::vector<int16_t> versions = {0, 1, 3, 4, 12};
};

int64_t be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}

int32_t be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16)
                              | (uint32_t{p[2]} << 8) | uint32_t{p[3]});
}

struct walked {
  int64_t next_offset = -1; // -1: nothing complete
  int64_t records = 0;
};

/// The offset after the last complete message or batch, and how many
/// records they hold, from the 12-byte log overhead (offset, size) every
/// format shares; a v2 batch's last offset delta is at byte 23. A magic
/// 0/1 message's offset is its own (no compression here).
walked walk(const std::vector<uint8_t>& buf) {
  walked out;
  size_t pos = 0;
  while (pos + 17 <= buf.size()) {
    const uint8_t* p = buf.data() + pos;
    int64_t offset = be64(p);
    int32_t size = be32(p + 8);
    if (size < 0 || pos + 12 + static_cast<size_t>(size) > buf.size())
      break;
    int8_t magic = static_cast<int8_t>(p[16]);
    if (magic >= 2) {
      int32_t delta = be32(p + 23);
      out.next_offset = offset + delta + 1;
      out.records += be32(p + 57);
    } else {
      out.next_offset = offset + 1;
      out.records += 1;
    }
    pos += 12 + static_cast<size_t>(size);
  }
  return out;
}

struct leader {
  std::unique_ptr<kc::connection> conn;
  std::vector<int32_t> partitions;
};

std::pair<std::string, int> split_host_port(const std::string& hp) {
  auto colon = hp.rfind(':');
  return {hp.substr(0, colon), std::atoi(hp.c_str() + colon + 1)};
}

struct cluster_view {
  std::map<int32_t, leader> leaders; // by node id
  int32_t partitions = 0;
};

cluster_view connect_leaders(const options& opt, const kc::client_config& cfg) {
  auto [host, port] = split_host_port(opt.bootstrap);
  kc::connection boot{host, port, -1, cfg};
  wire::metadata_request req;
  req.topics = std::vector<wire::metadata_request_topic>{};
  req.topics->push_back({uuid{}, opt.topic});
  req.allow_auto_topic_creation = false;
  auto res = TROUPE_KAFKA_CALL(boot, metadata, req, int16_t{1});
  cluster_view out;
  for (auto& t : res.topics) {
    if (t.error != error_code::none)
      throw kc::client_error("metadata: " + to_string(t.error));
    for (auto& p : t.partitions) {
      auto& l = out.leaders[p.leader_id];
      l.partitions.push_back(p.partition_index);
      ++out.partitions;
    }
  }
  for (auto& [id, l] : out.leaders)
    for (auto& b : res.brokers)
      if (b.node_id == id)
        l.conn = std::make_unique<kc::connection>(b.host, b.port, id, cfg);
  if (out.partitions == 0)
    throw kc::client_error("topic " + opt.topic + " has no partitions");
  return out;
}

void produce(const options& opt, cluster_view& cv) {
  std::vector<uint8_t> value(opt.record_bytes, 'x');
  int64_t ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  std::vector<record> recs(opt.batch_records);
  for (auto& r : recs) {
    r.value = value;
    r.timestamp = ts;
  }
  auto batch = encode_batch(0, -1, recs);
  int64_t batches = (opt.records + opt.batch_records - 1) / opt.batch_records;
  // One Produce per leader per round: one batch per partition it leads.
  int64_t sent = 0;
  while (sent < batches) {
    std::vector<std::pair<leader*, int32_t>> pending;
    for (auto& [id, l] : cv.leaders) {
      wire::produce_request req;
      req.acks = -1;
      req.timeout_ms = 30000;
      req.topics.push_back({opt.topic, {}});
      for (auto p : l.partitions)
        if (sent < batches) {
          req.topics[0].partitions.push_back({p, batch});
          ++sent;
        }
      if (req.topics[0].partitions.empty())
        continue;
      int16_t v = 7;
      auto body = kc::encode_body(req, v, wire::encode_produce_request);
      pending.emplace_back(&l, l.conn->send(wire::api_key::produce, v, body));
    }
    for (auto& [l, cid] : pending) {
      auto res = kc::decode_body(l->conn->receive(cid, wire::api_key::produce,
                                                  7),
                                 7, wire::decode_produce_response);
      for (auto& t : res.responses)
        for (auto& p : t.partitions)
          if (p.error != error_code::none)
            throw kc::client_error("produce: " + to_string(p.error));
    }
  }
}

struct result {
  double seconds = 0;
  int64_t records = 0;
  int64_t bytes = 0; // records/message-set bytes received
  int64_t fetches = 0;
};

result consume(const options& opt, cluster_view& cv, int16_t version) {
  std::map<int32_t, int64_t> next, hw;
  for (auto& [id, l] : cv.leaders)
    for (auto p : l.partitions) {
      next[p] = 0;
      hw[p] = -1;
    }
  auto done = [&](int32_t p) { return hw[p] >= 0 && next[p] >= hw[p]; };
  result out;
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    std::vector<std::pair<leader*, int32_t>> pending;
    for (auto& [id, l] : cv.leaders) {
      wire::fetch_request req;
      req.max_wait_ms = 0;
      req.min_bytes = 1;
      req.max_bytes = 0x7fffffff;
      req.topics.push_back({opt.topic, {}, uuid{}});
      for (auto p : l.partitions)
        if (!done(p)) {
          wire::fetch_partition fp;
          fp.partition = p;
          fp.fetch_offset = next[p];
          fp.partition_max_bytes = opt.partition_max_bytes;
          req.topics[0].partitions.push_back(fp);
        }
      if (req.topics[0].partitions.empty())
        continue;
      auto body = kc::encode_body(req, version, wire::encode_fetch_request);
      pending.emplace_back(&l,
                           l.conn->send(wire::api_key::fetch, version, body));
    }
    if (pending.empty())
      break;
    for (auto& [l, cid] : pending) {
      auto res = kc::decode_body(l->conn->receive(cid, wire::api_key::fetch,
                                                  version),
                                 version, wire::decode_fetch_response);
      ++out.fetches;
      for (auto& t : res.responses)
        for (auto& p : t.partitions) {
          if (p.error != error_code::none)
            throw kc::client_error("fetch v" + std::to_string(version) + ": "
                                   + to_string(p.error));
          hw[p.partition_index] = p.high_watermark;
          out.bytes += static_cast<int64_t>(p.records.size());
          auto w = walk(p.records);
          if (w.next_offset > next[p.partition_index]) {
            out.records += w.records;
            next[p.partition_index] = w.next_offset;
          } else if (next[p.partition_index] < p.high_watermark) {
            throw kc::client_error("fetch v" + std::to_string(version)
                                   + ": no progress on partition "
                                   + std::to_string(p.partition_index));
          }
        }
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now()
                                              - start)
                  .count();
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char* format_of(int16_t v) {
  return v <= 1 ? "magic 0 (converted)"
                : v <= 3 ? "magic 1 (converted)" : "RecordBatch v2 (stored)";
}

void usage() {
  std::fprintf(stderr,
               "old_fetch_bench --bootstrap-server HOST:PORT --topic T "
               "[--records N] [--record-bytes B] [--batch-records R] "
               "[--partition-max-bytes M] [--runs K] [--versions 0,1,3,4,12]\n");
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--bootstrap-server")
      opt.bootstrap = val();
    else if (a == "--topic")
      opt.topic = val();
    else if (a == "--records")
      opt.records = std::atoll(val().c_str());
    else if (a == "--record-bytes")
      opt.record_bytes = std::atoi(val().c_str());
    else if (a == "--batch-records")
      opt.batch_records = std::atoi(val().c_str());
    else if (a == "--partition-max-bytes")
      opt.partition_max_bytes = std::atoi(val().c_str());
    else if (a == "--runs")
      opt.runs = std::atoi(val().c_str());
    else if (a == "--versions") {
      opt.versions.clear();
      std::string s = val();
      for (size_t pos = 0; pos <= s.size();) {
        auto comma = s.find(',', pos);
        if (comma == std::string::npos)
          comma = s.size();
        opt.versions.push_back(
          static_cast<int16_t>(std::atoi(s.substr(pos, comma - pos).c_str())));
        pos = comma + 1;
      }
    } else {
      usage();
      return 2;
    }
  }
  try {
    kc::client_config cfg;
    cfg.client_id = "old-fetch-bench";
    cfg.bootstrap = {opt.bootstrap};
    auto cv = connect_leaders(opt, cfg);
    std::fprintf(stderr, "producing %lld records of %d B to %d partitions\n",
                 static_cast<long long>(opt.records), opt.record_bytes,
                 cv.partitions);
    produce(opt, cv);
    // One warm-up read per version (page cache, first conversions).
    for (auto v : opt.versions)
      consume(opt, cv, v);
    std::map<int16_t, std::vector<double>> rps, mbps;
    std::map<int16_t, result> last;
    for (int run = 0; run < opt.runs; ++run)
      for (auto v : opt.versions) {
        auto r = consume(opt, cv, v);
        rps[v].push_back(r.records / r.seconds);
        mbps[v].push_back(r.bytes / r.seconds / 1e6);
        last[v] = r;
        std::fprintf(stderr, "run %d Fetch v%d: %lld records, %lld B, %lld "
                     "fetches, %.3f s\n",
                     run + 1, v, static_cast<long long>(r.records),
                     static_cast<long long>(r.bytes),
                     static_cast<long long>(r.fetches), r.seconds);
      }
    // The ratio of each run to v12's in the same round, then the median:
    // the rounds' drift (other work on the machine) cancels.
    int16_t base_v = rps.count(12) ? int16_t{12} : rps.rbegin()->first;
    std::printf("| consumer | Fetch version | records/s | MB/s | ratio to "
                "v%d (median of per-round ratios) |\n|---|---|---:|---:|---:|\n",
                base_v);
    for (auto v : opt.versions) {
      std::vector<double> ratios;
      for (size_t i = 0; i < rps[v].size(); ++i)
        ratios.push_back(rps[v][i] / rps[base_v][i]);
      std::printf("| %s | v%d | %.0f | %.1f | %.2f |\n", format_of(v), v,
                  median(rps[v]), median(mbps[v]), median(ratios));
    }
    std::printf("\n%lld records of %d B (batches of %d) over %d partitions; "
                "partition max bytes %d; medians of %d rounds (each round reads everything once per version, the versions in turn); MB/s counts the "
                "message-set / batch bytes received (magic 0/1 carry more "
                "bytes per record).\n",
                static_cast<long long>(opt.records), opt.record_bytes,
                opt.batch_records, cv.partitions, opt.partition_max_bytes,
                opt.runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "old_fetch_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
