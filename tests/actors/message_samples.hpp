#pragma once

// One sample value of every message type in the type-id block, for the
// tests that send them through CAF's serializer
// (message_roundtrip_tests.cpp) and through a real middleman between two
// processes (tests/middleman/). A message added to type_ids.hpp without a
// sample here fails message_roundtrip_tests.

#include <caf/actor.hpp>

#include "messages/interfaces.hpp"

namespace troupe::test {

inline bytes b(std::initializer_list<uint8_t> xs) {
  return bytes(xs);
}

/// Calls `f` with every sample; returns what `f` returns. `some_actor`
/// stands in for the handles messages carry.
template <class F>
auto with_message_samples(const caf::actor& some_actor, F f) {
  security::acl_binding acl_sample{
    {security::resource_type::topic, "orders", security::pattern_type::prefixed},
    {"User:alice", "*", security::acl_operation::write,
     security::permission_type::allow}};
  join_group_request join{"g",
                          10000,
                          30000,
                          "m-1",
                          "i-1",
                          "consumer",
                          {{"range", b({1, 2})}, {"sticky", b({})}},
                          "client",
                          "/127.0.0.1",
                          true};
  join_group_response joined{
    error_code::member_id_required, 3, "consumer", "range", "m-1", "m-2",
    {{"m-1", "i-1", b({9})}}};
  offset_commit_request commit{"g", 4, "m-1", "", {{"t", 2, 99, 7, "meta"}}};
  consumer_group_topic_partitions owned{uuid{1, 2}, "t", {0, 3}};
  consumer_group_heartbeat_request cg_beat;
  cg_beat.group_id = "g";
  cg_beat.member_id = "AAAAAAAAAAAAAAAAAAAAAQ";
  cg_beat.member_epoch = 3;
  cg_beat.instance_id = "i-1";
  cg_beat.rebalance_timeout_ms = 30000;
  cg_beat.subscribed_topic_names = std::vector<std::string>{"t", "u"};
  cg_beat.server_assignor = "range";
  cg_beat.topic_partitions =
    std::vector<consumer_group_topic_partitions>{owned};
  cg_beat.client_id = "client";
  cg_beat.client_host = "/127.0.0.1";
  consumer_group_heartbeat_response cg_answer;
  cg_answer.error = error_code::fenced_member_epoch;
  cg_answer.error_message = "fenced";
  cg_answer.member_id = "m";
  cg_answer.member_epoch = 4;
  cg_answer.heartbeat_interval_ms = 5000;
  cg_answer.assignment = consumer_group_assignment{{owned}};
  log_config compacted;
  compacted.compact = true;
  compacted.delete_policy = false;
  compacted.segment_bytes = 104857600;
  compacted.min_cleanable_dirty_ratio = 0.25;
  consumer_group_described_member cg_member;
  cg_member.member_id = "m";
  cg_member.rack_id = "r";
  cg_member.member_epoch = 4;
  cg_member.subscribed_topic_names = {"t"};
  cg_member.assignment = {{owned}};
  cg_member.target_assignment = {{owned, {uuid{3, 4}, "u", {1}}}};
  cg_member.previous_member_epoch = 3;
  cg_member.state = member_state::unrevoked_partitions;
  consumer_group_described_group cg_group;
  cg_group.group_id = "g";
  cg_group.group_state = any_group_state::reconciling;
  cg_group.group_epoch = 5;
  cg_group.assignment_epoch = 5;
  cg_group.assignor_name = "uniform";
  cg_group.members = {cg_member};
  return f(
    join, joined,
    sync_group_request{"g",
                       3,
                       "m-1",
                       "i",
                       "consumer",
                       "range",
                       {{"m-1", b({1})}, {"m-2", b({2, 3})}}},
    sync_group_response{error_code::rebalance_in_progress, "consumer", "range",
                        b({5, 6})},
    heartbeat_request{"g", 3, "m-1", "i-1"},
    heartbeat_response{error_code::illegal_generation},
    leave_group_request{"g", {{"m-1", ""}, {"", "i-2"}}},
    leave_group_response{error_code::none,
                         {{"m-1", "", error_code::unknown_member_id}}},
    commit,
    offset_commit_response{{{"t", 2, error_code::offset_metadata_too_large}}},
    offset_fetch_request{"g", {{"t", 1}, {"u", 0}}, "m-1", 3},
    offset_fetch_response{error_code::none,
                          {{"t", 1, 42, 3, "m", error_code::none}}},
    describe_groups_request{{"a", "b"}},
    describe_groups_response{{{error_code::none,
                               "g",
                               any_group_state::stable,
                               "consumer",
                               "range",
                               {{"m-1", "i", "c", "h", b({1}), b({2})}},
                               7,
                               "m-1"}}},
    described_group{error_code::not_coordinator,
                    "g",
                    any_group_state::dead,
                    "",
                    "",
                    {},
                    0,
                    ""},
    list_groups_request{{any_group_state::stable}, {group_type::consumer}},
    list_groups_response{
      error_code::none,
      {{"g", "consumer", any_group_state::stable, group_type::classic}}},
    listed_group{"g", "consumer", any_group_state::empty, group_type::classic},
    find_coordinator_request{"g"},
    find_coordinator_response{error_code::none, 2, "127.0.0.1", 9094,
                              some_actor, {{"SASL_SSL", "10.0.0.2", 9194}}},
    cluster_peers{{{0, "127.0.0.1", 9092, some_actor,
                    {{"PLAINTEXT", "127.0.0.1", 9092},
                     {"SASL_SSL", "10.0.0.1", 9192}}}}},
    metadata_request{{"t"}, true},
    metadata_response{
      {{1, "h", 9093, some_actor}},
      {{error_code::none, "t", 1, {{0, 2, 5, {2, 0}, {2}, 3}}, uuid{1, 2},
        {{"cleanup.policy", "compact"}, {"retention.ms", "1000"}}}},
      1,
      "AAAAAAAAAAAAAAAAAAAAAQ"},
    create_topics_request{{{"t", 6, 3, {{"min.insync.replicas", "2"}}, true}}},
    create_topics_response{{{"t", error_code::topic_already_exists, "x"}}},
    join_timeout{17}, sync_timeout{18}, session_tick{3},
    group_shutdown{error_code::not_coordinator},
    group_event{"g", any_group_state::stable,
                any_group_state::preparing_rebalance, 4, "why", 1234, 3, "m",
                "range"},
    consumer_event{"c1",
                   consumer_event_kind::revoked,
                   "m-1",
                   4,
                   true,
                   "range",
                   {{"t", 0}},
                   error_code::none,
                   99},
    consumer_status_request{},
    consumer_status{"c1",
                    "m-1",
                    4,
                    consumer_phase::stable,
                    true,
                    "range",
                    {{"t", 1}},
                    error_code::none},
    consumer_commit{{{"t", 0, 5, -1, ""}}}, consumer_close{}, consumer_crash{},
    heartbeat_tick{1}, rejoin_tick{2},
    log_append_request{{"t", 3}, 2, b({0, 1, 2}), true},
    log_append_response{error_code::none, 10, 13},
    log_read_request{{"t", 3}, 10, 4096, 12},
    log_read_response{error_code::offset_out_of_range, b({9}), 0, 13},
    log_truncate_request{{"t", 3}, 12}, log_maintenance_tick{},
    alter_isr_request{{"t", 1}, 2, 5, 7, {2, 0}},
    alter_isr_response{error_code::fenced_leader_epoch,
                       {1, 2, 5, {2, 0, 1}, {2, 0}, 8}},
    broker_status_change{1, false},
    leadership_update{error_code::none, {{"t", {0, 1, 3, {0, 1}, {1}, 4}}}},
    partition_update{"t", {2, 0, 1, {0, 1, 2}, {0, 2}, 3}},
    produce_request{{"t", 1}, -1, 1500, b({7, 8})},
    produce_response{error_code::out_of_order_sequence_number, -1, 0,
                     "Out of order sequence number"},
    fetch_request{{"t", 1}, 2, 40, 65536, 500, 1, 3},
    fetch_response{error_code::none, 40, 0, 44, b({5})},
    list_offsets_request{{"t", 0}, -3, 4},
    list_offsets_response{error_code::none, 1700, 17, 4},
    epoch_end_offset_request{{"t", 0}, 2, 3},
    epoch_end_offset_response{error_code::none, 2, 90},
    log_epoch_request{{"t", 0}, 1, 4},
    log_epoch_response{error_code::none, 0, 100, 4, 1, 60, 90},
    log_diverge_request{{"t", 0}, 1, 60, 55}, isr_expiration_tick{3},
    produce_timeout{4}, fetch_timeout{5}, follower_fetch_tick{6},
    replica_status_request{},
    replica_status{{"t", 0}, 1, replica_role::leader, 1, 2, {1, 0}, 0, 10, 9},
    replica_statuses{
      1, true, {{{"t", 0}, 1, replica_role::follower, 0, 2, {0, 1}, 0, 10, 9}}},
    broker_status_request{},
    replica_leadership{
      {"__consumer_offsets", 7}, 3, true, some_actor, some_actor},
    cg_beat, cg_answer, consumer_group_describe_request{{"g", "h"}, true},
    consumer_group_describe_response{0, {cg_group}}, cg_group,
    consumer_group_topics{{{uuid{1, 2}, "t", 6}}},
    consumer_group_session_timeout{"m", 7},
    consumer_group_rebalance_timeout{"m", 8},
    consumer_group_assignment_timeout{9},
    offsets_expiry_tick{4, 2}, offsets_expiry_check{},
    offsets_expiry_result{3, true},
    zk_request{
      {zk_operation::kind::create, "/config/changes/config_change_", "{}", -1,
       false, true, false}},
    zk_multi_request{
      {{zk_operation::kind::check, "/controller_epoch", "", 4, false, false},
       {zk_operation::kind::set, "/p", "x", 2, false, false}}},
    zk_result{3, "data", "/p", 7, 42, {"1", "2"}, {0, 3}, 1700000000000},
    zk_completion{9, {0, "", "/c", 1, 0, {}, {}}},
    zk_session_event{2, 0x1234, 6000}, zk_watch_event{3, "/brokers/ids"},
    zk_reconnect{},
    cluster_snapshot{
      4,
      1,
      {0, 1, 2},
      {{error_code::none, "t", 1, {{0, 1, 2, {1, 2}, {1}, 5}}, uuid{3, 4}}}},
    node_info_request{}, node_info{2, some_actor},
    cluster_tick{cluster_tick::kind::connect_peer, 5, 2},
    cluster_parts{some_actor, some_actor},
    broker_heartbeat{2, 1700000000000}, broker_heartbeat_response{4, true},
    controller_silence_query{2, 1}, controller_silence_vote{3, true},
    consumer_assign{{{"t", 0}, {"t", 2}}},
    consumer_seek{{{{"t", 0}, 42}, {{"t", 2}, position_earliest}}},
    consumer_positions_request{},
    consumer_positions{error_code::invalid_request,
                       {{{"t", 0}, 42}, {{"t", 2}, position_unknown}},
                       {{"u", 1}}},
    delete_topics_request{{{"t", {}}, {"", uuid{1, 2}}}},
    delete_topics_response{
      {{"t", uuid{1, 2}, error_code::none, ""},
       {"", uuid{3, 4}, error_code::unknown_topic_id, "unknown"}}},
    topic_deletion{{"t", "u"}}, log_delete_request{{{"t", 0}, {"t", 1}}},
    init_producer_id_request{},
    init_producer_id_response{error_code::none, 1000, 0},
    allocate_producer_ids_request{2},
    allocate_producer_ids_response{error_code::none, 2000, 1000},
    topic_log_config{"t", compacted}, log_cleaner_tick{},
    alter_topic_configs_request{
      "t",
      {{"retention.ms", config_op_type::set, std::string{"1000"}},
       {"cleanup.policy", config_op_type::remove, nullable<std::string>{}}},
      true,
      true},
    alter_topic_configs_response{error_code::invalid_config,
                                 "Unknown topic config name: x",
                                 {{"retention.ms", "1000"}}},
    topic_config_change{"t", {{"segment.ms", "60000"}}},
    replica_config{2, 2048, true, false},
    listener_address{"CLIENT", "broker-1.example", 9093},
    create_acls_request{{acl_sample}},
    create_acls_response{
      {{error_code::none, ""},
       {error_code::invalid_request, "principal must not be empty"}}},
    delete_acls_request{
      {acl_filter{}, acl_filter{security::resource_type::topic,
                                std::string{"t"}, security::pattern_type::match,
                                std::string{"User:alice"}, nullable<std::string>{},
                                security::acl_operation::read,
                                security::permission_type::allow}}},
    delete_acls_response{{{error_code::none, "", {acl_sample}}}},
    alter_scram_credentials_request{
      {{"bob", security::scram_mechanism::sha256}},
      {{"alice", security::scram_mechanism::sha512,
        security::scram_credential{{1, 2}, {3, 4}, {5, 6}, 4096}}}},
    alter_scram_credentials_response{
      {{"alice", error_code::none, ""},
       {"bob", error_code::resource_not_found,
        "Attempt to delete a user credential that does not exist"}}},
    delete_groups_request{{"g", "h"}},
    delete_groups_response{
      {{"g", error_code::none}, {"h", error_code::non_empty_group}}},
    offset_delete_request{"g", {{"t", 0}, {"t", 2}}},
    offset_delete_response{
      error_code::none,
      {{"t", 0, error_code::none},
       {"t", 2, error_code::group_subscribed_to_topic}}},
    create_partitions_request{{{"t", 6, {{1, 2}, {2, 0}}}}, true},
    create_partitions_response{
      {{"t", error_code::invalid_partitions,
        "Topic currently has 6 partitions, which is higher than the "
        "requested 3."}}},
    elect_leaders_request{0, false, {{"t", 1}}},
    elect_leaders_response{
      error_code::none, {{{"t", 1}, error_code::election_not_needed, ""}}},
    delete_records_request{{"t", 0}, 42, 30000},
    delete_records_response{error_code::none, 42},
    describe_log_dirs_request{false, {{"t", 0}}},
    describe_log_dirs_response{
      {{"/tmp/x", error_code::none, {{{"t", 0}, 1024, 0}}, 1 << 20, 1 << 19}}},
    reassignment_target{{"t", 1}, false, {4, 1, 2}},
    alter_partition_reassignments_request{
      30000, {{{"t", 0}, false, {1, 2, 4}}, {{"t", 1}, true, {}}}},
    reassignment_result{{"t", 2}, error_code::invalid_replica_assignment,
                        "no such broker"},
    alter_partition_reassignments_response{
      error_code::none,
      "",
      {{{"t", 0}, error_code::none, ""},
       {{"t", 1}, error_code::no_reassignment_in_progress, "none"}}},
    list_partition_reassignments_request{60000, false, {{"t", 0}}},
    ongoing_reassignment{{"t", 0}, {1, 2, 4, 3}, {4}, {3}},
    list_partition_reassignments_response{
      error_code::none, "", {{{"t", 0}, {1, 2, 4, 3}, {4}, {3}}}},
    alter_broker_configs_request{
      2,
      {{"follower.replication.throttled.rate", config_op_type::set,
        std::string{"1048576"}}},
      true,
      false},
    alter_broker_configs_response{
      error_code::none, "", {{"leader.replication.throttled.rate", "10"}}},
    dynamic_broker_configs{{{"follower.replication.throttled.rate", "5"}}},
    dynamic_broker_configs_request{});
}

} // namespace troupe::test
