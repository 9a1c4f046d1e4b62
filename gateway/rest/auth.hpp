#pragma once

// Who a REST call or WebSocket acts as, and the guards that use it
// (docs/ARCHITECTURE.md §5, §9). troupe.http.auth=basic makes every call
// but /healthz authenticate: `Authorization: Basic` with a user's SCRAM
// password (the security store's credentials, either mechanism) or the
// PLAIN password of the listeners' JAAS config, or `Bearer <admin token>`,
// which acts as a super user. troupe.http.auth=none: calls act as
// User:ANONYMOUS (the admin token still makes a super user). The ACLs of
// the store then apply to the principal as on the Kafka listener. Plain
// C++.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "domain/security/acl.hpp"
#include "domain/security/principal_mapping.hpp"
#include "domain/security/scram.hpp"
#include "domain/security/security_config.hpp"
#include "gateway/http/handler.hpp"

namespace troupe::security {
class security_store;
} // namespace troupe::security

namespace troupe::rest {

/// The admin guard of the routes that change the cluster when no
/// authorizer runs: with troupe.http.admin.token set they need `Bearer
/// <token>` (else 401); without a token they answer 403 unless
/// troupe.http.admin.enable=true. nullopt: allowed.
std::optional<http_response> check_admin(std::string_view token, bool enable,
                                         std::string_view authorization);

/// RFC 7617's credentials.
struct basic_credentials {
  std::string user;
  std::string password;
};

/// "Basic <base64(user:password)>" (the scheme case-insensitive); nullopt
/// for another scheme, bad base64, no colon or an empty user.
std::optional<basic_credentials> parse_basic(std::string_view authorization);

/// Who a call acts as.
struct principal {
  /// "User:alice" (User:ANONYMOUS without authentication) and the client's
  /// address.
  security::request_identity identity{"User:ANONYMOUS", ""};
  /// The admin token: allowed everything, as a super.users entry.
  bool super = false;
};

/// The principal a call acts as under the admin token.
inline constexpr std::string_view admin_token_principal = "User:admin-token";

/// The name of Kafka's one CLUSTER resource.
inline constexpr std::string_view cluster_resource = "kafka-cluster";

/// Whether `who` may `op` on the resource: the admin token always; else the
/// store's ACLs (no store, or no authorizer: yes).
bool may(const principal& who, const security::security_store* store,
         security::acl_operation op, security::resource_type type,
         std::string_view name);

/// One principal's decisions for code that holds no store (the instance
/// registry, the WebSocket hub); empty: everything is allowed.
using access_check = std::function<bool(
  security::acl_operation, security::resource_type, const std::string&)>;

access_check access_of(principal who,
                       std::shared_ptr<security::security_store> store);

/// Successful SCRAM verifications of a password, so that a keep-alive
/// client does not pay a PBKDF2 (4096+ iterations) per request. An entry
/// is an HMAC, under a key drawn once per process, of the user, the
/// password and the credential it matched (mechanism, salt, keys,
/// iterations): a changed password or credential misses, no password is
/// kept, and only successes are ever inserted. Thread-safe; a full cache
/// starts over.
class verification_cache {
public:
  explicit verification_cache(size_t capacity = 4096);

  bool contains(std::string_view user, std::string_view password,
                security::scram_mechanism m,
                const security::scram_credential& credential) const;

  void insert(std::string_view user, std::string_view password,
              security::scram_mechanism m,
              const security::scram_credential& credential);

  size_t size() const;

private:
  std::string key_of(std::string_view user, std::string_view password,
                     security::scram_mechanism m,
                     const security::scram_credential& credential) const;

  size_t capacity_;
  std::vector<uint8_t> secret_;
  mutable std::mutex mtx_;
  std::unordered_set<std::string> entries_;
};

/// The PLAIN users of every listener's JAAS config
/// (listener.name.<l>.plain.sasl.jaas.config and sasl.jaas.config): a
/// password is accepted when it is the user's on any of them.
std::vector<std::map<std::string, std::string>>
plain_users_of(const security::security_config& config);

/// troupe.http.auth's decision for one request.
class authenticator {
public:
  struct settings {
    /// troupe.http.auth=basic
    bool basic = false;
    /// troupe.http.admin.token (empty: none)
    std::string admin_token;
    std::vector<std::map<std::string, std::string>> plain_users;
    /// troupe.http.ssl.principal.mapping.rules, for calls with a client
    /// certificate under troupe.http.auth=none (null: the DN as it is).
    std::optional<security::principal_mapper> mapper;
  };

  authenticator(settings s, std::shared_ptr<security::security_store> store);

  /// The principal, or nullopt with `why` set (answer 401). Under
  /// troupe.http.auth=none a verified client certificate (`tls_subject`)
  /// names the principal as on Kafka's SSL listeners ("User:CN=..."), else
  /// User:ANONYMOUS; under basic the credentials do.
  std::optional<principal> authenticate(std::string_view authorization,
                                        const std::string& host,
                                        std::string& why,
                                        std::string_view tls_subject = {}) const;

  bool basic() const noexcept {
    return settings_.basic;
  }

  const verification_cache& cache() const noexcept {
    return cache_;
  }

private:
  bool check_password(const std::string& user,
                      const std::string& password) const;

  settings settings_;
  std::shared_ptr<security::security_store> store_;
  mutable verification_cache cache_;
};

/// The 401 (REST Proxy's 40101) with `WWW-Authenticate: Basic
/// realm="troupe"`.
http_response unauthorized(std::string_view why);

} // namespace troupe::rest
