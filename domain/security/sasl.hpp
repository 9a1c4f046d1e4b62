#pragma once

// SASL below the Kafka protocol (KIP-43, KIP-152): mechanism names, the
// PLAIN message, the JAAS configuration PLAIN users come from
// (listener.name.<l>.plain.sasl.jaas.config), and one connection's
// authentication: which mechanism, what step, which user. Plain C++.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/security/scram.hpp"

namespace troupe::security {

class security_snapshot;

/// PLAIN's message: [authzid] NUL authcid NUL passwd (RFC 4616).
struct plain_message {
  std::string authzid;
  std::string username;
  std::string password;
};

/// nullopt when malformed (Kafka: "Invalid SASL/PLAIN response: expected 3
/// tokens" and the empty-username/password checks), with `error` set.
std::optional<plain_message> parse_plain(std::string_view bytes,
                                         std::string& error);

/// A JAAS login module line as Kafka's JaasConfig parses it:
/// `org.apache.kafka.common.security.plain.PlainLoginModule required
///  username="admin" password="admin-secret" user_admin="admin-secret"
///  user_alice="alice-secret";`. Returns the options, or nullopt with
/// `error` set.
struct jaas_entry {
  std::string login_module;
  std::string control_flag; // required, requisite, sufficient, optional
  std::map<std::string, std::string> options;
};
std::optional<std::vector<jaas_entry>> parse_jaas(std::string_view text,
                                                  std::string& error);

/// PLAIN's users from a PlainLoginModule entry: option user_<name>=<password>.
std::map<std::string, std::string>
plain_users(const std::vector<jaas_entry>& entries);

/// The mechanisms troupe serves, in sasl.enabled.mechanisms' spelling.
inline constexpr std::string_view mechanism_plain = "PLAIN";
inline constexpr std::string_view mechanism_scram_sha_256 = "SCRAM-SHA-256";
inline constexpr std::string_view mechanism_scram_sha_512 = "SCRAM-SHA-512";
bool is_served_mechanism(std::string_view name);

/// One connection's SASL authentication, over SaslHandshake and
/// SaslAuthenticate (or raw tokens after SaslHandshake v0): PLAIN checks
/// the listener's PLAIN users; SCRAM the credentials of the snapshot the
/// exchange started with.
class sasl_authenticator {
public:
  /// `plain_users`: the listener's PLAIN users (user → password);
  /// `snapshot`: the credentials in force (never null).
  sasl_authenticator(std::vector<std::string> enabled_mechanisms,
                     std::map<std::string, std::string> plain_users,
                     std::shared_ptr<const security_snapshot> snapshot);

  /// SaslHandshake: false (UNSUPPORTED_SASL_MECHANISM) when `mechanism` is
  /// not enabled.
  bool select(std::string_view mechanism);

  const std::vector<std::string>& enabled_mechanisms() const noexcept {
    return enabled_;
  }

  struct step_result {
    std::string response;
    bool complete = false;
    /// Non-empty: SASL_AUTHENTICATION_FAILED with this message.
    std::string error;
  };

  /// One SaslAuthenticate token.
  step_result step(std::string_view token);

  /// "User:<name>" once complete.
  std::string principal() const;

  /// The authenticated user name once complete.
  const std::string& user() const noexcept {
    return user_;
  }

  /// The mechanism selected, empty before select.
  const std::string& mechanism() const noexcept {
    return mechanism_;
  }

private:
  std::vector<std::string> enabled_;
  std::map<std::string, std::string> plain_users_;
  std::shared_ptr<const security_snapshot> snapshot_;
  std::string mechanism_;
  std::optional<scram_server> scram_;
  std::string user_;
  bool complete_ = false;
};

} // namespace troupe::security
