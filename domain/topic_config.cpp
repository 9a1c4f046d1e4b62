#include "domain/topic_config.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <variant>

#include "domain/config_parse.hpp"
#include "domain/replication/replication_quota.hpp"

#include "domain/log/log_defaults.hpp"
#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

namespace {

using vt = config_value_type;

// -- Kafka's names ---------------------------------------------------------------

constexpr std::string_view segment_bytes = "segment.bytes";
constexpr std::string_view segment_ms = "segment.ms";
constexpr std::string_view retention_bytes = "retention.bytes";
constexpr std::string_view retention_ms = "retention.ms";
constexpr std::string_view max_message_bytes = "max.message.bytes";
constexpr std::string_view delete_retention_ms = "delete.retention.ms";
constexpr std::string_view min_compaction_lag_ms = "min.compaction.lag.ms";
constexpr std::string_view max_compaction_lag_ms = "max.compaction.lag.ms";
constexpr std::string_view min_cleanable_dirty_ratio =
  "min.cleanable.dirty.ratio";
constexpr std::string_view cleanup_policy = "cleanup.policy";
constexpr std::string_view unclean_leader_election =
  "unclean.leader.election.enable";
constexpr std::string_view min_insync_replicas = "min.insync.replicas";
constexpr std::string_view message_timestamp_type = "message.timestamp.type";
constexpr std::string_view leader_throttled_replicas =
  "leader.replication.throttled.replicas";
constexpr std::string_view follower_throttled_replicas =
  "follower.replication.throttled.replicas";

/// Kafka 3.9's other topic configs (LogConfig's definitions): known names
/// that troupe does not implement, refused by name rather than as unknown.
const std::set<std::string_view>& unsupported_kafka_configs() {
  static const std::set<std::string_view> names{
    "segment.jitter.ms",
    "segment.index.bytes",
    "flush.messages",
    "flush.ms",
    "index.interval.bytes",
    "file.delete.delay.ms",
    "compression.type",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.zstd.level",
    "preallocate",
    "message.format.version",
    "message.timestamp.difference.max.ms",
    "message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms",
    "message.downconversion.enable",
    "remote.storage.enable",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.log.copy.disable",
    "remote.log.delete.on.disable",
  };
  return names;
}

// -- ConfigDef's parsing -----------------------------------------------------------

/// A parsed value, or ConfigException's message.
using parsed =
  std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

config_error invalid(std::string_view name, std::string_view value,
                     std::string_view why) {
  // ConfigException(name, value, message).
  return {error_code::invalid_config,
          "Invalid value " + std::string{value} + " for configuration "
            + std::string{name} + ": " + std::string{why}};
}

/// String.trim(): every char <= ' ' at either end.
std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ')
    s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ')
    s.remove_suffix(1);
  return s;
}

/// Long.parseLong / Integer.parseInt: an optional sign, then decimal
/// digits, within the type's range.
std::optional<int64_t> java_parse_integer(std::string_view s, int64_t min,
                                          int64_t max) {
  if (s.empty())
    return std::nullopt;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
    if (s.empty())
      return std::nullopt;
  }
  // Accumulate negatively, as Java does, so that the minimum fits.
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    auto d = c - '0';
    if (n < (std::numeric_limits<int64_t>::min() + d) / 10)
      return std::nullopt;
    n = n * 10 - d;
  }
  if (!negative) {
    if (n == std::numeric_limits<int64_t>::min())
      return std::nullopt;
    n = -n;
  }
  if (n < min || n > max)
    return std::nullopt;
  return n;
}

/// Double.parseDouble for the decimal forms (sign, digits, point,
/// exponent, an optional f/F/d/D suffix), "NaN" and "Infinity".
std::optional<double> java_parse_double(std::string_view s) {
  std::string text{s};
  if (text.empty())
    return std::nullopt;
  auto body = std::string_view{text};
  if (body.front() == '+' || body.front() == '-')
    body.remove_prefix(1);
  if (body == "NaN")
    return std::nan("");
  if (body == "Infinity")
    return text.front() == '-' ? -HUGE_VAL : HUGE_VAL;
  if (!body.empty()
      && (body.back() == 'f' || body.back() == 'F' || body.back() == 'd'
          || body.back() == 'D'))
    text.pop_back();
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E')
      return std::nullopt; // no hex floats, no "inf"
  }
  if (!digit)
    return std::nullopt;
  errno = 0;
  char* end = nullptr;
  auto v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size())
    return std::nullopt;
  return v; // overflow is Infinity in Java too
}

/// Double.toString: the shortest digits that read back as `v`, in plain
/// notation for 10^-3 <= |v| < 10^7 ("0.5", "2.0"), else computerized
/// scientific notation ("1.0E7", "1.0E-4").
std::string java_double_string(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v < 0 ? "-Infinity" : "Infinity";
  if (v == 0)
    return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, v);
  // buf: [-]d[.ddd]e(+|-)XX
  std::string s{buf};
  std::string sign;
  if (s.front() == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  auto e = s.find('e');
  auto exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.')
      digits += s[i];
  auto magnitude = std::fabs(v);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    std::string out;
    if (exponent < 0) {
      out =
        "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      auto point = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= point)
        out = digits + std::string(point - digits.size(), '0') + ".0";
      else
        out = digits.substr(0, point) + "." + digits.substr(point);
    }
    return sign + out;
  }
  std::string mantissa =
    digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  return sign + mantissa + "E" + std::to_string(exponent);
}

/// ConfigDef.COMMA_WITH_WHITESPACE.split(trimmed, -1); "" is the empty list.
std::vector<std::string> parse_list(std::string_view trimmed) {
  std::vector<std::string> out;
  if (trimmed.empty())
    return out;
  size_t start = 0;
  while (true) {
    auto comma = trimmed.find(',', start);
    auto item = trimmed.substr(start, comma == std::string_view::npos
                                        ? std::string_view::npos
                                        : comma - start);
    // \s: space, \t, \n, \x0B, \f, \r.
    auto ws = [](char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f'
             || c == '\r';
    };
    while (!item.empty() && ws(item.front()))
      item.remove_prefix(1);
    while (!item.empty() && ws(item.back()))
      item.remove_suffix(1);
    out.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return out;
}

/// Kafka's Range.atLeast / Range.between, ValidString.in, ValidList.in.
struct validator {
  std::optional<int64_t> min;
  std::optional<int64_t> max;
  std::vector<std::string_view> one_of;
};

validator validator_of(std::string_view name) {
  if (name == segment_bytes)
    return {14, {}, {}}; // Kafka 3.9: LegacyRecord.RECORD_OVERHEAD_V0
  if (name == segment_ms)
    return {1, {}, {}};
  if (name == retention_ms)
    return {-1, {}, {}};
  if (name == max_message_bytes || name == delete_retention_ms
      || name == min_compaction_lag_ms)
    return {0, {}, {}};
  if (name == max_compaction_lag_ms)
    return {1, {}, {}};
  if (name == min_cleanable_dirty_ratio)
    return {0, 1, {}};
  if (name == min_insync_replicas)
    return {1, {}, {}};
  if (name == cleanup_policy)
    return {{}, {}, {"compact", "delete"}};
  if (name == message_timestamp_type)
    return {{}, {}, {"CreateTime", "LogAppendTime"}};
  return {};
}

std::string join(const std::vector<std::string_view>& xs) {
  std::string out;
  for (auto& x : xs) {
    if (!out.empty())
      out += ", ";
    out += x;
  }
  return out;
}

/// ConfigDef.parseValue for one config: parseType, then its validator.
std::variant<parsed, config_error> parse_value(const topic_config_def& def,
                                               std::string_view raw) {
  auto name = def.name;
  auto trimmed = java_trim(raw);
  auto v = validator_of(name);
  auto type_name = to_string(def.type);
  switch (def.type) {
    case vt::boolean: {
      // equalsIgnoreCase
      auto lower = std::string{trimmed};
      for (auto& c : lower)
        if (c >= 'A' && c <= 'Z')
          c = static_cast<char>(c - 'A' + 'a');
      if (lower == "true")
        return parsed{true};
      if (lower == "false")
        return parsed{false};
      return invalid(name, raw, "Expected value to be either true or false");
    }
    case vt::int32:
    case vt::int64: {
      auto n =
        def.type == vt::int32
          ? java_parse_integer(trimmed, std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max())
          : java_parse_integer(trimmed, std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::max());
      if (!n)
        return invalid(name, raw, "Not a number of type " + type_name);
      if (v.min && *n < *v.min)
        return invalid(name, std::to_string(*n),
                       "Value must be at least " + std::to_string(*v.min));
      if (v.max && *n > *v.max)
        return invalid(name, std::to_string(*n),
                       "Value must be no more than " + std::to_string(*v.max));
      return parsed{*n};
    }
    case vt::float64: {
      auto d = java_parse_double(trimmed);
      if (!d)
        return invalid(name, raw, "Not a number of type " + type_name);
      if (v.min && *d < static_cast<double>(*v.min))
        return invalid(name, java_double_string(*d),
                       "Value must be at least " + std::to_string(*v.min));
      if (v.max && *d > static_cast<double>(*v.max))
        return invalid(name, java_double_string(*d),
                       "Value must be no more than " + std::to_string(*v.max));
      return parsed{*d};
    }
    case vt::string: {
      std::string s{trimmed};
      if (!v.one_of.empty()
          && std::find(v.one_of.begin(), v.one_of.end(), s) == v.one_of.end())
        return invalid(name, s, "String must be one of: " + join(v.one_of));
      return parsed{s};
    }
    case vt::list: {
      auto items = parse_list(trimmed);
      if (name == leader_throttled_replicas
          || name == follower_throttled_replicas) {
        // ThrottledReplicaListValidator, its value shown as Java's
        // List.toString.
        if (parse_throttled_replicas(trimmed))
          return parsed{items};
        std::string shown = "[";
        for (size_t i = 0; i < items.size(); ++i)
          shown += (i ? ", " : "") + items[i];
        return invalid(name, shown + "]", throttled_replicas_rule);
      }
      for (auto& item : items)
        if (std::find(v.one_of.begin(), v.one_of.end(), item) == v.one_of.end())
          return invalid(name, item,
                         "String must be one of: " + join(v.one_of));
      return parsed{items};
    }
  }
  return invalid(name, raw, "unknown type");
}

/// The names of `configs` that are not troupe's topic configs: Kafka's
/// LogConfig.validateNames' error, or troupe's refusal of a Kafka topic
/// config it does not implement.
config_error check_names(const topic_configs& configs) {
  for (auto& [name, value] : configs) {
    if (find_topic_config(name))
      continue;
    if (unsupported_kafka_configs().count(name))
      return {error_code::invalid_config,
              "Topic config " + name + " is not supported by troupe"};
    return {error_code::invalid_config, "Unknown topic config name: " + name};
  }
  return {};
}

/// Sets `name` in `s` from a parsed value.
void apply(topic_settings& s, std::string_view name, const parsed& value) {
  auto& log = s.log;
  auto n = [&] { return std::get<int64_t>(value); };
  if (name == segment_bytes)
    log.segment_bytes = static_cast<uint64_t>(n());
  else if (name == segment_ms)
    log.segment_ms = n();
  else if (name == retention_bytes)
    log.retention_bytes = n();
  else if (name == retention_ms)
    log.retention_ms = n();
  else if (name == max_message_bytes)
    log.max_batch_bytes = static_cast<size_t>(n());
  else if (name == delete_retention_ms)
    log.delete_retention_ms = n();
  else if (name == min_compaction_lag_ms)
    log.min_compaction_lag_ms = n();
  else if (name == max_compaction_lag_ms)
    log.max_compaction_lag_ms = n();
  else if (name == min_cleanable_dirty_ratio)
    log.min_cleanable_dirty_ratio = std::get<double>(value);
  else if (name == cleanup_policy) {
    // LogConfig: compact and delete are each "in the list"; an empty list
    // is neither (no retention, no cleaning).
    auto& items = std::get<std::vector<std::string>>(value);
    log.compact =
      std::find(items.begin(), items.end(), "compact") != items.end();
    log.delete_policy =
      std::find(items.begin(), items.end(), "delete") != items.end();
  } else if (name == unclean_leader_election)
    s.unclean_leader_election = std::get<bool>(value);
  else if (name == min_insync_replicas)
    s.min_insync_replicas = static_cast<int32_t>(n());
  else if (name == message_timestamp_type)
    log.log_append_time = std::get<std::string>(value) == "LogAppendTime";
}

topic_settings broker_settings(const cluster_config& broker,
                               const std::string& topic) {
  topic_settings s;
  s.log = default_log_config(broker, topic);
  s.min_insync_replicas = broker.min_insync_replicas;
  s.unclean_leader_election = broker.unclean_leader_election;
  return s;
}

/// Java's String.split(","): trailing empty strings dropped; "" is [""].
std::vector<std::string> java_split_comma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos
                                                             : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (s.empty())
    return out;
  while (!out.empty() && out.back().empty())
    out.pop_back();
  return out;
}

std::string join_comma(const std::vector<std::string>& xs) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out += ',';
    out += xs[i];
  }
  return out;
}

} // namespace

std::optional<int64_t> parse_config_long(std::string_view value) {
  return java_parse_integer(java_trim(value),
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max());
}

// -- the configs troupe supports ------------------------------------------------

std::string to_string(config_value_type type) {
  switch (type) {
    case vt::boolean:
      return "BOOLEAN";
    case vt::int32:
      return "INT";
    case vt::int64:
      return "LONG";
    case vt::float64:
      return "DOUBLE";
    case vt::string:
      return "STRING";
    case vt::list:
      return "LIST";
  }
  return "UNKNOWN";
}

std::string to_string(config_op_type op) {
  switch (op) {
    case config_op_type::set:
      return "SET";
    case config_op_type::remove:
      return "DELETE";
    case config_op_type::append:
      return "APPEND";
    case config_op_type::subtract:
      return "SUBTRACT";
  }
  return "UNKNOWN";
}

const std::vector<topic_config_def>& topic_config_defs() {
  // LogConfig's definition order; synonyms from ServerTopicConfigSynonyms.
  static const std::vector<topic_config_def> defs{
    {segment_bytes, vt::int32, {"log.segment.bytes"}},
    {segment_ms, vt::int64, {"log.roll.ms", "log.roll.hours"}},
    {retention_bytes, vt::int64, {"log.retention.bytes"}},
    {retention_ms,
     vt::int64,
     {"log.retention.ms", "log.retention.minutes", "log.retention.hours"}},
    {max_message_bytes, vt::int32, {"message.max.bytes"}},
    {delete_retention_ms, vt::int64, {"log.cleaner.delete.retention.ms"}},
    {min_compaction_lag_ms, vt::int64, {"log.cleaner.min.compaction.lag.ms"}},
    {max_compaction_lag_ms, vt::int64, {"log.cleaner.max.compaction.lag.ms"}},
    {min_cleanable_dirty_ratio,
     vt::float64,
     {"log.cleaner.min.cleanable.ratio"}},
    {cleanup_policy, vt::list, {"log.cleanup.policy"}},
    {unclean_leader_election, vt::boolean, {"unclean.leader.election.enable"}},
    {min_insync_replicas, vt::int32, {"min.insync.replicas"}},
    {message_timestamp_type, vt::string, {"log.message.timestamp.type"}},
    // No broker synonym: the default is the empty list (nothing throttled).
    {leader_throttled_replicas, vt::list, {}},
    {follower_throttled_replicas, vt::list, {}},
  };
  return defs;
}

const topic_config_def* find_topic_config(std::string_view name) {
  for (auto& d : topic_config_defs())
    if (d.name == name)
      return &d;
  return nullptr;
}

// -- validation -------------------------------------------------------------------

config_error validate_topic_configs(const cluster_config& broker,
                                    const std::string& topic,
                                    const topic_configs& configs) {
  if (auto e = check_names(configs); !e.ok())
    return e;
  // CONFIG.parse over the broker's values with the topic's on top, in
  // definition order; the broker's own values are valid.
  auto s = broker_settings(broker, topic);
  for (auto& def : topic_config_defs()) {
    auto i = configs.find(std::string{def.name});
    if (i == configs.end())
      continue;
    auto v = parse_value(def, i->second);
    if (auto e = std::get_if<config_error>(&v))
      return *e;
    apply(s, def.name, std::get<parsed>(v));
  }
  // LogConfig.validateValues.
  if (s.log.min_compaction_lag_ms > s.log.max_compaction_lag_ms)
    return {error_code::invalid_config,
            "conflict topic config setting min.compaction.lag.ms ("
              + std::to_string(s.log.min_compaction_lag_ms)
              + ") > max.compaction.lag.ms ("
              + std::to_string(s.log.max_compaction_lag_ms) + ")"};
  return {};
}

// -- changes ------------------------------------------------------------------------

config_error alter_topic_configs(const cluster_config& broker,
                                 const std::string& topic,
                                 const topic_configs& current,
                                 const std::vector<config_op>& ops,
                                 bool incremental, topic_configs& out) {
  if (topic.empty())
    return {error_code::invalid_request,
            "Default topic resources are not allowed."};
  std::set<std::string> names;
  for (auto& op : ops)
    if (!names.insert(op.name).second)
      return {error_code::invalid_request,
              "Error due to duplicate config keys"};
  topic_configs next;
  if (!incremental) {
    // ZkAdminManager.alterConfigs: the entries are the new set.
    std::string nulls;
    for (auto& op : ops)
      if (!op.value)
        nulls += (nulls.empty() ? "" : ",") + op.name;
    if (!nulls.empty())
      return {error_code::invalid_request,
              "Null value not supported for : " + nulls};
    for (auto& op : ops)
      next[op.name] = *op.value;
  } else {
    // ConfigAdminManager.prepareIncrementalConfigs.
    next = current;
    for (auto& op : ops) {
      auto value = op.value ? *op.value : std::string{};
      switch (op.op) {
        case config_op_type::set:
          if (!op.value)
            return {error_code::invalid_request,
                    "Null value not supported for : " + op.name};
          next[op.name] = value;
          break;
        case config_op_type::remove:
          next.erase(op.name);
          break;
        case config_op_type::append:
        case config_op_type::subtract: {
          auto def = find_topic_config(op.name);
          if (!def)
            return {error_code::invalid_config,
                    "Unknown topic config name: " + op.name};
          if (def->type != vt::list)
            return {
              error_code::invalid_config,
              std::string{"Config value "}
                + (op.op == config_op_type::append ? "append" : "subtract")
                + " is not allowed for config key: " + op.name};
          // The current value, else LogConfig's own default ("delete" for
          // cleanup.policy, whatever the broker's).
          auto i = next.find(op.name);
          auto old = java_split_comma(i != next.end() ? i->second : "delete");
          auto given = java_split_comma(value);
          std::vector<std::string> result;
          if (op.op == config_op_type::append) {
            // oldValueList ::: newValueList, then distinct.
            for (auto* list : {&old, &given})
              for (auto& x : *list)
                if (std::find(result.begin(), result.end(), x) == result.end())
                  result.push_back(x);
          } else {
            // oldValueList.diff(newValueList): one occurrence per given.
            result = old;
            for (auto& x : given)
              if (auto j = std::find(result.begin(), result.end(), x);
                  j != result.end())
                result.erase(j);
          }
          next[op.name] = join_comma(result);
          break;
        }
        default:
          return {error_code::invalid_request,
                  "Unknown alter config operation type "
                    + std::to_string(static_cast<int>(op.op))};
      }
    }
  }
  if (auto e = validate_topic_configs(broker, topic, next); !e.ok())
    return e;
  out = std::move(next);
  return {};
}

// -- what a topic ends up with -------------------------------------------------------

topic_settings effective_settings(const cluster_config& broker,
                                  const std::string& topic,
                                  const topic_configs& overrides) {
  auto s = broker_settings(broker, topic);
  for (auto& def : topic_config_defs()) {
    auto i = overrides.find(std::string{def.name});
    if (i == overrides.end())
      continue;
    auto v = parse_value(def, i->second);
    if (auto p = std::get_if<parsed>(&v))
      apply(s, def.name, *p);
  }
  return s;
}

bool unclean_leader_election_of(const topic_configs& overrides,
                                bool broker_setting) {
  auto i = overrides.find(std::string{unclean_leader_election});
  if (i == overrides.end())
    return broker_setting;
  auto v = parse_value(*find_topic_config(unclean_leader_election), i->second);
  auto p = std::get_if<parsed>(&v);
  return p ? std::get<bool>(*p) : broker_setting;
}

std::string default_config_value(const cluster_config& broker,
                                 const std::string& topic,
                                 std::string_view name) {
  auto s = broker_settings(broker, topic);
  auto& log = s.log;
  if (name == segment_bytes)
    return std::to_string(log.segment_bytes);
  if (name == segment_ms)
    return std::to_string(log.segment_ms);
  if (name == retention_bytes)
    return std::to_string(log.retention_bytes);
  if (name == retention_ms)
    return std::to_string(log.retention_ms);
  if (name == max_message_bytes)
    return std::to_string(log.max_batch_bytes);
  if (name == delete_retention_ms)
    return std::to_string(log.delete_retention_ms);
  if (name == min_compaction_lag_ms)
    return std::to_string(log.min_compaction_lag_ms);
  if (name == max_compaction_lag_ms)
    return std::to_string(log.max_compaction_lag_ms);
  if (name == min_cleanable_dirty_ratio)
    return java_double_string(log.min_cleanable_dirty_ratio);
  if (name == cleanup_policy) {
    // ConfigDef.convertToString of a LIST: the items joined by ",".
    std::vector<std::string> items;
    if (log.compact)
      items.emplace_back("compact");
    if (log.delete_policy)
      items.emplace_back("delete");
    return join_comma(items);
  }
  if (name == unclean_leader_election)
    return s.unclean_leader_election ? "true" : "false";
  if (name == min_insync_replicas)
    return std::to_string(s.min_insync_replicas);
  if (name == message_timestamp_type)
    return log.log_append_time ? "LogAppendTime" : "CreateTime";
  return {};
}

topic_configs internal_topic_configs(const cluster_config& broker,
                                     const std::string& topic) {
  if (topic != offsets_topic)
    return {};
  return {{std::string{cleanup_policy}, "compact"},
          {std::string{segment_bytes},
           std::to_string(broker.offsets_topic_segment_bytes)}};
}

} // namespace troupe
