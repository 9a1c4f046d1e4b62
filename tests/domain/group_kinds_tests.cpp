// The enums actor messages carry for groups and replicas, and their names
// at the edges: the Kafka wire strings stay Kafka's, the ListGroups filters
// parse as Kafka parses them.

#include <catch2/catch.hpp>

#include "domain/consumer_phase.hpp"
#include "domain/group_kinds.hpp"
#include "domain/replication/replica_role.hpp"

using namespace troupe;

TEST_CASE("group states and types keep Kafka's wire names") {
  CHECK(state_name(to_any(group_state::empty)) == "Empty");
  CHECK(state_name(to_any(group_state::preparing_rebalance))
        == "PreparingRebalance");
  CHECK(state_name(to_any(group_state::completing_rebalance))
        == "CompletingRebalance");
  CHECK(state_name(to_any(group_state::stable)) == "Stable");
  CHECK(state_name(to_any(group_state::dead)) == "Dead");
  CHECK(state_name(to_any(consumer_group_state::empty)) == "Empty");
  CHECK(state_name(to_any(consumer_group_state::assigning)) == "Assigning");
  CHECK(state_name(to_any(consumer_group_state::reconciling))
        == "Reconciling");
  CHECK(state_name(to_any(consumer_group_state::stable)) == "Stable");
  CHECK(state_name(to_any(consumer_group_state::dead)) == "Dead");
  // Each kind's own name is the name its answers carry.
  for (auto s : {group_state::empty, group_state::preparing_rebalance,
                 group_state::completing_rebalance, group_state::stable,
                 group_state::dead})
    CHECK(state_name(to_any(s)) == state_name(s));
  for (auto s : {consumer_group_state::empty, consumer_group_state::assigning,
                 consumer_group_state::reconciling,
                 consumer_group_state::stable, consumer_group_state::dead})
    CHECK(state_name(to_any(s)) == state_name(s));
  // An error answer describes no state: "" as Kafka's UNKNOWN_STATE.
  CHECK(state_name(any_group_state::unknown).empty());
  CHECK(group_type_name(group_type::classic) == "classic");
  CHECK(group_type_name(group_type::consumer) == "consumer");
}

TEST_CASE("ListGroups filters parse state and type names case-insensitively, "
          "other names match no group") {
  CHECK(parse_group_state("Stable") == any_group_state::stable);
  CHECK(parse_group_state("stable") == any_group_state::stable);
  CHECK(parse_group_state("PREPARINGREBALANCE")
        == any_group_state::preparing_rebalance);
  CHECK(parse_group_state("completingrebalance")
        == any_group_state::completing_rebalance);
  CHECK(parse_group_state("eMPTY") == any_group_state::empty);
  CHECK(parse_group_state("Dead") == any_group_state::dead);
  CHECK(parse_group_state("assigning") == any_group_state::assigning);
  CHECK(parse_group_state("Reconciling") == any_group_state::reconciling);
  CHECK(parse_group_state("Preparing") == any_group_state::unknown);
  CHECK(parse_group_state("") == any_group_state::unknown);
  CHECK(parse_group_state("Stable ") == any_group_state::unknown);
  CHECK(parse_group_type("classic") == group_type::classic);
  CHECK(parse_group_type("Consumer") == group_type::consumer);
  CHECK(parse_group_type("CLASSIC") == group_type::classic);
  CHECK(parse_group_type("share") == group_type::unknown);
  CHECK(parse_group_type("") == group_type::unknown);
}

TEST_CASE("replica roles and consumer phases keep their names") {
  CHECK(replica_role_name(replica_role::leader) == "leader");
  CHECK(replica_role_name(replica_role::follower) == "follower");
  CHECK(replica_role_name(replica_role::offline) == "offline");
  CHECK(replica_role_name(replica_role::loading) == "loading");
  CHECK(consumer_phase_name(consumer_phase::unjoined) == "unjoined");
  CHECK(consumer_phase_name(consumer_phase::syncing) == "syncing");
  CHECK(consumer_phase_name(consumer_phase::closed) == "closed");
  CHECK(consumer_phase_name(consumer_phase::failed) == "failed");
  // A KIP-848 member reports its MemberState in lower case.
  for (auto p : {member_phase::unsubscribed, member_phase::joining,
                 member_phase::reconciling, member_phase::acknowledging,
                 member_phase::stable, member_phase::fenced,
                 member_phase::leaving, member_phase::fatal}) {
    std::string lower{member_phase_name(p)};
    for (auto& c : lower)
      c = static_cast<char>(c - 'A' + 'a');
    CHECK(consumer_phase_name(to_consumer_phase(p)) == lower);
  }
}
