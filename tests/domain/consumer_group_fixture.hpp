#pragma once

// Drives the plain KIP-848 group the way its coordinator actor does: keeps
// the records it emits, fires the timers it asks for against a hand-moved
// clock, and plays members that do what a Kafka consumer does with each
// answer.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "domain/consumer_group/consumer_group.hpp"
#include "domain/java_hash.hpp"

namespace troupe::test {

/// A topic whose id follows from its name, so tests can name ids.
inline topic_info make_topic(const std::string& name, int32_t partitions) {
  auto h = static_cast<uint32_t>(java_string_hash(name));
  return {uuid{0x1000 + h, 0x2000 + name.size()}, name, partitions};
}

inline partition_assignment parts(const topic_info& t,
                                  std::initializer_list<int32_t> ps) {
  partition_assignment a;
  for (auto p : ps)
    add_partition(a, t.id, p);
  return a;
}

inline partition_assignment
from_wire(const std::vector<consumer_group_topic_partitions>& xs) {
  partition_assignment a;
  for (const auto& x : xs)
    for (auto p : x.partitions)
      add_partition(a, x.topic_id, p);
  return a;
}

inline std::vector<consumer_group_topic_partitions>
to_wire(const partition_assignment& a) {
  std::vector<consumer_group_topic_partitions> xs;
  for (const auto& [t, ps] : a)
    xs.push_back({t, {}, {ps.begin(), ps.end()}});
  return xs;
}

/// Kafka's defaults (45 s sessions, 5 s heartbeats) with the assignor run
/// on every change, as Kafka 4.0 to 4.2 do; the batching tests turn
/// group.consumer.assignment.interval.ms back on.
inline group_config consumer_config() {
  group_config cfg;
  cfg.consumer_assignment_interval_ms = 0;
  return cfg;
}

struct cg_driver {
  struct timer {
    enum kind_t { session, rebalance, assignment };
    int64_t due;
    kind_t kind;
    std::string member_id;
    uint64_t id;
  };

  explicit cg_driver(group_config cfg = consumer_config(),
                     std::vector<topic_info> topics = {make_topic("t", 6)})
    : g("g", cfg, 42), topics(std::move(topics)) {
    g.update_topics(this->topics);
  }

  consumer_group g;
  std::vector<topic_info> topics;
  int64_t now = 0;
  std::vector<consumer_group_record> records;
  std::vector<timer> timers;
  std::vector<consumer_group_transition> transitions;

  void collect() {
    auto fx = g.take_effects();
    for (auto& r : fx.records)
      records.push_back(std::move(r));
    for (auto& t : fx.session_timers)
      timers.push_back(
        {now + t.delay_ms, timer::session, t.member_id, t.timer});
    for (auto& t : fx.rebalance_timers)
      timers.push_back(
        {now + t.delay_ms, timer::rebalance, t.member_id, t.timer});
    if (fx.assignment_timer)
      timers.push_back({now + fx.assignment_timer->delay_ms,
                        timer::assignment,
                        {},
                        fx.assignment_timer->timer});
    for (auto& t : fx.transitions)
      transitions.push_back(std::move(t));
  }

  void set_topics(std::vector<topic_info> ts) {
    topics = std::move(ts);
    g.update_topics(topics);
    collect();
  }

  /// Moves the clock, firing due timers in order.
  void advance(int64_t ms) {
    auto until = now + ms;
    for (;;) {
      auto next = timers.end();
      for (auto i = timers.begin(); i != timers.end(); ++i)
        if (i->due <= until && (next == timers.end() || i->due < next->due))
          next = i;
      if (next == timers.end())
        break;
      auto t = *next;
      timers.erase(next);
      now = std::max(now, t.due);
      if (t.kind == timer::session)
        g.on_session_timer(t.member_id, t.id, now);
      else if (t.kind == timer::rebalance)
        g.on_rebalance_timer(t.member_id, t.id, now);
      else
        g.on_assignment_timer(t.id, now);
      collect();
    }
    now = until;
  }

  consumer_group_heartbeat_response
  send(const consumer_group_heartbeat_request& req) {
    auto r = g.heartbeat(req, now);
    collect();
    return r;
  }

  static consumer_group_heartbeat_request
  join_req(std::string member_id, std::vector<std::string> subscription = {"t"},
           std::optional<std::string> instance = std::nullopt) {
    consumer_group_heartbeat_request r;
    r.group_id = "g";
    r.member_id = std::move(member_id);
    r.member_epoch = 0;
    if (instance)
      r.instance_id = *instance;
    r.rebalance_timeout_ms = 30000;
    r.subscribed_topic_names = std::move(subscription);
    r.topic_partitions = std::vector<consumer_group_topic_partitions>{};
    r.client_id = "client";
    r.client_host = "/127.0.0.1";
    return r;
  }

  /// A regular heartbeat; `owned` nullopt sends TopicPartitions as null.
  static consumer_group_heartbeat_request
  beat_req(std::string member_id, int32_t epoch,
           std::optional<partition_assignment> owned = std::nullopt,
           std::optional<std::string> instance = std::nullopt) {
    consumer_group_heartbeat_request r;
    r.group_id = "g";
    r.member_id = std::move(member_id);
    r.member_epoch = epoch;
    if (instance)
      r.instance_id = *instance;
    if (owned)
      r.topic_partitions = to_wire(*owned);
    r.client_id = "client";
    r.client_host = "/127.0.0.1";
    return r;
  }

  consumer_group_heartbeat_response
  join(const std::string& member_id,
       std::vector<std::string> subscription = {"t"}) {
    return send(join_req(member_id, std::move(subscription)));
  }

  consumer_group_heartbeat_response
  beat(const std::string& member_id, int32_t epoch,
       std::optional<partition_assignment> owned = std::nullopt) {
    return send(beat_req(member_id, epoch, std::move(owned)));
  }

  const consumer_member& member(const std::string& id) const {
    return *g.member(id);
  }
};

/// What a Kafka consumer does with its answers: it uses exactly the
/// partitions of the last assignment it got, reports them, and rejoins
/// from scratch after a fencing error.
struct client {
  client() = default;
  client(std::string id, std::optional<std::string> instance = std::nullopt)
    : member_id(std::move(id)), instance_id(std::move(instance)) {
    // nop
  }

  std::string member_id;
  std::optional<std::string> instance_id;
  std::vector<std::string> subscription{"t"};
  int32_t epoch = 0;
  partition_assignment owned;
  bool joined = false;
  /// What the coordinator last heard it owns; like Kafka's consumer it
  /// sends TopicPartitions only when that changed (or in full requests).
  std::optional<partition_assignment> reported;
  std::optional<partition_assignment> sending;

  consumer_group_heartbeat_request next_request(bool full) {
    auto r = joined ? cg_driver::beat_req(member_id, epoch, owned, instance_id)
                    : cg_driver::join_req(member_id, subscription, instance_id);
    if (joined && full) {
      r.rebalance_timeout_ms = 30000;
      r.subscribed_topic_names = subscription;
    } else if (joined && reported == owned) {
      r.topic_partitions.reset();
    }
    sending = joined ? owned : partition_assignment{};
    return r;
  }

  void on_answer(const consumer_group_heartbeat_response& r) {
    if (r.error == error_code::none)
      reported = sending;
    if (r.error == error_code::fenced_member_epoch
        || r.error == error_code::unknown_member_id) {
      // Kafka's consumer: give up every partition and rejoin.
      owned.clear();
      reported.reset();
      epoch = 0;
      joined = false;
      return;
    }
    if (r.error != error_code::none)
      return;
    if (r.member_id)
      member_id = *r.member_id;
    epoch = r.member_epoch;
    joined = true;
    if (r.assignment)
      owned = from_wire(r.assignment->topic_partitions);
  }
};

} // namespace troupe::test
