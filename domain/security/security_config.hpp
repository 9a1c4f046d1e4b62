#pragma once

// The security settings of a node, in Kafka's property names (parsed by
// domain/properties.cpp; docs/ARCHITECTURE.md §9): the Kafka listeners and
// their security protocols, TLS material (KIP-651 PEM), SASL, the
// authorizer, the HTTP gateway's HTTPS and the node links' TLS.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "domain/security/acl.hpp"

namespace troupe::security {

/// Kafka's SecurityProtocol.
enum class listener_protocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

inline bool uses_tls(listener_protocol p) noexcept {
  return p == listener_protocol::ssl || p == listener_protocol::sasl_ssl;
}

inline bool uses_sasl(listener_protocol p) noexcept {
  return p == listener_protocol::sasl_plaintext
         || p == listener_protocol::sasl_ssl;
}

/// ssl.client.auth
enum class client_auth { none, requested, required };

/// TLS material and settings: ssl.* for a listener (listener.name.<l>.ssl.*
/// overrides), troupe.http.ssl.* for the gateway, troupe.cluster.ssl.* for
/// node links. PEM only (ssl.keystore.type=PEM, ssl.truststore.type=PEM).
struct tls_config {
  /// ssl.keystore.location: a PEM file with the certificate chain and the
  /// private key.
  std::string keystore_location;
  /// ssl.keystore.certificate.chain / ssl.keystore.key: the same as PEM text.
  std::string keystore_certificate_chain;
  std::string keystore_key;
  /// ssl.key.password: the private key's passphrase.
  std::string key_password;
  /// ssl.truststore.location (PEM file of CA certificates) or
  /// ssl.truststore.certificates (PEM text).
  std::string truststore_location;
  std::string truststore_certificates;
  /// ssl.client.auth
  client_auth client_auth_mode = client_auth::none;
  /// ssl.enabled.protocols
  std::vector<std::string> enabled_protocols{"TLSv1.2", "TLSv1.3"};
  /// ssl.cipher.suites (empty: OpenSSL's defaults)
  std::vector<std::string> cipher_suites;
  /// ssl.principal.mapping.rules
  std::string principal_mapping_rules = "DEFAULT";

  bool has_keystore() const noexcept {
    return !keystore_location.empty() || !keystore_certificate_chain.empty();
  }
};

/// One entry of `listeners` (or `advertised.listeners`).
struct listener_spec {
  /// The listener name, upper case ("PLAINTEXT", "CLIENT").
  std::string name;
  /// Empty: all interfaces (Kafka's null host).
  std::string host;
  int32_t port = -1;
  listener_protocol protocol = listener_protocol::plaintext;
};

/// One listener's SASL settings.
struct sasl_config {
  /// sasl.enabled.mechanisms (listener.name.<l>.sasl.enabled.mechanisms).
  std::vector<std::string> enabled_mechanisms{"GSSAPI"};
  /// PLAIN's users from listener.name.<l>.plain.sasl.jaas.config (or
  /// sasl.jaas.config): user → password.
  std::map<std::string, std::string> plain_users;
};

struct security_config {
  /// listener.security.protocol.map, parsed: name → protocol. Kafka's
  /// default maps each protocol's own name.
  std::map<std::string, listener_protocol> protocol_map;
  /// ssl.* (the default of every listener) and listener.name.<l>.ssl.*.
  tls_config ssl;
  std::map<std::string, tls_config> listener_ssl;
  /// sasl.* and listener.name.<l>.* SASL settings.
  sasl_config sasl;
  std::map<std::string, sasl_config> listener_sasl;
  /// connections.max.reauth.ms (KIP-368; 0: no re-authentication).
  int64_t connections_max_reauth_ms = 0;
  /// authorizer.class.name, super.users, allow.everyone.if.no.acl.found.
  std::string authorizer_class_name;
  authorizer_config authorizer;
  /// troupe.http.ssl.enable and troupe.http.ssl.*: HTTPS on the gateway.
  bool http_ssl_enabled = false;
  tls_config http_ssl;
  /// troupe.http.auth: "none" (REST calls act as User:ANONYMOUS) or "basic"
  /// (HTTP Basic against the SCRAM and PLAIN users; 401 without).
  std::string http_auth = "none";
  /// troupe.cluster.security: "" (not said), "plaintext" or "ssl".
  std::string cluster_security;
  /// troupe.cluster.ssl.*: the node links' certificate, key and CA.
  tls_config cluster_ssl;
  /// zookeeper.set.acl and troupe.zookeeper.digest ("user:password"):
  /// digest authentication to ZooKeeper, znodes readable by all and
  /// writable by this identity only.
  bool zookeeper_set_acl = false;
  std::string zookeeper_digest;

  /// The TLS settings of listener `name`.
  const tls_config& tls_of(const std::string& name) const {
    auto i = listener_ssl.find(name);
    return i == listener_ssl.end() ? ssl : i->second;
  }

  const sasl_config& sasl_of(const std::string& name) const {
    auto i = listener_sasl.find(name);
    return i == listener_sasl.end() ? sasl : i->second;
  }
};

} // namespace troupe::security
