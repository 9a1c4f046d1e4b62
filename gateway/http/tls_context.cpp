#include "gateway/http/tls_context.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "domain/security/pem.hpp"

namespace asio = boost::asio;
namespace ssl = asio::ssl;

namespace troupe {

namespace {

int protocol_version(const std::string& name) {
  if (name == "TLSv1.2")
    return TLS1_2_VERSION;
  if (name == "TLSv1.3")
    return TLS1_3_VERSION;
  if (name == "TLSv1.1")
    return TLS1_1_VERSION;
  if (name == "TLSv1")
    return TLS1_VERSION;
  throw std::runtime_error("troupe.http.ssl.enabled.protocols: unknown "
                           "protocol '"
                           + name + "' (TLSv1.2, TLSv1.3)");
}

/// Runs `load`; an OpenSSL failure becomes an error naming `what`.
template <class F>
void load(const char* what, F&& f) {
  boost::system::error_code ec;
  f(ec);
  if (ec)
    throw std::runtime_error(std::string{"troupe.http.ssl."} + what + ": "
                             + ec.message());
}

} // namespace

std::shared_ptr<ssl::context>
make_tls_server_context(const security::tls_config& config) {
  if (!config.has_keystore())
    throw std::runtime_error("troupe.http.ssl.enable=true needs "
                             "troupe.http.ssl.keystore.location or "
                             "troupe.http.ssl.keystore.certificate.chain");
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2
                   | ssl::context::no_sslv3 | ssl::context::single_dh_use);
  // ssl.enabled.protocols: from the oldest to the newest named.
  int lo = 0;
  int hi = 0;
  for (auto& p : config.enabled_protocols) {
    auto v = protocol_version(p);
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo == 0)
    throw std::runtime_error("troupe.http.ssl.enabled.protocols is empty");
  SSL_CTX_set_min_proto_version(ctx->native_handle(), lo);
  SSL_CTX_set_max_proto_version(ctx->native_handle(), hi);
  if (!config.cipher_suites.empty()) {
    std::string list;
    for (auto& c : config.cipher_suites)
      list += (list.empty() ? "" : ":") + c;
    // TLSv1.3's suites and the older ones have separate lists in OpenSSL.
    auto v12 = SSL_CTX_set_cipher_list(ctx->native_handle(), list.c_str());
    auto v13 = SSL_CTX_set_ciphersuites(ctx->native_handle(), list.c_str());
    if (v12 == 0 && v13 == 0)
      throw std::runtime_error("troupe.http.ssl.cipher.suites: none known");
  }
  if (!config.key_password.empty()) {
    auto password = config.key_password;
    ctx->set_password_callback(
      [password](size_t, ssl::context::password_purpose) { return password; });
  }
  using security::normalize_pem;
  if (!config.keystore_certificate_chain.empty())
    load("keystore.certificate.chain", [&](auto& ec) {
      ctx->use_certificate_chain(
        asio::buffer(normalize_pem(config.keystore_certificate_chain)), ec);
    });
  else
    load("keystore.location", [&](auto& ec) {
      ctx->use_certificate_chain_file(config.keystore_location, ec);
    });
  // The key: PEM text, else the keystore file (which holds both).
  if (!config.keystore_key.empty())
    load("keystore.key", [&](auto& ec) {
      ctx->use_private_key(asio::buffer(normalize_pem(config.keystore_key)),
                           ssl::context::pem, ec);
    });
  else if (!config.keystore_location.empty())
    load("keystore.location (its private key)", [&](auto& ec) {
      ctx->use_private_key_file(config.keystore_location, ssl::context::pem,
                                ec);
    });
  else
    throw std::runtime_error("troupe.http.ssl.keystore.certificate.chain "
                             "needs troupe.http.ssl.keystore.key");
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    throw std::runtime_error("troupe.http.ssl: the private key does not "
                             "match the certificate");
  if (!config.truststore_certificates.empty())
    load("truststore.certificates", [&](auto& ec) {
      ctx->add_certificate_authority(
        asio::buffer(normalize_pem(config.truststore_certificates)), ec);
    });
  if (!config.truststore_location.empty())
    load("truststore.location", [&](auto& ec) {
      ctx->load_verify_file(config.truststore_location, ec);
    });
  switch (config.client_auth_mode) {
    case security::client_auth::none:
      ctx->set_verify_mode(ssl::verify_none);
      break;
    case security::client_auth::requested:
      ctx->set_verify_mode(ssl::verify_peer);
      break;
    case security::client_auth::required:
      ctx->set_verify_mode(ssl::verify_peer
                           | ssl::verify_fail_if_no_peer_cert);
      break;
  }
  return ctx;
}

std::string tls_peer_subject(SSL* ssl) {
  X509* cert = SSL_get_peer_certificate(ssl);
  if (!cert)
    return {};
  std::string out;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (bio) {
      X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                         XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
      char* data = nullptr;
      auto n = BIO_get_mem_data(bio, &data);
      if (n > 0)
        out.assign(data, static_cast<size_t>(n));
      BIO_free(bio);
    }
  }
  X509_free(cert);
  return out;
}

} // namespace troupe
