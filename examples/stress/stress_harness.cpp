// troupe's stress harness: thousands to 100,000 client-side consumer actors
// (the same consumer users get) in G groups against the embedded node, run
// through named scenarios. Prints progress, a table, and the same figures as
// JSON for scripts/plot_stress.py.

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <spdlog/spdlog.h>

#include "client/consumer.hpp"
#include "client/heartbeat_ticker.hpp"
#include "actors/metrics.hpp"
#include "actors/node.hpp"
#include "domain/java_hash.hpp"
#include "examples/stress/tracker.hpp"

using namespace troupe;
using namespace troupe::stress;

// jemalloc's control interface, when the harness runs on jemalloc (a weak
// reference: null under another allocator).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp,
                       void* newp, size_t newlen) __attribute__((weak));

namespace {

struct options {
  int32_t members = 2000;
  int32_t groups = 20;
  /// Partitions of each group's topic; 0: one per member.
  int32_t partitions = 0;
  std::string assignor = "range";
  /// group.protocol of every consumer: "classic" or "consumer" (KIP-848).
  std::string group_protocol = "classic";
  int32_t heartbeat_interval_ms = 3000;
  int32_t session_timeout_ms = 10000;
  /// group.consumer.assignment.interval.ms of the embedded node (KIP-1263).
  int32_t assignment_interval_ms =
    group_config{}.consumer_assignment_interval_ms;
  int32_t steady_seconds = 5;
  int32_t commit_seconds = 3;
  std::vector<std::string> scenarios = {"cold-start", "steady", "commit-storm",
                                        "churn", "crash-storm"};
  std::string json;
  bool check = false;
  int32_t threads = 0;
  std::string policy = "sharing";
  /// The classic consumers' heartbeat ticks from one shared ticker
  /// (client/heartbeat_ticker.hpp) instead of a delayed send each.
  bool shared_ticker = true;
  int32_t timeout_seconds = 120;
  /// host:port of a cluster node's troupe.cluster.port: the consumers run
  /// here, the brokers in other processes (docs/ARCHITECTURE.md §7).
  std::string connect;
  /// With --connect: start the cold-start clock once the new topics have
  /// leaders, before their logs exist (the groups' first writes then queue
  /// behind the creation of the logs on each node).
  bool with_log_creation = false;
};

struct row {
  std::string scenario;
  std::string protocol;
  std::string assignor;
  int32_t groups = 0;
  int32_t members_per_group = 0;
  int32_t partitions_per_group = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  double since_last_join_ms = -1;
  double coordinator_msgs_per_s = 0;
  double heartbeats_per_s = 0;
  double commits_per_s = 0;
  double rss_bytes_per_member = 0;
  /// The same after the allocator returned the pages it holds free (what
  /// the members keep, without the garbage of the rebalance's messages
  /// that jemalloc hands back to the kernel within its 10 s decay);
  /// negative when not measured.
  double retained_bytes_per_member = -1;
  double cpu_percent = 0;
  int64_t moved_partitions = -1;
  int64_t false_expirations = -1;
  int64_t spurious_rebalances = -1;
  int32_t session_timeout_ms = 0;
  bool ok = true;
  std::string problem;
};

double rss_bytes() {
  long pages = 0, resident = 0;
  if (auto f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident)
         * static_cast<double>(sysconf(_SC_PAGESIZE));
}

/// Resident bytes once jemalloc has returned every free page it holds to
/// the kernel (arena.<all>.purge); negative without jemalloc.
double rss_bytes_purged() {
  if (!mallctl)
    return -1;
  // MALLCTL_ARENAS_ALL is 4096 (jemalloc/jemalloc.h).
  if (mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) != 0)
    return -1;
  return rss_bytes();
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto tv = [](timeval t) { return t.tv_sec + t.tv_usec / 1e6; };
  return tv(u.ru_utime) + tv(u.ru_stime);
}

double ms_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double percentile(std::vector<double> xs, double p) {
  if (xs.empty())
    return 0;
  std::sort(xs.begin(), xs.end());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * xs.size()));
  return xs[std::min(xs.size() - 1, rank == 0 ? 0 : rank - 1)];
}

/// Measures CPU and wall time of a phase.
struct phase_clock {
  steady::time_point start = steady::now();
  double cpu_start = cpu_seconds();

  double wall_s() const {
    return std::chrono::duration<double>(steady::now() - start).count();
  }
  double cpu_percent() const {
    return 100.0 * (cpu_seconds() - cpu_start) / std::max(wall_s(), 1e-9);
  }
};

class harness {
public:
  harness(caf::actor_system& sys, options opt)
    : sys_(sys), opt_(std::move(opt)), self_(sys) {
    per_group_ = opt_.members / opt_.groups;
    partitions_ = opt_.partitions > 0 ? opt_.partitions : per_group_;
    cluster_config cfg;
    cfg.group.initial_rebalance_delay_ms = 0;
    cfg.group.min_session_timeout_ms = std::min(6000, opt_.session_timeout_ms);
    // The same workload for both protocols: with KIP-848 the coordinator
    // names the heartbeat interval and owns the session timeout, so its
    // group.consumer.* take the consumers' values (below Kafka's minimums
    // where the harness asks for it).
    cfg.group.consumer_heartbeat_interval_ms = opt_.heartbeat_interval_ms;
    cfg.group.consumer_session_timeout_ms = opt_.session_timeout_ms;
    cfg.group.consumer_assignment_interval_ms = opt_.assignment_interval_ms;
    if (opt_.connect.empty()) {
      node_ = spawn_embedded_node(sys_, cfg, spawn_tracker());
    } else {
      spawn_tracker();
      connect_cluster();
      // A cluster outlives the run: its groups and topics get fresh names.
      prefix_ = "-" + std::to_string(::getpid());
    }
    create_topics_request topics;
    for (int32_t g = 0; g < opt_.groups; ++g)
      topics.topics.push_back({topic(g), partitions_, 1});
    self_->request(node_.brokers[0], std::chrono::seconds(30), topics)
      .receive([](create_topics_response&) {},
               [](caf::error& e) {
                 std::fprintf(stderr, "create topics: %s\n",
                              caf::to_string(e).c_str());
               });
    wait_for_leaders();
    if (!opt_.connect.empty() && !opt_.with_log_creation)
      wait_for_logs();
    std::lock_guard<std::mutex> guard{state_->mtx};
    state_->members.resize(static_cast<size_t>(per_group_ * opt_.groups));
    state_->groups.resize(static_cast<size_t>(opt_.groups));
    for (size_t i = 0; i < state_->members.size(); ++i)
      state_->members[i].group = static_cast<int32_t>(i % opt_.groups);
    for (auto& g : state_->groups)
      g.partitions = partitions_;
    consumers_.resize(state_->members.size());
    configs_.resize(static_cast<size_t>(opt_.groups));
    if (opt_.shared_ticker)
      ticker_ = spawn_heartbeat_ticker(sys_);
  }

  ~harness() {
    for (auto& c : consumers_)
      if (c)
        caf::anon_send(c, consumer_crash{});
    if (opt_.connect.empty())
      stop_embedded_node(node_);
    caf::anon_send_exit(tracker_, caf::exit_reason::user_shutdown);
    if (ticker_)
      caf::anon_send_exit(ticker_, caf::exit_reason::user_shutdown);
  }

  size_t size() const {
    return consumers_.size();
  }

  row cold_start() {
    auto r = base_row("cold-start");
    auto rss0 = rss_bytes();
    auto purged0 = rss_bytes_purged();
    phase_clock clock;
    for (size_t i = 0; i < size(); ++i)
      spawn_member(i);
    auto spawned = steady::now();
    r.ok = wait_stable("cold-start", clock.start, {});
    fill_timings(r, clock);
    r.since_last_join_ms = since_last_join();
    r.rss_bytes_per_member = (rss_bytes() - rss0) / size();
    if (purged0 >= 0)
      r.retained_bytes_per_member = (rss_bytes_purged() - purged0) / size();
    std::fprintf(stderr, "\n  spawning %zu consumers took %.0f ms\n", size(),
                 ms_between(clock.start, spawned));
    return finish(r);
  }

  row steady_state() {
    auto r = base_row("steady");
    auto before = snapshot_counters();
    auto m0 = metrics().heartbeats.load();
    auto req0 = metrics().requests();
    phase_clock clock;
    auto until = clock.start + std::chrono::seconds(opt_.steady_seconds);
    while (steady::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      auto hb = metrics().heartbeats.load() - m0;
      std::fprintf(stderr, "\r[steady] %5.1fs  %12.0f heartbeats/s   ",
                   clock.wall_s(), hb / clock.wall_s());
    }
    auto secs = clock.wall_s();
    r.heartbeats_per_s = (metrics().heartbeats.load() - m0) / secs;
    r.coordinator_msgs_per_s = (metrics().requests() - req0) / secs;
    r.cpu_percent = clock.cpu_percent();
    auto after = snapshot_counters();
    r.false_expirations = static_cast<int64_t>(after.first - before.first);
    r.spurious_rebalances = static_cast<int64_t>(after.second - before.second);
    r.rss_bytes_per_member = rss_bytes() / size();
    if (r.false_expirations != 0 || r.spurious_rebalances != 0) {
      r.ok = false;
      r.problem = "expirations or rebalances while steady";
    }
    return finish(r);
  }

  row commit_storm() {
    auto r = base_row("commit-storm");
    std::vector<std::vector<offset_commit_partition>> work(size());
    {
      std::lock_guard<std::mutex> guard{state_->mtx};
      for (size_t i = 0; i < size(); ++i) {
        auto& m = state_->members[i];
        for (auto p : m.partitions)
          work[i].push_back({topic(m.group), p, 0, -1, ""});
      }
    }
    auto c0 = metrics().commits.load();
    auto req0 = metrics().requests();
    phase_clock clock;
    auto deadline = clock.start + std::chrono::seconds(opt_.commit_seconds);
    auto errors = std::make_shared<std::atomic<uint64_t>>(0);
    auto consumers = consumers_;
    auto committer = sys_.spawn([=](caf::event_based_actor* self) mutable {
      auto offsets = std::make_shared<std::vector<int64_t>>(work.size(), 0);
      auto fire_ptr = std::make_shared<std::function<void(size_t)>>();
      *fire_ptr = [=](size_t i) {
        if (steady::now() >= deadline)
          return;
        auto batch = work[i];
        auto next = ++(*offsets)[i];
        for (auto& p : batch)
          p.offset = next;
        self
          ->request(consumers[i], std::chrono::seconds(30),
                    consumer_commit{std::move(batch)})
          .then(
            [=](offset_commit_response& res) {
              for (auto& p : res.partitions)
                if (p.error != error_code::none)
                  ++*errors;
              (*fire_ptr)(i);
            },
            [=](caf::error&) { ++*errors; });
      };
      for (size_t i = 0; i < work.size(); ++i)
        if (!work[i].empty())
          (*fire_ptr)(i);
    });
    while (steady::now() < deadline + std::chrono::milliseconds(200)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::fprintf(stderr, "\r[commit-storm] %5.1fs  %12.0f commits/s   ",
                   clock.wall_s(),
                   (metrics().commits.load() - c0) / clock.wall_s());
    }
    caf::anon_send_exit(committer, caf::exit_reason::user_shutdown);
    auto secs = clock.wall_s();
    r.commits_per_s = (metrics().commits.load() - c0) / secs;
    r.coordinator_msgs_per_s = (metrics().requests() - req0) / secs;
    r.cpu_percent = clock.cpu_percent();
    r.rss_bytes_per_member = rss_bytes() / size();
    if (*errors != 0) {
      r.ok = false;
      r.problem = std::to_string(errors->load()) + " commits failed";
    }
    return finish(r);
  }

  /// 10% of each group leave (LeaveGroup) and come back as new consumers.
  row churn() {
    auto r = base_row("churn");
    auto before = owners();
    phase_clock clock;
    auto gen = generations();
    for (size_t i = 0; i < size(); ++i) {
      if (rank_in_group(i) % 10 != 0)
        continue;
      caf::anon_send(consumers_[i], consumer_close{});
      mark_alive(i, false);
      spawn_member(i);
    }
    r.ok = wait_stable("churn", clock.start, gen);
    fill_timings(r, clock);
    auto after = owners();
    r.moved_partitions = 0;
    for (size_t i = 0; i < before.size(); ++i)
      r.moved_partitions += before[i] != after[i];
    return finish(r);
  }

  /// 10% of each group stop heartbeating; the coordinator must expire them.
  row crash_storm() {
    auto r = base_row("crash-storm");
    phase_clock clock;
    auto gen = generations();
    for (size_t i = 0; i < size(); ++i) {
      if (rank_in_group(i) % 10 != 5)
        continue;
      caf::anon_send(consumers_[i], consumer_crash{});
      consumers_[i] = nullptr;
      mark_alive(i, false);
    }
    r.ok = wait_stable("crash-storm", clock.start, gen);
    fill_timings(r, clock);
    return finish(r);
  }

private:
  /// Member i is the (i / groups)-th member of group i % groups.
  size_t rank_in_group(size_t i) const {
    return i / static_cast<size_t>(opt_.groups);
  }

  event_listener_actor spawn_tracker() {
    auto st = state_;
    tracker_ = sys_.spawn([st]() -> event_listener_actor::behavior_type {
      return {
        [st](consumer_event& e) {
          std::lock_guard<std::mutex> guard{st->mtx};
          st->on(e);
        },
        [st](group_event& e) {
          std::lock_guard<std::mutex> guard{st->mtx};
          st->on(e);
        },
      };
    });
    return tracker_;
  }

  void spawn_member(size_t i) {
    mark_alive(i, true);
    auto group = static_cast<int32_t>(i % opt_.groups);
    std::string name;
    {
      std::lock_guard<std::mutex> guard{state_->mtx};
      name =
        std::to_string(i) + "." + std::to_string(state_->members[i].version);
    }
    consumers_[i] =
      sys_.spawn<consumer>(config_of(group), std::move(name),
                 node_.brokers[i % node_.brokers.size()], tracker_);
  }

  /// One consumer config per group, shared by all its members.
  std::shared_ptr<const consumer_config> config_of(int32_t group) {
    auto& shared = configs_[static_cast<size_t>(group)];
    if (!shared) {
      consumer_config c;
      c.client_id = "m";
      c.group_id = "g" + std::to_string(group) + prefix_;
      c.topics = {topic(group)};
      c.bootstrap_servers = node_.brokers;
      c.assignors = {opt_.assignor};
      c.group_protocol = opt_.group_protocol;
      c.session_timeout_ms = opt_.session_timeout_ms;
      c.heartbeat_interval_ms = opt_.heartbeat_interval_ms;
      c.max_poll_interval_ms = 60000;
      c.heartbeat_ticker = ticker_;
      shared = std::make_shared<const consumer_config>(std::move(c));
    }
    return shared;
  }

  std::string topic(int32_t group) const {
    return "t" + std::to_string(group) + prefix_;
  }

  /// The brokers of a cluster in other processes, through one node's
  /// published controller: its broker, then every live broker it knows.
  void connect_cluster() {
    auto colon = opt_.connect.rfind(':');
    auto host = opt_.connect.substr(0, colon);
    auto port =
      static_cast<uint16_t>(std::stoi(opt_.connect.substr(colon + 1)));
    auto remote =
      sys_.middleman().remote_actor<cluster_controller_actor>(host, port);
    if (!remote)
      throw std::runtime_error("cannot reach " + opt_.connect + ": "
                               + caf::to_string(remote.error()));
    self_->request(*remote, std::chrono::seconds(10), node_info_request{})
      .receive(
        [&](node_info& info) {
          node_.brokers.push_back(caf::actor_cast<broker_actor>(info.broker));
        },
        [&](caf::error& e) {
          throw std::runtime_error("no broker at " + opt_.connect + ": "
                                   + caf::to_string(e));
        });
    self_
      ->request(node_.brokers[0], std::chrono::seconds(10),
                metadata_request{{"__consumer_offsets"}, false})
      .receive(
        [&](metadata_response& md) {
          for (auto& b : md.brokers)
            if (b.handle
                && b.handle != caf::actor_cast<caf::actor>(node_.brokers[0]))
              node_.brokers.push_back(caf::actor_cast<broker_actor>(b.handle));
        },
        [](caf::error&) {});
  }

  /// Setup, outside every phase's clock: waits (bounded) until every
  /// partition of every topic has a leader in every broker's metadata.
  /// Against a cluster
  /// CreateTopics answers once the controller wrote the assignment to
  /// ZooKeeper, and each node then creates its replicas' logs on disk
  /// (seconds for 10,000 partitions, on each broker's one log actor, which
  /// also appends the groups' records to __consumer_offsets); the embedded
  /// node's in-memory logs exist at once. Kafka's admin client likewise
  /// waits for new topics in metadata before a test uses them.
  void wait_for_leaders() {
    std::vector<std::string> names;
    for (int32_t g = 0; g < opt_.groups; ++g)
      names.push_back(topic(g));
    auto start = steady::now();
    auto limit = start + std::chrono::seconds(opt_.timeout_seconds);
    for (auto& broker : node_.brokers) {
      for (;;) {
        bool ready = false;
        self_->request(broker, std::chrono::seconds(10),
                       metadata_request{names, false})
          .receive(
            [&](metadata_response& md) {
              ready = md.topics.size() == names.size();
              for (auto& t : md.topics) {
                ready = ready && t.error == error_code::none
                        && t.partitions == partitions_
                        && static_cast<int32_t>(t.partition_states.size())
                             == partitions_;
                for (auto& p : t.partition_states)
                  ready = ready && p.leader >= 0;
              }
            },
            [](caf::error&) {});
        if (ready || steady::now() > limit)
          break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    std::fprintf(stderr,
                 "  %d topics of %d partitions: leaders in metadata after "
                 "%.0f ms\n",
                 opt_.groups, partitions_, ms_between(start, steady::now()));
  }

  /// Setup too, against a cluster: waits (bounded) until every partition
  /// of the run's topics has its log on disk. Each node creates the logs
  /// of a new topic on its one log actor, the same actor that appends the
  /// groups' records to __consumer_offsets: with 10,000 new partitions the
  /// first SyncGroups would otherwise wait seconds behind the directories
  /// and their fsyncs, and the cold start would time topic creation. A
  /// DescribeLogDirs queues behind the creations on the same actor.
  void wait_for_logs() {
    auto start = steady::now();
    auto limit = start + std::chrono::seconds(opt_.timeout_seconds);
    size_t want = static_cast<size_t>(opt_.groups) * partitions_;
    size_t have = 0;
    while (have < want && steady::now() < limit) {
      have = 0;
      for (auto& broker : node_.brokers)
        self_
          ->request(broker, std::chrono::seconds(60),
                    describe_log_dirs_request{true, {}})
          .receive(
            [&](describe_log_dirs_response& r) {
              for (auto& d : r.dirs)
                for (auto& p : d.partitions)
                  if (p.partition.topic.size() > prefix_.size()
                      && p.partition.topic.compare(
                           p.partition.topic.size() - prefix_.size(),
                           prefix_.size(), prefix_)
                           == 0)
                    ++have;
            },
            [](caf::error&) {});
      if (have < want)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::fprintf(stderr, "  %zu of %zu partitions' logs on disk after %.0f ms\n",
                 have, want, ms_between(start, steady::now()));
  }

  void mark_alive(size_t i, bool alive) {
    std::lock_guard<std::mutex> guard{state_->mtx};
    state_->set_alive(i, alive);
  }

  /// Each group's current stable generation.
  std::vector<int32_t> generations() {
    std::lock_guard<std::mutex> guard{state_->mtx};
    std::vector<int32_t> result;
    for (auto& g : state_->groups)
      result.push_back(g.stable_generation);
    return result;
  }

  /// Owner (member index) of every partition of every group.
  std::vector<int64_t> owners() {
    std::lock_guard<std::mutex> guard{state_->mtx};
    std::vector<int64_t> result(
      static_cast<size_t>(opt_.groups) * static_cast<size_t>(partitions_), -1);
    for (size_t i = 0; i < state_->members.size(); ++i) {
      auto& m = state_->members[i];
      if (!m.alive)
        continue;
      for (auto p : m.partitions)
        result[static_cast<size_t>(m.group) * partitions_ + p] =
          static_cast<int64_t>(i);
    }
    return result;
  }

  std::pair<uint64_t, uint64_t> snapshot_counters() {
    std::lock_guard<std::mutex> guard{state_->mtx};
    uint64_t expiries = 0, rebalances = 0;
    for (auto& g : state_->groups) {
      expiries += g.expiries;
      rebalances += g.rebalances;
    }
    return {expiries, rebalances};
  }

  /// Waits until every group is stable in a generation newer than its
  /// entry in `after` (empty: any generation), printing progress.
  bool wait_stable(const char* name, steady::time_point start,
                   const std::vector<int32_t>& after) {
    auto newer = [&](size_t k, const group_track& g) {
      return g.stable && (after.empty() || g.stable_generation > after[k]);
    };
    auto limit = start + std::chrono::seconds(opt_.timeout_seconds);
    auto last_print = steady::now();
    for (;;) {
      size_t stable = 0, assigned = 0, alive = 0;
      {
        std::lock_guard<std::mutex> guard{state_->mtx};
        for (size_t k = 0; k < state_->groups.size(); ++k) {
          auto& g = state_->groups[k];
          stable += newer(k, g);
          alive += static_cast<size_t>(g.alive);
          if (!g.at_generation.empty())
            assigned += static_cast<size_t>(g.at_generation.rbegin()->second);
        }
      }
      auto now = steady::now();
      if (stable == state_->groups.size() || now > limit
          || now - last_print > std::chrono::milliseconds(250)) {
        std::fprintf(stderr,
                     "\r[%s] %7.0f ms  stable groups %zu/%zu  members with "
                     "the newest assignment %zu/%zu   ",
                     name, ms_between(start, now), stable,
                     state_->groups.size(), assigned, alive);
        last_print = now;
      }
      if (stable == state_->groups.size())
        return true;
      if (now > limit) {
        std::lock_guard<std::mutex> guard{state_->mtx};
        for (size_t k = 0; k < state_->groups.size(); ++k) {
          auto& g = state_->groups[k];
          if (newer(k, g))
            continue;
          std::fprintf(stderr,
                       "\n  group g%zu not stable: %d alive, %lld "
                       "of %d partitions assigned, holders by generation:",
                       k, g.alive, static_cast<long long>(g.assigned_total),
                       g.partitions);
          for (auto& [gen, n] : g.at_generation)
            std::fprintf(stderr, " %d:%d", gen, n);
        }
        std::fprintf(stderr, "\n");
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  row base_row(const char* scenario) {
    row r;
    r.scenario = scenario;
    r.protocol = opt_.group_protocol;
    // KIP-848 groups assign on the coordinator with its default assignor.
    r.assignor =
      opt_.group_protocol == "consumer" ? "uniform (server)" : opt_.assignor;
    r.groups = opt_.groups;
    r.members_per_group = per_group_;
    r.partitions_per_group = partitions_;
    r.session_timeout_ms = opt_.session_timeout_ms;
    return r;
  }

  void fill_timings(row& r, const phase_clock& clock) {
    std::vector<double> times;
    {
      std::lock_guard<std::mutex> guard{state_->mtx};
      for (auto& g : state_->groups)
        if (g.stable)
          times.push_back(ms_between(clock.start, g.stable_since));
    }
    r.p50_ms = percentile(times, 50);
    r.p99_ms = percentile(times, 99);
    r.max_ms =
      times.empty() ? 0 : *std::max_element(times.begin(), times.end());
    r.cpu_percent = clock.cpu_percent();
    r.coordinator_msgs_per_s = 0;
    r.rss_bytes_per_member = rss_bytes() / size();
  }

  double since_last_join() {
    std::lock_guard<std::mutex> guard{state_->mtx};
    // Written by the coordinators: none in this process with --connect.
    auto ns = metrics().last_join_ns.load();
    if (ns == 0)
      return -1;
    auto last = steady::time_point{steady::duration{ns}};
    double worst = 0;
    for (auto& g : state_->groups)
      worst = std::max(worst, ms_between(last, g.stable_since));
    // The window on CLOCK_MONOTONIC (steady_clock's), for a profile of it
    // alone: perf record -k CLOCK_MONOTONIC, then perf report --time.
    auto secs = [](steady::time_point t) {
      return std::chrono::duration<double>(t.time_since_epoch()).count();
    };
    std::fprintf(stderr, "\n  after the last join: %.6f,%.6f (CLOCK_MONOTONIC s)\n",
                 secs(last), secs(last) + worst / 1000);
    return worst;
  }

  row finish(row r) {
    std::lock_guard<std::mutex> guard{state_->mtx};
    if (r.scenario != "steady" && r.scenario != "commit-storm") {
      auto violations = state_->ownership_violations();
      if (violations != 0) {
        r.ok = false;
        r.problem +=
          std::to_string(violations) + " partitions not owned exactly once; ";
      }
    }
    if (state_->failures != 0) {
      r.ok = false;
      r.problem += std::to_string(state_->failures) + " consumers failed; ";
    }
    if (!r.ok && r.problem.empty())
      r.problem = "not stable within the timeout";
    std::fprintf(stderr, "\n");
    return r;
  }

  caf::actor_system& sys_;
  options opt_;
  caf::scoped_actor self_;
  int32_t per_group_ = 0;
  int32_t partitions_ = 0;
  /// The embedded node, or (with --connect) the cluster's brokers.
  embedded_node node_;
  /// Appended to group and topic names against a cluster.
  std::string prefix_;
  event_listener_actor tracker_;
  /// The shared heartbeat ticker (--shared-ticker), or null.
  caf::actor ticker_;
  std::shared_ptr<tracker_state> state_ = std::make_shared<tracker_state>();
  std::vector<consumer_actor> consumers_;
  std::vector<std::shared_ptr<const consumer_config>> configs_;
};

std::string fmt(double x, int digits = 0) {
  if (x < 0)
    return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, x);
  return buf;
}

void print_table(const std::vector<row>& rows) {
  std::printf("\n| scenario | protocol | assignor | groups x members "
              "| partitions/group "
              "| stable p50 / p99 / max (ms) | after last join (ms) "
              "| coordinator msgs/s | heartbeats/s | commits/s "
              "| RSS/member (B) | retained/member (B) | CPU %% | moved "
              "| false expiries | spurious rebalances | ok |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
              "---|---|\n");
  for (auto& r : rows) {
    bool timed = r.scenario != "steady" && r.scenario != "commit-storm";
    std::printf(
      "| %s | %s | %s | %d x %d | %d | %s | %s | %s | %s | %s | %s | %s "
      "| %s | %s | %s | %s | %s |\n",
      r.scenario.c_str(), r.protocol.c_str(), r.assignor.c_str(), r.groups,
      r.members_per_group, r.partitions_per_group,
      timed ? (fmt(r.p50_ms) + " / " + fmt(r.p99_ms) + " / " + fmt(r.max_ms))
                .c_str()
            : "-",
      fmt(r.since_last_join_ms).c_str(),
      r.coordinator_msgs_per_s > 0 ? fmt(r.coordinator_msgs_per_s).c_str()
                                   : "-",
      r.heartbeats_per_s > 0 ? fmt(r.heartbeats_per_s).c_str() : "-",
      r.commits_per_s > 0 ? fmt(r.commits_per_s).c_str() : "-",
      fmt(r.rss_bytes_per_member).c_str(),
      fmt(r.retained_bytes_per_member).c_str(), fmt(r.cpu_percent).c_str(),
      r.moved_partitions >= 0 ? std::to_string(r.moved_partitions).c_str()
                              : "-",
      r.false_expirations >= 0 ? std::to_string(r.false_expirations).c_str()
                               : "-",
      r.spurious_rebalances >= 0 ? std::to_string(r.spurious_rebalances).c_str()
                                 : "-",
      r.ok ? "yes" : ("NO: " + r.problem).c_str());
  }
}

void write_json(const std::string& path, const std::vector<row>& rows,
                const options& opt) {
  std::ofstream out{path};
  out << "{\"cores\": " << std::thread::hardware_concurrency()
      << ", \"members\": " << opt.members << ", \"groups\": " << opt.groups
      << ", \"heartbeat_interval_ms\": " << opt.heartbeat_interval_ms
      << ", \"shared_ticker\": " << (opt.shared_ticker ? "true" : "false")
      << ", \"assignment_interval_ms\": " << opt.assignment_interval_ms
      << ", \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    out << "  {\"scenario\": \"" << r.scenario << "\", \"protocol\": \""
        << r.protocol << "\", \"assignor\": \"" << r.assignor
        << "\", \"groups\": " << r.groups
        << ", \"members_per_group\": " << r.members_per_group
        << ", \"partitions_per_group\": " << r.partitions_per_group
        << ", \"p50_ms\": " << r.p50_ms << ", \"p99_ms\": " << r.p99_ms
        << ", \"max_ms\": " << r.max_ms
        << ", \"since_last_join_ms\": " << r.since_last_join_ms
        << ", \"coordinator_msgs_per_s\": " << r.coordinator_msgs_per_s
        << ", \"heartbeats_per_s\": " << r.heartbeats_per_s
        << ", \"commits_per_s\": " << r.commits_per_s
        << ", \"rss_bytes_per_member\": " << r.rss_bytes_per_member
        << ", \"retained_bytes_per_member\": " << r.retained_bytes_per_member
        << ", \"cpu_percent\": " << r.cpu_percent
        << ", \"moved_partitions\": " << r.moved_partitions
        << ", \"false_expirations\": " << r.false_expirations
        << ", \"spurious_rebalances\": " << r.spurious_rebalances
        << ", \"session_timeout_ms\": " << r.session_timeout_ms
        << ", \"ok\": " << (r.ok ? "true" : "false") << "}"
        << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  out << "]}\n";
}

/// The coordinator's own memory per member: one driver actor joins
/// `members` raw members into one group (no client actor per member, so
/// only the broker side is counted: group entry, session timer,
/// parked promises while they wait) and syncs them; RSS before and after.
double coordinator_bytes_per_member(caf::actor_system& sys, int32_t members) {
  cluster_config cfg;
  cfg.group.initial_rebalance_delay_ms = 3000; // every join lands first
  auto node = spawn_embedded_node(sys, cfg);
  auto p = offsets_partition_for("mem", cfg.offsets_topic_num_partitions);
  auto coordinator = node.brokers[static_cast<size_t>(p) % node.brokers.size()];
  auto synced = std::make_shared<std::atomic<int32_t>>(0);
  auto rss0 = rss_bytes();
  auto driver = sys.spawn([=](caf::event_based_actor* self) {
    auto leader_done = std::make_shared<bool>(false);
    for (int32_t i = 0; i < members; ++i) {
      join_group_request r;
      r.group_id = "mem";
      r.protocol_type = "consumer";
      r.protocols = {{"range", bytes(24, 1)}};
      r.session_timeout_ms = 45000;
      r.rebalance_timeout_ms = 60000;
      r.client_id = "m";
      r.require_known_member_id = false;
      self->send(coordinator, std::move(r));
    }
    return caf::behavior{
      [=](join_group_response& r) {
        sync_group_request s{"mem", r.generation_id, r.member_id, "", "", "",
                             {}};
        if (r.leader == r.member_id)
          for (auto& m : r.members)
            s.assignments.push_back({m.member_id, bytes(16, 2)});
        self->send(coordinator, std::move(s));
      },
      [=](sync_group_response&) { ++*synced; },
    };
  });
  auto deadline = steady::now() + std::chrono::seconds(120);
  while (*synced < members && steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::fprintf(stderr, "\r[coordinator-memory] %d/%d members synced   ",
                 synced->load(), members);
  }
  std::fprintf(stderr, "\n");
  auto per_member = (rss_bytes() - rss0) / members;
  caf::anon_send_exit(driver, caf::exit_reason::user_shutdown);
  stop_embedded_node(node);
  return *synced == members ? per_member : -1;
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"troupe stress harness: N consumer actors in G groups "
               "against the embedded three-broker node"};
  app.add_option("-n,--members", opt.members, "Consumers in all")
    ->check(CLI::Range(1, 1000000));
  app.add_option("-g,--groups", opt.groups, "Groups (members split evenly)")
    ->check(CLI::Range(1, 100000));
  app
    .add_option("-p,--partitions", opt.partitions,
                "Partitions of each group's topic (0: one per member)")
    ->check(CLI::Range(0, 1000000));
  app
    .add_option("--group-protocol", opt.group_protocol,
                "group.protocol of every consumer: classic (JoinGroup/"
                "SyncGroup, client-side assignor) or consumer (KIP-848, "
                "server-side uniform assignor)")
    ->check(CLI::IsMember({"classic", "consumer"}));
  app.add_option("-a,--assignor", opt.assignor, "Assignor")
    ->check(
      CLI::IsMember({"range", "roundrobin", "sticky", "cooperative-sticky"}));
  app.add_option("--shared-ticker", opt.shared_ticker,
                 "true: the classic consumers' heartbeat ticks come from one "
                 "shared ticker (a timer wheel); false: one delayed send per "
                 "heartbeat each");
  app
    .add_option("--heartbeat-interval-ms", opt.heartbeat_interval_ms,
                "heartbeat.interval.ms of every consumer")
    ->check(CLI::Range(1, 60000));
  app
    .add_option("--assignment-interval-ms", opt.assignment_interval_ms,
                "group.consumer.assignment.interval.ms of the embedded node: "
                "least time between two assignor runs of a consumer-protocol "
                "group (0: on every change)")
    ->check(CLI::Range(0, 600000));
  app
    .add_option("--session-timeout-ms", opt.session_timeout_ms,
                "session.timeout.ms of every consumer")
    ->check(CLI::Range(1000, 1800000));
  app.add_option("--steady-seconds", opt.steady_seconds,
                 "Length of the steady-state scenario");
  app.add_option("--commit-seconds", opt.commit_seconds,
                 "Length of the commit storm");
  app.add_option("-s,--scenario", opt.scenarios,
                 "cold-start, steady, commit-storm, churn, crash-storm "
                 "(repeatable; cold-start always runs first)");
  app.add_option("--json", opt.json, "Write the figures as JSON here");
  app.add_flag("--check", opt.check,
               "Exit non-zero unless every scenario is correct (for CI)");
  app.add_option("--threads", opt.threads, "Scheduler threads (0: cores)");
  app.add_option("--policy", opt.policy, "sharing or stealing")
    ->check(CLI::IsMember({"sharing", "stealing"}));
  app.add_option("--timeout-seconds", opt.timeout_seconds,
                 "Give up waiting for a stable group after this long");
  app.add_option("--connect", opt.connect,
                 "host:port of a cluster node's troupe.cluster.port: run the "
                 "consumers here against brokers in other processes");
  app.add_flag("--with-log-creation", opt.with_log_creation,
               "With --connect: start the cold start as soon as the new "
               "topics have leaders, while the nodes still create their logs");
  int32_t coordinator_memory = 0;
  app.add_option("--coordinator-memory", coordinator_memory,
                 "Only measure the coordinator's memory per member with this "
                 "many raw members (no client actors), then exit");
  CLI11_PARSE(app, argc, argv);
  if (opt.members < opt.groups) {
    std::fprintf(stderr, "need at least one member per group\n");
    return 2;
  }
  spdlog::set_level(spdlog::level::err);

  caf::actor_system_config cfg;
  auto threads = configure_actor_system(
    cfg, {opt.threads, opt.policy},
    opt.connect.empty() ? std::nullopt
                        : std::optional<zookeeper_mode>{zookeeper_mode{}});
  caf::actor_system sys{cfg};

  if (coordinator_memory > 0) {
    auto b = coordinator_bytes_per_member(sys, coordinator_memory);
    std::printf("coordinator resident memory per member (%d members, one "
                "group, no client actors): %.0f bytes\n",
                coordinator_memory, b);
    return b < 0 ? 1 : 0;
  }
  std::printf("troupe stress harness: %d members in %d groups, %u cores, "
              "%zu scheduler threads (%s), group.protocol=%s, "
              "heartbeat.interval.ms=%d, session.timeout.ms=%d, "
              "group.consumer.assignment.interval.ms=%d\n",
              opt.members, opt.groups, std::thread::hardware_concurrency(),
              threads, opt.policy.c_str(), opt.group_protocol.c_str(),
              opt.heartbeat_interval_ms, opt.session_timeout_ms,
              opt.assignment_interval_ms);
  std::vector<row> rows;
  {
    harness h{sys, opt};
    rows.push_back(h.cold_start());
    for (auto& s : opt.scenarios) {
      if (!rows.back().ok && s != "cold-start")
        break; // nothing sensible to measure on a broken group
      if (s == "steady")
        rows.push_back(h.steady_state());
      else if (s == "commit-storm")
        rows.push_back(h.commit_storm());
      else if (s == "churn")
        rows.push_back(h.churn());
      else if (s == "crash-storm")
        rows.push_back(h.crash_storm());
    }
  }
  print_table(rows);
  if (!opt.json.empty())
    write_json(opt.json, rows, opt);
  bool ok =
    std::all_of(rows.begin(), rows.end(), [](const row& r) { return r.ok; });
  if (opt.check)
    std::printf("\n%s\n", ok ? "stress check: every scenario correct"
                             : "stress check: FAILED");
  return opt.check && !ok ? 1 : 0;
}
