#pragma once

// What a process's doors consult to authenticate and authorize (docs/
// ARCHITECTURE.md §9): the ACLs and SCRAM credentials in force, as one
// immutable snapshot that is swapped whole when the metadata changes (the
// embedded controller after CreateAcls/AlterUserScramCredentials; a cluster
// node when ZooKeeper's /kafka-acl-changes or /config/changes say so), as
// Kafka's AclAuthorizer keeps a cache its request threads read without
// locks. Plain C++: readers on any thread, one writer at a time.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "domain/security/acl.hpp"
#include "domain/security/scram.hpp"

namespace troupe::security {

/// SCRAM credentials by user, then mechanism.
using scram_credentials =
  std::map<std::string, std::map<scram_mechanism, scram_credential>>;

class security_snapshot {
public:
  security_snapshot() = default;
  security_snapshot(acl_authorizer acls, scram_credentials scram);

  const acl_authorizer& acls() const noexcept {
    return acls_;
  }

  const scram_credentials& scram() const noexcept {
    return scram_;
  }

  std::optional<scram_credential> find_scram(const std::string& user,
                                             scram_mechanism m) const;

  /// Authorization off, or `who` is allowed.
  bool authorize(const request_identity& who, acl_operation op,
                 resource_type type, std::string_view name) const {
    return !acls_.config().enabled || acls_.authorize(who, op, type, name);
  }

private:
  acl_authorizer acls_;
  scram_credentials scram_;
};

class security_store {
public:
  explicit security_store(authorizer_config config = {});

  /// The snapshot in force; never null.
  std::shared_ptr<const security_snapshot> snapshot() const;

  const authorizer_config& config() const noexcept {
    return config_;
  }

  /// Replaces the ACLs (every binding in force).
  void set_acls(std::vector<acl_binding> bindings);

  /// Replaces the SCRAM credentials (every user's).
  void set_scram(scram_credentials credentials);

  /// Replaces one user's credentials (empty: the user has none left).
  void set_user_scram(const std::string& user,
                      std::map<scram_mechanism, scram_credential> credentials);

  /// Replaces the bindings of one resource pattern (a /kafka-acl znode).
  void set_resource_acls(const resource_pattern& pattern,
                         std::vector<access_entry> entries);

private:
  authorizer_config config_;
  mutable std::mutex mtx_;
  std::shared_ptr<const security_snapshot> current_;
};

} // namespace troupe::security
