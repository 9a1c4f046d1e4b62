#pragma once

// The node as the gateway sees it: the actor handles, and which brokers
// were stopped through the API (so that requests that need any live broker
// pick one). Shared by the routes and the gateway's actors.
//
// Embedded node: broker i is node().brokers[i]. Cluster node
// (docs/ARCHITECTURE.md §7): this process runs one broker; the others live
// in other processes and their handles arrive with every metadata answer
// (broker_info::handle), which the gateway passes to learn().

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "actors/node.hpp"

namespace troupe::rest {

class cluster_view {
public:
  /// `local_broker_id` >= 0: a cluster node whose one broker has this id.
  explicit cluster_view(embedded_node node, int32_t local_broker_id = -1)
    : node_(std::move(node)), local_id_(local_broker_id) {
    auto known = std::make_shared<broker_map>();
    if (clustered() && !node_.brokers.empty())
      (*known)[local_id_] = local();
    known_ = std::move(known);
  }

  const embedded_node& node() const {
    return node_;
  }

  bool clustered() const {
    return local_id_ >= 0;
  }

  const controller_actor& controller() const {
    return node_.controller;
  }

  /// The first broker not stopped through the API (broker 0 if all are);
  /// a cluster node's own broker.
  broker_actor bootstrap() const {
    if (clustered())
      return node_.brokers.empty() ? broker_actor{} : node_.brokers.front();
    auto stopped = stopped_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < node_.brokers.size() && i < 64; ++i)
      if (!(stopped & (uint64_t{1} << i)))
        return node_.brokers[i];
    return node_.brokers.empty() ? broker_actor{} : node_.brokers[0];
  }

  /// Broker `id`'s actor; null for an unknown id (or -1, no leader).
  broker_actor broker(int32_t id) const {
    if (clustered()) {
      auto known = snapshot();
      auto i = known->find(id);
      return i == known->end()
               ? broker_actor{}
               : caf::actor_cast<broker_actor>(i->second.handle);
    }
    if (id < 0 || static_cast<size_t>(id) >= node_.brokers.size())
      return {};
    return node_.brokers[static_cast<size_t>(id)];
  }

  /// Every broker the gateway can reach, by id: the embedded node's
  /// (host empty, port -1: the caller knows its listeners), or those of the
  /// cluster's last metadata answer.
  std::vector<broker_info> brokers() const {
    std::vector<broker_info> out;
    if (clustered()) {
      for (auto& [id, b] : *snapshot())
        out.push_back(b);
      return out;
    }
    for (size_t i = 0; i < node_.brokers.size(); ++i)
      out.push_back({static_cast<int32_t>(i),
                     {},
                     -1,
                     caf::actor_cast<caf::actor>(node_.brokers[i])});
    return out;
  }

  /// The handles of brokers(): a consumer's bootstrap.servers.
  std::vector<broker_actor> broker_handles() const {
    std::vector<broker_actor> out;
    for (auto& b : brokers())
      out.push_back(caf::actor_cast<broker_actor>(b.handle));
    return out;
  }

  /// The brokers a metadata answer names (a cluster's live brokers with
  /// their current handles; a restarted node has new ones). Nothing to
  /// learn for the embedded node.
  void learn(const std::vector<broker_info>& brokers) const {
    if (!clustered())
      return;
    auto next = std::make_shared<broker_map>();
    for (auto& b : brokers)
      if (b.handle)
        (*next)[b.node_id] = b;
    if (!node_.brokers.empty() && !next->count(local_id_))
      (*next)[local_id_] = local();
    std::atomic_store(&known_, std::shared_ptr<const broker_map>{next});
  }

  bool alive(int32_t id) const {
    if (clustered())
      return snapshot()->count(id) > 0;
    if (id < 0 || id >= 64)
      return false;
    return !(stopped_.load(std::memory_order_relaxed) & (uint64_t{1} << id));
  }

  /// Mirrors what the controller accepted for POST /v1/brokers/{id}/...
  void set_alive(int32_t id, bool alive) {
    if (clustered() || id < 0 || id >= 64)
      return;
    auto bit = uint64_t{1} << id;
    if (alive)
      stopped_.fetch_and(~bit, std::memory_order_relaxed);
    else
      stopped_.fetch_or(bit, std::memory_order_relaxed);
  }

private:
  using broker_map = std::map<int32_t, broker_info>;

  /// The current map; learn() replaces it whole (copy on write), so
  /// readers on any gateway thread need no lock.
  std::shared_ptr<const broker_map> snapshot() const {
    return std::atomic_load(&known_);
  }

  broker_info local() const {
    return {
      local_id_, {}, -1, caf::actor_cast<caf::actor>(node_.brokers.front())};
  }

  embedded_node node_;
  int32_t local_id_;
  /// Bit i: broker i was stopped. A lock-free mirror of the controller's
  /// liveness, written only by the stop/start routes.
  std::atomic<uint64_t> stopped_{0};
  /// A cluster node's reachable brokers (see learn()).
  mutable std::shared_ptr<const broker_map> known_;
};

} // namespace troupe::rest
