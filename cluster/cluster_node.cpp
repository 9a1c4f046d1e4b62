#include "cluster/cluster_node.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/stat.h>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "actors/broker.hpp"
#include "cluster/cluster_controller.hpp"
#include "cluster/zookeeper_session.hpp"

namespace troupe {

namespace {

// -- node links ---------------------------------------------------------------------

/// PEM text as a properties file may hold it (one line, blocks separated by
/// spaces, or escaped "\n"), folded back into PEM blocks of 64 columns.
std::string normalize_pem(std::string text) {
  for (size_t i = text.find("\\n"); i != std::string::npos;
       i = text.find("\\n", i))
    text.replace(i, 2, "\n");
  static const std::regex block{
    "-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----"};
  std::string out;
  for (std::sregex_iterator i{text.begin(), text.end(), block}, end; i != end;
       ++i) {
    std::string body;
    for (char c : (*i)[2].str())
      if (!std::isspace(static_cast<unsigned char>(c)))
        body += c;
    out += "-----BEGIN " + (*i)[1].str() + "-----\n";
    for (size_t k = 0; k < body.size(); k += 64)
      out += body.substr(k, 64) + "\n";
    out += "-----END " + (*i)[1].str() + "-----\n";
  }
  return out;
}

/// Writes `pem` to `dir`/`name`, readable by this user only.
std::string write_private(const std::filesystem::path& dir,
                          const std::string& name, const std::string& pem,
                          std::string& error) {
  auto path = (dir / name).string();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  auto old = ::umask(077);
  std::ofstream out{path, std::ios::trunc};
  out << normalize_pem(pem);
  out.close();
  ::umask(old);
  if (!out)
    error = "cannot write " + path;
  return path;
}

std::string openssl_errors() {
  std::string msg;
  while (auto e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!msg.empty())
      msg += "; ";
    msg += buf;
  }
  return msg.empty() ? "no detail from OpenSSL" : msg;
}

/// Loads the files as CAF's OpenSSL session will (caf/openssl/session.cpp,
/// create_ssl_context), and checks that this node's own certificate is
/// signed by the CA it trusts: the other nodes trust the same CA.
std::string check_tls_files(const std::string& certificate,
                            const std::string& key,
                            const std::string& passphrase,
                            const std::string& cafile) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{
    SSL_CTX_new(TLS_method()), SSL_CTX_free};
  if (!ctx)
    return "cannot create an OpenSSL context: " + openssl_errors();
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), certificate.c_str()) != 1)
    return "troupe.cluster.ssl: no certificate in " + certificate + ": "
           + openssl_errors();
  if (!passphrase.empty())
    SSL_CTX_set_default_passwd_cb_userdata(
      ctx.get(), const_cast<char*>(passphrase.c_str()));
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM)
      != 1)
    return "troupe.cluster.ssl: cannot read the private key in " + key
           + (passphrase.empty() ? " (encrypted? set ssl.key.password)"
                                 : " (wrong ssl.key.password?)")
           + ": " + openssl_errors();
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    return "troupe.cluster.ssl: the private key does not match the "
           "certificate: "
           + openssl_errors();
  if (SSL_CTX_load_verify_locations(ctx.get(), cafile.c_str(), nullptr) != 1)
    return "troupe.cluster.ssl: no CA certificate in " + cafile + ": "
           + openssl_errors();
  auto* own = SSL_CTX_get0_certificate(ctx.get());
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(ctx.get(), &chain);
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> verify{
    X509_STORE_CTX_new(), X509_STORE_CTX_free};
  if (!verify
      || X509_STORE_CTX_init(verify.get(), SSL_CTX_get_cert_store(ctx.get()),
                             own, chain)
           != 1)
    return "cannot check the certificate: " + openssl_errors();
  if (X509_verify_cert(verify.get()) != 1)
    return std::string{"troupe.cluster.ssl: this node's certificate is not "
                       "signed by a CA of its truststore ("}
           + X509_verify_cert_error_string(
             X509_STORE_CTX_get_error(verify.get()))
           + "); the other nodes, which trust the same CA, would refuse it";
  return {};
}

/// True when every address `host` names is a loopback address ("" and
/// 0.0.0.0 are all interfaces).
bool is_loopback(const std::string& host) {
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]")
    return false;
  auto name = host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']')
    name = name.substr(1, name.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || !found)
    return false;
  bool loopback = true;
  for (auto* a = found; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      auto* v4 = reinterpret_cast<sockaddr_in*>(a->ai_addr);
      loopback = loopback && (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(a->ai_addr);
      loopback = loopback && IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
      loopback = false;
    }
  }
  freeaddrinfo(found);
  return loopback;
}

} // namespace

cluster_node
spawn_cluster_node(caf::actor_system& sys, const cluster_config& config,
                   std::vector<zk::broker_endpoint> endpoints,
                   event_listener_actor listener,
                   std::function<void(const std::string&)> fatal,
                   std::shared_ptr<security::security_store> security) {
  cluster_node n;
  // The controller first: the session sends it its events and the broker
  // asks it for metadata; it learns of both from cluster_parts.
  n.controller = sys.spawn(cluster_controller, config, std::move(endpoints),
                           std::move(fatal), std::move(security));
  cluster::zookeeper_config zc;
  zc.connect = config.zookeeper.connect;
  zc.session_timeout_ms = config.zookeeper.session_timeout_ms;
  // zookeeper.set.acl, troupe.zookeeper.digest: Kafka's ACLs on every znode
  // this node creates, under the digest identity.
  zc.digest = config.security.zookeeper_digest;
  zc.set_acl = config.security.zookeeper_set_acl;
  n.zk = sys.spawn<caf::detached>(
    zookeeper_session, zc,
    caf::actor_cast<zookeeper_owner_actor>(n.controller));
  auto broker_id = config.zookeeper.broker_id;
  auto ctl = caf::actor_cast<controller_actor>(n.controller);
  auto purgatory = std::make_shared<fetch_purgatory>();
  auto b = sys.spawn(broker, broker_id, config, ctl, listener, purgatory);
  n.node.controller = ctl;
  n.node.brokers.push_back(b);
  n.node.fetch_purgatories.push_back(std::move(purgatory));
  caf::anon_send(n.controller, cluster_parts{caf::actor_cast<caf::actor>(n.zk),
                                             caf::actor_cast<caf::actor>(b)});
  return n;
}

void stop_cluster_node(cluster_node& node) {
  stop_embedded_node(node.node);
  caf::anon_send_exit(node.controller, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(node.zk, caf::exit_reason::user_shutdown);
}

std::string configure_node_links(caf::actor_system_config& cfg,
                                 const cluster_config& config) {
  auto& sec = config.security;
  if (sec.cluster_security.empty() || sec.cluster_security == "plaintext")
    return {};
  if (sec.cluster_security != "ssl")
    return "troupe.cluster.security must be ssl or plaintext, not '"
           + sec.cluster_security + "'";
  auto& tls = sec.cluster_ssl;
  bool inline_key = !tls.keystore_certificate_chain.empty();
  if (!tls.has_keystore() || (inline_key && tls.keystore_key.empty())
      || (tls.truststore_location.empty()
          && tls.truststore_certificates.empty()))
    return "troupe.cluster.security=ssl needs this node's certificate and "
           "key (troupe.cluster.ssl.keystore.location, or "
           "troupe.cluster.ssl.keystore.certificate.chain and "
           "troupe.cluster.ssl.keystore.key) and the cluster's CA "
           "(troupe.cluster.ssl.truststore.location or "
           "troupe.cluster.ssl.truststore.certificates)";
  // CAF reads files: PEM text goes to files only this user can read.
  namespace fs = std::filesystem;
  fs::path dir = fs::path(config.log_dirs.empty() ? "/tmp/troupe-logs"
                                                  : config.log_dirs)
                 / ".cluster-tls";
  std::string error;
  if (inline_key || tls.truststore_location.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::permissions(dir, fs::perms::owner_all, ec);
    if (ec)
      return "cannot create " + dir.string() + ": " + ec.message();
  }
  std::string certificate, key, cafile;
  if (inline_key) {
    certificate = write_private(dir, "certificate.pem",
                                tls.keystore_certificate_chain, error);
    key = write_private(dir, "key.pem", tls.keystore_key, error);
  } else {
    // ssl.keystore.location: the chain and the key in one PEM file.
    certificate = key = tls.keystore_location;
  }
  cafile = tls.truststore_location.empty()
             ? write_private(dir, "ca.pem", tls.truststore_certificates, error)
             : tls.truststore_location;
  if (!error.empty())
    return error;
  if (auto why = check_tls_files(certificate, key, tls.key_password, cafile);
      !why.empty())
    return why;
  // caf/openssl/session.cpp: with any openssl.* option set, both ends of a
  // link present a certificate and verify the other's against cafile
  // (SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, ciphers
  // HIGH:!aNULL:!MD5); with none, CAF would fall back to anonymous ciphers.
  cfg.set("openssl.certificate", certificate);
  cfg.set("openssl.key", key);
  cfg.set("openssl.cafile", cafile);
  if (!tls.key_password.empty())
    cfg.set("openssl.passphrase", tls.key_password);
  cfg.load<caf::openssl::manager>();
  return {};
}

std::string node_links_refusal(const cluster_config& config,
                               const std::string& cluster_host,
                               const std::string& default_listener_host) {
  if (!config.security.cluster_security.empty())
    return {}; // ssl, or plaintext said explicitly
  std::vector<std::string> exposed;
  if (!is_loopback(cluster_host))
    exposed.push_back("troupe.cluster.port on "
                      + (cluster_host.empty() ? "all interfaces"
                                              : cluster_host));
  auto& z = config.zookeeper;
  auto listeners = z.listeners.empty()
                     ? "PLAINTEXT://:" + std::to_string(config.base_port)
                     : z.listeners;
  if (auto bound = zk::parse_listeners(listeners))
    for (auto& e : *bound) {
      auto host = e.host.empty() ? default_listener_host : e.host;
      if (!is_loopback(host))
        exposed.push_back("listener " + e.listener + " on "
                          + (host.empty() || host == "0.0.0.0"
                               ? "all interfaces"
                               : host));
    }
  if (exposed.empty())
    return {};
  std::string what;
  for (auto& e : exposed)
    what += (what.empty() ? "" : ", ") + e;
  return "refusing to start: " + what
         + " reach beyond loopback, and the node links would be "
           "unauthenticated (anyone reaching troupe.cluster.port could send "
           "the controller actor messages); set troupe.cluster.security=ssl "
           "with troupe.cluster.ssl.* for mutual TLS, or "
           "troupe.cluster.security=plaintext to run plain links on purpose";
}

caf::expected<uint16_t> publish_controller(caf::actor_system& sys,
                                           const cluster_controller_actor& c,
                                           uint16_t port,
                                           const std::string& host) {
  // CAF binds every interface when given no address (INADDR_ANY), else the
  // address `host` resolves to (its first IPv6 address, or the first one).
  const char* in = host.empty() ? nullptr : host.c_str();
  if (sys.has_openssl_manager())
    return caf::openssl::publish(c, port, in, true);
  return sys.middleman().publish(c, port, in, true);
}

} // namespace troupe
