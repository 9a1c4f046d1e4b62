// `troupe groups`: Kafka 3.9's kafka-consumer-groups.sh
// (tools/.../consumer/group/ConsumerGroupCommand.java and its options).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/tools/tables.hpp"
#include "app/tools/tools.hpp"

namespace troupe::tools {

namespace {

using kafka_client::admin_client;
using kafka_client::group_description;
using kafka_client::topic_partition;
using json = nlohmann::json;

std::vector<option_spec> group_options() {
  auto specs = common_options();
  std::vector<option_spec> own = {
    {"list", arg_kind::none, "List all consumer groups."},
    {"describe", arg_kind::none,
     "Describe consumer group and list offset lag (number of messages not yet "
     "processed) related to given group."},
    {"delete", arg_kind::none, "Pass in groups to delete topic partition "
                               "offsets and ownership information."},
    {"reset-offsets", arg_kind::none,
     "Reset offsets of consumer group. Supports one consumer group at the "
     "time, and instances should be inactive."},
    {"delete-offsets", arg_kind::none, "Delete offsets of consumer group."},
    {"group", arg_kind::required, "The consumer group we wish to act on."},
    {"all-groups", arg_kind::none, "Apply to all consumer groups."},
    {"topic", arg_kind::required,
     "The topic whose consumer group information should be deleted or topic "
     "that should be included in the reset offset process (topic or "
     "topic:p1,p2)."},
    {"all-topics", arg_kind::none,
     "Consider all topics assigned to a group in the `reset-offsets` process."},
    {"members", arg_kind::none, "Describe members of the group."},
    {"verbose", arg_kind::none, "Provide additional information, if any, "
                                "when describing the group."},
    {"offsets", arg_kind::none,
     "Describe the group and list all topic partitions in the group along "
     "with their offset lag. This is the default sub-action."},
    {"state", arg_kind::optional,
     "When specified with '--describe', includes the state of the group. "
     "With '--list', filters by state (comma-separated)."},
    {"type", arg_kind::optional,
     "When specified with '--list', shows the group type; a value filters "
     "by type (classic, consumer)."},
    {"dry-run", arg_kind::none, "Only show results without executing "
                                "changes on Consumer Groups (default)."},
    {"execute", arg_kind::none, "Execute operation."},
    {"export", arg_kind::none, "Export operation execution to a CSV file."},
    {"to-offset", arg_kind::required, "Reset offsets to a specific offset."},
    {"to-datetime", arg_kind::required,
     "Reset offsets to offset from datetime. Format: "
     "'YYYY-MM-DDTHH:mm:SS.sss'"},
    {"by-duration", arg_kind::required,
     "Reset offsets to offset by duration from current timestamp. Format: "
     "'PnDTnHnMnS'"},
    {"to-earliest", arg_kind::none, "Reset offsets to earliest offset."},
    {"to-latest", arg_kind::none, "Reset offsets to latest offset."},
    {"to-current", arg_kind::none, "Reset offsets to current offset."},
    {"shift-by", arg_kind::required,
     "Reset offsets shifting current offset by 'n', where 'n' can be "
     "positive or negative."},
    {"from-file", arg_kind::required,
     "Reset offsets to values defined in CSV file."},
  };
  specs.insert(specs.end(), own.begin(), own.end());
  return specs;
}

const std::vector<std::string> scenarios = {
  "to-offset",   "to-datetime", "by-duration", "to-earliest",
  "to-latest",   "shift-by",    "from-file",   "to-current"};

std::string opt(const std::string& n) {
  return "[" + n + "]";
}

/// ConsumerGroupCommandOptions.checkArgs, the checks that apply here.
std::string canonical_state(const std::string& s);
std::vector<std::string> split(const std::string& text, char sep);

int64_t parse_datetime(const std::string& text);
int64_t parse_duration_ms(const std::string& text);

void check_group_args(const parsed_args& a) {
  int actions = 0;
  for (auto* n : {"list", "describe", "delete", "reset-offsets",
                  "delete-offsets"})
    actions += a.has(n);
  if (actions != 1)
    throw usage_error("Command must include exactly one action: --list, "
                      "--describe, --delete, --reset-offsets, "
                      "--delete-offsets");
  check_required(a, "bootstrap-server");
  bool groups = a.has("group") || a.has("all-groups");
  if (a.has("describe")) {
    if (!groups)
      throw usage_error("Option " + opt("describe")
                        + " takes one of these options: [all-groups], [group]");
    int sub = a.has("members") + a.has("offsets") + a.has("state");
    if (sub > 1)
      throw usage_error("Option " + opt("describe")
                        + " takes at most one of these options: [members], "
                          "[offsets], [state]");
    if (a.has("state") && !a.values("state").empty())
      throw usage_error("Option " + opt("describe") + " does not take a value "
                        "for [state]");
  } else {
    for (auto* n : {"members", "offsets"})
      if (a.has(n))
        throw usage_error("Option " + opt(n) + " can only be used with "
                          + opt("describe"));
    if (a.has("state") && !a.has("list"))
      throw usage_error("Option [state] can only be used with [describe] or "
                        "[list]");
  }
  if (a.has("verbose") && !(a.has("describe") && a.has("members")))
    throw usage_error("Option [verbose] can only be used with [describe] "
                      "[members]");
  if (a.has("type") && !a.has("list"))
    throw usage_error("Option [type] can only be used with [list]");
  if (a.has("delete") && !groups)
    throw usage_error("Option " + opt("delete")
                      + " takes one of these options: [all-groups], [group]");
  if (a.has("delete-offsets")
      && (a.values("group").size() != 1 || !a.has("topic")))
    throw usage_error("Option " + opt("delete-offsets")
                      + " takes the following options: [group], [topic]");
  if (a.has("reset-offsets")) {
    if (!groups)
      throw usage_error("Option " + opt("reset-offsets")
                        + " takes one of these options: [all-groups], [group]");
    if (a.has("dry-run") && a.has("execute"))
      throw usage_error("Option " + opt("reset-offsets")
                        + " only accepts one of [execute] and [dry-run]");
    int n = 0;
    for (auto& s : scenarios)
      n += a.has(s);
    if (n == 0) {
      std::string all;
      for (auto& s : scenarios)
        all += (all.empty() ? "" : ", ") + opt(s);
      throw usage_error("Option '" + opt("reset-offsets")
                        + "' requires one of the following scenarios: [" + all
                        + "]");
    }
    for (auto& s : scenarios) {
      std::vector<std::string> others;
      for (auto& o : scenarios)
        if (o != s)
          others.push_back(o);
      check_invalid_args(a, s, others);
    }
    if (!a.has("from-file") && !a.has("all-topics") && !a.has("topic"))
      throw usage_error("One of the reset scopes should be defined: "
                        "--all-topics, --topic.");
    check_invalid_args(a, "all-topics", {"topic"});
  } else {
    for (auto& s : scenarios)
      if (a.has(s))
        throw usage_error("Option " + opt(s) + " can only be used with "
                          + opt("reset-offsets"));
    for (auto* n : {"dry-run", "execute", "export", "all-topics"})
      if (a.has(n))
        throw usage_error("Option " + opt(n) + " can only be used with "
                          + opt("reset-offsets"));
  }
  check_invalid_args(a, "group", {"all-groups"});
  if (a.has("topic") && !a.has("reset-offsets") && !a.has("delete-offsets"))
    throw usage_error("Option \"[topic]\" can't be used with option \"["
                      + std::string{a.has("describe") ? "describe"
                                    : a.has("list")   ? "list"
                                                      : "delete"}
                      + "]\"");
  // Numbers, times and durations are checked before anything is asked of
  // the cluster.
  a.integer("to-offset", INT64_MIN, INT64_MAX);
  a.integer("shift-by", INT64_MIN, INT64_MAX);
  if (a.has("to-datetime"))
    parse_datetime(a.value("to-datetime"));
  if (a.has("by-duration"))
    parse_duration_ms(a.value("by-duration"));
  // The state and type lists are checked before any connection, as
  // Kafka's ConsumerGroupCommandOptions.checkArgs.
  for (auto& v : a.values("state"))
    for (auto& st : split(v, ','))
      if (canonical_state(st).empty())
        throw usage_error("Invalid state list '" + v
                          + "'. Valid states are: PreparingRebalance, "
                            "CompletingRebalance, Stable, Dead, Empty, "
                            "Assigning, Reconciling");
  for (auto& v : a.values("type"))
    for (auto& t : split(v, ',')) {
      std::string lower;
      for (char c : t)
        lower.push_back(static_cast<char>(std::tolower(c)));
      if (lower != "classic" && lower != "consumer")
        throw usage_error("Invalid types list '" + v
                          + "'. Valid types are: consumer, classic");
    }
}

/// ConsumerGroupState.parse and toString: case-insensitive names.
std::string canonical_state(const std::string& s) {
  static const std::vector<std::string> states = {
    "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
    "Assigning", "Reconciling"};
  for (auto& known : states) {
    if (known.size() != s.size())
      continue;
    bool same = true;
    for (size_t i = 0; i < s.size(); ++i)
      same = same && std::tolower(known[i]) == std::tolower(s[i]);
    if (same)
      return known;
  }
  return {};
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, sep)) {
    auto b = item.find_first_not_of(' ');
    auto e = item.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : item.substr(b, e - b + 1));
  }
  return out;
}

std::vector<std::string> group_ids(admin_client& client, const parsed_args& a) {
  if (a.has("all-groups")) {
    std::vector<std::string> ids;
    for (auto& g : client.list_groups())
      ids.push_back(g.group_id);
    return ids;
  }
  auto ids = a.values("group");
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// -- --list -------------------------------------------------------------------

int list_groups(admin_client& client, const parsed_args& a, bool as_json,
                std::ostream& out) {
  std::vector<std::string> states, types;
  bool include_state = a.has("state"), include_type = a.has("type");
  // check_group_args refused any name that is not a state or a type.
  for (auto& v : a.values("state"))
    for (auto& s : split(v, ','))
      states.push_back(canonical_state(s));
  for (auto& v : a.values("type"))
    for (auto& t : split(v, ',')) {
      std::string lower;
      for (char c : t)
        lower.push_back(static_cast<char>(std::tolower(c)));
      types.push_back(lower);
    }
  auto groups = client.list_groups(states, types);
  if (as_json) {
    auto arr = json::array();
    for (auto& g : groups)
      arr.push_back({{"group", g.group_id},
                     {"state", g.group_state},
                     {"type", g.group_type}});
    out << arr.dump(2) << "\n";
    return 0;
  }
  if (!include_state && !include_type) {
    for (auto& g : groups)
      out << g.group_id << "\n";
    return 0;
  }
  std::vector<listing_row> rows;
  for (auto& g : groups) {
    listing_row r;
    r.group = g.group_id;
    r.state = g.group_state.empty() ? "Unknown" : canonical_state(g.group_state);
    if (r.state.empty())
      r.state = "Unknown";
    r.type = g.group_type == "consumer"  ? "Consumer"
             : g.group_type == "classic" ? "Classic"
                                         : "Unknown";
    rows.push_back(r);
  }
  out << format_group_listing(rows, include_type, include_state);
  return 0;
}

// -- --describe ---------------------------------------------------------------

/// shouldPrintMemberState: the notes Kafka prints before a group's table.
bool note_state(const std::string& group, const std::string& state,
                size_t rows, std::ostream& out, std::ostream& err) {
  if (state == "Dead") {
    out << "\nError: Consumer group '" << group << "' does not exist.\n";
    return false;
  }
  if (state == "Empty")
    err << "\nConsumer group '" << group << "' has no active members.\n";
  else if (state == "PreparingRebalance" || state == "CompletingRebalance"
           || state == "Assigning" || state == "Reconciling")
    err << "\nWarning: Consumer group '" << group << "' is rebalancing.\n";
  return rows > 0;
}

std::vector<offset_row> collect_offsets(admin_client& client,
                                        const group_description& g) {
  auto committed = client.committed_offsets(g.group_id);
  std::vector<const kafka_client::member_description*> members;
  for (auto& m : g.members)
    if (!m.assignment.empty())
      members.push_back(&m);
  std::stable_sort(members.begin(), members.end(), [](auto* x, auto* y) {
    return x->assignment.size() > y->assignment.size();
  });
  std::vector<topic_partition> all;
  std::set<topic_partition> assigned;
  for (auto* m : members)
    for (auto& tp : m->assignment) {
      all.push_back(tp);
      assigned.insert(tp);
    }
  for (auto& [tp, offset] : committed)
    if (!assigned.count(tp))
      all.push_back(tp);
  auto ends = client.list_offsets(all, wire::latest_timestamp);
  // A partition no member holds has no consumer, host or client id: "-"
  // in the table, null in JSON.
  using text = std::optional<std::string>;
  auto row = [&](const topic_partition& tp, const text& consumer,
                 const text& host, const text& client_id) {
    offset_row r;
    r.group = g.group_id;
    r.topic = tp.topic;
    r.partition = tp.partition;
    if (auto i = committed.find(tp); i != committed.end())
      r.current_offset = i->second;
    if (auto i = ends.find(tp);
        i != ends.end() && i->second.error == error_code::none)
      r.log_end_offset = i->second.offset;
    if (r.current_offset && r.log_end_offset)
      r.lag = *r.log_end_offset - *r.current_offset;
    r.consumer_id = consumer;
    r.host = host;
    r.client_id = client_id;
    return r;
  };
  std::vector<offset_row> rows;
  for (auto* m : members) {
    auto tps = m->assignment;
    std::sort(tps.begin(), tps.end(), [](auto& x, auto& y) {
      return std::tie(x.partition, x.topic) < std::tie(y.partition, y.topic);
    });
    for (auto& tp : tps)
      rows.push_back(row(tp, m->member_id, m->host, m->client_id));
  }
  for (auto& [tp, offset] : committed)
    if (!assigned.count(tp))
      rows.push_back(row(tp, std::nullopt, std::nullopt, std::nullopt));
  return rows;
}

json offset_rows_json(const std::vector<offset_row>& rows) {
  auto arr = json::array();
  auto opt_json = [](auto& x) { return x ? json(*x) : json(nullptr); };
  for (auto& r : rows)
    arr.push_back({{"topic", opt_json(r.topic)},
                   {"partition", opt_json(r.partition)},
                   {"current_offset", opt_json(r.current_offset)},
                   {"log_end_offset", opt_json(r.log_end_offset)},
                   {"lag", opt_json(r.lag)},
                   {"consumer_id", opt_json(r.consumer_id)},
                   {"host", opt_json(r.host)},
                   {"client_id", opt_json(r.client_id)}});
  return arr;
}

std::string coordinator_text(const kafka_client::broker_node& n) {
  return n.host + ":" + std::to_string(n.port) + "  (" + std::to_string(n.id)
         + ")";
}

/// A group the coordinator does not know: Dead with no error (DescribeGroups
/// before v6) or GROUP_ID_NOT_FOUND (v6).
bool group_missing(const group_description& g) {
  return g.error == error_code::group_id_not_found
         || (g.error == error_code::none && g.state == "Dead");
}

/// Kafka's "Error: Consumer group 'x' does not exist." as one line on
/// `err`.
void note_missing(const std::string& group, std::ostream& err) {
  err << "Error: Consumer group '" << group << "' does not exist.\n";
}

void check_described(const group_description& g) {
  if (g.error != error_code::none)
    throw kafka_client::client_error(
      "cannot describe group '" + g.group_id
      + "': " + std::string{error_name(g.error)} + ": "
      + std::string{error_message(g.error)});
}

int describe_groups(admin_client& client, const parsed_args& a, bool as_json,
                    std::ostream& out, std::ostream& err) {
  auto ids = group_ids(client, a);
  bool members = a.has("members"), state = a.has("state");
  bool verbose = a.has("verbose");
  auto result = json::array();
  int status = 0;
  for (auto& id : ids) {
    auto g = client.describe_group(id);
    if (group_missing(g)) {
      note_missing(id, err);
      status = 1;
      continue;
    }
    check_described(g);
    if (state) {
      state_row r{id, coordinator_text(g.coordinator), g.assignor, g.state,
                  g.members.size()};
      if (as_json) {
        result.push_back({{"group", id},
                          {"coordinator", {{"id", g.coordinator.id},
                                           {"host", g.coordinator.host},
                                           {"port", g.coordinator.port}}},
                          {"assignment_strategy", g.assignor},
                          {"state", g.state},
                          {"members", g.members.size()}});
        continue;
      }
      if (note_state(id, g.state, 1, out, err))
        out << format_state(r);
    } else if (members) {
      std::vector<member_row> rows;
      for (auto& m : g.members)
        rows.push_back({id, m.member_id, m.group_instance_id, m.host,
                        m.client_id, m.assignment.size(),
                        verbose ? m.assignment
                                : std::vector<topic_partition>{}});
      if (as_json) {
        auto arr = json::array();
        for (auto& m : g.members) {
          auto parts = json::array();
          for (auto& tp : m.assignment)
            parts.push_back({{"topic", tp.topic}, {"partition", tp.partition}});
          arr.push_back({{"consumer_id", m.member_id},
                         {"group_instance_id", m.group_instance_id},
                         {"host", m.host},
                         {"client_id", m.client_id},
                         {"partitions", m.assignment.size()},
                         {"assignment", parts}});
        }
        result.push_back({{"group", id}, {"state", g.state}, {"members", arr}});
        continue;
      }
      bool print = note_state(id, g.state, rows.size(), out, err);
      // Kafka prints the header even when there is nothing under it.
      out << format_members(print ? rows : std::vector<member_row>{}, verbose);
    } else {
      std::vector<offset_row> rows;
      if (g.state != "Dead")
        rows = collect_offsets(client, g);
      if (as_json) {
        result.push_back({{"group", id},
                          {"state", g.state},
                          {"offsets", offset_rows_json(rows)}});
        continue;
      }
      if (note_state(id, g.state, rows.size(), out, err))
        out << format_offsets(rows);
    }
  }
  if (as_json && (status == 0 || !result.empty()))
    out << result.dump(2) << "\n";
  return status;
}

// -- --reset-offsets ----------------------------------------------------------

std::vector<topic_partition> parse_topic_arg(const std::string& arg) {
  auto colon = arg.find(':');
  auto topic = arg.substr(0, colon);
  std::vector<topic_partition> out;
  auto parts = arg.substr(colon + 1);
  if (topic.empty() || parts.empty())
    throw usage_error("Invalid topic arg '" + arg
                      + "', expected topic name and partitions");
  for (auto& p : split(parts, ',')) {
    try {
      size_t used = 0;
      auto v = std::stol(p, &used);
      if (used != p.size() || v < 0 || v > INT32_MAX)
        throw std::invalid_argument(p);
      out.push_back({topic, static_cast<int32_t>(v)});
    } catch (const std::exception&) {
      throw usage_error("Invalid partition '" + p
                        + "' specified in topic arg '" + arg + "''");
    }
  }
  return out;
}

std::vector<topic_partition> topic_partitions(admin_client& client,
                                              const std::vector<std::string>& args) {
  std::vector<topic_partition> out;
  std::vector<std::string> whole;
  for (auto& t : args) {
    if (t.find(':') != std::string::npos) {
      auto tps = parse_topic_arg(t);
      out.insert(out.end(), tps.begin(), tps.end());
    } else {
      whole.push_back(t);
    }
  }
  if (!whole.empty()) {
    auto md = client.metadata(whole);
    for (auto& t : md.topics) {
      if (t.error != error_code::none)
        throw kafka_client::client_error(
          "cannot describe topic '" + t.name.value_or("") + "': "
          + std::string{error_name(t.error)} + ": "
          + std::string{error_message(t.error)});
      for (auto& p : t.partitions)
        out.push_back({t.name.value_or(""), p.partition_index});
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Utils.getDateTime: 'YYYY-MM-DDTHH:mm:SS.sss' with an optional zone (Z,
/// +hh:mm, +hhmm, +hh); without one the time is UTC, as Kafka appends "Z".
/// troupe also takes the time without milliseconds.
int64_t parse_datetime(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return usage_error("Error parsing timestamp '" + text + "': " + why);
  };
  if (text.find('T') == std::string::npos)
    throw bad("It does not contain a 'T' according to ISO8601 format");
  int y, mo, d, h, mi, s;
  char rest[32] = {0};
  int n = std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%31s", &y, &mo, &d,
                      &h, &mi, &s, rest);
  if (n < 6 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59
      || s > 59)
    throw bad("expected 'YYYY-MM-DDTHH:mm:SS.sss'");
  std::string tail = n == 7 ? rest : "";
  int ms = 0;
  if (!tail.empty() && tail[0] == '.') {
    size_t i = 1;
    std::string digits;
    while (i < tail.size() && std::isdigit(static_cast<unsigned char>(tail[i])))
      digits.push_back(tail[i++]);
    if (digits.size() != 3)
      throw bad("milliseconds must have three digits");
    ms = std::stoi(digits);
    tail = tail.substr(i);
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  auto seconds = static_cast<int64_t>(timegm(&tm));
  if (!tail.empty() && tail != "Z") {
    char sign = tail[0];
    std::string zone = tail.substr(1);
    zone.erase(std::remove(zone.begin(), zone.end(), ':'), zone.end());
    bool digits = !zone.empty()
                  && std::all_of(zone.begin(), zone.end(), [](char c) {
                       return std::isdigit(static_cast<unsigned char>(c));
                     });
    if ((sign != '+' && sign != '-') || !digits
        || (zone.size() != 2 && zone.size() != 4))
      throw bad("unknown time zone '" + tail + "'");
    int oh = std::stoi(zone.substr(0, 2));
    int om = zone.size() == 4 ? std::stoi(zone.substr(2)) : 0;
    if (oh > 23 || om > 59)
      throw bad("unknown time zone '" + tail + "'");
    int64_t off = oh * 3600 + om * 60;
    seconds -= sign == '+' ? off : -off;
  }
  return seconds * 1000 + ms;
}

/// java.time.Duration.parse: PnDTnHnMn.nS, optionally negative.
int64_t parse_duration_ms(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  auto bad = [&]() {
    return usage_error("Text cannot be parsed to a Duration: " + text);
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+'))
    negative = text[i++] == '-';
  if (i >= text.size() || std::toupper(text[i]) != 'P')
    throw bad();
  ++i;
  bool time = false, any = false;
  double ms = 0;
  while (i < text.size()) {
    if (std::toupper(text[i]) == 'T') {
      if (time)
        throw bad();
      time = true;
      ++i;
      continue;
    }
    size_t start = i;
    if (text[i] == '-' || text[i] == '+')
      ++i;
    while (i < text.size()
           && (std::isdigit(static_cast<unsigned char>(text[i]))
               || text[i] == '.'))
      ++i;
    if (i == start || i >= text.size())
      throw bad();
    double v = std::stod(text.substr(start, i - start));
    char unit = static_cast<char>(std::toupper(text[i++]));
    if (!time && unit == 'D')
      ms += v * 86400000.0;
    else if (time && unit == 'H')
      ms += v * 3600000.0;
    else if (time && unit == 'M')
      ms += v * 60000.0;
    else if (time && unit == 'S')
      ms += v * 1000.0;
    else
      throw bad();
    any = true;
  }
  if (!any)
    throw bad();
  return static_cast<int64_t>(std::llround(negative ? -ms : ms));
}

using plan_type = std::map<std::string, std::map<topic_partition, int64_t>>;

plan_type read_plan_file(const std::string& path,
                         const std::vector<std::string>& groups) {
  std::ifstream in{path};
  if (!in)
    throw usage_error("cannot read --from-file " + path);
  plan_type plan;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    auto cols = split(line, ',');
    std::string group;
    if (cols.size() == 3 && groups.size() == 1) {
      group = groups.front();
    } else if (cols.size() == 4) {
      group = cols[0];
      cols.erase(cols.begin());
    } else {
      throw usage_error(path + ":" + std::to_string(n)
                        + ": expected topic,partition,offset or "
                          "group,topic,partition,offset");
    }
    try {
      plan[group][{cols[0], static_cast<int32_t>(std::stol(cols[1]))}] =
        std::stoll(cols[2]);
    } catch (const std::exception&) {
      throw usage_error(path + ":" + std::to_string(n)
                        + ": partition and offset must be numbers");
    }
  }
  return plan;
}

/// checkOffsetsRange: offsets clamp into [log start, log end].
std::map<topic_partition, int64_t>
clamp(admin_client& client, const std::map<topic_partition, int64_t>& wanted) {
  std::vector<topic_partition> tps;
  for (auto& [tp, o] : wanted)
    tps.push_back(tp);
  auto starts = client.list_offsets(tps, wire::earliest_timestamp);
  auto ends = client.list_offsets(tps, wire::latest_timestamp);
  std::map<topic_partition, int64_t> out;
  for (auto& [tp, offset] : wanted) {
    auto e = ends.find(tp);
    if (e == ends.end() || e->second.error != error_code::none)
      throw kafka_client::client_error(
        "Error getting ending offset of topic partition: " + tp.topic + "-"
        + std::to_string(tp.partition));
    auto s = starts.find(tp);
    int64_t v = offset;
    if (v > e->second.offset)
      v = e->second.offset;
    else if (s != starts.end() && s->second.error == error_code::none
             && v < s->second.offset)
      v = s->second.offset;
    out[tp] = v;
  }
  return out;
}

std::map<topic_partition, int64_t>
offsets_at(admin_client& client, const std::vector<topic_partition>& tps,
           int64_t timestamp, const char* what, std::ostream& out) {
  auto found = client.list_offsets(tps, timestamp);
  std::vector<topic_partition> fallback;
  std::map<topic_partition, int64_t> result;
  for (auto& tp : tps) {
    auto i = found.find(tp);
    if (i == found.end() || i->second.error != error_code::none)
      throw kafka_client::client_error(std::string{"Error getting "} + what
                                       + " of topic partition: " + tp.topic
                                       + "-" + std::to_string(tp.partition));
    if (i->second.offset < 0 && timestamp >= 0) {
      out << "\nWarn: Partition " << tp.partition << " from topic "
          << tp.topic << " is empty. Falling back to latest known offset.\n";
      fallback.push_back(tp);
    } else {
      result[tp] = i->second.offset;
    }
  }
  if (!fallback.empty())
    for (auto& [tp, o] : offsets_at(client, fallback, wire::latest_timestamp,
                                    "ending offset", out))
      result[tp] = o;
  return result;
}

int reset_offsets(admin_client& client, const parsed_args& a, bool as_json,
                  std::ostream& out, std::ostream& err) {
  auto ids = group_ids(client, a);
  bool execute = a.has("execute");
  std::optional<plan_type> file_plan;
  if (a.has("from-file"))
    file_plan = read_plan_file(a.value("from-file"), a.values("group"));
  std::optional<int64_t> datetime;
  if (a.has("to-datetime"))
    datetime = parse_datetime(a.value("to-datetime"));
  std::optional<int64_t> duration;
  if (a.has("by-duration"))
    duration = parse_duration_ms(a.value("by-duration"));
  plan_type plan;
  int status = 0;
  for (auto& id : ids) {
    auto g = client.describe_group(id);
    if (g.error != error_code::group_id_not_found)
      check_described(g);
    if (g.error == error_code::none && g.state != "Empty"
        && g.state != "Dead") {
      // Kafka's printError, as the one line on stderr; the group gets no
      // rows.
      err << "Error: Assignments can only be reset if the group '" << id
          << "' is inactive, but the current state is " << g.state << ".\n";
      status = 1;
      continue;
    }
    std::vector<topic_partition> tps;
    if (a.has("all-topics")) {
      for (auto& [tp, o] : client.committed_offsets(id))
        tps.push_back(tp);
    } else if (a.has("topic")) {
      tps = topic_partitions(client, a.values("topic"));
    }
    std::map<topic_partition, int64_t> next;
    if (auto o = a.integer("to-offset", INT64_MIN, INT64_MAX)) {
      std::map<topic_partition, int64_t> wanted;
      for (auto& tp : tps)
        wanted[tp] = *o;
      next = clamp(client, wanted);
    } else if (a.has("to-earliest")) {
      next = offsets_at(client, tps, wire::earliest_timestamp,
                        "starting offset", out);
    } else if (a.has("to-latest")) {
      next = offsets_at(client, tps, wire::latest_timestamp, "ending offset",
                        out);
    } else if (auto by = a.integer("shift-by", INT64_MIN, INT64_MAX)) {
      auto current = client.committed_offsets(id);
      std::map<topic_partition, int64_t> wanted;
      for (auto& tp : tps) {
        auto i = current.find(tp);
        if (i == current.end())
          throw usage_error("Cannot shift offset for partition " + tp.topic
                            + "-" + std::to_string(tp.partition)
                            + " since there is no current committed offset");
        wanted[tp] = i->second + *by;
      }
      next = clamp(client, wanted);
    } else if (datetime || duration) {
      int64_t ts = datetime ? *datetime
                            : std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now()
                                  .time_since_epoch())
                                  .count()
                                - *duration;
      next = offsets_at(client, tps, ts, "offset by timestamp", out);
    } else if (file_plan) {
      auto i = file_plan->find(id);
      if (i == file_plan->end()) {
        out << "\nError: No reset plan for group " << id << " found\n";
      } else {
        next = clamp(client, i->second);
      }
    } else if (a.has("to-current")) {
      auto current = client.committed_offsets(id);
      std::vector<topic_partition> without;
      for (auto& tp : tps) {
        if (auto i = current.find(tp); i != current.end())
          next[tp] = i->second;
        else
          without.push_back(tp);
      }
      for (auto& [tp, o] : offsets_at(client, without, wire::latest_timestamp,
                                      "ending offset", out))
        next[tp] = o;
    }
    if (execute && !next.empty()) {
      for (auto& [tp, e] : client.commit_offsets(id, next))
        if (e != error_code::none)
          throw kafka_client::client_error(
            "cannot commit the offsets of group '" + id + "' ("
            + tp.topic + "-" + std::to_string(tp.partition)
            + "): " + std::string{error_name(e)} + ": "
            + std::string{error_message(e)});
    }
    plan[id] = next;
  }
  if (status != 0 && plan.empty())
    return status;
  if (as_json) {
    auto arr = json::array();
    for (auto& [group, offsets] : plan)
      for (auto& [tp, o] : offsets)
        arr.push_back({{"group", group},
                       {"topic", tp.topic},
                       {"partition", tp.partition},
                       {"new_offset", o}});
    out << json{{"executed", execute}, {"offsets", arr}}.dump(2) << "\n";
  } else if (a.has("export")) {
    // exportOffsetsToCsv: topic,partition,offset for one group.
    bool single = a.values("group").size() == 1;
    for (auto& [group, offsets] : plan)
      for (auto& [tp, o] : offsets)
        out << (single ? "" : group + ",") << tp.topic << "," << tp.partition
            << "," << o << "\n";
    out << "\n";
  } else {
    out << format_reset(plan);
  }
  return status;
}

// -- --delete, --delete-offsets ----------------------------------------------

/// The Java exception Kafka's tools name for an error code.
std::string exception_name(error_code e) {
  switch (e) {
    case error_code::non_empty_group:
      return "org.apache.kafka.common.errors.GroupNotEmptyException";
    case error_code::group_id_not_found:
      return "org.apache.kafka.common.errors.GroupIdNotFoundException";
    case error_code::invalid_group_id:
      return "org.apache.kafka.common.errors.InvalidGroupIdException";
    case error_code::group_authorization_failed:
      return "org.apache.kafka.common.errors.GroupAuthorizationException";
    case error_code::coordinator_not_available:
      return "org.apache.kafka.common.errors.CoordinatorNotAvailableException";
    case error_code::not_coordinator:
      return "org.apache.kafka.common.errors.NotCoordinatorException";
    default:
      return std::string{error_name(e)};
  }
}

int delete_groups(admin_client& client, const parsed_args& a, bool as_json,
                  std::ostream& out, std::ostream& err) {
  auto ids = group_ids(client, a);
  std::map<std::string, error_code> results;
  for (auto& id : ids)
    results[id] = client.delete_group(id);
  std::vector<std::string> ok, failed;
  for (auto& [id, e] : results)
    (e == error_code::none ? ok : failed).push_back(id);
  auto join = [](const std::vector<std::string>& xs, const char* sep) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i)
      s += (i ? sep : "") + xs[i];
    return s;
  };
  if (as_json) {
    auto arr = json::array();
    for (auto& [id, e] : results)
      arr.push_back({{"group", id},
                     {"error", e == error_code::none
                                 ? json(nullptr)
                                 : json(std::string{error_name(e)})}});
    out << arr.dump(2) << "\n";
  } else if (failed.empty()) {
    out << "Deletion of requested consumer groups ('" << join(ok, "', '")
        << "') was successful.\n";
  } else {
    // Kafka's lines, on stderr; one group's refusal is one line.
    auto why = [&](const std::string& id) {
      return "Group '" + id + "' could not be deleted due to: "
             + std::string{exception_name(results[id])} + ": "
             + std::string{error_message(results[id])};
    };
    if (failed.size() == 1 && ok.empty()) {
      err << "Error: Deletion of some consumer groups failed: "
          << why(failed.front()) << "\n";
    } else {
      err << "Error: Deletion of some consumer groups failed:\n";
      for (auto& id : failed)
        err << "* " << why(id) << "\n";
    }
    if (!ok.empty())
      out << "\nThese consumer groups were deleted successfully: '"
          << join(ok, "', '") << "'\n";
  }
  return failed.empty() ? 0 : 1;
}

int delete_offsets(admin_client& client, const parsed_args& a, bool as_json,
                   std::ostream& out, std::ostream& err) {
  auto group = a.value("group");
  auto& topics = a.values("topic");
  std::map<topic_partition, std::optional<std::string>> results;
  std::vector<topic_partition> tps;
  for (auto& t : topics) {
    if (t.find(':') != std::string::npos) {
      auto x = parse_topic_arg(t);
      tps.insert(tps.end(), x.begin(), x.end());
      continue;
    }
    auto md = client.metadata(std::vector<std::string>{t});
    for (auto& mt : md.topics) {
      if (mt.error != error_code::none) {
        results[{t, -1}] = std::string{error_message(mt.error)};
        continue;
      }
      for (auto& p : mt.partitions)
        tps.push_back({t, p.partition_index});
    }
  }
  auto [top_level, parts] = client.delete_offsets(group, tps);
  // The admin client's all() fails with the first partition's error when
  // the top level has none (DeleteConsumerGroupOffsetsResult).
  error_code top = top_level;
  for (auto& tp : tps) {
    auto i = parts.find(tp);
    error_code e = i != parts.end() ? i->second : top_level;
    if (top == error_code::none && e != error_code::none)
      top = e;
    results[tp] = e == error_code::none
                    ? std::nullopt
                    : std::optional<std::string>{std::string{error_message(e)}};
  }
  if (as_json) {
    auto arr = json::array();
    for (auto& [tp, e] : results)
      arr.push_back({{"topic", tp.topic},
                     {"partition", tp.partition},
                     {"error", e ? json(*e) : json(nullptr)}});
    out << json{{"group", group},
                {"error", top == error_code::none
                            ? json(nullptr)
                            : json(std::string{error_name(top)})},
                {"partitions", arr}}
             .dump(2)
        << "\n";
    return top == error_code::none ? 0 : 1;
  }
  std::string joined;
  for (size_t i = 0; i < topics.size(); ++i)
    joined += (i ? ", " : "") + topics[i];
  switch (top) {
    case error_code::none:
      out << "Request succeed for deleting offsets with topic " << joined
          << " group " << group << "\n";
      break;
    case error_code::invalid_group_id:
      err << "Error: '" << group << "' is not valid.\n";
      break;
    case error_code::group_id_not_found:
      err << "Error: '" << group << "' does not exist.\n";
      break;
    case error_code::group_authorization_failed:
      err << "Error: Access to '" << group << "' is not authorized.\n";
      break;
    case error_code::non_empty_group:
      err << "Error: Deleting offsets of a consumer group '" << group
          << "' is forbidden if the group is not empty.\n";
      break;
    case error_code::group_subscribed_to_topic:
    case error_code::topic_authorization_failed:
    case error_code::unknown_topic_or_partition:
      err << "Error: Encounter some partition level error, see the "
             "follow-up details:\n";
      break;
    default:
      err << "Error: Encounter some unknown error: " << error_name(top)
          << "\n";
  }
  out << format_delete_offsets(results);
  return top == error_code::none ? 0 : 1;
}

} // namespace

int run_groups(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  return guarded("groups", err, [&] {
    auto specs = group_options();
    auto a = parse_args(args, specs);
    // No arguments: the usage on stderr and status 1, as Kafka's
    // printUsageAndExit; --help: on stdout, status 0.
    if (a.has("help") || args.empty()) {
      (args.empty() ? err : out) << usage("groups", specs);
      return args.empty() ? 1 : 0;
    }
    check_group_args(a);
    bool as_json = json_output(a);
    auto cfg = client_config_from(a, 5000); // Kafka's --timeout default
    admin_client client{cfg};
    if (a.has("list"))
      return list_groups(client, a, as_json, out);
    if (a.has("describe"))
      return describe_groups(client, a, as_json, out, err);
    if (a.has("reset-offsets"))
      return reset_offsets(client, a, as_json, out, err);
    if (a.has("delete"))
      return delete_groups(client, a, as_json, out, err);
    return delete_offsets(client, a, as_json, out, err);
  });
}

} // namespace troupe::tools
