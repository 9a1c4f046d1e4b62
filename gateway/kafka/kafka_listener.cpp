#include "gateway/kafka/kafka_listener.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include "domain/security/pem.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "gateway/kafka/kafka_connection.hpp"

namespace asio = boost::asio;
using asio::ip::tcp;

namespace troupe {

namespace {

int protocol_version(const std::string& name, const std::string& listener) {
  if (name == "TLSv1.3")
    return TLS1_3_VERSION;
  if (name == "TLSv1.2")
    return TLS1_2_VERSION;
  if (name == "TLSv1.1")
    return TLS1_1_VERSION;
  if (name == "TLSv1")
    return TLS1_VERSION;
  throw std::runtime_error("listener " + listener
                           + ": ssl.enabled.protocols: unknown protocol "
                           + name);
}

/// The TLS server context of a listener from its ssl.* settings (PEM).
std::shared_ptr<asio::ssl::context>
make_tls_context(const security::tls_config& c, const std::string& listener) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  auto* native = ctx->native_handle();
  auto where = "listener " + listener + ": ";
  try {
    ctx->set_options(asio::ssl::context::default_workarounds
                     | asio::ssl::context::no_sslv2
                     | asio::ssl::context::no_sslv3
                     | asio::ssl::context::single_dh_use);
    if (c.enabled_protocols.empty())
      throw std::runtime_error(where + "ssl.enabled.protocols is empty");
    int lo = 0;
    int hi = 0;
    for (auto& p : c.enabled_protocols) {
      auto v = protocol_version(p, listener);
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    SSL_CTX_set_min_proto_version(native, lo);
    SSL_CTX_set_max_proto_version(native, hi);
    if (!c.key_password.empty()) {
      auto password = c.key_password;
      ctx->set_password_callback(
        [password](size_t, asio::ssl::context::password_purpose) {
          return password;
        });
    }
    if (!c.keystore_location.empty()) {
      ctx->use_certificate_chain_file(c.keystore_location);
      ctx->use_private_key_file(c.keystore_location, asio::ssl::context::pem);
    } else if (!c.keystore_certificate_chain.empty()) {
      if (c.keystore_key.empty())
        throw std::runtime_error(where
                                 + "ssl.keystore.certificate.chain needs "
                                   "ssl.keystore.key");
      auto chain = security::normalize_pem(c.keystore_certificate_chain);
      auto key = security::normalize_pem(c.keystore_key);
      ctx->use_certificate_chain(asio::buffer(chain));
      ctx->use_private_key(asio::buffer(key), asio::ssl::context::pem);
    } else {
      throw std::runtime_error(where
                               + "TLS needs ssl.keystore.location, or "
                                 "ssl.keystore.certificate.chain and "
                                 "ssl.keystore.key (ssl.keystore.type=PEM)");
    }
    bool trusted = false;
    if (!c.truststore_location.empty()) {
      ctx->load_verify_file(c.truststore_location);
      trusted = true;
    }
    if (!c.truststore_certificates.empty()) {
      auto cas = security::normalize_pem(c.truststore_certificates);
      ctx->add_certificate_authority(asio::buffer(cas));
      trusted = true;
    }
    switch (c.client_auth_mode) {
      case security::client_auth::none:
        ctx->set_verify_mode(asio::ssl::verify_none);
        break;
      case security::client_auth::requested:
      case security::client_auth::required:
        if (!trusted)
          throw std::runtime_error(where
                                   + "ssl.client.auth needs "
                                     "ssl.truststore.location or "
                                     "ssl.truststore.certificates");
        ctx->set_verify_mode(
          c.client_auth_mode == security::client_auth::required
            ? asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert
            : asio::ssl::verify_peer);
        break;
    }
    static const unsigned char id[] = "troupe-kafka";
    SSL_CTX_set_session_id_context(native, id, sizeof(id) - 1);
    if (!c.cipher_suites.empty()) {
      // TLS 1.3's suites (TLS_*) and the older cipher list apart.
      std::string v13;
      std::string v12;
      for (auto& s : c.cipher_suites) {
        auto& to = s.rfind("TLS_", 0) == 0 ? v13 : v12;
        to += (to.empty() ? "" : ":") + s;
      }
      if (!v12.empty() && SSL_CTX_set_cipher_list(native, v12.c_str()) != 1)
        throw std::runtime_error(where + "ssl.cipher.suites: no usable cipher "
                                 "in " + v12);
      if (!v13.empty() && SSL_CTX_set_ciphersuites(native, v13.c_str()) != 1)
        throw std::runtime_error(where + "ssl.cipher.suites: no usable suite "
                                 "in " + v13);
    }
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(where + "TLS material: " + e.what());
  }
  return ctx;
}

std::shared_ptr<const kafka_listener_security>
make_security(const security::listener_spec& spec, const cluster_config& cluster,
              const kafka_listener_config& config) {
  auto out = std::make_shared<kafka_listener_security>();
  out->protocol = spec.protocol;
  out->store = config.security;
  out->auth_timeout =
    std::chrono::milliseconds{config.authentication_timeout_ms};
  auto& sec = cluster.security;
  if (security::uses_tls(spec.protocol)) {
    auto& tls = sec.tls_of(spec.name);
    out->tls = make_tls_context(tls, spec.name);
    std::string error;
    auto rules =
      tls.principal_mapping_rules.empty() ? "DEFAULT" : tls.principal_mapping_rules;
    out->mapper = security::principal_mapper::parse(rules, error);
    if (!out->mapper)
      throw std::runtime_error("listener " + spec.name
                               + ": ssl.principal.mapping.rules: " + error);
  }
  if (security::uses_sasl(spec.protocol)) {
    auto& sasl = sec.sasl_of(spec.name);
    out->mechanisms = sasl.enabled_mechanisms;
    out->plain_users = sasl.plain_users;
    out->reauth_ms = sec.connections_max_reauth_ms;
    bool any = std::any_of(out->mechanisms.begin(), out->mechanisms.end(),
                           [](auto& m) {
                             return security::is_served_mechanism(m);
                           });
    if (!any)
      spdlog::warn("kafka: listener {} enables no SASL mechanism troupe "
                   "serves (sasl.enabled.mechanisms: PLAIN, SCRAM-SHA-256, "
                   "SCRAM-SHA-512): every client will be refused",
                   spec.name);
  }
  return out;
}

} // namespace

std::vector<security::listener_spec>
kafka_listeners_of(const cluster_config& cluster,
                   const std::string& default_host) {
  auto& text = cluster.zookeeper.listeners;
  if (text.empty())
    return {{"PLAINTEXT", default_host, cluster.base_port,
             security::listener_protocol::plaintext}};
  auto parsed = zk::parse_listeners(text, cluster.security.protocol_map);
  if (!parsed)
    throw std::runtime_error("listeners: " + parsed.error());
  std::vector<security::listener_spec> out;
  for (auto& e : *parsed)
    out.push_back({e.listener, e.host, e.port, zk::from_zk(e.protocol)});
  if (out.empty())
    throw std::runtime_error("listeners: no listener");
  return out;
}

/// One broker's acceptor of one listener.
struct kafka_listener::acceptor
  : std::enable_shared_from_this<kafka_listener::acceptor> {
  acceptor(const std::shared_ptr<asio::io_context>& io, tcp::endpoint at,
           caf::actor_system& sys, kafka_request_context ctx,
           const kafka_listener_config& config,
           std::shared_ptr<const kafka_listener_security> security)
    : io(io),
      socket(*io),
      sys(sys),
      ctx(std::move(ctx)),
      config(config),
      security(std::move(security)) {
    socket.open(at.protocol());
    socket.set_option(tcp::acceptor::reuse_address(true));
    socket.bind(at);
    socket.listen();
  }

  void do_accept() {
    socket.async_accept([self = shared_from_this()](auto ec, tcp::socket s) {
      self->on_accept(ec, std::move(s));
    });
  }

  void on_accept(const boost::system::error_code& ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || !socket.is_open())
      return;
    if (!ec)
      std::make_shared<kafka_connection>(
        io.lock(), std::move(s), sys, ctx, config.max_request_bytes,
        std::chrono::milliseconds{config.connections_max_idle_ms}, security)
        ->start();
    else
      spdlog::warn("kafka: accept failed: {}", ec.message());
    do_accept();
  }

  /// Weak: the io_context owns this acceptor through its handlers.
  std::weak_ptr<asio::io_context> io;
  tcp::acceptor socket;
  caf::actor_system& sys;
  kafka_request_context ctx;
  kafka_listener_config config;
  std::shared_ptr<const kafka_listener_security> security;
};

// -- constructors -------------------------------------------------------------

kafka_listener::kafka_listener(caf::actor_system& sys,
                               kafka_listener_config config)
  : sys_(sys),
    config_(std::move(config)),
    io_(std::make_shared<asio::io_context>(1)) {
  // nop
}

kafka_listener::~kafka_listener() {
  stop();
}

// -- operations ---------------------------------------------------------------

void kafka_listener::start(const embedded_node& node,
                           const cluster_config& cluster) {
  auto shared = std::make_shared<const cluster_config>(cluster);
  auto specs = kafka_listeners_of(cluster, config_.bind_host);
  // One fetch session cache per broker, whichever listener a session's
  // fetches come in on (Kafka's FetchManager is the broker's).
  std::vector<std::shared_ptr<shared_fetch_sessions>> sessions;
  for (size_t i = 0; i < node.brokers.size(); ++i)
    sessions.push_back(std::make_shared<shared_fetch_sessions>(
      cluster.max_incremental_fetch_session_cache_slots));
  for (auto& spec : specs) {
    auto security = make_security(spec, cluster, config_);
    // Kafka's null host: every interface.
    auto host = spec.host.empty() ? std::string{"0.0.0.0"} : spec.host;
    boost::system::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (ec)
      throw std::runtime_error("listener " + spec.name + ": cannot bind "
                               + host + ": not an IP address");
    for (size_t i = 0; i < node.brokers.size(); ++i) {
      auto port = static_cast<uint16_t>(spec.port + static_cast<int32_t>(i));
      kafka_request_context ctx;
      ctx.broker = node.brokers[i];
      // A cluster node's one broker has the node's broker.id; the embedded
      // node's brokers are 0..n-1.
      ctx.broker_id = cluster.zookeeper.enabled()
                        ? cluster.zookeeper.broker_id
                        : static_cast<int32_t>(i);
      ctx.auto_create_topics = cluster.auto_create_topics;
      ctx.config = shared;
      ctx.security = config_.security;
      ctx.security_admin =
        caf::actor_cast<security_admin_actor>(node.controller);
      ctx.listener_name = spec.name;
      ctx.protocol = spec.protocol;
      ctx.fetch_sessions = sessions[i];
      if (i < node.fetch_purgatories.size())
        ctx.purgatory = node.fetch_purgatories[i];
      try {
        auto a = std::make_shared<acceptor>(io_, tcp::endpoint{address, port},
                                            sys_, std::move(ctx), config_,
                                            security);
        a->do_accept();
        acceptors_.push_back(std::move(a));
      } catch (const boost::system::system_error& e) {
        throw std::runtime_error("cannot listen on " + host + ":"
                                 + std::to_string(port) + " (listener "
                                 + spec.name + "): " + e.what());
      }
    }
  }
  thread_ = std::thread{[io = io_] { io->run(); }};
}

void kafka_listener::stop() {
  if (!thread_.joinable())
    return;
  io_->stop();
  thread_.join();
  for (auto& a : acceptors_) {
    boost::system::error_code ec;
    a->socket.close(ec);
  }
  // Connections still open end with the io_context: destroying it drops
  // their handlers, and with them the connections and their sockets.
  acceptors_.clear();
  io_.reset();
}

} // namespace troupe
