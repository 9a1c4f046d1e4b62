#include "client/heartbeat_ticker.hpp"

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "actors/clock.hpp"
#include "domain/timer_wheel.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

namespace {

using ticker_wake_atom = caf::atom_constant<caf::atom("tkwake")>;

struct ticker_state {
  struct member {
    consumer_actor handle;
    uint64_t epoch = 0;
    int64_t interval_ms = 0;
  };
  struct timer {
    caf::actor_id member = 0;
    uint64_t epoch = 0;
  };
  std::unordered_map<caf::actor_id, member> members;
  timer_wheel<timer> wheel;
  /// The deadline the ticker's one clock entry waits for, if any.
  std::optional<int64_t> armed;
};

using ticker_ptr = caf::stateful_actor<ticker_state>*;

/// Waits on the wheel's earliest bucket unless an entry for it, or an
/// earlier one, is already out.
void arm(ticker_ptr self) {
  auto& st = self->state;
  auto next = st.wheel.next_deadline();
  if (!next || (st.armed && *st.armed <= *next))
    return;
  st.armed = next;
  self->delayed_send(self, ms(std::max<int64_t>(0, *next - now_ms(self))),
                     ticker_wake_atom::value, *next);
}

caf::behavior heartbeat_ticker(ticker_ptr self) {
  return {
    [self](ticker_join_atom, caf::actor& who, uint64_t epoch,
           int32_t interval_ms) {
      auto& st = self->state;
      auto interval = std::max<int64_t>(1, interval_ms);
      auto id = who.id();
      st.members[id] = {caf::actor_cast<consumer_actor>(who), epoch, interval};
      st.wheel.schedule(now_ms(self) + interval, {id, epoch});
      arm(self);
    },
    [self](ticker_leave_atom, caf::actor_id id) { self->state.members.erase(id); },
    [self](ticker_wake_atom, int64_t deadline) {
      auto& st = self->state;
      if (st.armed == deadline)
        st.armed.reset();
      auto now = now_ms(self);
      for (auto& t : st.wheel.advance(now)) {
        // A member that left, or joined again since, is dropped here.
        auto m = st.members.find(t.member);
        if (m == st.members.end() || m->second.epoch != t.epoch)
          continue;
        self->send(m->second.handle, heartbeat_tick{t.epoch});
        st.wheel.schedule(now + m->second.interval_ms, t);
      }
      arm(self);
    },
  };
}

} // namespace

caf::actor spawn_heartbeat_ticker(caf::actor_system& sys) {
  return sys.spawn(heartbeat_ticker);
}

} // namespace troupe
