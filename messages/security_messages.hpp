#pragma once

// The admin requests that change the ACLs and the SCRAM credentials
// (docs/ARCHITECTURE.md §9): CreateAcls (30), DeleteAcls (31) and
// AlterUserScramCredentials (51, KIP-554), from the Kafka listener to the
// node's controller. The embedded controller stores them in its metadata;
// a cluster node writes Kafka's znodes (/kafka-acl, /kafka-acl-extended,
// /config/users) and their change notifications. DescribeAcls and
// DescribeUserScramCredentials are answered at the edge from the process's
// security snapshot, which the controller replaces after each change.
// Plain structs with inspect(); the domain's ACL and SCRAM types travel
// with inspect() overloads beside them.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/nullable.hpp"
#include "domain/security/acl.hpp"
#include "domain/security/scram.hpp"

namespace troupe {

// -- CreateAcls ---------------------------------------------------------------

/// Listener -> controller: the bindings to add (Kafka adds one that exists
/// already without complaint).
struct create_acls_request {
  std::vector<security::acl_binding> creations;
};

/// One per creation, in request order: NONE, INVALID_REQUEST (the binding
/// is not valid), or what storing it failed with.
struct acl_creation_result {
  error_code error = error_code::none;
  std::string message{};
};

struct create_acls_response {
  std::vector<acl_creation_result> results;
};

// -- DeleteAcls ---------------------------------------------------------------

/// security::acl_binding_filter as a message carries it (CAF 0.17 knows no
/// std::optional): null strings match any value.
struct acl_filter {
  security::resource_type resource = security::resource_type::any;
  nullable<std::string> name{};
  security::pattern_type pattern = security::pattern_type::any;
  nullable<std::string> principal{};
  nullable<std::string> host{};
  security::acl_operation operation = security::acl_operation::any;
  security::permission_type permission = security::permission_type::any;
};

inline security::acl_binding_filter to_binding_filter(const acl_filter& x) {
  security::acl_binding_filter out;
  out.type = x.resource;
  out.name = x.name;
  out.pattern = x.pattern;
  out.principal = x.principal;
  out.host = x.host;
  out.operation = x.operation;
  out.permission = x.permission;
  return out;
}

inline acl_filter to_acl_filter(const security::acl_binding_filter& x) {
  acl_filter out;
  out.resource = x.type;
  out.name = x.name;
  out.pattern = x.pattern;
  out.principal = x.principal;
  out.host = x.host;
  out.operation = x.operation;
  out.permission = x.permission;
  return out;
}

/// Listener -> controller: remove every binding each filter matches.
struct delete_acls_request {
  std::vector<acl_filter> filters;
};

/// One per filter, in request order: the bindings it removed.
struct acl_deletion_result {
  error_code error = error_code::none;
  std::string message{};
  std::vector<security::acl_binding> deleted;
};

struct delete_acls_response {
  std::vector<acl_deletion_result> results;
};

// -- AlterUserScramCredentials (KIP-554) ------------------------------------

/// Add or replace a user's credential for one mechanism. The listener
/// derives the credential from the salted password the client sent
/// (ScramFormatter.generateCredential); a mechanism code Kafka does not
/// know travels as is and is refused by the controller.
struct scram_upsertion {
  std::string user;
  security::scram_mechanism mechanism = security::scram_mechanism::sha256;
  security::scram_credential credential;
};

/// Remove a user's credential for one mechanism.
struct scram_deletion {
  std::string user;
  security::scram_mechanism mechanism = security::scram_mechanism::sha256;
};

struct alter_scram_credentials_request {
  std::vector<scram_deletion> deletions;
  std::vector<scram_upsertion> upsertions;
};

/// One per user, as Kafka's ZkAdminManager answers: the users refused
/// (UNACCEPTABLE_CREDENTIAL, UNSUPPORTED_SASL_MECHANISM), those altered
/// twice (DUPLICATE_RESOURCE), those deleting what is absent
/// (RESOURCE_NOT_FOUND), then those altered (NONE).
struct scram_alteration_result {
  std::string user;
  error_code error = error_code::none;
  std::string message{};
};

struct alter_scram_credentials_response {
  std::vector<scram_alteration_result> results;
};

// -- inspect ------------------------------------------------------------------

} // namespace troupe

namespace troupe::security {

// Found by argument-dependent lookup for the domain's types.

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resource_pattern& x) {
  return f(x.type, x.name, x.pattern);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, access_entry& x) {
  return f(x.principal, x.host, x.operation, x.permission);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, acl_binding& x) {
  return f(x.pattern, x.entry);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scram_credential& x) {
  return f(x.salt, x.stored_key, x.server_key, x.iterations);
}

} // namespace troupe::security

namespace troupe {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, create_acls_request& x) {
  return f(x.creations);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, acl_creation_result& x) {
  return f(x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        create_acls_response& x) {
  return f(x.results);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, acl_filter& x) {
  return f(x.resource, x.name, x.pattern, x.principal, x.host, x.operation,
           x.permission);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delete_acls_request& x) {
  return f(x.filters);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, acl_deletion_result& x) {
  return f(x.error, x.message, x.deleted);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        delete_acls_response& x) {
  return f(x.results);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scram_upsertion& x) {
  return f(x.user, x.mechanism, x.credential);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scram_deletion& x) {
  return f(x.user, x.mechanism);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, alter_scram_credentials_request& x) {
  return f(x.deletions, x.upsertions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f,
                                        scram_alteration_result& x) {
  return f(x.user, x.error, x.message);
}

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, alter_scram_credentials_response& x) {
  return f(x.results);
}

} // namespace troupe
