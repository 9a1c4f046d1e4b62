#pragma once

// What the two halves of the cluster controller share: the node's side
// (cluster_controller.cpp: session, registration, peers, snapshots,
// forwarding) and the active controller's (cluster_controller_active.cpp).

#include <functional>

#include "actors/cluster_controller.hpp"
#include "cluster/zookeeper_client.hpp"

namespace troupe::cluster_impl {

using zk_error = cluster::zk_error;

inline bool is(const zk_result& r, zk_error e) {
  return r.error == static_cast<int32_t>(e);
}

/// One ZooKeeper operation; `then` gets the result (a lost session actor
/// reads as CLOSING). Dropped when the session epoch moved on meanwhile.
void zk_ask(cluster_controller_ptr self, zk_operation op,
            std::function<void(zk_result&)> then);

/// Several operations, all or none.
void zk_multi(cluster_controller_ptr self, std::vector<zk_operation> ops,
              std::function<void(zk_result&)> then);

/// Brokers registered in /brokers/ids, ascending.
std::vector<int32_t> registered_brokers(const cluster_controller_state& st);

/// Applies the active controller's view: changed partitions go to the local
/// broker; older controller epochs are ignored.
void apply_snapshot(cluster_controller_ptr self, cluster_snapshot s);

/// The cluster_controller of the active controller's node, if connected.
cluster_controller_actor active_controller(const cluster_controller_state& st);

// -- the active controller (cluster_controller_active.cpp) ----------------------

/// Won /controller: bump /controller_epoch, load the metadata from
/// ZooKeeper, handle every broker that is gone, tell everyone.
void become_active(cluster_controller_ptr self);

/// Lost the controllership (fenced, session lost): stop acting, answer
/// what waits with NOT_CONTROLLER.
void resign(cluster_controller_ptr self, const std::string& why);

/// A metadata write or read failed with an unknown outcome (ZooKeeper slow
/// or briefly gone, the session still alive): resign, and run the election
/// again a little later. While this node's session still holds
/// /controller it becomes active again and reads ZooKeeper afresh (Kafka's
/// controller retries its ZooKeeper requests until the session expires);
/// if a newer controller won meanwhile, it follows that one. Without this a
/// resigned controller would keep /controller and leave the cluster with
/// no active controller until its session expired.
void resign_and_retry(cluster_controller_ptr self, const std::string& why);

/// /brokers/ids changed: brokers that left fail over, brokers that came
/// back get their partitions.
void on_brokers_changed(cluster_controller_ptr self,
                        const std::vector<int32_t>& before);

/// A node connected: it gets the current snapshot.
void send_snapshot_to(cluster_controller_ptr self,
                      const cluster_controller_actor& peer);

caf::result<create_topics_response>
create_topics_active(cluster_controller_ptr self, create_topics_request& req);

caf::result<alter_isr_response> alter_isr_active(cluster_controller_ptr self,
                                                 alter_isr_request& req);

/// Kafka's ZkProducerIdManager.generateProducerId on the controller: the
/// next block after /latest_producer_id_block, written with its zkVersion
/// (and the controller epoch's) before it is handed out, so no producer id
/// is ever given twice, whichever controller hands out the next one.
caf::result<allocate_producer_ids_response>
allocate_producer_ids_active(cluster_controller_ptr self,
                             allocate_producer_ids_request& req);

} // namespace troupe::cluster_impl
