#pragma once

// What CreateAcls, DeleteAcls and AlterUserScramCredentials do to a set of
// ACL bindings and SCRAM credentials, with Kafka's answers
// (docs/ARCHITECTURE.md §9): plain functions, shared by the embedded
// controller (which keeps both in its metadata) and a cluster node (which
// keeps them in Kafka's znodes).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/security/security_store.hpp"
#include "messages/security_messages.hpp"

namespace troupe {

/// AclAuthorizer.createAcls: each creation is validated (INVALID_REQUEST
/// with Kafka's message); valid ones not yet present are appended to
/// `bindings`. One result per creation. True when `bindings` changed.
bool apply_create_acls(std::vector<security::acl_binding>& bindings,
                       const create_acls_request& req,
                       create_acls_response& res);

/// AclAuthorizer.deleteAcls: each filter removes every binding it matches
/// and reports them (a binding two filters match is reported by both). A
/// filter with UNKNOWN values answers INVALID_REQUEST. True when
/// `bindings` changed.
bool apply_delete_acls(std::vector<security::acl_binding>& bindings,
                       const delete_acls_request& req,
                       delete_acls_response& res);

/// The first pass of ZkAdminManager.alterUserScramCredentials: the users
/// refused before anything is read (an empty name, an unknown mechanism,
/// iterations outside 4096..16384: UNACCEPTABLE_CREDENTIAL or
/// UNSUPPORTED_SASL_MECHANISM; a user+mechanism twice: DUPLICATE_RESOURCE)
/// and the users left to alter, in request order.
struct scram_plan {
  std::vector<scram_alteration_result> refused;
  std::vector<std::string> users;
};

scram_plan plan_scram_alterations(const alter_scram_credentials_request& req);

/// The second pass for one user of the plan, over that user's stored
/// credentials: RESOURCE_NOT_FOUND (nothing changed) when a deletion names
/// a mechanism the user has no credential for, else the deletions and
/// upsertions applied and NONE.
scram_alteration_result
apply_scram_alterations(const std::string& user,
                        const alter_scram_credentials_request& req,
                        std::map<security::scram_mechanism,
                                 security::scram_credential>& credentials);

/// Both passes over every user's credentials; `changed` (if not null)
/// receives the users whose credentials changed. Results: the refused
/// users, then those not found, then those altered.
alter_scram_credentials_response
apply_alter_scram(security::scram_credentials& credentials,
                  const alter_scram_credentials_request& req,
                  std::vector<std::string>* changed = nullptr);

} // namespace troupe
