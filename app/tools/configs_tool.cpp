// `troupe configs`: Kafka 3.9's kafka-configs.sh for topics and brokers
// (core/.../admin/ConfigCommand.scala, its --bootstrap-server path).

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "app/tools/tables.hpp"
#include "app/tools/tools.hpp"

namespace troupe::tools {

namespace {

using kafka_client::admin_client;
using json = nlohmann::json;

std::vector<option_spec> config_options() {
  auto specs = common_options();
  std::vector<option_spec> own = {
    {"alter", arg_kind::none, "Alter the configuration for the entity."},
    {"describe", arg_kind::none, "List configs for the given entity."},
    {"all", arg_kind::none,
     "List all configs for the given topic or broker entity (includes static "
     "configuration when the entity type is brokers)"},
    {"entity-type", arg_kind::required, "Type of entity (topics/brokers)"},
    {"entity-name", arg_kind::required,
     "Name of entity (topic name/broker id)"},
    {"entity-default", arg_kind::none,
     "Default entity name for brokers (applies to corresponding entity type "
     "in command line)"},
    {"add-config", arg_kind::required,
     "Key Value pairs of configs to add. Square brackets can be used to group "
     "values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'."},
    {"delete-config", arg_kind::required, "config keys to remove 'k1,k2'"},
    {"topic", arg_kind::required, "The topic's name."},
    {"broker", arg_kind::required, "The broker's ID."},
    {"broker-defaults", arg_kind::none, "The config defaults for all brokers."},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  return specs;
}

struct entity {
  std::string type; // topics, brokers
  std::optional<std::string> name; // nullopt: every one; "": the default
};

/// ConfigCommandOptions.checkArgs and entityTypes/entityNames, for topics
/// and brokers.
entity check_config_args(const parsed_args& a) {
  int actions = a.has("alter") + a.has("describe");
  if (actions != 1)
    throw usage_error("Command must include exactly one action: --describe, "
                      "--alter");
  check_required(a, "bootstrap-server");
  std::vector<entity> entities;
  for (auto& t : a.values("entity-type"))
    entities.push_back({t, std::nullopt});
  if (a.has("topic"))
    entities.push_back({"topics", a.value("topic")});
  if (a.has("broker"))
    entities.push_back({"brokers", a.value("broker")});
  if (a.has("broker-defaults"))
    entities.push_back({"brokers", std::string{}});
  if (entities.empty())
    throw usage_error("At least one entity type must be specified");
  if (entities.size() > 1)
    throw usage_error("Only one entity type may be specified, got "
                      + std::to_string(entities.size()));
  auto e = entities.front();
  if (e.type != "topics" && e.type != "brokers") {
    if (e.type == "users" || e.type == "clients" || e.type == "ips"
        || e.type == "broker-loggers" || e.type == "client-metrics"
        || e.type == "groups")
      throw usage_error("--entity-type " + e.type
                        + " is not supported by troupe configs (topics, "
                          "brokers)");
    throw usage_error("Invalid entity type " + e.type
                      + ", the entity type must be one of topics, clients, "
                        "users, brokers, ips, broker-loggers, client-metrics, "
                        "groups with a --bootstrap-server or "
                        "--bootstrap-controller argument");
  }
  if (a.has("entity-name")) {
    if (!a.has("entity-type"))
      throw usage_error("--entity-name needs --entity-type");
    e.name = a.value("entity-name");
  }
  if (a.has("entity-default")) {
    if (e.type != "brokers")
      throw usage_error("--entity-default is only valid with --entity-type "
                        "brokers here");
    check_invalid_args(a, "entity-default", {"entity-name"});
    e.name = std::string{};
  }
  if (e.type == "brokers" && e.name && !e.name->empty()) {
    auto& n = *e.name;
    if (n.empty() || !std::all_of(n.begin(), n.end(), ::isdigit))
      throw usage_error("The entity name for brokers must be a valid integer "
                        "broker id, but it is: " + n);
  }
  if (a.has("alter")) {
    if (!e.name)
      throw usage_error("An entity name must be specified with --alter of "
                        + e.type);
    if (!a.has("add-config") && !a.has("delete-config"))
      throw usage_error("At least one of --add-config or --delete-config must "
                        "be specified with --alter");
    // The values are checked before any connection, as Kafka's
    // ConfigCommandOptions.checkArgs.
    for (auto& v : a.values("add-config"))
      parse_config_pairs(v);
  } else {
    for (auto* n : {"add-config", "delete-config"})
      if (a.has(n))
        throw usage_error(std::string{"Option \"["} + n
                          + "]\" can't be used with option \"[describe]\"");
  }
  if (a.has("all") && !a.has("describe"))
    throw usage_error("Option \"[all]\" can't be used with option \"[alter]\"");
  return e;
}

int8_t resource_type(const entity& e) {
  return e.type == "topics" ? wire::config_resource_topic
                            : wire::config_resource_broker;
}

/// getResourceConfig: entries of the entity's dynamic source (all with
/// --all), sorted by name.
std::vector<wire::describe_configs_resource_result>
resource_config(admin_client& client, const entity& e, const std::string& name,
                bool include_synonyms, bool all) {
  auto res = client.describe_configs(resource_type(e), name, include_synonyms);
  if (res.error != error_code::none)
    throw kafka_client::client_error(
      "cannot describe the configs of "
      + (name.empty() ? std::string{"the cluster's default broker"}
                      : e.type.substr(0, e.type.size() - 1) + " '" + name
                          + "'")
      + ": "
      + (res.error_message && !res.error_message->empty()
           ? *res.error_message
           : std::string{error_name(res.error)} + ": "
               + std::string{error_message(res.error)}));
  int8_t source = e.type == "topics" ? 1 : name.empty() ? 3 : 2;
  std::vector<wire::describe_configs_resource_result> out;
  for (auto& c : res.configs)
    if (all || c.config_source == source)
      out.push_back(c);
  std::sort(out.begin(), out.end(),
            [](auto& x, auto& y) { return x.name < y.name; });
  return out;
}

int describe(admin_client& client, const entity& e, const parsed_args& a,
             bool as_json, std::ostream& out) {
  std::vector<std::string> names;
  if (e.name) {
    names.push_back(*e.name);
  } else if (e.type == "topics") {
    auto md = client.metadata(std::nullopt);
    for (auto& t : md.topics)
      if (t.name)
        names.push_back(*t.name);
    std::sort(names.begin(), names.end());
  } else {
    for (auto& b : client.brokers())
      names.push_back(std::to_string(b.id));
    names.push_back(""); // the cluster's default
  }
  bool all = a.has("all");
  auto arr = json::array();
  for (auto& name : names) {
    auto entries = resource_config(client, e, name, true, all);
    if (as_json) {
      auto cj = json::array();
      for (auto& c : entries) {
        auto syn = json::array();
        for (auto& s : c.synonyms)
          syn.push_back({{"source", config_source_name(s.source)},
                         {"name", s.name},
                         {"value", s.value ? json(*s.value) : json(nullptr)}});
        cj.push_back({{"name", c.name},
                      {"value", c.value ? json(*c.value) : json(nullptr)},
                      {"sensitive", c.is_sensitive},
                      {"source", config_source_name(c.config_source)},
                      {"synonyms", syn}});
      }
      arr.push_back({{"entity_type", e.type},
                     {"entity_name", name.empty() ? json(nullptr) : json(name)},
                     {"configs", cj}});
      continue;
    }
    auto singular = e.type.substr(0, e.type.size() - 1);
    if (name.empty() && e.type == "brokers")
      out << "Default configs for " << e.type << " in the cluster are:\n";
    else
      out << (all ? "All" : "Dynamic") << " configs for " << singular << " "
          << name << " are:\n";
    for (auto& c : entries)
      out << format_config_entry(c);
  }
  if (as_json)
    out << arr.dump(2) << "\n";
  return 0;
}

int alter(admin_client& client, const entity& e, const parsed_args& a,
          bool as_json, std::ostream& out) {
  std::vector<std::pair<std::string, std::string>> added;
  for (auto& v : a.values("add-config"))
    for (auto& kv : parse_config_pairs(v))
      added.push_back(kv);
  std::vector<std::string> deleted;
  for (auto& v : a.values("delete-config")) {
    std::string cur;
    for (char c : v + ",") {
      if (c == ',') {
        if (!cur.empty())
          deleted.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur.push_back(c);
      }
    }
  }
  auto& name = *e.name;
  auto old = resource_config(client, e, name, false, false);
  std::set<std::string> present;
  for (auto& c : old)
    present.insert(c.name);
  std::string invalid;
  for (auto& k : deleted)
    if (!present.count(k))
      invalid += (invalid.empty() ? "" : ",") + k;
  if (!invalid.empty())
    throw kafka_client::client_error("Invalid config(s): " + invalid);
  std::vector<wire::incremental_alterable_config> ops;
  for (auto& [k, v] : added)
    ops.push_back({k, wire::config_operation_set, v});
  for (auto& k : deleted)
    ops.push_back({k, wire::config_operation_delete, std::nullopt});
  // AlterConfigs replaces the whole dynamic set: the old one, plus the
  // added, minus the deleted (Kafka 3.9 alters brokers that way).
  std::map<std::string, std::optional<std::string>> merged;
  for (auto& c : old)
    merged[c.name] = c.value;
  for (auto& [k, v] : added)
    merged[k] = v;
  for (auto& k : deleted)
    merged.erase(k);
  std::vector<wire::alterable_config> full;
  for (auto& [k, v] : merged) {
    if (!v && e.type == "brokers")
      throw kafka_client::client_error(
        "All sensitive broker config entries must be specified for --alter, "
        "missing entries: " + k);
    full.push_back({k, v});
  }
  auto res = client.alter_configs(resource_type(e), name, ops, full,
                                  e.type == "brokers");
  if (res.error != error_code::none)
    throw kafka_client::client_error(
      res.error_message && !res.error_message->empty()
        ? *res.error_message
        : std::string{error_name(res.error)} + ": "
            + std::string{error_message(res.error)});
  auto singular = e.type.substr(0, e.type.size() - 1);
  if (as_json)
    out << json{{"entity_type", e.type},
                {"entity_name", name.empty() ? json(nullptr) : json(name)},
                {"altered", true}}
             .dump(2)
        << "\n";
  else if (!name.empty())
    out << "Completed updating config for " << singular << " " << name
        << ".\n";
  else
    out << "Completed updating default config for " << e.type
        << " in the cluster.\n";
  return 0;
}

} // namespace

int run_configs(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  return guarded("configs", err, [&] {
    auto specs = config_options();
    auto a = parse_args(args, specs);
    // No arguments: the usage on stderr and status 1, as Kafka's
    // printUsageAndExit; --help: on stdout, status 0.
    if (a.has("help") || args.empty()) {
      (args.empty() ? err : out) << usage("configs", specs);
      return args.empty() ? 1 : 0;
    }
    auto e = check_config_args(a);
    bool as_json = json_output(a);
    admin_client client{client_config_from(a, 30000)};
    if (a.has("describe"))
      return describe(client, e, a, as_json, out);
    return alter(client, e, a, as_json, out);
  });
}

} // namespace troupe::tools
