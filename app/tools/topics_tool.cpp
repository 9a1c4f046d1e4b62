// `troupe topics`: Kafka 3.9's kafka-topics.sh (tools/.../TopicCommand.java).

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/tools/tables.hpp"
#include "app/tools/tools.hpp"

namespace troupe::tools {

namespace {

using kafka_client::admin_client;
using json = nlohmann::json;

std::vector<option_spec> topic_options() {
  auto specs = common_options();
  std::vector<option_spec> own = {
    {"list", arg_kind::none, "List all available topics."},
    {"create", arg_kind::none, "Create a new topic."},
    {"delete", arg_kind::none, "Delete a topic"},
    {"alter", arg_kind::none, "Alter the number of partitions."},
    {"describe", arg_kind::none, "List details for the given topics."},
    {"topic", arg_kind::required,
     "The topic to create, alter, describe or delete. It also accepts a "
     "regular expression, except for --create option."},
    {"config", arg_kind::required,
     "A topic configuration override for the topic being created (k=v, "
     "repeatable)."},
    {"partitions", arg_kind::required,
     "The number of partitions for the topic being created or altered."},
    {"replication-factor", arg_kind::required,
     "The replication factor for each partition in the topic being "
     "created."},
    {"under-replicated-partitions", arg_kind::none,
     "if set when describing topics, only show under replicated partitions"},
    {"unavailable-partitions", arg_kind::none,
     "if set when describing topics, only show partitions whose leader is "
     "not available"},
    {"if-exists", arg_kind::none,
     "if set when altering or deleting or describing topics, the action will "
     "only execute if the topic exists."},
    {"if-not-exists", arg_kind::none,
     "if set when creating topics, the action will only execute if the topic "
     "does not already exist."},
    {"replica-assignment", arg_kind::required,
     "A list of manual partition-to-broker assignments for the topic being "
     "created: broker_id_for_part1_replica1:broker_id_for_part1_replica2, "
     "broker_id_for_part2_replica1:broker_id_for_part2_replica2, ..."},
    {"exclude-internal", arg_kind::none,
     "exclude internal topics when running list or describe command."},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  return specs;
}

/// TopicCommand.parseReplicaAssignment: "b1:b2,b3:b4" is partition 0 on
/// brokers b1, b2 and partition 1 on b3, b4.
std::vector<wire::creatable_replica_assignment>
parse_replica_assignment(const std::string& text) {
  std::vector<wire::creatable_replica_assignment> out;
  std::stringstream parts{text};
  std::string part;
  while (std::getline(parts, part, ',')) {
    wire::creatable_replica_assignment r;
    r.partition_index = static_cast<int32_t>(out.size());
    std::stringstream ids{part};
    std::string id;
    while (std::getline(ids, id, ':')) {
      size_t used = 0;
      int32_t b = -1;
      try {
        b = std::stoi(id, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (id.empty() || used != id.size() || b < 0)
        throw usage_error("Invalid broker id '" + id
                          + "' in --replica-assignment " + text);
      if (std::find(r.broker_ids.begin(), r.broker_ids.end(), b)
          != r.broker_ids.end())
        throw usage_error("Partition replica lists may not contain duplicate "
                          "entries: " + std::to_string(b));
      r.broker_ids.push_back(b);
    }
    if (!out.empty() && r.broker_ids.size() != out.front().broker_ids.size())
      throw usage_error("Partition " + std::to_string(r.partition_index)
                        + " has different replication factor: " + part);
    out.push_back(std::move(r));
  }
  if (out.empty())
    throw usage_error("Invalid --replica-assignment: " + text);
  return out;
}

/// Kafka's Topic.validate, with its messages.
void validate_topic_name(const std::string& name) {
  if (name.empty())
    throw usage_error("Topic name is illegal, it can't be empty");
  if (name == "." || name == "..")
    throw usage_error("Topic name cannot be \".\" or \"..\"");
  if (name.size() > 249)
    throw usage_error("Topic name is illegal, it can't be longer than 249 "
                      "characters, topic name: " + name);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_'
        && c != '-')
      throw usage_error("Topic name \"" + name
                        + "\" is illegal, it contains a character other than "
                          "ASCII alphanumerics, '.', '_' and '-'");
}

void check_topic_args(const parsed_args& a) {
  int actions = 0;
  for (auto* n : {"create", "list", "alter", "describe", "delete"})
    actions += a.has(n);
  if (actions != 1)
    throw usage_error("Command must include exactly one action: --list, "
                      "--describe, --create, --alter or --delete");
  check_required(a, "bootstrap-server");
  if (a.has("create") || a.has("alter") || a.has("delete")) {
    if (!a.has("topic"))
      throw usage_error(
        std::string{"Missing required argument \"[topic]\""});
  }
  if (a.has("alter") && !a.has("partitions"))
    throw usage_error("Option \"[alter]\" needs option \"[partitions]\"");
  for (auto* n : {"partitions"})
    if (a.has(n) && !a.has("create") && !a.has("alter"))
      throw usage_error(std::string{"Option \"["} + n
                        + "]\" can't be used with option \"["
                        + (a.has("list") ? "list"
                           : a.has("describe") ? "describe"
                                               : "delete")
                        + "]\"");
  if (a.has("create"))
    check_invalid_args(a, "replica-assignment",
                       {"partitions", "replication-factor"});
  for (auto* n : {"replication-factor", "config", "if-not-exists",
                  "replica-assignment"})
    if (a.has(n) && !a.has("create"))
      throw usage_error(std::string{"Option \"["} + n
                        + "]\" can only be used with option \"[create]\"");
  for (auto* n : {"under-replicated-partitions", "unavailable-partitions"})
    if (a.has(n) && !a.has("describe"))
      throw usage_error(std::string{"Option \"["} + n
                        + "]\" can only be used with option \"[describe]\"");
  check_invalid_args(a, "under-replicated-partitions",
                     {"unavailable-partitions"});
  if (a.has("if-exists") && a.has("create"))
    throw usage_error("Option \"[if-exists]\" can't be used with option "
                      "\"[create]\"");
  a.integer("partitions", INT32_MIN, INT32_MAX);
  a.integer("replication-factor", INT32_MIN, INT32_MAX);
  // Checked before any connection, as Kafka's TopicCommandOptions.checkArgs.
  if (auto p = a.integer("partitions", INT32_MIN, INT32_MAX); p && *p < 1)
    throw usage_error("The partitions must be greater than 0");
  if (auto r = a.integer("replication-factor", INT32_MIN, INT32_MAX);
      r && (*r < 1 || *r > INT16_MAX))
    throw usage_error("The replication factor must be between 1 and 32767 "
                      "inclusive");
  for (auto& c : a.values("config"))
    parse_config_pairs(c);
  if (a.has("replica-assignment"))
    parse_replica_assignment(a.value("replica-assignment"));
  if (a.has("create"))
    validate_topic_name(a.value("topic"));
}

/// getTopics: every topic (internal ones unless --exclude-internal),
/// sorted, filtered by --topic as a regular expression.
std::vector<wire::metadata_topic> topics_matching(admin_client& client,
                                                  const parsed_args& a) {
  auto md = client.metadata(std::nullopt);
  std::vector<wire::metadata_topic> out;
  std::optional<std::regex> filter;
  if (a.has("topic")) {
    try {
      filter.emplace(a.value("topic"));
    } catch (const std::regex_error&) {
      throw usage_error("invalid --topic regular expression '"
                        + a.value("topic") + "'");
    }
  }
  for (auto& t : md.topics) {
    if (!t.name || t.error != error_code::none)
      continue;
    if (a.has("exclude-internal") && t.is_internal)
      continue;
    if (filter && !std::regex_match(*t.name, *filter))
      continue;
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](auto& x, auto& y) { return *x.name < *y.name; });
  return out;
}

void ensure_exists(const std::vector<wire::metadata_topic>& topics,
                   const parsed_args& a) {
  if (topics.empty() && a.has("topic") && !a.has("if-exists"))
    throw kafka_client::client_error("Topic '" + a.value("topic")
                                     + "' does not exist as expected");
}

std::string kafka_error(error_code e, const std::optional<std::string>& msg) {
  return msg && !msg->empty() ? *msg : std::string{error_message(e)};
}

int create_topic(admin_client& client, const parsed_args& a, bool as_json,
                 std::ostream& out) {
  wire::creatable_topic t;
  t.name = a.value("topic");
  if (auto p = a.integer("partitions", INT32_MIN, INT32_MAX)) {
    if (*p < 1)
      throw usage_error("The partitions must be greater than 0");
    t.num_partitions = static_cast<int32_t>(*p);
  }
  if (auto r = a.integer("replication-factor", INT32_MIN, INT32_MAX)) {
    if (*r < 1 || *r > INT16_MAX)
      throw usage_error("The replication factor must be between 1 and 32767 "
                        "inclusive");
    t.replication_factor = static_cast<int16_t>(*r);
  }
  for (auto& c : a.values("config"))
    for (auto& [k, v] : parse_config_pairs(c))
      t.configs.push_back({k, v});
  if (a.has("replica-assignment"))
    t.assignments = parse_replica_assignment(a.value("replica-assignment"));
  if (t.name.find('.') != std::string::npos
      && t.name.find('_') != std::string::npos)
    out << "WARNING: Due to limitations in metric names, topics with a "
           "period ('.') or underscore ('_') could collide. To avoid issues "
           "it is best to use either, but not both.\n";
  auto res = client.create_topic(t);
  if (res.error == error_code::topic_already_exists && a.has("if-not-exists"))
    return 0;
  if (res.error != error_code::none)
    throw kafka_client::client_error(
      "Error while executing topic command : "
      + kafka_error(res.error, res.error_message));
  if (as_json)
    out << json{{"created", t.name}}.dump(2) << "\n";
  else
    out << "Created topic " << t.name << ".\n";
  return 0;
}

int list_topics(admin_client& client, const parsed_args& a, bool as_json,
                std::ostream& out) {
  auto topics = topics_matching(client, a);
  if (as_json) {
    auto arr = json::array();
    for (auto& t : topics)
      arr.push_back(*t.name);
    out << arr.dump(2) << "\n";
    return 0;
  }
  for (auto& t : topics)
    out << *t.name << "\n";
  return 0;
}

int describe_topics(admin_client& client, const parsed_args& a, bool as_json,
                    std::ostream& out) {
  auto topics = topics_matching(client, a);
  ensure_exists(topics, a);
  std::set<int32_t> live;
  for (auto& b : client.brokers())
    live.insert(b.id);
  bool under = a.has("under-replicated-partitions");
  bool unavailable = a.has("unavailable-partitions");
  bool configs_too = !under && !unavailable;
  auto arr = json::array();
  for (auto& t : topics) {
    auto parts = t.partitions;
    std::sort(parts.begin(), parts.end(), [](auto& x, auto& y) {
      return x.partition_index < y.partition_index;
    });
    std::string configs;
    json config_json = json::object();
    if (configs_too) {
      auto res = client.describe_configs(wire::config_resource_topic, *t.name,
                                         false);
      if (res.error != error_code::none)
        throw kafka_client::client_error(
          "Error while executing topic command : "
          + kafka_error(res.error, res.error_message));
      std::vector<const wire::describe_configs_resource_result*> entries;
      for (auto& c : res.configs)
        // TopicDescription: every entry but DEFAULT_CONFIG (5), so a
        // broker's static settings show too.
        if (c.config_source != 5)
          entries.push_back(&c);
      for (auto* c : entries) {
        configs += (configs.empty() ? "" : ",") + c->name + "="
                   + c->value.value_or("null");
        config_json[c->name] = c->value ? json(*c->value) : json(nullptr);
      }
    }
    size_t rf = parts.empty() ? 0 : parts.front().replica_nodes.size();
    auto id = t.topic_id.is_zero() ? std::string{} : to_string(t.topic_id);
    json pj = json::array();
    if (configs_too && !as_json && !parts.empty())
      out << format_topic_line(*t.name, id, parts.size(), rf, configs);
    for (auto& p : parts) {
      bool is_under = p.replica_nodes.size() > p.isr_nodes.size();
      bool is_unavailable = p.leader_id < 0 || !live.count(p.leader_id);
      if ((under && !is_under) || (unavailable && !is_unavailable))
        continue;
      if (as_json)
        pj.push_back({{"partition", p.partition_index},
                      {"leader", p.leader_id >= 0 ? json(p.leader_id)
                                                  : json(nullptr)},
                      {"replicas", p.replica_nodes},
                      {"isr", p.isr_nodes}});
      else
        out << format_partition_line(*t.name, p);
    }
    // With a partition filter the table lists only the matching
    // partitions, so JSON leaves out the topics without any.
    if (as_json && (configs_too || !pj.empty())) {
      json tj = {{"topic", *t.name},
                 {"topic_id", id},
                 {"partition_count", parts.size()},
                 {"replication_factor", rf},
                 {"partitions", pj}};
      if (configs_too)
        tj["configs"] = config_json;
      arr.push_back(tj);
    }
  }
  if (as_json)
    out << arr.dump(2) << "\n";
  return 0;
}

int alter_topics(admin_client& client, const parsed_args& a, bool as_json,
                 std::ostream& out) {
  auto topics = topics_matching(client, a);
  ensure_exists(topics, a);
  auto count = static_cast<int32_t>(*a.integer("partitions", 1, INT32_MAX));
  for (auto& t : topics) {
    auto res = client.create_partitions(*t.name, count);
    if (res.error != error_code::none)
      throw kafka_client::client_error(
        "Error while executing topic command : "
        + kafka_error(res.error, res.error_message));
  }
  if (as_json) {
    auto arr = json::array();
    for (auto& t : topics)
      arr.push_back(*t.name);
    out << json{{"altered", arr}, {"partitions", count}}.dump(2) << "\n";
  }
  return 0;
}

int delete_topics(admin_client& client, const parsed_args& a, bool as_json,
                  std::ostream& out) {
  auto topics = topics_matching(client, a);
  ensure_exists(topics, a);
  for (auto& t : topics) {
    auto res = client.delete_topic(*t.name);
    if (res.error != error_code::none)
      throw kafka_client::client_error(
        "Error while executing topic command : "
        + kafka_error(res.error, res.error_message));
  }
  if (as_json) {
    auto arr = json::array();
    for (auto& t : topics)
      arr.push_back(*t.name);
    out << json{{"deleted", arr}}.dump(2) << "\n";
  }
  return 0;
}

} // namespace

int run_topics(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  return guarded("topics", err, [&] {
    auto specs = topic_options();
    auto a = parse_args(args, specs);
    // No arguments: the usage on stderr and status 1, as Kafka's
    // printUsageAndExit; --help: on stdout, status 0.
    if (a.has("help") || args.empty()) {
      (args.empty() ? err : out) << usage("topics", specs);
      return args.empty() ? 1 : 0;
    }
    check_topic_args(a);
    bool as_json = json_output(a);
    admin_client client{client_config_from(a, 30000)};
    if (a.has("create"))
      return create_topic(client, a, as_json, out);
    if (a.has("list"))
      return list_topics(client, a, as_json, out);
    if (a.has("describe"))
      return describe_topics(client, a, as_json, out);
    if (a.has("alter"))
      return alter_topics(client, a, as_json, out);
    return delete_topics(client, a, as_json, out);
  });
}

} // namespace troupe::tools
