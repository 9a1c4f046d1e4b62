#pragma once

// The embedded node as the gateway sees it: the actor handles, and which
// brokers were stopped through the API (so that requests that need any
// live broker pick one). Shared by the routes and the gateway's actors.

#include <atomic>
#include <cstdint>

#include "actors/node.hpp"

namespace troupe::rest {

class cluster_view {
public:
  explicit cluster_view(embedded_node node) : node_(std::move(node)) {
    // nop
  }

  const embedded_node& node() const {
    return node_;
  }

  const controller_actor& controller() const {
    return node_.controller;
  }

  /// The first broker not stopped through the API (broker 0 if all are).
  broker_actor bootstrap() const {
    auto stopped = stopped_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < node_.brokers.size() && i < 64; ++i)
      if (!(stopped & (uint64_t{1} << i)))
        return node_.brokers[i];
    return node_.brokers.empty() ? broker_actor{} : node_.brokers[0];
  }

  /// Broker `id`'s actor; null for an unknown id (or -1, no leader).
  broker_actor broker(int32_t id) const {
    if (id < 0 || static_cast<size_t>(id) >= node_.brokers.size())
      return {};
    return node_.brokers[static_cast<size_t>(id)];
  }

  bool alive(int32_t id) const {
    if (id < 0 || id >= 64)
      return false;
    return !(stopped_.load(std::memory_order_relaxed) & (uint64_t{1} << id));
  }

  /// Mirrors what the controller accepted for POST /v1/brokers/{id}/...
  void set_alive(int32_t id, bool alive) {
    if (id < 0 || id >= 64)
      return;
    auto bit = uint64_t{1} << id;
    if (alive)
      stopped_.fetch_and(~bit, std::memory_order_relaxed);
    else
      stopped_.fetch_or(bit, std::memory_order_relaxed);
  }

private:
  embedded_node node_;
  /// Bit i: broker i was stopped. A lock-free mirror of the controller's
  /// liveness, written only by the stop/start routes.
  std::atomic<uint64_t> stopped_{0};
};

} // namespace troupe::rest
