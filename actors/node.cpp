#include "actors/node.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include "actors/broker.hpp"
#include "actors/controller.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"

namespace troupe {

size_t configure_actor_system(caf::actor_system_config& cfg,
                              const process_config& process,
                              const std::optional<zookeeper_mode>& networking) {
  register_message_types(cfg);
  if (networking) {
    auto& cluster = *networking;
    cfg.load<caf::io::middleman>();
    // CAF 0.17's key names have no "caf." prefix.
    cfg.set(
      "middleman.heartbeat-interval",
      caf::timespan{std::chrono::milliseconds(cluster.heartbeat_interval_ms)});
    cfg.set(
      "middleman.connection-timeout",
      caf::timespan{std::chrono::milliseconds(cluster.connection_timeout_ms)});
  }
  auto threads = process.threads > 0
                   ? static_cast<size_t>(process.threads)
                   : std::max<size_t>(1, std::thread::hardware_concurrency());
  cfg.set("scheduler.max-threads", threads);
  cfg.set("scheduler.policy", caf::atom_from_string(process.scheduler_policy));
  return threads;
}

namespace {

/// Broker 0's advertised listeners (`advertised.listeners`, else
/// `listeners`, else PLAINTEXT on advertised.host:port); broker i adds i to
/// each port. A host left empty or a wildcard is advertised.host.
std::vector<listener_address>
advertised_listeners_of(const cluster_config& config) {
  auto& z = config.zookeeper;
  auto& text = z.advertised_listeners.empty() ? z.listeners
                                              : z.advertised_listeners;
  if (text.empty())
    return {{"PLAINTEXT", config.advertised_host, config.base_port}};
  auto parsed = zk::parse_listeners(text, config.security.protocol_map);
  if (!parsed)
    throw std::runtime_error("advertised.listeners: " + parsed.error());
  std::vector<listener_address> out;
  for (auto& e : *parsed) {
    auto host = e.host;
    if (host.empty() || host == "0.0.0.0" || host == "::")
      host = config.advertised_host;
    out.push_back({e.listener, host, e.port});
  }
  if (out.empty())
    out.push_back({"PLAINTEXT", config.advertised_host, config.base_port});
  return out;
}

} // namespace

embedded_node
spawn_embedded_node(caf::actor_system& sys, const cluster_config& config,
                    event_listener_actor listener,
                    std::shared_ptr<security::security_store> security) {
  embedded_node node;
  controller_security secured;
  secured.store = std::move(security);
  auto metadata = load_cluster_metadata(config, &secured.stored);
  if (auto err = std::get_if<std::string>(&metadata))
    throw std::runtime_error("cannot load cluster metadata: " + *err);
  auto& loaded = std::get<cluster_metadata>(metadata);
  // With a log.dirs the controller writes files: give it its own thread.
  // Without (tests, benchmarks) it stays on the scheduler, which keeps
  // CAF's test coordinator deterministic.
  node.controller =
    config.log_dirs.empty() || !config.detached_io
      ? sys.spawn(controller, config, std::move(loaded), std::move(secured))
      : sys.spawn<caf::detached>(controller, config, std::move(loaded),
                                 std::move(secured));
  cluster_peers peers;
  auto advertised = advertised_listeners_of(config);
  for (int32_t id = 0; id < config.brokers; ++id) {
    auto purgatory = std::make_shared<fetch_purgatory>();
    auto b = sys.spawn(broker, id, config, node.controller, listener,
                       purgatory);
    node.brokers.push_back(b);
    node.fetch_purgatories.push_back(std::move(purgatory));
    broker_info info{id, config.advertised_host, config.base_port + id,
                     caf::actor_cast<caf::actor>(b)};
    // Each advertised listener's endpoint of broker i: its port + i.
    for (auto& l : advertised)
      info.listeners.push_back({l.name, l.host, l.port + id});
    info.host = info.listeners.front().host;
    info.port = info.listeners.front().port;
    peers.brokers.push_back(std::move(info));
  }
  for (auto& b : node.brokers)
    caf::anon_send(b, peers);
  caf::anon_send(node.controller, peers);
  return node;
}

void stop_embedded_node(embedded_node& node) {
  for (auto& b : node.brokers)
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(node.controller, caf::exit_reason::user_shutdown);
  node.brokers.clear();
  node.controller = nullptr;
}

} // namespace troupe
