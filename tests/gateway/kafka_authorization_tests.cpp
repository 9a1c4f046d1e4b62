// The Kafka listener's authorization decisions (gateway/kafka/
// kafka_authorization.hpp) as Kafka 3.9's KafkaApis makes them, over real
// ACLs: which operation on which resource each API checks, and the error it
// answers.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "gateway/kafka/kafka_authorization.hpp"

using namespace troupe;
using namespace troupe::security;
using troupe::kafka_auth::request_authorizer;

namespace {

acl_binding allow(resource_type type, std::string name, pattern_type pattern,
                  std::string principal, acl_operation op) {
  return {{type, std::move(name), pattern},
          {std::move(principal), "*", op, permission_type::allow}};
}

acl_binding deny(resource_type type, std::string name, pattern_type pattern,
                 std::string principal, acl_operation op) {
  return {{type, std::move(name), pattern},
          {std::move(principal), "*", op, permission_type::deny}};
}

request_authorizer as(const std::string& user,
                      std::vector<acl_binding> bindings) {
  auto snap = std::make_shared<const security_snapshot>(
    acl_authorizer{{true, {"User:admin"}, false}, std::move(bindings)},
    scram_credentials{});
  return {snap, request_identity{"User:" + user, "127.0.0.1"}};
}

constexpr auto topic = resource_type::topic;
constexpr auto group = resource_type::group;
constexpr auto cluster = resource_type::cluster;
constexpr auto literal = pattern_type::literal;
constexpr auto prefixed = pattern_type::prefixed;

std::vector<std::string> sorted(std::vector<std::string> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

} // namespace

TEST_CASE("kafka authorization: without a security store or with the "
          "authorizer off, every API is allowed and operations are "
          "everything") {
  request_authorizer none;
  CHECK_FALSE(none.enabled());
  CHECK(kafka_auth::produce_error(none, "t") == error_code::none);
  CHECK(kafka_auth::init_producer_id_error(none, std::nullopt)
        == error_code::none);
  CHECK(none.operations(topic, "t", 12345) == 12345);
  auto store = std::make_shared<security_store>(authorizer_config{});
  request_authorizer off{store, {"User:bob", "127.0.0.1"}};
  CHECK_FALSE(off.enabled());
  CHECK(kafka_auth::create_topic_error(off, "t") == error_code::none);
  CHECK(kafka_auth::cluster_operations(off, 77) == 77);
}

TEST_CASE("kafka authorization: Metadata refuses named topics without "
          "DESCRIBE and does not auto-create those without CREATE") {
  auto alice =
    as("alice", {allow(topic, "orders", literal, "User:alice",
                       acl_operation::describe),
                 allow(topic, "new-", prefixed, "User:alice",
                       acl_operation::describe),
                 allow(topic, "new-", prefixed, "User:alice",
                       acl_operation::create)});
  std::vector<std::string> names{"orders", "secret", "new-a"};
  auto created = kafka_auth::plan_metadata(alice, names, true);
  CHECK(created.ask == std::vector<std::string>{"new-a"});
  CHECK(created.no_create == std::vector<std::string>{"orders"});
  CHECK(created.denied == std::vector<std::string>{"secret"});
  auto looked_up = kafka_auth::plan_metadata(alice, names, false);
  CHECK(sorted(looked_up.ask) == std::vector<std::string>{"new-a", "orders"});
  CHECK(looked_up.no_create.empty());
  CHECK(looked_up.denied == std::vector<std::string>{"secret"});
  // CREATE on the CLUSTER creates any topic the principal may describe.
  auto bob = as("bob", {allow(topic, "*", literal, "User:bob",
                              acl_operation::describe),
                        allow(cluster, "kafka-cluster", literal, "User:bob",
                              acl_operation::create)});
  auto all = kafka_auth::plan_metadata(bob, names, true);
  CHECK(all.ask.size() == 3);
  CHECK(all.no_create.empty());
  CHECK(all.denied.empty());
}

TEST_CASE("kafka authorization: Produce needs WRITE on the topic, and a "
          "DENY overrides a PREFIXED ALLOW") {
  auto alice = as("alice", {allow(topic, "app-", prefixed, "User:alice",
                                  acl_operation::write),
                            deny(topic, "app-secret", literal, "User:alice",
                                 acl_operation::write)});
  CHECK(kafka_auth::produce_error(alice, "app-orders") == error_code::none);
  CHECK(kafka_auth::produce_error(alice, "app-secret")
        == error_code::topic_authorization_failed);
  CHECK(kafka_auth::produce_error(alice, "other")
        == error_code::topic_authorization_failed);
  // super.users pass every check.
  auto admin = as("admin", {});
  CHECK(kafka_auth::produce_error(admin, "app-secret") == error_code::none);
}

TEST_CASE("kafka authorization: Fetch needs READ for a consumer and "
          "CLUSTER_ACTION for a follower, OffsetForLeaderEpoch takes "
          "either CLUSTER_ACTION or DESCRIBE") {
  auto reader =
    as("r", {allow(topic, "t", literal, "User:r", acl_operation::read)});
  CHECK(kafka_auth::fetch_error(reader, false, "t") == error_code::none);
  CHECK(kafka_auth::fetch_error(reader, true, "t")
        == error_code::topic_authorization_failed);
  CHECK(kafka_auth::fetch_error(reader, false, "u")
        == error_code::topic_authorization_failed);
  // READ implies DESCRIBE.
  CHECK(kafka_auth::offset_for_leader_epoch_error(reader, "t")
        == error_code::none);
  CHECK(kafka_auth::offset_for_leader_epoch_error(reader, "u")
        == error_code::topic_authorization_failed);
  auto replica = as("b", {allow(cluster, "kafka-cluster", literal, "User:b",
                                acl_operation::cluster_action)});
  CHECK(kafka_auth::fetch_error(replica, true, "u") == error_code::none);
  CHECK(kafka_auth::offset_for_leader_epoch_error(replica, "u")
        == error_code::none);
}

TEST_CASE("kafka authorization: InitProducerId needs WRITE on the "
          "transactional id, else IDEMPOTENT_WRITE on the cluster or WRITE "
          "on some topic") {
  auto writer =
    as("w", {allow(topic, "logs-", prefixed, "User:w", acl_operation::write)});
  CHECK(kafka_auth::init_producer_id_error(writer, std::nullopt)
        == error_code::none);
  CHECK(kafka_auth::init_producer_id_error(writer, std::string{"tx"})
        == error_code::transactional_id_authorization_failed);
  auto idem = as("i", {allow(cluster, "kafka-cluster", literal, "User:i",
                             acl_operation::idempotent_write)});
  CHECK(kafka_auth::init_producer_id_error(idem, std::nullopt)
        == error_code::none);
  auto reader =
    as("r", {allow(topic, "t", literal, "User:r", acl_operation::read)});
  CHECK(kafka_auth::init_producer_id_error(reader, std::nullopt)
        == error_code::cluster_authorization_failed);
  auto txn = as("x", {allow(resource_type::transactional_id, "tx", literal,
                            "User:x", acl_operation::write)});
  CHECK(kafka_auth::init_producer_id_error(txn, std::string{"tx"})
        == error_code::none);
}

TEST_CASE("kafka authorization: FindCoordinator needs DESCRIBE on the group "
          "(READ implies it), ListGroups shows every group with DESCRIBE on "
          "the cluster, else only described ones") {
  auto member =
    as("m", {allow(group, "app", literal, "User:m", acl_operation::read)});
  CHECK(kafka_auth::find_coordinator_error(member, wire::coordinator_key_group,
                                           "app")
        == error_code::none);
  CHECK(kafka_auth::find_coordinator_error(member, wire::coordinator_key_group,
                                           "other")
        == error_code::group_authorization_failed);
  CHECK(kafka_auth::find_coordinator_error(
          member, wire::coordinator_key_transaction, "tx")
        == error_code::transactional_id_authorization_failed);
  bool cluster_describe = member.cluster(acl_operation::describe);
  CHECK_FALSE(cluster_describe);
  CHECK(kafka_auth::lists_group(member, cluster_describe, "app"));
  CHECK_FALSE(kafka_auth::lists_group(member, cluster_describe, "other"));
  auto ops = as("o", {allow(cluster, "kafka-cluster", literal, "User:o",
                            acl_operation::describe)});
  CHECK(kafka_auth::lists_group(ops, ops.cluster(acl_operation::describe),
                                "other"));
}

TEST_CASE("kafka authorization: CreateTopics needs CREATE on the cluster or "
          "the topic") {
  auto alice = as("alice", {allow(topic, "alice-", prefixed, "User:alice",
                                  acl_operation::create)});
  CHECK(kafka_auth::create_topic_error(alice, "alice-1") == error_code::none);
  CHECK(kafka_auth::create_topic_error(alice, "bob-1")
        == error_code::topic_authorization_failed);
  auto creator = as("c", {allow(cluster, "kafka-cluster", literal, "User:c",
                                acl_operation::create)});
  CHECK(kafka_auth::create_topic_error(creator, "bob-1") == error_code::none);
}

TEST_CASE("kafka authorization: config APIs check DESCRIBE_CONFIGS or "
          "ALTER_CONFIGS on the topic or, for brokers, the cluster") {
  auto alice = as("alice", {allow(topic, "t", literal, "User:alice",
                                  acl_operation::alter_configs)});
  using wire::config_resource_broker;
  using wire::config_resource_topic;
  // ALTER_CONFIGS implies DESCRIBE_CONFIGS.
  CHECK(kafka_auth::config_resource_error(alice, config_resource_topic, "t",
                                          false)
        == error_code::none);
  CHECK(kafka_auth::config_resource_error(alice, config_resource_topic, "t",
                                          true)
        == error_code::none);
  CHECK(kafka_auth::config_resource_error(alice, config_resource_topic, "u",
                                          false)
        == error_code::topic_authorization_failed);
  CHECK(kafka_auth::config_resource_error(alice, config_resource_broker, "1",
                                          false)
        == error_code::cluster_authorization_failed);
  auto reader = as("r", {allow(cluster, "kafka-cluster", literal, "User:r",
                               acl_operation::describe_configs)});
  CHECK(kafka_auth::config_resource_error(reader, config_resource_broker, "1",
                                          false)
        == error_code::none);
  CHECK(kafka_auth::config_resource_error(reader, config_resource_broker, "1",
                                          true)
        == error_code::cluster_authorization_failed);
}

TEST_CASE("kafka authorization: authorized operations are the real bits, "
          "the cluster's are 0 without DESCRIBE on it") {
  auto alice =
    as("alice", {allow(topic, "t", literal, "User:alice", acl_operation::read),
                 allow(group, "g", literal, "User:alice", acl_operation::read),
                 allow(cluster, "kafka-cluster", literal, "User:alice",
                       acl_operation::alter)});
  auto bit = [](acl_operation op) { return 1 << static_cast<int>(op); };
  // READ and the DESCRIBE it implies.
  CHECK(alice.operations(topic, "t", -1)
        == (bit(acl_operation::read) | bit(acl_operation::describe)));
  CHECK(alice.operations(group, "g", -1)
        == (bit(acl_operation::read) | bit(acl_operation::describe)));
  CHECK(alice.operations(topic, "u", -1) == 0);
  // ALTER implies DESCRIBE, so the cluster is described.
  CHECK(kafka_auth::cluster_operations(alice, -1)
        == (bit(acl_operation::alter) | bit(acl_operation::describe)));
  auto bob = as("bob", {});
  CHECK(kafka_auth::cluster_operations(bob, -1) == 0);
}
