// Preferred leaders on the active controller: the leader imbalance check of
// auto.leader.rebalance.enable (Kafka's KafkaController
// .checkAndTriggerAutoLeaderRebalance; docs/ARCHITECTURE.md §7). Every
// leader.imbalance.check.interval.seconds, each broker that leads fewer of
// the partitions it is the preferred replica of than
// leader.imbalance.per.broker.percentage allows gets them back through a
// PREFERRED election, where it is alive and in the ISR.

#include "cluster/active_controller.hpp"

#include <spdlog/spdlog.h>

#include "actors/metadata_view.hpp"

namespace troupe {

void active_controller::check_leader_balance() {
  auto& config = self_->state.config;
  if (!config.auto_leader_rebalance)
    return;
  enqueue([this](bool cancelled) {
    if (cancelled)
      return;
    auto moving = imbalanced_partitions(
      metadata_, self_->state.config.leader_imbalance_per_broker_percentage,
      deleting_);
    if (moving.empty()) {
      finish_op();
      return;
    }
    elect_leaders_request req;
    req.election_type = 0; // PREFERRED
    req.all_partitions = false;
    req.partitions = std::move(moving);
    auto working = metadata_;
    std::vector<partition_change> elected;
    troupe::elect_leaders(working, req, elected);
    if (elected.empty()) {
      finish_op();
      return;
    }
    spdlog::info("controller: the leader imbalance check moves {} "
                 "leaderships back to their preferred replicas",
                 elected.size());
    commit(std::move(working),
           [me = shared_from_this()](error_code) { me->finish_op(); });
  });
}

} // namespace troupe
