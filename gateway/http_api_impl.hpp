#pragma once

// The API's shared state, for its translation units (http_api.cpp: routing,
// cluster and group routes, metrics; http_consumers.cpp: consumer instances
// and WebSocket members). Not a public header.

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/node.hpp"
#include "gateway/http_api.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

using steady_time = std::chrono::steady_clock::time_point;

/// A REST Proxy consumer instance: troupe's client-side consumer actor (the
/// group membership) plus the positions the instance has read up to.
struct consumer_instance {
  std::mutex mtx;
  std::string group;
  std::string name;
  std::string offset_reset = "latest";
  bool auto_commit = true;
  int32_t max_poll_interval_ms = 300000;
  int32_t session_timeout_ms = 10000;
  int32_t heartbeat_interval_ms = 3000;
  std::vector<std::string> assignors = {"range"};
  std::vector<std::string> topics;
  consumer_actor consumer;
  std::map<topic_partition, int64_t> positions;
  steady_time last_poll;
  bool closed = false;
};

/// One /v1/ws socket: a group member, a watcher of every group, or both.
struct ws_member {
  ws_peer peer;
  std::string group;
  consumer_actor consumer;
  bool joining = false;
  bool watching = false;
  int32_t session_timeout_ms = 10000;
  steady_time last_heartbeat;
};

/// Request count and latency histogram of one route.
struct route_stats {
  static constexpr std::array<double, 9> bounds = {
    0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5};
  uint64_t count = 0;
  double sum_seconds = 0;
  std::array<uint64_t, bounds.size()> buckets{};
  std::map<unsigned, uint64_t> by_status;
};

struct http_api::impl {
  impl(caf::actor_system& sys, cluster_config cluster, http_api_config config)
    : sys(sys), cluster(std::move(cluster)), config(std::move(config)) {
    // nop
  }

  caf::actor_system& sys;
  cluster_config cluster;
  http_api_config config;
  embedded_node node;
  event_listener_actor listener;

  /// Guards what follows up to `stats_mtx`. Never call a reply function
  /// while holding it or an instance's mutex.
  std::mutex mtx;
  std::map<std::pair<std::string, std::string>,
           std::shared_ptr<consumer_instance>>
    instances;
  std::map<uint64_t, std::shared_ptr<ws_member>> ws;
  uint64_t next_ws = 1;
  uint64_t next_instance = 1;
  std::set<int32_t> stopped_brokers;
  /// FindCoordinator answers, reused for a second: a heartbeat then costs
  /// one broker request, not two. A stale entry answers NOT_COORDINATOR,
  /// which Kafka clients handle by asking again.
  std::map<std::string, std::pair<broker_actor, steady_time>> coordinators;
  /// Guards `stats` only; never held while calling out.
  std::mutex stats_mtx;
  std::map<std::string, route_stats> stats;
  std::map<std::string, int32_t> last_generation;
  uint64_t generation_changes = 0;
  uint64_t group_transitions = 0;

  std::thread reaper;
  std::condition_variable reaper_cv;
  bool stopping = false;

  /// A broker that was not stopped through the API.
  broker_actor bootstrap();
  broker_actor broker_by_id(int32_t id);
};

// -- implemented in http_consumers.cpp -------------------------------------------

void create_instance(std::shared_ptr<http_api::impl> api,
                     const std::string& group, const http_request& req,
                     http_reply_fn reply);
void subscribe_instance(std::shared_ptr<http_api::impl> api,
                        const std::string& group, const std::string& name,
                        const http_request& req, http_reply_fn reply);
void get_subscription(std::shared_ptr<http_api::impl> api,
                      const std::string& group, const std::string& name,
                      http_reply_fn reply);
void poll_instance(std::shared_ptr<http_api::impl> api,
                   const std::string& group, const std::string& name,
                   const http_request& req, http_reply_fn reply);
void commit_instance(std::shared_ptr<http_api::impl> api,
                     const std::string& group, const std::string& name,
                     const http_request& req, http_reply_fn reply);
void instance_assignments(std::shared_ptr<http_api::impl> api,
                          const std::string& group, const std::string& name,
                          http_reply_fn reply);
void delete_instance(std::shared_ptr<http_api::impl> api,
                     const std::string& group, const std::string& name,
                     http_reply_fn reply);

uint64_t open_ws(std::shared_ptr<http_api::impl> api, ws_peer peer);
void on_ws_message(std::shared_ptr<http_api::impl> api, uint64_t id,
                   const std::string& text);
void on_ws_closed(std::shared_ptr<http_api::impl> api, uint64_t id);

/// Expires instances not polled within max.poll.interval.ms and WebSocket
/// members silent for their session timeout.
void expire_idle(std::shared_ptr<http_api::impl> api);

/// Closes every instance and member (they leave their groups).
void close_all(std::shared_ptr<http_api::impl> api);

/// Pushes `text` to every watching socket.
void broadcast(http_api::impl& api, const std::string& text);

} // namespace troupe
