#pragma once
// Kafka's CheckpointFile: version 0, the count, the entries. One entry in a
// partition directory ("0\n1\n<offset>\n"), as troupe keeps its
// cleaner-offset-checkpoint and log-start-offset-checkpoint; or one
// "<topic> <partition> <offset>" line per partition in a log directory, as
// Kafka keeps replication-offset-checkpoint.

#include <cstdint>
#include <map>
#include <string>

#include "domain/topic_partition.hpp"

namespace troupe {

/// The offset in `dir`/`name`; -1 when the file is missing or malformed.
int64_t read_offset_checkpoint(const std::string& dir, const char* name);

/// Writes `offset` to a temporary file, fsyncs it, renames it over
/// `dir`/`name` and fsyncs the directory; false on any failure (the old
/// file, if any, stays).
bool write_offset_checkpoint(const std::string& dir, const char* name,
                             int64_t offset);

/// A log directory's checkpoint of many partitions; empty when the file is
/// missing or malformed.
std::map<topic_partition, int64_t>
read_partition_checkpoint(const std::string& dir, const char* name);

/// Writes it as write_offset_checkpoint does (atomically, fsynced).
bool write_partition_checkpoint(const std::string& dir, const char* name,
                                const std::map<topic_partition, int64_t>& o);

} // namespace troupe
