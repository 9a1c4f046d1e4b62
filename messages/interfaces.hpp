#pragma once

// Typed actor interfaces at the module boundaries: the compiler checks that
// every sender speaks the receiver's protocol.

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"

namespace troupe {

/// The group protocol as every broker and every group coordinator speaks it.
#define TROUPE_GROUP_PROTOCOL                                                  \
  caf::replies_to<join_group_request>::with<join_group_response>,              \
    caf::replies_to<sync_group_request>::with<sync_group_response>,            \
    caf::replies_to<heartbeat_request>::with<heartbeat_response>,              \
    caf::replies_to<leave_group_request>::with<leave_group_response>,          \
    caf::replies_to<offset_commit_request>::with<offset_commit_response>,      \
    caf::replies_to<offset_fetch_request>::with<offset_fetch_response>

/// Whoever answers a group's requests: the broker (which routes) or, once
/// a JoinGroup answer revealed it, the group's coordinator itself.
using group_protocol_actor = caf::typed_actor<TROUPE_GROUP_PROTOCOL>;

/// One per group, on the broker that leads the group's __consumer_offsets
/// partition.
using group_coordinator_actor = caf::typed_actor<
  TROUPE_GROUP_PROTOCOL,
  caf::replies_to<describe_groups_request>::with<described_group>,
  caf::replies_to<list_groups_request>::with<listed_group>,
  caf::reacts_to<session_tick>,
  caf::replies_to<offsets_expiry_check>::with<offsets_expiry_result>,
  caf::reacts_to<join_timeout>, caf::reacts_to<sync_timeout>,
  caf::reacts_to<group_shutdown>,
  caf::replies_to<delete_groups_request>::with<delete_groups_response>,
  caf::replies_to<offset_delete_request>::with<offset_delete_response>>;

/// One per KIP-848 consumer group, on the broker that leads the group's
/// __consumer_offsets partition (actors/groups/consumer_group_coordinator).
using consumer_group_coordinator_actor = caf::typed_actor<
  caf::replies_to<consumer_group_heartbeat_request>::with<
    consumer_group_heartbeat_response>,
  caf::replies_to<consumer_group_describe_request>::with<
    consumer_group_described_group>,
  caf::replies_to<offset_commit_request>::with<offset_commit_response>,
  caf::replies_to<offset_fetch_request>::with<offset_fetch_response>,
  caf::replies_to<list_groups_request>::with<listed_group>,
  caf::replies_to<offsets_expiry_check>::with<offsets_expiry_result>,
  caf::reacts_to<consumer_group_topics>,
  caf::reacts_to<consumer_group_session_timeout>,
  caf::reacts_to<consumer_group_rebalance_timeout>,
  caf::reacts_to<consumer_group_assignment_timeout>,
  caf::reacts_to<group_shutdown>,
  caf::replies_to<delete_groups_request>::with<delete_groups_response>,
  caf::replies_to<offset_delete_request>::with<offset_delete_response>>;

/// Holds the cluster's topics (and, with the replicated log, partition
/// leadership and ISR).
using controller_actor = caf::typed_actor<
  caf::replies_to<create_topics_request>::with<create_topics_response>,
  caf::replies_to<metadata_request>::with<metadata_response>,
  caf::replies_to<alter_isr_request>::with<alter_isr_response>,
  caf::replies_to<broker_status_change>::with<leadership_update>,
  caf::reacts_to<cluster_peers>>;

/// What the admin APIs ask of a controller beyond controller_actor:
/// DeleteTopics, topic config changes, blocks of producer ids,
/// CreatePartitions, ElectLeaders, reassignments and a broker's dynamic
/// configs. The
/// embedded controller and a cluster node's speak it; brokers reach it
/// through their controller_actor handle, and a controller that does not
/// speak it answers them with an error.
using admin_controller_actor = caf::typed_actor<
  caf::replies_to<delete_topics_request>::with<delete_topics_response>,
  caf::replies_to<alter_topic_configs_request>::with<
    alter_topic_configs_response>,
  caf::replies_to<allocate_producer_ids_request>::with<
    allocate_producer_ids_response>,
  caf::replies_to<create_partitions_request>::with<create_partitions_response>,
  caf::replies_to<elect_leaders_request>::with<elect_leaders_response>,
  caf::replies_to<alter_partition_reassignments_request>::with<
    alter_partition_reassignments_response>,
  caf::replies_to<list_partition_reassignments_request>::with<
    list_partition_reassignments_response>,
  caf::replies_to<alter_broker_configs_request>::with<
    alter_broker_configs_response>>;

/// CreateAcls, DeleteAcls and AlterUserScramCredentials (docs/ARCHITECTURE.md
/// §9): the embedded controller stores them in its metadata, a cluster
/// node's controller in Kafka's znodes. The Kafka listener reaches it
/// through kafka_request_context.security_admin.
using security_admin_actor = caf::typed_actor<
  caf::replies_to<create_acls_request>::with<create_acls_response>,
  caf::replies_to<delete_acls_request>::with<delete_acls_response>,
  caf::replies_to<alter_scram_credentials_request>::with<
    alter_scram_credentials_response>>;

/// The embedded node's controller (actors/controller).
using embedded_controller_actor = controller_actor::extend_with<
  admin_controller_actor>::extend_with<security_admin_actor>;

/// Produce, fetch and the replicas' offsets, as a broker and each of its
/// partition replicas speak them.
#define TROUPE_PARTITION_PROTOCOL                                              \
  caf::replies_to<produce_request>::with<produce_response>,                    \
    caf::replies_to<fetch_request>::with<fetch_response>,                      \
    caf::replies_to<list_offsets_request>::with<list_offsets_response>,        \
    caf::replies_to<epoch_end_offset_request>::with<epoch_end_offset_response>

/// Hears a replica start and stop leading (the group coordination of
/// __consumer_offsets).
using replica_listener_actor =
  caf::typed_actor<caf::reacts_to<replica_leadership>>;

/// One per partition per broker hosting it: leader or follower.
using replica_actor = caf::typed_actor<
  TROUPE_PARTITION_PROTOCOL,
  caf::replies_to<replica_status_request>::with<replica_status>,
  caf::reacts_to<partition_update>, caf::reacts_to<isr_expiration_tick>,
  caf::reacts_to<produce_timeout>, caf::reacts_to<fetch_timeout>,
  caf::reacts_to<follower_fetch_tick>, caf::reacts_to<cluster_peers>,
  caf::reacts_to<replica_config>,
  caf::replies_to<delete_records_request>::with<delete_records_response>>;

/// One per broker (actors/groups/group_service): group coordination. Its
/// broker hands it every group request and FindCoordinator, the leadership
/// of __consumer_offsets (leadership_update), the cluster's brokers and
/// topics, and its own stop and start; the replicas of __consumer_offsets
/// tell it when they lead.
using group_service_actor = caf::typed_actor<
  TROUPE_GROUP_PROTOCOL,
  caf::replies_to<find_coordinator_request>::with<find_coordinator_response>,
  caf::replies_to<describe_groups_request>::with<describe_groups_response>,
  caf::replies_to<list_groups_request>::with<list_groups_response>,
  caf::replies_to<consumer_group_heartbeat_request>::with<
    consumer_group_heartbeat_response>,
  caf::replies_to<consumer_group_describe_request>::with<
    consumer_group_describe_response>,
  caf::reacts_to<cluster_peers>, caf::reacts_to<leadership_update>,
  caf::reacts_to<consumer_group_topics>, caf::reacts_to<broker_status_change>,
  caf::reacts_to<replica_leadership>, caf::reacts_to<offsets_expiry_tick>,
  caf::replies_to<delete_groups_request>::with<delete_groups_response>,
  caf::replies_to<offset_delete_request>::with<offset_delete_response>>;

/// One per broker id: routes each request to the partition's replica, and
/// every group request to its group service.
using broker_actor = caf::typed_actor<
  TROUPE_GROUP_PROTOCOL, TROUPE_PARTITION_PROTOCOL,
  caf::replies_to<broker_status_request>::with<replica_statuses>,
  caf::reacts_to<broker_status_change>,
  caf::replies_to<find_coordinator_request>::with<find_coordinator_response>,
  caf::replies_to<metadata_request>::with<metadata_response>,
  caf::replies_to<create_topics_request>::with<create_topics_response>,
  caf::replies_to<describe_groups_request>::with<describe_groups_response>,
  caf::replies_to<list_groups_request>::with<list_groups_response>,
  caf::replies_to<consumer_group_heartbeat_request>::with<
    consumer_group_heartbeat_response>,
  caf::replies_to<consumer_group_describe_request>::with<
    consumer_group_describe_response>,
  caf::reacts_to<cluster_peers>, caf::reacts_to<leadership_update>,
  caf::replies_to<delete_topics_request>::with<delete_topics_response>,
  caf::replies_to<init_producer_id_request>::with<init_producer_id_response>,
  caf::reacts_to<topic_deletion>,
  caf::replies_to<alter_topic_configs_request>::with<
    alter_topic_configs_response>,
  caf::reacts_to<topic_config_change>,
  caf::replies_to<delete_groups_request>::with<delete_groups_response>,
  caf::replies_to<offset_delete_request>::with<offset_delete_response>,
  caf::replies_to<create_partitions_request>::with<create_partitions_response>,
  caf::replies_to<elect_leaders_request>::with<elect_leaders_response>,
  caf::replies_to<alter_partition_reassignments_request>::with<
    alter_partition_reassignments_response>,
  caf::replies_to<list_partition_reassignments_request>::with<
    list_partition_reassignments_response>,
  caf::replies_to<delete_records_request>::with<delete_records_response>,
  caf::replies_to<describe_log_dirs_request>::with<describe_log_dirs_response>,
  caf::replies_to<alter_broker_configs_request>::with<
    alter_broker_configs_response>,
  caf::reacts_to<dynamic_broker_configs>,
  caf::replies_to<dynamic_broker_configs_request>::with<
    dynamic_broker_configs>>;

/// A node's ZooKeeper session (cluster/zookeeper_session).
using zookeeper_session_actor =
  caf::typed_actor<caf::replies_to<zk_request>::with<zk_result>,
                   caf::replies_to<zk_multi_request>::with<zk_result>,
                   caf::reacts_to<zk_completion>, caf::reacts_to<zk_reconnect>>;

/// Whoever owns a ZooKeeper session hears of its state and its watches.
using zookeeper_owner_actor = caf::typed_actor<caf::reacts_to<zk_session_event>,
                                               caf::reacts_to<zk_watch_event>>;

/// A cluster node's controller (ZooKeeper mode, cluster/cluster_controller):
/// the controller protocol for its broker (admin requests included), plus
/// what the other nodes and its ZooKeeper session send it. The one actor a
/// node publishes on troupe.cluster.port.
using cluster_controller_actor = embedded_controller_actor::extend<
  caf::reacts_to<zk_session_event>, caf::reacts_to<zk_watch_event>,
  caf::reacts_to<cluster_snapshot>,
  caf::replies_to<node_info_request>::with<node_info>,
  caf::replies_to<broker_heartbeat>::with<broker_heartbeat_response>,
  caf::replies_to<controller_silence_query>::with<controller_silence_vote>,
  caf::reacts_to<cluster_tick>, caf::reacts_to<cluster_parts>>;

/// The client-side consumer (what a Kafka consumer's coordinator does).
using consumer_actor = caf::typed_actor<
  caf::replies_to<consumer_status_request>::with<consumer_status>,
  caf::replies_to<consumer_commit>::with<offset_commit_response>,
  caf::replies_to<consumer_close>::with<consumer_status>,
  caf::replies_to<consumer_assign>::with<consumer_positions>,
  caf::replies_to<consumer_seek>::with<consumer_positions>,
  caf::replies_to<consumer_positions_request>::with<consumer_positions>,
  caf::reacts_to<consumer_crash>, caf::reacts_to<heartbeat_tick>,
  caf::reacts_to<rejoin_tick>>;

/// One per broker: the broker's partition logs on disk.
using log_manager_actor = caf::typed_actor<
  caf::replies_to<log_append_request>::with<log_append_response>,
  caf::replies_to<log_read_request>::with<log_read_response>,
  caf::replies_to<log_truncate_request>::with<log_read_response>,
  caf::replies_to<log_epoch_request>::with<log_epoch_response>,
  caf::replies_to<log_diverge_request>::with<log_epoch_response>,
  caf::replies_to<list_offsets_request>::with<list_offsets_response>,
  caf::reacts_to<log_maintenance_tick>, caf::reacts_to<log_delete_request>,
  caf::reacts_to<topic_log_config>, caf::reacts_to<log_cleaner_tick>,
  caf::replies_to<describe_log_dirs_request>::with<describe_log_dirs_response>,
  caf::replies_to<delete_records_request>::with<delete_records_response>>;

/// Receives a consumer's or a group's events.
using event_listener_actor =
  caf::typed_actor<caf::reacts_to<consumer_event>, caf::reacts_to<group_event>>;

#undef TROUPE_GROUP_PROTOCOL
#undef TROUPE_PARTITION_PROTOCOL

} // namespace troupe
