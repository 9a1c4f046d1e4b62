#pragma once

#include <optional>
#include <string>
#include <utility>

namespace troupe::zk {

/// A value read from ZooKeeper (a znode's JSON, a connect string), or why it
/// could not be read. Decoders never throw; they return this.
template <class T>
class decoded {
public:
  // -- constructors ------------------------------------------------------------

  decoded(T value) : value_(std::move(value)) {
    // nop
  }

  static decoded failure(std::string why) {
    decoded result;
    result.error_ = std::move(why);
    return result;
  }

  // -- observers ---------------------------------------------------------------

  explicit operator bool() const noexcept {
    return value_.has_value();
  }

  const T& operator*() const& {
    return *value_;
  }

  T&& operator*() && {
    return std::move(*value_);
  }

  const T* operator->() const {
    return &*value_;
  }

  /// Empty when a value is present.
  const std::string& error() const noexcept {
    return error_;
  }

private:
  decoded() = default;

  std::optional<T> value_;
  std::string error_;
};

} // namespace troupe::zk
