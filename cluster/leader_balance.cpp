// Preferred leaders on the active controller: the leader imbalance check of
// auto.leader.rebalance.enable (docs/ARCHITECTURE.md §7).

#include "cluster/active_controller.hpp"

namespace troupe {

void active_controller::check_leader_balance() {
  // TODO(issue 23, preferred leaders)
}

} // namespace troupe
