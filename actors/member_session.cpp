#include "actors/member_session.hpp"

#include <caf/all.hpp>

#include "actors/clock.hpp"
#include "actors/timeouts.hpp"

namespace troupe {

namespace {

void arm(member_session_ptr self, int64_t delay_ms) {
  auto epoch = ++self->state.epoch;
  self->delayed_send(self, ms(delay_ms), session_tick{epoch});
}

} // namespace

member_session_actor::behavior_type
member_session(member_session_ptr self, group_coordinator_actor coordinator,
               std::string member_id, int64_t first_check_ms) {
  self->state.member_id = std::move(member_id);
  self->state.coordinator = coordinator;
  // A session outlives neither its coordinator nor its group.
  self->monitor(coordinator);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  arm(self, first_check_ms);
  return {
    [self](session_rearm& r) { arm(self, r.delay_ms); },
    [self](session_tick& t) {
      if (t.epoch != self->state.epoch)
        return; // re-armed since
      self
        ->request(self->state.coordinator, cluster_request_timeout,
                  session_check{self->state.member_id})
        .then(
          [self](session_verdict& v) {
            if (v.next_check_ms < 0)
              self->quit();
            else
              arm(self, v.next_check_ms);
          },
          [self](caf::error&) { self->quit(); });
    },
  };
}

} // namespace troupe
