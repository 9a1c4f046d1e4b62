#include "domain/zookeeper/acl_znodes.hpp"

#include <nlohmann/json.hpp>

#include "domain/json_string.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"

namespace troupe::zk {

namespace {

using json = nlohmann::json;
using security::pattern_type;
using security::resource_type;

template <class T>
decoded<T> failure(std::string_view znode, std::string_view why,
                   std::string_view text) {
  constexpr size_t max_quoted = 200;
  std::string quoted{text.substr(0, max_quoted)};
  if (text.size() > max_quoted)
    quoted += "...";
  return decoded<T>::failure(std::string{znode} + ": " + std::string{why}
                             + " in '" + quoted + "'");
}

/// Java's enum names (ResourceType.name(), PatternType.name()).
std::string_view enum_name(resource_type x) {
  switch (x) {
    case resource_type::topic:
      return "TOPIC";
    case resource_type::group:
      return "GROUP";
    case resource_type::cluster:
      return "CLUSTER";
    case resource_type::transactional_id:
      return "TRANSACTIONAL_ID";
    case resource_type::delegation_token:
      return "DELEGATION_TOKEN";
    case resource_type::user:
      return "USER";
    case resource_type::any:
      return "ANY";
    default:
      return "UNKNOWN";
  }
}

std::string_view enum_name(pattern_type x) {
  switch (x) {
    case pattern_type::literal:
      return "LITERAL";
    case pattern_type::prefixed:
      return "PREFIXED";
    case pattern_type::match:
      return "MATCH";
    case pattern_type::any:
      return "ANY";
    default:
      return "UNKNOWN";
  }
}

/// A concrete resource type named as Kafka names it (fromString is
/// case-insensitive and takes both spellings).
std::optional<resource_type> concrete_type(std::string_view text) {
  auto t = security::parse_resource_type(text);
  if (!t || *t == resource_type::any || *t == resource_type::unknown)
    return std::nullopt;
  return t;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

} // namespace

const std::vector<std::string>& acl_persistent_paths() {
  static const std::vector<std::string> paths{
    std::string{literal_acl_path},
    std::string{prefixed_acl_path},
    std::string{literal_acl_changes_path},
    std::string{extended_acl_changes_path},
    std::string{config_users_path},
  };
  return paths;
}

std::string acl_store_path(pattern_type pattern) {
  switch (pattern) {
    case pattern_type::literal:
      return std::string{literal_acl_path};
    case pattern_type::prefixed:
      return std::string{prefixed_acl_path};
    default:
      return {};
  }
}

std::string resource_acl_path(const security::resource_pattern& p) {
  return acl_store_path(p.pattern) + '/' + std::string{to_string(p.type)}
         + '/' + p.name;
}

std::optional<security::resource_pattern>
resource_of_path(pattern_type pattern, std::string_view type_dir,
                 std::string_view name) {
  auto t = concrete_type(type_dir);
  if (!t || name.empty())
    return std::nullopt;
  return security::resource_pattern{*t, std::string{name}, pattern};
}

std::string
encode_resource_acls(const std::vector<security::access_entry>& acls) {
  // Kafka 3.9's AclEntry.toJsonCompatibleMap and toMap fill
  // java.util.HashMaps: their iteration order by String.hashCode is "acls"
  // before "version", and principal, permissionType, host, operation. The
  // entries come in the given order (Kafka's come in a HashSet's, which
  // varies from one JVM to the next; its readers take any order).
  std::string out = "{\"acls\":[";
  for (size_t i = 0; i < acls.size(); ++i) {
    auto& e = acls[i];
    if (i > 0)
      out += ',';
    out += "{\"principal\":" + json_quote(e.principal)
           + ",\"permissionType\":"
           + json_quote(std::string{to_string(e.permission)})
           + ",\"host\":" + json_quote(e.host) + ",\"operation\":"
           + json_quote(std::string{to_string(e.operation)}) + '}';
  }
  out += "],\"version\":1}";
  return out;
}

decoded<std::vector<security::access_entry>>
decode_resource_acls(std::string_view text) {
  using entries = std::vector<security::access_entry>;
  constexpr std::string_view znode = "/kafka-acl/<type>/<name>";
  entries out;
  if (text.empty())
    return out;
  auto doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return failure<entries>(znode, "not a JSON object", text);
  auto v = doc.find("version");
  if (v == doc.end() || !v->is_number_integer() || v->get<int64_t>() != 1)
    return failure<entries>(znode, "version is not 1", text);
  auto acls = doc.find("acls");
  if (acls == doc.end() || !acls->is_array())
    return failure<entries>(znode, "missing \"acls\"", text);
  for (auto& item : *acls) {
    if (!item.is_object())
      return failure<entries>(znode, "an ACL is not an object", text);
    auto str = [&item](const char* key) -> std::optional<std::string> {
      auto i = item.find(key);
      if (i == item.end() || !i->is_string())
        return std::nullopt;
      return i->get<std::string>();
    };
    auto principal = str("principal");
    auto permission = str("permissionType");
    auto operation = str("operation");
    auto host = str("host");
    if (!principal || !permission || !operation || !host)
      return failure<entries>(znode, "an ACL lacks a field", text);
    // SecurityUtils.parseKafkaPrincipal: "Type:name".
    auto colon = principal->find(':');
    if (colon == std::string::npos || colon == 0)
      return failure<entries>(znode, "bad principal " + *principal, text);
    auto p = security::parse_permission_type(*permission);
    auto o = security::parse_acl_operation(*operation);
    if (!p || !o)
      return failure<entries>(znode, "unknown operation or permission",
                              text);
    out.push_back({*principal, *host, *o, *p});
  }
  return out;
}

std::string_view acl_changes_path(pattern_type pattern) {
  return pattern == pattern_type::literal ? literal_acl_changes_path
                                          : extended_acl_changes_path;
}

std::string encode_acl_change(const security::resource_pattern& p) {
  if (p.pattern == pattern_type::literal)
    return std::string{enum_name(p.type)} + ':' + p.name;
  // ExtendedAclChangeEvent through Jackson: its creator properties in
  // declaration order.
  return "{\"version\":1,\"resourceType\":"
         + json_quote(std::string{enum_name(p.type)})
         + ",\"name\":" + json_quote(p.name) + ",\"patternType\":"
         + json_quote(std::string{enum_name(p.pattern)}) + '}';
}

decoded<security::resource_pattern> decode_acl_change(std::string_view data,
                                                      bool extended) {
  using result = decoded<security::resource_pattern>;
  if (!extended) {
    constexpr std::string_view znode = "/kafka-acl-changes";
    auto colon = data.find(':');
    if (colon == std::string_view::npos)
      return failure<security::resource_pattern>(
        znode, "expected a string in format ResourceType:ResourceName", data);
    auto t = concrete_type(data.substr(0, colon));
    if (!t)
      return failure<security::resource_pattern>(znode, "unknown resource type",
                                                 data);
    return result{security::resource_pattern{
      *t, std::string{data.substr(colon + 1)}, pattern_type::literal}};
  }
  constexpr std::string_view znode = "/kafka-acl-extended-changes";
  auto doc = json::parse(data.begin(), data.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return failure<security::resource_pattern>(znode, "not a JSON object",
                                               data);
  auto v = doc.find("version");
  auto t = doc.find("resourceType");
  auto n = doc.find("name");
  auto p = doc.find("patternType");
  if (v == doc.end() || !v->is_number_integer() || v->get<int64_t>() > 1
      || t == doc.end() || !t->is_string() || n == doc.end()
      || !n->is_string() || p == doc.end() || !p->is_string())
    return failure<security::resource_pattern>(znode, "not an ACL change event",
                                               data);
  auto type = concrete_type(t->get<std::string>());
  auto pattern = security::parse_pattern_type(p->get<std::string>());
  if (!type || !pattern || *pattern != pattern_type::prefixed)
    return failure<security::resource_pattern>(
      znode, "unknown resource or pattern type", data);
  return result{
    security::resource_pattern{*type, n->get<std::string>(), *pattern}};
}

std::string sanitize_entity_name(std::string_view name) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                 || (c >= '0' && c <= '9') || c == '.' || c == '-'
                 || c == '_';
    if (plain) {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += "%20"; // URLEncoder's '+', as Sanitizer rewrites it
    } else {
      // '*' too: URLEncoder keeps it, Sanitizer writes %2A.
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

std::string desanitize_entity_name(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '+') {
      out += ' ';
    } else if (name[i] == '%' && i + 2 < name.size()
               && hex_value(name[i + 1]) >= 0
               && hex_value(name[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(name[i + 1]) * 16
                               + hex_value(name[i + 2]));
      i += 2;
    } else {
      out += name[i];
    }
  }
  return out;
}

std::string user_config_path(std::string_view user) {
  return std::string{config_users_path} + '/' + sanitize_entity_name(user);
}

std::string user_entity_path(std::string_view user) {
  return "users/" + sanitize_entity_name(user);
}

std::string user_of_entity_path(std::string_view entity_path) {
  constexpr std::string_view prefix = "users/";
  if (entity_path.compare(0, prefix.size(), prefix) != 0)
    return {};
  auto rest = entity_path.substr(prefix.size());
  if (rest.empty() || rest.find('/') != std::string_view::npos)
    return {};
  return desanitize_entity_name(rest);
}

std::map<security::scram_mechanism, security::scram_credential>
scram_of_user_config(const topic_configs& config) {
  std::map<security::scram_mechanism, security::scram_credential> out;
  for (auto m : {security::scram_mechanism::sha256,
                 security::scram_mechanism::sha512}) {
    auto i = config.find(std::string{to_string(m)});
    if (i == config.end())
      continue;
    if (auto c = security::parse_scram_credential(i->second))
      out[m] = std::move(*c);
  }
  return out;
}

topic_configs with_scram(
  topic_configs config,
  const std::map<security::scram_mechanism, security::scram_credential>&
    credentials) {
  for (auto m : {security::scram_mechanism::sha256,
                 security::scram_mechanism::sha512})
    config.erase(std::string{to_string(m)});
  for (auto& [m, c] : credentials)
    config[std::string{to_string(m)}] = security::format_scram_credential(c);
  return config;
}

} // namespace troupe::zk
