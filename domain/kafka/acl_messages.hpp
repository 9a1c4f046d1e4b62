#pragma once

// The messages of the security admin APIs: DescribeAcls (29), CreateAcls
// (30), DeleteAcls (31) and, of KIP-554, DescribeUserScramCredentials (50)
// and AlterUserScramCredentials (51), field for field as Kafka's JSON
// schemas (docs/ARCHITECTURE.md §5, §9). The codec is in protocol.hpp. The
// enum fields stay the wire's int8 codes (security::resource_type,
// pattern_type, acl_operation, permission_type and scram_mechanism name
// them): an unknown code decodes, and the handler answers it as Kafka does.
//
// Members added after a struct's first release are appended, and every member
// has a default initializer: a positional initializer naming only the first
// members keeps its meaning and compiles without -Wmissing-field-initializers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/wire.hpp"

namespace troupe::wire {

/// PatternType LITERAL (3): the value of every v0 ACL message, which has no
/// pattern type field, and the schemas' default.
constexpr int8_t acl_pattern_literal = 3;

// -- DescribeAcls (29), v0-3 --------------------------------------------------

struct describe_acls_request {
  int8_t resource_type_filter = 0;
  /// Null: any resource name.
  std::optional<std::string> resource_name_filter{};
  int8_t pattern_type_filter = acl_pattern_literal; // v1+
  std::optional<std::string> principal_filter{};
  std::optional<std::string> host_filter{};
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct acl_description {
  std::string principal{};
  std::string host{};
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct describe_acls_resource {
  int8_t resource_type = 0;
  std::string resource_name{};
  int8_t pattern_type = acl_pattern_literal; // v1+
  std::vector<acl_description> acls{};
};

struct describe_acls_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<describe_acls_resource> resources{};
};

// -- CreateAcls (30), v0-3 ----------------------------------------------------

struct acl_creation {
  int8_t resource_type = 0;
  std::string resource_name{};
  int8_t resource_pattern_type = acl_pattern_literal; // v1+
  std::string principal{};
  std::string host{};
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct create_acls_request {
  std::vector<acl_creation> creations{};
};

struct acl_creation_result {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct create_acls_response {
  int32_t throttle_time_ms = 0;
  std::vector<acl_creation_result> results{};
};

// -- DeleteAcls (31), v0-3 ----------------------------------------------------

struct delete_acls_filter {
  int8_t resource_type_filter = 0;
  std::optional<std::string> resource_name_filter{};
  int8_t pattern_type_filter = acl_pattern_literal; // v1+
  std::optional<std::string> principal_filter{};
  std::optional<std::string> host_filter{};
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct delete_acls_request {
  std::vector<delete_acls_filter> filters{};
};

struct delete_acls_matching_acl {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  int8_t resource_type = 0;
  std::string resource_name{};
  int8_t pattern_type = acl_pattern_literal; // v1+
  std::string principal{};
  std::string host{};
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct delete_acls_filter_result {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<delete_acls_matching_acl> matching_acls{};
};

struct delete_acls_response {
  int32_t throttle_time_ms = 0;
  std::vector<delete_acls_filter_result> filter_results{};
};

// -- DescribeUserScramCredentials (50), v0 (KIP-554) --------------------------

/// ScramMechanism's wire codes (Kafka's ScramMechanism.type()).
constexpr int8_t scram_mechanism_unknown = 0;
constexpr int8_t scram_mechanism_sha_256 = 1;
constexpr int8_t scram_mechanism_sha_512 = 2;

struct scram_user_name {
  std::string name{};
};

struct describe_user_scram_credentials_request {
  /// Null or empty: every user.
  std::optional<std::vector<scram_user_name>> users{};
};

struct scram_credential_info {
  int8_t mechanism = 0;
  int32_t iterations = 0;
};

struct describe_user_scram_credentials_result {
  std::string user{};
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<scram_credential_info> credential_infos{};
};

struct describe_user_scram_credentials_response {
  int32_t throttle_time_ms = 0;
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<describe_user_scram_credentials_result> results{};
};

// -- AlterUserScramCredentials (51), v0 (KIP-554) -----------------------------

struct scram_credential_deletion {
  std::string name{};
  int8_t mechanism = 0;
};

/// The client salts the password itself: the broker stores StoredKey and
/// ServerKey derived from SaltedPassword, never the password.
struct scram_credential_upsertion {
  std::string name{};
  int8_t mechanism = 0;
  int32_t iterations = 0;
  bytes salt{};
  bytes salted_password{};
};

struct alter_user_scram_credentials_request {
  std::vector<scram_credential_deletion> deletions{};
  std::vector<scram_credential_upsertion> upsertions{};
};

struct alter_user_scram_credentials_result {
  std::string user{};
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
};

struct alter_user_scram_credentials_response {
  int32_t throttle_time_ms = 0;
  std::vector<alter_user_scram_credentials_result> results{};
};

} // namespace troupe::wire
