#pragma once

// Deterministic actor tests: CAF's test coordinator runs every actor on the
// test thread, and time only moves when the test says so.

#include <memory>
#include <optional>
#include <vector>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "messages/interfaces.hpp"

namespace troupe::test {

inline caf::actor_system_config& sim_config(caf::actor_system_config& cfg) {
  register_message_types(cfg);
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  return cfg;
}

/// Everything a listener heard, in order.
struct recorded_events {
  std::vector<group_event> groups;
  std::vector<consumer_event> consumers;
};

struct sim_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::shared_ptr<recorded_events> events = std::make_shared<recorded_events>();
  event_listener_actor listener;
  /// Long-lived actors the test spawned; stopped before the system goes.
  std::vector<caf::actor> to_stop;

  sim_fixture()
    : sys(sim_config(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    spdlog::set_level(spdlog::level::err);
    auto log = events;
    listener = sys.spawn([log]() -> event_listener_actor::behavior_type {
      return {
        [log](consumer_event& e) { log->consumers.push_back(std::move(e)); },
        [log](group_event& e) { log->groups.push_back(std::move(e)); },
      };
    });
    run();
  }

  ~sim_fixture() {
    for (auto& a : to_stop)
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(listener, caf::exit_reason::user_shutdown);
    run();
    // Long-lived actors (listener, brokers) never finish by themselves and
    // the test scheduler runs nothing on its own: do not wait for them.
    sys.await_actors_before_shutdown(false);
  }

  /// Runs every actor until all mailboxes are empty (time stands still).
  void run() {
    sched.run();
  }

  /// Moves simulated time in 1 ms steps, running everything that becomes
  /// due, so timers fire in order.
  void advance(int64_t total_ms, int64_t step_ms = 1) {
    for (int64_t t = 0; t < total_ms; t += step_ms) {
      sched.advance_time(ms(step_ms));
      run();
    }
  }

  /// Sends `req` to `dest` from a fresh actor; the slot fills when the
  /// answer arrives (an error leaves it empty and sets `failed`).
  template <class Response, class Handle, class Request>
  struct pending {
    std::shared_ptr<std::optional<Response>> answer =
      std::make_shared<std::optional<Response>>();
    std::shared_ptr<bool> failed = std::make_shared<bool>(false);

    bool ready() const {
      return answer->has_value();
    }
    Response& get() const {
      return **answer;
    }
  };

  template <class Response, class Handle, class Request>
  pending<Response, Handle, Request> ask(const Handle& dest, Request req) {
    pending<Response, Handle, Request> p;
    auto answer = p.answer;
    auto failed = p.failed;
    sys.spawn([=](caf::event_based_actor* self) {
      self->request(dest, std::chrono::seconds(3600), req)
        .then([=](Response& r) { *answer = std::move(r); },
              [=](caf::error&) { *failed = true; });
    });
    run();
    return p;
  }
};

} // namespace troupe::test
