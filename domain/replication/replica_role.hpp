#pragma once

// The role a broker's replica of a partition plays (Kafka's Partition:
// leader or follower), as the replica actor holds it and replica_status
// reports it. The names are for the edges (REST/JSON, logs) only.

#include <cstdint>
#include <string>
#include <string_view>

namespace troupe {

enum class replica_role : uint8_t {
  /// Opening (and recovering) its log; no role yet.
  loading,
  leader,
  follower,
  /// Not in the partition's replicas, or its log failed.
  offline,
};

/// "loading", "leader", "follower", "offline".
constexpr std::string_view replica_role_name(replica_role r) noexcept {
  switch (r) {
    case replica_role::loading:
      return "loading";
    case replica_role::leader:
      return "leader";
    case replica_role::follower:
      return "follower";
    case replica_role::offline:
      return "offline";
  }
  return "unknown";
}

/// For printing (logs, and CAF's to_string of messages picks this up).
inline std::string to_string(replica_role r) {
  return std::string{replica_role_name(r)};
}

} // namespace troupe
