#include "domain/consumer_group/member.hpp"

namespace troupe {

std::string_view member_state_name(member_state s) noexcept {
  switch (s) {
    case member_state::stable:
      return "STABLE";
    case member_state::unrevoked_partitions:
      return "UNREVOKED_PARTITIONS";
    case member_state::unreleased_partitions:
      return "UNRELEASED_PARTITIONS";
    case member_state::unknown:
      break;
  }
  return "UNKNOWN";
}

member_state member_state_from_int(int8_t value) noexcept {
  switch (value) {
    case 0:
      return member_state::stable;
    case 1:
      return member_state::unrevoked_partitions;
    case 2:
      return member_state::unreleased_partitions;
    default:
      return member_state::unknown;
  }
}

} // namespace troupe
