#include "domain/security/scram.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <charconv>
#include <map>
#include <stdexcept>

#include "domain/base64.hpp"

namespace troupe::security {

namespace {

using bytes = std::vector<uint8_t>;

const EVP_MD* digest_of(scram_mechanism m) {
  return m == scram_mechanism::sha256 ? EVP_sha256() : EVP_sha512();
}

bytes hmac(scram_mechanism m, const bytes& key, std::string_view data) {
  bytes out(EVP_MAX_MD_SIZE);
  unsigned int len = 0;
  HMAC(digest_of(m), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       out.data(), &len);
  out.resize(len);
  return out;
}

bytes hash(scram_mechanism m, const bytes& data) {
  bytes out(EVP_MAX_MD_SIZE);
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, digest_of(m),
             nullptr);
  out.resize(len);
  return out;
}

bytes xor_of(const bytes& x, const bytes& y) {
  bytes out(x.size());
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    out[i] = x[i] ^ y[i];
  return out;
}

std::string as_text(const bytes& b) {
  return {b.begin(), b.end()};
}

std::optional<bytes> decode(std::string_view b64) {
  auto text = base64_decode(b64);
  if (!text)
    return std::nullopt;
  return bytes{text->begin(), text->end()};
}

std::string encode(const bytes& b) {
  return base64_encode(as_text(b));
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// One "k=v" attribute list split at ',' (values may not hold ',').
std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string_view::npos
                                    ? std::string_view::npos
                                    : comma - start));
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

// ScramMessages' character classes.
bool is_value(std::string_view v) { // [\x01-\x7F&&[^,]]+
  if (v.empty())
    return false;
  for (unsigned char c : v)
    if (c < 0x01 || c > 0x7F || c == ',')
      return false;
  return true;
}

bool is_printable(std::string_view v) { // [\x21-\x7E&&[^,]]+
  if (v.empty())
    return false;
  for (unsigned char c : v)
    if (c < 0x21 || c > 0x7E || c == ',')
      return false;
  return true;
}

bool is_saslname(std::string_view v) { // (?:[\x01-\x7F&&[^=,]]|=2C|=3D)+
  if (v.empty())
    return false;
  for (size_t i = 0; i < v.size(); ++i) {
    auto c = static_cast<unsigned char>(v[i]);
    if (c == '=') {
      auto esc = v.substr(i + 1, 2);
      if (esc != "2C" && esc != "3D")
        return false;
      i += 2;
    } else if (c < 0x01 || c > 0x7F || c == ',') {
      return false;
    }
  }
  return true;
}

bool is_base64(std::string_view v) {
  return base64_decode(v).has_value();
}

// ",name=value" extensions: name [A-Za-z]+.
bool is_extension(std::string_view attr) {
  auto eq = attr.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return false;
  for (size_t i = 0; i < eq; ++i) {
    auto c = attr[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return false;
  }
  return is_value(attr.substr(eq + 1));
}

// ScramFormatter.username: "=2C" is ',', "=3D" is '='. SASLprep is the
// identity on the ASCII the message format allows.
std::string username_of(std::string_view saslname) {
  std::string out;
  for (size_t i = 0; i < saslname.size(); ++i) {
    if (saslname[i] == '=') {
      out += saslname.substr(i + 1, 2) == "2C" ? ',' : '=';
      i += 2;
    } else {
      out += saslname[i];
    }
  }
  return out;
}

std::string saslname_of(std::string_view user) {
  std::string out;
  for (char c : user) {
    if (c == ',')
      out += "=2C";
    else if (c == '=')
      out += "=3D";
    else
      out += c;
  }
  return out;
}

// ScramFormatter.secureRandomString: printable, no ','.
std::string random_nonce() {
  static constexpr char alphabet[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  auto raw = random_bytes(24);
  std::string out;
  for (auto b : raw)
    out += alphabet[b % 62];
  return out;
}

// ClientFirstMessage: "n,[a=authzid]," then the bare part
// "[m=..,]n=saslname,r=nonce[,ext=value]*".
struct client_first {
  std::string gs2_header;
  std::string authzid;
  std::string saslname;
  std::string nonce;
  std::map<std::string, std::string> extensions;
  std::string bare;
};

std::optional<client_first> parse_client_first(std::string_view msg) {
  client_first out;
  if (!starts_with(msg, "n,"))
    return std::nullopt;
  auto rest = msg.substr(2);
  auto comma = rest.find(',');
  if (comma == std::string_view::npos)
    return std::nullopt;
  auto authz = rest.substr(0, comma);
  if (!authz.empty()) {
    if (!starts_with(authz, "a=") || !is_saslname(authz.substr(2)))
      return std::nullopt;
    out.authzid = username_of(authz.substr(2));
  }
  out.gs2_header = std::string{msg.substr(0, 2 + comma + 1)};
  out.bare = std::string{rest.substr(comma + 1)};
  auto attrs = split_commas(out.bare);
  size_t i = 0;
  if (i < attrs.size() && starts_with(attrs[i], "m=")) {
    if (!is_value(attrs[i].substr(2)))
      return std::nullopt;
    ++i;
  }
  if (i >= attrs.size() || !starts_with(attrs[i], "n=")
      || !is_saslname(attrs[i].substr(2)))
    return std::nullopt;
  out.saslname = std::string{attrs[i++].substr(2)};
  if (i >= attrs.size() || !starts_with(attrs[i], "r=")
      || !is_printable(attrs[i].substr(2)))
    return std::nullopt;
  out.nonce = std::string{attrs[i++].substr(2)};
  for (; i < attrs.size(); ++i) {
    if (!is_extension(attrs[i]))
      return std::nullopt;
    auto eq = attrs[i].find('=');
    out.extensions[std::string{attrs[i].substr(0, eq)}] =
      std::string{attrs[i].substr(eq + 1)};
  }
  return out;
}

// ClientFinalMessage: "c=<b64>,r=<nonce>[,ext=value]*,p=<b64>".
struct client_final {
  std::string channel_binding;
  std::string nonce;
  std::string proof;
  std::string without_proof;
};

std::optional<client_final> parse_client_final(std::string_view msg) {
  auto p = msg.rfind(",p=");
  if (p == std::string_view::npos)
    return std::nullopt;
  client_final out;
  out.without_proof = std::string{msg.substr(0, p)};
  out.proof = std::string{msg.substr(p + 3)};
  if (out.proof.empty() || !is_base64(out.proof))
    return std::nullopt;
  auto attrs = split_commas(out.without_proof);
  if (attrs.size() < 2 || !starts_with(attrs[0], "c=")
      || !starts_with(attrs[1], "r="))
    return std::nullopt;
  out.channel_binding = std::string{attrs[0].substr(2)};
  if (out.channel_binding.empty() || !is_base64(out.channel_binding))
    return std::nullopt;
  out.nonce = std::string{attrs[1].substr(2)};
  if (!is_printable(out.nonce))
    return std::nullopt;
  for (size_t i = 2; i < attrs.size(); ++i)
    if (!is_extension(attrs[i]))
      return std::nullopt;
  return out;
}

// ServerFirstMessage: "r=<nonce>,s=<b64 salt>,i=<iterations>[,ext]*".
struct server_first {
  std::string nonce;
  bytes salt;
  int32_t iterations = 0;
};

std::optional<server_first> parse_server_first(std::string_view msg) {
  auto attrs = split_commas(msg);
  if (attrs.size() < 3 || !starts_with(attrs[0], "r=")
      || !starts_with(attrs[1], "s=") || !starts_with(attrs[2], "i="))
    return std::nullopt;
  server_first out;
  out.nonce = std::string{attrs[0].substr(2)};
  if (!is_printable(out.nonce))
    return std::nullopt;
  auto salt = decode(attrs[1].substr(2));
  if (!salt)
    return std::nullopt;
  out.salt = std::move(*salt);
  auto n = attrs[2].substr(2);
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(),
                                   out.iterations);
  if (ec != std::errc{} || end != n.data() + n.size() || out.iterations <= 0)
    return std::nullopt;
  return out;
}

std::string invalid_credentials(scram_mechanism m) {
  // SaslServerAuthenticator's message for every SaslException of the
  // exchange (a malformed message, an unknown user, a wrong proof).
  return "Authentication failed during authentication due to invalid "
         "credentials with SASL mechanism "
         + std::string{to_string(m)};
}

} // namespace

std::string_view to_string(scram_mechanism m) {
  return m == scram_mechanism::sha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

std::optional<scram_mechanism> parse_scram_mechanism(std::string_view name) {
  if (name == "SCRAM-SHA-256")
    return scram_mechanism::sha256;
  if (name == "SCRAM-SHA-512")
    return scram_mechanism::sha512;
  return std::nullopt;
}

std::vector<uint8_t> salted_password(scram_mechanism m,
                                     std::string_view password,
                                     const std::vector<uint8_t>& salt,
                                     int32_t iterations) {
  bytes out(static_cast<size_t>(EVP_MD_size(digest_of(m))));
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    salt.data(), static_cast<int>(salt.size()), iterations,
                    digest_of(m), static_cast<int>(out.size()), out.data());
  return out;
}

scram_credential credential_from_salted_password(
  scram_mechanism m, const std::vector<uint8_t>& salted,
  std::vector<uint8_t> salt, int32_t iterations) {
  scram_credential c;
  auto client_key = hmac(m, salted, "Client Key");
  c.stored_key = hash(m, client_key);
  c.server_key = hmac(m, salted, "Server Key");
  c.salt = std::move(salt);
  c.iterations = iterations;
  return c;
}

scram_credential make_scram_credential(scram_mechanism m,
                                       std::string_view password,
                                       std::vector<uint8_t> salt,
                                       int32_t iterations) {
  auto salted = salted_password(m, password, salt, iterations);
  return credential_from_salted_password(m, salted, std::move(salt),
                                         iterations);
}

bool verify_password(scram_mechanism m, const scram_credential& credential,
                     std::string_view password) {
  if (credential.iterations <= 0)
    return false;
  auto c = make_scram_credential(m, password, credential.salt,
                                 credential.iterations);
  return c.stored_key.size() == credential.stored_key.size()
         && CRYPTO_memcmp(c.stored_key.data(), credential.stored_key.data(),
                          c.stored_key.size())
              == 0;
}

std::string format_scram_credential(const scram_credential& c) {
  return "salt=" + encode(c.salt) + ",stored_key=" + encode(c.stored_key)
         + ",server_key=" + encode(c.server_key)
         + ",iterations=" + std::to_string(c.iterations);
}

// ScramCredentialUtils.credentialFromString: exactly the four keys.
std::optional<scram_credential> parse_scram_credential(std::string_view text) {
  std::map<std::string, std::string> props;
  for (auto token : split_commas(text)) {
    auto eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return std::nullopt;
    props[std::string{token.substr(0, eq)}] = std::string{token.substr(eq + 1)};
  }
  if (props.size() != 4 || !props.count("salt") || !props.count("stored_key")
      || !props.count("server_key") || !props.count("iterations"))
    return std::nullopt;
  scram_credential c;
  auto salt = decode(props["salt"]);
  auto stored = decode(props["stored_key"]);
  auto server = decode(props["server_key"]);
  if (!salt || !stored || !server)
    return std::nullopt;
  const auto& n = props["iterations"];
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(),
                                   c.iterations);
  if (ec != std::errc{} || end != n.data() + n.size())
    return std::nullopt;
  c.salt = std::move(*salt);
  c.stored_key = std::move(*stored);
  c.server_key = std::move(*server);
  return c;
}

std::vector<uint8_t> random_bytes(size_t n) {
  bytes out(n);
  if (n > 0 && RAND_bytes(out.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("RAND_bytes failed");
  return out;
}

// -- scram_server ---------------------------------------------------------------

scram_server::scram_server(scram_mechanism m, lookup_fn lookup,
                           std::string server_nonce)
  : mechanism_(m),
    lookup_(std::move(lookup)),
    server_nonce_(std::move(server_nonce)) {
  // nop
}

// ScramSaslServer.evaluateResponse.
scram_server::step_result scram_server::step(std::string_view msg) {
  step_result result;
  auto fail = [&](std::string error) {
    phase_ = phase::failed;
    credential_.reset();
    result.response.clear();
    result.error = std::move(error);
    return result;
  };
  switch (phase_) {
    case phase::first: {
      auto first = parse_client_first(msg);
      if (!first)
        return fail(invalid_credentials(mechanism_));
      // tokenauth=true asks for a delegation token's credential; troupe
      // issues none, so there is nothing to look up.
      auto token = first->extensions.find("tokenauth");
      if (token != first->extensions.end() && token->second == "true")
        return fail(invalid_credentials(mechanism_));
      user_ = username_of(first->saslname);
      credential_ = lookup_ ? lookup_(user_) : std::nullopt;
      if (!credential_)
        return fail(invalid_credentials(mechanism_));
      if (!first->authzid.empty() && first->authzid != user_)
        return fail("Authentication failed: Client requested an "
                    "authorization id that is different from username");
      if (credential_->iterations < scram_min_iterations)
        return fail(invalid_credentials(mechanism_));
      client_first_bare_ = first->bare;
      gs2_header_ = first->gs2_header;
      nonce_ = first->nonce
               + (server_nonce_.empty() ? random_nonce() : server_nonce_);
      server_first_ = "r=" + nonce_ + ",s=" + encode(credential_->salt)
                      + ",i=" + std::to_string(credential_->iterations);
      phase_ = phase::final;
      result.response = server_first_;
      return result;
    }
    case phase::final: {
      auto final = parse_client_final(msg);
      if (!final)
        return fail(invalid_credentials(mechanism_));
      // ScramSaslServer: the final nonce must END with the server-first
      // one (nonce.endsWith), not equal it: librdkafka sends its client
      // nonce again in front ("r=" cnonce + server-first nonce), which
      // Kafka accepts; the proof covers the client's own bytes.
      if (final->nonce.size() < nonce_.size()
          || final->nonce.compare(final->nonce.size() - nonce_.size(),
                                  nonce_.size(), nonce_)
               != 0)
        return fail(invalid_credentials(mechanism_));
      auto binding = base64_decode(final->channel_binding);
      if (!binding || *binding != gs2_header_)
        return fail(invalid_credentials(mechanism_));
      auto auth_message = client_first_bare_ + "," + server_first_ + ","
                          + final->without_proof;
      auto proof = decode(final->proof);
      const auto& stored_key = credential_->stored_key;
      auto client_signature = hmac(mechanism_, stored_key, auth_message);
      if (!proof || proof->size() != client_signature.size())
        return fail(invalid_credentials(mechanism_));
      auto computed = hash(mechanism_, xor_of(client_signature, *proof));
      if (computed.size() != stored_key.size()
          || CRYPTO_memcmp(computed.data(), stored_key.data(), computed.size())
               != 0)
        return fail(invalid_credentials(mechanism_));
      auto server_signature =
        hmac(mechanism_, credential_->server_key, auth_message);
      credential_.reset();
      phase_ = phase::done;
      result.response = "v=" + encode(server_signature);
      result.complete = true;
      return result;
    }
    case phase::done:
    case phase::failed:
      break;
  }
  return fail("Unexpected SASL token in SCRAM server state "
              + std::string{phase_ == phase::done ? "COMPLETE" : "FAILED"});
}

// -- scram_client ---------------------------------------------------------------

scram_client::scram_client(scram_mechanism m, std::string user,
                           std::string password, std::string nonce)
  : mechanism_(m),
    user_(std::move(user)),
    password_(std::move(password)),
    nonce_(std::move(nonce)) {
  // nop
}

std::string scram_client::first_message() {
  if (nonce_.empty())
    nonce_ = random_nonce();
  client_first_bare_ = "n=" + saslname_of(user_) + ",r=" + nonce_;
  return "n,," + client_first_bare_;
}

std::optional<std::string>
scram_client::final_message(std::string_view server_first_message) {
  auto first = parse_server_first(server_first_message);
  // ScramMessages.ServerFirstMessage: "Invalid server nonce: does not start
  // with client nonce".
  if (!first || !starts_with(first->nonce, nonce_)
      || first->nonce.size() == nonce_.size())
    return std::nullopt;
  auto salted = salted_password(mechanism_, password_, first->salt,
                                first->iterations);
  auto client_key = hmac(mechanism_, salted, "Client Key");
  auto stored_key = hash(mechanism_, client_key);
  auto server_key = hmac(mechanism_, salted, "Server Key");
  auto without_proof = "c=" + base64_encode("n,,") + ",r=" + first->nonce;
  auto auth_message = client_first_bare_ + ","
                      + std::string{server_first_message} + ","
                      + without_proof;
  auto client_signature = hmac(mechanism_, stored_key, auth_message);
  server_signature_ = hmac(mechanism_, server_key, auth_message);
  return without_proof + ",p=" + encode(xor_of(client_key, client_signature));
}

bool scram_client::verify_server_final(std::string_view server_final) const {
  if (!starts_with(server_final, "v=") || server_signature_.empty())
    return false;
  auto signature = decode(server_final.substr(2));
  return signature && *signature == server_signature_;
}

} // namespace troupe::security
