#pragma once

// From the gateway's Asio threads into the actor system: one long-lived
// bridge actor per gateway thread runs the jobs that thread posts, so a
// request costs a mailbox enqueue instead of spawning an actor. A job runs
// inside the bridge actor: it asks actors with actors/ask.hpp and its
// continuations run there too, one at a time, so the bridge's `State` (a
// cache of the thread's own) needs no lock. Used by the HTTP gateway
// (gateway/rest); the Kafka listener can use it the same way.
// Include only from .cpp files (pulls in caf/all.hpp).

#include <chrono>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "gateway/thread_slot.hpp"

namespace troupe {

template <class State>
struct bridge_job {
  std::function<void(caf::stateful_actor<State>*)> fn;
};

} // namespace troupe

namespace caf {

// A job carries a closure: it never leaves the process, so it needs no
// serialization (docs/ARCHITECTURE.md §5).
template <class State>
struct allowed_unsafe_message_type<troupe::bridge_job<State>> : std::true_type {
};

} // namespace caf

namespace troupe {

/// One bridge actor and a handle to post jobs to it from any thread.
template <class State>
class bridge {
public:
  using self_pointer = caf::stateful_actor<State>*;
  using job = std::function<void(self_pointer)>;

  // -- constructors -----------------------------------------------------------

  explicit bridge(caf::actor_system& sys) : actor_(sys.spawn(behavior)) {
    // nop
  }

  ~bridge() {
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
  }

  bridge(const bridge&) = delete;
  bridge& operator=(const bridge&) = delete;

  // -- operations -------------------------------------------------------------

  /// Runs `fn` inside the bridge actor, soon.
  void post(job fn) const {
    caf::anon_send(actor_, bridge_job<State>{std::move(fn)});
  }

  /// Runs `fn` inside the bridge actor after `delay` (a delayed send: no
  /// thread waits).
  static void post_after(self_pointer self, std::chrono::milliseconds delay,
                         job fn) {
    self->delayed_send(self, delay, bridge_job<State>{std::move(fn)});
  }

  const caf::actor& handle() const {
    return actor_;
  }

private:
  static caf::behavior behavior(self_pointer self) {
    return {
      [self](bridge_job<State>& j) { j.fn(self); },
    };
  }

  caf::actor actor_;
};

/// A bridge per gateway thread: thread i (gateway/thread_slot.hpp) posts to
/// bridge i.
template <class State>
class bridge_pool {
public:
  bridge_pool(caf::actor_system& sys, size_t threads) {
    for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i)
      bridges_.push_back(std::make_unique<bridge<State>>(sys));
  }

  /// The calling thread's bridge.
  bridge<State>& local() const {
    return *bridges_[gateway_thread_slot % bridges_.size()];
  }

  size_t size() const {
    return bridges_.size();
  }

private:
  std::vector<std::unique_ptr<bridge<State>>> bridges_;
};

} // namespace troupe
