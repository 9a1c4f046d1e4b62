// The security admin APIs (docs/ARCHITECTURE.md §9), as Kafka 3.9's
// AclApis and KafkaApis answer them: DescribeAcls (29) and
// DescribeUserScramCredentials (50) from the process's security snapshot,
// CreateAcls (30), DeleteAcls (31) and AlterUserScramCredentials (51)
// through the node's controller, which stores the change (the embedded
// node's metadata, a cluster's znodes) and replaces the snapshot.
// DESCRIBE on the CLUSTER for the describes, ALTER for the changes, else
// CLUSTER_AUTHORIZATION_FAILED. Without an authorizer the ACL APIs answer
// SECURITY_DISABLED; the SCRAM APIs work without one.

#include <algorithm>
#include <map>
#include <set>

#include "gateway/kafka/kafka_handlers.hpp"
#include "messages/security_messages.hpp"

namespace troupe::kafka_handlers {

namespace {

using namespace security;

constexpr std::string_view cluster_resource = "kafka-cluster";

std::shared_ptr<const security_snapshot> snapshot_of(kafka_session_ptr self) {
  auto& store = self->state.ctx.security;
  return store ? store->snapshot() : nullptr;
}

/// An authorizer is configured (authorizer.class.name).
bool authorizer_on(kafka_session_ptr self) {
  auto& store = self->state.ctx.security;
  return store && store->config().enabled;
}

/// AuthHelper.authorize(request.context, op, CLUSTER, CLUSTER_NAME): true
/// without an authorizer.
bool cluster_allowed(kafka_session_ptr self, acl_operation op) {
  auto snap = snapshot_of(self);
  return !snap
         || snap->authorize(self->state.identity, op, resource_type::cluster,
                            cluster_resource);
}

// -- wire codes to the domain's enums (an unknown code is UNKNOWN) ------------

resource_type resource_of(int8_t code) {
  return code >= 1 && code <= 7 ? static_cast<resource_type>(code)
                                : resource_type::unknown;
}

pattern_type pattern_of(int8_t code) {
  return code >= 1 && code <= 4 ? static_cast<pattern_type>(code)
                                : pattern_type::unknown;
}

acl_operation operation_of(int8_t code) {
  return code >= 1 && code <= 14 ? static_cast<acl_operation>(code)
                                 : acl_operation::unknown;
}

permission_type permission_of(int8_t code) {
  return code >= 1 && code <= 3 ? static_cast<permission_type>(code)
                                : permission_type::unknown;
}

int8_t code(resource_type x) {
  return static_cast<int8_t>(x);
}
int8_t code(pattern_type x) {
  return static_cast<int8_t>(x);
}
int8_t code(acl_operation x) {
  return static_cast<int8_t>(x);
}
int8_t code(permission_type x) {
  return static_cast<int8_t>(x);
}

template <class Filter>
acl_binding_filter filter_of(const Filter& f) {
  acl_binding_filter out;
  out.type = resource_of(f.resource_type_filter);
  out.name = f.resource_name_filter;
  out.pattern = pattern_of(f.pattern_type_filter);
  out.principal = f.principal_filter;
  out.host = f.host_filter;
  out.operation = operation_of(f.operation);
  out.permission = permission_of(f.permission_type);
  return out;
}

std::optional<std::string> message_of(const std::string& text) {
  return null_if_empty(text);
}

} // namespace

// -- DescribeAcls (29) ----------------------------------------------------------

void serve_describe_acls(kafka_session_ptr self, const wire::request_header& h,
                         wire::describe_acls_request& req,
                         kafka_reply_fn reply) {
  wire::describe_acls_response out;
  if (!cluster_allowed(self, acl_operation::describe)) {
    out.error = error_code::cluster_authorization_failed;
    out.error_message = std::string{error_message(out.error)};
    reply(frame(h, out, wire::encode_describe_acls_response));
    return;
  }
  if (!authorizer_on(self)) {
    out.error = error_code::security_disabled;
    out.error_message = "No Authorizer is configured on the broker";
    reply(frame(h, out, wire::encode_describe_acls_response));
    return;
  }
  auto filter = filter_of(req);
  if (auto why = validate_filter(filter)) {
    out.error = error_code::invalid_request;
    out.error_message = *why;
    reply(frame(h, out, wire::encode_describe_acls_response));
    return;
  }
  // DescribeAclsResponse.aclsResources: the matching bindings grouped by
  // resource pattern.
  std::vector<wire::describe_acls_resource> resources;
  for (auto& b : snapshot_of(self)->acls().bindings()) {
    if (!matches(filter, b))
      continue;
    auto i = std::find_if(resources.begin(), resources.end(), [&](auto& r) {
      return r.resource_type == code(b.pattern.type)
             && r.resource_name == b.pattern.name
             && r.pattern_type == code(b.pattern.pattern);
    });
    if (i == resources.end()) {
      resources.push_back({code(b.pattern.type), b.pattern.name,
                           code(b.pattern.pattern), {}});
      i = std::prev(resources.end());
    }
    i->acls.push_back({b.entry.principal, b.entry.host,
                       code(b.entry.operation), code(b.entry.permission)});
  }
  out.resources = std::move(resources);
  reply(frame(h, out, wire::encode_describe_acls_response));
}

// -- CreateAcls (30) ------------------------------------------------------------

void serve_create_acls(kafka_session_ptr self, const wire::request_header& h,
                       wire::create_acls_request& req, kafka_reply_fn reply) {
  auto refuse_all = [&](error_code e, std::string msg) {
    wire::create_acls_response out;
    for (size_t i = 0; i < req.creations.size(); ++i)
      out.results.push_back({e, msg});
    reply(frame(h, out, wire::encode_create_acls_response));
  };
  if (!cluster_allowed(self, acl_operation::alter))
    return refuse_all(error_code::cluster_authorization_failed,
                      std::string{error_message(
                        error_code::cluster_authorization_failed)});
  if (!authorizer_on(self))
    return refuse_all(error_code::security_disabled,
                      "No Authorizer is configured.");
  auto& admin = self->state.ctx.security_admin;
  if (!admin)
    return refuse_all(error_code::unknown_server_error,
                      "This listener cannot change ACLs.");
  create_acls_request msg;
  for (auto& c : req.creations)
    msg.creations.push_back(
      {{resource_of(c.resource_type), c.resource_name,
        pattern_of(c.resource_pattern_type)},
       {c.principal, c.host, operation_of(c.operation),
        permission_of(c.permission_type)}});
  auto n = req.creations.size();
  self->request(admin, edge_request_timeout, std::move(msg))
    .then(
      [h, reply, n](create_acls_response& res) {
        wire::create_acls_response out;
        for (size_t i = 0; i < n; ++i) {
          if (i < res.results.size())
            out.results.push_back(
              {res.results[i].error, message_of(res.results[i].message)});
          else
            out.results.push_back({error_code::unknown_server_error, {}});
        }
        reply(frame(h, out, wire::encode_create_acls_response));
      },
      [h, reply, n](caf::error& err) {
        spdlog::warn("kafka: CreateAcls failed: {}", caf::to_string(err));
        wire::create_acls_response out;
        for (size_t i = 0; i < n; ++i)
          out.results.push_back({error_code::unknown_server_error,
                                 std::string{"The ACLs could not be stored."}});
        reply(frame(h, out, wire::encode_create_acls_response));
      });
}

// -- DeleteAcls (31) ------------------------------------------------------------

void serve_delete_acls(kafka_session_ptr self, const wire::request_header& h,
                       wire::delete_acls_request& req, kafka_reply_fn reply) {
  auto refuse_all = [&](error_code e, std::string msg) {
    wire::delete_acls_response out;
    for (size_t i = 0; i < req.filters.size(); ++i)
      out.filter_results.push_back({e, msg, {}});
    reply(frame(h, out, wire::encode_delete_acls_response));
  };
  if (!cluster_allowed(self, acl_operation::alter))
    return refuse_all(error_code::cluster_authorization_failed,
                      std::string{error_message(
                        error_code::cluster_authorization_failed)});
  if (!authorizer_on(self))
    return refuse_all(error_code::security_disabled,
                      "No Authorizer is configured.");
  auto& admin = self->state.ctx.security_admin;
  if (!admin)
    return refuse_all(error_code::unknown_server_error,
                      "This listener cannot change ACLs.");
  delete_acls_request msg;
  for (auto& f : req.filters)
    msg.filters.push_back(to_acl_filter(filter_of(f)));
  auto n = req.filters.size();
  self->request(admin, edge_request_timeout, std::move(msg))
    .then(
      [h, reply, n](delete_acls_response& res) {
        wire::delete_acls_response out;
        for (size_t i = 0; i < n; ++i) {
          wire::delete_acls_filter_result fr;
          if (i >= res.results.size()) {
            fr.error = error_code::unknown_server_error;
            out.filter_results.push_back(std::move(fr));
            continue;
          }
          auto& r = res.results[i];
          fr.error = r.error;
          fr.error_message = message_of(r.message);
          for (auto& b : r.deleted)
            fr.matching_acls.push_back(
              {error_code::none, std::nullopt, code(b.pattern.type),
               b.pattern.name, code(b.pattern.pattern), b.entry.principal,
               b.entry.host, code(b.entry.operation),
               code(b.entry.permission)});
          out.filter_results.push_back(std::move(fr));
        }
        reply(frame(h, out, wire::encode_delete_acls_response));
      },
      [h, reply, n](caf::error& err) {
        spdlog::warn("kafka: DeleteAcls failed: {}", caf::to_string(err));
        wire::delete_acls_response out;
        for (size_t i = 0; i < n; ++i)
          out.filter_results.push_back(
            {error_code::unknown_server_error,
             std::string{"The ACLs could not be deleted."},
             {}});
        reply(frame(h, out, wire::encode_delete_acls_response));
      });
}

// -- DescribeUserScramCredentials (50) -------------------------------------------

void serve_describe_user_scram_credentials(
  kafka_session_ptr self, const wire::request_header& h,
  wire::describe_user_scram_credentials_request& req, kafka_reply_fn reply) {
  wire::describe_user_scram_credentials_response out;
  if (!cluster_allowed(self, acl_operation::describe)) {
    out.error = error_code::cluster_authorization_failed;
    out.error_message = std::string{error_message(out.error)};
    reply(frame(h, out, wire::encode_describe_user_scram_credentials_response));
    return;
  }
  auto snap = snapshot_of(self);
  static const scram_credentials none;
  auto& stored = snap ? snap->scram() : none;
  // ZkAdminManager.describeUserScramCredentials: mechanisms and iterations
  // only, never a salt or a key.
  auto describe = [](const std::string& user, const auto& by_mechanism) {
    wire::describe_user_scram_credentials_result r;
    r.user = user;
    for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
      auto i = by_mechanism.find(m);
      if (i != by_mechanism.end())
        r.credential_infos.push_back(
          {static_cast<int8_t>(m), i->second.iterations});
    }
    return r;
  };
  if (!req.users || req.users->empty()) {
    // Every user with a credential, by name.
    for (auto& [user, by_mechanism] : stored)
      if (!by_mechanism.empty())
        out.results.push_back(describe(user, by_mechanism));
    reply(frame(h, out, wire::encode_describe_user_scram_credentials_response));
    return;
  }
  std::map<std::string, int> count;
  for (auto& u : *req.users)
    ++count[u.name];
  std::set<std::string> done;
  for (auto& u : *req.users) {
    if (!done.insert(u.name).second)
      continue; // one result per user, however often asked
    wire::describe_user_scram_credentials_result r;
    r.user = u.name;
    if (u.name.empty()) {
      r.error = error_code::resource_not_found;
      r.error_message = "Cannot describe SCRAM credentials for empty username";
    } else if (count[u.name] > 1) {
      r.error = error_code::duplicate_resource;
      r.error_message = "Cannot describe SCRAM credentials for the same user "
                        "twice in a single request: "
                        + u.name;
    } else if (auto i = stored.find(u.name);
               i != stored.end() && !i->second.empty()) {
      r = describe(u.name, i->second);
    } else {
      r.error = error_code::resource_not_found;
      r.error_message =
        "Attempt to describe a user credential that does not exist: " + u.name;
    }
    out.results.push_back(std::move(r));
  }
  reply(frame(h, out, wire::encode_describe_user_scram_credentials_response));
}

// -- AlterUserScramCredentials (51) ----------------------------------------------

void serve_alter_user_scram_credentials(
  kafka_session_ptr self, const wire::request_header& h,
  wire::alter_user_scram_credentials_request& req, kafka_reply_fn reply) {
  // AlterUserScramCredentialsRequest.getErrorResponse: every user named,
  // once, sorted.
  std::set<std::string> users;
  for (auto& d : req.deletions)
    users.insert(d.name);
  for (auto& u : req.upsertions)
    users.insert(u.name);
  auto refuse_all = [h, reply, users](error_code e, std::string msg) {
    wire::alter_user_scram_credentials_response out;
    for (auto& user : users)
      out.results.push_back({user, e, msg});
    reply(frame(h, out, wire::encode_alter_user_scram_credentials_response));
  };
  if (!cluster_allowed(self, acl_operation::alter))
    return refuse_all(error_code::cluster_authorization_failed,
                      std::string{error_message(
                        error_code::cluster_authorization_failed)});
  auto& admin = self->state.ctx.security_admin;
  if (!admin)
    return refuse_all(error_code::unknown_server_error,
                      "This listener cannot change SCRAM credentials.");
  alter_scram_credentials_request msg;
  for (auto& d : req.deletions)
    msg.deletions.push_back({d.name, static_cast<scram_mechanism>(d.mechanism)});
  for (auto& u : req.upsertions) {
    scram_upsertion up;
    up.user = u.name;
    up.mechanism = static_cast<scram_mechanism>(u.mechanism);
    if (up.mechanism == scram_mechanism::sha256
        || up.mechanism == scram_mechanism::sha512) {
      // ScramFormatter.generateCredential(salt, saltedPassword, iterations).
      up.credential = credential_from_salted_password(
        up.mechanism, {u.salted_password.begin(), u.salted_password.end()},
        {u.salt.begin(), u.salt.end()}, u.iterations);
    }
    up.credential.iterations = u.iterations;
    msg.upsertions.push_back(std::move(up));
  }
  self->request(admin, edge_request_timeout, std::move(msg))
    .then(
      [h, reply](alter_scram_credentials_response& res) {
        wire::alter_user_scram_credentials_response out;
        for (auto& r : res.results)
          out.results.push_back({r.user, r.error, message_of(r.message)});
        reply(
          frame(h, out, wire::encode_alter_user_scram_credentials_response));
      },
      [refuse_all](caf::error& err) mutable {
        spdlog::warn("kafka: AlterUserScramCredentials failed: {}",
                     caf::to_string(err));
        refuse_all(error_code::unknown_server_error,
                   "The SCRAM credentials could not be stored.");
      });
}

} // namespace troupe::kafka_handlers
