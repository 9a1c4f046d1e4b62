// The shared heartbeat ticker (client/heartbeat_ticker.hpp) on simulated
// time: each member hears heartbeat_tick every heartbeat.interval.ms, with
// the epoch it joined with, until it leaves or joins again.

#include <catch2/catch.hpp>

#include <memory>
#include <utility>
#include <vector>

#include "actors/clock.hpp"
#include "client/heartbeat_ticker.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

/// (simulated ms, epoch) of every tick a member heard.
using tick_log = std::vector<std::pair<int64_t, uint64_t>>;

struct ticker_fixture : test::sim_fixture {
  caf::actor ticker = spawn_heartbeat_ticker(sys);

  ticker_fixture() {
    to_stop.push_back(ticker);
    run();
  }

  /// A member that records its ticks.
  caf::actor member(std::shared_ptr<tick_log> log) {
    auto m = sys.spawn([log](caf::event_based_actor* self) -> caf::behavior {
      return {[self, log](heartbeat_tick& t) {
        log->emplace_back(now_ms(self), t.epoch);
      }};
    });
    to_stop.push_back(m);
    return m;
  }

  void join(const caf::actor& m, uint64_t epoch, int32_t interval_ms) {
    caf::anon_send(ticker, ticker_join_atom::value, m, epoch, interval_ms);
    run();
  }

  int64_t now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
             sys.clock().now().time_since_epoch())
      .count();
  }
};

} // namespace

TEST_CASE("a member of the shared ticker hears a heartbeat tick every "
          "heartbeat.interval.ms, on time") {
  ticker_fixture fx;
  auto log = std::make_shared<tick_log>();
  auto m = fx.member(log);
  auto t0 = fx.now();
  fx.join(m, 7, 100);
  fx.advance(99);
  CHECK(log->empty()); // never early
  fx.advance(251);
  REQUIRE(log->size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK((*log)[i].first - t0 == 100 * static_cast<int64_t>(i + 1));
    CHECK((*log)[i].second == 7);
  }
}

TEST_CASE("a member that joins the ticker again hears only its new epoch, "
          "at its new interval, and one that leaves hears nothing more") {
  ticker_fixture fx;
  auto log = std::make_shared<tick_log>();
  auto m = fx.member(log);
  auto t0 = fx.now();
  fx.join(m, 1, 100);
  fx.advance(150);
  REQUIRE(log->size() == 1);
  fx.join(m, 2, 30); // a new generation: its ticks replace the old ones
  fx.advance(100);   // to t0 + 250: ticks at 180, 210, 240
  REQUIRE(log->size() == 4);
  for (size_t i = 1; i < 4; ++i) {
    CHECK((*log)[i].second == 2);
    CHECK((*log)[i].first - t0 == 150 + 30 * static_cast<int64_t>(i));
  }
  caf::anon_send(fx.ticker, ticker_leave_atom::value, m.id());
  fx.run();
  fx.advance(500);
  CHECK(log->size() == 4);
}

TEST_CASE("a thousand members on one interval each hear one tick per "
          "interval from the one ticker") {
  ticker_fixture fx;
  std::vector<std::shared_ptr<tick_log>> logs;
  for (int i = 0; i < 1000; ++i) {
    logs.push_back(std::make_shared<tick_log>());
    fx.join(fx.member(logs.back()), 3, 50);
  }
  fx.advance(120);
  for (auto& l : logs) {
    REQUIRE(l->size() == 2);
    CHECK((*l)[0].second == 3);
  }
}
