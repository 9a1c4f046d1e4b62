#pragma once

// One HTTP request on its way through a route (gateway/rest/routes.hpp).
// A route starts on the gateway's Asio thread, parses and validates there,
// and asks actors through the thread's bridge actor (gateway/bridge.hpp);
// its continuations then run inside that bridge, where the bridge's cache
// lives. Every route has the same signature, `void(const call&)`.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "actors/timeouts.hpp"
#include "client/coordinator_lookup.hpp"
#include "client/producer.hpp"
#include "domain/cluster_config.hpp"
#include "domain/log/record_batch.hpp"
#include "gateway/bridge.hpp"
#include "domain/security/security_store.hpp"
#include "gateway/http/handler.hpp"
#include "gateway/rest/auth.hpp"
#include "gateway/rest/cluster_view.hpp"
#include "gateway/rest/instances.hpp"
#include "gateway/rest/router.hpp"
#include "gateway/rest/ws_hub.hpp"

namespace troupe::rest {

using std::chrono::milliseconds;

/// The gateway's settings (`troupe serve` options and troupe.http.*).
struct api_config {
  /// Prefix of the base_uri of new consumer instances.
  std::string base_uri = "http://127.0.0.1:8080";
  /// Upper bound of records?timeout=.
  int32_t max_poll_timeout_ms = 30000;
  /// consumer.instance.timeout.ms: a consumer instance that gets no request
  /// for this long is deleted (REST Proxy's default: 5 minutes).
  int32_t consumer_instance_timeout_ms = 300000;
  /// troupe.http.admin.token: routes that change the cluster need
  /// `Authorization: Bearer <token>`.
  std::string admin_token;
  /// troupe.http.admin.enable: without a token, allow them anyway.
  bool admin_enable = false;
  /// Asio threads of the server: one bridge actor each.
  size_t threads = 1;
  /// The process's ACLs and SCRAM credentials (app/serve.cpp); null: no
  /// SCRAM users and no authorizer.
  std::shared_ptr<security::security_store> security;
};

/// The Kafka clients of a bridge actor (client/), for the requests of its
/// thread. Only its own jobs and continuations touch them.
struct bridge_state {
  static constexpr int64_t coordinator_max_age_ms = 5000;

  /// FindCoordinator, its answers cached: a stale one answers
  /// NOT_COORDINATOR, which drops it.
  client::coordinator_lookup coordinators{coordinator_max_age_ms, 10000};
  /// The produce routes' producer: topic metadata, partitioner and
  /// accumulator.
  client::producer producer;

  static inline const char* name = "gateway_bridge";
};

using rest_bridge = bridge<bridge_state>;
using bridge_self = rest_bridge::self_pointer;

/// Everything the routes share, set up once before serving.
struct services {
  services(caf::actor_system& sys, cluster_config cluster, api_config config)
    : sys(sys), cluster(std::move(cluster)), config(std::move(config)) {
    // nop
  }

  caf::actor_system& sys;
  cluster_config cluster;
  api_config config;
  std::shared_ptr<cluster_view> view;
  instances_actor instances;
  ws_hub_actor hub;
  /// One per entry of routes(), same order.
  std::unique_ptr<route_stats[]> stats;
  /// troupe.http.auth over config.security (gateway/rest/auth.hpp).
  std::unique_ptr<authenticator> auth;
};

/// The bridge actor whose job or continuation runs on this thread, if any.
inline thread_local bridge_self current_bridge = nullptr;

/// Marks code that runs inside a bridge actor.
class bridge_scope {
public:
  explicit bridge_scope(bridge_self self) : prev_(current_bridge) {
    current_bridge = self;
  }
  ~bridge_scope() {
    current_bridge = prev_;
  }
  bridge_scope(const bridge_scope&) = delete;
  bridge_scope& operator=(const bridge_scope&) = delete;

private:
  bridge_self prev_;
};

class call {
public:
  call(std::shared_ptr<services> svc, const rest_bridge& bridge,
       http_request req, std::vector<std::string> params, http_reply_fn reply,
       principal who = {})
    : st_(std::make_shared<state>()) {
    st_->who = std::move(who);
    st_->svc = std::move(svc);
    st_->bridge = &bridge;
    st_->req = std::move(req);
    st_->params = std::move(params);
    st_->reply = std::move(reply);
  }

  // -- the request ------------------------------------------------------------

  const http_request& request() const {
    return st_->req;
  }

  /// The i-th `{...}` segment of the route's pattern, URL-decoded.
  const std::string& param(size_t i) const {
    return st_->params.at(i);
  }

  services& svc() const {
    return *st_->svc;
  }

  const cluster_view& cluster() const {
    return *st_->svc->view;
  }

  // -- the caller (gateway/rest/auth.hpp) ----------------------------------------

  /// Who the request acts as.
  const principal& who() const {
    return st_->who;
  }

  /// Whether the caller may `op` on the resource (the store's ACLs).
  bool may(security::acl_operation op, security::resource_type type,
           std::string_view name) const {
    return rest::may(st_->who, st_->svc->config.security.get(), op, type,
                     name);
  }

  /// The caller's decisions, for the registry and the hub.
  access_check access() const {
    return access_of(st_->who, st_->svc->config.security);
  }

  /// Answers 403 TOPIC_AUTHORIZATION_FAILED naming the topics the caller
  /// may not `op`; true when it may all.
  bool allow_topics(security::acl_operation op,
                    const std::vector<std::string>& topics) const;

  /// Answers 403 GROUP_AUTHORIZATION_FAILED unless the caller may `op` on
  /// the group.
  bool allow_group(security::acl_operation op, const std::string& group) const;

  // -- the answer -------------------------------------------------------------

  /// Answers the request; later calls do nothing.
  void reply(http_response res) const {
    if (st_->replied)
      return;
    st_->replied = true;
    st_->reply(std::move(res));
  }

  // -- asking actors ----------------------------------------------------------

  /// Runs `fn` inside the bridge actor: at once when already there (in a
  /// continuation), else as a job posted from this (Asio) thread.
  void run(std::function<void(bridge_self)> fn) const {
    if (current_bridge) {
      fn(current_bridge);
      return;
    }
    st_->bridge->post([fn = std::move(fn)](bridge_self self) {
      bridge_scope scope{self};
      fn(self);
    });
  }

  /// actors/ask.hpp's ask from the bridge; `k(caf::expected<Res>)` runs in
  /// the bridge.
  template <class Res, class Handle, class Req, class K>
  void ask(Handle to, Req req, K k, milliseconds timeout = edge_request_timeout) const {
    run([to = std::move(to), req = std::move(req), k = std::move(k),
         timeout](bridge_self self) mutable {
      troupe::ask<Res>(self, to, timeout, std::move(req),
                       [self, k = std::move(k)](caf::expected<Res> x) mutable {
                         bridge_scope scope{self};
                         k(std::move(x));
                       });
    });
  }

  /// actors/ask.hpp's ask_all from the bridge.
  template <class Res, class Handle, class Req, class K>
  void ask_all(std::vector<std::pair<Handle, Req>> requests, K k,
               milliseconds timeout = edge_request_timeout) const {
    run([requests = std::move(requests), k = std::move(k),
         timeout](bridge_self self) mutable {
      troupe::ask_all<Res>(
        self, std::move(requests), timeout,
        [self, k = std::move(k)](std::vector<caf::expected<Res>> xs) mutable {
          bridge_scope scope{self};
          k(std::move(xs));
        });
    });
  }

  /// Runs `fn` in the bridge after `delay` (a delayed send).
  void after(milliseconds delay, std::function<void()> fn) const {
    run([delay, fn = std::move(fn)](bridge_self self) mutable {
      rest_bridge::post_after(self, delay,
                              [fn = std::move(fn)](bridge_self self) {
                                bridge_scope scope{self};
                                fn();
                              });
    });
  }

  /// The bridge's cache; only inside the bridge (in continuations).
  bridge_state& cache() const {
    return current_bridge->state;
  }

  /// The actor system's clock in ms; only inside the bridge.
  int64_t now() const {
    return now_ms(current_bridge);
  }

private:
  struct state {
    std::shared_ptr<services> svc;
    const rest_bridge* bridge = nullptr;
    http_request req;
    std::vector<std::string> params;
    http_reply_fn reply;
    principal who;
    bool replied = false;
  };

  std::shared_ptr<state> st_;
};

/// The answer to a failed ask: 504 for a timeout, 503 when there was no
/// actor to ask (no leader, a stopped broker), 500 otherwise. `v2` picks
/// REST Proxy's error codes, else Kafka's (troupe's /v1 routes).
http_response ask_failed(const caf::error& err, std::string_view what,
                         bool v2 = true);

} // namespace troupe::rest
