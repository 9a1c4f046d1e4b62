#include "actors/clock.hpp"

#include <caf/actor_clock.hpp>
#include <caf/local_actor.hpp>

namespace troupe {

int64_t now_ms(caf::local_actor* self) {
  using namespace std::chrono;
  auto t = self->clock().now().time_since_epoch();
  return duration_cast<milliseconds>(t).count();
}

} // namespace troupe
