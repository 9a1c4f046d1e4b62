#pragma once

// Reconciliation of one member towards its target assignment (Kafka's
// modern.consumer.CurrentAssignmentBuilder): partitions that leave the
// member are revoked first, and it moves to the target epoch only once it
// no longer owns them; partitions it gains are handed out only once their
// previous owner released them.

#include <cstdint>
#include <functional>
#include <optional>

#include "domain/consumer_group/assignment.hpp"
#include "domain/consumer_group/member.hpp"

namespace troupe {

/// The epoch of the member currently owning a partition (assigned or
/// pending revocation), or -1 when no member owns it (Kafka's
/// ConsumerGroup.currentPartitionEpoch).
using partition_epoch_fn = std::function<int32_t(const uuid&, int32_t)>;

/// Kafka's CurrentAssignmentBuilder.build. `owned` is what the member
/// reported in this heartbeat (nullopt when it did not say). Returns the
/// member with its next epoch, state and assignment, or nullopt when the
/// member must be fenced.
std::optional<consumer_member>
reconcile(const consumer_member& member, int32_t target_epoch,
          const partition_assignment& target,
          const partition_epoch_fn& current_partition_epoch,
          const std::optional<partition_assignment>& owned);

} // namespace troupe
