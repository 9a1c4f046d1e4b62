#pragma once

#include <optional>
#include <string>
#include <variant>

#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

/// The controller's metadata on disk, as one protobuf ClusterMetadata record
/// in `<dir>/cluster_metadata.pb`. Every save writes a temporary file,
/// fsyncs it, renames it over the old one and fsyncs the directory, so a
/// crash leaves either the old or the new state, never a torn one. Blocking:
/// call it from a detached actor or an I/O thread.
class metadata_file {
public:
  explicit metadata_file(std::string dir);

  /// Empty on success, else what went wrong (errno text included).
  std::string save(const cluster_metadata& metadata);

  /// No file yet: nullopt. Unreadable or malformed: the error text.
  std::variant<std::optional<cluster_metadata>, std::string> load() const;

  const std::string& path() const noexcept {
    return path_;
  }

private:
  std::string dir_;
  std::string path_;
  uint64_t version_ = 0;
};

} // namespace troupe
