// KIP-455 partition reassignment on the active controller
// (docs/ARCHITECTURE.md §7). The domain's cluster_metadata moves the
// replica sets (reassign, complete_reassignments); this writes them to
// ZooKeeper in Kafka's layout (/brokers/topics/<t> with adding_replicas and
// removing_replicas, the state znodes with the new leader epochs) and tells
// every node, whose brokers then start the added replicas and delete the
// removed ones.

#include "cluster/active_controller.hpp"

#include "actors/metadata_view.hpp"

namespace troupe {

caf::result<alter_partition_reassignments_response>
active_controller::alter_partition_reassignments(
  alter_partition_reassignments_request& req) {
  auto rp =
    self_->make_response_promise<alter_partition_reassignments_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    if (cancelled) {
      rp.deliver(alter_partition_reassignments_response{
        error_code::not_controller, "The controller moved; retry.", {}});
      return;
    }
    auto working = metadata_;
    std::vector<partition_change> changed;
    auto res = troupe::alter_partition_reassignments(working, req, changed);
    if (changed.empty()) {
      rp.deliver(std::move(res));
      finish_op();
      return;
    }
    commit_and_answer(std::move(working), rp, std::move(res));
  });
  return rp;
}

caf::result<list_partition_reassignments_response>
active_controller::list_partition_reassignments(
  list_partition_reassignments_request& req) {
  auto rp =
    self_->make_response_promise<list_partition_reassignments_response>();
  // Behind the operations queued before it, so that a reassignment just
  // requested is listed.
  enqueue([this, rp, req](bool cancelled) mutable {
    if (cancelled) {
      rp.deliver(list_partition_reassignments_response{
        error_code::not_controller, "The controller moved; retry.", {}});
      return;
    }
    rp.deliver(troupe::list_partition_reassignments(metadata_, req));
    finish_op();
  });
  return rp;
}

} // namespace troupe
