#pragma once

// Where Kafka's AclAuthorizer and ZkAdminManager keep ACLs and SCRAM
// credentials in ZooKeeper mode (Kafka 3.9's ZkData.scala, AclEntry,
// ConfigEntityZNode, Sanitizer; docs/ARCHITECTURE.md §9), so that troupe's
// znodes read as Kafka's:
//
//   /kafka-acl/<Type>/<name>                     LITERAL bindings
//   /kafka-acl-extended/prefixed/<Type>/<name>   PREFIXED bindings
//     {"acls":[{"principal":"User:alice","permissionType":"Allow",
//       "host":"*","operation":"Read"}],"version":1}
//   /kafka-acl-changes/acl_changes_<seq>           "TOPIC:<name>"
//   /kafka-acl-extended-changes/acl_changes_<seq>
//     {"version":1,"resourceType":"TOPIC","name":"<name>",
//      "patternType":"PREFIXED"}
//   /config/users/<sanitized user>
//     {"version":1,"config":{"SCRAM-SHA-512":"salt=...,stored_key=...,
//      server_key=...,iterations=4096"}}
//   /config/changes/config_change_<seq>  {"version":2,"entity_path":"users/<u>"}
//
// Encoders write Kafka 3.9's bytes (AclEntry's maps are java.util.HashMaps;
// a user's config is a java.util.Properties, see kafka_znodes.hpp);
// decoders accept what Kafka's accept. No exceptions escape.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/security/acl.hpp"
#include "domain/security/scram.hpp"
#include "domain/topic_config.hpp"
#include "domain/zookeeper/decoded.hpp"

namespace troupe::zk {

// -- paths --------------------------------------------------------------------

inline constexpr std::string_view literal_acl_path = "/kafka-acl";
inline constexpr std::string_view extended_acl_path = "/kafka-acl-extended";
inline constexpr std::string_view prefixed_acl_path =
  "/kafka-acl-extended/prefixed";
inline constexpr std::string_view literal_acl_changes_path =
  "/kafka-acl-changes";
inline constexpr std::string_view extended_acl_changes_path =
  "/kafka-acl-extended-changes";
/// ZkAclChangeStore.SequenceNumberPrefix.
inline constexpr std::string_view acl_change_prefix = "acl_changes_";
inline constexpr std::string_view config_users_path = "/config/users";

/// The persistent paths the ACL stores need (AclAuthorizer.configure
/// creates them): the two roots, the prefixed store and both change paths.
const std::vector<std::string>& acl_persistent_paths();

/// The store of a pattern type: /kafka-acl or /kafka-acl-extended/prefixed
/// (empty for another type).
std::string acl_store_path(security::pattern_type pattern);

/// ZkAclStore.path: <store>/<SecurityUtils.resourceTypeName>/<name>.
std::string resource_acl_path(const security::resource_pattern& pattern);

/// The pattern a znode under a store names, from the store's pattern type,
/// the type directory ("Topic") and the child name; nullopt for a type
/// directory Kafka does not know.
std::optional<security::resource_pattern>
resource_of_path(security::pattern_type pattern, std::string_view type_dir,
                 std::string_view name);

// -- a resource's ACLs --------------------------------------------------------

/// ResourceZNode.encode (AclEntry.toJsonCompatibleMap, Kafka 3.9's HashMap
/// key order), entries in the given order.
std::string encode_resource_acls(const std::vector<security::access_entry>& acls);

/// AclEntry.fromBytes: version 1 only; an empty znode holds no ACLs.
decoded<std::vector<security::access_entry>>
decode_resource_acls(std::string_view json);

// -- change notifications -----------------------------------------------------

/// The change path of a pattern's store.
std::string_view acl_changes_path(security::pattern_type pattern);

/// LiteralAclChangeStore.encode ("TOPIC:<name>", Java's enum name) or
/// ExtendedAclChangeStore.encode (the JSON event), by the pattern's type.
std::string encode_acl_change(const security::resource_pattern& pattern);

/// The pattern a notification names; `extended` for
/// /kafka-acl-extended-changes.
decoded<security::resource_pattern> decode_acl_change(std::string_view data,
                                                      bool extended);

// -- SCRAM credentials in /config/users -----------------------------------------

/// Sanitizer.sanitize: URL-encoded (UTF-8), '*' as %2A, ' ' as %20.
std::string sanitize_entity_name(std::string_view name);

/// Sanitizer.desanitize (URLDecoder.decode).
std::string desanitize_entity_name(std::string_view name);

/// /config/users/<sanitized user>.
std::string user_config_path(std::string_view user);

/// "users/<sanitized user>", the entity path of its change notification.
std::string user_entity_path(std::string_view user);

/// The user a change notification's entity path names ("users/<u>"); empty
/// for another entity (topics, clients, users/<u>/clients/<c>).
std::string user_of_entity_path(std::string_view entity_path);

/// The user's SCRAM credentials among its config entries (the keys
/// "SCRAM-SHA-256", "SCRAM-SHA-512"); entries that do not parse are
/// skipped.
std::map<security::scram_mechanism, security::scram_credential>
scram_of_user_config(const topic_configs& config);

/// The config with its SCRAM entries replaced by `credentials` (other
/// entries, e.g. quotas, stay).
topic_configs with_scram(
  topic_configs config,
  const std::map<security::scram_mechanism, security::scram_credential>&
    credentials);

} // namespace troupe::zk
