// `troupe reassign`: Kafka 3.9's kafka-reassign-partitions.sh over the
// KIP-455 APIs (AlterPartitionReassignments, ListPartitionReassignments):
// --generate, --execute, --verify, --cancel and --list with Kafka's JSON
// plans and messages, and troupe's --balance, which proposes a plan that
// spreads replicas and preferred leaders evenly over the brokers (the job
// Cruise Control does for Kafka). docs/ARCHITECTURE.md §10.

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/tools/tools.hpp"
#include "domain/broker_config.hpp"
#include "domain/replication/reassignment_plan.hpp"

namespace troupe::tools {

namespace {

using json = nlohmann::json;
using client_partition = kafka_client::topic_partition;

client_partition to_client(const topic_partition& tp) {
  return {tp.topic, tp.partition};
}

std::vector<option_spec> reassign_options() {
  auto specs = common_options();
  specs.insert(
    specs.end(),
    {
      {"generate", arg_kind::none,
       "Generate a candidate partition reassignment configuration. Note that "
       "this only generates a candidate assignment, it does not execute it."},
      {"execute", arg_kind::none,
       "Kick off the reassignment as specified by the "
       "--reassignment-json-file option."},
      {"verify", arg_kind::none,
       "Verify if the reassignment completed as specified by the "
       "--reassignment-json-file option."},
      {"cancel", arg_kind::none,
       "Cancel an active reassignment of the partitions in "
       "--reassignment-json-file."},
      {"list", arg_kind::none, "List all active partition reassignments."},
      {"balance", arg_kind::none,
       "troupe: propose a reassignment that spreads the replicas and the "
       "preferred leaders of the topics (all of them, or those of "
       "--topics-to-move-json-file) evenly over --broker-list (default: "
       "every broker), moving as few replicas as it can."},
      {"reassignment-json-file", arg_kind::required,
       "The JSON file with the partition reassignment configuration"},
      {"topics-to-move-json-file", arg_kind::required,
       "Generate a reassignment configuration to move the partitions of the "
       "specified topics to the list of brokers specified by the "
       "--broker-list option. The format to use is {\"topics\": "
       "[{\"topic\": \"foo\"},{\"topic\": \"foo1\"}], \"version\":1}"},
      {"broker-list", arg_kind::required,
       "The list of brokers to which the partitions need to be reassigned in "
       "the form \"0,1,2\"."},
      {"throttle", arg_kind::required,
       "The movement of partitions between brokers will be throttled to this "
       "value (bytes/sec). This option can be included with --execute when a "
       "reassignment is started, and it can be altered by resubmitting the "
       "current reassignment along with the --additional flag. The throttle "
       "rate should be at least 1 KB/s."},
      {"additional", arg_kind::none,
       "Execute this reassignment in addition to any other ongoing ones. This "
       "option can also be used to change the throttle of an ongoing "
       "reassignment."},
      {"preserve-throttles", arg_kind::none,
       "Do not modify broker or topic throttles."},
    });
  return specs;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw usage_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json parse_json(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw usage_error("Unable to parse " + path + ": " + e.what());
  }
}

/// Kafka's parsePartitionReassignmentData: {"version":1,"partitions":
/// [{"topic":"t","partition":0,"replicas":[1,2]}]}.
replica_plan parse_plan(const std::string& path) {
  auto j = parse_json(path);
  if (!j.is_object() || !j.contains("partitions")
      || !j["partitions"].is_array())
    throw usage_error("Partition reassignment list cannot be empty");
  if (j.contains("version") && j["version"] != 1)
    throw usage_error("Not supported version field value "
                      + j["version"].dump());
  replica_plan out;
  for (auto& p : j["partitions"]) {
    if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string()
        || !p.contains("partition") || !p["partition"].is_number_integer()
        || !p.contains("replicas") || !p["replicas"].is_array())
      throw usage_error("Each entry of \"partitions\" needs \"topic\", "
                        "\"partition\" and \"replicas\": "
                        + p.dump());
    topic_partition tp{p["topic"].get<std::string>(),
                       p["partition"].get<int32_t>()};
    std::vector<int32_t> replicas;
    for (auto& r : p["replicas"]) {
      if (!r.is_number_integer())
        throw usage_error("Replica ids must be integers: " + p.dump());
      replicas.push_back(r.get<int32_t>());
    }
    if (out.count(tp))
      throw usage_error("Duplicate partition in the reassignment: "
                        + to_string(tp));
    std::set<int32_t> distinct(replicas.begin(), replicas.end());
    if (distinct.size() != replicas.size())
      throw usage_error("Duplicate replicas in the reassignment of "
                        + to_string(tp));
    out[tp] = std::move(replicas);
  }
  if (out.empty())
    throw usage_error("Partition reassignment list cannot be empty");
  return out;
}

std::vector<int32_t> parse_broker_list(const std::string& text) {
  std::vector<int32_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      auto id = std::stoi(item, &used);
      if (used != item.size() || id < 0)
        throw std::invalid_argument(item);
      out.push_back(id);
    } catch (const std::exception&) {
      throw usage_error("Invalid broker id in --broker-list: '" + item + "'");
    }
  }
  std::set<int32_t> distinct(out.begin(), out.end());
  if (out.empty() || distinct.size() != out.size())
    throw usage_error("Duplicate or missing broker ids in --broker-list");
  return {distinct.begin(), distinct.end()};
}

std::vector<std::string> parse_topics(const std::string& path) {
  auto j = parse_json(path);
  std::vector<std::string> out;
  if (j.is_object() && j.contains("topics") && j["topics"].is_array())
    for (auto& t : j["topics"])
      if (t.is_object() && t.contains("topic") && t["topic"].is_string())
        out.push_back(t["topic"].get<std::string>());
  if (out.empty())
    throw usage_error("List of topics to reassign contains no topics");
  return out;
}

/// Kafka's formatAsReassignmentJson.
std::string plan_json(const replica_plan& plan) {
  json parts = json::array();
  for (auto& [tp, replicas] : plan) {
    json p;
    p["topic"] = tp.topic;
    p["partition"] = tp.partition;
    p["replicas"] = replicas;
    p["log_dirs"] = std::vector<std::string>(replicas.size(), "any");
    parts.push_back(std::move(p));
  }
  json j;
  j["version"] = 1;
  j["partitions"] = std::move(parts);
  return j.dump();
}

std::string joined(const std::vector<int32_t>& xs) {
  std::string out;
  for (auto x : xs)
    out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

std::string name_of(const client_partition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition);
}

/// The replicas of `topics` (every topic when empty, internal ones left
/// out) as Metadata gives them; unknown topics are an error.
replica_plan current_assignment(kafka_client::admin_client& admin,
                                const std::vector<std::string>& topics) {
  auto md = topics.empty() ? admin.metadata() : admin.metadata(topics);
  replica_plan out;
  for (auto& t : md.topics) {
    auto name = t.name.value_or("");
    if (t.error != error_code::none)
      throw usage_error("Topic " + name + " not found");
    if (topics.empty() && t.is_internal)
      continue;
    for (auto& p : t.partitions)
      out[{name, p.partition_index}] = p.replica_nodes;
  }
  return out;
}

int generate(kafka_client::admin_client& admin, const parsed_args& a,
             std::ostream& out, bool balance) {
  std::vector<std::string> topics;
  if (a.has("topics-to-move-json-file"))
    topics = parse_topics(a.value("topics-to-move-json-file"));
  else if (!balance)
    check_required(a, "topics-to-move-json-file");
  std::vector<int32_t> brokers;
  if (a.has("broker-list")) {
    brokers = parse_broker_list(a.value("broker-list"));
  } else if (!balance) {
    check_required(a, "broker-list");
  } else {
    for (auto& b : admin.brokers())
      brokers.push_back(b.id);
    std::sort(brokers.begin(), brokers.end());
  }
  auto current = current_assignment(admin, topics);
  auto proposed = balance ? balanced_plan(current, brokers)
                          : spread_plan(current, brokers);
  if (balance) {
    auto moves = replicas_moved(current, proposed);
    out << "Current partition replica assignment\n"
        << plan_json(current) << "\n\n"
        << "Proposed partition reassignment configuration ("
        << moves << " replica" << (moves == 1 ? "" : "s") << " to move)\n"
        << plan_json(changed_only(current, proposed)) << "\n";
    return 0;
  }
  out << "Current partition replica assignment\n"
      << plan_json(current) << "\n\n"
      << "Proposed partition reassignment configuration\n"
      << plan_json(proposed) << "\n";
  return 0;
}

// -- throttles (KIP-73) ---------------------------------------------------------

constexpr std::string_view leader_throttled_replicas =
  "leader.replication.throttled.replicas";
constexpr std::string_view follower_throttled_replicas =
  "follower.replication.throttled.replicas";

/// --throttle: a non-negative number of bytes per second; -1 when absent.
int64_t throttle_of(const parsed_args& a) {
  if (!a.has("throttle"))
    return -1;
  auto text = a.value("throttle");
  try {
    size_t used = 0;
    auto n = std::stoll(text, &used);
    if (used != text.size() || n < 0)
      throw std::invalid_argument(text);
    return n;
  } catch (const std::exception&) {
    throw usage_error("Invalid --throttle value: '" + text
                      + "' (a number of bytes per second)");
  }
}

void check_altered(const wire::alter_configs_resource_response& r) {
  if (r.error != error_code::none)
    throw kafka_client::client_error("Cannot set the throttle on " + r.resource_name + ": "
                       + std::string{error_name(r.error)}
                       + (r.error_message ? ": " + *r.error_message : ""));
}

/// Kafka's modifyReassignmentThrottle: each moving topic's
/// leader.replication.throttled.replicas lists its current replicas and
/// follower.replication.throttled.replicas the new ones (partition:broker,
/// sorted as strings, as Kafka's TreeSet), then every broker that sends or
/// receives gets the rate on both sides.
void set_throttles(kafka_client::admin_client& admin,
                   const replica_plan& before, const replica_plan& plan,
                   int64_t rate, std::ostream& out) {
  std::map<std::string, std::set<std::string>> leaders;
  std::map<std::string, std::set<std::string>> followers;
  std::set<int32_t> brokers;
  for (auto& [tp, target] : plan) {
    auto& current = before.at(tp);
    if (current == target)
      continue;
    for (auto b : current) {
      leaders[tp.topic].insert(std::to_string(tp.partition) + ":"
                               + std::to_string(b));
      brokers.insert(b);
    }
    for (auto b : target) {
      brokers.insert(b);
      if (std::find(current.begin(), current.end(), b) == current.end())
        followers[tp.topic].insert(std::to_string(tp.partition) + ":"
                                   + std::to_string(b));
    }
  }
  auto joined_set = [](const std::set<std::string>& xs) {
    std::string s;
    for (auto& x : xs)
      s += (s.empty() ? "" : ",") + x;
    return s;
  };
  for (auto& [topic, list] : leaders) {
    std::vector<wire::incremental_alterable_config> ops{
      {std::string{leader_throttled_replicas}, wire::config_operation_set,
       joined_set(list)},
      {std::string{follower_throttled_replicas}, wire::config_operation_set,
       joined_set(followers[topic])}};
    check_altered(
      admin.alter_configs(wire::config_resource_topic, topic, ops, {}, false));
  }
  for (auto b : brokers) {
    std::vector<wire::incremental_alterable_config> ops;
    for (auto name : {leader_replication_throttled_rate,
                      follower_replication_throttled_rate})
      ops.push_back(
        {std::string{name}, wire::config_operation_set, std::to_string(rate)});
    check_altered(admin.alter_configs(wire::config_resource_broker,
                                      std::to_string(b), ops, {}, false));
  }
  out << "The inter-broker throttle limit was set to " << rate << " B/s\n";
}

/// Kafka's clearAllThrottles once --verify finds every move done: the
/// rates off every broker, the replica lists off the plan's topics.
void clear_throttles(kafka_client::admin_client& admin,
                     const std::set<std::string>& topics) {
  for (auto& b : admin.brokers()) {
    std::vector<wire::incremental_alterable_config> ops;
    for (auto name : {leader_replication_throttled_rate,
                      follower_replication_throttled_rate})
      ops.push_back({std::string{name}, wire::config_operation_delete, {}});
    check_altered(admin.alter_configs(wire::config_resource_broker,
                                      std::to_string(b.id), ops, {}, false));
  }
  for (auto& t : topics) {
    std::vector<wire::incremental_alterable_config> ops;
    for (auto name : {leader_throttled_replicas, follower_throttled_replicas})
      ops.push_back({std::string{name}, wire::config_operation_delete, {}});
    check_altered(
      admin.alter_configs(wire::config_resource_topic, t, ops, {}, false));
  }
}

int execute(kafka_client::admin_client& admin, const parsed_args& a,
            std::ostream& out, std::ostream& err) {
  check_required(a, "reassignment-json-file");
  auto plan = parse_plan(a.value("reassignment-json-file"));
  auto throttle = throttle_of(a);
  if (!a.has("additional") && !admin.list_partition_reassignments().empty())
    throw usage_error(
      "Cannot execute because there is an existing partition assignment.  "
      "Use --additional to override this and create a new partition "
      "assignment in addition to the existing one. The --additional flag can "
      "also be used to change the throttle by resubmitting the current "
      "reassignment.");
  std::set<std::string> topics;
  for (auto& [tp, r] : plan)
    topics.insert(tp.topic);
  auto current = current_assignment(admin, {topics.begin(), topics.end()});
  replica_plan before;
  for (auto& [tp, r] : plan) {
    auto i = current.find(tp);
    if (i == current.end())
      throw usage_error("Topic " + tp.topic + " not found or partition "
                        + std::to_string(tp.partition)
                        + " does not exist");
    before[tp] = i->second;
  }
  out << "Current partition replica assignment\n\n"
      << plan_json(before) << "\n\n"
      << "Save this to use as the --reassignment-json-file option during "
         "rollback\n";
  if (throttle >= 0) {
    out << "Warning: You must run --verify periodically, until the "
           "reassignment completes, to ensure the throttle is removed.\n";
    set_throttles(admin, before, plan, throttle, out);
  }
  std::map<client_partition, std::optional<std::vector<int32_t>>> targets;
  for (auto& [tp, r] : plan)
    targets[to_client(tp)] = r;
  auto results = admin.alter_partition_reassignments(targets);
  std::string started;
  int failed = 0;
  for (auto& [tp, r] : results) {
    if (r.first == error_code::none) {
      started += (started.empty() ? "" : ",") + name_of(tp);
      continue;
    }
    ++failed;
    err << "Error reassigning partition(s):\n"
        << name_of(tp) << ": " << error_name(r.first)
        << (r.second.empty() ? "" : ": " + r.second) << "\n";
  }
  if (!started.empty())
    out << "Successfully started partition reassignment"
        << (results.size() - static_cast<size_t>(failed) == 1 ? "" : "s")
        << " for " << started << "\n";
  return failed == 0 ? 0 : 1;
}

int verify(kafka_client::admin_client& admin, const parsed_args& a,
           std::ostream& out) {
  check_required(a, "reassignment-json-file");
  auto plan = parse_plan(a.value("reassignment-json-file"));
  std::vector<client_partition> partitions;
  std::set<std::string> topics;
  for (auto& [tp, r] : plan) {
    partitions.push_back(to_client(tp));
    topics.insert(tp.topic);
  }
  std::set<topic_partition> ongoing;
  for (auto& t : admin.list_partition_reassignments(partitions))
    for (auto& p : t.partitions)
      ongoing.insert({t.name, p.partition_index});
  auto current = current_assignment(admin, {topics.begin(), topics.end()});
  out << "Status of partition reassignment:\n";
  bool done = true;
  for (auto& [tp, target] : plan) {
    if (ongoing.count(tp)) {
      done = false;
      out << "Reassignment of partition " << to_string(tp)
          << " is still in progress.\n";
    } else if (current[tp] == target) {
      out << "Reassignment of partition " << to_string(tp)
          << " is completed.\n";
    } else {
      done = false;
      out << "There is no active reassignment of partition " << to_string(tp)
          << ", but replica set is " << joined(current[tp])
          << " rather than " << joined(target) << ".\n";
    }
  }
  // The moves are done: their throttles go (unless kept on purpose).
  if (done && !a.has("preserve-throttles"))
    clear_throttles(admin, topics);
  return done ? 0 : 1;
}

int cancel(kafka_client::admin_client& admin, const parsed_args& a,
           std::ostream& out, std::ostream& err) {
  check_required(a, "reassignment-json-file");
  auto plan = parse_plan(a.value("reassignment-json-file"));
  std::map<client_partition, std::optional<std::vector<int32_t>>> targets;
  for (auto& [tp, r] : plan)
    targets[to_client(tp)] = std::nullopt;
  auto results = admin.alter_partition_reassignments(targets);
  std::string cancelled;
  int failed = 0;
  for (auto& [tp, r] : results) {
    if (r.first == error_code::none) {
      cancelled += (cancelled.empty() ? "" : ",") + name_of(tp);
    } else if (r.first != error_code::no_reassignment_in_progress) {
      ++failed;
      err << name_of(tp) << ": " << error_name(r.first)
          << (r.second.empty() ? "" : ": " + r.second) << "\n";
    }
  }
  out << "Successfully cancelled partition reassignment(s) for: "
      << (cancelled.empty() ? "(none)" : cancelled) << "\n";
  return failed == 0 ? 0 : 1;
}

int list(kafka_client::admin_client& admin, std::ostream& out) {
  auto ongoing = admin.list_partition_reassignments();
  if (ongoing.empty()) {
    out << "No partition reassignments found.\n";
    return 0;
  }
  out << "Current partition reassignments:\n";
  for (auto& t : ongoing)
    for (auto& p : t.partitions)
      out << t.name << "-" << p.partition_index
          << ": replicas: " << joined(p.replicas)
          << ". adding: " << joined(p.adding_replicas)
          << ". removing: " << joined(p.removing_replicas) << ".\n";
  return 0;
}

} // namespace

int run_reassign(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err) {
  auto specs = reassign_options();
  return guarded("reassign", err, [&] {
    if (args.empty()) {
      err << "This tool helps to move topic partitions between replicas.\n"
          << usage("troupe reassign", specs);
      return 1;
    }
    auto a = parse_args(args, specs);
    if (a.has("help")) {
      out << "This tool helps to move topic partitions between replicas.\n"
          << usage("troupe reassign", specs);
      return 0;
    }
    int actions = 0;
    for (auto name : {"generate", "execute", "verify", "cancel", "list",
                      "balance"})
      actions += a.has(name) ? 1 : 0;
    if (actions != 1)
      throw usage_error("Command must include exactly one action: --generate, "
                        "--execute, --verify, --cancel, --list or --balance");
    // A plan that cannot be read is refused before connecting.
    if (a.has("reassignment-json-file") && !a.has("generate"))
      parse_plan(a.value("reassignment-json-file"));
    auto cfg = client_config_from(a, 30000);
    kafka_client::admin_client admin(cfg);
    if (a.has("generate"))
      return generate(admin, a, out, false);
    if (a.has("balance"))
      return generate(admin, a, out, true);
    if (a.has("execute"))
      return execute(admin, a, out, err);
    if (a.has("verify"))
      return verify(admin, a, out);
    if (a.has("cancel"))
      return cancel(admin, a, out, err);
    return list(admin, out);
  });
}

} // namespace troupe::tools
