#pragma once

#include <optional>
#include <string>
#include <variant>

#include "domain/replication/cluster_metadata.hpp"
#include "domain/security/security_store.hpp"

namespace troupe {

/// The security part of the controller's metadata (docs/ARCHITECTURE.md
/// §9): what Kafka keeps in /kafka-acl, /kafka-acl-extended and
/// /config/users.
struct stored_security {
  std::vector<security::acl_binding> acls;
  security::scram_credentials scram;
};

/// The controller's metadata on disk, as one protobuf ClusterMetadata record
/// in `<dir>/cluster_metadata.pb`. Every save writes a temporary file,
/// fsyncs it, renames it over the old one and fsyncs the directory, so a
/// crash leaves either the old or the new state, never a torn one. Blocking:
/// call it from a detached actor or an I/O thread.
class metadata_file {
public:
  explicit metadata_file(std::string dir);

  /// Empty on success, else what went wrong (errno text included).
  /// `security` is stored beside the metadata, in the same record.
  std::string save(const cluster_metadata& metadata,
                   const stored_security& security = {});

  /// No file yet: nullopt. Unreadable or malformed: the error text.
  /// `security` (if not null) receives the stored ACLs and credentials.
  std::variant<std::optional<cluster_metadata>, std::string>
  load(stored_security* security = nullptr) const;

  const std::string& path() const noexcept {
    return path_;
  }

private:
  std::string dir_;
  std::string path_;
  uint64_t version_ = 0;
};

} // namespace troupe
