#pragma once

// The time both kinds of group coordinator work in (docs/ARCHITECTURE.md
// §3). Kafka's coordinators stamp commits and state changes with the wall
// clock (time.milliseconds()), and those stamps are stored in
// __consumer_offsets: another broker, a restarted one or Kafka's tools read
// them, and offsets expiry (KIP-211) compares them with its own now. The
// actor system's clock is the steady clock (simulated under CAF's test
// coordinator); shifted once by the wall clock it keeps both properties:
// timers and tests stay deterministic, stored stamps mean the same on
// every node.

#include <chrono>
#include <cstdint>

#include "actors/clock.hpp"

namespace troupe {

inline int64_t group_clock_ms(caf::local_actor* self) {
  static const int64_t shift = [] {
    using namespace std::chrono;
    auto steady =
      duration_cast<milliseconds>(steady_clock::now().time_since_epoch());
    return wall_clock_ms() - steady.count();
  }();
  return now_ms(self) + shift;
}

} // namespace troupe
