#pragma once

#include <chrono>
#include <cstdint>

#include <caf/fwd.hpp>

namespace troupe {

/// Milliseconds on the actor system's clock: the steady clock in production,
/// simulated time under CAF's test coordinator.
int64_t now_ms(caf::local_actor* self);

/// Milliseconds since the epoch on the system clock: timestamps other
/// processes read (ZooKeeper registrations).
int64_t wall_clock_ms();

/// Kafka's time.milliseconds() for what is stored and read elsewhere:
/// commit and group state stamps, record timestamps in __consumer_offsets
/// (docs/ARCHITECTURE.md §3). Another broker, a restarted one or Kafka's
/// tools read them, and offsets expiry (KIP-211) compares them with its own
/// now. The actor clock shifted once, per process, by the wall clock: the
/// wall clock in production, while timers and tests stay deterministic on
/// CAF's test coordinator's simulated time. (The log manager fixes its
/// shift at its own spawn instead, actors/log_manager.cpp, so that a test's
/// record timestamps taken from the system clock are "now" to it.)
int64_t wall_now_ms(caf::local_actor* self);

inline std::chrono::milliseconds ms(int64_t n) {
  return std::chrono::milliseconds{n};
}

} // namespace troupe
