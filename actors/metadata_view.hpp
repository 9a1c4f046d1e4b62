#pragma once

// The controller's metadata as messages, and topic creation with Kafka's
// answers: shared by the embedded node's controller and a cluster node's
// (docs/ARCHITECTURE.md §4, §7). Plain functions, no actor.

#include <random>
#include <string>

#include "domain/cluster_config.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "messages/cluster_messages.hpp"

namespace troupe {

partition_metadata to_message(int32_t partition, const partition_state& s);

/// A topic's partitions; UNKNOWN_TOPIC_OR_PARTITION when there is none.
topic_metadata describe(const cluster_metadata& m, const std::string& name);

/// Every partition of `name`, for the brokers to host.
leadership_update partitions_of(const cluster_metadata& m,
                                const std::string& name);

/// Creates `t` with the configured defaults for -1 (num.partitions,
/// default.replication.factor) and a random topic id; the answer in
/// Kafka's words.
topic_result create_topic(cluster_metadata& m, const cluster_config& config,
                          std::mt19937_64& rng, const new_topic& t);

} // namespace troupe
