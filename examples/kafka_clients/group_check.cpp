// A librdkafka consumer group against any Kafka cluster (troupe, Kafka, or
// librdkafka's mock): K consumers, each its own rd_kafka_t on its own thread,
// subscribe to one topic with a rebalance callback; a producer with acks=all
// records every acknowledged message from its delivery reports.
//
// Checks, each printed as "ok:" or "FAIL:":
//  - no partition is ever assigned to two consumers at once (checked in
//    every rebalance callback);
//  - once the group settles after each membership change, the union of the
//    assignments covers every partition exactly once;
//  - after one consumer closes midway, every acknowledged message was
//    consumed by some consumer (at-least-once: duplicates are allowed after a
//    rebalance, a missing message is not).
//
// With --stop-coordinator HTTP_PORT (troupe only), the broker coordinating
// the group is stopped through troupe's admin route instead of a consumer
// closing, and the checks are Kafka's for a coordinator move: no rebalance
// callback fires, the group's generation stays the same, committed offsets
// survive, and consumption goes on.
//
// Usage: group_check BROKERS TOPIC [CONSUMERS] [MESSAGES] [STRATEGY]
//                    [--stop-coordinator HTTP_PORT]
// STRATEGY is partition.assignment.strategy: range (default), roundrobin or
// cooperative-sticky. Exit code 0 when every check passed, 1 otherwise.

#include <librdkafka/rdkafka.h>

#include "examples/kafka_clients/admin_http.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

// -- shared state ---------------------------------------------------------------

struct group_state {
  std::mutex mtx;
  /// Partitions each consumer currently owns, by consumer index.
  std::map<int, std::set<int32_t>> owned;
  /// Messages each consumer received, by payload index.
  std::map<int, std::vector<long>> received;
  /// Payload indexes the producer had acknowledged.
  std::set<long> acked;
  long delivery_failures = 0;
  int rebalances = 0;
  int violations = 0;
};

group_state state;
/// Failed checks; check() may run with state.mtx held, so not under it.
std::atomic<int> failures{0};

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  std::fflush(stdout);
  if (!ok)
    ++failures;
}

std::string describe(const std::set<int32_t>& parts) {
  std::string out = "[";
  for (auto p : parts) {
    if (out.size() > 1)
      out += ",";
    out += std::to_string(p);
  }
  return out + "]";
}

/// The owners as one line, e.g. "c0=[0,1] c1=[2]"; the caller holds the lock.
std::string owners_line() {
  std::string out;
  for (auto& [c, parts] : state.owned)
    out += "c" + std::to_string(c) + "=" + describe(parts) + " ";
  return out;
}

// -- a consumer -----------------------------------------------------------------

struct consumer {
  int index = 0;
  rd_kafka_t* rk = nullptr;
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  std::thread thread;
};

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                  rd_kafka_topic_partition_list_t* parts, void* opaque) {
  auto* self = static_cast<consumer*>(opaque);
  bool cooperative =
    std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
  std::set<int32_t> changed;
  for (int i = 0; i < parts->cnt; ++i)
    changed.insert(parts->elems[i].partition);
  {
    std::lock_guard<std::mutex> guard{state.mtx};
    ++state.rebalances;
    auto& mine = state.owned[self->index];
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      for (auto p : changed)
        for (auto& [other, theirs] : state.owned)
          if (other != self->index && theirs.count(p)) {
            std::printf("FAIL: partition %d assigned to c%d while c%d owns "
                        "it\n",
                        p, self->index, other);
            ++state.violations;
          }
      if (!cooperative)
        mine.clear();
      mine.insert(changed.begin(), changed.end());
    } else if (cooperative) {
      for (auto p : changed)
        mine.erase(p);
    } else {
      mine.clear();
    }
    std::printf("rebalance (%s) c%d %s %s -> %s\n",
                cooperative ? "cooperative" : "eager", self->index,
                err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS   ? "assigned"
                : err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS ? "revoked"
                                                              : "error",
                describe(changed).c_str(), owners_line().c_str());
    std::fflush(stdout);
  }
  if (cooperative) {
    rd_kafka_error_t* e = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
                            ? rd_kafka_incremental_assign(rk, parts)
                            : rd_kafka_incremental_unassign(rk, parts);
    if (e) {
      std::printf("c%d: incremental (un)assign failed: %s\n", self->index,
                  rd_kafka_error_string(e));
      rd_kafka_error_destroy(e);
    }
  } else {
    auto e = rd_kafka_assign(
      rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? parts : nullptr);
    if (e)
      std::printf("c%d: assign failed: %s\n", self->index, rd_kafka_err2str(e));
  }
}

bool set(rd_kafka_conf_t* conf, const char* key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof(err))
      != RD_KAFKA_CONF_OK) {
    std::printf("config %s=%s: %s\n", key, value.c_str(), err);
    return false;
  }
  return true;
}

bool start_consumer(consumer& c, const std::string& brokers,
                    const std::string& topic, const std::string& group,
                    const std::string& strategy) {
  auto* conf = rd_kafka_conf_new();
  bool ok = set(conf, "bootstrap.servers", brokers)
            && set(conf, "group.id", group)
            && set(conf, "client.id", "group-check-c" + std::to_string(c.index))
            && set(conf, "auto.offset.reset", "earliest")
            && set(conf, "session.timeout.ms", "6000")
            && set(conf, "heartbeat.interval.ms", "500")
            && set(conf, "partition.assignment.strategy", strategy)
            && set(conf, "auto.commit.interval.ms", "500");
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return false;
  }
  rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
  rd_kafka_conf_set_opaque(conf, &c);
  char err[512];
  c.rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (!c.rk) {
    std::printf("c%d: %s\n", c.index, err);
    rd_kafka_conf_destroy(conf);
    return false;
  }
  rd_kafka_poll_set_consumer(c.rk);
  auto* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(),
                                    RD_KAFKA_PARTITION_UA);
  auto e = rd_kafka_subscribe(c.rk, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  if (e) {
    std::printf("c%d: subscribe failed: %s\n", c.index, rd_kafka_err2str(e));
    return false;
  }
  c.thread = std::thread([&c] {
    while (!c.stop) {
      auto* msg = rd_kafka_consumer_poll(c.rk, 100);
      if (!msg)
        continue;
      if (msg->err) {
        std::printf("c%d: consume error: %s\n", c.index,
                    rd_kafka_message_errstr(msg));
      } else {
        std::string payload(static_cast<const char*>(msg->payload), msg->len);
        if (payload.rfind("m", 0) == 0) {
          std::lock_guard<std::mutex> guard{state.mtx};
          state.received[c.index].push_back(std::atol(payload.c_str() + 1));
        }
      }
      rd_kafka_message_destroy(msg);
    }
    // Revokes through the callback and commits what was consumed.
    auto e = rd_kafka_consumer_close(c.rk);
    if (e)
      std::printf("c%d: close failed: %s\n", c.index, rd_kafka_err2str(e));
    rd_kafka_destroy(c.rk);
    c.rk = nullptr;
    c.done = true;
  });
  return true;
}

// -- the producer ---------------------------------------------------------------

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  std::string payload(static_cast<const char*>(msg->payload), msg->len);
  std::lock_guard<std::mutex> guard{state.mtx};
  if (msg->err)
    ++state.delivery_failures;
  else
    state.acked.insert(std::atol(payload.c_str() + 1));
}

rd_kafka_t* make_producer(const std::string& brokers) {
  auto* conf = rd_kafka_conf_new();
  if (!set(conf, "bootstrap.servers", brokers) || !set(conf, "acks", "all")
      || !set(conf, "linger.ms", "5")
      || !set(conf, "client.id", "group-check-producer")) {
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  char err[512];
  auto* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (!rk) {
    std::printf("producer: %s\n", err);
    rd_kafka_conf_destroy(conf);
  }
  return rk;
}

/// Asks for the topic's metadata (which auto-creates it) until every
/// partition has a leader; returns the partition count, 0 on failure.
int await_topic(rd_kafka_t* rk, const std::string& topic) {
  auto* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  int count = 0;
  auto deadline = clock_type::now() + 30s;
  while (count == 0 && clock_type::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, rkt, &md, 5000)
        == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (md->topic_cnt == 1 && md->topics[0].err == 0
          && md->topics[0].partition_cnt > 0) {
        bool leaders = true;
        for (int i = 0; i < md->topics[0].partition_cnt; ++i)
          leaders = leaders && md->topics[0].partitions[i].leader >= 0;
        if (leaders)
          count = md->topics[0].partition_cnt;
      }
      rd_kafka_metadata_destroy(md);
    }
    if (count == 0)
      std::this_thread::sleep_for(200ms);
  }
  rd_kafka_topic_destroy(rkt);
  return count;
}

void produce(rd_kafka_t* rk, const std::string& topic, long from, long to) {
  for (long i = from; i < to; ++i) {
    auto payload = "m" + std::to_string(i);
    for (;;) {
      auto e = rd_kafka_producev(
        rk, RD_KAFKA_V_TOPIC(topic.c_str()),
        // A key spreads the messages over every partition (a null key would
        // stick to one partition per linger window).
        RD_KAFKA_V_KEY(const_cast<char*>(payload.data()), payload.size()),
        RD_KAFKA_V_VALUE(const_cast<char*>(payload.data()), payload.size()),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
        break;
      rd_kafka_poll(rk, 100);
    }
    rd_kafka_poll(rk, 0);
  }
  rd_kafka_flush(rk, 60000);
}

// -- checks ---------------------------------------------------------------------

/// Waits until the live consumers' assignments cover every partition exactly
/// once, each consumer owning at least one when there are enough partitions.
bool await_settled(const std::vector<std::unique_ptr<consumer>>& consumers,
                   int partitions, const std::string& when) {
  auto deadline = clock_type::now() + 90s;
  std::string last;
  for (;;) {
    {
      std::lock_guard<std::mutex> guard{state.mtx};
      std::map<int32_t, int> count;
      size_t live = 0;
      bool every_live_owns = true;
      for (auto& c : consumers) {
        if (c->done || c->stop)
          continue;
        ++live;
        auto& mine = state.owned[c->index];
        every_live_owns = every_live_owns && !mine.empty();
        for (auto p : mine)
          ++count[p];
      }
      bool exact = static_cast<int>(count.size()) == partitions;
      for (auto& [p, n] : count)
        exact = exact && n == 1 && p >= 0 && p < partitions;
      if (live > static_cast<size_t>(partitions))
        every_live_owns = true;
      last = owners_line();
      if (exact && every_live_owns) {
        check(true, when + ": every partition owned by exactly one of "
                      + std::to_string(live) + " consumers: " + last);
        return true;
      }
    }
    if (clock_type::now() > deadline) {
      check(false, when
                     + ": assignments never covered every partition "
                       "exactly once; last: "
                     + last);
      return false;
    }
    std::this_thread::sleep_for(100ms);
  }
}

/// Waits until every acknowledged message was received by some consumer.
void await_all_consumed(long produced) {
  auto deadline = clock_type::now() + 90s;
  for (;;) {
    std::set<long> missing;
    size_t total = 0;
    size_t acked = 0;
    size_t unique = 0;
    long delivery_failures = 0;
    {
      std::lock_guard<std::mutex> guard{state.mtx};
      std::set<long> seen;
      for (auto& [c, got] : state.received) {
        total += got.size();
        seen.insert(got.begin(), got.end());
      }
      for (auto i : state.acked)
        if (!seen.count(i))
          missing.insert(i);
      acked = state.acked.size();
      unique = seen.size();
      delivery_failures = state.delivery_failures;
    }
    if (missing.empty() || clock_type::now() > deadline) {
      check(delivery_failures == 0,
            std::to_string(acked) + " of " + std::to_string(produced)
              + " messages acknowledged (" + std::to_string(delivery_failures)
              + " delivery failures)");
      std::string sample;
      int shown = 0;
      for (auto i : missing)
        if (shown++ < 10)
          sample += " m" + std::to_string(i);
      check(missing.empty(),
            "every acknowledged message consumed: " + std::to_string(total)
              + " received, " + std::to_string(total - unique) + " duplicates, "
              + std::to_string(missing.size()) + " missing" + sample);
      return;
    }
    std::this_thread::sleep_for(200ms);
  }
}

// -- a coordinator move --------------------------------------------------------------

/// The broker coordinating `group` (ListGroups answers from it), -1 if none.
int coordinator_of(rd_kafka_t* rk, const std::string& group) {
  const rd_kafka_group_list* list = nullptr;
  if (rd_kafka_list_groups(rk, group.c_str(), &list, 5000)
      != RD_KAFKA_RESP_ERR_NO_ERROR)
    return -1;
  int id = list->group_cnt == 1 ? list->groups[0].broker.id : -1;
  rd_kafka_group_list_destroy(list);
  return id;
}

/// The group's generation as troupe's gateway reports it, -1 if unknown.
int generation_of(int http_port, const std::string& group) {
  std::string body;
  if (troupe::clients::http_request("GET", "127.0.0.1", http_port,
                                    "/v1/groups/" + group, &body)
      != 200)
    return -1;
  auto at = body.find("\"generation\"");
  if (at == std::string::npos)
    return -1;
  at = body.find(':', at);
  return at == std::string::npos ? -1 : std::atoi(body.c_str() + at + 1);
}

/// Committed offsets of every partition, asked of the group's coordinator.
/// A partition with no commit is left out: librdkafka reports it as
/// RD_KAFKA_OFFSET_INVALID (-1001) with no error.
std::map<int32_t, int64_t> committed(rd_kafka_t* rk, const std::string& topic,
                                     int partitions) {
  std::map<int32_t, int64_t> out;
  auto* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  if (rd_kafka_committed(rk, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR)
    for (int i = 0; i < list->cnt; ++i)
      if (!list->elems[i].err && list->elems[i].offset >= 0)
        out[list->elems[i].partition] = list->elems[i].offset;
  rd_kafka_topic_partition_list_destroy(list);
  return out;
}

/// Each partition's high watermark, -1 where the leader did not answer.
std::map<int32_t, int64_t> high_watermarks(rd_kafka_t* rk,
                                           const std::string& topic,
                                           int partitions) {
  std::map<int32_t, int64_t> out;
  for (int p = 0; p < partitions; ++p) {
    int64_t low = -1;
    int64_t high = -1;
    if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &low, &high,
                                         5000)
        != RD_KAFKA_RESP_ERR_NO_ERROR)
      high = -1;
    out[p] = high;
  }
  return out;
}

std::string offsets_line(const std::map<int32_t, int64_t>& offsets) {
  std::string line;
  for (auto& [p, offset] : offsets)
    line += " " + std::to_string(p) + ":" + std::to_string(offset);
  return line.empty() ? " (none)" : line;
}

/// Stops the coordinating broker while every consumer stays; Kafka keeps
/// the group on the new coordinator (GroupMetadataManager.loadGroup).
void coordinator_move(const std::vector<std::unique_ptr<consumer>>& consumers,
                      rd_kafka_t* producer, const std::string& topic,
                      const std::string& group, int partitions, int http_port) {
  // Auto-commit (every 500 ms) stores the positions: wait until every
  // partition's committed offset is its high watermark, so the offsets
  // that must survive the move are known and not trivially -1001.
  auto end = high_watermarks(producer, topic, partitions);
  auto before = committed(consumers[1]->rk, topic, partitions);
  for (auto deadline = clock_type::now() + 30s;
       before != end && clock_type::now() < deadline;) {
    std::this_thread::sleep_for(200ms);
    before = committed(consumers[1]->rk, topic, partitions);
  }
  bool nonempty = true;
  for (auto& [p, offset] : end)
    nonempty = nonempty && offset > 0;
  check(nonempty && before == end,
        "every partition committed at its end before the move: committed"
          + offsets_line(before) + ", ends" + offsets_line(end));
  auto generation = generation_of(http_port, group);
  auto coordinator = coordinator_of(producer, group);
  check(coordinator >= 0 && generation > 0,
        "group " + group + " in generation " + std::to_string(generation)
          + " on coordinator broker " + std::to_string(coordinator));
  int rebalances = 0;
  {
    std::lock_guard<std::mutex> guard{state.mtx};
    rebalances = state.rebalances;
  }
  check(troupe::clients::set_broker(http_port, coordinator, false),
        "stopped broker " + std::to_string(coordinator));
  // Every consumer must heartbeat to the new coordinator within its session
  // timeout (6 s) or it would be expelled: wait three of them.
  std::this_thread::sleep_for(18s);
  auto moved_to = coordinator_of(producer, group);
  check(moved_to >= 0 && moved_to != coordinator,
        "the group moved to broker " + std::to_string(moved_to));
  {
    std::lock_guard<std::mutex> guard{state.mtx};
    check(state.rebalances == rebalances,
          "no rebalance callback since the coordinator stopped ("
            + std::to_string(state.rebalances - rebalances) + ")");
  }
  check(generation_of(http_port, group) == generation,
        "the generation is still " + std::to_string(generation));
  // Nothing was produced since: the new coordinator answers exactly the
  // offsets the old one had stored.
  auto after = committed(consumers[1]->rk, topic, partitions);
  check(!before.empty() && after == before,
        "committed offsets survived the move: before" + offsets_line(before)
          + ", after" + offsets_line(after));
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s BROKERS TOPIC [CONSUMERS] [MESSAGES] [STRATEGY]\n",
                 argv[0]);
    return 2;
  }
  std::string brokers = argv[1];
  std::string topic = argv[2];
  int k = argc > 3 ? std::atoi(argv[3]) : 3;
  long m = argc > 4 ? std::atol(argv[4]) : 2000;
  std::string strategy = argc > 5 ? argv[5] : "range";
  int stop_coordinator = 0; // HTTP port of troupe's gateway
  if (argc > 7 && std::string{argv[6]} == "--stop-coordinator")
    stop_coordinator = std::atoi(argv[7]);
  std::string group = "group-check-" + topic + "-" + strategy;
  std::printf("group_check: %d consumers, %ld messages, %s, group %s\n", k, m,
              strategy.c_str(), group.c_str());

  auto* producer = make_producer(brokers);
  if (!producer)
    return 1;
  int partitions = await_topic(producer, topic);
  check(partitions > 0, "topic " + topic + " has " + std::to_string(partitions)
                          + " partitions with leaders");
  if (partitions == 0) {
    rd_kafka_destroy(producer);
    return 1;
  }

  std::vector<std::unique_ptr<consumer>> consumers;
  for (int i = 0; i < k; ++i) {
    consumers.push_back(std::make_unique<consumer>());
    consumers.back()->index = i;
    if (!start_consumer(*consumers.back(), brokers, topic, group, strategy))
      return 1;
  }
  await_settled(consumers, partitions, "all joined");

  produce(producer, topic, 0, m / 2);
  std::printf("produced m0..m%ld\n", m / 2 - 1);

  if (stop_coordinator > 0) {
    coordinator_move(consumers, producer, topic, group, partitions,
                     stop_coordinator);
    await_settled(consumers, partitions, "after the coordinator moved");
  } else {
    // One consumer leaves midway; the others take its partitions over.
    auto& leaver = *consumers.front();
    leaver.stop = true;
    leaver.thread.join();
    {
      std::lock_guard<std::mutex> guard{state.mtx};
      check(state.owned[leaver.index].empty(),
            "c0 closed and owns nothing: " + owners_line());
    }
    await_settled(consumers, partitions, "after c0 closed");
  }

  produce(producer, topic, m / 2, m);
  std::printf("produced m%ld..m%ld\n", m / 2, m - 1);
  await_all_consumed(m);
  await_settled(consumers, partitions, "at the end");

  for (auto& c : consumers)
    if (c->thread.joinable()) {
      c->stop = true;
      c->thread.join();
    }
  rd_kafka_destroy(producer);

  for (auto& c : consumers)
    std::printf("c%d received %zu messages\n", c->index,
                state.received[c->index].size());
  check(state.violations == 0,
        std::to_string(state.rebalances) + " rebalance callbacks, "
          + std::to_string(state.violations) + " double ownerships");
  std::printf("%s\n",
              failures == 0 ? "group_check: PASS" : "group_check: FAIL");
  return failures == 0 ? 0 : 1;
}
