#pragma once

// The gateway's API (docs/ARCHITECTURE.md §5): REST Proxy v2 (/topics,
// /brokers, /consumers), troupe's /v1 routes, /metrics, /healthz and the
// /v1/ws sockets, behind the plain http_handler interface that the Beast
// server (gateway/http) feeds. State lives in actors: the consumer
// instances in the registry (instances.hpp), the sockets in the hub
// (ws_hub.hpp), per-thread caches in the bridge actors (call.hpp).

#include <atomic>
#include <cstdint>
#include <memory>

#include <caf/fwd.hpp>

#include "actors/node.hpp"
#include "domain/cluster_config.hpp"
#include "gateway/http/handler.hpp"
#include "gateway/rest/call.hpp"

namespace troupe::rest {

class api : public http_handler {
public:
  // -- constructors -----------------------------------------------------------

  api(caf::actor_system& sys, cluster_config cluster, api_config config);

  ~api() override;

  api(const api&) = delete;
  api& operator=(const api&) = delete;

  // -- wiring -----------------------------------------------------------------

  /// Receives every group's transitions (for /metrics and watchers): pass
  /// it to spawn_embedded_node.
  event_listener_actor listener() const;

  /// The node whose brokers answer; call once, before serving.
  /// `local_broker_id` >= 0: a cluster node running that one broker (the
  /// others are learned from metadata answers, see cluster_view).
  void attach(const embedded_node& node, int32_t local_broker_id = -1);

  /// Closes every consumer instance and WebSocket member (they leave their
  /// groups). `wait`: block until they did (not under CAF's test
  /// coordinator, which runs nothing by itself).
  void shutdown(bool wait = true);

  // -- http_handler -------------------------------------------------------------

  void handle(http_request req, http_reply_fn reply) override;

  std::optional<http_response> admit(const http_request& req) override;

  uint64_t ws_open(ws_peer peer) override;

  void ws_message(uint64_t id, std::string text) override;

  void ws_closed(uint64_t id) override;

private:
  /// troupe.http.auth: nullopt and `who` set, or the 401.
  std::optional<http_response> authenticate(const http_request& req,
                                            principal& who) const;

  /// The admin routes: the admin token, or the ACLs' CLUSTER ALTER (CREATE
  /// for topics) when an authorizer runs, else check_admin.
  std::optional<http_response> guard(access acc, const principal& who,
                                     const http_request& req) const;

  std::shared_ptr<services> svc_;
  std::unique_ptr<bridge_pool<bridge_state>> bridges_;
  std::atomic<uint64_t> next_socket_{1};
  bool stopped_ = false;
};

} // namespace troupe::rest
