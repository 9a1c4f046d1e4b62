// request_then and ask (actors/ask.hpp) on simulated time: a request's
// timeout leaves the actor clock once its answer arrives, and a request
// that goes unanswered still times out.

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>

#include "actors/ask.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct ask_fixture : test::sim_fixture {
  /// Answers every int with its double; a negative one is never answered.
  caf::actor doubler = sys.spawn([](caf::event_based_actor* self) {
    return caf::behavior{[self](int x) -> caf::result<int> {
      if (x < 0)
        return self->make_response_promise<int>(); // parked forever
      return 2 * x;
    }};
  });

  ask_fixture() {
    to_stop.push_back(doubler);
    run();
  }

  size_t clock_entries() {
    return sched.clock().schedule().size();
  }

  /// Spawns an actor that runs `start` and then stays alive (an actor that
  /// ends takes its timeouts out of the clock anyway).
  template <class F>
  void asker(F start) {
    to_stop.push_back(sys.spawn([start](caf::event_based_actor* self) {
      start(self);
      return caf::behavior{[](const std::string&) {}};
    }));
    run();
  }
};

} // namespace

TEST_CASE("a request answered in time leaves no timeout in the actor clock, "
          "where CAF 0.17's plain request keeps one until it fires") {
  ask_fixture fx;
  auto answer = std::make_shared<std::optional<int>>();
  auto d = fx.doubler;
  SECTION("request_then") {
    fx.asker([=](caf::event_based_actor* self) {
      request_then(
        self, d, std::chrono::seconds(30), 21, [=](int x) { *answer = x; },
        [](caf::error&) {});
    });
    REQUIRE(*answer == 42);
    CHECK(fx.clock_entries() == 0);
  }
  SECTION("ask") {
    fx.asker([=](caf::event_based_actor* self) {
      ask<int>(self, d, std::chrono::milliseconds(30000), 21,
               [=](caf::expected<int> x) {
                 if (x)
                   *answer = *x;
               });
    });
    REQUIRE(*answer == 42);
    CHECK(fx.clock_entries() == 0);
  }
  SECTION("plain request, for comparison") {
    fx.asker([=](caf::event_based_actor* self) {
      self->request(d, std::chrono::seconds(30), 21).then([=](int x) {
        *answer = x;
      });
    });
    REQUIRE(*answer == 42);
    CHECK(fx.clock_entries() == 1);
  }
}

TEST_CASE("a request through request_then that goes unanswered times out "
          "with sec::request_timeout at its timeout, not before") {
  ask_fixture fx;
  auto error = std::make_shared<std::optional<caf::error>>();
  auto d = fx.doubler;
  fx.asker([=](caf::event_based_actor* self) {
    request_then(
      self, d, std::chrono::milliseconds(500), -1, [](int) {},
      [=](caf::error& e) { *error = e; });
  });
  CHECK(fx.clock_entries() == 1);
  fx.advance(499);
  CHECK_FALSE(error->has_value());
  fx.advance(1);
  REQUIRE(error->has_value());
  CHECK(**error == caf::sec::request_timeout);
  CHECK(fx.clock_entries() == 0);
}

TEST_CASE("a request through request_then to an actor that is gone fails at "
          "once and leaves no timeout in the actor clock") {
  ask_fixture fx;
  auto gone = fx.sys.spawn([](caf::event_based_actor*) {
    return caf::behavior{[](int x) { return x; }};
  });
  caf::anon_send_exit(gone, caf::exit_reason::user_shutdown);
  fx.run();
  auto error = std::make_shared<std::optional<caf::error>>();
  fx.asker([=](caf::event_based_actor* self) {
    request_then(
      self, gone, std::chrono::seconds(30), 1, [](int) {},
      [=](caf::error& e) { *error = e; });
  });
  REQUIRE(error->has_value());
  CHECK(**error != caf::sec::request_timeout);
  CHECK(fx.clock_entries() == 0);
}
