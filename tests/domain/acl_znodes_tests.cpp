// Kafka's ACL and SCRAM znodes (domain/zookeeper/acl_znodes): the bytes
// Kafka 3.9's AclAuthorizer and ZkAdminManager write (derived from
// ZkData.scala and AclEntry.java, whose java.util.HashMaps order the keys
// by String.hashCode) and what their readers accept.

#include <catch2/catch.hpp>

#include "domain/zookeeper/acl_znodes.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"

using namespace troupe;
using namespace troupe::zk;
using security::acl_operation;
using security::pattern_type;
using security::permission_type;
using security::resource_type;

TEST_CASE("ACL znodes live where Kafka's AclAuthorizer keeps them") {
  CHECK(resource_acl_path({resource_type::topic, "orders",
                           pattern_type::literal})
        == "/kafka-acl/Topic/orders");
  CHECK(resource_acl_path({resource_type::group, "app-",
                           pattern_type::prefixed})
        == "/kafka-acl-extended/prefixed/Group/app-");
  CHECK(resource_acl_path({resource_type::transactional_id, "tx",
                           pattern_type::literal})
        == "/kafka-acl/TransactionalId/tx");
  CHECK(resource_acl_path({resource_type::cluster, "kafka-cluster",
                           pattern_type::literal})
        == "/kafka-acl/Cluster/kafka-cluster");
  CHECK(acl_changes_path(pattern_type::literal) == "/kafka-acl-changes");
  CHECK(acl_changes_path(pattern_type::prefixed)
        == "/kafka-acl-extended-changes");
  auto p = resource_of_path(pattern_type::prefixed, "Group", "app-");
  REQUIRE(p);
  CHECK(p->type == resource_type::group);
  CHECK(p->name == "app-");
  CHECK(p->pattern == pattern_type::prefixed);
  CHECK_FALSE(resource_of_path(pattern_type::literal, "Nonsense", "x"));
}

TEST_CASE("a resource's ACLs are written byte for byte as AclEntry writes "
          "them, and read back") {
  std::vector<security::access_entry> acls{
    {"User:alice", "*", acl_operation::read, permission_type::allow},
    {"User:bob", "10.0.0.1", acl_operation::idempotent_write,
     permission_type::deny},
  };
  auto json = encode_resource_acls(acls);
  CHECK(json
        == R"({"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"},)"
           R"({"principal":"User:bob","permissionType":"Deny","host":"10.0.0.1","operation":"IdempotentWrite"}],"version":1})");
  auto back = decode_resource_acls(json);
  REQUIRE(back);
  CHECK(*back == acls);
  // Kafka's readers take any key order and whitespace; an empty znode holds
  // nothing.
  auto spaced = decode_resource_acls(
    R"({"acls": [ {"host":"*","operation":"DescribeConfigs","permissionType":"Allow","principal":"User:CN=x,OU=y"} ], "version": 1})");
  REQUIRE(spaced);
  REQUIRE(spaced->size() == 1);
  CHECK((*spaced)[0].operation == acl_operation::describe_configs);
  CHECK((*spaced)[0].principal == "User:CN=x,OU=y");
  REQUIRE(decode_resource_acls(""));
  CHECK(decode_resource_acls("")->empty());
}

TEST_CASE("a malformed ACL znode is refused with a reason") {
  CHECK_FALSE(decode_resource_acls("not json"));
  CHECK_FALSE(decode_resource_acls(R"({"version":2,"acls":[]})"));
  CHECK_FALSE(decode_resource_acls(R"({"version":1})"));
  CHECK_FALSE(decode_resource_acls(
    R"({"version":1,"acls":[{"principal":"alice","permissionType":"Allow","operation":"Read","host":"*"}]})"));
  auto bad = decode_resource_acls(
    R"({"version":1,"acls":[{"principal":"User:a","permissionType":"Maybe","operation":"Read","host":"*"}]})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("/kafka-acl") != std::string::npos);
}

TEST_CASE("ACL change notifications are Kafka's: TYPE:name for LITERAL, "
          "ExtendedAclChangeEvent's JSON for PREFIXED") {
  CHECK(encode_acl_change({resource_type::topic, "orders",
                           pattern_type::literal})
        == "TOPIC:orders");
  CHECK(encode_acl_change({resource_type::transactional_id, "a:b",
                           pattern_type::literal})
        == "TRANSACTIONAL_ID:a:b");
  CHECK(encode_acl_change({resource_type::group, "app-",
                           pattern_type::prefixed})
        == R"({"version":1,"resourceType":"GROUP","name":"app-","patternType":"PREFIXED"})");
  auto literal = decode_acl_change("TRANSACTIONAL_ID:a:b", false);
  REQUIRE(literal);
  CHECK(literal->type == resource_type::transactional_id);
  CHECK(literal->name == "a:b"); // split once, as Kafka's split(":", 2)
  // Older brokers wrote "Topic:name"; ResourceType.fromString takes both.
  auto older = decode_acl_change("Topic:orders", false);
  REQUIRE(older);
  CHECK(older->type == resource_type::topic);
  auto extended = decode_acl_change(
    R"({"version":1,"resourceType":"GROUP","name":"app-","patternType":"PREFIXED"})",
    true);
  REQUIRE(extended);
  CHECK(extended->pattern == pattern_type::prefixed);
  CHECK(extended->name == "app-");
  CHECK_FALSE(decode_acl_change("orders", false));
  CHECK_FALSE(decode_acl_change(R"({"version":2,"resourceType":"GROUP","name":"a","patternType":"PREFIXED"})", true));
}

TEST_CASE("user names in /config/users are sanitized as Kafka's Sanitizer "
          "does") {
  CHECK(sanitize_entity_name("alice") == "alice");
  CHECK(sanitize_entity_name("a b*c/d@e.f-g_h") == "a%20b%2Ac%2Fd%40e.f-g_h");
  CHECK(sanitize_entity_name("\xc3\xa9") == "%C3%A9");
  CHECK(desanitize_entity_name("a%20b%2Ac%2Fd%40e.f-g_h") == "a b*c/d@e.f-g_h");
  CHECK(desanitize_entity_name("a+b") == "a b");
  CHECK(user_config_path("CN=x,OU=y") == "/config/users/CN%3Dx%2COU%3Dy");
  CHECK(user_entity_path("alice") == "users/alice");
  CHECK(user_of_entity_path("users/a%20b") == "a b");
  CHECK(user_of_entity_path("topics/t").empty());
  CHECK(user_of_entity_path("users/a/clients/c").empty());
}

TEST_CASE("SCRAM credentials go into a user's config as ScramCredentialUtils "
          "writes them, beside its other entries") {
  security::scram_credential c;
  c.salt = {1, 2, 3};
  c.stored_key = {4, 5};
  c.server_key = {6};
  c.iterations = 8192;
  topic_configs config{{"producer_byte_rate", "1024"}};
  auto with = with_scram(config, {{security::scram_mechanism::sha512, c}});
  CHECK(with.at("SCRAM-SHA-512")
        == "salt=AQID,stored_key=BAU=,server_key=Bg==,iterations=8192");
  CHECK(with.at("producer_byte_rate") == "1024");
  auto json = encode_topic_config(with);
  // ConfigEntityZNode.encode: {"version":1,"config":{...}} (the Properties'
  // keys in their ConcurrentHashMap order).
  CHECK(json.rfind(R"({"version":1,"config":{)", 0) == 0);
  auto back = decode_topic_config(json);
  REQUIRE(back);
  auto creds = scram_of_user_config(*back);
  REQUIRE(creds.size() == 1);
  CHECK(creds.at(security::scram_mechanism::sha512) == c);
  // Deleting the last credential leaves the other entries.
  auto without = with_scram(*back, {});
  CHECK(without.count("SCRAM-SHA-512") == 0);
  CHECK(without.at("producer_byte_rate") == "1024");
}
