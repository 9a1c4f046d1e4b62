#pragma once

// The active controller of a cluster of processes (docs/ARCHITECTURE.md
// §7): Kafka's KafkaController in ZooKeeper mode, on the node whose
// cluster_controller won /controller. It owns the metadata as stored in
// ZooKeeper and the queue of operations that change it; its node hands it
// the requests only a controller serves while the node's actor is in its
// active behavior, and the events it must hear of (brokers changed, a peer
// connected). What it needs of its node (ZooKeeper, the peers, the local
// view) goes through cluster_controller.hpp's node_agent functions.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>
#include <string>

#include <caf/result.hpp>

#include "cluster/cluster_controller.hpp"
#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

class active_controller
  : public std::enable_shared_from_this<active_controller> {
public:
  /// `self` won /controller and set /controller_epoch to `epoch`, which
  /// now has zkVersion `epoch_zk_version`.
  active_controller(cluster_controller_ptr self, int32_t epoch,
                    int32_t epoch_zk_version);

  /// Loads the metadata from ZooKeeper, as the first operation (what
  /// arrives meanwhile waits for the metadata it must build on), handles
  /// every broker that is gone, tells everyone.
  void start();

  /// The controllership ended (fenced, session lost, a write failed): stop
  /// acting; every operation that waits answers NOT_CONTROLLER, and so does
  /// one whose ZooKeeper write is still out when it returns.
  void resign(const std::string& why);

  /// /brokers/ids changed: brokers that left fail over, brokers that came
  /// back get their partitions.
  void on_brokers_changed();

  /// A node connected: it gets the current snapshot.
  void send_snapshot_to(const cluster_controller_actor& peer);

  caf::result<create_topics_response>
  create_topics(create_topics_request& req);

  caf::result<alter_isr_response> alter_isr(alter_isr_request& req);

  /// AlterConfigs / IncrementalAlterConfigs of a topic: validated against
  /// the metadata, stored in /config/topics/<t> with a /config/changes
  /// notification, then every node hears of it in the next snapshot.
  caf::result<alter_topic_configs_response>
  alter_topic_configs(alter_topic_configs_request& req);

  /// /config/changes has new children: a topic config was changed in
  /// ZooKeeper (by this controller, or by another writer of Kafka's
  /// layout); the changed topics are read again.
  void on_config_changes();

  /// Kafka's ZkProducerIdManager.generateProducerId on the controller: the
  /// next block after /latest_producer_id_block, written with its zkVersion
  /// (and the controller epoch's) before it is handed out, so no producer
  /// id is ever given twice, whichever controller hands out the next one.
  caf::result<allocate_producer_ids_response>
  allocate_producer_ids(allocate_producer_ids_request& req);

  /// CreatePartitions: validated against the metadata (actors/
  /// metadata_view.hpp create_partitions), the grown /brokers/topics/<t>
  /// and the new partitions' state znodes written in one fenced multi,
  /// then every node hears of them in the next snapshot (Kafka's
  /// AdminZkClient.addPartitions and the controller's
  /// onNewPartitionCreation, in one step).
  caf::result<create_partitions_response>
  create_partitions(create_partitions_request& req);

  /// ElectLeaders: the new leaders written to the partitions' state
  /// znodes with their zkVersions (Kafka's onReplicaElection).
  caf::result<elect_leaders_response>
  elect_leaders(elect_leaders_request& req);

  /// AlterPartitionReassignments (KIP-455; cluster/reassignment.cpp): the
  /// moving replica sets written to /brokers/topics/<t> with their adding
  /// and removing replicas, as Kafka's controller writes them, and the
  /// partitions' states with leader epoch + 1; a reassignment completes
  /// when its target replicas are all in the ISR (after an AlterIsr).
  caf::result<alter_partition_reassignments_response>
  alter_partition_reassignments(alter_partition_reassignments_request& req);

  /// ListPartitionReassignments (KIP-455; cluster/reassignment.cpp).
  caf::result<list_partition_reassignments_response>
  list_partition_reassignments(list_partition_reassignments_request& req);

  // -- broker liveness (KIP-631; cluster/broker_liveness.cpp) -------------

  /// A broker's heartbeat over its node link: its session is renewed; a
  /// fenced broker is unfenced once its heartbeats have come without a gap
  /// for the unfence delay (the debounce of docs/ARCHITECTURE.md §7).
  broker_heartbeat_response on_heartbeat(const broker_heartbeat& hb);

  /// The node link to a broker closed (the middleman's down_msg: a killed
  /// process's connection closes at once): it is fenced now.
  void on_link_lost(int32_t broker_id);

  /// At the start of a controllership: the brokers whose node link this
  /// node saw close and not come back, and the controller this node
  /// suspected (cluster/controller_failover.cpp), are fenced at once, not
  /// after a session timeout of grace.
  void fence_unlinked();

  /// A cluster_tick of this controllership (session checks, the leader
  /// imbalance check); those of an earlier one are ignored.
  void on_tick(const cluster_tick& t);

  /// Registered in /brokers/ids and not fenced: the brokers that may lead
  /// and be in ISRs, and that metadata answers list.
  std::vector<int32_t> live_brokers() const;

  /// The leader imbalance check (auto.leader.rebalance.enable; cluster/
  /// leader_balance.cpp): partitions whose preferred replica lost too many
  /// of its leaderships get a PREFERRED election.
  void check_leader_balance();

  /// /admin/delete_topics has new children (or the controllership just
  /// began): each requested topic is deleted, one operation each.
  void on_delete_topics();

  /// /admin/reassign_partitions (cluster/reassignment.cpp): its exists
  /// watch fired; `created` starts the moves it names (Kafka's
  /// ZkPartitionReassignmentHandler acts on the creation only), any event
  /// sets the watch again.
  void on_zk_reassignments(bool created);

private:
  /// Sets the exists watch on /admin/reassign_partitions; with `process`
  /// the moves of an existing znode start.
  void watch_zk_reassignments(bool process);
  void start_zk_reassignments(zk::partition_reassignments wanted);
  /// Rewrites /admin/reassign_partitions without the partitions whose move
  /// is done, failed or was replaced through the API (deletes it when none
  /// is left): Kafka's maybeRemoveFromZkReassignment.
  void prune_zk_reassignments();

  /// What the controller knows of one broker's liveness.
  struct broker_session {
    /// The registration (its timestamp) the session belongs to: a broker
    /// registered again is a new incarnation with a new session.
    int64_t registration_ms = 0;
    /// The last heartbeat, or when the session began (a grace of one
    /// session timeout for a new registration or a new controller).
    int64_t last_heartbeat_ms = 0;
    bool fenced = false;
    /// While fenced: since when heartbeats have come without a gap (-1:
    /// none since the fence, or the link closed again).
    int64_t steady_since_ms = -1;
  };

  /// Sessions brought in line with the registrations.
  void sync_sessions();
  /// Fences `broker_id` unless that would leave this controller in touch
  /// with fewer than a majority of the registered brokers (then it is
  /// probably this node that is cut off: nothing is fenced, ZooKeeper's
  /// session expiry decides). True when fenced.
  bool fence(int32_t broker_id, const char* why);
  void schedule(cluster_tick::kind what, int64_t delay_ms);

  /// One controller operation; `cancelled` when the controllership ended
  /// before it ran (it answers NOT_CONTROLLER then).
  using operation = std::function<void(bool cancelled)>;

  struct loading;

  void enqueue(operation op);
  void finish_op();
  void run_next();

  cluster_snapshot snapshot() const;
  std::string state_data(const partition_state& p) const;
  void broadcast();
  void write_chunks(std::shared_ptr<std::vector<std::vector<zk_operation>>>
                      chunks,
                    size_t i, std::function<void(zk_result&)> done);
  void commit(cluster_metadata working, std::function<void(error_code)> done);
  /// commit's write, once it knows which /config/topics znodes exist.
  void write(cluster_metadata working, std::map<std::string, bool> config_znodes,
             std::function<void(error_code)> done);
  void ensure_offsets_topic();
  /// Writes `working`, then answers `res` (ElectLeaders, reassignments):
  /// when the write fails, every result that had succeeded says the
  /// controller moved instead. Ends the operation.
  template <class Response>
  void commit_and_answer(cluster_metadata working,
                         caf::typed_response_promise<Response> rp,
                         Response res) {
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
  }

  void load_metadata();
  void load_topic(std::shared_ptr<loading> l, std::string topic);
  void load_topic_config(std::shared_ptr<loading> l, std::string topic);

  void watch_config_changes(bool initial);
  void read_config_change(std::string path);
  void purge_config_changes(const std::vector<std::string>& children);
  void reload_topic_config(std::string topic);
  void load_partition(std::shared_ptr<loading> l, topic_partition tp);
  void loaded_one(std::shared_ptr<loading> l);
  void finish_loading(std::shared_ptr<loading> l);

  void delete_topic(std::string topic);
  void remove_topic_znodes(std::string topic, std::vector<std::string> leaves,
                           std::vector<std::string> parents, bool config);

  /// Resigns and runs the election again (node_agent::resign_and_retry).
  void give_up(const std::string& why);

  cluster_controller_ptr self_;
  /// The controller epoch this controllership writes with.
  int32_t epoch_;
  /// zkVersion of /controller_epoch as this controller wrote it: every
  /// write checks it, so a deposed controller's writes fail.
  int32_t epoch_zk_version_;
  /// The metadata as stored in ZooKeeper; partition_epoch is each state
  /// znode's zkVersion.
  cluster_metadata metadata_;
  /// Operations run one at a time, each with its ZooKeeper write, like
  /// Kafka's controller event queue.
  std::deque<operation> ops_;
  /// Loading is the first operation: it runs from the start.
  bool op_running_ = true;
  bool resigned_ = false;
  /// The newest /config/changes sequence number seen (those at the start
  /// are already in /config/topics).
  int32_t last_config_change_ = -1;
  /// Topics named under /admin/delete_topics whose deletion has not
  /// finished (Kafka's topicsToBeDeleted).
  std::set<std::string> deleting_;
  /// The moves started from /admin/reassign_partitions and not done yet,
  /// and what the znode holds as last read or written.
  std::map<topic_partition, std::vector<int32_t>> zk_reassignments_;
  std::optional<std::map<topic_partition, std::vector<int32_t>>> zk_stored_;
  bool zk_reassign_writing_ = false;
  /// Broker sessions by broker id (this node's own broker has none: it
  /// cannot lose its link to itself).
  std::map<int32_t, broker_session> sessions_;
  /// When the sessions were last checked: a controller that did not run
  /// for a while (paused, starved) gives every broker a new grace instead
  /// of fencing the brokers it could not hear meanwhile.
  int64_t last_session_check_ms_ = -1;
  /// The live brokers of the last snapshot sent.
  mutable std::vector<int32_t> told_live_;
};

} // namespace troupe
