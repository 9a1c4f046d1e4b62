#pragma once

// Reassignment plans for `troupe reassign` (docs/ARCHITECTURE.md §10):
// plain functions over partition -> replica lists, no I/O.

#include <cstdint>
#include <map>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

/// Partition -> replicas in preference order (the first leads).
using replica_plan = std::map<topic_partition, std::vector<int32_t>>;

/// kafka-reassign-partitions.sh --generate: each topic's partitions placed
/// anew over `brokers` with Kafka's rack-unaware AdminUtils
/// .assignReplicasToBrokers, keeping each topic's replication factor
/// (start index 0 where Kafka draws one at random, so that the same input
/// gives the same plan). A replication factor above the broker count is
/// kept as the broker count.
replica_plan spread_plan(const replica_plan& current,
                         const std::vector<int32_t>& brokers);

/// troupe's --balance: the fewest replica moves that leave every broker of
/// `brokers` with the same number of replicas give or take one (replicas on
/// brokers outside the list move first), then the replica lists reordered
/// so that every broker is the preferred leader of the same number of
/// partitions give or take one. Greedy: each move takes a replica from the
/// most loaded broker to the least loaded one that does not hold the
/// partition yet.
replica_plan balanced_plan(const replica_plan& current,
                           const std::vector<int32_t>& brokers);

/// Replicas `proposed` places on a broker that `current` does not have
/// for the partition.
size_t replicas_moved(const replica_plan& current,
                      const replica_plan& proposed);

/// The partitions whose replica list (or its order) changes.
replica_plan changed_only(const replica_plan& current,
                          const replica_plan& proposed);

} // namespace troupe
