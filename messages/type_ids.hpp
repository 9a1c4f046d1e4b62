#pragma once

// Every message type troupe's actors exchange, in one CAF type-id block.
// A type missing here only fails between two processes, so
// tests/actors/message_roundtrip_tests.cpp round-trips each of them through
// CAF's binary serializer. Add new messages at the end of the block.

#include <caf/type_id.hpp>

#include "cluster/messages.hpp"
#include "messages/admin_messages.hpp"
#include "messages/cluster_messages.hpp"
#include "messages/consumer_group_messages.hpp"
#include "messages/group_messages.hpp"
#include "messages/replication_messages.hpp"
#include "messages/security_messages.hpp"

namespace caf {
class actor_system_config;
}

// clang-format off
CAF_BEGIN_TYPE_ID_BLOCK(troupe, caf::first_custom_type_id)

  // -- group protocol
  CAF_ADD_TYPE_ID(troupe, (troupe::join_group_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::join_group_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::sync_group_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::sync_group_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::heartbeat_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::heartbeat_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::leave_group_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::leave_group_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_commit_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_commit_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_fetch_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_fetch_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::describe_groups_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::describe_groups_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::described_group))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_groups_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_groups_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::listed_group))

  // -- cluster
  CAF_ADD_TYPE_ID(troupe, (troupe::find_coordinator_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::find_coordinator_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::cluster_peers))
  CAF_ADD_TYPE_ID(troupe, (troupe::metadata_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::metadata_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::create_topics_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::create_topics_response))

  // -- coordinator internals
  CAF_ADD_TYPE_ID(troupe, (troupe::join_timeout))
  CAF_ADD_TYPE_ID(troupe, (troupe::sync_timeout))
  CAF_ADD_TYPE_ID(troupe, (troupe::session_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::group_shutdown))
  CAF_ADD_TYPE_ID(troupe, (troupe::group_event))
  CAF_ADD_TYPE_ID(troupe, (troupe::offsets_expiry_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::offsets_expiry_check))
  CAF_ADD_TYPE_ID(troupe, (troupe::offsets_expiry_result))

  // -- client-side consumer
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_event))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_status_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_status))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_commit))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_close))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_crash))
  CAF_ADD_TYPE_ID(troupe, (troupe::heartbeat_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::rejoin_tick))

  // -- partition logs
  CAF_ADD_TYPE_ID(troupe, (troupe::log_append_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_append_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_read_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_read_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_truncate_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_maintenance_tick))

  // -- controller
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_isr_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_isr_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::broker_status_change))
  CAF_ADD_TYPE_ID(troupe, (troupe::leadership_update))

  // -- replicas
  CAF_ADD_TYPE_ID(troupe, (troupe::partition_update))
  CAF_ADD_TYPE_ID(troupe, (troupe::produce_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::produce_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::fetch_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::fetch_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_offsets_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_offsets_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::epoch_end_offset_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::epoch_end_offset_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_epoch_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_epoch_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_diverge_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::isr_expiration_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::produce_timeout))
  CAF_ADD_TYPE_ID(troupe, (troupe::fetch_timeout))
  CAF_ADD_TYPE_ID(troupe, (troupe::follower_fetch_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::replica_status_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::replica_status))
  CAF_ADD_TYPE_ID(troupe, (troupe::replica_statuses))
  CAF_ADD_TYPE_ID(troupe, (troupe::broker_status_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::replica_leadership))

  // -- consumer group protocol (KIP-848)
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_heartbeat_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_heartbeat_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_describe_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_describe_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_described_group))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_topics))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_session_timeout))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_rebalance_timeout))

  // -- a cluster of processes: ZooKeeper session, controllers, nodes
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_multi_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_result))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_completion))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_session_event))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_watch_event))
  CAF_ADD_TYPE_ID(troupe, (troupe::zk_reconnect))
  CAF_ADD_TYPE_ID(troupe, (troupe::cluster_snapshot))
  CAF_ADD_TYPE_ID(troupe, (troupe::node_info_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::node_info))
  CAF_ADD_TYPE_ID(troupe, (troupe::cluster_tick))
  CAF_ADD_TYPE_ID(troupe, (troupe::cluster_parts))
  // -- client-side consumer: manual assignment and positions
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_assign))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_seek))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_positions_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_positions))

  // -- admin: topic deletion, producer ids
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_topics_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_topics_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::topic_deletion))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_delete_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::init_producer_id_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::init_producer_id_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::allocate_producer_ids_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::allocate_producer_ids_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::consumer_group_assignment_timeout))

  // -- log compaction
  CAF_ADD_TYPE_ID(troupe, (troupe::topic_log_config))
  CAF_ADD_TYPE_ID(troupe, (troupe::log_cleaner_tick))

  // -- per-topic configs
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_topic_configs_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_topic_configs_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::topic_config_change))
  CAF_ADD_TYPE_ID(troupe, (troupe::replica_config))

  // -- listeners (issue 21)
  CAF_ADD_TYPE_ID(troupe, (troupe::listener_address))

  // -- ACLs and SCRAM credentials (issue 21)
  CAF_ADD_TYPE_ID(troupe, (troupe::create_acls_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::create_acls_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_acls_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_acls_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_scram_credentials_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_scram_credentials_response))

  // -- group and topic admin (issue 22)
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_groups_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_groups_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_delete_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::offset_delete_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::create_partitions_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::create_partitions_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::elect_leaders_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::elect_leaders_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_records_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::delete_records_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::describe_log_dirs_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::describe_log_dirs_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::reassignment_target))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_partition_reassignments_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::reassignment_result))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_partition_reassignments_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_partition_reassignments_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::ongoing_reassignment))
  CAF_ADD_TYPE_ID(troupe, (troupe::list_partition_reassignments_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::broker_heartbeat))
  CAF_ADD_TYPE_ID(troupe, (troupe::broker_heartbeat_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_broker_configs_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::alter_broker_configs_response))
  CAF_ADD_TYPE_ID(troupe, (troupe::dynamic_broker_configs))
  CAF_ADD_TYPE_ID(troupe, (troupe::dynamic_broker_configs_request))
  CAF_ADD_TYPE_ID(troupe, (troupe::controller_silence_query))
  CAF_ADD_TYPE_ID(troupe, (troupe::controller_silence_vote))

CAF_END_TYPE_ID_BLOCK(troupe)
// clang-format on

namespace troupe {

/// Registers every message type above (and troupe's typed actor handles)
/// with an actor system configuration.
void register_message_types(caf::actor_system_config& cfg);

} // namespace troupe
