#include "gateway/rest/api.hpp"

#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "gateway/rest/auth.hpp"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/router.hpp"
#include "gateway/rest/routes.hpp"

namespace troupe::rest {

api::api(caf::actor_system& sys, cluster_config cluster, api_config config)
  : svc_(
    std::make_shared<services>(sys, std::move(cluster), std::move(config))) {
  svc_->hub = spawn_ws_hub(sys, svc_->cluster.group);
  svc_->stats = std::make_unique<route_stats[]>(routes().size());
  authenticator::settings as;
  as.basic = svc_->cluster.security.http_auth == "basic";
  as.admin_token = svc_->config.admin_token;
  as.plain_users = plain_users_of(svc_->cluster.security);
  std::string err; // properties.cpp has checked the rules
  as.mapper = security::principal_mapper::parse(
    svc_->cluster.security.http_ssl.principal_mapping_rules, err);
  svc_->auth =
    std::make_unique<authenticator>(std::move(as), svc_->config.security);
  bridges_ =
    std::make_unique<bridge_pool<bridge_state>>(sys, svc_->config.threads);
}

api::~api() {
  shutdown(false);
}

event_listener_actor api::listener() const {
  return svc_->hub;
}

void api::attach(const embedded_node& node, int32_t local_broker_id) {
  svc_->view = std::make_shared<cluster_view>(node, local_broker_id);
  registry_config rc;
  rc.limits = svc_->cluster.group;
  rc.max_poll_timeout_ms = svc_->config.max_poll_timeout_ms;
  rc.instance_timeout_ms = svc_->config.consumer_instance_timeout_ms;
  svc_->instances = spawn_instance_registry(svc_->sys, svc_->view, rc);
  caf::anon_send(svc_->hub, hub_attach{svc_->view});
}

void api::shutdown(bool wait) {
  if (stopped_)
    return;
  stopped_ = true;
  auto& sys = svc_->sys;
  if (wait) {
    caf::scoped_actor self{sys};
    auto timeout = std::chrono::seconds(10);
    if (svc_->instances)
      self->request(svc_->instances, timeout, close_all_instances{})
        .receive([](instance_count&) {},
                 [](caf::error& e) {
                   spdlog::warn("http: closing consumer instances: {}",
                                to_string(e));
                 });
    self->request(svc_->hub, timeout, hub_close{})
      .receive([](hub_stats&) {},
               [](caf::error& e) {
                 spdlog::warn("http: closing WebSocket members: {}",
                              to_string(e));
               });
  }
  if (svc_->instances)
    caf::anon_send_exit(svc_->instances, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(svc_->hub, caf::exit_reason::user_shutdown);
  bridges_.reset();
}

std::optional<http_response> api::authenticate(const http_request& req,
                                               principal& who) const {
  if (req.path == "/healthz") // liveness probes carry no credentials
    return std::nullopt;
  std::string why;
  auto p = svc_->auth->authenticate(req.authorization, req.remote_host, why,
                                    req.tls_subject);
  if (!p)
    return unauthorized(why);
  who = std::move(*p);
  return std::nullopt;
}

std::optional<http_response> api::guard(access acc, const principal& who,
                                        const http_request& req) const {
  if (who.super)
    return std::nullopt;
  auto* store = svc_->config.security.get();
  if (store && store->config().enabled) {
    // As Kafka: CreateTopics needs CREATE on the cluster or on the topic
    // (create_topic checks, once it knows the name); a broker's stop or
    // start changes the cluster, CLUSTER ALTER.
    if (acc == access::create
        || may(who, store, security::acl_operation::alter,
               security::resource_type::cluster, cluster_resource))
      return std::nullopt;
    return v2::cluster_forbidden();
  }
  return check_admin(svc_->config.admin_token, svc_->config.admin_enable,
                     req.authorization);
}

std::optional<http_response> api::admit(const http_request& req) {
  principal who;
  return authenticate(req, who);
}

void api::handle(http_request req, http_reply_fn reply) {
  principal who;
  if (auto refused = authenticate(req, who))
    return reply(std::move(*refused));
  std::vector<std::string> segments;
  if (!split_path(req.path, segments))
    return reply(v2::bad_request("malformed %-escape in " + req.path));
  auto& table = routes();
  auto m = find_route(table, req.method, segments);
  if (m.index < 0) {
    if (!m.path_known)
      return reply(error_body(404, 404, "NOT_FOUND",
                              "HTTP 404 Not Found: no route for " + req.path));
    auto res = error_body(405, 405, "METHOD_NOT_ALLOWED",
                          "HTTP 405 Method Not Allowed: " + req.method
                            + " is not allowed on " + req.path);
    res.headers.emplace_back("Allow", m.allow);
    return reply(std::move(res));
  }
  auto& r = table[static_cast<size_t>(m.index)];
  if (r.acc != access::open)
    if (auto denied = guard(r.acc, who, req))
      return reply(std::move(*denied));
  if (!svc_->view || !bridges_)
    return reply(error_body(503, 503, "NOT_READY", "the node is not up yet"));
  // Count and time the request under its route.
  auto start = std::chrono::steady_clock::now();
  auto* stats = &svc_->stats[static_cast<size_t>(m.index)];
  auto timed = [stats, start, reply = std::move(reply)](http_response res) {
    stats->record(res.status, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count());
    reply(std::move(res));
  };
  r.fn(call{svc_, bridges_->local(), std::move(req), std::move(m.params),
            std::move(timed), std::move(who)});
}

uint64_t api::ws_open(ws_peer peer) {
  auto id = next_socket_++;
  // admit() let the upgrade through; its verification is cached.
  http_request upgrade;
  upgrade.path = "/v1/ws";
  upgrade.authorization = peer.authorization;
  upgrade.remote_host = peer.remote_host;
  upgrade.tls_subject = peer.tls_subject;
  principal who;
  if (auto refused = authenticate(upgrade, who)) {
    peer.close("authentication failed");
    return id;
  }
  caf::anon_send(svc_->hub,
                 ws_opened{id, std::move(peer),
                           access_of(std::move(who), svc_->config.security)});
  return id;
}

void api::ws_message(uint64_t id, std::string text) {
  caf::anon_send(svc_->hub, ws_text{id, std::move(text)});
}

void api::ws_closed(uint64_t id) {
  caf::anon_send(svc_->hub, ws_gone{id});
}

} // namespace troupe::rest
