#include "domain/properties.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "domain/consumer_group/server_assignor.hpp"
#include "domain/log/log_defaults.hpp"
#include "domain/security/principal_mapping.hpp"
#include "domain/security/sasl.hpp"

namespace troupe {

namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && ws(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && ws(s.back()))
    s.remove_suffix(1);
  return s;
}

template <class T>
bool parse_int(std::string_view text, T& out, T min, T max) {
  int64_t value = 0;
  auto [ptr, ec] =
    std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size()
      || value < static_cast<int64_t>(min) || value > static_cast<int64_t>(max))
    return false;
  out = static_cast<T>(value);
  return true;
}

/// A Java double as Kafka's ConfigDef reads it (Double.parseDouble), in
/// [min, max].
bool parse_double(std::string_view text, double& out, double min, double max) {
  std::string copy{text};
  if (copy.empty() || copy.front() == ' ')
    return false;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || errno == ERANGE
      || !(value >= min && value <= max))
    return false;
  out = value;
  return true;
}

bool parse_bool(std::string_view text, bool& out) {
  if (text == "true") {
    out = true;
    return true;
  }
  if (text == "false") {
    out = false;
    return true;
  }
  return false;
}

const std::vector<property_doc> docs = {
  {"troupe.brokers", "3", "brokers hosted by this process"},
  {"troupe.scheduler.threads", "0", "actor worker threads (0: one per core)"},
  {"troupe.scheduler.policy", "sharing", "sharing | stealing"},
  {"advertised.host", "127.0.0.1", "host each broker advertises"},
  {"port", "9092", "port of broker 0; broker i uses port + i"},
  {"offsets.topic.num.partitions", "50",
   "partitions of __consumer_offsets (coordinator lookup modulus)"},
  {"num.partitions", "1", "partitions of an auto-created topic"},
  {"default.replication.factor", "1", "replication factor of a new topic"},
  {"auto.create.topics.enable", "true", "create topics on first metadata use"},
  {"log.dirs", "/tmp/troupe-logs",
   "where logs and the controller's metadata are kept"},
  {"unclean.leader.election.enable", "false",
   "let an out-of-sync replica lead when no in-sync one is alive"},
  {"auto.leader.rebalance.enable", "true",
   "move leadership back to preferred replicas (a cluster of processes)"},
  {"leader.imbalance.per.broker.percentage", "10",
   "share of a broker's preferred leaderships it may lack before they move "
   "back"},
  {"leader.imbalance.check.interval.seconds", "300",
   "how often the controller checks the leader imbalance"},
  {"min.insync.replicas", "1", "in-sync replicas acks=all needs"},
  {"log.segment.bytes", "1073741824", "size at which a segment file rolls"},
  {"log.retention.bytes", "-1", "largest log per partition (-1: no limit)"},
  {"log.retention.ms", "604800000", "oldest data kept"},
  {"log.retention.check.interval.ms", "300000", "how often retention runs"},
  {"log.flush.interval.messages", "9223372036854775807",
   "fsync after this many messages"},
  {"log.flush.interval.ms", "9223372036854775807", "fsync after this long"},
  {"message.max.bytes", "1048588", "largest record batch accepted"},
  {"log.cleanup.policy", "delete",
   "delete | compact | compact,delete: what happens to old segments"},
  {"log.roll.ms", "604800000",
   "roll the active segment once its first batch is this old"},
  {"log.cleaner.enable", "true", "run the log cleaner on compacted topics"},
  {"log.cleaner.backoff.ms", "15000",
   "the cleaner's pause when no log needs cleaning"},
  {"log.cleaner.io.max.bytes.per.second", "1.7976931348623157E308",
   "the cleaner's read and write throttle"},
  {"log.cleaner.min.cleanable.ratio", "0.5",
   "dirty/cleanable bytes at which a log is cleaned"},
  {"log.cleaner.delete.retention.ms", "86400000",
   "how long a tombstone survives after cleaning"},
  {"log.cleaner.min.compaction.lag.ms", "0",
   "records younger than this are not compacted"},
  {"log.cleaner.max.compaction.lag.ms", "9223372036854775807",
   "records older than this are compacted whatever the dirty ratio"},
  {"offsets.topic.segment.bytes", "104857600",
   "segment size of __consumer_offsets (compacted)"},
  {"replica.lag.time.max.ms", "30000",
   "a follower not caught up for this long leaves the ISR"},
  {"group.initial.rebalance.delay.ms", "3000",
   "wait for more members before the first rebalance of an empty group"},
  {"group.min.session.timeout.ms", "6000", "smallest session timeout"},
  {"group.max.session.timeout.ms", "1800000", "largest session timeout"},
  {"group.max.size", "2147483647", "most members a group may have"},
  {"offset.metadata.max.bytes", "4096", "largest offset commit metadata"},
  {"offsets.commit.timeout.ms", "5000",
   "how long a commit waits for __consumer_offsets to hold it"},
  {"offsets.retention.minutes", "10080",
   "how long committed offsets outlive their group's last member (KIP-211) "
   "or, without a group, their commit"},
  {"offsets.retention.check.interval.ms", "600000",
   "how often the coordinators look for expired offsets"},
  {"replica.fetch.wait.max.ms", "500", "a follower's fetch long-poll"},
  {"replica.fetch.backoff.ms", "1000", "a follower's pause after an error"},
  {"max.incremental.fetch.session.cache.slots", "1000",
   "incremental fetch sessions (KIP-227) each broker keeps; 0: none"},
  {"leader.replication.throttled.rate", "9223372036854775807",
   "bytes/s a leader serves to throttled replicas (also dynamic)"},
  {"follower.replication.throttled.rate", "9223372036854775807",
   "bytes/s a follower fetches for throttled replicas (also dynamic)"},
  {"broker.id", "-1",
   "this process's broker id when it joins a cluster through ZooKeeper"},
  {"zookeeper.connect", "",
   "host:port[,host:port...][/chroot]; set: one broker per process, cluster "
   "metadata in ZooKeeper; empty: the embedded node"},
  {"zookeeper.session.timeout.ms", "18000",
   "ZooKeeper session timeout: a node silent this long leaves the cluster"},
  {"listeners", "", "PLAINTEXT://host:port of the Kafka listener (cluster)"},
  {"advertised.listeners", "",
   "the listeners clients are told (default: listeners)"},
  {"offsets.topic.replication.factor", "3",
   "replication factor of __consumer_offsets in a cluster"},
  {"troupe.cluster.port", "9190",
   "port of CAF's middleman, where the other nodes connect"},
  {"troupe.cluster.heartbeat.interval.ms", "1000",
   "middleman heartbeat between nodes"},
  {"troupe.cluster.connection.timeout.ms", "6000",
   "a node that sends nothing for this long is cut off"},
  {"broker.heartbeat.interval.ms", "200",
   "how often a broker heartbeats the active controller (cluster)"},
  {"broker.session.timeout.ms", "2000",
   "a broker whose heartbeats stop this long is fenced (cluster)"},
  {"group.consumer.session.timeout.ms", "45000",
   "session timeout of consumer-protocol (KIP-848) group members"},
  {"group.consumer.min.session.timeout.ms", "45000",
   "smallest group.consumer.session.timeout.ms"},
  {"group.consumer.max.session.timeout.ms", "60000",
   "largest group.consumer.session.timeout.ms"},
  {"group.consumer.heartbeat.interval.ms", "5000",
   "heartbeat interval given to consumer-protocol group members"},
  {"group.consumer.min.heartbeat.interval.ms", "5000",
   "smallest group.consumer.heartbeat.interval.ms"},
  {"group.consumer.max.heartbeat.interval.ms", "15000",
   "largest group.consumer.heartbeat.interval.ms"},
  {"group.consumer.assignment.interval.ms", "1000",
   "least time between two assignor runs of a consumer-protocol group "
   "(KIP-1263); 0 runs it on every change"},
  {"group.consumer.max.size", "2147483647",
   "most members a consumer-protocol group may have"},
  {"group.consumer.assignors", "uniform,range",
   "server-side assignors (names or Kafka's class names); the first is the "
   "default"},
  {"troupe.http.admin.token", "",
   "routes that change the cluster (broker stop/start, topic creation) "
   "need Authorization: Bearer <token>"},
  {"troupe.http.admin.enable", "false",
   "without a token, allow those routes anyway (local experiments)"},
  {"consumer.instance.timeout.ms", "300000",
   "a REST consumer instance that gets no request for this long is deleted "
   "(REST Proxy's property)"},
  {"listener.security.protocol.map",
   "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
   "listener name to security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, "
   "SASL_SSL)"},
  {"ssl.keystore.type", "PEM", "PEM only (KIP-651)"},
  {"ssl.keystore.location", "",
   "PEM file with the listeners' certificate chain and private key"},
  {"ssl.keystore.certificate.chain", "",
   "the certificate chain as PEM text (instead of a location)"},
  {"ssl.keystore.key", "", "the private key as PEM text"},
  {"ssl.key.password", "", "the private key's passphrase"},
  {"ssl.truststore.type", "PEM", "PEM only (KIP-651)"},
  {"ssl.truststore.location", "",
   "PEM file of the CA certificates client certificates are checked against"},
  {"ssl.truststore.certificates", "", "the CA certificates as PEM text"},
  {"ssl.client.auth", "none",
   "required | requested | none: ask TLS clients for a certificate"},
  {"ssl.enabled.protocols", "TLSv1.2,TLSv1.3", "TLS versions offered"},
  {"ssl.cipher.suites", "", "cipher suites offered (empty: OpenSSL's)"},
  {"ssl.principal.mapping.rules", "DEFAULT",
   "RULE:pattern/replacement/[LU],...,DEFAULT: a client certificate's DN to "
   "its User: principal (KIP-371)"},
  {"listener.name.<listener>.ssl.*", "",
   "any ssl.* setting for one listener (its name in lower case)"},
  {"sasl.enabled.mechanisms", "GSSAPI",
   "SASL mechanisms of the SASL listeners: PLAIN, SCRAM-SHA-256, "
   "SCRAM-SHA-512 (troupe serves no GSSAPI)"},
  {"listener.name.<listener>.sasl.enabled.mechanisms", "",
   "sasl.enabled.mechanisms for one listener"},
  {"listener.name.<listener>.plain.sasl.jaas.config", "",
   "PlainLoginModule required user_<name>=\"<password>\" ...; PLAIN's users"},
  {"listener.name.<listener>.<scram-sha-256|scram-sha-512>.sasl.jaas.config",
   "", "ScramLoginModule required; (SCRAM users live in the metadata)"},
  {"connections.max.reauth.ms", "0",
   "SASL sessions re-authenticate within this long (KIP-368; 0: never)"},
  {"authorizer.class.name", "",
   "kafka.security.authorizer.AclAuthorizer (or StandardAuthorizer's name) "
   "turns ACLs on; empty: every request allowed"},
  {"super.users", "", "User:a;User:b: principals every ACL check allows"},
  {"allow.everyone.if.no.acl.found", "false",
   "a resource no ACL matches is open to everyone"},
  {"troupe.http.ssl.enable", "false", "HTTPS on the HTTP gateway"},
  {"troupe.http.ssl.*", "",
   "the gateway's ssl.* settings (troupe.http.ssl.keystore.location, ...)"},
  {"troupe.http.auth", "none",
   "none (REST calls act as User:ANONYMOUS) | basic (HTTP Basic against the "
   "SCRAM and PLAIN users)"},
  {"troupe.cluster.security", "",
   "plaintext | ssl: the links between cluster nodes"},
  {"troupe.cluster.ssl.*", "",
   "the node links' ssl.* settings (certificate, key, CA)"},
  {"zookeeper.set.acl", "false",
   "znodes readable by all and writable by troupe.zookeeper.digest only"},
  {"troupe.zookeeper.digest", "",
   "user:password of the digest authentication to ZooKeeper"},
};

/// group.consumer.assignors: a comma-separated list of names or Kafka's
/// class names, stored by name.
bool parse_assignors(std::string_view text, std::vector<std::string>& out) {
  std::vector<std::string> names;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{}
                                           : text.substr(comma + 1);
    auto name = server_assignor_name(item);
    if (name.empty())
      return false;
    names.emplace_back(name);
  }
  if (names.empty())
    return false;
  out = std::move(names);
  return true;
}

// -- security (docs/ARCHITECTURE.md §9) ------------------------------------------

namespace sec = security;

constexpr std::string_view default_protocol_map =
  "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string upper(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// Kafka's LIST type: comma separated, blanks trimmed, empty items dropped.
std::vector<std::string> parse_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    if (!item.empty())
      out.emplace_back(item);
    text = comma == std::string_view::npos ? std::string_view{}
                                           : text.substr(comma + 1);
  }
  return out;
}

/// SecurityProtocol.forName.
std::optional<sec::listener_protocol> parse_protocol(std::string_view name) {
  auto n = upper(trim(name));
  if (n == "PLAINTEXT")
    return sec::listener_protocol::plaintext;
  if (n == "SSL")
    return sec::listener_protocol::ssl;
  if (n == "SASL_PLAINTEXT")
    return sec::listener_protocol::sasl_plaintext;
  if (n == "SASL_SSL")
    return sec::listener_protocol::sasl_ssl;
  return std::nullopt;
}

/// KafkaConfig.effectiveListenerSecurityProtocolMap: NAME:PROTOCOL pairs,
/// names upper-cased (ListenerName.normalised), with Kafka's messages.
void parse_protocol_map(std::string_view text,
                        std::map<std::string, sec::listener_protocol>& out,
                        std::vector<std::string>& errors) {
  constexpr auto key = "listener.security.protocol.map";
  out.clear();
  for (const auto& item : parse_list(text)) {
    auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0) {
      errors.push_back(std::string{"Error parsing configuration property '"}
                       + key + "': expected NAME:PROTOCOL, got '" + item
                       + "'");
      continue;
    }
    auto name = upper(trim(std::string_view{item}.substr(0, colon)));
    auto protocol = std::string{trim(std::string_view{item}.substr(colon + 1))};
    auto p = parse_protocol(protocol);
    if (!p) {
      errors.push_back("Invalid security protocol `" + protocol
                       + "` defined in " + key);
      continue;
    }
    out[name] = *p;
  }
}

/// One ssl.* setting (`ssl_key`, "ssl.keystore.location", ...) of a TLS
/// configuration, given as `key` (with its prefix, for the messages).
/// False when `ssl_key` is none of them.
bool apply_tls_property(std::string_view ssl_key, const std::string& key,
                        const std::string& value, sec::tls_config& tls,
                        std::vector<std::string>& errors) {
  if (ssl_key == "ssl.keystore.type" || ssl_key == "ssl.truststore.type") {
    if (upper(trim(value)) != "PEM")
      errors.push_back("invalid value '" + value + "' for " + key
                       + ": troupe reads PEM (KIP-651) only; set PEM and give "
                         "PEM files or PEM text");
  } else if (ssl_key == "ssl.keystore.location")
    tls.keystore_location = value;
  else if (ssl_key == "ssl.keystore.certificate.chain")
    tls.keystore_certificate_chain = value;
  else if (ssl_key == "ssl.keystore.key")
    tls.keystore_key = value;
  else if (ssl_key == "ssl.key.password")
    tls.key_password = value;
  else if (ssl_key == "ssl.truststore.location")
    tls.truststore_location = value;
  else if (ssl_key == "ssl.truststore.certificates")
    tls.truststore_certificates = value;
  else if (ssl_key == "ssl.client.auth") {
    auto v = lower(trim(value));
    if (v == "required")
      tls.client_auth_mode = sec::client_auth::required;
    else if (v == "requested")
      tls.client_auth_mode = sec::client_auth::requested;
    else if (v == "none")
      tls.client_auth_mode = sec::client_auth::none;
    else
      errors.push_back("Invalid value " + value + " for configuration " + key
                       + ": String must be one of: required, requested, none");
  } else if (ssl_key == "ssl.enabled.protocols") {
    auto protocols = parse_list(value);
    bool ok = !protocols.empty();
    for (const auto& p : protocols)
      ok = ok
           && (p == "TLSv1.2" || p == "TLSv1.3" || p == "TLSv1.1"
               || p == "TLSv1");
    if (ok)
      tls.enabled_protocols = std::move(protocols);
    else
      errors.push_back("invalid value '" + value + "' for " + key
                       + ": expected a list of TLSv1.2, TLSv1.3 (or TLSv1, "
                         "TLSv1.1)");
  } else if (ssl_key == "ssl.cipher.suites")
    tls.cipher_suites = parse_list(value);
  else if (ssl_key == "ssl.principal.mapping.rules") {
    std::string error;
    if (sec::principal_mapper::parse(value, error))
      tls.principal_mapping_rules = value;
    else
      errors.push_back("invalid value '" + value + "' for " + key + ": "
                       + error);
  } else
    return false;
  return true;
}

/// DefaultSslEngineFactory's checks of PEM material, in its words.
void check_tls(const sec::tls_config& tls, const std::string& scope,
               std::vector<std::string>& errors) {
  bool inline_key =
    !tls.keystore_certificate_chain.empty() || !tls.keystore_key.empty();
  if (inline_key && !tls.keystore_location.empty())
    errors.push_back(scope
                     + ": Both SSL key store location and separate private "
                       "key and certificate chain are provided");
  else if (inline_key && tls.keystore_certificate_chain.empty())
    errors.push_back(scope + ": SSL certificate chain is not provided");
  else if (inline_key && tls.keystore_key.empty())
    errors.push_back(scope + ": SSL private key is not provided");
  if (!tls.truststore_location.empty() && !tls.truststore_certificates.empty())
    errors.push_back(scope
                     + ": Both SSL trust store location and separate trust "
                       "certificates are provided");
}

bool has_truststore(const sec::tls_config& tls) {
  return !tls.truststore_location.empty()
         || !tls.truststore_certificates.empty();
}

/// sasl.enabled.mechanisms (or a listener's): the mechanisms troupe serves.
void apply_mechanisms(const std::string& key, const std::string& value,
                      sec::sasl_config& sasl,
                      std::vector<std::string>& errors) {
  auto names = parse_list(value);
  for (const auto& n : names)
    if (!sec::is_served_mechanism(n)) {
      errors.push_back("invalid value '" + value + "' for " + key
                       + ": troupe serves PLAIN, SCRAM-SHA-256 and "
                         "SCRAM-SHA-512");
      return;
    }
  sasl.enabled_mechanisms = std::move(names);
}

/// listener.name.<l>.<mechanism>.sasl.jaas.config: one login module
/// (JaasContext.load), PLAIN's users from its user_<name> options. The
/// value holds passwords and is not repeated in messages.
void apply_jaas(const std::string& key, const std::string& value,
                bool plain, sec::sasl_config& sasl,
                std::vector<std::string>& errors) {
  std::string error;
  auto entries = sec::parse_jaas(value, error);
  if (!entries) {
    errors.push_back("invalid value for " + key + ": " + error);
    return;
  }
  if (entries->size() != 1) {
    errors.push_back("invalid value for " + key
                     + ": JAAS config property contains "
                     + std::to_string(entries->size())
                     + " login modules, should be 1 module");
    return;
  }
  if (plain)
    sasl.plain_users = sec::plain_users(*entries);
}

/// super.users: principals separated by ';' (AclAuthorizer).
bool parse_super_users(const std::string& value, std::vector<std::string>& out,
                       std::vector<std::string>& errors) {
  std::vector<std::string> users;
  std::string_view text = value;
  while (!text.empty()) {
    auto semi = text.find(';');
    users.emplace_back(trim(text.substr(0, semi)));
    text = semi == std::string_view::npos ? std::string_view{}
                                          : text.substr(semi + 1);
  }
  // Java's split drops trailing empty strings.
  while (!users.empty() && users.back().empty())
    users.pop_back();
  for (const auto& u : users) {
    auto colon = u.find(':');
    if (colon == std::string::npos || colon == 0) {
      errors.push_back("invalid value '" + value
                       + "' for super.users: expected a string in format "
                         "principalType:principalName but got "
                       + u);
      return false;
    }
  }
  out = std::move(users);
  return true;
}

/// Whether `key` is one of the security settings apply_security reads.
bool is_security_property(const std::string& key) {
  static const std::vector<std::string_view> names = {
    "listener.security.protocol.map", "sasl.enabled.mechanisms",
    "connections.max.reauth.ms",      "authorizer.class.name",
    "super.users",                    "allow.everyone.if.no.acl.found",
    "troupe.http.auth",               "troupe.cluster.security",
    "zookeeper.set.acl",              "troupe.zookeeper.digest"};
  for (auto n : names)
    if (key == n)
      return true;
  return starts_with(key, "ssl.") || starts_with(key, "listener.name.")
         || starts_with(key, "troupe.http.ssl.")
         || starts_with(key, "troupe.cluster.ssl.");
}

/// The security settings into cfg.security: first every setting of the
/// node, then listener.name.<l>.* over them (a listener's own ssl.* and
/// SASL settings start from the node's, as Kafka's per-listener prefix
/// overrides key by key).
void apply_security(const properties& props, sec::security_config& s,
                    std::vector<std::string>& errors) {
  auto invalid = [&](const std::string& key, const std::string& value,
                     const std::string& why) {
    errors.push_back("invalid value '" + value + "' for " + key + ": " + why);
  };
  parse_protocol_map(default_protocol_map, s.protocol_map, errors);
  for (const auto& [key, value] : props) {
    if (key == "listener.security.protocol.map")
      parse_protocol_map(value, s.protocol_map, errors);
    else if (apply_tls_property(key, key, value, s.ssl, errors))
      continue;
    else if (key == "sasl.enabled.mechanisms")
      apply_mechanisms(key, value, s.sasl, errors);
    else if (key == "connections.max.reauth.ms") {
      if (!parse_int<int64_t>(value, s.connections_max_reauth_ms, 0,
                              INT64_MAX))
        invalid(key, value, "expected 0 (no re-authentication) or more ms");
    } else if (key == "authorizer.class.name") {
      auto name = std::string{trim(value)};
      if (!name.empty() && !sec::is_known_authorizer(name))
        invalid(key, value,
                "troupe's authorizer is kafka.security.authorizer."
                "AclAuthorizer (also accepted: org.apache.kafka.metadata."
                "authorizer.StandardAuthorizer, troupe.AclAuthorizer); empty "
                "turns authorization off");
      else
        s.authorizer_class_name = name;
    } else if (key == "super.users")
      parse_super_users(value, s.authorizer.super_users, errors);
    else if (key == "allow.everyone.if.no.acl.found") {
      if (!parse_bool(value, s.authorizer.allow_everyone_if_no_acl_found))
        invalid(key, value, "expected true or false");
    } else if (key == "troupe.http.ssl.enable") {
      if (!parse_bool(value, s.http_ssl_enabled))
        invalid(key, value, "expected true or false");
    } else if (starts_with(key, "troupe.http.ssl.")) {
      auto ssl_key = std::string_view{key}.substr(sizeof "troupe.http." - 1);
      if (!apply_tls_property(ssl_key, key, value, s.http_ssl, errors))
        errors.push_back("unknown property: " + key);
    } else if (key == "troupe.http.auth") {
      if (value != "none" && value != "basic")
        invalid(key, value, "expected none or basic");
      else
        s.http_auth = value;
    } else if (key == "troupe.cluster.security") {
      if (value != "plaintext" && value != "ssl")
        invalid(key, value, "expected plaintext or ssl");
      else
        s.cluster_security = value;
    } else if (starts_with(key, "troupe.cluster.ssl.")) {
      auto ssl_key = std::string_view{key}.substr(sizeof "troupe.cluster." - 1);
      if (!apply_tls_property(ssl_key, key, value, s.cluster_ssl, errors))
        errors.push_back("unknown property: " + key);
    } else if (key == "zookeeper.set.acl") {
      if (!parse_bool(value, s.zookeeper_set_acl))
        invalid(key, value, "expected true or false");
    } else if (key == "troupe.zookeeper.digest") {
      auto colon = value.find(':');
      if (colon == std::string::npos || colon == 0)
        errors.push_back("invalid value for troupe.zookeeper.digest: "
                         "expected user:password");
      else
        s.zookeeper_digest = value;
    } else if (starts_with(key, "ssl."))
      errors.push_back("unknown property: " + key);
  }
  s.authorizer.enabled = !s.authorizer_class_name.empty();

  // listener.name.<l>.*: the listener's name in lower case, then a setting.
  constexpr std::string_view prefix = "listener.name.";
  for (const auto& [key, value] : props) {
    if (!starts_with(key, prefix))
      continue;
    auto rest = std::string_view{key}.substr(prefix.size());
    auto dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0) {
      errors.push_back("unknown property: " + key);
      continue;
    }
    auto listener = rest.substr(0, dot);
    auto setting = rest.substr(dot + 1);
    if (lower(listener) != listener) {
      errors.push_back(key + ": a listener's settings are prefixed with its "
                             "name in lower case (listener.name."
                       + lower(listener) + ".)");
      continue;
    }
    auto name = upper(listener);
    auto sasl_of = [&]() -> sec::sasl_config& {
      return s.listener_sasl.emplace(name, s.sasl).first->second;
    };
    if (starts_with(setting, "ssl.")) {
      auto& tls = s.listener_ssl.emplace(name, s.ssl).first->second;
      if (!apply_tls_property(setting, key, value, tls, errors))
        errors.push_back("unknown property: " + key);
    } else if (setting == "sasl.enabled.mechanisms")
      apply_mechanisms(key, value, sasl_of(), errors);
    else if (setting == "plain.sasl.jaas.config")
      apply_jaas(key, value, true, sasl_of(), errors);
    else if (setting == "scram-sha-256.sasl.jaas.config"
             || setting == "scram-sha-512.sasl.jaas.config")
      apply_jaas(key, value, false, sasl_of(), errors);
    else
      errors.push_back("unknown property: " + key);
  }

  check_tls(s.ssl, "ssl.*", errors);
  for (const auto& [name, tls] : s.listener_ssl)
    check_tls(tls, "listener.name." + lower(name) + ".ssl.*", errors);
  check_tls(s.http_ssl, "troupe.http.ssl.*", errors);
  check_tls(s.cluster_ssl, "troupe.cluster.ssl.*", errors);
  if (s.http_ssl_enabled && !s.http_ssl.has_keystore())
    errors.push_back("troupe.http.ssl.enable=true needs the gateway's "
                     "certificate and key: troupe.http.ssl.keystore.location, "
                     "or troupe.http.ssl.keystore.certificate.chain and "
                     "troupe.http.ssl.keystore.key");
  if (s.cluster_security == "ssl"
      && (!s.cluster_ssl.has_keystore() || !has_truststore(s.cluster_ssl)))
    errors.push_back("troupe.cluster.security=ssl needs "
                     "troupe.cluster.ssl.keystore.* (this node's certificate "
                     "and key) and troupe.cluster.ssl.truststore.* (the CA "
                     "the other nodes' certificates are checked against)");
  if (s.zookeeper_set_acl && s.zookeeper_digest.empty())
    errors.push_back("zookeeper.set.acl=true needs troupe.zookeeper.digest "
                     "(user:password): the identity the znodes' ACLs name");
}

} // namespace

properties parse_properties(std::string_view text,
                            std::vector<std::string>& errors) {
  properties result;
  size_t line_no = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = trim(text.substr(0, nl));
    text =
      nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == '!')
      continue;
    auto sep = line.find_first_of("=:");
    if (sep == std::string_view::npos || sep == 0) {
      errors.push_back("line " + std::to_string(line_no)
                       + ": expected key=value, got '" + std::string{line}
                       + "'");
      continue;
    }
    result[std::string{trim(line.substr(0, sep))}] =
      std::string{trim(line.substr(sep + 1))};
  }
  return result;
}

bool parse_override(std::string_view text, properties& into) {
  auto sep = text.find('=');
  if (sep == std::string_view::npos || sep == 0)
    return false;
  into[std::string{trim(text.substr(0, sep))}] =
    std::string{trim(text.substr(sep + 1))};
  return true;
}

const std::vector<property_doc>& known_properties() {
  return docs;
}

void apply_properties(const properties& props, cluster_config& cfg,
                      std::vector<std::string>& errors) {
  constexpr auto i32max = std::numeric_limits<int32_t>::max();
  auto bad = [&](const std::string& key, const std::string& value,
                 const char* expected) {
    errors.push_back("invalid value '" + value + "' for " + key + ": expected "
                     + expected);
  };
  for (const auto& [key, value] : props) {
    if (is_security_property(key))
      continue; // apply_security, below
    bool ok = true;
    auto& g = cfg.group;
    if (key == "troupe.brokers")
      ok = parse_int<int32_t>(value, cfg.brokers, 1, 64);
    else if (key == "advertised.host")
      cfg.advertised_host = value, ok = !value.empty();
    else if (key == "port")
      ok = parse_int<int32_t>(value, cfg.base_port, 1, 65535);
    else if (key == "offsets.topic.num.partitions")
      ok =
        parse_int<int32_t>(value, cfg.offsets_topic_num_partitions, 1, 10000);
    else if (key == "num.partitions")
      ok = parse_int<int32_t>(value, cfg.num_partitions, 1, 1000000);
    else if (key == "default.replication.factor")
      ok = parse_int<int16_t>(value, cfg.default_replication_factor, 1, 64);
    else if (key == "auto.create.topics.enable")
      ok = parse_bool(value, cfg.auto_create_topics);
    else if (key == "log.dirs")
      cfg.log_dirs = value, ok = !value.empty();
    else if (key == "unclean.leader.election.enable")
      ok = parse_bool(value, cfg.unclean_leader_election);
    else if (key == "auto.leader.rebalance.enable")
      ok = parse_bool(value, cfg.auto_leader_rebalance);
    else if (key == "leader.imbalance.per.broker.percentage")
      ok = parse_int<int32_t>(value, cfg.leader_imbalance_per_broker_percentage,
                              0, 100);
    else if (key == "leader.imbalance.check.interval.seconds")
      ok = parse_int<int64_t>(value, cfg.leader_imbalance_check_interval_seconds,
                              1, INT64_MAX / 1000);
    else if (key == "log.segment.bytes")
      ok = parse_int<uint64_t>(value, cfg.log.segment_bytes, 14, INT32_MAX);
    else if (key == "log.retention.bytes")
      ok = parse_int<int64_t>(value, cfg.log.retention_bytes, -1, INT64_MAX);
    else if (key == "log.retention.ms")
      ok = parse_int<int64_t>(value, cfg.log.retention_ms, -1, INT64_MAX);
    else if (key == "log.retention.check.interval.ms")
      ok = parse_int<int64_t>(value, cfg.log_retention_check_interval_ms, 1,
                              INT64_MAX);
    else if (key == "log.flush.interval.messages")
      ok = parse_int<int64_t>(value, cfg.log.flush_messages, 1, INT64_MAX);
    else if (key == "log.flush.interval.ms")
      ok = parse_int<int64_t>(value, cfg.log.flush_ms, 0, INT64_MAX);
    else if (key == "message.max.bytes")
      ok = parse_int<size_t>(value, cfg.log.max_batch_bytes, 64, INT32_MAX);
    else if (key == "log.cleanup.policy")
      ok = parse_cleanup_policy(value, cfg.log);
    else if (key == "log.roll.ms")
      ok = parse_int<int64_t>(value, cfg.log.segment_ms, 1, INT64_MAX);
    else if (key == "log.cleaner.enable")
      ok = parse_bool(value, cfg.log_cleaner_enable);
    else if (key == "log.cleaner.backoff.ms")
      ok = parse_int<int64_t>(value, cfg.log_cleaner_backoff_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.io.max.bytes.per.second")
      ok = parse_double(value, cfg.log_cleaner_io_max_bytes_per_second, 1e-300,
                        std::numeric_limits<double>::max());
    else if (key == "log.cleaner.min.cleanable.ratio")
      ok = parse_double(value, cfg.log.min_cleanable_dirty_ratio, 0, 1);
    else if (key == "log.cleaner.delete.retention.ms")
      ok = parse_int<int64_t>(value, cfg.log.delete_retention_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.min.compaction.lag.ms")
      ok =
        parse_int<int64_t>(value, cfg.log.min_compaction_lag_ms, 0, INT64_MAX);
    else if (key == "log.cleaner.max.compaction.lag.ms")
      ok =
        parse_int<int64_t>(value, cfg.log.max_compaction_lag_ms, 1, INT64_MAX);
    else if (key == "offsets.topic.segment.bytes")
      ok = parse_int<uint64_t>(value, cfg.offsets_topic_segment_bytes, 14,
                               INT32_MAX);
    else if (key == "min.insync.replicas")
      ok = parse_int<int32_t>(value, cfg.min_insync_replicas, 1, 64);
    else if (key == "replica.lag.time.max.ms")
      ok = parse_int<int64_t>(value, cfg.replica_lag_time_max_ms, 1, INT64_MAX);
    else if (key == "group.initial.rebalance.delay.ms")
      ok = parse_int<int32_t>(value, g.initial_rebalance_delay_ms, 0, i32max);
    else if (key == "group.min.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.min_session_timeout_ms, 1, i32max);
    else if (key == "group.max.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.max_session_timeout_ms, 1, i32max);
    else if (key == "group.max.size")
      ok = parse_int<int32_t>(value, g.max_size, 1, i32max);
    else if (key == "offsets.commit.timeout.ms")
      ok = parse_int<int32_t>(value, g.offset_commit_timeout_ms, 1, i32max);
    else if (key == "offsets.retention.minutes") {
      int32_t minutes = 0;
      ok = parse_int<int32_t>(value, minutes, 1, i32max);
      g.offsets_retention_ms = int64_t{minutes} * 60 * 1000;
    } else if (key == "offsets.retention.check.interval.ms")
      ok = parse_int<int64_t>(value, g.offsets_retention_check_interval_ms, 1,
                              INT64_MAX);
    else if (key == "replica.fetch.wait.max.ms")
      ok = parse_int<int32_t>(value, cfg.replica_fetch_wait_max_ms, 0, i32max);
    else if (key == "replica.fetch.backoff.ms")
      ok = parse_int<int32_t>(value, cfg.replica_fetch_backoff_ms, 0, i32max);
    else if (key == "max.incremental.fetch.session.cache.slots")
      ok = parse_int<int32_t>(value,
                              cfg.max_incremental_fetch_session_cache_slots, 0,
                              i32max);
    else if (key == "leader.replication.throttled.rate")
      ok = parse_int<int64_t>(value, cfg.leader_replication_throttled_rate, 0,
                              INT64_MAX);
    else if (key == "follower.replication.throttled.rate")
      ok = parse_int<int64_t>(value, cfg.follower_replication_throttled_rate,
                              0, INT64_MAX);
    else if (key == "offset.metadata.max.bytes")
      ok = parse_int<int32_t>(value, g.offset_metadata_max_bytes, 0, i32max);
    else if (key == "group.consumer.session.timeout.ms")
      ok = parse_int<int32_t>(value, g.consumer_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.min.session.timeout.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_min_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.max.session.timeout.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_max_session_timeout_ms, 1, i32max);
    else if (key == "group.consumer.heartbeat.interval.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_heartbeat_interval_ms, 1, i32max);
    else if (key == "group.consumer.min.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, g.consumer_min_heartbeat_interval_ms, 1,
                              i32max);
    else if (key == "group.consumer.max.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, g.consumer_max_heartbeat_interval_ms, 1,
                              i32max);
    else if (key == "group.consumer.assignment.interval.ms")
      ok =
        parse_int<int32_t>(value, g.consumer_assignment_interval_ms, 0, i32max);
    else if (key == "group.consumer.max.size")
      ok = parse_int<int32_t>(value, g.consumer_max_size, 1, i32max);
    else if (key == "group.consumer.assignors")
      ok = parse_assignors(value, g.consumer_assignors);
    else if (key == "broker.id")
      ok = parse_int<int32_t>(value, cfg.zookeeper.broker_id, 0, i32max);
    else if (key == "zookeeper.connect")
      cfg.zookeeper.connect = value;
    else if (key == "zookeeper.session.timeout.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.session_timeout_ms, 100,
                              i32max);
    else if (key == "listeners")
      cfg.zookeeper.listeners = value;
    else if (key == "advertised.listeners")
      cfg.zookeeper.advertised_listeners = value;
    else if (key == "offsets.topic.replication.factor")
      ok =
        parse_int<int16_t>(value, cfg.offsets_topic_replication_factor, 1, 64);
    else if (key == "troupe.cluster.port")
      ok = parse_int<int32_t>(value, cfg.zookeeper.cluster_port, 0, 65535);
    else if (key == "troupe.cluster.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.heartbeat_interval_ms, 0,
                              i32max);
    else if (key == "troupe.cluster.connection.timeout.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.connection_timeout_ms, 0,
                              i32max);
    else if (key == "broker.heartbeat.interval.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.broker_heartbeat_interval_ms,
                              1, i32max);
    else if (key == "broker.session.timeout.ms")
      ok = parse_int<int32_t>(value, cfg.zookeeper.broker_session_timeout_ms, 1,
                              i32max);
    else if (key.rfind("troupe.scheduler.", 0) == 0
             || key.rfind("troupe.http.", 0) == 0
             || key == "consumer.instance.timeout.ms")
      continue; // process settings
    else {
      errors.push_back("unknown property: " + key);
      continue;
    }
    if (!ok)
      bad(key, value, "a value in range (see --help)");
  }
  apply_security(props, cfg.security, errors);
  if (cfg.zookeeper.enabled() && cfg.zookeeper.broker_id < 0)
    errors.push_back("zookeeper.connect needs broker.id: every node of a "
                     "cluster has its own");
  if (cfg.group.min_session_timeout_ms > cfg.group.max_session_timeout_ms)
    errors.push_back("group.min.session.timeout.ms must not exceed "
                     "group.max.session.timeout.ms");
  // Kafka's GroupCoordinatorConfig requirements, in its words.
  const auto& g = cfg.group;
  auto require = [&](bool holds, const char* what) {
    if (!holds)
      errors.push_back(what);
  };
  require(cfg.zookeeper.broker_heartbeat_interval_ms
            <= cfg.zookeeper.broker_session_timeout_ms,
          "broker.heartbeat.interval.ms must be less than or equal to "
          "broker.session.timeout.ms");
  require(g.consumer_max_heartbeat_interval_ms
            >= g.consumer_min_heartbeat_interval_ms,
          "group.consumer.max.heartbeat.interval.ms must be greater than or "
          "equal to group.consumer.min.heartbeat.interval.ms");
  require(g.consumer_heartbeat_interval_ms
            >= g.consumer_min_heartbeat_interval_ms,
          "group.consumer.heartbeat.interval.ms must be greater than or equal "
          "to group.consumer.min.heartbeat.interval.ms");
  require(g.consumer_heartbeat_interval_ms
            <= g.consumer_max_heartbeat_interval_ms,
          "group.consumer.heartbeat.interval.ms must be less than or equal to "
          "group.consumer.max.heartbeat.interval.ms");
  require(g.consumer_max_session_timeout_ms
            >= g.consumer_min_session_timeout_ms,
          "group.consumer.max.session.timeout.ms must be greater than or "
          "equal to group.consumer.min.session.timeout.ms");
  require(g.consumer_session_timeout_ms >= g.consumer_min_session_timeout_ms,
          "group.consumer.session.timeout.ms must be greater than or equal to "
          "group.consumer.min.session.timeout.ms");
  require(g.consumer_session_timeout_ms <= g.consumer_max_session_timeout_ms,
          "group.consumer.session.timeout.ms must be less than or equal to "
          "group.consumer.max.session.timeout.ms");
  require(g.consumer_heartbeat_interval_ms < g.consumer_session_timeout_ms,
          "group.consumer.heartbeat.interval.ms must be less than "
          "group.consumer.session.timeout.ms");
}

void apply_process_properties(const properties& props, process_config& cfg,
                              std::vector<std::string>& errors) {
  if (auto i = props.find("troupe.scheduler.threads"); i != props.end())
    if (!parse_int<int32_t>(i->second, cfg.threads, 0, 256))
      errors.push_back("invalid value '" + i->second
                       + "' for troupe.scheduler.threads: expected 0..256");
  if (auto i = props.find("consumer.instance.timeout.ms"); i != props.end())
    if (!parse_int<int32_t>(i->second, cfg.consumer_instance_timeout_ms, 1,
                            std::numeric_limits<int32_t>::max()))
      errors.push_back("invalid value '" + i->second
                       + "' for consumer.instance.timeout.ms: expected "
                         "1..2147483647");
  if (auto i = props.find("troupe.scheduler.policy"); i != props.end()) {
    if (i->second != "sharing" && i->second != "stealing")
      errors.push_back("invalid value '" + i->second
                       + "' for troupe.scheduler.policy: expected sharing or "
                         "stealing");
    else
      cfg.scheduler_policy = i->second;
  }
  for (auto& [key, value] : props) {
    if (key.rfind("troupe.http.", 0) != 0 || is_security_property(key))
      continue;
    if (key == "troupe.http.admin.token")
      cfg.http_admin_token = value;
    else if (key == "troupe.http.admin.enable") {
      if (!parse_bool(value, cfg.http_admin_enable))
        errors.push_back("invalid value '" + value
                         + "' for troupe.http.admin.enable: expected true or "
                           "false");
    } else
      errors.push_back("unknown property: " + key);
  }
}

} // namespace troupe
