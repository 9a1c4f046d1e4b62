#include "gateway/rest/auth.hpp"

#include <cctype>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "domain/base64.hpp"
#include "domain/security/security_store.hpp"
#include "gateway/rest/errors.hpp"

namespace troupe::rest {

namespace {

/// Compares in time independent of where the strings differ.
bool same(std::string_view x, std::string_view y) {
  unsigned char diff = x.size() == y.size() ? 0 : 1;
  for (size_t i = 0; i < x.size(); ++i)
    diff |= static_cast<unsigned char>(x[i] ^ (i < y.size() ? y[i] : 0));
  return diff == 0;
}

/// The token of `scheme` ("Bearer", "Basic"), the scheme case-insensitive
/// (RFC 7235), or nullopt.
std::optional<std::string_view> token_of(std::string_view authorization,
                                         std::string_view scheme) {
  if (authorization.size() <= scheme.size()
      || authorization[scheme.size()] != ' ')
    return std::nullopt;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i]))
        != std::tolower(static_cast<unsigned char>(scheme[i])))
      return std::nullopt;
  auto token = authorization.substr(scheme.size() + 1);
  while (!token.empty() && token.front() == ' ')
    token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ')
    token.remove_suffix(1);
  return token;
}

void append_field(std::string& out, std::string_view x) {
  auto n = x.size();
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((n >> (8 * i)) & 0xff);
  out.append(x.data(), x.size());
}

std::string_view bytes(const std::vector<uint8_t>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};
}

} // namespace

std::optional<http_response> check_admin(std::string_view token, bool enable,
                                         std::string_view authorization) {
  if (token.empty()) {
    if (enable)
      return std::nullopt;
    return error_body(403, 403, "FORBIDDEN",
                      "admin routes are off: set troupe.http.admin.token "
                      "(or troupe.http.admin.enable=true for local "
                      "experiments)");
  }
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() > scheme.size()
      && authorization.substr(0, scheme.size()) == scheme
      && same(authorization.substr(scheme.size()), token))
    return std::nullopt;
  auto res = error_body(401, 401, "UNAUTHORIZED",
                        "this route needs Authorization: Bearer <token> "
                        "(troupe.http.admin.token)");
  res.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"troupe\"");
  return res;
}

std::optional<basic_credentials> parse_basic(std::string_view authorization) {
  auto token = token_of(authorization, "Basic");
  if (!token)
    return std::nullopt;
  auto text = base64_decode(*token);
  if (!text)
    return std::nullopt;
  auto colon = text->find(':');
  if (colon == std::string::npos || colon == 0)
    return std::nullopt;
  return basic_credentials{text->substr(0, colon), text->substr(colon + 1)};
}

bool may(const principal& who, const security::security_store* store,
         security::acl_operation op, security::resource_type type,
         std::string_view name) {
  if (who.super || !store)
    return true;
  return store->snapshot()->authorize(who.identity, op, type, name);
}

access_check access_of(principal who,
                       std::shared_ptr<security::security_store> store) {
  if (who.super || !store)
    return {};
  return [who = std::move(who), store = std::move(store)](
           security::acl_operation op, security::resource_type type,
           const std::string& name) {
    return may(who, store.get(), op, type, name);
  };
}

// -- verification_cache ---------------------------------------------------------

verification_cache::verification_cache(size_t capacity)
  : capacity_(capacity), secret_(security::random_bytes(32)) {
  // nop
}

std::string
verification_cache::key_of(std::string_view user, std::string_view password,
                           security::scram_mechanism m,
                           const security::scram_credential& c) const {
  std::string data;
  append_field(data, user);
  append_field(data, password);
  data += static_cast<char>(m);
  append_field(data, bytes(c.salt));
  append_field(data, bytes(c.stored_key));
  append_field(data, bytes(c.server_key));
  append_field(data, std::to_string(c.iterations));
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
       &n);
  return std::string{reinterpret_cast<const char*>(out), n};
}

bool verification_cache::contains(std::string_view user,
                                  std::string_view password,
                                  security::scram_mechanism m,
                                  const security::scram_credential& c) const {
  auto key = key_of(user, password, m, c);
  std::lock_guard<std::mutex> guard{mtx_};
  return entries_.count(key) > 0;
}

void verification_cache::insert(std::string_view user,
                                std::string_view password,
                                security::scram_mechanism m,
                                const security::scram_credential& c) {
  auto key = key_of(user, password, m, c);
  std::lock_guard<std::mutex> guard{mtx_};
  if (entries_.size() >= capacity_)
    entries_.clear();
  entries_.insert(std::move(key));
}

size_t verification_cache::size() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return entries_.size();
}

// -- authenticator ------------------------------------------------------------------

std::vector<std::map<std::string, std::string>>
plain_users_of(const security::security_config& config) {
  std::vector<std::map<std::string, std::string>> out;
  if (!config.sasl.plain_users.empty())
    out.push_back(config.sasl.plain_users);
  for (auto& [name, sasl] : config.listener_sasl)
    if (!sasl.plain_users.empty())
      out.push_back(sasl.plain_users);
  return out;
}

authenticator::authenticator(settings s,
                             std::shared_ptr<security::security_store> store)
  : settings_(std::move(s)), store_(std::move(store)) {
  // nop
}

bool authenticator::check_password(const std::string& user,
                                   const std::string& password) const {
  using security::scram_mechanism;
  if (store_) {
    auto snap = store_->snapshot();
    if (auto u = snap->scram().find(user); u != snap->scram().end())
      for (auto m : {scram_mechanism::sha512, scram_mechanism::sha256}) {
        auto i = u->second.find(m);
        if (i == u->second.end())
          continue;
        auto& cred = i->second;
        if (cache_.contains(user, password, m, cred))
          return true;
        if (security::verify_password(m, cred, password)) {
          cache_.insert(user, password, m, cred);
          return true;
        }
      }
  }
  bool ok = false;
  for (auto& users : settings_.plain_users)
    if (auto i = users.find(user); i != users.end())
      ok |= same(password, i->second);
  return ok;
}

std::optional<principal>
authenticator::authenticate(std::string_view authorization,
                            const std::string& host, std::string& why,
                            std::string_view tls_subject) const {
  principal who;
  who.identity.host = host;
  if (!settings_.admin_token.empty())
    if (auto token = token_of(authorization, "Bearer");
        token && same(*token, settings_.admin_token)) {
      who.identity.principal = std::string{admin_token_principal};
      who.super = true;
      return who;
    }
  if (!settings_.basic) {
    if (tls_subject.empty())
      return who; // User:ANONYMOUS
    auto name = settings_.mapper ? settings_.mapper->apply(tls_subject)
                                 : std::optional<std::string>{tls_subject};
    if (!name) {
      why = "no troupe.http.ssl.principal.mapping.rules rule matches the "
            "client certificate "
            + std::string{tls_subject};
      return std::nullopt;
    }
    who.identity.principal = "User:" + *name;
    return who;
  }
  if (authorization.empty()) {
    why = "Authentication required: send Authorization: Basic (a SCRAM or "
          "PLAIN user) or Bearer <troupe.http.admin.token>";
    return std::nullopt;
  }
  auto creds = parse_basic(authorization);
  if (!creds || !check_password(creds->user, creds->password)) {
    why = "Authentication failed: invalid credentials";
    return std::nullopt;
  }
  who.identity.principal = "User:" + creds->user;
  return who;
}

http_response unauthorized(std::string_view why) {
  auto res = error_body(401, 40101, "AUTHENTICATION_FAILED", why);
  res.headers.emplace_back("WWW-Authenticate", "Basic realm=\"troupe\"");
  return res;
}

} // namespace troupe::rest
