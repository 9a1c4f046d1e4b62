#pragma once

// How long one actor waits for another's answer, one name per purpose
// (docs/ARCHITECTURE.md §1). The two nest: an edge waits longer than the
// requests it sets off inside the cluster, so a Kafka client or a REST
// caller gets the inner request's Kafka error, not the edge's own timeout.

#include <chrono>

namespace troupe {

/// A request from one actor of the cluster to another: broker or group
/// service to the controller, replica to the controller or to its leader,
/// a controller to its ZooKeeper session, a member session to its group.
constexpr std::chrono::milliseconds cluster_request_timeout{30000};

/// A request from an edge into the cluster: the Kafka listener's sessions
/// and the REST gateway's bridges and registry asking a broker or a group.
/// Longer than cluster_request_timeout, so the broker's answer decides.
constexpr std::chrono::milliseconds edge_request_timeout{35000};

} // namespace troupe
