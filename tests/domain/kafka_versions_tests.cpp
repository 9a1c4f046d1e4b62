// Every request and response struct of the codec in every version it
// supports: round trips of samples with every field set, every truncation
// point of each flexible body, and seeded mutations that never crash.

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"
#include "domain/log/record_batch.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

// -- samples with every field set ---------------------------------------------

// Names stay non-null so that every sample encodes in every version (names
// become nullable only in later versions); everything else differs from
// its default.

bytes sample_batch() {
  return encode_batch(0, 0, {record{b("k"), b("v"), 1000, {}}});
}

api_versions_response full_api_versions_response() {
  api_versions_response x;
  x.api_keys = {{0, 3, 12}, {18, 0, 4}};
  x.throttle_time_ms = 7;
  x.supported_features =
    std::vector<supported_feature_key>{{"metadata.version", 1, 20}};
  x.finalized_features_epoch = 5;
  x.finalized_features =
    std::vector<finalized_feature_key>{{"metadata.version", 20, 20}};
  x.zk_migration_ready = false;
  return x;
}

metadata_request full_metadata_request() {
  metadata_request x;
  x.topics = std::vector<metadata_request_topic>{{uuid{1, 2}, "orders"},
                                                 {uuid{}, "payments"}};
  x.allow_auto_topic_creation = false;
  x.include_cluster_authorized_operations = true;
  x.include_topic_authorized_operations = true;
  return x;
}

metadata_response full_metadata_response() {
  metadata_response x;
  x.throttle_time_ms = 5;
  x.brokers = {{1, "b1", 9092, "rack-a"}, {2, "b2", 9093, std::nullopt}};
  x.cluster_id = "cluster";
  x.controller_id = 1;
  metadata_partition p{
    error_code::leader_not_available, 3, 2, {2, 1}, {2}, 4, {1}};
  metadata_topic t;
  t.name = "orders";
  t.topic_id = uuid{9, 9};
  t.is_internal = true;
  t.partitions = {p};
  t.topic_authorized_operations = 123;
  x.topics = {t};
  x.cluster_authorized_operations = 77;
  x.error = error_code::not_controller;
  return x;
}

produce_request full_produce_request() {
  return {
    std::string{"tx"}, 1, 1000, {{"orders", {{0, sample_batch()}, {1, {}}}}}};
}

produce_response full_produce_response() {
  produce_partition_response p;
  p.index = 1;
  p.error = error_code::invalid_record;
  p.base_offset = 10;
  p.log_append_time_ms = 1700000000000;
  p.log_start_offset = 3;
  p.record_errors = {{0, std::string{"bad"}}, {1, std::nullopt}};
  p.error_message = "one bad record";
  p.current_leader = leader_id_and_epoch{2, 4};
  produce_response x;
  x.responses = {{"orders", {p}}};
  x.throttle_time_ms = 9;
  x.node_endpoints = std::vector<node_endpoint>{{2, "b2", 9093, "r"}};
  return x;
}

fetch_request full_fetch_request() {
  fetch_request x;
  x.replica_id = -1;
  x.max_wait_ms = 500;
  x.min_bytes = 1;
  x.max_bytes = 1 << 20;
  x.isolation_level = 1;
  x.session_id = 12;
  x.session_epoch = 3;
  fetch_partition p{0, 100, 65536, 4, 3, 7, uuid{5, 5}};
  x.topics = {{"orders", {p}, uuid{1, 2}}};
  x.forgotten_topics_data = {{"old", uuid{3, 4}, {1, 2}}};
  x.rack_id = "rack-a";
  x.cluster_id = "cluster";
  x.replica_state = fetch_replica_state{-1, 8};
  return x;
}

fetch_response full_fetch_response() {
  fetch_partition_response p;
  p.partition_index = 0;
  p.error = error_code::offset_out_of_range;
  p.high_watermark = 10;
  p.last_stable_offset = 9;
  p.aborted_transactions = std::vector<aborted_transaction>{{7, 3}};
  p.records = sample_batch();
  p.log_start_offset = 2;
  p.preferred_read_replica = 3;
  p.diverging_epoch = epoch_end_offset{2, 8};
  p.current_leader = leader_id_and_epoch{1, 5};
  p.snapshot_id = fetch_snapshot_id{6, 2};
  fetch_partition_response empty;
  empty.partition_index = 1;
  empty.aborted_transactions = std::nullopt;
  fetch_response x;
  x.throttle_time_ms = 1;
  x.error = error_code::none;
  x.session_id = 12;
  x.responses = {{"orders", {p, empty}, uuid{1, 2}}};
  x.node_endpoints = std::vector<node_endpoint>{{1, "b1", 9092, {}}};
  return x;
}

list_offsets_request full_list_offsets_request() {
  return {
    -1, {{"orders", {{0, earliest_timestamp, 3}, {1, 1500, -1}}}}, 1, 500};
}

list_offsets_response full_list_offsets_response() {
  return {{{"orders",
            {{0, error_code::none, 1400, 42, 3},
             {1, error_code::fenced_leader_epoch, -1, -1, -1}}}},
          6};
}

init_producer_id_request full_init_producer_id_request() {
  return {std::string{"tx"}, 60000, 7, 2};
}

init_producer_id_response full_init_producer_id_response() {
  return {1, error_code::producer_fenced, 9, 3};
}

offset_for_leader_epoch_request full_offset_for_leader_epoch_request() {
  return {-1, {{"orders", {{0, 5, 4}, {1, -1, 2}}}}};
}

offset_for_leader_epoch_response full_offset_for_leader_epoch_response() {
  return {2,
          {{"orders",
            {{error_code::none, 0, 4, 100},
             {error_code::unknown_leader_epoch, 1, -1, -1}}}}};
}

offset_commit_request full_offset_commit_request() {
  offset_commit_request x;
  x.group_id = "g";
  x.generation_id = 3;
  x.member_id = "m";
  x.retention_time_ms = 86400000;
  x.topics = {{"orders", {{0, 42, std::string{"meta"}, 2}, {1, 7, {}, -1}}}};
  x.group_instance_id = "instance";
  return x;
}

offset_commit_response full_offset_commit_response() {
  return {
    {{"orders", {{0, error_code::none}, {1, error_code::stale_member_epoch}}}},
    3};
}

offset_fetch_request full_offset_fetch_request() {
  offset_fetch_request x;
  x.group_id = "g";
  x.topics = std::vector<offset_fetch_topic>{{"orders", {0, 1}}};
  x.require_stable = true;
  x.groups = {{"g1", std::string{"m"}, 4,
               std::vector<offset_fetch_topic>{{"orders", {0}}}},
              {"g2", std::nullopt, -1, std::nullopt}};
  return x;
}

offset_fetch_response full_offset_fetch_response() {
  offset_fetch_partition_response p{0, 42, std::string{"meta"},
                                    error_code::none, 3};
  offset_fetch_partition_response q{1, -1, std::nullopt,
                                    error_code::unknown_topic_or_partition, -1};
  offset_fetch_response x;
  x.topics = {{"orders", {p, q}}};
  x.throttle_time_ms = 4;
  x.error = error_code::coordinator_load_in_progress;
  x.groups = {{"g1", {{"orders", {p}}}, error_code::none},
              {"g2", {}, error_code::group_id_not_found}};
  return x;
}

find_coordinator_request full_find_coordinator_request() {
  return {"g", coordinator_key_transaction, {"g", "h"}};
}

find_coordinator_response full_find_coordinator_response() {
  find_coordinator_response x{error_code::none, 1, "b1", 9092};
  x.throttle_time_ms = 2;
  x.error_message = "fine";
  x.coordinators = {
    {"g", 1, "b1", 9092, error_code::none, std::nullopt},
    {"h", -1, "", -1, error_code::coordinator_not_available, "loading"}};
  return x;
}

join_group_request full_join_group_request() {
  join_group_request x;
  x.group_id = "g";
  x.session_timeout_ms = 10000;
  x.rebalance_timeout_ms = 30000;
  x.member_id = "m";
  x.protocol_type = "consumer";
  x.protocols = {{"range", {0, 1}}, {"cooperative-sticky", {}}};
  x.group_instance_id = "instance";
  x.reason = "rejoin";
  return x;
}

join_group_response full_join_group_response() {
  join_group_response x;
  x.error = error_code::none;
  x.generation_id = 4;
  x.protocol_name = "range";
  x.leader = "m-1";
  x.member_id = "m-2";
  x.members = {{"m-1", {9}, std::string{"i-1"}}, {"m-2", {}, std::nullopt}};
  x.throttle_time_ms = 1;
  x.protocol_type = "consumer";
  x.skip_assignment = true;
  return x;
}

heartbeat_request full_heartbeat_request() {
  return {"g", 4, "m", std::string{"instance"}};
}

heartbeat_response full_heartbeat_response() {
  return {error_code::rebalance_in_progress, 3};
}

leave_group_request full_leave_group_request() {
  return {"g",
          "m",
          {{"m", std::string{"instance"}, std::string{"bye"}},
           {"n", std::nullopt, std::nullopt}}};
}

leave_group_response full_leave_group_response() {
  return {error_code::none,
          2,
          {{"m", std::string{"instance"}, error_code::none},
           {"n", std::nullopt, error_code::unknown_member_id}}};
}

sync_group_request full_sync_group_request() {
  return {"g",
          4,
          "m",
          {{"m", {1, 2}}, {"n", {}}},
          std::string{"instance"},
          std::string{"consumer"},
          std::string{"range"}};
}

sync_group_response full_sync_group_response() {
  return {
    error_code::none, {3, 4}, 1, std::string{"consumer"}, std::string{"range"}};
}

describe_groups_request full_describe_groups_request() {
  return {{"g", "h"}, true};
}

describe_groups_response full_describe_groups_response() {
  described_group g;
  g.group_id = "g";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  g.members = {{"m", "client", "/10.0.0.1", {1}, {2}, std::string{"i"}}};
  g.authorized_operations = 8;
  g.error_message = "none";
  return {{g}, 5};
}

list_groups_request full_list_groups_request() {
  return {{"Stable", "Empty"}, {"classic"}};
}

list_groups_response full_list_groups_response() {
  return {
    error_code::none,
    {{"g", "consumer", "Stable", "classic"}, {"h", "", "Empty", "consumer"}},
    2};
}

consumer_group_heartbeat_request full_consumer_group_heartbeat_request() {
  consumer_group_heartbeat_request x;
  x.group_id = "g";
  x.member_id = "m";
  x.member_epoch = 3;
  x.instance_id = "instance";
  x.rack_id = "rack";
  x.rebalance_timeout_ms = 300000;
  x.subscribed_topic_names = std::vector<std::string>{"orders"};
  x.subscribed_topic_regex = "pay.*";
  x.server_assignor = "range";
  x.topic_partitions =
    std::vector<consumer_group_topic_partitions>{{uuid{1, 2}, {0, 1}}};
  return x;
}

consumer_group_heartbeat_response full_consumer_group_heartbeat_response() {
  consumer_group_heartbeat_response x;
  x.throttle_time_ms = 1;
  x.error = error_code::unreleased_instance_id;
  x.error_message = "still there";
  x.member_id = "m";
  x.member_epoch = 4;
  x.heartbeat_interval_ms = 5000;
  x.assignment = consumer_group_heartbeat_assignment{{{uuid{1, 2}, {0}}}};
  return x;
}

consumer_group_describe_request full_consumer_group_describe_request() {
  return {{"g", "h"}, true};
}

consumer_group_describe_response full_consumer_group_describe_response() {
  described_consumer_group_member m;
  m.member_id = "m";
  m.instance_id = "instance";
  m.rack_id = "rack";
  m.member_epoch = 4;
  m.client_id = "client";
  m.client_host = "/10.0.0.1";
  m.subscribed_topic_names = {"orders"};
  m.subscribed_topic_regex = "pay.*";
  m.assignment = {{{uuid{1, 2}, "orders", {0}}}};
  m.target_assignment = {{{uuid{1, 2}, "orders", {0, 1}}}};
  m.member_type = member_type_consumer;
  described_consumer_group g;
  g.error_message = "ok";
  g.group_id = "g";
  g.group_state = "Stable";
  g.group_epoch = 5;
  g.assignment_epoch = 5;
  g.assignor_name = "uniform";
  g.members = {m};
  g.authorized_operations = 8;
  return {3, {g}};
}

create_topics_request full_create_topics_request() {
  return {{{"orders",
            6,
            3,
            {{0, {1, 2, 3}}},
            {{"cleanup.policy", "compact"}, {"retention.ms", {}}}}},
          5000,
          true};
}

create_topics_response full_create_topics_response() {
  creatable_topic_result t;
  t.name = "orders";
  t.error = error_code::topic_already_exists;
  t.error_message = "exists";
  t.topic_id = uuid{1, 2};
  t.topic_config_error = error_code::invalid_config;
  t.num_partitions = 6;
  t.replication_factor = 3;
  t.configs = std::vector<creatable_topic_configs>{
    {"cleanup.policy", std::string{"compact"}, true, 1, true},
    {"secret", std::nullopt, false, 5, true}};
  return {{t}, 4};
}

delete_topics_request full_delete_topics_request() {
  return {{{std::string{"orders"}, uuid{1, 2}}}, {"orders", "payments"}, 3000};
}

delete_topics_response full_delete_topics_response() {
  return {2,
          {{std::string{"orders"}, uuid{1, 2}, error_code::unknown_topic_id,
            std::string{"gone"}}}};
}

describe_configs_request full_describe_configs_request() {
  return {{{config_resource_topic, "orders",
            std::vector<std::string>{"retention.ms"}},
           {config_resource_broker, "1", std::nullopt}},
          true,
          true};
}

describe_configs_response full_describe_configs_response() {
  describe_configs_resource_result c;
  c.name = "retention.ms";
  c.value = "1000";
  c.read_only = true;
  c.config_source = 1;
  c.is_sensitive = true;
  c.synonyms = {{"log.retention.ms", std::string{"2000"}, 4},
                {"x", std::nullopt, 5}};
  c.config_type = 5;
  c.documentation = "How long.";
  describe_configs_result r;
  r.error = error_code::none;
  r.error_message = "fine";
  r.resource_type = config_resource_topic;
  r.resource_name = "orders";
  r.configs = {c};
  return {3, {r}};
}

alter_configs_request full_alter_configs_request() {
  return {{{config_resource_topic,
            "orders",
            {{"retention.ms", std::string{"1000"}},
             {"cleanup.policy", std::nullopt}}},
           {config_resource_broker, "1", {}}},
          true};
}

alter_configs_response full_alter_configs_response() {
  return {7,
          {{error_code::invalid_config, std::string{"bad"},
            config_resource_topic, "orders"},
           {error_code::none, std::nullopt, config_resource_broker, "1"}}};
}

incremental_alter_configs_request full_incremental_alter_configs_request() {
  return {
    {{config_resource_topic,
      "orders",
      {{"cleanup.policy", config_operation_append, std::string{"compact"}},
       {"retention.ms", config_operation_delete, std::nullopt}}}},
    true};
}

incremental_alter_configs_response full_incremental_alter_configs_response() {
  return {7,
          {{error_code::unknown_topic_or_partition, std::string{"gone"},
            config_resource_topic, "orders"}}};
}

describe_cluster_request full_describe_cluster_request() {
  return {true, endpoint_type_controllers, true};
}

describe_cluster_response full_describe_cluster_response() {
  describe_cluster_response x;
  x.throttle_time_ms = 1;
  x.error = error_code::none;
  x.error_message = "fine";
  x.endpoint_type = endpoint_type_controllers;
  x.cluster_id = "cluster";
  x.controller_id = 1;
  x.brokers = {{1, "b1", 9092, std::string{"r"}, true},
               {2, "b2", 9093, std::nullopt, false}};
  x.cluster_authorized_operations = 16;
  return x;
}

// Pattern types stay LITERAL here (v0 cannot carry another); the v1+
// pattern types are checked on their own below.

describe_acls_request full_describe_acls_request() {
  return {2, std::string{"orders"}, acl_pattern_literal,
          std::string{"User:alice"}, std::string{"10.0.0.1"}, 3, 3};
}

describe_acls_response full_describe_acls_response() {
  return {7,
          error_code::security_disabled,
          std::string{"no authorizer"},
          {{2,
            "orders",
            acl_pattern_literal,
            {{"User:alice", "*", 3, 3}, {"User:bob", "10.0.0.2", 4, 2}}},
           {4, "kafka-cluster", acl_pattern_literal, {}}}};
}

create_acls_request full_create_acls_request() {
  return {{{2, "orders", acl_pattern_literal, "User:alice", "*", 3, 3},
           {3, "app", acl_pattern_literal, "User:bob", "10.0.0.2", 8, 2}}};
}

create_acls_response full_create_acls_response() {
  return {7,
          {{error_code::invalid_request, std::string{"bad principal"}},
           {error_code::none, std::nullopt}}};
}

delete_acls_request full_delete_acls_request() {
  return {{{2, std::string{"orders"}, acl_pattern_literal,
            std::string{"User:alice"}, std::string{"*"}, 3, 3},
           {1, std::nullopt, acl_pattern_literal, std::nullopt, std::nullopt,
            1, 1}}};
}

delete_acls_response full_delete_acls_response() {
  return {7,
          {{error_code::none,
            std::nullopt,
            {{error_code::none, std::nullopt, 2, "orders", acl_pattern_literal,
              "User:alice", "*", 3, 3}}},
           {error_code::security_disabled, std::string{"off"}, {}}}};
}

describe_user_scram_credentials_request
full_describe_user_scram_credentials_request() {
  return {std::vector<scram_user_name>{{"alice"}, {"bob"}}};
}

describe_user_scram_credentials_response
full_describe_user_scram_credentials_response() {
  return {7,
          error_code::cluster_authorization_failed,
          std::string{"denied"},
          {{"alice",
            error_code::none,
            std::nullopt,
            {{scram_mechanism_sha_256, 4096}, {scram_mechanism_sha_512, 8192}}},
           {"bob", error_code::resource_not_found, std::string{"no such user"},
            {}}}};
}

alter_user_scram_credentials_request
full_alter_user_scram_credentials_request() {
  return {{{"bob", scram_mechanism_sha_256}},
          {{"alice", scram_mechanism_sha_512, 4096, b("salt"), b("salted")}}};
}

alter_user_scram_credentials_response
full_alter_user_scram_credentials_response() {
  return {7,
          {{"alice", error_code::none, std::nullopt},
           {"bob", error_code::unacceptable_credential,
            std::string{"too few iterations"}}}};
}

sasl_handshake_request full_sasl_handshake_request() {
  return {"SCRAM-SHA-512"};
}

sasl_handshake_response full_sasl_handshake_response() {
  return {error_code::unsupported_sasl_mechanism,
          {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}};
}

sasl_authenticate_request full_sasl_authenticate_request() {
  return {b("n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL")};
}

sasl_authenticate_response full_sasl_authenticate_response() {
  return {error_code::sasl_authentication_failed, std::string{"bad password"},
          b("v=rmF9pqV8S7suAoZWja4dJRkFsKQ="), 3600000};
}

delete_groups_request full_delete_groups_request() {
  return {{"g1", "g2"}};
}

delete_groups_response full_delete_groups_response() {
  return {3, {{"g1", error_code::none}, {"g2", error_code::non_empty_group}}};
}

offset_delete_request full_offset_delete_request() {
  return {"g", {{"orders", {{0}, {3}}}}};
}

offset_delete_response full_offset_delete_response() {
  return {error_code::group_id_not_found,
          4,
          {{"orders", {{0, error_code::group_subscribed_to_topic}}}}};
}

delete_records_request full_delete_records_request() {
  return {{{"orders", {{0, 42}, {1, -1}}}}, 1500};
}

delete_records_response full_delete_records_response() {
  return {2,
          {{"orders",
            {{0, 42, error_code::none},
             {1, -1, error_code::offset_out_of_range}}}}};
}

describe_log_dirs_request full_describe_log_dirs_request() {
  describe_log_dirs_request x;
  x.topics = std::vector<describable_log_dir_topic>{{"orders", {0, 1}}};
  return x;
}

// The top-level error (v3+) and the sizes (v4+) are ignorable: every
// version writes this sample, the older ones without them.
describe_log_dirs_response full_describe_log_dirs_response() {
  describe_log_dirs_response x;
  x.throttle_time_ms = 6;
  x.error = error_code::cluster_authorization_failed;
  x.results = {{error_code::kafka_storage_error,
                "/var/lib/troupe",
                {{"orders", {{0, 1024, 3, true}}}},
                1 << 30,
                1 << 20}};
  return x;
}

create_partitions_request full_create_partitions_request() {
  create_partitions_request x;
  x.topics = {{"orders", 4, std::vector<create_partitions_assignment>{{{1}}}},
              {"payments", 2, std::nullopt}};
  x.timeout_ms = 700;
  x.validate_only = true;
  return x;
}

create_partitions_response full_create_partitions_response() {
  return {8,
          {{"orders", error_code::none, std::nullopt},
           {"payments", error_code::invalid_partitions,
            std::string{"fewer than today"}}}};
}

// ElectionType (v1+) and the top-level error (v1+) are not ignorable: the
// sample keeps their defaults so that v0 can write it.
elect_leaders_request full_elect_leaders_request() {
  elect_leaders_request x;
  x.topic_partitions =
    std::vector<elect_leaders_topic_partitions>{{"orders", {0, 2}}};
  x.timeout_ms = 900;
  return x;
}

elect_leaders_response full_elect_leaders_response() {
  return {9,
          error_code::none,
          {{"orders",
            {{0, error_code::none, std::nullopt},
             {2, error_code::election_not_needed, std::string{"leader"}}}}}};
}

alter_partition_reassignments_request
full_alter_partition_reassignments_request() {
  alter_partition_reassignments_request x;
  x.timeout_ms = 700;
  x.topics = {{"orders",
               {{0, std::vector<int32_t>{4, 1, 2}}, {2, std::nullopt}}}};
  return x;
}

alter_partition_reassignments_response
full_alter_partition_reassignments_response() {
  return {3,
          error_code::none,
          std::nullopt,
          {{"orders",
            {{0, error_code::none, std::nullopt},
             {2, error_code::no_reassignment_in_progress,
              std::string{"not moving"}}}}}};
}

list_partition_reassignments_request
full_list_partition_reassignments_request() {
  list_partition_reassignments_request x;
  x.timeout_ms = 600;
  x.topics =
    std::vector<list_partition_reassignments_topics>{{"orders", {0, 1}}};
  return x;
}

list_partition_reassignments_response
full_list_partition_reassignments_response() {
  return {2,
          error_code::none,
          std::nullopt,
          {{"orders", {{0, {4, 1, 2, 3}, {4}, {3}}}}}};
}

// -- every version ------------------------------------------------------------

struct body_sample {
  api_key key;
  int16_t version;
  bool request;
  bytes body;
};

api_version range_of(api_key key) {
  for (auto& api : supported_versions())
    if (api.api_key == key_of(key))
      return api;
  FAIL("no such api " << key_of(key));
  return {};
}

/// The full sample as version `v` can carry it: a non-ignorable field that
/// the version lacks keeps its default (Kafka's writers refuse any other
/// value, and so does the encoder), and a field of the old versions only is
/// set where they have it.
template <class T>
T for_version(T x, int16_t) {
  return x;
}

produce_request for_version(produce_request x, int16_t v) {
  if (v < 3) // TransactionalId is v3+
    x.transactional_id.reset();
  return x;
}

list_offsets_request for_version(list_offsets_request x, int16_t v) {
  if (v == 0) // MaxNumOffsets is v0 only
    for (auto& t : x.topics)
      for (auto& p : t.partitions)
        p.max_num_offsets = 5;
  return x;
}

list_offsets_response for_version(list_offsets_response x, int16_t v) {
  if (v == 0) // OldStyleOffsets instead of Timestamp and Offset
    for (auto& t : x.topics)
      for (auto& p : t.partitions) {
        if (p.offset >= 0)
          p.old_style_offsets = {p.offset, 0};
        p.timestamp = -1;
        p.offset = -1;
      }
  return x;
}

offset_commit_request for_version(offset_commit_request x, int16_t v) {
  if (v == 1) // CommitTimestamp is v1 only
    for (auto& t : x.topics)
      for (auto& p : t.partitions)
        p.commit_timestamp = 1700000000000;
  return x;
}

delete_topics_response for_version(delete_topics_response x, int16_t v) {
  if (v == 0) // ThrottleTimeMs is v1+
    x.throttle_time_ms = 0;
  return x;
}

describe_configs_request for_version(describe_configs_request x, int16_t v) {
  if (v == 0) // IncludeSynonyms is v1+
    x.include_synonyms = false;
  return x;
}

describe_configs_response for_version(describe_configs_response x, int16_t v) {
  if (v == 0) // IsDefault is v0 only
    for (auto& r : x.results)
      for (auto& c : r.configs)
        c.is_default = true;
  return x;
}

/// Round-trips the request and response of one API in every version it
/// supports (the request also as a whole frame through header and body
/// dispatch) and collects their bodies.
template <class Req, class Resp>
void every_version(std::vector<body_sample>& out, api_key key,
                   encode_fn<Req> encode_req, decode_fn<Req> decode_req,
                   const Req& full_req, encode_fn<Resp> encode_resp,
                   decode_fn<Resp> decode_resp, const Resp& full_resp) {
  auto range = range_of(key);
  for (auto v = range.min_version; v <= range.max_version; ++v) {
    INFO(api_name(key_of(key)) << " v" << v);
    auto req = for_version(full_req, v);
    auto resp = for_version(full_resp, v);
    round_trip(encode_req, decode_req, req, v);
    round_trip(encode_resp, decode_resp, resp, v);
    std::string error;
    CHECK(decode_request_frame(request_frame(key, v, encode_req, req), error));
    INFO(error);
    out.push_back({key, v, true, encode_body(encode_req, req, v)});
    out.push_back({key, v, false, encode_body(encode_resp, resp, v)});
  }
}

#define TROUPE_EVERY_VERSION(name)                                             \
  every_version(out, api_key::name, encode_##name##_request,                   \
                decode_##name##_request, full_##name##_request(),              \
                encode_##name##_response, decode_##name##_response,            \
                full_##name##_response())

std::vector<body_sample> every_api_in_every_version() {
  std::vector<body_sample> out;
  every_version(out, api_key::api_versions, encode_api_versions_request,
                decode_api_versions_request,
                api_versions_request{"troupe-test", "1.0"},
                encode_api_versions_response, decode_api_versions_response,
                full_api_versions_response());
  TROUPE_EVERY_VERSION(metadata);
  TROUPE_EVERY_VERSION(produce);
  TROUPE_EVERY_VERSION(fetch);
  TROUPE_EVERY_VERSION(list_offsets);
  TROUPE_EVERY_VERSION(init_producer_id);
  TROUPE_EVERY_VERSION(offset_for_leader_epoch);
  TROUPE_EVERY_VERSION(offset_commit);
  TROUPE_EVERY_VERSION(offset_fetch);
  TROUPE_EVERY_VERSION(find_coordinator);
  TROUPE_EVERY_VERSION(join_group);
  TROUPE_EVERY_VERSION(heartbeat);
  TROUPE_EVERY_VERSION(leave_group);
  TROUPE_EVERY_VERSION(sync_group);
  TROUPE_EVERY_VERSION(describe_groups);
  TROUPE_EVERY_VERSION(list_groups);
  TROUPE_EVERY_VERSION(consumer_group_heartbeat);
  TROUPE_EVERY_VERSION(consumer_group_describe);
  TROUPE_EVERY_VERSION(create_topics);
  TROUPE_EVERY_VERSION(delete_topics);
  TROUPE_EVERY_VERSION(describe_configs);
  TROUPE_EVERY_VERSION(alter_configs);
  TROUPE_EVERY_VERSION(incremental_alter_configs);
  TROUPE_EVERY_VERSION(describe_cluster);
  TROUPE_EVERY_VERSION(describe_acls);
  TROUPE_EVERY_VERSION(create_acls);
  TROUPE_EVERY_VERSION(delete_acls);
  TROUPE_EVERY_VERSION(describe_user_scram_credentials);
  TROUPE_EVERY_VERSION(alter_user_scram_credentials);
  TROUPE_EVERY_VERSION(sasl_handshake);
  TROUPE_EVERY_VERSION(sasl_authenticate);
  TROUPE_EVERY_VERSION(delete_groups);
  TROUPE_EVERY_VERSION(offset_delete);
  TROUPE_EVERY_VERSION(delete_records);
  TROUPE_EVERY_VERSION(describe_log_dirs);
  TROUPE_EVERY_VERSION(create_partitions);
  TROUPE_EVERY_VERSION(elect_leaders);
  TROUPE_EVERY_VERSION(alter_partition_reassignments);
  TROUPE_EVERY_VERSION(list_partition_reassignments);
  return out;
}

#undef TROUPE_EVERY_VERSION

bool decode_body(const body_sample& s, reader& in) {
  if (!s.request)
    return decode_response(s.key, s.version, in);
  return decode_request_body(in, {key_of(s.key), s.version, 0, {}}).has_value();
}

} // namespace

TEST_CASE("every request and response of every supported version "
          "round-trips with every field set",
          "[kafka]") {
  auto samples = every_api_in_every_version();
  size_t versions = 0;
  for (auto& api : supported_versions())
    versions += static_cast<size_t>(api.max_version - api.min_version + 1);
  CHECK(samples.size() == 2 * versions);
}

TEST_CASE("a newer version carries what an older one drops", "[kafka]") {
  // Decoding the full sample in each version keeps exactly the fields of
  // that version; spot checks at the boundaries of a few schemas.
  auto meta = full_metadata_response();
  auto at = [&](int16_t v) {
    return decode_all(decode_metadata_response,
                      encode_body(encode_metadata_response, meta, v), v);
  };
  CHECK_FALSE(at(0).brokers[0].rack);
  CHECK(at(1).brokers[0].rack == "rack-a");
  CHECK_FALSE(at(1).cluster_id);
  CHECK(at(2).cluster_id == "cluster");
  CHECK(at(6).topics[0].partitions[0].leader_epoch == -1);
  CHECK(at(7).topics[0].partitions[0].leader_epoch == 4);
  CHECK(at(9).topics[0].topic_id.is_zero());
  CHECK(at(10).topics[0].topic_id == uuid{9, 9});
  CHECK(at(10).cluster_authorized_operations == 77);
  CHECK(at(11).cluster_authorized_operations == authorized_operations_omitted);
  CHECK(at(12).error == error_code::none);
  CHECK(at(13).error == error_code::not_controller);
  auto fetch = full_fetch_request();
  auto f = [&](int16_t v) {
    return decode_all(decode_fetch_request,
                      encode_body(encode_fetch_request, fetch, v), v);
  };
  CHECK(f(12).topics[0].topic == "orders");
  CHECK(f(12).topics[0].topic_id.is_zero());
  CHECK(f(13).topics[0].topic.empty());
  CHECK(f(13).topics[0].topic_id == uuid{1, 2});
  CHECK(f(10).rack_id.empty());
  CHECK(f(11).rack_id == "rack-a");
  CHECK_FALSE(f(14).replica_state);
  CHECK(f(15).replica_state->replica_epoch == 8);
  CHECK_FALSE(f(16).topics[0].partitions[0].replica_directory_id);
  CHECK(f(17).topics[0].partitions[0].replica_directory_id == uuid{5, 5});
  auto join = full_join_group_request();
  auto j = [&](int16_t v) {
    return decode_all(decode_join_group_request,
                      encode_body(encode_join_group_request, join, v), v);
  };
  CHECK(j(0).rebalance_timeout_ms == 10000);
  CHECK(j(1).rebalance_timeout_ms == 30000);
  CHECK_FALSE(j(4).group_instance_id);
  CHECK(j(5).group_instance_id == "instance");
  CHECK_FALSE(j(7).reason);
  CHECK(j(8).reason == "rejoin");
  auto commit = full_offset_commit_request();
  CHECK(decode_all(decode_offset_commit_request,
                   encode_body(encode_offset_commit_request, commit, 4), 4)
          .retention_time_ms
        == 86400000);
  CHECK(decode_all(decode_offset_commit_request,
                   encode_body(encode_offset_commit_request, commit, 5), 5)
          .retention_time_ms
        == -1);
}

TEST_CASE("a flexible body truncated at any byte fails cleanly", "[kafka]") {
  size_t cuts = 0;
  for (const auto& s : every_api_in_every_version()) {
    if (!is_flexible(key_of(s.key), s.version))
      continue;
    reader whole{s.body};
    REQUIRE(decode_body(s, whole));
    for (size_t cut = 0; cut < s.body.size(); ++cut, ++cuts) {
      reader in{s.body.data(), cut};
      INFO(api_name(key_of(s.key))
           << (s.request ? " request v" : " response v") << s.version
           << " cut at " << cut << " of " << s.body.size());
      CHECK_FALSE(decode_body(s, in));
      CHECK_FALSE(in.error().empty());
    }
  }
  CHECK(cuts > 5000);
}

TEST_CASE("a flexible request frame truncated at any byte fails cleanly",
          "[kafka]") {
  auto frames = {
    request_frame(api_key::join_group, 9, encode_join_group_request,
                  full_join_group_request()),
    request_frame(api_key::fetch, 17, encode_fetch_request,
                  full_fetch_request()),
    request_frame(api_key::api_versions, 4, encode_api_versions_request,
                  api_versions_request{"troupe-test", "1.0"}),
    request_frame(api_key::consumer_group_heartbeat, 1,
                  encode_consumer_group_heartbeat_request,
                  full_consumer_group_heartbeat_request()),
  };
  for (const auto& wire : frames) {
    std::string error;
    REQUIRE(decode_request_frame(wire, error));
    for (size_t cut = 0; cut + 4 < wire.size(); ++cut) {
      reader in{wire.data() + 4, cut};
      auto header = decode_request_header(in);
      auto ok = header && decode_request_body(in, *header);
      INFO("cut at " << cut << " of " << wire.size() - 4);
      CHECK_FALSE(ok);
      CHECK_FALSE(in.error().empty());
    }
  }
}

TEST_CASE("20k seeded random mutations of flexible frames never crash",
          "[kafka]") {
  std::vector<bytes> requests;
  std::vector<body_sample> responses;
  for (auto& s : every_api_in_every_version()) {
    if (!is_flexible(key_of(s.key), s.version))
      continue;
    if (!s.request) {
      responses.push_back(s);
      continue;
    }
    bytes frame;
    writer w{frame};
    auto mark = w.begin_frame();
    REQUIRE(encode_request_header(w, {key_of(s.key), s.version, 1, "c"}));
    frame.insert(frame.end(), s.body.begin(), s.body.end());
    REQUIRE(w.end_frame(mark));
    requests.push_back(std::move(frame));
  }
  std::mt19937 rng{20250301};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(rng);
  };
  // Bytes that sit on varint and compact-length boundaries.
  const uint8_t nasty[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff};
  auto mutate = [&](bytes x) {
    auto edits = 1 + pick(4);
    for (size_t e = 0; e < edits; ++e) {
      switch (pick(6)) {
        case 0: // flip one bit
          if (!x.empty())
            x[pick(x.size())] ^= static_cast<uint8_t>(1u << pick(8));
          break;
        case 1: // a boundary byte somewhere
          if (!x.empty())
            x[pick(x.size())] = nasty[pick(std::size(nasty))];
          break;
        case 2: { // insert a byte (picks in order: the same on any compiler)
          auto at = static_cast<std::ptrdiff_t>(pick(x.size() + 1));
          auto value = nasty[pick(std::size(nasty))];
          x.insert(x.begin() + at, value);
          break;
        }
        case 3: // delete a byte
          if (!x.empty())
            x.erase(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size())));
          break;
        case 4: // truncate
          x.resize(pick(x.size() + 1));
          break;
        default: { // a run of continuation bytes: an overlong varint
          auto at = static_cast<std::ptrdiff_t>(pick(x.size() + 1));
          x.insert(x.begin() + at, 1 + pick(6), uint8_t{0xff});
        }
      }
    }
    return x;
  };
  size_t decoded = 0;
  size_t refused = 0;
  for (int i = 0; i < 20000; ++i) {
    if (i % 2 == 0) {
      auto wire = mutate(requests[pick(requests.size())]);
      if (wire.size() >= 4 && pick(4) != 0) {
        auto size = i32(static_cast<int32_t>(wire.size() - 4));
        std::copy(size.begin(), size.end(), wire.begin());
      }
      std::string error;
      if (decode_request_frame(wire, error))
        ++decoded;
      else {
        CHECK_FALSE(error.empty());
        ++refused;
      }
    } else {
      const auto& sample = responses[pick(responses.size())];
      auto body = mutate(sample.body);
      reader in{body};
      if (decode_response(sample.key, sample.version, in))
        ++decoded;
      else {
        CHECK_FALSE(in.error().empty());
        ++refused;
      }
    }
  }
  CHECK(decoded > 1000);
  CHECK(refused > 1000);
}
