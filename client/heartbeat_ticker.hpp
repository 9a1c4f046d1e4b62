#pragma once

// One clock for the classic heartbeats of many consumer actors in one
// process (docs/ARCHITECTURE.md §8): the stress harness's thousands of
// consumers. Each consumer that heartbeats on its own puts one delayed send
// per heartbeat on CAF's clock, a mutex-guarded multimap served by one
// dispatcher thread; at a few hundred thousand heartbeats a second that
// thread is a third of the process's CPU. The ticker files its members in a
// timer wheel (domain/timer_wheel.hpp) and waits on one clock entry for the
// earliest bucket, so a heartbeat costs one message from the ticker and no
// clock entry.
//
// Messages (atoms, so the ticker adds no message type):
//   (ticker_join_atom, member, epoch, interval_ms): from now on, every
//     interval_ms, the member gets heartbeat_tick{epoch}; a join of a
//     member already ticking replaces its epoch and interval;
//   (ticker_leave_atom, member's actor id): its ticks stop.

#include <caf/all.hpp>

namespace troupe {

using ticker_join_atom = caf::atom_constant<caf::atom("tkjoin")>;
using ticker_leave_atom = caf::atom_constant<caf::atom("tkleave")>;

/// The ticker; it lives until it is told to exit.
caf::actor spawn_heartbeat_ticker(caf::actor_system& sys);

} // namespace troupe
