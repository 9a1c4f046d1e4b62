#pragma once

// Kafka's authorization model (docs/ARCHITECTURE.md §9): ACL bindings of a
// resource pattern and an access control entry, their filters (DescribeAcls,
// DeleteAcls), and the authorizer's decision as Kafka's AclAuthorizer makes
// it: DENY wins over ALLOW, READ/WRITE/DELETE/ALTER imply DESCRIBE,
// ALTER_CONFIGS implies DESCRIBE_CONFIGS, super.users are always allowed and
// allow.everyone.if.no.acl.found decides a resource no ACL matches. Plain
// C++; the enums carry Kafka's wire codes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::security {

/// org.apache.kafka.common.resource.ResourceType, by its codes.
enum class resource_type : int8_t {
  unknown = 0,
  any = 1,
  topic = 2,
  group = 3,
  cluster = 4,
  transactional_id = 5,
  delegation_token = 6,
  user = 7,
};

/// PatternType.
enum class pattern_type : int8_t {
  unknown = 0,
  any = 1,
  match = 2,
  literal = 3,
  prefixed = 4,
};

/// AclOperation.
enum class acl_operation : int8_t {
  unknown = 0,
  any = 1,
  all = 2,
  read = 3,
  write = 4,
  create = 5,
  delete_ = 6,
  alter = 7,
  describe = 8,
  cluster_action = 9,
  describe_configs = 10,
  alter_configs = 11,
  idempotent_write = 12,
  create_tokens = 13,
  describe_tokens = 14,
};

/// AclPermissionType.
enum class permission_type : int8_t {
  unknown = 0,
  any = 1,
  deny = 2,
  allow = 3,
};

/// Kafka's names as AclAuthorizer writes them in ZooKeeper and kafka-acls
/// prints them: "Topic", "Group", "Cluster", "TransactionalId"; "Literal",
/// "Prefixed"; "Read", "Write", "IdempotentWrite", "DescribeConfigs", ...;
/// "Allow", "Deny".
std::string_view to_string(resource_type x);
std::string_view to_string(pattern_type x);
std::string_view to_string(acl_operation x);
std::string_view to_string(permission_type x);

/// The inverse of to_string, case-insensitive as Kafka's fromString (also
/// accepts Kafka's upper-case enum names, "TRANSACTIONAL_ID", "ALTER_CONFIGS").
std::optional<resource_type> parse_resource_type(std::string_view text);
std::optional<pattern_type> parse_pattern_type(std::string_view text);
std::optional<acl_operation> parse_acl_operation(std::string_view text);
std::optional<permission_type> parse_permission_type(std::string_view text);

/// The resource name that matches every name ("*").
inline constexpr std::string_view wildcard_resource = "*";
/// The principal that matches every principal ("User:*").
inline constexpr std::string_view wildcard_principal = "User:*";
/// The host that matches every host ("*").
inline constexpr std::string_view wildcard_host = "*";

/// ResourcePattern: a type, a name (or "*") and LITERAL or PREFIXED.
struct resource_pattern {
  resource_type type = resource_type::unknown;
  std::string name;
  pattern_type pattern = pattern_type::literal;

  friend bool operator==(const resource_pattern& x, const resource_pattern& y) {
    return x.type == y.type && x.name == y.name && x.pattern == y.pattern;
  }
};

/// AccessControlEntry: "User:alice" from host "*" may READ, ALLOW.
struct access_entry {
  std::string principal;
  std::string host = "*";
  acl_operation operation = acl_operation::unknown;
  permission_type permission = permission_type::allow;

  friend bool operator==(const access_entry& x, const access_entry& y) {
    return x.principal == y.principal && x.host == y.host
           && x.operation == y.operation && x.permission == y.permission;
  }
};

/// AclBinding.
struct acl_binding {
  resource_pattern pattern;
  access_entry entry;

  friend bool operator==(const acl_binding& x, const acl_binding& y) {
    return x.pattern == y.pattern && x.entry == y.entry;
  }
};

/// AclBindingFilter (DescribeAcls, DeleteAcls): nullopt strings match any
/// value; ANY matches every enum value; pattern MATCH matches the LITERAL
/// name, the wildcard and every PREFIXED pattern that is a prefix of the
/// name (Kafka's ResourcePatternFilter.matches).
struct acl_binding_filter {
  resource_type type = resource_type::any;
  std::optional<std::string> name;
  pattern_type pattern = pattern_type::any;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  acl_operation operation = acl_operation::any;
  permission_type permission = permission_type::any;
};

bool matches(const acl_binding_filter& filter, const acl_binding& binding);

/// Why a binding cannot be created (CreateAcls' INVALID_REQUEST and
/// Kafka's messages), or nullopt: UNKNOWN/ANY values, MATCH or ANY
/// patterns, an empty name, a principal without "Type:", an operation the
/// resource type has no use for is still accepted, as Kafka accepts it.
std::optional<std::string> validate_binding(const acl_binding& binding);

/// Why a filter is refused (DescribeAcls/DeleteAcls INVALID_REQUEST), or
/// nullopt: UNKNOWN values.
std::optional<std::string> validate_filter(const acl_binding_filter& filter);

/// The operations Kafka's authorizer considers for a resource type (the
/// bits of an authorized-operations field), ALL excluded.
const std::vector<acl_operation>& operations_of(resource_type type);

/// authorizer.class.name and the settings of Kafka's AclAuthorizer.
struct authorizer_config {
  /// Off: every request is allowed, as Kafka without an authorizer.
  bool enabled = false;
  /// super.users, e.g. {"User:admin", "User:CN=broker"}.
  std::vector<std::string> super_users;
  /// allow.everyone.if.no.acl.found
  bool allow_everyone_if_no_acl_found = false;
};

/// The names authorizer.class.name accepts: Kafka's
/// "kafka.security.authorizer.AclAuthorizer" and
/// "org.apache.kafka.metadata.authorizer.StandardAuthorizer", and troupe's
/// "troupe.AclAuthorizer". Empty turns authorization off.
bool is_known_authorizer(std::string_view class_name);

/// Who asks and from where.
struct request_identity {
  /// "User:alice", "User:ANONYMOUS", "User:CN=client".
  std::string principal;
  /// The client's address without port ("127.0.0.1").
  std::string host;
};

/// The ACLs in force and the decision over them. Immutable once built;
/// share it through security_store.
class acl_authorizer {
public:
  acl_authorizer() = default;
  acl_authorizer(authorizer_config config, std::vector<acl_binding> bindings);

  const authorizer_config& config() const noexcept {
    return config_;
  }

  const std::vector<acl_binding>& bindings() const noexcept {
    return bindings_;
  }

  /// AclAuthorizer.authorize for one action on one resource: the LITERAL
  /// ACLs of the name, of "*", and the PREFIXED ones whose name is a prefix;
  /// DENY wins; DESCRIBE is allowed by READ/WRITE/DELETE/ALTER, and
  /// DESCRIBE_CONFIGS by ALTER_CONFIGS; ALL allows every operation.
  bool authorize(const request_identity& who, acl_operation op,
                 resource_type type, std::string_view name) const;

  /// The authorized-operations bit field of a resource (bit 1 << code per
  /// allowed operation of operations_of(type)), as Metadata and
  /// DescribeGroups report it.
  int32_t authorized_operations(const request_identity& who,
                                resource_type type,
                                std::string_view name) const;

  /// True when `who` may `op` on some resource of `type` (Kafka's
  /// authorizeByResourceType, used for idempotent writes and transactional
  /// ids): an ALLOW on any pattern not overridden by a DENY of the same
  /// scope.
  bool authorize_any(const request_identity& who, acl_operation op,
                     resource_type type) const;

private:
  authorizer_config config_;
  std::vector<acl_binding> bindings_;
};

} // namespace troupe::security
