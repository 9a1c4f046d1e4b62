#include "actors/clock.hpp"

#include <caf/actor_clock.hpp>
#include <caf/local_actor.hpp>

namespace troupe {

int64_t now_ms(caf::local_actor* self) {
  using namespace std::chrono;
  auto t = self->clock().now().time_since_epoch();
  return duration_cast<milliseconds>(t).count();
}

int64_t wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

int64_t wall_now_ms(caf::local_actor* self) {
  static const int64_t shift = [] {
    using namespace std::chrono;
    auto steady =
      duration_cast<milliseconds>(steady_clock::now().time_since_epoch());
    return wall_clock_ms() - steady.count();
  }();
  return now_ms(self) + shift;
}

} // namespace troupe
