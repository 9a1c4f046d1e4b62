// The classic consumer's JoinGroup and SyncGroup deadlines on simulated
// time, against a scripted coordinator that never answers them. Those
// requests carry no CAF timeout (CAF 0.17 would keep it in its clock until
// it fired, long after the answer): the consumer's ticks watch them
// (docs/ARCHITECTURE.md §8). Kafka's timeouts stay: a JoinGroup may take
// max.poll.interval.ms plus 5 s, a SyncGroup request.timeout.ms; then the
// consumer marks the coordinator unknown and finds it again.

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "client/consumer.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

/// What the scripted coordinator heard, and the promises it keeps parked.
struct script {
  bool answer_joins = false;
  int finds = 0;
  int joins = 0;
  int syncs = 0;
  int heartbeats = 0;
  std::vector<caf::response_promise> parked;
};

struct deadline_fixture : test::sim_fixture {
  std::shared_ptr<script> seen = std::make_shared<script>();
  caf::actor coordinator;

  deadline_fixture() {
    coordinator = sys.spawn([s = seen](caf::event_based_actor* self) {
      return caf::behavior{
        [=](find_coordinator_request&) {
          ++s->finds;
          return find_coordinator_response{error_code::none, 1, "localhost",
                                           9092, self};
        },
        [=](join_group_request& req) -> caf::result<join_group_response> {
          ++s->joins;
          if (!s->answer_joins) {
            s->parked.push_back(self->make_response_promise());
            return caf::delegated<join_group_response>{};
          }
          join_group_response r;
          r.generation_id = 1;
          r.protocol_type = "consumer";
          r.protocol_name = req.protocols.at(0).name;
          r.leader = "another-member";
          r.member_id = "member-1";
          return r;
        },
        [=](sync_group_request&) -> caf::result<sync_group_response> {
          ++s->syncs;
          s->parked.push_back(self->make_response_promise());
          return caf::delegated<sync_group_response>{};
        },
        [=](heartbeat_request&) {
          ++s->heartbeats;
          return heartbeat_response{};
        },
      };
    });
    to_stop.push_back(coordinator);
    run();
  }

  consumer_actor start(std::string name = "c1") {
    consumer_config c;
    c.name = std::move(name);
    c.group_id = "billing";
    c.topics = {"orders"};
    c.assignors = {"range"};
    c.heartbeat_interval_ms = 3000;
    c.max_poll_interval_ms = 20000;
    c.request_timeout_ms = 10000;
    c.retry_backoff_ms = 100;
    auto a = sys.spawn<consumer>(c,
                       caf::actor_cast<broker_actor>(coordinator), listener);
    to_stop.push_back(caf::actor_cast<caf::actor>(a));
    run();
    return a;
  }

  /// Request timeouts in CAF's clock (the consumer's ticks are ordinary
  /// delayed messages).
  size_t request_timeouts() {
    size_t n = 0;
    for (auto& entry : sched.clock().schedule())
      if (entry.second->subtype
          == caf::detail::simple_actor_clock::request_timeout_type)
        ++n;
    return n;
  }
};

} // namespace

TEST_CASE("an unanswered JoinGroup times out at max.poll.interval.ms plus 5 "
          "s and the consumer finds its coordinator again") {
  deadline_fixture fx;
  fx.start();
  REQUIRE(fx.seen->finds == 1);
  REQUIRE(fx.seen->joins == 1);
  // In flight, the JoinGroup leaves no timeout in CAF's clock.
  CHECK(fx.request_timeouts() == 0);
  // No heartbeats while the JoinGroup is in flight; no new lookup before
  // its deadline (20,000 + 5,000 ms).
  fx.advance(24'000, 1000);
  CHECK(fx.seen->finds == 1);
  CHECK(fx.seen->joins == 1);
  CHECK(fx.seen->heartbeats == 0);
  // The first tick at or after the deadline (ticks every 3,000 ms: 27,000)
  // gives up, and after retry.backoff.ms the consumer looks again.
  fx.advance(3'000 + 100 + 1, 1);
  CHECK(fx.seen->finds == 2);
  CHECK(fx.seen->joins == 2);
  CHECK(fx.request_timeouts() == 0);
}

TEST_CASE("an unanswered SyncGroup times out at request.timeout.ms while the "
          "member heartbeats, and the consumer finds its coordinator again") {
  deadline_fixture fx;
  fx.seen->answer_joins = true;
  fx.start();
  REQUIRE(fx.seen->joins == 1);
  REQUIRE(fx.seen->syncs == 1);
  CHECK(fx.request_timeouts() == 0);
  // Kafka heartbeats while it waits for the SyncGroup answer; its deadline
  // is 10,000 ms after it was sent.
  fx.advance(9'000, 1000);
  CHECK(fx.seen->heartbeats == 3);
  CHECK(fx.seen->finds == 1);
  // The tick at 12,000 ms gives up; the consumer finds the coordinator
  // again and joins again.
  fx.advance(3'000 + 100 + 1, 1);
  CHECK(fx.seen->finds == 2);
  CHECK(fx.seen->joins == 2);
  CHECK(fx.request_timeouts() == 0);
}

TEST_CASE("consumers sharing one behaviour each answer for themselves") {
  // Every classic consumer runs the same handlers; each finds its own
  // state through consumer::current(), set only while it runs.
  deadline_fixture fx;
  fx.seen->answer_joins = true;
  auto a = fx.start("alpha");
  auto b = fx.start("beta");
  auto c = fx.start("gamma");
  CHECK(consumer::current() == nullptr);
  fx.advance(3'000, 1000);
  for (auto& [who, name] : {std::pair{a, "alpha"}, std::pair{b, "beta"},
                            std::pair{c, "gamma"}}) {
    auto status = fx.ask<consumer_status>(who, consumer_status_request{});
    REQUIRE(status.ready());
    CHECK(status.get().consumer == name);
    CHECK(status.get().state == consumer_phase::syncing);
  }
  // Each one's ticks heartbeat for it: three members, one tick each.
  CHECK(fx.seen->heartbeats == 3);
  CHECK(consumer::current() == nullptr);
}
