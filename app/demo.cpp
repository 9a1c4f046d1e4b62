#include "app/demo.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "client/consumer.hpp"
#include "actors/node.hpp"
#include "domain/consumer_protocol.hpp"
#include "domain/java_hash.hpp"

namespace troupe {

namespace {

using clock_type = std::chrono::steady_clock;

/// Prints group transitions and consumer events as one timeline, naming
/// members by their consumer's name instead of their long member id.
struct timeline {
  clock_type::time_point start = clock_type::now();
  std::mutex mtx;
  std::map<std::string, std::string> names; // member id -> consumer name

  double elapsed() const {
    return std::chrono::duration<double>(clock_type::now() - start).count();
  }

  std::string readable(std::string text) {
    std::lock_guard<std::mutex> guard{mtx};
    for (auto& [id, name] : names)
      for (size_t i; (i = text.find(id)) != std::string::npos;)
        text.replace(i, id.size(), name);
    return text;
  }

  void line(const std::string& who, const std::string& what) {
    std::printf("%+9.3fs  %-14s %s\n", elapsed(), who.c_str(),
                readable(what).c_str());
    std::fflush(stdout);
  }

  void heading(const std::string& text) {
    std::printf("\n== %s\n", text.c_str());
    std::fflush(stdout);
  }
};

std::string list(const std::vector<topic_partition>& ps) {
  if (ps.empty())
    return "(nothing)";
  std::string out;
  for (auto& p : ps)
    out += (out.empty() ? "" : " ") + to_string(p);
  return out;
}

event_listener_actor spawn_printer(caf::actor_system& sys,
                                   std::shared_ptr<timeline> tl) {
  return sys.spawn([tl]() -> event_listener_actor::behavior_type {
    return {
      [tl](consumer_event& e) {
        {
          std::lock_guard<std::mutex> guard{tl->mtx};
          if (!e.member_id.empty())
            tl->names[e.member_id] = e.consumer;
        }
        switch (e.kind) {
          case consumer_event_kind::joined:
            tl->line(e.consumer,
                     "joined generation " + std::to_string(e.generation)
                       + (e.leader
                            ? " as leader, runs the " + e.protocol + " assignor"
                            : " as follower"));
            break;
          case consumer_event_kind::assigned:
            tl->line(e.consumer, "assigned " + list(e.partitions));
            break;
          case consumer_event_kind::revoked:
            tl->line(e.consumer, "revoked  " + list(e.partitions));
            break;
          case consumer_event_kind::lost:
            tl->line(e.consumer, "lost     " + list(e.partitions));
            break;
          case consumer_event_kind::left:
            tl->line(e.consumer, "sent LeaveGroup and closed");
            break;
          case consumer_event_kind::failed:
            tl->line(e.consumer, "failed: " + std::string{error_name(e.error)});
            break;
        }
      },
      [tl](group_event& e) {
        tl->line("group " + e.group_id,
                 std::string{state_name(e.from)} + " -> "
                   + std::string{state_name(e.to)} + " (generation "
                   + std::to_string(e.generation) + ", "
                   + std::to_string(e.members) + " members): " + e.reason);
      },
    };
  });
}

/// Waits until every consumer is stable in one generation newer than
/// `after_generation`.
bool wait_stable(caf::scoped_actor& self,
                 const std::vector<consumer_actor>& consumers,
                 int32_t after_generation, std::chrono::seconds limit,
                 int32_t* generation_out = nullptr) {
  auto deadline = clock_type::now() + limit;
  while (clock_type::now() < deadline) {
    bool stable = true;
    int32_t gen = -2;
    for (auto& c : consumers) {
      consumer_status s;
      self->request(c, std::chrono::seconds(5), consumer_status_request{})
        .receive([&](consumer_status& x) { s = std::move(x); },
                 [&](caf::error&) {});
      if (s.state != consumer_phase::stable || s.generation <= after_generation
          || (gen != -2 && s.generation != gen)) {
        stable = false;
        break;
      }
      gen = s.generation;
    }
    if (stable) {
      if (generation_out)
        *generation_out = gen;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

/// The coordinator's DescribeGroups answer for `group`; no groups when it
/// did not answer.
describe_groups_response describe(caf::scoped_actor& self,
                                  const broker_actor& coordinator,
                                  const std::string& group) {
  describe_groups_response res;
  self
    ->request(coordinator, std::chrono::seconds(5),
              describe_groups_request{{group}})
    .receive([&](describe_groups_response& x) { res = std::move(x); },
             [&](caf::error&) {});
  return res;
}

/// Every partition of `topic` owned by exactly one of `consumers`, as each
/// consumer itself reports its assignment (what the leader's SyncGroup gave
/// it), and the group's coordinator describes the group as Stable with the
/// same members in the same generation.
bool check_assignment(caf::scoped_actor& self,
                      const std::vector<consumer_actor>& consumers,
                      const broker_actor& coordinator, const std::string& group,
                      const std::string& topic, int32_t partitions,
                      int32_t generation) {
  std::map<int32_t, int> owners;
  bool ok = true;
  for (auto& c : consumers) {
    consumer_status s;
    self->request(c, std::chrono::seconds(5), consumer_status_request{})
      .receive([&](consumer_status& x) { s = std::move(x); },
               [&](caf::error&) {});
    for (auto& tp : s.assignment)
      if (tp.topic == topic && tp.partition >= 0 && tp.partition < partitions)
        ++owners[tp.partition];
      else
        ok = false;
  }
  for (int32_t p = 0; p < partitions; ++p)
    if (owners[p] != 1) {
      std::printf("!! partition %s-%d has %d owners\n", topic.c_str(), p,
                  owners[p]);
      ok = false;
    }
  auto res = describe(self, coordinator, group);
  if (res.groups.size() != 1 || res.groups[0].state != any_group_state::stable
      || res.groups[0].generation_id != generation
      || res.groups[0].members.size() != consumers.size()) {
    std::printf("!! the coordinator does not describe %s as Stable in "
                "generation %d with %zu members\n",
                group.c_str(), generation, consumers.size());
    ok = false;
  }
  return ok;
}

void print_group(caf::scoped_actor& self, const broker_actor& coordinator,
                 const std::string& group, timeline& tl) {
  auto res = describe(self, coordinator, group);
  if (res.groups.empty())
    return;
  auto& g = res.groups.front();
  std::printf("\n   group %s: %s, generation %d, protocol %s, leader %s\n",
              g.group_id.c_str(), std::string{state_name(g.state)}.c_str(),
              g.generation_id, g.protocol_data.c_str(),
              tl.readable(g.leader).c_str());
  for (auto& m : g.members) {
    auto a = decode_assignment(m.assignment);
    std::printf("     %-10s %s\n", tl.readable(m.member_id).c_str(),
                a ? list(a->partitions).c_str() : "(no assignment)");
  }
}

} // namespace

int run_demo(caf::actor_system& sys, const cluster_config& config,
             const demo_options& opt) {
  auto tl = std::make_shared<timeline>();
  auto printer = spawn_printer(sys, tl);
  auto node = spawn_embedded_node(sys, config, printer);
  caf::scoped_actor self{sys};
  const std::string group = "billing";
  const std::string topic = "orders";
  auto partition =
    offsets_partition_for(group, config.offsets_topic_num_partitions);
  std::printf("troupe: embedded cluster of %d brokers; group \"%s\" hashes to "
              "__consumer_offsets-%d, coordinated by broker %d\n",
              config.brokers, group.c_str(), partition,
              partition % config.brokers);
  std::printf("group.initial.rebalance.delay.ms=%d, session.timeout.ms=%d, "
              "heartbeat.interval.ms=%d\n",
              config.group.initial_rebalance_delay_ms, opt.session_timeout_ms,
              opt.heartbeat_interval_ms);
  std::string created = "no answer";
  self
    ->request(node.brokers[0], std::chrono::seconds(5),
              create_topics_request{{{topic, opt.partitions, 1}}})
    .receive(
      [&](create_topics_response& res) {
        created = res.topics.size() != 1 ? "no result"
                                         : error_name(res.topics[0].error);
      },
      [&](caf::error& err) { created = to_string(err); });
  if (created != error_name(error_code::none)) {
    std::printf("!! creating topic %s failed: %s\n", topic.c_str(),
                created.c_str());
    stop_embedded_node(node);
    self->send_exit(printer, caf::exit_reason::user_shutdown);
    return 1;
  }
  broker_actor coordinator =
    node.brokers[static_cast<size_t>(partition) % node.brokers.size()];
  auto make = [&](int i) {
    consumer_config c;
    c.name = "c" + std::to_string(i);
    c.client_id = c.name;
    c.group_id = group;
    c.topics = {topic};
    c.assignors = {"range", "cooperative-sticky"};
    c.session_timeout_ms = opt.session_timeout_ms;
    c.heartbeat_interval_ms = opt.heartbeat_interval_ms;
    c.max_poll_interval_ms = 30000;
    return sys.spawn<consumer>(c, node.brokers[i % node.brokers.size()],
                     printer);
  };
  int exit_code = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("!! expected %s; it did not happen\n", what);
      exit_code = 1;
    }
    return ok;
  };
  std::vector<consumer_actor> live;
  int32_t gen = 0;
  // After each rebalance: stable in a newer generation, and the partitions
  // split exactly once over the consumers still in the group.
  auto rebalanced = [&](std::chrono::seconds limit, const char* what) {
    if (expect(wait_stable(self, live, gen, limit, &gen), what))
      expect(check_assignment(self, live, coordinator, group, topic,
                              opt.partitions, gen),
             "an exclusive assignment of every partition");
    print_group(self, coordinator, group, *tl);
  };

  tl->heading(std::to_string(opt.consumers) + " consumers join group " + group
              + " for topic " + topic + " (" + std::to_string(opt.partitions)
              + " partitions)");
  for (int i = 1; i <= opt.consumers; ++i)
    live.push_back(make(i));
  rebalanced(std::chrono::seconds(60), "the first rebalance");

  tl->heading("a new consumer joins: everyone rejoins, the leader reassigns");
  live.push_back(make(opt.consumers + 1));
  rebalanced(std::chrono::seconds(60), "the rebalance after a join");

  if (live.size() >= 3) {
    tl->heading("c2 leaves cleanly (LeaveGroup): the group rebalances at "
                "once");
    self->request(live[1], std::chrono::seconds(10), consumer_close{})
      .receive([](consumer_status&) {}, [](caf::error&) {});
    live.erase(live.begin() + 1);
    rebalanced(std::chrono::seconds(60), "the rebalance after a leave");

    tl->heading("c3 stops heartbeating (crash): its session expires after "
                "session.timeout.ms, then the rest rebalance");
    self->send(live[1], consumer_crash{});
    live.erase(live.begin() + 1);
    rebalanced(std::chrono::seconds(opt.session_timeout_ms / 1000 + 30),
               "the rebalance after a session expiry");
  }

  tl->heading("shutting down: consumers leave, brokers stop");
  for (auto& c : live)
    self->request(c, std::chrono::seconds(10), consumer_close{})
      .receive([](consumer_status&) {}, [](caf::error&) {});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop_embedded_node(node);
  self->send_exit(printer, caf::exit_reason::user_shutdown);
  return exit_code;
}

} // namespace troupe
