#include "domain/security/security_store.hpp"

#include <algorithm>

namespace troupe::security {

security_snapshot::security_snapshot(acl_authorizer acls,
                                     scram_credentials scram)
  : acls_(std::move(acls)), scram_(std::move(scram)) {
  // nop
}

std::optional<scram_credential>
security_snapshot::find_scram(const std::string& user,
                              scram_mechanism m) const {
  auto i = scram_.find(user);
  if (i == scram_.end())
    return std::nullopt;
  auto j = i->second.find(m);
  if (j == i->second.end())
    return std::nullopt;
  return j->second;
}

security_store::security_store(authorizer_config config)
  : config_(std::move(config)),
    current_(std::make_shared<const security_snapshot>(
      acl_authorizer{config_, {}}, scram_credentials{})) {
  // nop
}

std::shared_ptr<const security_snapshot> security_store::snapshot() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return current_;
}

// Each writer builds the next snapshot from the one in force under the
// lock, so two writers never lose each other's change; readers keep the
// snapshot they hold.
void security_store::set_acls(std::vector<acl_binding> bindings) {
  std::lock_guard<std::mutex> guard{mtx_};
  current_ = std::make_shared<const security_snapshot>(
    acl_authorizer{config_, std::move(bindings)}, current_->scram());
}

void security_store::set_scram(scram_credentials credentials) {
  std::lock_guard<std::mutex> guard{mtx_};
  current_ = std::make_shared<const security_snapshot>(current_->acls(),
                                                       std::move(credentials));
}

void security_store::set_user_scram(
  const std::string& user,
  std::map<scram_mechanism, scram_credential> credentials) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto scram = current_->scram();
  if (credentials.empty())
    scram.erase(user);
  else
    scram[user] = std::move(credentials);
  current_ = std::make_shared<const security_snapshot>(current_->acls(),
                                                       std::move(scram));
}

void security_store::set_resource_acls(const resource_pattern& pattern,
                                       std::vector<access_entry> entries) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto bindings = current_->acls().bindings();
  bindings.erase(std::remove_if(bindings.begin(), bindings.end(),
                                [&](const acl_binding& b) {
                                  return b.pattern == pattern;
                                }),
                 bindings.end());
  for (auto& e : entries)
    bindings.push_back(acl_binding{pattern, std::move(e)});
  current_ = std::make_shared<const security_snapshot>(
    acl_authorizer{config_, std::move(bindings)}, current_->scram());
}

} // namespace troupe::security
