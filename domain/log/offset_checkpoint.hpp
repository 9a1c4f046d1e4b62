#pragma once
// Kafka's one-entry CheckpointFile in a partition directory ("0\n1\n<offset>\n":
// the version, the count, the entry), as troupe keeps its
// cleaner-offset-checkpoint and log-start-offset-checkpoint.

#include <cstdint>
#include <string>

namespace troupe {

/// The offset in `dir`/`name`; -1 when the file is missing or malformed.
int64_t read_offset_checkpoint(const std::string& dir, const char* name);

/// Writes `offset` to a temporary file, fsyncs it, renames it over
/// `dir`/`name` and fsyncs the directory; false on any failure (the old
/// file, if any, stays).
bool write_offset_checkpoint(const std::string& dir, const char* name,
                             int64_t offset);

} // namespace troupe
