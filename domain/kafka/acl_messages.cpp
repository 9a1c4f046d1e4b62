// Field lists of acl_messages.hpp, in wire order as Kafka's JSON schemas
// (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/acl_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

/// PatternType and its kin: v1+; v0 means LITERAL and cannot say anything
/// else (the fields are not ignorable).
template <class Io>
void pattern_type(Io& io, int8_t& x) {
  if (io.version >= 1)
    io.i8(x);
  else
    io.absent(x, acl_pattern_literal, "PatternType");
}

// -- DescribeAcls -------------------------------------------------------------

template <class Io>
void fields(Io& io, describe_acls_request& x) {
  io.i8(x.resource_type_filter);
  io.nullable_string(x.resource_name_filter);
  pattern_type(io, x.pattern_type_filter);
  io.nullable_string(x.principal_filter);
  io.nullable_string(x.host_filter);
  io.i8(x.operation);
  io.i8(x.permission_type);
}

template <class Io>
void fields(Io& io, acl_description& x) {
  io.string(x.principal);
  io.string(x.host);
  io.i8(x.operation);
  io.i8(x.permission_type);
}

template <class Io>
void fields(Io& io, describe_acls_resource& x) {
  io.i8(x.resource_type);
  io.string(x.resource_name);
  pattern_type(io, x.pattern_type);
  io.array(x.acls);
}

template <class Io>
void fields(Io& io, describe_acls_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.resources);
}

// -- CreateAcls ---------------------------------------------------------------

template <class Io>
void fields(Io& io, acl_creation& x) {
  io.i8(x.resource_type);
  io.string(x.resource_name);
  pattern_type(io, x.resource_pattern_type);
  io.string(x.principal);
  io.string(x.host);
  io.i8(x.operation);
  io.i8(x.permission_type);
}

template <class Io>
void fields(Io& io, create_acls_request& x) {
  io.array(x.creations);
}

template <class Io>
void fields(Io& io, acl_creation_result& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, create_acls_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.results);
}

// -- DeleteAcls ---------------------------------------------------------------

template <class Io>
void fields(Io& io, delete_acls_filter& x) {
  io.i8(x.resource_type_filter);
  io.nullable_string(x.resource_name_filter);
  pattern_type(io, x.pattern_type_filter);
  io.nullable_string(x.principal_filter);
  io.nullable_string(x.host_filter);
  io.i8(x.operation);
  io.i8(x.permission_type);
}

template <class Io>
void fields(Io& io, delete_acls_request& x) {
  io.array(x.filters);
}

template <class Io>
void fields(Io& io, delete_acls_matching_acl& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.i8(x.resource_type);
  io.string(x.resource_name);
  pattern_type(io, x.pattern_type);
  io.string(x.principal);
  io.string(x.host);
  io.i8(x.operation);
  io.i8(x.permission_type);
}

template <class Io>
void fields(Io& io, delete_acls_filter_result& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.matching_acls);
}

template <class Io>
void fields(Io& io, delete_acls_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.filter_results);
}

// -- DescribeUserScramCredentials ---------------------------------------------

template <class Io>
void fields(Io& io, scram_user_name& x) {
  io.string(x.name);
}

template <class Io>
void fields(Io& io, describe_user_scram_credentials_request& x) {
  io.nullable_array(x.users);
}

template <class Io>
void fields(Io& io, scram_credential_info& x) {
  io.i8(x.mechanism);
  io.i32(x.iterations);
}

template <class Io>
void fields(Io& io, describe_user_scram_credentials_result& x) {
  io.string(x.user);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.credential_infos);
}

template <class Io>
void fields(Io& io, describe_user_scram_credentials_response& x) {
  io.i32(x.throttle_time_ms);
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.array(x.results);
}

// -- AlterUserScramCredentials ------------------------------------------------

template <class Io>
void fields(Io& io, scram_credential_deletion& x) {
  io.string(x.name);
  io.i8(x.mechanism);
}

template <class Io>
void fields(Io& io, scram_credential_upsertion& x) {
  io.string(x.name);
  io.i8(x.mechanism);
  io.i32(x.iterations);
  io.bytes(x.salt);
  io.bytes(x.salted_password);
}

template <class Io>
void fields(Io& io, alter_user_scram_credentials_request& x) {
  io.array(x.deletions);
  io.array(x.upsertions);
}

template <class Io>
void fields(Io& io, alter_user_scram_credentials_result& x) {
  io.string(x.user);
  io.error(x.error);
  io.nullable_string(x.error_message);
}

template <class Io>
void fields(Io& io, alter_user_scram_credentials_response& x) {
  io.i32(x.throttle_time_ms);
  io.array(x.results);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(describe_acls, api_key::describe_acls)
TROUPE_KAFKA_DEFINE_API(create_acls, api_key::create_acls)
TROUPE_KAFKA_DEFINE_API(delete_acls, api_key::delete_acls)
TROUPE_KAFKA_DEFINE_API(describe_user_scram_credentials,
                        api_key::describe_user_scram_credentials)
TROUPE_KAFKA_DEFINE_API(alter_user_scram_credentials,
                        api_key::alter_user_scram_credentials)

} // namespace troupe::wire
