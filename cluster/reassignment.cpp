// KIP-455 partition reassignment on the active controller
// (docs/ARCHITECTURE.md §7). The domain's cluster_metadata moves the
// replica sets (reassign, complete_reassignments); this writes them to
// ZooKeeper in Kafka's layout (/brokers/topics/<t> with adding_replicas and
// removing_replicas, the state znodes with the new leader epochs) and tells
// every node, whose brokers then start the added replicas and delete the
// removed ones. Moves asked for through Kafka's older way, a JSON plan
// written to /admin/reassign_partitions, start when that znode is created;
// the znode shrinks as they complete (Kafka's ZK-mode KafkaController).

#include "cluster/active_controller.hpp"

#include <spdlog/spdlog.h>

#include "actors/metadata_view.hpp"
#include "cluster/zk_ops.hpp"

namespace troupe {

namespace {

using kind = zk_operation::kind;
using zk_error = cluster::zk_error;
using node_agent::zk_ask;
using node_agent::zk_multi;
using zk_ops::is;
using zk_ops::zop;

} // namespace

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
    // A partition the API moves (or cancels) leaves the znode's plan
    // (Kafka's onApiPartitionReassignment).
    for (auto& r : res.results)
      if (r.error == error_code::none)
        zk_reassignments_.erase(r.partition);
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

// -- /admin/reassign_partitions ----------------------------------------------------

void active_controller::on_zk_reassignments(bool created) {
  watch_zk_reassignments(created);
}

/// Kafka's registerZNodeChangeHandlerAndCheckExistence: an exists watch
/// (it fires on creation, data change and deletion), then the plan read
/// if asked.
void active_controller::watch_zk_reassignments(bool process) {
  auto path = std::string{zk::reassign_partitions_path};
  auto exists = zop(kind::exists, path);
  exists.watch = true;
  zk_ask(self_, std::move(exists),
         [me = shared_from_this(), path, process](zk_result& r) {
           if (me->resigned_)
             return;
           if (is(r, zk_error::no_node)) {
             me->zk_stored_ = std::map<topic_partition, std::vector<int32_t>>{};
             return;
           }
           if (!is(r, zk_error::ok) || !process)
             return;
           zk_ask(me->self_, zop(kind::get, path), [me](zk_result& g) {
             if (me->resigned_ || !is(g, zk_error::ok))
               return;
             auto plan = zk::decode_reassign_partitions(g.data);
             if (!plan) {
               // Kafka logs and leaves a plan it cannot parse; so does
               // troupe, and deletes it so that a new one can be written.
               spdlog::error("controller: {}", plan.error());
               me->zk_reassignments_.clear();
               me->zk_stored_.reset();
               me->prune_zk_reassignments();
               return;
             }
             me->start_zk_reassignments(std::move(*plan));
           });
         });
}

/// Kafka's processZkPartitionReassignment: each partition of the plan is
/// reassigned as AlterPartitionReassignments would; those refused leave
/// the znode at once (maybeRemoveFromZkReassignment with the failures).
void active_controller::start_zk_reassignments(
  zk::partition_reassignments wanted) {
  enqueue([this, wanted](bool cancelled) {
    if (cancelled)
      return;
    // The znode is the plan: what an earlier one started and this one
    // leaves out is no longer the znode's to track.
    zk_reassignments_.clear();
    alter_partition_reassignments_request req;
    std::map<topic_partition, std::vector<int32_t>> stored;
    for (auto& [tp, replicas] : wanted) {
      topic_partition p{tp.first, tp.second};
      stored[p] = replicas;
      req.partitions.push_back({p, false, replicas});
    }
    zk_stored_ = stored;
    auto working = metadata_;
    std::vector<partition_change> changed;
    auto res = troupe::alter_partition_reassignments(working, req, changed);
    for (auto& r : res.results) {
      if (r.error == error_code::none) {
        zk_reassignments_[r.partition] = stored[r.partition];
        continue;
      }
      spdlog::warn("controller: the reassignment of {} in {} failed: {} {}",
                   to_string(r.partition), zk::reassign_partitions_path,
                   to_string(r.error), r.message);
    }
    spdlog::info("controller: {} reassignments from {}",
                 zk_reassignments_.size(), zk::reassign_partitions_path);
    if (changed.empty()) {
      prune_zk_reassignments();
      finish_op();
      return;
    }
    commit(std::move(working), [me = shared_from_this()](error_code) {
      // commit's broadcast prunes the znode
      me->finish_op();
    });
  });
}

void active_controller::prune_zk_reassignments() {
  if (resigned_ || zk_reassign_writing_ || !zk_stored_)
    return;
  for (auto i = zk_reassignments_.begin(); i != zk_reassignments_.end();) {
    auto p = metadata_.partition(i->first);
    if (!p || !p->reassigning())
      i = zk_reassignments_.erase(i);
    else
      ++i;
  }
  if (zk_reassignments_ == *zk_stored_)
    return;
  auto path = std::string{zk::reassign_partitions_path};
  std::vector<zk_operation> ops;
  ops.push_back(zop(kind::check, std::string{zk::controller_epoch_path}, {},
                    epoch_zk_version_));
  if (zk_reassignments_.empty()) {
    ops.push_back(zop(kind::remove, path));
  } else {
    zk::partition_reassignments left;
    for (auto& [tp, replicas] : zk_reassignments_)
      left[{tp.topic, tp.partition}] = replicas;
    ops.push_back(zop(kind::set, path, zk::encode_reassign_partitions(left)));
  }
  zk_reassign_writing_ = true;
  auto written = zk_reassignments_;
  zk_multi(self_, std::move(ops),
           [me = shared_from_this(), written](zk_result& r) {
             me->zk_reassign_writing_ = false;
             if (me->resigned_)
               return;
             if (is(r, zk_error::ok) || is(r, zk_error::no_node)) {
               me->zk_stored_ = written;
               spdlog::info("controller: {} {}", zk::reassign_partitions_path,
                            written.empty() ? "deleted: every move is done"
                                            : "rewritten without the moves "
                                              "that are done");
             } else {
               spdlog::warn("controller: cannot rewrite {}: {}",
                            zk::reassign_partitions_path,
                            cluster::to_string(static_cast<zk_error>(r.error)));
               return;
             }
             // Moves that completed while this write was out.
             me->prune_zk_reassignments();
           });
}

} // namespace troupe
