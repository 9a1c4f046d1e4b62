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

inline std::chrono::milliseconds ms(int64_t n) {
  return std::chrono::milliseconds{n};
}

} // namespace troupe
