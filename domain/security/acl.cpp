#include "domain/security/acl.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace troupe::security {

namespace {

// Lower case without '_': "IDEMPOTENT_WRITE" and "IdempotentWrite" meet.
std::string fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != '_')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <class Enum>
std::optional<Enum> parse_by_name(std::string_view text,
                                  std::initializer_list<Enum> values) {
  auto key = fold(text);
  for (auto x : values)
    if (fold(to_string(x)) == key)
      return x;
  return std::nullopt;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// SecurityUtils.parseKafkaPrincipal: "Type:name", both parts present.
bool is_principal(std::string_view text) {
  auto colon = text.find(':');
  return colon != std::string_view::npos && colon > 0;
}

// AclAuthorizer.matchingAclExists: the entry is for `who` (or User:*), from
// its host (or *), for `op` (or ALL), with `permission`.
bool entry_applies(const access_entry& e, const request_identity& who,
                   acl_operation op, permission_type permission) {
  return e.permission == permission
         && (e.principal == who.principal || e.principal == wildcard_principal)
         && (e.operation == op || e.operation == acl_operation::all)
         && (e.host == who.host || e.host == wildcard_host);
}

// AclAuthorizer.matchingAcls: the LITERAL ACLs of the name, of "*", and the
// PREFIXED ones whose name is a prefix of it.
bool pattern_covers(const resource_pattern& p, resource_type type,
                    std::string_view name) {
  if (p.type != type)
    return false;
  switch (p.pattern) {
    case pattern_type::literal:
      return p.name == name || p.name == wildcard_resource;
    case pattern_type::prefixed:
      return starts_with(name, p.name);
    default:
      return false;
  }
}

} // namespace

std::string_view to_string(resource_type x) {
  switch (x) {
    case resource_type::unknown:
      return "Unknown";
    case resource_type::any:
      return "Any";
    case resource_type::topic:
      return "Topic";
    case resource_type::group:
      return "Group";
    case resource_type::cluster:
      return "Cluster";
    case resource_type::transactional_id:
      return "TransactionalId";
    case resource_type::delegation_token:
      return "DelegationToken";
    case resource_type::user:
      return "User";
  }
  return "Unknown";
}

std::string_view to_string(pattern_type x) {
  switch (x) {
    case pattern_type::unknown:
      return "Unknown";
    case pattern_type::any:
      return "Any";
    case pattern_type::match:
      return "Match";
    case pattern_type::literal:
      return "Literal";
    case pattern_type::prefixed:
      return "Prefixed";
  }
  return "Unknown";
}

std::string_view to_string(acl_operation x) {
  switch (x) {
    case acl_operation::unknown:
      return "Unknown";
    case acl_operation::any:
      return "Any";
    case acl_operation::all:
      return "All";
    case acl_operation::read:
      return "Read";
    case acl_operation::write:
      return "Write";
    case acl_operation::create:
      return "Create";
    case acl_operation::delete_:
      return "Delete";
    case acl_operation::alter:
      return "Alter";
    case acl_operation::describe:
      return "Describe";
    case acl_operation::cluster_action:
      return "ClusterAction";
    case acl_operation::describe_configs:
      return "DescribeConfigs";
    case acl_operation::alter_configs:
      return "AlterConfigs";
    case acl_operation::idempotent_write:
      return "IdempotentWrite";
    case acl_operation::create_tokens:
      return "CreateTokens";
    case acl_operation::describe_tokens:
      return "DescribeTokens";
  }
  return "Unknown";
}

std::string_view to_string(permission_type x) {
  switch (x) {
    case permission_type::unknown:
      return "Unknown";
    case permission_type::any:
      return "Any";
    case permission_type::deny:
      return "Deny";
    case permission_type::allow:
      return "Allow";
  }
  return "Unknown";
}

std::optional<resource_type> parse_resource_type(std::string_view text) {
  using r = resource_type;
  return parse_by_name(text, {r::unknown, r::any, r::topic, r::group,
                              r::cluster, r::transactional_id,
                              r::delegation_token, r::user});
}

std::optional<pattern_type> parse_pattern_type(std::string_view text) {
  using p = pattern_type;
  return parse_by_name(text,
                       {p::unknown, p::any, p::match, p::literal, p::prefixed});
}

std::optional<acl_operation> parse_acl_operation(std::string_view text) {
  using o = acl_operation;
  return parse_by_name(text, {o::unknown, o::any, o::all, o::read, o::write,
                              o::create, o::delete_, o::alter, o::describe,
                              o::cluster_action, o::describe_configs,
                              o::alter_configs, o::idempotent_write,
                              o::create_tokens, o::describe_tokens});
}

std::optional<permission_type> parse_permission_type(std::string_view text) {
  using p = permission_type;
  return parse_by_name(text, {p::unknown, p::any, p::deny, p::allow});
}

// ResourcePatternFilter.matches and AccessControlEntryFilter.matches.
bool matches(const acl_binding_filter& f, const acl_binding& b) {
  const auto& p = b.pattern;
  if (f.type != resource_type::any && f.type != p.type)
    return false;
  if (f.pattern != pattern_type::any && f.pattern != pattern_type::match
      && f.pattern != p.pattern)
    return false;
  if (f.name) {
    if (f.pattern == pattern_type::any || f.pattern == p.pattern) {
      if (*f.name != p.name)
        return false;
    } else if (p.pattern == pattern_type::literal) {
      if (*f.name != p.name && p.name != wildcard_resource)
        return false;
    } else if (p.pattern == pattern_type::prefixed) {
      if (!starts_with(*f.name, p.name))
        return false;
    } else {
      return false;
    }
  }
  const auto& e = b.entry;
  if (f.principal && *f.principal != e.principal)
    return false;
  if (f.host && *f.host != e.host)
    return false;
  if (f.operation != acl_operation::any && f.operation != e.operation)
    return false;
  return f.permission == permission_type::any || f.permission == e.permission;
}

// CreateAclsRequest.validate, the ResourcePattern and AccessControlEntry
// constructors, SecurityUtils.parseKafkaPrincipal and AclApis'
// handleCreateAcls checks, with their messages.
std::optional<std::string> validate_binding(const acl_binding& b) {
  const auto& p = b.pattern;
  const auto& e = b.entry;
  if (p.type == resource_type::unknown || p.pattern == pattern_type::unknown
      || e.operation == acl_operation::unknown
      || e.permission == permission_type::unknown)
    return "CreatableAcls contain unrecognized enum values";
  if (p.type == resource_type::any)
    return "resourceType must not be ANY";
  if (p.pattern == pattern_type::match || p.pattern == pattern_type::any)
    return "patternType must not be "
           + std::string{p.pattern == pattern_type::match ? "MATCH" : "ANY"};
  if (e.operation == acl_operation::any)
    return "operation must not be ANY";
  if (e.permission == permission_type::any)
    return "permissionType must not be ANY";
  if (!is_principal(e.principal))
    return "expected a string in format principalType:principalName but got "
           + e.principal;
  if (p.type == resource_type::cluster && p.name != "kafka-cluster")
    return "The only valid name for the CLUSTER resource is kafka-cluster";
  if (p.name.empty())
    return "Invalid empty resource name";
  return std::nullopt;
}

std::optional<std::string> validate_filter(const acl_binding_filter& f) {
  if (f.type == resource_type::unknown || f.pattern == pattern_type::unknown
      || f.operation == acl_operation::unknown
      || f.permission == permission_type::unknown)
    return "Filter contain UNKNOWN elements";
  return std::nullopt;
}

// AclEntry.supportedOperations.
const std::vector<acl_operation>& operations_of(resource_type type) {
  using o = acl_operation;
  static const std::vector<o> topic{o::read,   o::write,
                                    o::create, o::delete_,
                                    o::alter,  o::describe,
                                    o::describe_configs, o::alter_configs};
  static const std::vector<o> group{o::read, o::describe, o::delete_};
  static const std::vector<o> cluster{o::create,
                                      o::alter,
                                      o::describe,
                                      o::cluster_action,
                                      o::describe_configs,
                                      o::alter_configs,
                                      o::idempotent_write};
  static const std::vector<o> transactional_id{o::describe, o::write};
  static const std::vector<o> delegation_token{o::describe};
  static const std::vector<o> user{o::create_tokens, o::describe_tokens};
  static const std::vector<o> none;
  switch (type) {
    case resource_type::topic:
      return topic;
    case resource_type::group:
      return group;
    case resource_type::cluster:
      return cluster;
    case resource_type::transactional_id:
      return transactional_id;
    case resource_type::delegation_token:
      return delegation_token;
    case resource_type::user:
      return user;
    default:
      return none;
  }
}

bool is_known_authorizer(std::string_view class_name) {
  return class_name == "kafka.security.authorizer.AclAuthorizer"
         || class_name == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
         || class_name == "troupe.AclAuthorizer";
}

acl_authorizer::acl_authorizer(authorizer_config config,
                               std::vector<acl_binding> bindings)
  : config_(std::move(config)), bindings_(std::move(bindings)) {
  // nop
}

// AclAuthorizer.authorizeAction.
bool acl_authorizer::authorize(const request_identity& who, acl_operation op,
                               resource_type type,
                               std::string_view name) const {
  const auto& supers = config_.super_users;
  if (std::find(supers.begin(), supers.end(), who.principal) != supers.end())
    return true;
  std::vector<const access_entry*> acls;
  for (const auto& b : bindings_)
    if (pattern_covers(b.pattern, type, name))
      acls.push_back(&b.entry);
  if (acls.empty())
    return config_.allow_everyone_if_no_acl_found;
  auto exists = [&](acl_operation o, permission_type perm) {
    return std::any_of(acls.begin(), acls.end(), [&](const access_entry* e) {
      return entry_applies(*e, who, o, perm);
    });
  };
  if (exists(op, permission_type::deny))
    return false;
  using o = acl_operation;
  std::vector<o> allow_ops{op};
  if (op == o::describe)
    allow_ops = {o::describe, o::read, o::write, o::delete_, o::alter};
  else if (op == o::describe_configs)
    allow_ops = {o::describe_configs, o::alter_configs};
  return std::any_of(allow_ops.begin(), allow_ops.end(), [&](o x) {
    return exists(x, permission_type::allow);
  });
}

int32_t acl_authorizer::authorized_operations(const request_identity& who,
                                              resource_type type,
                                              std::string_view name) const {
  int32_t bits = 0;
  for (auto op : operations_of(type))
    if (!config_.enabled || authorize(who, op, type, name))
      bits |= int32_t{1} << static_cast<int>(op);
  return bits;
}

// Authorizer.authorizeByResourceType (Kafka's default method, which
// AclAuthorizer's own follows): allowed when a hard-coded name is allowed
// (super users, allow.everyone.if.no.acl.found), or when some ALLOW of
// `who` for `op` is neither a LITERAL name denied too nor under a PREFIXED
// DENY; a LITERAL "*" DENY denies, a LITERAL "*" ALLOW allows.
bool acl_authorizer::authorize_any(const request_identity& who,
                                   acl_operation op,
                                   resource_type type) const {
  if (authorize(who, op, type, "hardcode"))
    return true;
  std::set<std::string> deny_literal, deny_prefixed, allow_literal,
    allow_prefixed;
  bool wildcard_allow = false;
  for (const auto& b : bindings_) {
    const auto& e = b.entry;
    if (b.pattern.type != type)
      continue;
    if (e.host != who.host && e.host != wildcard_host)
      continue;
    if (e.principal != who.principal && e.principal != wildcard_principal)
      continue;
    if (e.operation != op && e.operation != acl_operation::all)
      continue;
    const auto& name = b.pattern.name;
    if (e.permission == permission_type::deny) {
      if (b.pattern.pattern == pattern_type::literal) {
        if (name == wildcard_resource)
          return false;
        deny_literal.insert(name);
      } else if (b.pattern.pattern == pattern_type::prefixed) {
        deny_prefixed.insert(name);
      }
      continue;
    }
    if (e.permission != permission_type::allow)
      continue;
    if (b.pattern.pattern == pattern_type::literal) {
      if (name == wildcard_resource)
        wildcard_allow = true;
      else
        allow_literal.insert(name);
    } else if (b.pattern.pattern == pattern_type::prefixed) {
      allow_prefixed.insert(name);
    }
  }
  if (wildcard_allow)
    return true;
  auto dominated = [&](const std::string& allowed) {
    for (size_t n = 1; n <= allowed.size(); ++n)
      if (deny_prefixed.count(allowed.substr(0, n)) > 0)
        return true;
    return false;
  };
  for (const auto& name : allow_literal)
    if (deny_literal.count(name) == 0 && !dominated(name))
      return true;
  for (const auto& name : allow_prefixed)
    if (!dominated(name))
      return true;
  return false;
}

} // namespace troupe::security
