#pragma once

#include <atomic>
#include <cstdint>

namespace troupe {

/// Process-wide counters of what the group coordinators handled. Relaxed
/// atomics: a counter costs an uncontended add on the hot path. Read by the
/// stress harness (and by /metrics once the gateway exists).
struct coordinator_metrics {
  std::atomic<uint64_t> joins{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> heartbeats{0};
  std::atomic<uint64_t> leaves{0};
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> fetches{0};
  std::atomic<uint64_t> session_checks{0};
  /// Members removed because their session expired.
  std::atomic<uint64_t> session_expiries{0};
  /// Transitions into PreparingRebalance.
  std::atomic<uint64_t> rebalances{0};
  /// Replication: ISR changes stored by the controller, produce and fetch
  /// requests the partition leaders answered.
  std::atomic<uint64_t> isr_shrinks{0};
  std::atomic<uint64_t> isr_expands{0};
  std::atomic<uint64_t> produces{0};
  std::atomic<uint64_t> record_fetches{0};
  /// Steady-clock nanoseconds of the newest JoinGroup handled.
  std::atomic<int64_t> last_join_ns{0};

  uint64_t requests() const {
    return joins + syncs + heartbeats + leaves + commits + fetches
           + session_checks;
  }
};

coordinator_metrics& metrics();

} // namespace troupe
