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
    commit(std::move(working),
           [me = shared_from_this(), rp, res](error_code e) mutable {
             if (e != error_code::none)
               for (auto& r : res.results)
                 if (r.error == error_code::none) {
                   r.error = e;
                   r.message = "The controller moved; retry.";
                 }
             rp.deliver(std::move(res));
             me->finish_op();
           });
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
