// Kafka's AclAuthorizer decision (authorize, authorizeByResourceType, the
// authorized-operations bit fields) and the ACL filters of DescribeAcls and
// DeleteAcls, over plain bindings (domain/security/acl.hpp).

#include <catch2/catch.hpp>

#include "domain/security/acl.hpp"

using namespace troupe::security;

namespace {

const request_identity alice{"User:alice", "10.0.0.1"};
const request_identity bob{"User:bob", "10.0.0.2"};

acl_binding bind(resource_type type, std::string name, pattern_type pattern,
                 std::string principal, acl_operation op,
                 permission_type permission = permission_type::allow,
                 std::string host = "*") {
  return {{type, std::move(name), pattern},
          {std::move(principal), std::move(host), op, permission}};
}

acl_authorizer authorizer(std::vector<acl_binding> bindings,
                          authorizer_config config = {true, {}, false}) {
  return acl_authorizer{std::move(config), std::move(bindings)};
}

constexpr auto topic = resource_type::topic;
constexpr auto literal = pattern_type::literal;
constexpr auto prefixed = pattern_type::prefixed;
constexpr auto deny = permission_type::deny;

} // namespace

TEST_CASE("ACL a LITERAL ALLOW lets its principal do its operation on its "
          "resource and nothing else") {
  auto az = authorizer(
    {bind(topic, "orders", literal, "User:alice", acl_operation::read)});
  CHECK(az.authorize(alice, acl_operation::read, topic, "orders"));
  CHECK_FALSE(az.authorize(alice, acl_operation::write, topic, "orders"));
  CHECK_FALSE(az.authorize(bob, acl_operation::read, topic, "orders"));
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "orders2"));
  CHECK_FALSE(
    az.authorize(alice, acl_operation::read, resource_type::group, "orders"));
}

TEST_CASE("ACL DENY overrides a prefixed ALLOW") {
  auto az = authorizer(
    {bind(topic, "ord", prefixed, "User:alice", acl_operation::read),
     bind(topic, "orders", literal, "User:alice", acl_operation::read, deny)});
  CHECK(az.authorize(alice, acl_operation::read, topic, "ordinal"));
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "orders"));
}

TEST_CASE("ACL a prefixed DENY overrides a LITERAL ALLOW") {
  auto az = authorizer(
    {bind(topic, "orders", literal, "User:alice", acl_operation::all),
     bind(topic, "ord", prefixed, "User:*", acl_operation::write, deny)});
  CHECK(az.authorize(alice, acl_operation::read, topic, "orders"));
  CHECK_FALSE(az.authorize(alice, acl_operation::write, topic, "orders"));
}

TEST_CASE("ACL the LITERAL \"*\" name matches every resource of its type") {
  auto az = authorizer(
    {bind(topic, "*", literal, "User:alice", acl_operation::write)});
  CHECK(az.authorize(alice, acl_operation::write, topic, "anything"));
  CHECK_FALSE(
    az.authorize(alice, acl_operation::write, resource_type::group, "x"));
}

TEST_CASE("ACL a PREFIXED pattern matches the names it is a prefix of") {
  auto az = authorizer(
    {bind(topic, "team-a.", prefixed, "User:alice", acl_operation::read)});
  CHECK(az.authorize(alice, acl_operation::read, topic, "team-a.orders"));
  CHECK(az.authorize(alice, acl_operation::read, topic, "team-a."));
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "team-b.x"));
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "team-a"));
}

TEST_CASE("ACL the User:* principal and the * host match everyone") {
  auto az = authorizer(
    {bind(topic, "t", literal, "User:*", acl_operation::read),
     bind(topic, "t", literal, "User:bob", acl_operation::write,
          permission_type::allow, "10.0.0.9")});
  CHECK(az.authorize(alice, acl_operation::read, topic, "t"));
  CHECK(az.authorize(bob, acl_operation::read, topic, "t"));
  // bob's WRITE is from another host only.
  CHECK_FALSE(az.authorize(bob, acl_operation::write, topic, "t"));
  CHECK(az.authorize({"User:bob", "10.0.0.9"}, acl_operation::write, topic,
                     "t"));
}

TEST_CASE("ACL READ, WRITE, DELETE and ALTER imply DESCRIBE, and ALTER_CONFIGS "
          "implies DESCRIBE_CONFIGS") {
  for (auto op : {acl_operation::read, acl_operation::write,
                  acl_operation::delete_, acl_operation::alter}) {
    auto az = authorizer({bind(topic, "t", literal, "User:alice", op)});
    CHECK(az.authorize(alice, acl_operation::describe, topic, "t"));
    CHECK_FALSE(az.authorize(alice, acl_operation::describe_configs, topic,
                             "t"));
  }
  auto az = authorizer(
    {bind(topic, "t", literal, "User:alice", acl_operation::alter_configs)});
  CHECK(az.authorize(alice, acl_operation::describe_configs, topic, "t"));
  CHECK_FALSE(az.authorize(alice, acl_operation::describe, topic, "t"));
  // CREATE implies nothing.
  auto create = authorizer(
    {bind(topic, "t", literal, "User:alice", acl_operation::create)});
  CHECK_FALSE(create.authorize(alice, acl_operation::describe, topic, "t"));
}

TEST_CASE("ACL a DENY of DESCRIBE is not overridden by an implying ALLOW") {
  auto az = authorizer(
    {bind(topic, "t", literal, "User:alice", acl_operation::read),
     bind(topic, "t", literal, "User:alice", acl_operation::describe, deny)});
  CHECK_FALSE(az.authorize(alice, acl_operation::describe, topic, "t"));
  CHECK(az.authorize(alice, acl_operation::read, topic, "t"));
}

TEST_CASE("ACL ALL allows every operation, and a DENY of ALL denies them") {
  auto az = authorizer(
    {bind(topic, "t", literal, "User:alice", acl_operation::all),
     bind(topic, "u", literal, "User:*", acl_operation::all),
     bind(topic, "u", literal, "User:alice", acl_operation::all, deny)});
  for (auto op : operations_of(topic))
    CHECK(az.authorize(alice, op, topic, "t"));
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "u"));
  CHECK(az.authorize(bob, acl_operation::read, topic, "u"));
}

TEST_CASE("ACL super.users are allowed whatever the ACLs say") {
  auto az = authorizer(
    {bind(topic, "t", literal, "User:*", acl_operation::all, deny)},
    {true, {"User:admin"}, false});
  CHECK(az.authorize({"User:admin", "1.2.3.4"}, acl_operation::write, topic,
                     "t"));
  CHECK_FALSE(az.authorize(alice, acl_operation::write, topic, "t"));
}

TEST_CASE("ACL allow.everyone.if.no.acl.found applies only when no ACL "
          "matches the resource") {
  authorizer_config open{true, {}, true};
  auto az = authorizer(
    {bind(topic, "guarded", literal, "User:bob", acl_operation::read)}, open);
  // No ACL at all on "free": everyone may.
  CHECK(az.authorize(alice, acl_operation::write, topic, "free"));
  // An ACL on "guarded" (for someone else): the ACLs decide.
  CHECK_FALSE(az.authorize(alice, acl_operation::read, topic, "guarded"));
  CHECK(az.authorize(bob, acl_operation::read, topic, "guarded"));
  // Without the setting, no ACL means no access.
  auto closed = authorizer({});
  CHECK_FALSE(closed.authorize(alice, acl_operation::read, topic, "free"));
}

TEST_CASE("ACL authorized operations are a bit per allowed operation of the "
          "resource type") {
  auto az = authorizer(
    {bind(topic, "t", literal, "User:alice", acl_operation::read),
     bind(resource_type::group, "g", literal, "User:alice",
          acl_operation::all)});
  auto bit = [](acl_operation op) { return int32_t{1} << int(op); };
  CHECK(az.authorized_operations(alice, topic, "t")
        == (bit(acl_operation::read) | bit(acl_operation::describe)));
  CHECK(az.authorized_operations(alice, resource_type::group, "g")
        == (bit(acl_operation::read) | bit(acl_operation::describe)
            | bit(acl_operation::delete_)));
  CHECK(az.authorized_operations(bob, topic, "t") == 0);
  // No authorizer: every supported operation (CLUSTER: CREATE, ALTER,
  // DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
  // IDEMPOTENT_WRITE; TOPIC: all but CLUSTER_ACTION and IDEMPOTENT_WRITE).
  acl_authorizer off;
  CHECK(off.authorized_operations(alice, resource_type::cluster,
                                  "kafka-cluster")
        == 0x1FA0);
  CHECK(off.authorized_operations(alice, topic, "t") == 0xDF8);
  CHECK(off.authorized_operations(alice, resource_type::transactional_id,
                                  "x")
        == (bit(acl_operation::describe) | bit(acl_operation::write)));
}

TEST_CASE("ACL authorizeByResourceType allows when some ALLOW is not "
          "dominated by a DENY") {
  auto op = acl_operation::write;
  auto tx = resource_type::transactional_id;
  // An ALLOW on a prefix.
  CHECK(authorizer({bind(tx, "app-", prefixed, "User:alice", op)})
          .authorize_any(alice, op, tx));
  // Nothing of alice's.
  CHECK_FALSE(authorizer({bind(tx, "app-", prefixed, "User:bob", op)})
                .authorize_any(alice, op, tx));
  // A LITERAL ALLOW denied by the same LITERAL DENY.
  CHECK_FALSE(authorizer({bind(tx, "a", literal, "User:alice", op),
                          bind(tx, "a", literal, "User:alice", op, deny)})
                .authorize_any(alice, op, tx));
  // An ALLOW under a PREFIXED DENY of a shorter prefix.
  CHECK_FALSE(authorizer({bind(tx, "app-1", prefixed, "User:alice", op),
                          bind(tx, "app", prefixed, "User:*", op, deny)})
                .authorize_any(alice, op, tx));
  // ... but not under a longer one.
  CHECK(authorizer({bind(tx, "app", prefixed, "User:alice", op),
                    bind(tx, "app-1", prefixed, "User:*", op, deny)})
          .authorize_any(alice, op, tx));
  // A LITERAL "*" DENY denies all, a LITERAL "*" ALLOW allows.
  CHECK_FALSE(authorizer({bind(tx, "app", prefixed, "User:alice", op),
                          bind(tx, "*", literal, "User:alice", op, deny)})
                .authorize_any(alice, op, tx));
  CHECK(authorizer({bind(tx, "*", literal, "User:alice", acl_operation::all)})
          .authorize_any(alice, op, tx));
  // Super users.
  CHECK(authorizer({}, {true, {"User:alice"}, false})
          .authorize_any(alice, op, tx));
}

TEST_CASE("ACL filters match as ResourcePatternFilter, MATCH included") {
  auto lit = bind(topic, "orders", literal, "User:alice", acl_operation::read);
  auto star = bind(topic, "*", literal, "User:bob", acl_operation::write);
  auto pre = bind(topic, "ord", prefixed, "User:alice", acl_operation::read,
                  deny);
  auto other = bind(topic, "other", literal, "User:alice", acl_operation::read);
  auto group = bind(resource_type::group, "orders", literal, "User:alice",
                    acl_operation::read);

  acl_binding_filter any;
  for (const auto& b : {lit, star, pre, other, group})
    CHECK(matches(any, b));

  acl_binding_filter match;
  match.type = topic;
  match.name = "orders";
  match.pattern = pattern_type::match;
  CHECK(matches(match, lit));
  CHECK(matches(match, star));
  CHECK(matches(match, pre));
  CHECK_FALSE(matches(match, other));
  CHECK_FALSE(matches(match, group));

  // ANY with a name: that exact name, whatever the pattern type.
  acl_binding_filter named;
  named.name = "ord";
  CHECK(matches(named, pre));
  CHECK_FALSE(matches(named, lit));

  acl_binding_filter literal_only;
  literal_only.pattern = literal;
  literal_only.name = "orders";
  CHECK(matches(literal_only, lit));
  CHECK(matches(literal_only, group));
  CHECK_FALSE(matches(literal_only, star));

  acl_binding_filter entry;
  entry.principal = "User:alice";
  entry.operation = acl_operation::read;
  entry.permission = deny;
  CHECK(matches(entry, pre));
  CHECK_FALSE(matches(entry, lit));
  entry.permission = permission_type::any;
  entry.host = "10.0.0.1";
  CHECK_FALSE(matches(entry, lit));
}

TEST_CASE("ACL CreateAcls refuses UNKNOWN, ANY and MATCH values, empty names "
          "and principals without a type") {
  auto ok = bind(topic, "t", literal, "User:alice", acl_operation::read);
  CHECK_FALSE(validate_binding(ok));
  auto b = ok;
  b.pattern.pattern = pattern_type::match;
  CHECK(validate_binding(b) == "patternType must not be MATCH");
  b = ok;
  b.pattern.type = resource_type::any;
  CHECK(validate_binding(b) == "resourceType must not be ANY");
  b = ok;
  b.entry.operation = acl_operation::any;
  CHECK(validate_binding(b) == "operation must not be ANY");
  b = ok;
  b.entry.permission = permission_type::unknown;
  CHECK(validate_binding(b)
        == "CreatableAcls contain unrecognized enum values");
  b = ok;
  b.entry.principal = "alice";
  CHECK(validate_binding(b)
        == "expected a string in format principalType:principalName but got "
           "alice");
  b = ok;
  b.pattern.name = "";
  CHECK(validate_binding(b) == "Invalid empty resource name");
  b = ok;
  b.pattern.type = resource_type::cluster;
  CHECK(validate_binding(b)
        == "The only valid name for the CLUSTER resource is kafka-cluster");
  b.pattern.name = "kafka-cluster";
  CHECK_FALSE(validate_binding(b));

  acl_binding_filter f;
  CHECK_FALSE(validate_filter(f));
  f.operation = acl_operation::unknown;
  CHECK(validate_filter(f));
}

TEST_CASE("ACL names are Kafka's, parsed case-insensitively in both "
          "spellings") {
  CHECK(to_string(acl_operation::idempotent_write) == "IdempotentWrite");
  CHECK(to_string(acl_operation::describe_configs) == "DescribeConfigs");
  CHECK(to_string(acl_operation::read) == "Read");
  CHECK(to_string(resource_type::transactional_id) == "TransactionalId");
  CHECK(to_string(resource_type::cluster) == "Cluster");
  CHECK(to_string(pattern_type::prefixed) == "Prefixed");
  CHECK(to_string(permission_type::deny) == "Deny");
  CHECK(parse_acl_operation("ALTER_CONFIGS") == acl_operation::alter_configs);
  CHECK(parse_acl_operation("alterconfigs") == acl_operation::alter_configs);
  CHECK(parse_resource_type("TRANSACTIONAL_ID")
        == resource_type::transactional_id);
  CHECK(parse_resource_type("Topic") == resource_type::topic);
  CHECK(parse_pattern_type("LITERAL") == pattern_type::literal);
  CHECK(parse_permission_type("allow") == permission_type::allow);
  CHECK_FALSE(parse_acl_operation("Fly"));
  CHECK(is_known_authorizer("kafka.security.authorizer.AclAuthorizer"));
  CHECK(is_known_authorizer(
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer"));
  CHECK_FALSE(is_known_authorizer("com.example.Authorizer"));
}
