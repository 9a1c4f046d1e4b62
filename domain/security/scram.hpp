#pragma once

// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka implements
// them (KIP-84): credentials of a salt, StoredKey, ServerKey and iteration
// count, stored in Kafka's text form; the server side of the exchange, one
// message at a time. Plain C++ over OpenSSL's libcrypto (PBKDF2, HMAC, SHA).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::security {

enum class scram_mechanism : int8_t {
  // The codes of DescribeUserScramCredentials/AlterUserScramCredentials.
  sha256 = 1,
  sha512 = 2,
};

/// "SCRAM-SHA-256", "SCRAM-SHA-512".
std::string_view to_string(scram_mechanism m);
std::optional<scram_mechanism> parse_scram_mechanism(std::string_view name);

/// Kafka's minimum (ScramMechanism.minIterations) and maximum iterations.
inline constexpr int32_t scram_min_iterations = 4096;
inline constexpr int32_t scram_max_iterations = 16384;

/// ScramCredential: the server never keeps the password.
struct scram_credential {
  std::vector<uint8_t> salt;
  std::vector<uint8_t> stored_key;
  std::vector<uint8_t> server_key;
  int32_t iterations = scram_min_iterations;

  friend bool operator==(const scram_credential& x, const scram_credential& y) {
    return x.salt == y.salt && x.stored_key == y.stored_key
           && x.server_key == y.server_key && x.iterations == y.iterations;
  }
};

/// SaltedPassword = Hi(password, salt, i); ClientKey, StoredKey, ServerKey
/// as RFC 5802 derives them.
scram_credential make_scram_credential(scram_mechanism m,
                                       std::string_view password,
                                       std::vector<uint8_t> salt,
                                       int32_t iterations);

/// Same, from a salted password (AlterUserScramCredentials carries the
/// salted password, not the password).
scram_credential credential_from_salted_password(
  scram_mechanism m, const std::vector<uint8_t>& salted_password,
  std::vector<uint8_t> salt, int32_t iterations);

/// Hi(password, salt, i), PBKDF2 with the mechanism's HMAC.
std::vector<uint8_t> salted_password(scram_mechanism m,
                                     std::string_view password,
                                     const std::vector<uint8_t>& salt,
                                     int32_t iterations);

/// True when `password` is the one the credential was made from.
bool verify_password(scram_mechanism m, const scram_credential& credential,
                     std::string_view password);

/// ScramCredentialUtils.credentialToString:
/// "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>".
std::string format_scram_credential(const scram_credential& c);
std::optional<scram_credential> parse_scram_credential(std::string_view text);

/// `n` random bytes from OpenSSL's RAND_bytes.
std::vector<uint8_t> random_bytes(size_t n);

/// The server side of one SCRAM exchange (ScramSaslServer): the
/// client-first message, then the client-final message. Kafka's rules:
/// no channel binding ("n,,"), the username SASLprep'd and "=2C"/"=3D"
/// decoded, extensions ignored except tokenauth, the client nonce a prefix
/// of the combined nonce, the proof checked against StoredKey.
class scram_server {
public:
  /// The credential of a user for this mechanism, or nullopt.
  using lookup_fn =
    std::function<std::optional<scram_credential>(const std::string& user)>;

  /// `server_nonce`: the nonce's server part; empty draws a random one
  /// (a fixed one reproduces RFC 7677's test vector).
  scram_server(scram_mechanism m, lookup_fn lookup,
               std::string server_nonce = {});

  /// What one step comes to.
  struct step_result {
    /// The bytes to send back (server-first or server-final message);
    /// empty on failure.
    std::string response;
    /// The exchange ended successfully.
    bool complete = false;
    /// Non-empty: the exchange failed; Kafka's message for
    /// SASL_AUTHENTICATION_FAILED ("Authentication failed during
    /// authentication due to invalid credentials with SASL mechanism
    /// SCRAM-SHA-512").
    std::string error;
  };

  step_result step(std::string_view client_message);

  /// The authenticated user once complete.
  const std::string& user() const noexcept {
    return user_;
  }

  scram_mechanism mechanism() const noexcept {
    return mechanism_;
  }

private:
  enum class phase { first, final, done, failed };
  scram_mechanism mechanism_;
  lookup_fn lookup_;
  phase phase_ = phase::first;
  std::string user_;
  std::string client_first_bare_;
  std::string gs2_header_;
  std::string server_nonce_;
  std::string server_first_;
  std::string nonce_;
  std::optional<scram_credential> credential_;
};

/// The client side, for troupe's own tests, benchmarks and fuzz targets:
/// builds client-first, answers server-first, checks server-final.
class scram_client {
public:
  /// `nonce`: the client nonce; empty draws a random one.
  scram_client(scram_mechanism m, std::string user, std::string password,
               std::string nonce = {});

  std::string first_message();
  /// nullopt when server-first is malformed or its nonce is not ours.
  std::optional<std::string> final_message(std::string_view server_first);
  /// True when the server signature is the one the password gives.
  bool verify_server_final(std::string_view server_final) const;

private:
  scram_mechanism mechanism_;
  std::string user_;
  std::string password_;
  std::string nonce_;
  std::string client_first_bare_;
  std::vector<uint8_t> server_signature_;
};

} // namespace troupe::security
