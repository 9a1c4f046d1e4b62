// `troupe serve`: the embedded node, or one node of a cluster of processes
// when zookeeper.connect is set (docs/ARCHITECTURE.md §7), with its Kafka
// listener(s) and the HTTP/WebSocket gateway, until SIGINT/SIGTERM.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <spdlog/spdlog.h>

#include "actors/node.hpp"
#include "app/demo.hpp"
#include "cluster/cluster_node.hpp"
#include "domain/security/security_store.hpp"
#include "gateway/http/server.hpp"
#include "gateway/kafka/kafka_listener.hpp"
#include "gateway/rest/api.hpp"

namespace troupe {

namespace {

std::atomic<bool> stop_requested{false};

/// Why a cluster node must stop (set once, by an actor).
std::mutex fatal_mtx;
std::string fatal_reason;

void on_signal(int) {
  stop_requested = true;
}

/// Where the dashboard's files come from, and why (said in the start line).
struct web_root_choice {
  std::string path;
  const char* source = "";
};

/// The dashboard's files: --web-root if given; else the installed copy,
/// `<dir of the executable>/../share/troupe/web` (cmake --install, the
/// Debian package); else, only for the executable the build wrote (in
/// TROUPE_BUILD_DIR), the source tree's web/. An installed or copied
/// executable never reads the source tree it was built from (a package's
/// user has none): without its share/troupe/web it serves no dashboard and
/// says where it looked. The paths come from packaging/packaging.cmake.
web_root_choice find_web_root(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty())
    return {given, "--web-root"};
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) // a root no file can be under: every dashboard file is a 404
    return {"/dev/null/troupe-web",
            "missing: /proc/self/exe unreadable, give --web-root DIR"};
  auto installed =
    (exe.parent_path() / TROUPE_WEB_FROM_BINDIR).lexically_normal();
  if (fs::is_regular_file(installed / "index.html", ec))
    return {installed.string(), "installed"};
  if (fs::equivalent(exe.parent_path(), TROUPE_BUILD_DIR, ec)
      && fs::is_regular_file(fs::path{TROUPE_SOURCE_WEB_DIR} / "index.html",
                             ec))
    return {TROUPE_SOURCE_WEB_DIR, "source tree"};
  spdlog::warn("troupe: no dashboard files: {} has no index.html (give "
               "--web-root DIR); the REST and WebSocket API still answer",
               installed.string());
  return {installed.string(), "missing: no index.html, give --web-root DIR"};
}

/// A node whose log directory cannot be written must not join a cluster:
/// it would lead partitions it cannot store.
void check_log_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto probe = fs::path(dir) / ".troupe-probe";
  std::ofstream out{probe};
  out << "ok";
  out.close();
  if (ec || !out)
    throw std::runtime_error("log.dirs " + dir
                             + " is not a writable directory; this node does "
                               "not join the cluster");
  fs::remove(probe, ec);
}

/// The first Kafka listener this node binds, and the endpoints it advertises
/// in /brokers/ids: every advertised Kafka listener and troupe's own.
struct cluster_endpoints {
  zk::broker_endpoint bind;
  std::vector<zk::broker_endpoint> advertised;
};

cluster_endpoints endpoints_of(const cluster_config& config) {
  auto& z = config.zookeeper;
  auto listeners = z.listeners.empty()
                     ? "PLAINTEXT://:" + std::to_string(config.base_port)
                     : z.listeners;
  auto& map = config.security.protocol_map;
  auto bound = zk::parse_listeners(listeners, map);
  if (!bound)
    throw std::runtime_error("listeners: " + bound.error());
  auto advertised = zk::parse_listeners(
    z.advertised_listeners.empty() ? listeners : z.advertised_listeners, map);
  if (!advertised)
    throw std::runtime_error("advertised.listeners: " + advertised.error());
  if (bound->empty() || advertised->empty())
    throw std::runtime_error("listeners: no listener");
  cluster_endpoints out;
  out.bind = bound->front();
  // Every advertised listener, each one a listener this node binds (as
  // Kafka requires), registered with its protocol in /brokers/ids.
  for (auto a : *advertised) {
    bool known = std::any_of(bound->begin(), bound->end(), [&](auto& b) {
      return b.listener == a.listener;
    });
    if (!known)
      throw std::runtime_error("advertised.listeners: " + a.listener
                               + " is not one of listeners");
    if (a.host.empty() || a.host == "0.0.0.0")
      a.host = config.advertised_host; // Kafka would take the host name
    out.advertised.push_back(a);
  }
  out.advertised.push_back({std::string{zk::troupe_listener},
                            out.advertised.front().host, z.cluster_port,
                            zk::security_protocol::plaintext});
  return out;
}

/// Where troupe.cluster.port binds: the host of the advertised TROUPE
/// endpoint, which the other nodes dial.
std::string troupe_host_of(const cluster_endpoints& ep) {
  for (auto& e : ep.advertised)
    if (e.listener == zk::troupe_listener)
      return e.host;
  return "127.0.0.1";
}

} // namespace

int run_node(caf::actor_system& sys, const cluster_config& given,
             const serve_options& options) {
  auto config = given;
  bool clustered = config.zookeeper.enabled();
  std::optional<cluster_node> cluster;
  // The ACLs and SCRAM credentials every door of this process consults
  // (docs/ARCHITECTURE.md §9): filled and kept current by the controller.
  auto security =
    std::make_shared<security::security_store>(config.security.authorizer);
  kafka_listener_config kc;
  kc.security = security;
  if (clustered) {
    check_log_dir(config.log_dirs);
    auto ep = endpoints_of(config);
    // The listener code serves brokers on base_port + i: one broker here.
    config.brokers = 1;
    config.base_port = ep.bind.port;
    config.advertised_host = ep.advertised.front().host;
    // Kafka's default listener: every interface (a null host).
    if (config.zookeeper.listeners.empty())
      config.zookeeper.listeners = "PLAINTEXT://:" + std::to_string(ep.bind.port);
    // Beyond loopback, node links must be TLS or plain on purpose. A
    // listener without a host binds every interface.
    auto why = node_links_refusal(given, troupe_host_of(ep), "0.0.0.0");
    if (!why.empty())
      throw std::runtime_error(why);
  } else if (!config.zookeeper.listeners.empty()) {
    // `listeners` puts broker 0 on each listener's port (broker i on + i).
    config.base_port = kafka_listeners_of(config, kc.bind_host).front().port;
  }
  std::shared_ptr<rest::api> api;
  if (options.http_port > 0) {
    rest::api_config ac;
    ac.base_uri = (config.security.http_ssl_enabled ? "https://" : "http://")
                  + config.advertised_host + ":"
                  + std::to_string(options.http_port);
    ac.admin_token = options.http_admin_token;
    ac.admin_enable = options.http_admin_enable;
    ac.consumer_instance_timeout_ms = options.consumer_instance_timeout_ms;
    ac.threads = static_cast<size_t>(std::max(1, options.http_threads));
    ac.security = security; // troupe.http.auth's SCRAM users and the ACLs
    api = std::make_shared<rest::api>(sys, config, ac);
  }
  auto events = api ? api->listener() : event_listener_actor{};
  embedded_node node;
  if (clustered) {
    auto ep = endpoints_of(config);
    cluster = spawn_cluster_node(sys, config, ep.advertised, events,
                                 [](const std::string& why) {
                                   std::lock_guard<std::mutex> guard{fatal_mtx};
                                   if (fatal_reason.empty())
                                     fatal_reason = why;
                                   stop_requested = true;
                                 },
                                 security);
    node = cluster->node;
    // The one actor the other nodes reach: this node's controller.
    // Bound to the host the other nodes dial (the TROUPE endpoint), over
    // mutual TLS with troupe.cluster.security=ssl.
    auto port = publish_controller(
      sys, cluster->controller,
      static_cast<uint16_t>(config.zookeeper.cluster_port), troupe_host_of(ep));
    if (!port) {
      stop_cluster_node(*cluster);
      throw std::runtime_error("cannot listen on troupe.cluster.port "
                               + std::to_string(config.zookeeper.cluster_port)
                               + ": " + caf::to_string(port.error()));
    }
  } else {
    node = spawn_embedded_node(sys, config, events, security);
  }
  kafka_listener listener{sys, kc};
  std::unique_ptr<http_server> http;
  web_root_choice web;
  auto stop_all = [&] {
    if (http)
      http->stop();
    if (api)
      api->shutdown(); // instances and WebSocket members leave their groups
    listener.stop();
    if (cluster)
      stop_cluster_node(*cluster);
    else
      stop_embedded_node(node);
  };
  try {
    listener.start(node, config);
    if (api) {
      api->attach(node, clustered ? config.zookeeper.broker_id : -1);
      http_server_config hc;
      hc.bind_host = options.http_bind;
      hc.port = static_cast<uint16_t>(options.http_port);
      hc.body_limit = options.http_body_limit;
      hc.idle_timeout = std::chrono::milliseconds(options.http_idle_timeout_ms);
      hc.threads = options.http_threads;
      web = find_web_root(options.web_root);
      hc.web_root = web.path;
      hc.ssl_enabled = config.security.http_ssl_enabled;
      hc.ssl = config.security.http_ssl;
      http = std::make_unique<http_server>(hc, api);
      try {
        http->start();
      } catch (const std::runtime_error& e) {
        if (options.http_port_required)
          throw;
        spdlog::warn("troupe: {}; running without the HTTP gateway", e.what());
        http.reset();
      }
    }
  } catch (const std::runtime_error&) {
    stop_all();
    throw;
  }
  if (clustered)
    std::printf(
      "troupe: broker %d of the cluster at %s; Kafka listener on "
      "%s:%d, cluster port %d%s\n",
      config.zookeeper.broker_id, config.zookeeper.connect.c_str(),
      config.advertised_host.c_str(), config.base_port,
      config.zookeeper.cluster_port,
      http ? (", HTTP on " + std::to_string(options.http_port)
              + ", dashboard files from " + web.path + " (" + web.source + ")")
               .c_str()
           : "");
  else if (http)
    std::printf("troupe: dashboard and REST/WebSocket API on "
                "%s://%s:%d/ ; Kafka listeners on %d..%d ; dashboard files "
                "from %s (%s)\n",
                config.security.http_ssl_enabled ? "https" : "http",
                config.advertised_host.c_str(), options.http_port,
                config.base_port, config.base_port + config.brokers - 1,
                web.path.c_str(), web.source);
  else
    // The ready line tests wait for: printed only once every listener is
    // bound, so no other process can be the one answering on these ports.
    std::printf("troupe: Kafka listeners on %d..%d\n", config.base_port,
                config.base_port + config.brokers - 1);
  std::fflush(stdout);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  while (!stop_requested)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop_all();
  std::lock_guard<std::mutex> guard{fatal_mtx};
  if (!fatal_reason.empty()) {
    std::fprintf(stderr, "troupe: %s\n", fatal_reason.c_str());
    return 1;
  }
  return 0;
}

} // namespace troupe
