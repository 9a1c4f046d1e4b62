#include "domain/zookeeper/kafka_znodes.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "domain/java_hash.hpp"
#include "domain/json_string.hpp"
#include "domain/zookeeper/scala_map_order.hpp"

namespace troupe::zk {

namespace {

using json = nlohmann::json;

// -- writing JSON as Jackson does -------------------------------------------------

std::string json_int_array(const std::vector<int32_t>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0)
      out += ',';
    out += std::to_string(xs[i]);
  }
  out += ']';
  return out;
}

// A JSON object's members, already rendered, written in the order of a
// Scala map over their keys.
struct json_members {
  std::vector<std::pair<std::string, std::string>> members;

  void add(std::string key, std::string rendered_value) {
    members.emplace_back(std::move(key), std::move(rendered_value));
  }

  std::vector<std::string_view> keys() const {
    std::vector<std::string_view> result;
    for (auto& m : members)
      result.emplace_back(m.first);
    return result;
  }

  std::string write(const std::vector<std::string_view>& order) const {
    std::string out = "{";
    for (auto key : order) {
      auto i = std::find_if(members.begin(), members.end(),
                            [key](auto& m) { return m.first == key; });
      if (out.size() > 1)
        out += ',';
      out += json_quote(i->first);
      out += ':';
      out += i->second;
    }
    out += '}';
    return out;
  }

  std::string write_mutable_map(size_t initial_entries) const {
    return write(scala_mutable_map_order(keys(), initial_entries));
  }

  std::string write_immutable_map() const {
    return write(scala_immutable_map_order(keys()));
  }
};

// -- reading JSON as Kafka's JsonValue does --------------------------------------------

// A reader over one parsed object; the first problem is kept as the error.
class json_reader {
public:
  explicit json_reader(const json& object) : object_(object) {
    // nop
  }

  bool has(const char* key) const {
    return object_.contains(key) && !object_.at(key).is_null();
  }

  // DecodeJson.DecodeInt: an integral number within 32 bits.
  int32_t int32(const char* key) {
    if (!object_.contains(key)) {
      fail(std::string{"missing \""} + key + '"');
      return 0;
    }
    int32_t result = 0;
    if (!to_int32(object_.at(key), result))
      fail(std::string{"\""} + key + "\" is not a 32-bit integer");
    return result;
  }

  std::vector<int32_t> int32_array(const char* key) {
    if (!object_.contains(key)) {
      fail(std::string{"missing \""} + key + '"');
      return {};
    }
    return int32_array_of(object_.at(key), key);
  }

  std::vector<int32_t> int32_array_of(const json& value,
                                      std::string_view what) {
    std::vector<int32_t> result;
    if (!value.is_array()) {
      fail('"' + std::string{what} + "\" is not an array");
      return result;
    }
    for (auto& x : value) {
      int32_t n = 0;
      if (!to_int32(x, n)) {
        fail('"' + std::string{what} + "\" holds a non-integer");
        return {};
      }
      result.push_back(n);
    }
    return result;
  }

  std::optional<std::string> optional_string(const char* key) {
    if (!has(key))
      return std::nullopt;
    auto& value = object_.at(key);
    if (!value.is_string()) {
      fail(std::string{"\""} + key + "\" is not a string");
      return std::nullopt;
    }
    return value.get<std::string>();
  }

  const json* optional_object(const char* key) {
    if (!has(key))
      return nullptr;
    auto& value = object_.at(key);
    if (!value.is_object()) {
      fail(std::string{"\""} + key + "\" is not an object");
      return nullptr;
    }
    return &value;
  }

  void fail(std::string why) {
    if (error_.empty())
      error_ = std::move(why);
  }

  const std::string& error() const {
    return error_;
  }

  static bool to_int32(const json& value, int32_t& out) {
    if (value.is_number_unsigned()) {
      auto n = value.get<uint64_t>();
      if (n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        return false;
      out = static_cast<int32_t>(n);
      return true;
    }
    if (value.is_number_integer()) {
      auto n = value.get<int64_t>();
      if (n < std::numeric_limits<int32_t>::min()
          || n > std::numeric_limits<int32_t>::max())
        return false;
      out = static_cast<int32_t>(n);
      return true;
    }
    return false;
  }

private:
  const json& object_;
  std::string error_;
};

// Parses `text` into an object; nlohmann reports errors without throwing
// when asked to, and rejects invalid UTF-8.
bool parse_object(std::string_view text, json& out, std::string& error) {
  out = json::parse(text.begin(), text.end(), nullptr, false);
  if (out.is_discarded()) {
    error = "malformed JSON";
    return false;
  }
  if (!out.is_object()) {
    error = "not a JSON object";
    return false;
  }
  return true;
}

template <class T>
decoded<T> fail_with(std::string_view znode, std::string_view why,
                     std::string_view text) {
  constexpr size_t max_quoted = 200;
  std::string quoted{text.substr(0, max_quoted)};
  if (text.size() > max_quoted)
    quoted += "...";
  return decoded<T>::failure(std::string{znode} + ": " + std::string{why}
                             + " in '" + quoted + "'");
}

std::string upper_case(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// SecurityProtocol.forName upper-cases the name.
std::optional<security_protocol> security_protocol_from(std::string_view name) {
  auto upper = upper_case(name);
  for (auto p :
       {security_protocol::plaintext, security_protocol::ssl,
        security_protocol::sasl_plaintext, security_protocol::sasl_ssl})
    if (to_string(p) == upper)
      return p;
  return std::nullopt;
}

// SocketServerConfigs.listenerListToEndPoints for one entry:
// ^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$ .
bool parse_endpoint(std::string_view text, std::string& listener,
                    std::string& host, int32_t& port) {
  auto sep = text.rfind("://");
  if (sep == std::string_view::npos)
    return false;
  listener = upper_case(text.substr(0, sep));
  auto rest = text.substr(sep + 3);
  auto colon = rest.rfind(':');
  if (colon == std::string_view::npos)
    return false;
  auto host_part = rest.substr(0, colon);
  if (!host_part.empty() && host_part.front() == '[')
    host_part.remove_prefix(1);
  if (!host_part.empty() && host_part.back() == ']')
    host_part.remove_suffix(1);
  for (char c : host_part) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z') || c == '-' || c == '%' || c == '.'
              || c == '_' || c == ':';
    if (!ok)
      return false;
  }
  auto port_text = rest.substr(colon + 1);
  auto p = parse_java_int(port_text);
  if (!p || port_text.front() == '+')
    return false;
  host = std::string{host_part};
  port = *p;
  return true;
}

bool parse_timestamp(const std::optional<std::string>& text, int64_t& out) {
  if (!text || text->empty() || text->size() > 19)
    return false;
  int64_t n = 0;
  for (char c : *text) {
    if (c < '0' || c > '9')
      return false;
    n = n * 10 + (c - '0');
  }
  out = n;
  return true;
}

} // namespace

// -- paths --------------------------------------------------------------------

std::string broker_path(int32_t broker_id) {
  return std::string{broker_ids_path} + '/' + std::to_string(broker_id);
}

std::string topic_path(std::string_view topic) {
  return std::string{topics_path} + '/' + std::string{topic};
}

std::string topic_partitions_path(std::string_view topic) {
  return topic_path(topic) + "/partitions";
}

std::string topic_partition_path(const topic_partition& tp) {
  return topic_partitions_path(tp.topic) + '/' + std::to_string(tp.partition);
}

std::string partition_state_path(const topic_partition& tp) {
  return topic_partition_path(tp) + "/state";
}

std::string delete_topic_path(std::string_view topic) {
  return std::string{delete_topics_path} + '/' + std::string{topic};
}

const std::vector<std::string>& persistent_paths() {
  // ZkData.PersistentZkPaths, with ConfigType.all's entity types.
  static const std::vector<std::string> paths{
    "/consumers",
    "/brokers/ids",
    "/brokers/topics",
    "/config/changes",
    "/admin/delete_topics",
    "/brokers/seqid",
    "/isr_change_notification",
    "/latest_producer_id_block",
    "/log_dir_event_notification",
    "/config/topics",
    "/config/clients",
    "/config/users",
    "/config/brokers",
    "/config/ips",
  };
  return paths;
}

decoded<int32_t> parse_java_int(std::string_view text) {
  using result = decoded<int32_t>;
  auto invalid = [&] {
    return result::failure("'" + std::string{text} + "' is not an integer");
  };
  if (text.empty())
    return invalid();
  bool negative = text.front() == '-';
  auto digits = text;
  if (text.front() == '-' || text.front() == '+')
    digits.remove_prefix(1);
  if (digits.empty())
    return invalid();
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return invalid();
    n = n * 10 + (c - '0');
    if (n > int64_t{std::numeric_limits<int32_t>::max()} + 1)
      return invalid();
  }
  if (negative)
    n = -n;
  if (n < std::numeric_limits<int32_t>::min()
      || n > std::numeric_limits<int32_t>::max())
    return invalid();
  return static_cast<int32_t>(n);
}

// -- /brokers/ids/<id> ------------------------------------------------------------

std::string_view to_string(security_protocol protocol) {
  switch (protocol) {
    case security_protocol::plaintext:
      return "PLAINTEXT";
    case security_protocol::ssl:
      return "SSL";
    case security_protocol::sasl_plaintext:
      return "SASL_PLAINTEXT";
    case security_protocol::sasl_ssl:
      return "SASL_SSL";
  }
  return "PLAINTEXT";
}

std::string connection_string(const broker_endpoint& endpoint) {
  // Utils.formatAddress puts an IPv6 host in brackets.
  std::string host = endpoint.host.find(':') != std::string::npos
                       ? '[' + endpoint.host + ']'
                       : endpoint.host;
  return endpoint.listener + "://" + host + ':' + std::to_string(endpoint.port);
}

decoded<std::vector<broker_endpoint>> parse_listeners(std::string_view text) {
  using result = decoded<std::vector<broker_endpoint>>;
  std::vector<broker_endpoint> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{}
                                           : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (item.empty())
      continue;
    broker_endpoint e;
    if (!parse_endpoint(item, e.listener, e.host, e.port) || e.port < 0
        || e.port > 65535)
      return result::failure("malformed listener '" + std::string{item}
                             + "': expected NAME://host:port");
    e.protocol =
      security_protocol_from(e.listener).value_or(security_protocol::plaintext);
    for (auto& other : out)
      if (other.listener == e.listener || (e.port != 0 && other.port == e.port))
        return result::failure("listener " + e.listener
                               + " repeats a name or port");
    out.push_back(std::move(e));
  }
  return out;
}

security_protocol to_zk(security::listener_protocol p) {
  switch (p) {
    case security::listener_protocol::plaintext:
      return security_protocol::plaintext;
    case security::listener_protocol::ssl:
      return security_protocol::ssl;
    case security::listener_protocol::sasl_plaintext:
      return security_protocol::sasl_plaintext;
    case security::listener_protocol::sasl_ssl:
      return security_protocol::sasl_ssl;
  }
  return security_protocol::plaintext;
}

security::listener_protocol from_zk(security_protocol p) {
  switch (p) {
    case security_protocol::plaintext:
      return security::listener_protocol::plaintext;
    case security_protocol::ssl:
      return security::listener_protocol::ssl;
    case security_protocol::sasl_plaintext:
      return security::listener_protocol::sasl_plaintext;
    case security_protocol::sasl_ssl:
      return security::listener_protocol::sasl_ssl;
  }
  return security::listener_protocol::plaintext;
}

decoded<std::vector<broker_endpoint>> parse_listeners(
  std::string_view text,
  const std::map<std::string, security::listener_protocol>& protocol_map) {
  using result = decoded<std::vector<broker_endpoint>>;
  auto parsed = parse_listeners(text);
  if (!parsed || protocol_map.empty())
    return parsed;
  auto out = std::move(*parsed);
  for (auto& e : out) {
    auto i = protocol_map.find(e.listener);
    if (i == protocol_map.end())
      return result::failure("No security protocol defined for listener "
                             + e.listener);
    e.protocol = to_zk(i->second);
  }
  return out;
}

const broker_endpoint* find_endpoint(const broker_registration& broker,
                                     std::string_view listener) {
  for (auto& endpoint : broker.endpoints)
    if (endpoint.listener == listener)
      return &endpoint;
  return nullptr;
}

std::string encode_broker_registration(const broker_registration& broker) {
  const broker_endpoint* plaintext = nullptr;
  for (auto& endpoint : broker.endpoints)
    if (endpoint.protocol == security_protocol::plaintext
        && endpoint.listener != troupe_listener) {
      plaintext = &endpoint;
      break;
    }
  std::string endpoints = "[";
  for (auto& endpoint : broker.endpoints) {
    if (endpoints.size() > 1)
      endpoints += ',';
    endpoints += json_quote(connection_string(endpoint));
  }
  endpoints += ']';
  // `.toMap` of (listener -> protocol): a repeated listener keeps its first
  // place and its last protocol.
  json_members protocols;
  for (auto& endpoint : broker.endpoints) {
    auto value = json_quote(to_string(endpoint.protocol));
    auto i =
      std::find_if(protocols.members.begin(), protocols.members.end(),
                   [&](auto& m) { return m.first == endpoint.listener; });
    if (i != protocols.members.end())
      i->second = value;
    else
      protocols.add(endpoint.listener, value);
  }
  // BrokerIdZNode.encode: a mutable.Map of six entries, then rack, the
  // listener map and the features (always empty in ZooKeeper mode).
  json_members m;
  m.add("version", "5");
  m.add("host", plaintext && !plaintext->host.empty()
                  ? json_quote(plaintext->host)
                  : "null");
  m.add("port", std::to_string(plaintext ? plaintext->port : -1));
  m.add("endpoints", endpoints);
  m.add("jmx_port", std::to_string(broker.jmx_port));
  m.add("timestamp", json_quote(std::to_string(broker.timestamp_ms)));
  if (broker.rack)
    m.add("rack", json_quote(*broker.rack));
  m.add("listener_security_protocol_map", protocols.write_immutable_map());
  m.add("features", "{}");
  constexpr size_t created_with = 6;
  return m.write_mutable_map(created_with);
}

decoded<broker_registration> decode_broker_registration(int32_t broker_id,
                                                        std::string_view text) {
  auto znode = "/brokers/ids/" + std::to_string(broker_id);
  using result = decoded<broker_registration>;
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<broker_registration>(znode, error, text);
    json_reader in{doc};
    broker_registration broker;
    broker.id = broker_id;
    broker.version = in.int32("version");
    broker.jmx_port = in.int32("jmx_port");
    if (!in.error().empty())
      return fail_with<broker_registration>(znode, in.error(), text);
    if (broker.version < 1)
      return fail_with<broker_registration>(
        znode, "unsupported version of broker registration", text);
    if (broker.version == 1) {
      auto host = in.optional_string("host");
      auto port = in.int32("port");
      if (!host)
        in.fail("missing \"host\"");
      if (!in.error().empty())
        return fail_with<broker_registration>(znode, in.error(), text);
      broker.endpoints.push_back(
        {"PLAINTEXT", *host, port, security_protocol::plaintext});
    } else {
      // Without a map, each listener is named after its security protocol
      // (SocketServerConfigs.DEFAULT_NAME_TO_SECURITY_PROTO).
      std::map<std::string, security_protocol> protocols{
        {"PLAINTEXT", security_protocol::plaintext},
        {"SSL", security_protocol::ssl},
        {"SASL_PLAINTEXT", security_protocol::sasl_plaintext},
        {"SASL_SSL", security_protocol::sasl_ssl},
      };
      if (auto* map = in.optional_object("listener_security_protocol_map")) {
        protocols.clear();
        for (auto& [name, value] : map->items()) {
          auto protocol = value.is_string()
                            ? security_protocol_from(value.get<std::string>())
                            : std::nullopt;
          if (!protocol)
            return fail_with<broker_registration>(
              znode, "unknown security protocol for listener " + name, text);
          protocols[upper_case(name)] = *protocol;
        }
      }
      if (!doc.contains("endpoints") || !doc.at("endpoints").is_array())
        in.fail("\"endpoints\" is not an array");
      if (!in.error().empty())
        return fail_with<broker_registration>(znode, in.error(), text);
      for (auto& entry : doc.at("endpoints")) {
        broker_endpoint endpoint;
        if (!entry.is_string()
            || !parse_endpoint(entry.get<std::string>(), endpoint.listener,
                               endpoint.host, endpoint.port))
          return fail_with<broker_registration>(
            znode, "malformed endpoint " + entry.dump(), text);
        auto protocol = protocols.find(endpoint.listener);
        if (protocol == protocols.end())
          return fail_with<broker_registration>(
            znode,
            "no security protocol defined for listener " + endpoint.listener,
            text);
        endpoint.protocol = protocol->second;
        broker.endpoints.push_back(std::move(endpoint));
      }
    }
    broker.rack = in.optional_string("rack");
    if (!parse_timestamp(in.optional_string("timestamp"), broker.timestamp_ms))
      broker.timestamp_ms = 0; // Kafka does not read it either
    if (!in.error().empty())
      return fail_with<broker_registration>(znode, in.error(), text);
    return broker;
  } catch (const std::exception& e) {
    return result::failure(znode + ": " + e.what());
  }
}

// -- /controller and /controller_epoch ----------------------------------------------

std::string encode_controller(int32_t broker_id, int64_t timestamp_ms) {
  // An immutable Map of three entries keeps insertion order.
  json_members m;
  m.add("version", "1");
  m.add("brokerid", std::to_string(broker_id));
  m.add("timestamp", json_quote(std::to_string(timestamp_ms)));
  return m.write_immutable_map();
}

decoded<controller_registration> decode_controller(std::string_view text) {
  using result = decoded<controller_registration>;
  constexpr std::string_view znode = "/controller";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<controller_registration>(znode, error, text);
    json_reader in{doc};
    controller_registration c;
    c.broker_id = in.int32("brokerid");
    if (in.has("version"))
      c.version = in.int32("version");
    if (in.has("kraftControllerEpoch"))
      c.kraft_controller_epoch = in.int32("kraftControllerEpoch");
    if (!parse_timestamp(in.optional_string("timestamp"), c.timestamp_ms))
      c.timestamp_ms = 0;
    if (!in.error().empty())
      return fail_with<controller_registration>(znode, in.error(), text);
    return c;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

std::string encode_controller_epoch(int32_t epoch) {
  return std::to_string(epoch);
}

decoded<int32_t> decode_controller_epoch(std::string_view text) {
  auto epoch = parse_java_int(text);
  if (!epoch)
    return decoded<int32_t>::failure("/controller_epoch: " + epoch.error());
  return epoch;
}

// -- /brokers/topics/<t> ---------------------------------------------------------------

std::string encode_topic_assignment(const topic_assignment& topic) {
  // Three mutable.Maps built with `+=`; a partition appears under
  // adding/removing_replicas only while that list is non-empty.
  json_members partitions;
  json_members adding;
  json_members removing;
  for (auto& [partition, assignment] : topic.partitions) {
    auto key = std::to_string(partition);
    partitions.add(key, json_int_array(assignment.replicas));
    if (!assignment.adding_replicas.empty())
      adding.add(key, json_int_array(assignment.adding_replicas));
    if (!assignment.removing_replicas.empty())
      removing.add(key, json_int_array(assignment.removing_replicas));
  }
  json_members m;
  m.add("version", "3");
  m.add("partitions", partitions.write_mutable_map(0));
  m.add("adding_replicas", adding.write_mutable_map(0));
  m.add("removing_replicas", removing.write_mutable_map(0));
  if (topic.topic_id)
    m.add("topic_id", json_quote(to_string(*topic.topic_id)));
  constexpr size_t created_with = 4;
  return m.write_mutable_map(created_with);
}

decoded<topic_assignment> decode_topic_assignment(std::string_view text) {
  using result = decoded<topic_assignment>;
  constexpr std::string_view znode = "/brokers/topics/<topic>";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<topic_assignment>(znode, error, text);
    json_reader in{doc};
    topic_assignment topic;
    if (auto id = in.optional_string("topic_id")) {
      auto parsed = uuid_from_string(*id);
      if (!parsed)
        return fail_with<topic_assignment>(znode, "malformed topic_id " + *id,
                                           text);
      topic.topic_id = *parsed;
    }
    auto* adding = in.optional_object("adding_replicas");
    auto* removing = in.optional_object("removing_replicas");
    auto* partitions = in.optional_object("partitions");
    if (!in.error().empty())
      return fail_with<topic_assignment>(znode, in.error(), text);
    auto replicas_in = [&](const json* object, const std::string& key) {
      if (object == nullptr || !object->contains(key))
        return std::vector<int32_t>{};
      return in.int32_array_of(object->at(key), key);
    };
    if (partitions != nullptr) {
      for (auto& [key, replicas] : partitions->items()) {
        auto partition = parse_java_int(key);
        if (!partition)
          return fail_with<topic_assignment>(znode, partition.error(), text);
        replica_assignment assignment;
        assignment.replicas = in.int32_array_of(replicas, key);
        assignment.adding_replicas = replicas_in(adding, key);
        assignment.removing_replicas = replicas_in(removing, key);
        topic.partitions[*partition] = std::move(assignment);
      }
    }
    if (!in.error().empty())
      return fail_with<topic_assignment>(znode, in.error(), text);
    return topic;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

// -- /brokers/topics/<t>/partitions/<p>/state ------------------------------------------

std::string encode_partition_state(const leader_isr_state& state) {
  // An immutable Map of five entries (a CHAMP HashMap), plus the recovery
  // state only when it is not RECOVERED.
  json_members m;
  m.add("version", "1");
  m.add("leader", std::to_string(state.leader));
  m.add("leader_epoch", std::to_string(state.leader_epoch));
  m.add("controller_epoch", std::to_string(state.controller_epoch));
  m.add("isr", json_int_array(state.isr));
  if (state.recovery != leader_recovery_state::recovered)
    m.add("leader_recovery_state",
          std::to_string(static_cast<int>(state.recovery)));
  return m.write_immutable_map();
}

decoded<leader_isr_state> decode_partition_state(std::string_view text) {
  using result = decoded<leader_isr_state>;
  constexpr std::string_view znode = "partition state";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<leader_isr_state>(znode, error, text);
    json_reader in{doc};
    leader_isr_state state;
    state.leader = in.int32("leader");
    state.leader_epoch = in.int32("leader_epoch");
    state.isr = in.int32_array("isr");
    state.controller_epoch = in.int32("controller_epoch");
    if (in.has("leader_recovery_state")) {
      auto value = in.int32("leader_recovery_state");
      if (value == 0 || value == 1)
        state.recovery = static_cast<leader_recovery_state>(value);
      else
        in.fail("unknown leader_recovery_state " + std::to_string(value));
    }
    if (!in.error().empty())
      return fail_with<leader_isr_state>(znode, in.error(), text);
    return state;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

// -- /cluster/id ---------------------------------------------------------------------------

std::string encode_cluster_id(std::string_view cluster_id) {
  json_members m;
  m.add("version", json_quote("1"));
  m.add("id", json_quote(cluster_id));
  return m.write_immutable_map();
}

decoded<std::string> decode_cluster_id(std::string_view text) {
  using result = decoded<std::string>;
  constexpr std::string_view znode = "/cluster/id";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<std::string>(znode, error, text);
    json_reader in{doc};
    auto id = in.optional_string("id");
    if (!id)
      in.fail("missing \"id\"");
    if (!in.error().empty())
      return fail_with<std::string>(znode, in.error(), text);
    return *id;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

// -- /latest_producer_id_block ----------------------------------------------------------

std::string encode_producer_id_block(const producer_id_block& block) {
  json_members m;
  m.add("version", "1");
  m.add("broker", std::to_string(block.broker_id));
  m.add("block_start", json_quote(std::to_string(block.first)));
  m.add("block_end", json_quote(std::to_string(block.last)));
  return m.write_immutable_map();
}

namespace {

bool parse_long_string(const json& v, int64_t& out) {
  std::string text;
  if (v.is_string())
    text = v.get<std::string>();
  else if (v.is_number_integer())
    text = std::to_string(v.get<int64_t>());
  else
    return false;
  if (text.empty())
    return false;
  size_t used = 0;
  try {
    out = std::stoll(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

} // namespace

decoded<producer_id_block> decode_producer_id_block(std::string_view text) {
  using result = decoded<producer_id_block>;
  constexpr std::string_view znode = "/latest_producer_id_block";
  producer_id_block b;
  if (text.empty())
    return b;
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<producer_id_block>(znode, error, text);
    json_reader in{doc};
    b.broker_id = in.int32("broker");
    if (!in.error().empty())
      return fail_with<producer_id_block>(znode, in.error(), text);
    if (!doc.contains("block_start") || !doc.contains("block_end")
        || !parse_long_string(doc["block_start"], b.first)
        || !parse_long_string(doc["block_end"], b.last) || b.first < 0
        || b.last < b.first)
      return fail_with<producer_id_block>(
        znode, "block_start/block_end missing or not a range", text);
    return b;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

decoded<producer_id_block>
next_producer_id_block(const producer_id_block& previous, int32_t broker_id,
                       int32_t size) {
  using result = decoded<producer_id_block>;
  if (size <= 0)
    return result::failure("producer id block size must be positive");
  auto first = previous.last + 1;
  if (first > std::numeric_limits<int64_t>::max() - size)
    return result::failure("Exhausted all producerIds as the next block's end "
                           "producerId has exceeded the int64 type limit");
  return producer_id_block{broker_id, first, first + size - 1};
}

// -- /config/topics/<t>, /config/changes ------------------------------------------

namespace {

/// The order a JDK 9+ java.util.Properties iterates its keys when they were
/// put in the order given: its ConcurrentHashMap (initial capacity 8, a
/// table of 16) walks its bins in index order, each bin in insertion order;
/// at 12 entries (three quarters of the table) it doubles, and each bin is
/// split as ConcurrentHashMap.transfer splits it: the tail from the last
/// change of the new bit keeps its order, the nodes before it are prepended
/// one by one.
std::vector<std::string_view>
java_properties_order(const std::vector<std::string_view>& keys) {
  struct node {
    std::string_view key;
    uint32_t hash;
  };
  auto spread = [](std::string_view k) {
    auto h = static_cast<uint32_t>(java_string_hash(k));
    return (h ^ (h >> 16)) & 0x7fffffffu;
  };
  std::vector<std::vector<node>> table(16);
  size_t count = 0;
  size_t threshold = 12;
  for (auto k : keys) {
    auto h = spread(k);
    auto& bin = table[h & (table.size() - 1)];
    if (std::any_of(bin.begin(), bin.end(),
                    [k](const node& n) { return n.key == k; }))
      continue;
    bin.push_back({k, h});
    if (++count < threshold)
      continue;
    auto n = table.size();
    std::vector<std::vector<node>> next(2 * n);
    for (size_t i = 0; i < n; ++i) {
      auto& old = table[i];
      if (old.empty())
        continue;
      // The run at the end whose nodes all go the same way stays as is.
      size_t last_run = 0;
      auto run_bit = old[0].hash & n;
      for (size_t j = 1; j < old.size(); ++j)
        if ((old[j].hash & n) != run_bit) {
          run_bit = old[j].hash & n;
          last_run = j;
        }
      std::vector<node> low;
      std::vector<node> high;
      auto& tail = run_bit == 0 ? low : high;
      tail.assign(old.begin() + static_cast<std::ptrdiff_t>(last_run),
                  old.end());
      for (size_t j = 0; j < last_run; ++j) {
        auto& dest = (old[j].hash & n) == 0 ? low : high;
        dest.insert(dest.begin(), old[j]);
      }
      next[i] = std::move(low);
      next[i + n] = std::move(high);
    }
    table = std::move(next);
    threshold = table.size() - table.size() / 4;
  }
  std::vector<std::string_view> order;
  for (auto& bin : table)
    for (auto& n : bin)
      order.push_back(n.key);
  return order;
}

} // namespace

std::string topic_config_path(std::string_view topic) {
  return std::string{config_topics_path} + '/' + std::string{topic};
}

std::string topic_entity_path(std::string_view topic) {
  return "topics/" + std::string{topic};
}

// -- /admin/reassign_partitions --------------------------------------------------

std::string encode_reassign_partitions(const partition_reassignments& r) {
  // Map("version" -> 1, "partitions" -> [Map(topic, partition, replicas)]):
  // small Scala Maps keep insertion order.
  std::string parts;
  for (auto& [tp, replicas] : r) {
    if (!parts.empty())
      parts += ',';
    parts += "{\"topic\":" + json_quote(tp.first)
             + ",\"partition\":" + std::to_string(tp.second)
             + ",\"replicas\":" + json_int_array(replicas) + "}";
  }
  return "{\"version\":1,\"partitions\":[" + parts + "]}";
}

decoded<partition_reassignments>
decode_reassign_partitions(std::string_view text) {
  using result = decoded<partition_reassignments>;
  constexpr std::string_view znode = "/admin/reassign_partitions";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<partition_reassignments>(znode, error, text);
    partition_reassignments out;
    if (!doc.contains("partitions") || doc["partitions"].is_null())
      return out;
    auto& parts = doc["partitions"];
    if (!parts.is_array())
      return fail_with<partition_reassignments>(
        znode, "\"partitions\" is not an array", text);
    for (auto& p : parts) {
      if (!p.is_object())
        return fail_with<partition_reassignments>(
          znode, "a partition entry is not an object", text);
      json_reader in{p};
      auto topic = in.optional_string("topic");
      auto partition = in.int32("partition");
      auto replicas = in.int32_array("replicas");
      if (!topic && in.error().empty())
        in.fail("missing \"topic\"");
      if (!in.error().empty())
        return fail_with<partition_reassignments>(znode, in.error(), text);
      out[{*topic, partition}] = std::move(replicas);
    }
    return out;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

std::string broker_config_path(int32_t broker_id) {
  return "/config/brokers/" + std::to_string(broker_id);
}

std::string broker_entity_path(int32_t broker_id) {
  return "brokers/" + std::to_string(broker_id);
}

std::string encode_topic_config(const topic_configs& configs) {
  std::vector<std::string_view> keys;
  for (auto& [k, v] : configs)
    keys.emplace_back(k);
  std::string inner = "{";
  for (auto k : java_properties_order(keys)) {
    if (inner.size() > 1)
      inner += ',';
    inner += json_quote(k);
    inner += ':';
    inner += json_quote(configs.at(std::string{k}));
  }
  inner += '}';
  // Map("version" -> 1, "config" -> config).asJava: a Scala Map2 keeps
  // insertion order.
  return "{\"version\":1,\"config\":" + inner + "}";
}

decoded<topic_configs> decode_topic_config(std::string_view text) {
  using result = decoded<topic_configs>;
  constexpr std::string_view znode = "/config/topics/<t>";
  topic_configs out;
  if (text.empty())
    return out;
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<topic_configs>(znode, error, text);
    json_reader in{doc};
    auto config = in.optional_object("config");
    if (!in.error().empty())
      return fail_with<topic_configs>(znode, in.error(), text);
    if (!config)
      return out;
    for (auto& [k, v] : config->items()) {
      if (!v.is_string())
        return fail_with<topic_configs>(znode, "config \"" + k
                                                 + "\" is not a string",
                                        text);
      out[k] = v.get<std::string>();
    }
    return out;
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

std::string encode_config_change(std::string_view entity_path) {
  return "{\"version\":2,\"entity_path\":" + json_quote(entity_path) + "}";
}

decoded<std::string> decode_config_change(std::string_view text) {
  using result = decoded<std::string>;
  constexpr std::string_view znode = "/config/changes/config_change_";
  try {
    json doc;
    std::string error;
    if (!parse_object(text, doc, error))
      return fail_with<std::string>(znode, error, text);
    json_reader in{doc};
    auto version = in.int32("version");
    if (!in.error().empty())
      return fail_with<std::string>(znode, in.error(), text);
    if (version == 2) {
      auto path = in.optional_string("entity_path");
      if (!path || !in.error().empty())
        return fail_with<std::string>(znode, "no \"entity_path\"", text);
      return *path;
    }
    if (version == 1) {
      auto type = in.optional_string("entity_type");
      auto name = in.optional_string("entity_name");
      if (!type || !name || !in.error().empty())
        return fail_with<std::string>(
          znode, "no \"entity_type\" and \"entity_name\"", text);
      return *type + '/' + *name;
    }
    return fail_with<std::string>(
      znode, "unknown version " + std::to_string(version), text);
  } catch (const std::exception& e) {
    return result::failure(std::string{znode} + ": " + e.what());
  }
}

std::string topic_of_entity_path(std::string_view entity_path) {
  constexpr std::string_view prefix = "topics/";
  if (entity_path.substr(0, prefix.size()) != prefix)
    return {};
  return std::string{entity_path.substr(prefix.size())};
}

} // namespace troupe::zk
