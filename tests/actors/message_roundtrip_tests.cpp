// Every actor message survives CAF's binary serializer inside a
// caf::message, which is what crosses the wire between troupe nodes. A type
// missing from the type-id block fails here instead of between processes.

#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "tests/actors/message_samples.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

template <class T>
void check_roundtrip(caf::actor_system& sys, T value) {
  INFO("type: " << caf::type_name<T>::value);
  auto original = caf::make_message(value);
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE(!sink(original));
  caf::message copy;
  caf::binary_deserializer source{sys, buf};
  REQUIRE(!source(copy));
  REQUIRE(copy.match_elements<T>());
  CHECK(caf::deep_to_string(copy.get_as<T>(0)) == caf::deep_to_string(value));
  // The registered name is what the other node looks the type up by.
  CHECK(sys.types().portable_name(caf::make_rtti_pair<T>())
        == caf::type_name<T>::value);
}

/// Checks each value; returns how many types were covered.
template <class... Ts>
size_t check_all(caf::actor_system& sys, Ts... values) {
  (check_roundtrip(sys, std::move(values)), ...);
  return sizeof...(Ts);
}

} // namespace

TEST_CASE("every actor message round-trips through CAF's binary serializer") {
  test::sim_fixture fx;
  auto& sys = fx.sys;
  auto covered = test::with_message_samples(
    caf::actor_cast<caf::actor>(fx.listener),
    [&](auto... values) { return check_all(sys, std::move(values)...); });
  // A message added to type_ids.hpp without a sample here fails this.
  CHECK(covered == caf::id_block::troupe::end - caf::id_block::troupe::begin);
}
