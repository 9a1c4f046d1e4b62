#pragma once

// The two kinds of group troupe coordinates (Kafka's GroupType: the classic
// JoinGroup/SyncGroup protocol and KIP-848's consumer protocol), the states
// of each, and the state a describe or list answer reports for a group of
// either kind. Enums inside troupe; their Kafka names are for the edges
// only: the Kafka wire (DescribeGroups, ListGroups, ConsumerGroupDescribe),
// the REST/JSON output and logs.
//
// Actor messages carry these enums (CAF 0.17 serializes an enum through its
// underlying type and prints it with the to_string() below; an inspect()
// for an enum would be ambiguous with that overload).

#include <cstdint>
#include <string>
#include <string_view>

namespace troupe {

namespace detail {

/// ASCII case-insensitive equality (Kafka's toLowerCase(Locale.ROOT)).
constexpr bool iequals(std::string_view x, std::string_view y) noexcept {
  if (x.size() != y.size())
    return false;
  for (size_t i = 0; i < x.size(); ++i) {
    auto a = x[i] >= 'A' && x[i] <= 'Z' ? x[i] - 'A' + 'a' : x[i];
    auto b = y[i] >= 'A' && y[i] <= 'Z' ? y[i] - 'A' + 'a' : y[i];
    if (a != b)
      return false;
  }
  return true;
}

} // namespace detail

// -- group type -------------------------------------------------------------------

/// Kafka's GroupType (KIP-848), as ListGroups v5 reports and filters it.
enum class group_type : uint8_t {
  /// JoinGroup/SyncGroup; also a group that does not say.
  classic,
  /// ConsumerGroupHeartbeat (KIP-848).
  consumer,
  /// A name Kafka does not know (a ListGroups filter): matches no group.
  unknown,
};

/// Kafka's names: "classic", "consumer", "unknown".
constexpr std::string_view group_type_name(group_type t) noexcept {
  switch (t) {
    case group_type::classic:
      return "classic";
    case group_type::consumer:
      return "consumer";
    case group_type::unknown:
      break;
  }
  return "unknown";
}

/// Kafka's GroupType.parse: case-insensitive; any other name is unknown.
constexpr group_type parse_group_type(std::string_view name) noexcept {
  for (auto t : {group_type::classic, group_type::consumer})
    if (detail::iequals(name, group_type_name(t)))
      return t;
  return group_type::unknown;
}

/// For printing (CAF's to_string of messages picks this up).
inline std::string to_string(group_type t) {
  return std::string{group_type_name(t)};
}

// -- the states of each kind ----------------------------------------------------------

/// A classic group's state (Kafka's classic GroupMetadata).
enum class group_state : uint8_t {
  empty,
  preparing_rebalance,
  completing_rebalance,
  stable,
  dead,
};

/// Kafka's name of a state: "Empty", "PreparingRebalance", ...
std::string_view state_name(group_state state) noexcept;

/// Kafka's ConsumerGroup.ConsumerGroupState (KIP-848).
enum class consumer_group_state : uint8_t {
  empty,
  /// The group epoch is ahead of the target assignment's.
  assigning,
  /// Some member is not yet at the target assignment.
  reconciling,
  stable,
  dead,
};

/// Kafka's name: "Empty", "Assigning", "Reconciling", "Stable", "Dead".
std::string_view state_name(consumer_group_state state) noexcept;

// -- the state an answer reports, for either kind ---------------------------------------

/// The state of a group of either kind, as DescribeGroups, ListGroups and
/// ConsumerGroupDescribe answers carry it: the union of both kinds' states
/// (Kafka's client-side GroupState), plus `unknown` for an answer that
/// describes no state (an error).
enum class any_group_state : uint8_t {
  /// No state: the answer is an error. Written "" on the wire, as Kafka's
  /// DescribeGroupsResponse.UNKNOWN_STATE; a filter naming no state
  /// parses to it and matches no group.
  unknown,
  preparing_rebalance,
  completing_rebalance,
  stable,
  dead,
  empty,
  assigning,
  reconciling,
};

/// The state's name on the wire: "PreparingRebalance",
/// "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning",
/// "Reconciling"; "" for unknown.
constexpr std::string_view state_name(any_group_state s) noexcept {
  switch (s) {
    case any_group_state::unknown:
      break;
    case any_group_state::preparing_rebalance:
      return "PreparingRebalance";
    case any_group_state::completing_rebalance:
      return "CompletingRebalance";
    case any_group_state::stable:
      return "Stable";
    case any_group_state::dead:
      return "Dead";
    case any_group_state::empty:
      return "Empty";
    case any_group_state::assigning:
      return "Assigning";
    case any_group_state::reconciling:
      return "Reconciling";
  }
  return "";
}

/// A ListGroups states filter entry (KIP-518): Kafka matches it
/// case-insensitively against the groups' state names; any other name is
/// unknown and matches no group.
constexpr any_group_state parse_group_state(std::string_view name) noexcept {
  for (auto s :
       {any_group_state::preparing_rebalance,
        any_group_state::completing_rebalance, any_group_state::stable,
        any_group_state::dead, any_group_state::empty,
        any_group_state::assigning, any_group_state::reconciling})
    if (detail::iequals(name, state_name(s)))
      return s;
  return any_group_state::unknown;
}

constexpr any_group_state to_any(group_state s) noexcept {
  switch (s) {
    case group_state::empty:
      return any_group_state::empty;
    case group_state::preparing_rebalance:
      return any_group_state::preparing_rebalance;
    case group_state::completing_rebalance:
      return any_group_state::completing_rebalance;
    case group_state::stable:
      return any_group_state::stable;
    case group_state::dead:
      return any_group_state::dead;
  }
  return any_group_state::unknown;
}

constexpr any_group_state to_any(consumer_group_state s) noexcept {
  switch (s) {
    case consumer_group_state::empty:
      return any_group_state::empty;
    case consumer_group_state::assigning:
      return any_group_state::assigning;
    case consumer_group_state::reconciling:
      return any_group_state::reconciling;
    case consumer_group_state::stable:
      return any_group_state::stable;
    case consumer_group_state::dead:
      return any_group_state::dead;
  }
  return any_group_state::unknown;
}

/// For printing (CAF's to_string of messages picks this up); "Unknown"
/// where the wire has "".
inline std::string to_string(any_group_state s) {
  return s == any_group_state::unknown ? std::string{"Unknown"}
                                       : std::string{state_name(s)};
}

} // namespace troupe
