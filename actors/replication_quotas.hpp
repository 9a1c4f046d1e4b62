#pragma once

#include <memory>
#include <mutex>

#include "domain/broker_config.hpp"
#include "domain/replication/replication_quota.hpp"

namespace troupe {

/// One broker's replication quotas (docs/ARCHITECTURE.md §7): the leader
/// side, over what its leader replicas serve to throttled followers, and
/// the follower side, over what its throttled follower replicas fetch.
/// Kafka's two ReplicationQuotaManagers are shared by every fetcher thread
/// and request handler of the broker; here by every replica actor of the
/// broker, which run on any scheduler thread, hence the mutex. The broker
/// creates it and sets the rates from its dynamic configs. (The fetch
/// purgatory is the other state a broker's actors share.)
class replication_quotas {
public:
  enum side { leader, follower };

  void set(const replication_rates& r) {
    std::lock_guard<std::mutex> guard{mtx_};
    leader_.set_quota(r.leader);
    follower_.set_quota(r.follower);
  }

  bool exceeded(side s, int64_t now_ms) {
    std::lock_guard<std::mutex> guard{mtx_};
    return pick(s).exceeded(now_ms);
  }

  void record(side s, int64_t bytes, int64_t now_ms) {
    std::lock_guard<std::mutex> guard{mtx_};
    pick(s).record(bytes, now_ms);
  }

private:
  replication_rate& pick(side s) {
    return s == leader ? leader_ : follower_;
  }

  std::mutex mtx_;
  replication_rate leader_;
  replication_rate follower_;
};

using replication_quotas_ptr = std::shared_ptr<replication_quotas>;

} // namespace troupe
