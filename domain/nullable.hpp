#pragma once

// A field that Kafka's schemas mark nullable ("nullableVersions"): null and
// empty mean different things (in ConsumerGroupHeartbeat, null is "did not
// change since the last heartbeat"). A std::optional that CAF 0.17 can
// serialize: CAF knows no std::optional, and an inspect() for one would not
// be found by argument-dependent lookup outside namespace std.

#include <optional>
#include <utility>

namespace troupe {

template <class T>
struct nullable : std::optional<T> {
  using std::optional<T>::optional;
  using std::optional<T>::operator=;

  nullable() = default;
  nullable(std::optional<T> x) : std::optional<T>(std::move(x)) {
    // nop
  }
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, nullable<T>& x) {
  if constexpr (Inspector::reads_state) {
    bool present = x.has_value();
    T value = present ? *x : T{};
    return f(present, value);
  } else {
    bool present = false;
    T value{};
    auto result = f(present, value);
    if (present)
      x = std::move(value);
    else
      x.reset();
    return result;
  }
}

} // namespace troupe
