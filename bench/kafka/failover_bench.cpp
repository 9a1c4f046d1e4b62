// failover_bench: what librdkafka clients see while troupe's brokers stop and
// start in turn (Kafka's controller handling broker failure).
//
// A producer sends at a steady rate with acks=all; K consumers in one group
// consume the topic. After a quiet baseline, each broker in turn is stopped
// through troupe's admin route (`POST /v1/brokers/{id}/stop`), held down,
// started again, and given time to catch up. For each window the program
// reports the longest gap between two delivery reports (acknowledgements)
// and between two consumed messages while the broker is down, and the
// rebalance callbacks and delivery failures until it has recovered; the
// first row is the same measurement with no broker stopped.
//
// Usage: failover_bench BROKERS HTTP_PORT TOPIC [RATE] [STOP_S] [RECOVER_S]
//                       [CONSUMERS]
// Prints a markdown table; `RESULT key value` lines for scripts.

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "examples/kafka_clients/admin_http.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point origin, clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(t - origin).count();
}

/// Times at which something happened (acks, consumed messages, rebalances).
struct timeline {
  std::mutex mtx;
  std::vector<clock_type::time_point> at;

  void add() {
    auto now = clock_type::now();
    std::lock_guard<std::mutex> guard{mtx};
    at.push_back(now);
  }

  /// The longest gap between two events in [from, to), counting the window's
  /// edges as events (no event at all: the whole window).
  double longest_gap_ms(clock_type::time_point from,
                        clock_type::time_point to) {
    std::lock_guard<std::mutex> guard{mtx};
    auto prev = from;
    double worst = 0;
    for (auto t : at) {
      if (t < from)
        continue;
      if (t >= to)
        break;
      worst = std::max(worst, ms_since(prev, t));
      prev = t;
    }
    return std::max(worst, ms_since(prev, to));
  }

  size_t count(clock_type::time_point from, clock_type::time_point to) {
    std::lock_guard<std::mutex> guard{mtx};
    return static_cast<size_t>(std::count_if(
      at.begin(), at.end(), [&](auto t) { return t >= from && t < to; }));
  }
};

timeline acks;
timeline failures;
timeline consumed;
timeline rebalances;

bool set(rd_kafka_conf_t* conf, const char* key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof(err))
      != RD_KAFKA_CONF_OK) {
    std::fprintf(stderr, "config %s=%s: %s\n", key, value.c_str(), err);
    return false;
  }
  return true;
}

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  (msg->err ? failures : acks).add();
}

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                  rd_kafka_topic_partition_list_t* parts, void*) {
  rebalances.add();
  rd_kafka_assign(rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? parts
                                                                  : nullptr);
}

rd_kafka_t* make_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  auto* rk = rd_kafka_new(type, conf, err, sizeof(err));
  if (!rk) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    rd_kafka_conf_destroy(conf);
  }
  return rk;
}

/// The broker coordinating `group`, -1 if unknown.
int coordinator_of(rd_kafka_t* rk, const std::string& group) {
  const rd_kafka_group_list* list = nullptr;
  if (rd_kafka_list_groups(rk, group.c_str(), &list, 5000)
      != RD_KAFKA_RESP_ERR_NO_ERROR)
    return -1;
  int id = list->group_cnt == 1 ? list->groups[0].broker.id : -1;
  rd_kafka_group_list_destroy(list);
  return id;
}

struct window {
  std::string what;
  clock_type::time_point from;
  clock_type::time_point to;
  /// The end of the recovery after the broker started again: rebalances a
  /// stop causes (an expired session) may come that late.
  clock_type::time_point settled;
};

} // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s BROKERS HTTP_PORT TOPIC [RATE] [STOP_S] "
                 "[RECOVER_S] [CONSUMERS]\n",
                 argv[0]);
    return 2;
  }
  std::string brokers = argv[1];
  int http_port = std::atoi(argv[2]);
  std::string topic = argv[3];
  int rate = argc > 4 ? std::atoi(argv[4]) : 2000;
  auto stop_for = std::chrono::milliseconds(
    static_cast<int64_t>((argc > 5 ? std::atof(argv[5]) : 4.0) * 1000));
  auto recover_for = std::chrono::milliseconds(
    static_cast<int64_t>((argc > 6 ? std::atof(argv[6]) : 8.0) * 1000));
  int k = argc > 7 ? std::atoi(argv[7]) : 3;
  std::string group = "failover-bench-" + topic;

  auto* pconf = rd_kafka_conf_new();
  if (!set(pconf, "bootstrap.servers", brokers) || !set(pconf, "acks", "all")
      || !set(pconf, "linger.ms", "1")
      || !set(pconf, "message.timeout.ms", "30000"))
    return 1;
  rd_kafka_conf_set_dr_msg_cb(pconf, on_delivery);
  auto* producer = make_client(RD_KAFKA_PRODUCER, pconf);
  if (!producer)
    return 1;

  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < k; ++i) {
    auto* conf = rd_kafka_conf_new();
    if (!set(conf, "bootstrap.servers", brokers)
        || !set(conf, "group.id", group)
        || !set(conf, "auto.offset.reset", "latest")
        || !set(conf, "session.timeout.ms", "6000")
        || !set(conf, "heartbeat.interval.ms", "500")
        || !set(conf, "fetch.wait.max.ms", "50"))
      return 1;
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    auto* rk = make_client(RD_KAFKA_CONSUMER, conf);
    if (!rk)
      return 1;
    rd_kafka_poll_set_consumer(rk);
    auto* topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, topic.c_str(),
                                      RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(rk, topics);
    rd_kafka_topic_partition_list_destroy(topics);
    threads.emplace_back([rk, &stop] {
      while (!stop) {
        if (auto* msg = rd_kafka_consumer_poll(rk, 50)) {
          if (!msg->err)
            consumed.add();
          rd_kafka_message_destroy(msg);
        }
      }
      rd_kafka_consumer_close(rk);
      rd_kafka_destroy(rk);
    });
  }
  // The producer paces itself to `rate` messages per second.
  threads.emplace_back([producer, &stop, &topic, rate] {
    auto next = clock_type::now();
    auto step = std::chrono::nanoseconds(1000000000LL / std::max(1, rate));
    long i = 0;
    std::string payload(100, 'x');
    while (!stop) {
      next += step;
      auto key = std::to_string(i++);
      rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                        RD_KAFKA_V_KEY(key.data(), key.size()),
                        RD_KAFKA_V_VALUE(payload.data(), payload.size()),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                        RD_KAFKA_V_END);
      rd_kafka_poll(producer, 0);
      std::this_thread::sleep_until(next);
    }
    rd_kafka_flush(producer, 10000);
  });

  // Warm up: the group forms and everyone is in sync.
  std::this_thread::sleep_for(8s);
  std::vector<window> windows;
  auto t0 = clock_type::now();
  std::this_thread::sleep_for(stop_for);
  auto t1 = clock_type::now();
  windows.push_back({"no broker stopped (baseline)", t0, t1, t1});
  for (int id = 0; id < 3; ++id) {
    auto coordinator = coordinator_of(producer, group);
    auto what = "broker " + std::to_string(id) + " stopped"
                + (id == coordinator ? " (the group's coordinator)" : "");
    if (!troupe::clients::set_broker(http_port, id, false)) {
      std::fprintf(stderr, "cannot stop broker %d\n", id);
      break;
    }
    auto from = clock_type::now();
    std::this_thread::sleep_for(stop_for);
    auto to = clock_type::now();
    troupe::clients::set_broker(http_port, id, true);
    std::this_thread::sleep_for(recover_for);
    windows.push_back({what, from, to, clock_type::now()});
  }
  stop = true;
  for (auto& t : threads)
    t.join();
  rd_kafka_destroy(producer);

  std::printf("| window | acks | longest gap between acks (ms) | delivery "
              "failures | consumed | longest consumption pause (ms) | "
              "rebalance callbacks |\n|---|---:|---:|---:|---:|---:|---:|\n");
  int i = 0;
  for (auto& w : windows) {
    auto gap = acks.longest_gap_ms(w.from, w.to);
    auto pause = consumed.longest_gap_ms(w.from, w.to);
    auto moved = rebalances.count(w.from, w.settled);
    std::printf("| %s | %zu | %.0f | %zu | %zu | %.0f | %zu |\n",
                w.what.c_str(), acks.count(w.from, w.to), gap,
                failures.count(w.from, w.settled), consumed.count(w.from, w.to),
                pause, moved);
    std::printf("RESULT window%d_ack_gap_ms %.0f\nRESULT window%d_pause_ms "
                "%.0f\nRESULT window%d_rebalances %zu\n",
                i, gap, i, pause, i, moved);
    ++i;
  }
  return 0;
}
