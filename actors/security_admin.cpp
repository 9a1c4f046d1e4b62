#include "actors/security_admin.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace troupe {

namespace {

using security::scram_mechanism;

bool known_mechanism(scram_mechanism m) {
  return m == scram_mechanism::sha256 || m == scram_mechanism::sha512;
}

bool contains(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

} // namespace

bool apply_create_acls(std::vector<security::acl_binding>& bindings,
                       const create_acls_request& req,
                       create_acls_response& res) {
  bool changed = false;
  for (auto& b : req.creations) {
    if (auto why = security::validate_binding(b)) {
      // AclAuthorizer: InvalidRequestException("Failed to create ACL", e).
      res.results.push_back({error_code::invalid_request, *why});
      continue;
    }
    if (std::find(bindings.begin(), bindings.end(), b) == bindings.end()) {
      bindings.push_back(b);
      changed = true;
    }
    res.results.push_back({error_code::none, {}});
  }
  return changed;
}

bool apply_delete_acls(std::vector<security::acl_binding>& bindings,
                       const delete_acls_request& req,
                       delete_acls_response& res) {
  // Every filter sees the bindings as they were before the request, as
  // Kafka's deleteAcls matches all filters first, then removes.
  auto before = bindings;
  std::vector<security::acl_binding> gone;
  for (auto& f : req.filters) {
    acl_deletion_result r;
    auto filter = to_binding_filter(f);
    if (auto why = security::validate_filter(filter)) {
      r.error = error_code::invalid_request;
      r.message = *why;
      res.results.push_back(std::move(r));
      continue;
    }
    for (auto& b : before)
      if (security::matches(filter, b)) {
        r.deleted.push_back(b);
        if (std::find(gone.begin(), gone.end(), b) == gone.end())
          gone.push_back(b);
      }
    res.results.push_back(std::move(r));
  }
  if (gone.empty())
    return false;
  bindings.erase(std::remove_if(bindings.begin(), bindings.end(),
                                [&gone](const security::acl_binding& b) {
                                  return std::find(gone.begin(), gone.end(), b)
                                         != gone.end();
                                }),
                 bindings.end());
  return true;
}

scram_plan plan_scram_alterations(const alter_scram_credentials_request& req) {
  scram_plan plan;
  // (illegalUpsertions ++ illegalDeletions).toMap: one error per user, the
  // last one found.
  std::vector<std::pair<std::string, scram_alteration_result>> invalid;
  auto refuse = [&invalid](const std::string& user, error_code e,
                           std::string msg) {
    auto i = std::find_if(invalid.begin(), invalid.end(),
                          [&user](auto& x) { return x.first == user; });
    scram_alteration_result r{user, e, std::move(msg)};
    if (i == invalid.end())
      invalid.emplace_back(user, std::move(r));
    else
      i->second = std::move(r);
  };
  for (auto& u : req.upsertions) {
    if (u.user.empty())
      refuse(u.user, error_code::unacceptable_credential,
             "Username must not be empty");
    else if (!known_mechanism(u.mechanism))
      refuse(u.user, error_code::unsupported_sasl_mechanism,
             "Unknown SCRAM mechanism");
    else if (u.credential.iterations < security::scram_min_iterations)
      refuse(u.user, error_code::unacceptable_credential,
             "Too few iterations");
    else if (u.credential.iterations > security::scram_max_iterations)
      refuse(u.user, error_code::unacceptable_credential,
             "Too many iterations");
  }
  for (auto& d : req.deletions) {
    if (d.user.empty())
      refuse(d.user, error_code::unacceptable_credential,
             "Username must not be empty");
    else if (!known_mechanism(d.mechanism))
      refuse(d.user, error_code::unsupported_sasl_mechanism,
             "Unknown SCRAM mechanism");
  }
  auto is_invalid = [&invalid](const std::string& user) {
    return std::any_of(invalid.begin(), invalid.end(),
                       [&user](auto& x) { return x.first == user; });
  };
  for (auto& [user, r] : invalid)
    plan.refused.push_back(r);
  // A user+mechanism named twice (upsertions and deletions together).
  std::vector<std::pair<std::string, scram_mechanism>> pairs;
  for (auto& u : req.upsertions)
    if (!is_invalid(u.user))
      pairs.emplace_back(u.user, u.mechanism);
  for (auto& d : req.deletions)
    if (!is_invalid(d.user))
      pairs.emplace_back(d.user, d.mechanism);
  std::vector<std::string> duplicated;
  for (size_t i = 0; i < pairs.size(); ++i)
    for (size_t j = i + 1; j < pairs.size(); ++j)
      if (pairs[i] == pairs[j] && !contains(duplicated, pairs[i].first))
        duplicated.push_back(pairs[i].first);
  for (auto& user : duplicated)
    plan.refused.push_back(
      {user, error_code::duplicate_resource,
       "A user credential cannot be altered twice in the same request"});
  for (auto& [user, mechanism] : pairs)
    if (!contains(duplicated, user) && !contains(plan.users, user))
      plan.users.push_back(user);
  return plan;
}

scram_alteration_result apply_scram_alterations(
  const std::string& user, const alter_scram_credentials_request& req,
  std::map<scram_mechanism, security::scram_credential>& credentials) {
  for (auto& d : req.deletions)
    if (d.user == user && credentials.count(d.mechanism) == 0)
      return {user, error_code::resource_not_found,
              "Attempt to delete a user credential that does not exist"};
  for (auto& d : req.deletions)
    if (d.user == user)
      credentials.erase(d.mechanism);
  for (auto& u : req.upsertions)
    if (u.user == user)
      credentials[u.mechanism] = u.credential;
  return {user, error_code::none, {}};
}

alter_scram_credentials_response
apply_alter_scram(security::scram_credentials& credentials,
                  const alter_scram_credentials_request& req,
                  std::vector<std::string>* changed) {
  alter_scram_credentials_response res;
  auto plan = plan_scram_alterations(req);
  res.results = std::move(plan.refused);
  std::vector<scram_alteration_result> altered;
  for (auto& user : plan.users) {
    auto i = credentials.find(user);
    auto mine = i == credentials.end()
                  ? std::map<scram_mechanism, security::scram_credential>{}
                  : i->second;
    auto r = apply_scram_alterations(user, req, mine);
    if (r.error != error_code::none) {
      res.results.push_back(std::move(r));
      continue;
    }
    if (mine.empty())
      credentials.erase(user);
    else
      credentials[user] = std::move(mine);
    if (changed)
      changed->push_back(user);
    altered.push_back(std::move(r));
  }
  for (auto& r : altered)
    res.results.push_back(std::move(r));
  return res;
}

} // namespace troupe
