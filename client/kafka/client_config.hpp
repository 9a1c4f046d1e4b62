#pragma once

// troupe's Kafka wire client (client/kafka/, plain C++, no CAF): the client
// properties of Kafka's admin tools (--command-config FILE), by Kafka's
// names (CommonClientConfigs, SslConfigs, SaslConfigs).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/properties.hpp"

namespace troupe::kafka_client {

struct client_config {
  /// host:port entries of bootstrap.servers / --bootstrap-server.
  std::vector<std::string> bootstrap{};
  std::string client_id = "troupe-admin";
  /// security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL.
  std::string security_protocol = "PLAINTEXT";
  /// sasl.mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (Kafka's default
  /// GSSAPI is refused: troupe does not speak Kerberos).
  std::string sasl_mechanism = "GSSAPI";
  /// From sasl.jaas.config (PlainLoginModule / ScramLoginModule).
  std::string sasl_username{};
  std::string sasl_password{};
  /// ssl.truststore.location (PEM, ssl.truststore.type=PEM); empty: the
  /// system's CAs.
  std::string truststore_location{};
  /// ssl.keystore.location (PEM: the private key and certificate chain).
  std::string keystore_location{};
  std::string key_password{};
  /// ssl.endpoint.identification.algorithm: "https" (the default) checks
  /// the broker's host name against its certificate; empty does not.
  bool verify_hostname = true;
  /// request.timeout.ms: every connect and request is bounded by it.
  int32_t request_timeout_ms = 30000;

  bool uses_tls() const {
    return security_protocol == "SSL" || security_protocol == "SASL_SSL";
  }
  bool uses_sasl() const {
    return security_protocol == "SASL_PLAINTEXT"
           || security_protocol == "SASL_SSL";
  }
};

/// Applies client properties onto `cfg`; false with `error` (one line) on a
/// value Kafka's client would refuse or troupe's cannot honour.
bool apply_client_properties(const properties& props, client_config& cfg,
                             std::string& error);

/// Reads a properties file (Kafka's syntax) and applies it.
bool load_client_properties(const std::string& path, client_config& cfg,
                            std::string& error);

/// Splits "h1:p1,h2:p2" into entries; false when an entry has no port.
bool parse_bootstrap(const std::string& text, std::vector<std::string>& out,
                     std::string& error);

/// Splits "host:port" (IPv6 "[::1]:9092" too).
bool split_host_port(const std::string& entry, std::string& host, int& port);

} // namespace troupe::kafka_client
