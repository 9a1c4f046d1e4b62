#include <catch2/catch.hpp>

#include <cstdint>

#include "domain/log/log_defaults.hpp"
#include "domain/properties.hpp"

using namespace troupe;

TEST_CASE("properties file uses Kafka's syntax and names") {
  std::vector<std::string> errors;
  auto props = parse_properties("# a comment\n"
                                "! another\n"
                                "group.initial.rebalance.delay.ms=0\n"
                                "  offsets.topic.num.partitions : 10 \n"
                                "\n"
                                "auto.create.topics.enable=false\r\n",
                                errors);
  CHECK(errors.empty());
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.group.initial_rebalance_delay_ms == 0);
  CHECK(cfg.offsets_topic_num_partitions == 10);
  CHECK_FALSE(cfg.auto_create_topics);
}

TEST_CASE("an override replaces the file's value") {
  std::vector<std::string> errors;
  auto props = parse_properties("group.max.size=5\n", errors);
  REQUIRE(parse_override("group.max.size=7", props));
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(cfg.group.max_size == 7);
  CHECK_FALSE(parse_override("no-equals-sign", props));
}

TEST_CASE("unknown properties and bad values are reported, not ignored") {
  std::vector<std::string> errors;
  properties props{{"group.max.size", "-3"},
                   {"gruop.max.size", "3"},
                   {"auto.create.topics.enable", "maybe"},
                   {"offsets.topic.num.partitions", "12abc"}};
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.size() == 4);
  CHECK(cfg.group.max_size == std::numeric_limits<int32_t>::max());
}

TEST_CASE("a malformed properties line is reported with its number") {
  std::vector<std::string> errors;
  parse_properties("a=1\njust words\n", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("line 2") != std::string::npos);
}

TEST_CASE("defaults are Kafka's") {
  cluster_config cfg;
  CHECK(cfg.offsets_topic_num_partitions == 50);
  CHECK(cfg.group.initial_rebalance_delay_ms == 3000);
  CHECK(cfg.group.min_session_timeout_ms == 6000);
  CHECK(cfg.group.max_session_timeout_ms == 1800000);
  CHECK(cfg.group.offset_metadata_max_bytes == 4096);
  CHECK(cfg.brokers == 3);
}

TEST_CASE("the HTTP gateway's admin guard is configured by troupe.http.admin "
          "properties") {
  std::vector<std::string> errors;
  auto props = parse_properties("troupe.http.admin.token=s3cret\n"
                                "troupe.http.admin.enable=true\n",
                                errors);
  cluster_config cluster;
  process_config process;
  apply_properties(props, cluster, errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.empty());
  CHECK(process.http_admin_token == "s3cret");
  CHECK(process.http_admin_enable);
  props = parse_properties("troupe.http.admin.enable=yes\n"
                           "troupe.http.admin.tokn=x\n",
                           errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.size() == 2);
}

TEST_CASE("consumer.instance.timeout.ms is REST Proxy's, 300000 by default, "
          "and refuses values below 1 ms") {
  CHECK(process_config{}.consumer_instance_timeout_ms == 300000);
  std::vector<std::string> errors;
  cluster_config cluster;
  process_config process;
  properties props{{"consumer.instance.timeout.ms", "2500"}};
  apply_properties(props, cluster, errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.empty());
  CHECK(process.consumer_instance_timeout_ms == 2500);
  for (auto bad : {"0", "-1", "5s", "2147483648"}) {
    errors.clear();
    props["consumer.instance.timeout.ms"] = bad;
    apply_process_properties(props, process, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]
          == "invalid value '" + std::string{bad}
               + "' for consumer.instance.timeout.ms: expected 1..2147483647");
  }
  CHECK(process.consumer_instance_timeout_ms == 2500);
}

TEST_CASE("the log cleaner's broker properties have Kafka's names and "
          "defaults, and __consumer_offsets is compacted") {
  cluster_config defaults;
  CHECK_FALSE(defaults.log.compact);
  CHECK(defaults.log.delete_policy);
  CHECK(defaults.log.segment_ms == 604800000);
  CHECK(defaults.log.delete_retention_ms == 86400000);
  CHECK(defaults.log.min_compaction_lag_ms == 0);
  CHECK(defaults.log.max_compaction_lag_ms == INT64_MAX);
  CHECK(defaults.log.min_cleanable_dirty_ratio == 0.5);
  CHECK(defaults.log_cleaner_enable);
  CHECK(defaults.log_cleaner_backoff_ms == 15000);
  CHECK(defaults.offsets_topic_segment_bytes == 104857600);

  std::vector<std::string> errors;
  properties props{{"log.cleanup.policy", "compact, delete"},
                   {"log.roll.ms", "3600000"},
                   {"log.cleaner.enable", "false"},
                   {"log.cleaner.backoff.ms", "500"},
                   {"log.cleaner.io.max.bytes.per.second", "1048576.5"},
                   {"log.cleaner.min.cleanable.ratio", "0.25"},
                   {"log.cleaner.delete.retention.ms", "1000"},
                   {"log.cleaner.min.compaction.lag.ms", "2000"},
                   {"log.cleaner.max.compaction.lag.ms", "3000"},
                   {"offsets.topic.segment.bytes", "16384"}};
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.log.compact);
  CHECK(cfg.log.delete_policy);
  CHECK(cfg.log.segment_ms == 3600000);
  CHECK_FALSE(cfg.log_cleaner_enable);
  CHECK(cfg.log_cleaner_backoff_ms == 500);
  CHECK(cfg.log_cleaner_io_max_bytes_per_second == 1048576.5);
  CHECK(cfg.log.min_cleanable_dirty_ratio == 0.25);
  CHECK(cfg.log.delete_retention_ms == 1000);
  CHECK(cfg.log.min_compaction_lag_ms == 2000);
  CHECK(cfg.log.max_compaction_lag_ms == 3000);
  CHECK(cfg.offsets_topic_segment_bytes == 16384);

  // __consumer_offsets: compact only, its own segment size; other topics
  // get the broker's settings.
  auto offsets = default_log_config(cfg, "__consumer_offsets");
  CHECK(offsets.compact);
  CHECK_FALSE(offsets.delete_policy);
  CHECK(offsets.segment_bytes == 16384);
  auto plain = default_log_config(cfg, "orders");
  CHECK(plain.delete_policy);
  CHECK(plain.segment_bytes == cfg.log.segment_bytes);

  properties bad{{"log.cleanup.policy", "compress"},
                 {"log.cleaner.min.cleanable.ratio", "1.5"},
                 {"log.cleaner.io.max.bytes.per.second", "fast"},
                 {"log.roll.ms", "0"}};
  errors.clear();
  apply_properties(bad, cfg, errors);
  CHECK(errors.size() == 4);
  log_config c;
  CHECK_FALSE(parse_cleanup_policy("", c));
  CHECK(parse_cleanup_policy("compact", c));
  CHECK(cleanup_policy_name(c) == "compact");
  CHECK(parse_cleanup_policy("delete,compact", c));
  CHECK(cleanup_policy_name(c) == "compact,delete");
}

// -- security (docs/ARCHITECTURE.md §9) -----------------------------------------

namespace {

std::vector<std::string> apply_all(const properties& props,
                                   cluster_config& cfg) {
  std::vector<std::string> errors;
  apply_properties(props, cfg, errors);
  process_config process;
  apply_process_properties(props, process, errors);
  return errors;
}

bool has_error(const std::vector<std::string>& errors, std::string_view text) {
  for (const auto& e : errors)
    if (e.find(text) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("listener.security.protocol.map maps each protocol's own name by "
          "default and takes Kafka's NAME:PROTOCOL pairs") {
  using security::listener_protocol;
  cluster_config cfg;
  CHECK(apply_all({}, cfg).empty());
  CHECK(cfg.security.protocol_map
        == std::map<std::string, listener_protocol>{
          {"PLAINTEXT", listener_protocol::plaintext},
          {"SSL", listener_protocol::ssl},
          {"SASL_PLAINTEXT", listener_protocol::sasl_plaintext},
          {"SASL_SSL", listener_protocol::sasl_ssl}});
  cluster_config custom;
  CHECK(apply_all({{"listener.security.protocol.map",
                    "client:SASL_SSL, INTERNAL:ssl"}},
                  custom)
          .empty());
  CHECK(custom.security.protocol_map
        == std::map<std::string, listener_protocol>{
          {"CLIENT", listener_protocol::sasl_ssl},
          {"INTERNAL", listener_protocol::ssl}});
  cluster_config bad;
  auto errors =
    apply_all({{"listener.security.protocol.map", "A:TLS,B"}}, bad);
  CHECK(has_error(errors, "Invalid security protocol `TLS` defined in "
                          "listener.security.protocol.map"));
  CHECK(has_error(errors, "Error parsing configuration property "
                          "'listener.security.protocol.map'"));
}

TEST_CASE("ssl properties are Kafka's, PEM only, and listener.name.<l>.ssl.* "
          "overrides them per listener") {
  cluster_config cfg;
  auto errors = apply_all(
    {{"ssl.keystore.type", "PEM"},
     {"ssl.keystore.location", "/etc/troupe/server.pem"},
     {"ssl.key.password", "pw"},
     {"ssl.truststore.type", "PEM"},
     {"ssl.truststore.location", "/etc/troupe/ca.pem"},
     {"ssl.client.auth", "required"},
     {"ssl.enabled.protocols", "TLSv1.3"},
     {"ssl.cipher.suites", "TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384"},
     {"ssl.principal.mapping.rules", "RULE:^CN=(.*?),.*$/$1/L,DEFAULT"},
     {"listener.name.internal.ssl.client.auth", "none"},
     {"listener.name.internal.ssl.keystore.location", "/etc/troupe/int.pem"}},
    cfg);
  CHECK(errors.empty());
  const auto& s = cfg.security;
  CHECK(s.ssl.keystore_location == "/etc/troupe/server.pem");
  CHECK(s.ssl.key_password == "pw");
  CHECK(s.ssl.truststore_location == "/etc/troupe/ca.pem");
  CHECK(s.ssl.client_auth_mode == security::client_auth::required);
  CHECK(s.ssl.enabled_protocols == std::vector<std::string>{"TLSv1.3"});
  CHECK(s.ssl.cipher_suites.size() == 2);
  CHECK(s.ssl.principal_mapping_rules == "RULE:^CN=(.*?),.*$/$1/L,DEFAULT");
  // The listener's own settings over the node's, key by key.
  const auto& internal = s.tls_of("INTERNAL");
  CHECK(internal.client_auth_mode == security::client_auth::none);
  CHECK(internal.keystore_location == "/etc/troupe/int.pem");
  CHECK(internal.truststore_location == "/etc/troupe/ca.pem");
  CHECK(&s.tls_of("CLIENT") == &s.ssl);
  // Defaults.
  security::tls_config defaults;
  CHECK(defaults.client_auth_mode == security::client_auth::none);
  CHECK(defaults.enabled_protocols
        == std::vector<std::string>{"TLSv1.2", "TLSv1.3"});
  CHECK(defaults.principal_mapping_rules == "DEFAULT");
}

TEST_CASE("ssl properties refuse keystore types other than PEM, unknown "
          "client auth and bad mapping rules") {
  cluster_config cfg;
  auto errors = apply_all(
    {{"ssl.keystore.type", "JKS"},
     {"ssl.truststore.type", "PKCS12"},
     {"ssl.client.auth", "sometimes"},
     {"ssl.enabled.protocols", "SSLv3"},
     {"ssl.principal.mapping.rules", "DEFAULT/L"},
     {"ssl.keystore.passwrd", "x"},
     {"listener.name.CLIENT.ssl.client.auth", "none"},
     {"listener.name.client.ssl.bogus", "x"}},
    cfg);
  CHECK(errors.size() == 8);
  CHECK(has_error(errors, "invalid value 'JKS' for ssl.keystore.type: troupe "
                          "reads PEM"));
  CHECK(has_error(errors, "for ssl.truststore.type: troupe reads PEM"));
  CHECK(has_error(errors, "Invalid value sometimes for configuration "
                          "ssl.client.auth: String must be one of: required, "
                          "requested, none"));
  CHECK(has_error(errors, "ssl.enabled.protocols"));
  CHECK(has_error(errors, "Invalid rule: `DEFAULT/L`, unmatched substring"));
  CHECK(has_error(errors, "unknown property: ssl.keystore.passwrd"));
  CHECK(has_error(errors, "listener.name.client."));
  CHECK(has_error(errors, "unknown property: listener.name.client.ssl.bogus"));
}

TEST_CASE("ssl PEM material is a location or the text, not both, as Kafka's "
          "DefaultSslEngineFactory says") {
  cluster_config cfg;
  auto errors =
    apply_all({{"ssl.keystore.location", "/a.pem"},
               {"ssl.keystore.key", "-----BEGIN PRIVATE KEY-----"},
               {"troupe.http.ssl.keystore.certificate.chain", "-----BEGIN"},
               {"troupe.cluster.ssl.truststore.location", "/ca.pem"},
               {"troupe.cluster.ssl.truststore.certificates", "-----BEGIN"}},
              cfg);
  CHECK(has_error(errors, "ssl.*: Both SSL key store location and separate "
                          "private key and certificate chain are provided"));
  CHECK(has_error(errors,
                  "troupe.http.ssl.*: SSL private key is not provided"));
  CHECK(has_error(errors, "troupe.cluster.ssl.*: Both SSL trust store "
                          "location and separate trust certificates are "
                          "provided"));
}

TEST_CASE("SASL listeners take sasl.enabled.mechanisms and PLAIN users from "
          "listener.name.<l>.plain.sasl.jaas.config") {
  cluster_config cfg;
  auto errors = apply_all(
    {{"sasl.enabled.mechanisms", "SCRAM-SHA-512"},
     {"listener.name.sasl_plaintext.sasl.enabled.mechanisms",
      "PLAIN,SCRAM-SHA-256"},
     {"listener.name.sasl_plaintext.plain.sasl.jaas.config",
      "org.apache.kafka.common.security.plain.PlainLoginModule required "
      "username=\"admin\" password=\"admin-secret\" "
      "user_admin=\"admin-secret\" user_alice=\"alice-secret\";"},
     {"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
      "org.apache.kafka.common.security.scram.ScramLoginModule required;"},
     {"connections.max.reauth.ms", "60000"}},
    cfg);
  CHECK(errors.empty());
  const auto& s = cfg.security;
  CHECK(s.sasl.enabled_mechanisms == std::vector<std::string>{"SCRAM-SHA-512"});
  const auto& l = s.sasl_of("SASL_PLAINTEXT");
  CHECK(l.enabled_mechanisms
        == std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"});
  CHECK(l.plain_users
        == std::map<std::string, std::string>{{"admin", "admin-secret"},
                                              {"alice", "alice-secret"}});
  CHECK(&s.sasl_of("OTHER") == &s.sasl);
  CHECK(s.connections_max_reauth_ms == 60000);
  CHECK(security::sasl_config{}.enabled_mechanisms
        == std::vector<std::string>{"GSSAPI"});
}

TEST_CASE("SASL properties refuse mechanisms troupe does not serve and bad "
          "JAAS without repeating its passwords") {
  cluster_config cfg;
  auto errors = apply_all(
    {{"sasl.enabled.mechanisms", "GSSAPI"},
     {"listener.name.sasl_ssl.plain.sasl.jaas.config",
      "org.apache.kafka.common.security.plain.PlainLoginModule required "
      "user_alice=\"alice-secret\""},
     {"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
      "a.B required; c.D required;"},
     {"connections.max.reauth.ms", "-1"}},
    cfg);
  CHECK(errors.size() == 4);
  CHECK(has_error(errors, "troupe serves PLAIN, SCRAM-SHA-256 and "
                          "SCRAM-SHA-512"));
  CHECK(has_error(errors, "JAAS config entry not terminated by semi-colon"));
  CHECK(has_error(errors, "JAAS config property contains 2 login modules, "
                          "should be 1 module"));
  CHECK(has_error(errors, "connections.max.reauth.ms"));
  CHECK_FALSE(has_error(errors, "alice-secret"));
}

TEST_CASE("authorizer.class.name turns Kafka's ACL authorizer on, with "
          "super.users and allow.everyone.if.no.acl.found") {
  cluster_config off;
  CHECK(apply_all({}, off).empty());
  CHECK_FALSE(off.security.authorizer.enabled);
  cluster_config cfg;
  auto errors =
    apply_all({{"authorizer.class.name",
                "kafka.security.authorizer.AclAuthorizer"},
               {"super.users", "User:admin; User:CN=broker,OU=ops;"},
               {"allow.everyone.if.no.acl.found", "true"}},
              cfg);
  CHECK(errors.empty());
  const auto& a = cfg.security.authorizer;
  CHECK(a.enabled);
  CHECK(cfg.security.authorizer_class_name
        == "kafka.security.authorizer.AclAuthorizer");
  CHECK(a.super_users
        == std::vector<std::string>{"User:admin", "User:CN=broker,OU=ops"});
  CHECK(a.allow_everyone_if_no_acl_found);

  cluster_config bad;
  errors = apply_all({{"authorizer.class.name", "com.example.MyAuthorizer"},
                      {"super.users", "admin"},
                      {"allow.everyone.if.no.acl.found", "yes"}},
                     bad);
  CHECK(errors.size() == 3);
  CHECK(has_error(errors, "invalid value 'com.example.MyAuthorizer' for "
                          "authorizer.class.name"));
  CHECK(has_error(errors, "expected a string in format "
                          "principalType:principalName but got admin"));
  CHECK_FALSE(bad.security.authorizer.enabled);
}

TEST_CASE("the gateway's HTTPS and auth, the node links' TLS and ZooKeeper's "
          "digest ACLs are troupe's properties") {
  cluster_config cfg;
  auto errors =
    apply_all({{"troupe.http.ssl.enable", "true"},
               {"troupe.http.ssl.keystore.location", "/gw.pem"},
               {"troupe.http.ssl.client.auth", "requested"},
               {"troupe.http.auth", "basic"},
               {"troupe.cluster.security", "ssl"},
               {"troupe.cluster.ssl.keystore.location", "/node.pem"},
               {"troupe.cluster.ssl.truststore.location", "/ca.pem"},
               {"zookeeper.set.acl", "true"},
               {"troupe.zookeeper.digest", "troupe:zk-secret"},
               {"troupe.http.admin.token", "t"}},
              cfg);
  CHECK(errors.empty());
  const auto& s = cfg.security;
  CHECK(s.http_ssl_enabled);
  CHECK(s.http_ssl.keystore_location == "/gw.pem");
  CHECK(s.http_ssl.client_auth_mode == security::client_auth::requested);
  CHECK(s.http_auth == "basic");
  CHECK(s.cluster_security == "ssl");
  CHECK(s.cluster_ssl.truststore_location == "/ca.pem");
  CHECK(s.zookeeper_set_acl);
  CHECK(s.zookeeper_digest == "troupe:zk-secret");

  cluster_config bad;
  errors = apply_all({{"troupe.http.ssl.enable", "true"},
                      {"troupe.http.auth", "digest"},
                      {"troupe.http.ssl.keystore.typo", "x"},
                      {"troupe.cluster.security", "ssl"},
                      {"zookeeper.set.acl", "true"},
                      {"troupe.zookeeper.digest", "nocolon"}},
                     bad);
  CHECK(has_error(errors, "troupe.http.ssl.enable=true needs"));
  CHECK(has_error(errors, "expected none or basic"));
  CHECK(has_error(errors, "unknown property: troupe.http.ssl.keystore.typo"));
  CHECK(has_error(errors, "troupe.cluster.security=ssl needs"));
  CHECK(has_error(errors, "troupe.zookeeper.digest: expected user:password"));
  CHECK(has_error(errors, "zookeeper.set.acl=true needs"));
  CHECK_FALSE(has_error(errors, "nocolon"));
}

TEST_CASE("the --help list names the security properties with their defaults") {
  auto find = [](std::string_view name) -> const property_doc* {
    for (const auto& p : known_properties())
      if (p.name == name)
        return &p;
    return nullptr;
  };
  for (auto name :
       {"listener.security.protocol.map", "ssl.keystore.location",
        "ssl.client.auth", "ssl.principal.mapping.rules",
        "sasl.enabled.mechanisms", "authorizer.class.name", "super.users",
        "allow.everyone.if.no.acl.found", "troupe.http.ssl.enable",
        "troupe.http.auth", "troupe.cluster.security", "zookeeper.set.acl",
        "troupe.zookeeper.digest", "connections.max.reauth.ms"}) {
    INFO(name);
    CHECK(find(name));
  }
  CHECK(find("ssl.client.auth")->default_value == "none");
  CHECK(find("sasl.enabled.mechanisms")->default_value == "GSSAPI");
  CHECK(find("listener.security.protocol.map")->default_value
        == "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
           "SASL_SSL:SASL_SSL");
}
