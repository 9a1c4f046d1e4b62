// troupe: Kafka's broker-side group coordination on the C++ Actor Framework.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/node.hpp"
#include "app/demo.hpp"
#include "app/tools/tools.hpp"
#include "cluster/cluster_node.hpp"
#include "domain/properties.hpp"

namespace {

std::string properties_help() {
  std::ostringstream out;
  out << "\nProperties (Kafka's names; set in --config FILE or with "
         "--override key=value):\n";
  for (auto& p : troupe::known_properties())
    out << "  " << p.name << " (default " << p.default_value << ")\n      "
        << p.description << "\n";
  return out.str();
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"troupe: Kafka-style consumer-group coordinator on actors.\n"
               "`troupe serve` (or --serve) runs the embedded three-broker "
               "node with its Kafka listeners and the HTTP/WebSocket gateway "
               "and dashboard; without either, it shows a consumer group's "
               "life as a timeline."};
  std::string config_file;
  std::vector<std::string> overrides;
  std::string log_level = "warn";
  bool serve = false;
  troupe::demo_options demo;
  troupe::serve_options serve_opts;
  app
    .add_option("-c,--config", config_file,
                "Properties file (Kafka's server.properties syntax)")
    ->check(CLI::ExistingFile);
  app.add_option("-o,--override", overrides,
                 "key=value, overrides the properties file (repeatable)");
  app
    .add_option("--log-level", log_level,
                "trace, debug, info, warn, error or off")
    ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_flag("--serve", serve,
               "Run the embedded node until Ctrl-C instead of the demo");
  app
    .add_option("--demo-consumers", demo.consumers, "Consumers the demo starts")
    ->check(CLI::Range(1, 1000));
  app
    .add_option("--demo-partitions", demo.partitions,
                "Partitions of the demo topic")
    ->check(CLI::Range(1, 10000));
  app
    .add_option("--demo-session-timeout-ms", demo.session_timeout_ms,
                "session.timeout.ms of the demo consumers")
    ->check(CLI::Range(1000, 1800000));
  auto* http_port_opt =
    app
      .add_option("--http-port", serve_opts.http_port,
                  "Port of the REST/WebSocket gateway and dashboard (0: off)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--http-bind", serve_opts.http_bind,
                 "Address the HTTP gateway binds to (default 127.0.0.1; "
                 "0.0.0.0: every interface)");
  app
    .add_option("--http-body-limit", serve_opts.http_body_limit,
                "Largest HTTP request body in bytes (larger: 413)")
    ->check(CLI::Range(size_t{1024}, size_t{1} << 30));
  app
    .add_option("--http-idle-timeout-ms", serve_opts.http_idle_timeout_ms,
                "Idle HTTP/WebSocket connections close after this long")
    ->check(CLI::Range(int64_t{100}, int64_t{86400000}));
  app
    .add_option("--http-threads", serve_opts.http_threads,
                "Asio threads of the HTTP gateway")
    ->check(CLI::Range(1, 64));
  app.add_option("--web-root", serve_opts.web_root,
                 "Directory of the dashboard's files (default: ./web)");
  auto* serve_cmd = app.add_subcommand(
    "serve", "Run the node, Kafka listeners and HTTP gateway until Ctrl-C");
  serve_cmd->fallthrough(); // the options above work after `serve` too
  // The admin tools (app/tools/): Kafka's kafka-consumer-groups.sh,
  // kafka-topics.sh and kafka-configs.sh over troupe's Kafka wire client,
  // without an actor system. Their flags follow Kafka's, so each takes the
  // rest of the command line as it is and parses it itself.
  struct tool {
    const char* name;
    const char* help;
    int (*run)(const std::vector<std::string>&, std::ostream&, std::ostream&);
  };
  const tool tools[] = {
    {"groups", "List, describe, reset and delete consumer groups "
               "(kafka-consumer-groups.sh); --help for its flags",
     troupe::tools::run_groups},
    {"topics", "List, describe, create, alter and delete topics "
               "(kafka-topics.sh); --help for its flags",
     troupe::tools::run_topics},
    {"configs", "Describe and alter topic and broker configs "
                "(kafka-configs.sh); --help for its flags",
     troupe::tools::run_configs},
    {"reassign", "Move partition replicas between brokers "
                 "(kafka-reassign-partitions.sh, KIP-455); --balance "
                 "proposes an even spread; --help for its flags",
     troupe::tools::run_reassign},
  };
  std::vector<CLI::App*> tool_cmds;
  for (auto& t : tools) {
    auto* cmd = app.add_subcommand(t.name, t.help);
    cmd->prefix_command();
    cmd->set_help_flag(); // --help goes to the tool
    tool_cmds.push_back(cmd);
  }
  app.footer(properties_help());
  // A tool takes the command line after its name untouched: CLI11 would
  // read a later word naming a sibling subcommand (`troupe configs
  // --describe --entity-type topics ...`) as that subcommand.
  if (argc >= 2)
    for (auto& t : tools)
      if (std::string{argv[1]} == t.name)
        return t.run(std::vector<std::string>(argv + 2, argv + argc),
                     std::cout, std::cerr);
  CLI11_PARSE(app, argc, argv);
  for (size_t i = 0; i < tool_cmds.size(); ++i)
    if (tool_cmds[i]->parsed())
      return tools[i].run(tool_cmds[i]->remaining(), std::cout, std::cerr);
  serve = serve || serve_cmd->parsed();
  serve_opts.http_port_required = http_port_opt->count() > 0;

  spdlog::set_level(spdlog::level::from_str(log_level));

  std::vector<std::string> errors;
  troupe::properties props;
  if (!config_file.empty()) {
    std::ifstream in{config_file};
    std::stringstream text;
    text << in.rdbuf();
    props = troupe::parse_properties(text.str(), errors);
  }
  for (auto& o : overrides)
    if (!troupe::parse_override(o, props))
      errors.push_back("--override expects key=value, got '" + o + "'");
  troupe::cluster_config cluster;
  cluster.log_dirs = "/tmp/troupe-logs"; // Kafka's is /tmp/kafka-logs
  troupe::process_config process;
  troupe::apply_properties(props, cluster, errors);
  troupe::apply_process_properties(props, process, errors);
  serve_opts.http_admin_token = process.http_admin_token;
  serve_opts.http_admin_enable = process.http_admin_enable;
  serve_opts.consumer_instance_timeout_ms =
    process.consumer_instance_timeout_ms;
  if (demo.session_timeout_ms < cluster.group.min_session_timeout_ms
      || demo.session_timeout_ms > cluster.group.max_session_timeout_ms)
    errors.push_back("--demo-session-timeout-ms must lie within "
                     "group.min.session.timeout.ms and "
                     "group.max.session.timeout.ms");
  if (!errors.empty()) {
    for (auto& e : errors)
      std::cerr << "troupe: " << e << "\n";
    return 2;
  }

  caf::actor_system_config cfg;
  troupe::configure_actor_system(
    cfg, process,
    cluster.zookeeper.enabled()
      ? std::optional<troupe::zookeeper_mode>{cluster.zookeeper}
      : std::nullopt);
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  // Node links over mutual TLS (troupe.cluster.security=ssl): CAF's OpenSSL
  // module is loaded before the actor system exists.
  if (serve && cluster.zookeeper.enabled()) {
    if (auto why = troupe::configure_node_links(cfg, cluster); !why.empty()) {
      std::cerr << "troupe: " << why << "\n";
      return 2;
    }
  }
  // The demo is a show, not a user's data: unless log.dirs is given, it
  // runs on a fresh directory of its own and removes it afterwards, so a
  // second run starts from nothing and never touches /tmp/troupe-logs.
  std::string demo_dir;
  if (!serve && !props.count("log.dirs")) {
    char tmpl[] = "/tmp/troupe-demo-XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::cerr << "troupe: cannot create the demo's log directory\n";
      return 1;
    }
    demo_dir = tmpl;
    cluster.log_dirs = demo_dir;
  }
  int status = 1;
  {
    caf::actor_system sys{cfg};
    try {
      status = serve ? troupe::run_node(sys, cluster, serve_opts)
                     : troupe::run_demo(sys, cluster, demo);
    } catch (const std::runtime_error& e) {
      std::cerr << "troupe: " << e.what() << "\n";
    }
  }
  if (!demo_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(demo_dir, ignored);
  }
  return status;
}
