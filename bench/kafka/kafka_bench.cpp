// kafka_bench: librdkafka workloads against a Kafka bootstrap address or
// librdkafka's own in-process mock cluster (--mock).
//
//   1. produce: acks=all to a replication-factor-3 topic for N seconds;
//      msgs/s, MB/s and delivery latency percentiles (enqueue to delivery
//      report, so client-side queueing is included, as in Kafka's
//      producer-perf-test).
//   2. join: K consumers, each its own rd_kafka_t on its own thread,
//      subscribe to one topic; the time from the first subscribe until every
//      partition is owned by exactly one consumer and every consumer has an
//      assignment, as seen by the rebalance callbacks.
//   3. leave: one consumer calls rd_kafka_consumer_close; the time until the
//      survivors have all been assigned again and cover every partition once.
//
// Results are printed as `RESULT key value` lines for scripts/bench_kafka.sh.

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
using time_point = clock_type::time_point;

double seconds_between(time_point from, time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// -- options ------------------------------------------------------------------

struct options {
  std::string bootstrap;
  bool mock = false;
  int mock_brokers = 3;
  int partitions = 100;
  int produce_partitions = 6;
  int replication_factor = 3;
  double produce_seconds = 10;
  int message_size = 100;
  int max_queued = 20000;
  std::vector<int> consumer_counts{10, 50, 100};
  int session_timeout_ms = 6000;
  int heartbeat_interval_ms = 500;
  double phase_timeout_s = 60;
  std::string debug;
  bool skip_produce = false;
  bool skip_groups = false;
};

void usage() {
  std::fprintf(
    stderr,
    "usage: kafka_bench (--bootstrap host:port | --mock) [options]\n"
    "  --mock-brokers N          brokers of the mock cluster (3)\n"
    "  --partitions N            partitions of the group topic (100)\n"
    "  --produce-partitions N    partitions of the produce topic (6)\n"
    "  --replication-factor N    replication factor of both topics (3)\n"
    "  --produce-seconds S       length of the produce run (10)\n"
    "  --message-size B          value size in bytes (100)\n"
    "  --max-queued N            queue.buffering.max.messages (20000)\n"
    "  --consumers K,K,...       group sizes (10,50,100)\n"
    "  --session-timeout-ms MS   (6000)\n"
    "  --heartbeat-interval-ms MS (500)\n"
    "  --phase-timeout-s S       give up on a group phase after S (60)\n"
    "  --debug CONTEXTS          librdkafka debug contexts, e.g. "
    "cgrp,protocol\n"
    "  --no-produce | --no-groups\n");
}

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos < text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string::npos)
      comma = text.size();
    out.push_back(std::atoi(text.substr(pos, comma - pos).c_str()));
    pos = comma + 1;
  }
  return out;
}

bool parse_options(int argc, char** argv, options& opts) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--bootstrap")
      opts.bootstrap = value();
    else if (arg == "--mock")
      opts.mock = true;
    else if (arg == "--mock-brokers")
      opts.mock_brokers = std::stoi(value());
    else if (arg == "--partitions")
      opts.partitions = std::stoi(value());
    else if (arg == "--produce-partitions")
      opts.produce_partitions = std::stoi(value());
    else if (arg == "--replication-factor")
      opts.replication_factor = std::stoi(value());
    else if (arg == "--produce-seconds")
      opts.produce_seconds = std::stod(value());
    else if (arg == "--message-size")
      opts.message_size = std::stoi(value());
    else if (arg == "--max-queued")
      opts.max_queued = std::stoi(value());
    else if (arg == "--consumers")
      opts.consumer_counts = parse_int_list(value());
    else if (arg == "--session-timeout-ms")
      opts.session_timeout_ms = std::stoi(value());
    else if (arg == "--heartbeat-interval-ms")
      opts.heartbeat_interval_ms = std::stoi(value());
    else if (arg == "--phase-timeout-s")
      opts.phase_timeout_s = std::stod(value());
    else if (arg == "--debug")
      opts.debug = value();
    else if (arg == "--no-produce")
      opts.skip_produce = true;
    else if (arg == "--no-groups")
      opts.skip_groups = true;
    else {
      usage();
      return false;
    }
  }
  if (opts.mock == !opts.bootstrap.empty()) {
    usage();
    return false;
  }
  return true;
}

// -- librdkafka helpers -------------------------------------------------------

struct conf_deleter {
  void operator()(rd_kafka_conf_t* conf) const {
    rd_kafka_conf_destroy(conf);
  }
};
using conf_ptr = std::unique_ptr<rd_kafka_conf_t, conf_deleter>;

void set(rd_kafka_conf_t* conf, const char* name, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, name, value.c_str(), err, sizeof(err))
      != RD_KAFKA_CONF_OK) {
    std::fprintf(stderr, "config %s=%s: %s\n", name, value.c_str(), err);
    std::exit(2);
  }
}

void log_error(rd_kafka_t* rk, int err, const char* reason, void*) {
  std::fprintf(stderr, "%% %s error: %s: %s\n", rd_kafka_name(rk),
               rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)),
               reason);
}

conf_ptr base_conf(const options& opts, const std::string& bootstrap) {
  conf_ptr conf{rd_kafka_conf_new()};
  set(conf.get(), "bootstrap.servers", bootstrap);
  set(conf.get(), "log.connection.close", "false");
  if (!opts.debug.empty())
    set(conf.get(), "debug", opts.debug);
  rd_kafka_conf_set_error_cb(conf.get(), log_error);
  return conf;
}

rd_kafka_t* make_client(rd_kafka_type_t type, conf_ptr conf) {
  char err[512];
  auto* rk = rd_kafka_new(type, conf.get(), err, sizeof(err));
  if (rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    std::exit(1);
  }
  conf.release(); // rd_kafka_new owns it now
  return rk;
}

// Creates the topic through the Admin API (TOPIC_ALREADY_EXISTS is fine),
// then waits until the metadata shows every partition with a leader.
bool create_topic(rd_kafka_t* rk, const std::string& topic, int partitions,
                  int replication_factor) {
  char err[512];
  auto* new_topic = rd_kafka_NewTopic_new(topic.c_str(), partitions,
                                          replication_factor, err, sizeof(err));
  if (new_topic == nullptr) {
    std::fprintf(stderr, "NewTopic %s: %s\n", topic.c_str(), err);
    return false;
  }
  auto* queue = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &new_topic, 1, nullptr, queue);
  auto* event = rd_kafka_queue_poll(queue, 30000);
  bool ok = false;
  if (event == nullptr) {
    std::fprintf(stderr, "CreateTopics %s: no answer in 30 s\n", topic.c_str());
  } else if (rd_kafka_event_error(event)) {
    std::fprintf(stderr, "CreateTopics %s: %s\n", topic.c_str(),
                 rd_kafka_event_error_string(event));
  } else {
    auto* result = rd_kafka_event_CreateTopics_result(event);
    size_t count = 0;
    auto** topics = rd_kafka_CreateTopics_result_topics(result, &count);
    ok = true;
    for (size_t i = 0; i < count; ++i) {
      auto code = rd_kafka_topic_result_error(topics[i]);
      if (code != RD_KAFKA_RESP_ERR_NO_ERROR
          && code != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        std::fprintf(stderr, "CreateTopics %s: %s: %s\n", topic.c_str(),
                     rd_kafka_err2name(code),
                     rd_kafka_topic_result_error_string(topics[i]));
        ok = false;
      }
    }
  }
  if (event != nullptr)
    rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  rd_kafka_NewTopic_destroy(new_topic);
  return ok;
}

bool await_topic(rd_kafka_t* rk, const std::string& topic, int partitions) {
  auto* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  auto deadline = clock_type::now() + std::chrono::seconds(30);
  bool ready = false;
  while (!ready && clock_type::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, rkt, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR
        && md->topic_cnt == 1 && md->topics[0].err == 0
        && md->topics[0].partition_cnt == partitions) {
      ready = true;
      for (int i = 0; i < md->topics[0].partition_cnt; ++i)
        if (md->topics[0].partitions[i].leader < 0)
          ready = false;
    }
    if (md != nullptr)
      rd_kafka_metadata_destroy(md);
    if (!ready)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  rd_kafka_topic_destroy(rkt);
  if (!ready)
    std::fprintf(stderr, "topic %s: no %d partitions with leaders in 30 s\n",
                 topic.c_str(), partitions);
  return ready;
}

// -- the target: an external cluster or the in-process mock ------------------

struct target {
  rd_kafka_t* mock_holder = nullptr; // owns the mock cluster
  rd_kafka_mock_cluster_t* mock = nullptr;
  std::string bootstrap;

  bool setup(const options& opts) {
    if (!opts.mock) {
      bootstrap = opts.bootstrap;
      return true;
    }
    conf_ptr conf{rd_kafka_conf_new()};
    set(conf.get(), "log.connection.close", "false");
    set(conf.get(), "log_level", "4"); // no notice about bootstrap.servers
    if (!opts.debug.empty())
      set(conf.get(), "debug", opts.debug); // "mock" shows the group's FSM
    mock_holder = make_client(RD_KAFKA_PRODUCER, std::move(conf));
    mock = rd_kafka_mock_cluster_new(mock_holder, opts.mock_brokers);
    if (mock == nullptr) {
      std::fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
      return false;
    }
    bootstrap = rd_kafka_mock_cluster_bootstraps(mock);
    return true;
  }

  bool topic(rd_kafka_t* rk, const std::string& name, int partitions,
             int replication_factor) {
    if (mock != nullptr) {
      auto err = rd_kafka_mock_topic_create(mock, name.c_str(), partitions,
                                            replication_factor);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::fprintf(stderr, "mock topic %s: %s\n", name.c_str(),
                     rd_kafka_err2name(err));
        return false;
      }
    } else if (!create_topic(rk, name, partitions, replication_factor)) {
      return false;
    }
    return await_topic(rk, name, partitions);
  }

  ~target() {
    if (mock != nullptr)
      rd_kafka_mock_cluster_destroy(mock);
    if (mock_holder != nullptr)
      rd_kafka_destroy(mock_holder);
  }
};

// -- produce ------------------------------------------------------------------

struct produce_stats {
  std::vector<int64_t> latencies_us;
  int64_t failed = 0;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
  time_point last_delivery;
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           clock_type::now().time_since_epoch())
    .count();
}

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* stats = static_cast<produce_stats*>(opaque);
  auto now = clock_type::now();
  if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (stats->failed++ == 0)
      stats->first_error = msg->err;
    return;
  }
  auto sent = reinterpret_cast<intptr_t>(msg->_private);
  stats->latencies_us.push_back((now_ns() - sent) / 1000);
  stats->last_delivery = now;
}

double percentile(std::vector<int64_t>& sorted, double p) {
  if (sorted.empty())
    return 0;
  auto index = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1));
  return static_cast<double>(sorted[index]) / 1000.0; // ms
}

bool run_produce(const options& opts, target& tgt, const std::string& topic) {
  produce_stats stats;
  auto conf = base_conf(opts, tgt.bootstrap);
  set(conf.get(), "acks", "all");
  set(conf.get(), "queue.buffering.max.messages",
      std::to_string(opts.max_queued));
  rd_kafka_conf_set_dr_msg_cb(conf.get(), on_delivery);
  rd_kafka_conf_set_opaque(conf.get(), &stats);
  auto* rk = make_client(RD_KAFKA_PRODUCER, std::move(conf));
  if (!tgt.topic(rk, topic, opts.produce_partitions, opts.replication_factor)) {
    rd_kafka_destroy(rk);
    return false;
  }
  std::vector<char> payload(static_cast<size_t>(opts.message_size), 'x');
  stats.latencies_us.reserve(1 << 20);
  int64_t produced = 0;
  auto start = clock_type::now();
  auto end = start
             + std::chrono::duration_cast<clock_type::duration>(
               std::chrono::duration<double>(opts.produce_seconds));
  while (clock_type::now() < end) {
    auto err =
      rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()),
                        RD_KAFKA_V_VALUE(payload.data(), payload.size()),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                        RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(
                          static_cast<intptr_t>(now_ns()))),
                        RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(rk, 1);
      continue;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "produce: %s\n", rd_kafka_err2name(err));
      break;
    }
    if (++produced % 1000 == 0)
      rd_kafka_poll(rk, 0);
  }
  auto flush_err = rd_kafka_flush(rk, 60000);
  auto unflushed = rd_kafka_outq_len(rk);
  rd_kafka_destroy(rk);

  auto delivered = static_cast<int64_t>(stats.latencies_us.size());
  auto elapsed = delivered > 0 ? seconds_between(start, stats.last_delivery)
                               : opts.produce_seconds;
  auto rate = static_cast<double>(delivered) / elapsed;
  std::sort(stats.latencies_us.begin(), stats.latencies_us.end());
  std::printf(
    "produce: %lld produced, %lld delivered, %lld failed (%s), "
    "%d unflushed (%s) in %.2f s\n",
    static_cast<long long>(produced), static_cast<long long>(delivered),
    static_cast<long long>(stats.failed), rd_kafka_err2name(stats.first_error),
    unflushed, rd_kafka_err2name(flush_err), elapsed);
  std::printf("RESULT produce_msgs_per_s %.0f\n", rate);
  std::printf("RESULT produce_mb_per_s %.2f\n", rate * opts.message_size / 1e6);
  std::printf("RESULT produce_p50_ms %.2f\n",
              percentile(stats.latencies_us, 0.50));
  std::printf("RESULT produce_p99_ms %.2f\n",
              percentile(stats.latencies_us, 0.99));
  std::printf("RESULT produce_failed %lld\n",
              static_cast<long long>(stats.failed + unflushed));
  std::fflush(stdout);
  return stats.failed == 0 && unflushed == 0 && delivered > 0;
}

// -- consumer groups ----------------------------------------------------------

// What the rebalance callbacks have seen, shared by all consumers of a group.
struct group_view {
  std::mutex mtx;
  std::condition_variable changed;
  std::vector<int> owners;                // per partition: how many hold it
  std::vector<std::vector<int32_t>> held; // per consumer
  std::vector<time_point> assigned_at;    // per consumer: last assign
  std::vector<bool> gone;                 // closed consumers
  time_point phase_start;
  bool complete = false;
  time_point complete_at;
  int assigns = 0;
  int revokes = 0;

  group_view(int consumers, int partitions)
    : owners(static_cast<size_t>(partitions), 0),
      held(static_cast<size_t>(consumers)),
      assigned_at(static_cast<size_t>(consumers)),
      gone(static_cast<size_t>(consumers), false) {
    // nop
  }

  // Every partition held exactly once; every live consumer assigned since
  // the phase began and holding something (there are no more consumers than
  // partitions).
  bool check_complete() const {
    for (auto count : owners)
      if (count != 1)
        return false;
    for (size_t i = 0; i < held.size(); ++i) {
      if (gone[i])
        continue;
      if (assigned_at[i] < phase_start)
        return false;
      if (held[i].empty() && held.size() <= owners.size())
        return false;
    }
    return true;
  }

  void update_complete() {
    if (!complete && check_complete()) {
      complete = true;
      complete_at = clock_type::now();
      changed.notify_all();
    }
  }
};

struct consumer {
  int index = 0;
  group_view* view = nullptr;
  rd_kafka_t* rk = nullptr;
  std::thread thread;
  std::atomic<bool> close_requested{false};
  time_point close_started;
  time_point close_finished;
};

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                  rd_kafka_topic_partition_list_t* parts, void* opaque) {
  auto* self = static_cast<consumer*>(opaque);
  auto& view = *self->view;
  auto i = static_cast<size_t>(self->index);
  {
    std::lock_guard<std::mutex> guard{view.mtx};
    for (auto p : view.held[i])
      --view.owners[static_cast<size_t>(p)];
    view.held[i].clear();
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      for (int k = 0; k < parts->cnt; ++k) {
        auto p = parts->elems[k].partition;
        if (p >= 0 && static_cast<size_t>(p) < view.owners.size()) {
          ++view.owners[static_cast<size_t>(p)];
          view.held[i].push_back(p);
        }
      }
      view.assigned_at[i] = clock_type::now();
      ++view.assigns;
    } else {
      ++view.revokes;
    }
    view.update_complete();
  }
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
    rd_kafka_assign(rk, parts);
  else
    rd_kafka_assign(rk, nullptr);
}

void consumer_loop(consumer* self, const std::atomic<bool>* stop) {
  while (!stop->load() && !self->close_requested.load()) {
    if (auto* msg = rd_kafka_consumer_poll(self->rk, 100))
      rd_kafka_message_destroy(msg);
  }
  self->close_started = clock_type::now();
  rd_kafka_consumer_close(self->rk);
  self->close_finished = clock_type::now();
  std::lock_guard<std::mutex> guard{self->view->mtx};
  self->view->gone[static_cast<size_t>(self->index)] = true;
  self->view->update_complete();
}

// Waits until the view is complete; returns seconds since the phase began,
// or a negative number on timeout (and prints what is missing).
double await_complete(group_view& view, const options& opts,
                      const char* phase) {
  std::unique_lock<std::mutex> guard{view.mtx};
  auto deadline = view.phase_start
                  + std::chrono::duration_cast<clock_type::duration>(
                    std::chrono::duration<double>(opts.phase_timeout_s));
  view.changed.wait_until(guard, deadline, [&] { return view.complete; });
  if (view.complete)
    return seconds_between(view.phase_start, view.complete_at);
  int uncovered = 0;
  int doubled = 0;
  for (auto count : view.owners) {
    uncovered += count == 0 ? 1 : 0;
    doubled += count > 1 ? 1 : 0;
  }
  int waiting = 0;
  for (size_t i = 0; i < view.held.size(); ++i)
    if (!view.gone[i] && view.assigned_at[i] < view.phase_start)
      ++waiting;
  std::fprintf(stderr,
               "%s: timeout after %.0f s: %d partitions unowned, %d owned "
               "twice or more, %d consumers not assigned in this phase "
               "(%d assigns, %d revokes seen)\n",
               phase, opts.phase_timeout_s, uncovered, doubled, waiting,
               view.assigns, view.revokes);
  return -1;
}

bool run_group(const options& opts, target& tgt, const std::string& topic,
               int count) {
  group_view view{count, opts.partitions};
  std::vector<std::unique_ptr<consumer>> consumers;
  std::atomic<bool> stop{false};
  auto group_id = "kafka-bench-" + std::to_string(count) + "-"
                  + std::to_string(getpid()) + "-"
                  + std::to_string(now_ns() / 1000000);
  for (int i = 0; i < count; ++i) {
    auto c = std::make_unique<consumer>();
    c->index = i;
    c->view = &view;
    auto conf = base_conf(opts, tgt.bootstrap);
    set(conf.get(), "group.id", group_id);
    set(conf.get(), "client.id", "kb-" + std::to_string(i));
    set(conf.get(), "session.timeout.ms",
        std::to_string(opts.session_timeout_ms));
    set(conf.get(), "heartbeat.interval.ms",
        std::to_string(opts.heartbeat_interval_ms));
    set(conf.get(), "enable.auto.commit", "false");
    set(conf.get(), "auto.offset.reset", "latest");
    rd_kafka_conf_set_rebalance_cb(conf.get(), on_rebalance);
    rd_kafka_conf_set_opaque(conf.get(), c.get());
    c->rk = make_client(RD_KAFKA_CONSUMER, std::move(conf));
    rd_kafka_poll_set_consumer(c->rk);
    consumers.push_back(std::move(c));
  }
  for (auto& c : consumers)
    c->thread = std::thread{consumer_loop, c.get(), &stop};

  auto* subscription = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(subscription, topic.c_str(),
                                    RD_KAFKA_PARTITION_UA);
  {
    std::lock_guard<std::mutex> guard{view.mtx};
    view.phase_start = clock_type::now();
  }
  for (auto& c : consumers) {
    auto err = rd_kafka_subscribe(c->rk, subscription);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
      std::fprintf(stderr, "subscribe: %s\n", rd_kafka_err2name(err));
  }
  rd_kafka_topic_partition_list_destroy(subscription);

  auto join_s = await_complete(view, opts, "join");
  std::printf("group of %d: complete assignment %s %.3f s (%d assigns, "
              "%d revokes)\n",
              count, join_s < 0 ? "NOT reached, gave up after" : "after",
              join_s < 0 ? opts.phase_timeout_s : join_s, view.assigns,
              view.revokes);
  std::printf("RESULT join_%d_s %s\n", count,
              join_s < 0 ? "timeout" : std::to_string(join_s).c_str());
  std::fflush(stdout);

  double leave_s = -1;
  if (join_s >= 0 && count > 1) {
    auto& victim = *consumers.back();
    {
      std::lock_guard<std::mutex> guard{view.mtx};
      view.complete = false;
      view.phase_start = clock_type::now();
      view.assigns = 0;
      view.revokes = 0;
    }
    victim.close_requested = true;
    leave_s = await_complete(view, opts, "leave");
    victim.thread.join();
    std::printf("group of %d: after one close, complete again %s %.3f s "
                "(close itself took %.3f s; %d assigns, %d revokes)\n",
                count, leave_s < 0 ? "NOT reached, gave up after" : "after",
                leave_s < 0 ? opts.phase_timeout_s : leave_s,
                seconds_between(victim.close_started, victim.close_finished),
                view.assigns, view.revokes);
    std::printf("RESULT leave_%d_s %s\n", count,
                leave_s < 0 ? "timeout" : std::to_string(leave_s).c_str());
    std::fflush(stdout);
  }

  stop = true;
  for (auto& c : consumers)
    if (c->thread.joinable())
      c->thread.join();
  for (auto& c : consumers)
    rd_kafka_destroy(c->rk);
  return join_s >= 0 && (count <= 1 || leave_s >= 0);
}

} // namespace

int main(int argc, char** argv) {
  options opts;
  if (!parse_options(argc, argv, opts))
    return 2;
  target tgt;
  if (!tgt.setup(opts))
    return 1;
  std::printf("target: %s (%s)\n",
              opts.mock ? "librdkafka mock cluster" : "external cluster",
              tgt.bootstrap.c_str());
  std::fflush(stdout);
  auto suffix = std::to_string(getpid()) + "-"
                + std::to_string(now_ns() / 1000000 % 100000000);
  bool ok = true;
  if (!opts.skip_produce)
    ok = run_produce(opts, tgt, "kb-produce-" + suffix) && ok;
  if (!opts.skip_groups) {
    auto topic = "kb-group-" + suffix;
    // An admin-capable handle to create the group topic before anyone joins.
    auto* admin =
      make_client(RD_KAFKA_PRODUCER, base_conf(opts, tgt.bootstrap));
    bool ready =
      tgt.topic(admin, topic, opts.partitions, opts.replication_factor);
    rd_kafka_destroy(admin);
    if (!ready)
      return 1;
    for (auto count : opts.consumer_counts)
      ok = run_group(opts, tgt, topic, count) && ok;
  }
  return ok ? 0 : 1;
}
