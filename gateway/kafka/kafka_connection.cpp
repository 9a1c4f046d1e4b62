#include "gateway/kafka/kafka_connection.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include "domain/security/security_store.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace asio = boost::asio;

namespace troupe {

namespace {

using kafka_handlers::close_reply;
using kafka_handlers::frame;

/// sasl.server.max.receive.size: the largest frame a client may send
/// before it authenticated.
constexpr size_t sasl_max_receive_size = 524288;

constexpr auto sasl_handshake_key =
  static_cast<int16_t>(wire::api_key::sasl_handshake);
constexpr auto sasl_authenticate_key =
  static_cast<int16_t>(wire::api_key::sasl_authenticate);
constexpr auto api_versions_key =
  static_cast<int16_t>(wire::api_key::api_versions);

/// The subject of a certificate as Java's X500Principal.getName() prints
/// it (RFC 2253: the most specific RDN first, "CN=client,OU=eng,O=troupe"),
/// UTF-8 kept as is.
std::string rfc2253_name(X509_NAME* name) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (!bio)
    return {};
  X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  auto n = BIO_get_mem_data(bio, &data);
  std::string out = n > 0 ? std::string(data, static_cast<size_t>(n)) : "";
  BIO_free(bio);
  return out;
}

wire::bytes raw_token_frame(const std::string& token) {
  wire::bytes out;
  auto n = static_cast<uint32_t>(token.size());
  out.push_back(static_cast<uint8_t>(n >> 24));
  out.push_back(static_cast<uint8_t>(n >> 16));
  out.push_back(static_cast<uint8_t>(n >> 8));
  out.push_back(static_cast<uint8_t>(n));
  out.insert(out.end(), token.begin(), token.end());
  return out;
}

} // namespace

// -- constructors -------------------------------------------------------------

kafka_connection::kafka_connection(
  std::shared_ptr<asio::io_context> io, asio::ip::tcp::socket socket,
  caf::actor_system& sys, kafka_request_context ctx, size_t max_request_bytes,
  std::chrono::milliseconds idle_timeout,
  std::shared_ptr<const kafka_listener_security> security)
  : io_(std::move(io)),
    socket_(std::move(socket)),
    idle_timer_(socket_.get_executor()),
    ctx_(std::move(ctx)),
    security_(std::move(security)),
    max_request_bytes_(max_request_bytes),
    idle_timeout_(idle_timeout) {
  boost::system::error_code ec;
  auto peer = socket_.remote_endpoint(ec);
  if (!ec) {
    host_ = peer.address().to_string();
    ctx_.client_host = "/" + host_;
  }
  socket_.set_option(asio::ip::tcp::no_delay{true}, ec);
  if (security_) {
    sasl_ = security::uses_sasl(security_->protocol);
    if (security::uses_tls(security_->protocol) && security_->tls)
      tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket>>(
        std::move(socket_), *security_->tls);
  }
  session_ = std::make_unique<kafka_session>(sys, ctx_);
  set_identity("User:ANONYMOUS");
}

// -- operations ---------------------------------------------------------------

asio::ip::tcp::socket& kafka_connection::tcp() {
  return tls_ ? tls_->next_layer() : socket_;
}

void kafka_connection::start() {
  if (security_)
    auth_deadline_ = std::chrono::steady_clock::now() + security_->auth_timeout;
  if (tls_) {
    // Bounded by the auth timeout: the handshake's own reads do not re-arm
    // the timer, so a slow or truncated handshake ends there.
    handshaking_ = true;
    arm_idle_timer();
    tls_->async_handshake(asio::ssl::stream_base::server,
                          [self = shared_from_this()](auto ec) {
                            self->on_handshake(ec);
                          });
    return;
  }
  arm_idle_timer();
  do_read();
}

void kafka_connection::on_handshake(const boost::system::error_code& ec) {
  if (closed_)
    return;
  handshaking_ = false;
  if (ec) {
    spdlog::info("kafka: {}: TLS handshake failed: {}", ctx_.client_host,
                 ec.message());
    close(nullptr);
    return;
  }
  if (security_->protocol == security::listener_protocol::ssl) {
    // SslPrincipalMapper over the client certificate's subject; no
    // certificate (ssl.client.auth=none|requested): ANONYMOUS.
    if (X509* cert = SSL_get_peer_certificate(tls_->native_handle())) {
      auto dn = rfc2253_name(X509_get_subject_name(cert));
      X509_free(cert);
      auto name = security_->mapper ? security_->mapper->apply(dn)
                                    : std::optional<std::string>{dn};
      if (!name) {
        spdlog::info("kafka: {}: no ssl.principal.mapping.rules rule matches "
                     "{}",
                     ctx_.client_host, dn);
        close(nullptr);
        return;
      }
      set_identity("User:" + *name);
    }
  }
  arm_idle_timer();
  do_read();
}

void kafka_connection::do_read() {
  auto done = [self = shared_from_this()](auto ec, size_t n) {
    self->on_read(ec, n);
  };
  if (tls_)
    tls_->async_read_some(asio::buffer(chunk_), std::move(done));
  else
    socket_.async_read_some(asio::buffer(chunk_), std::move(done));
}

void kafka_connection::on_read(const boost::system::error_code& ec, size_t n) {
  if (closed_)
    return;
  if (ec) {
    close(ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
            ? nullptr
            : "read failed");
    return;
  }
  arm_idle_timer();
  in_.insert(in_.end(), chunk_.begin(), chunk_.begin() + n);
  size_t used = 0;
  for (;;) {
    auto limit = sasl_pending()
                   ? std::min(max_request_bytes_, sasl_max_receive_size)
                   : max_request_bytes_;
    auto f = wire::decode_frame(in_.data() + used, in_.size() - used, limit);
    if (f.status == wire::frame_status::need_more)
      break;
    if (f.status == wire::frame_status::error) {
      spdlog::warn("kafka: {}: {}", ctx_.client_host, f.error);
      close("bad frame");
      return;
    }
    used += f.consumed;
    if (!on_frame(f.data, f.size))
      return;
  }
  in_.erase(in_.begin(), in_.begin() + used);
  do_read();
}

bool kafka_connection::on_frame(const uint8_t* data, size_t size) {
  if (sasl_ && phase_ == sasl_phase::raw_token)
    return on_raw_token(data, size);
  wire::reader in{data, size};
  auto header = wire::decode_request_header(in);
  if (!header) {
    spdlog::warn("kafka: {}: undecodable request header: {}", ctx_.client_host,
                 in.error());
    close("bad header");
    return false;
  }
  if (sasl_pending())
    return on_sasl_frame(*header, in);
  auto key = header->api_key;
  if (sasl_ && expires_ && std::chrono::steady_clock::now() > *expires_
      && key != sasl_handshake_key) {
    // KIP-368: an expired session may only re-authenticate.
    close("SASL session expired (connections.max.reauth.ms)");
    return false;
  }
  if (key == sasl_handshake_key) {
    if (sasl_) {
      // KIP-368: a re-authentication on the same connection.
      reauthenticating_ = true;
      phase_ = sasl_phase::handshake;
      auth_deadline_ =
        std::chrono::steady_clock::now() + security_->auth_timeout;
      return sasl_handshake(*header, in);
    }
    // KafkaApis.handleSaslHandshakeRequest: not a SASL listener.
    auto req = wire::decode_sasl_handshake_request(in, header->api_version);
    if (!req) {
      close("bad request");
      return false;
    }
    wire::sasl_handshake_response res;
    res.error = error_code::illegal_sasl_state;
    answer(frame(*header, res, wire::encode_sasl_handshake_response));
    return true;
  }
  if (key == sasl_authenticate_key) {
    // KafkaApis.handleSaslAuthenticateRequest.
    auto req = wire::decode_sasl_authenticate_request(in, header->api_version);
    if (!req) {
      close("bad request");
      return false;
    }
    wire::sasl_authenticate_response res;
    res.error = error_code::illegal_sasl_state;
    res.error_message =
      "SaslAuthenticate request received after successful authentication";
    answer(frame(*header, res, wire::encode_sasl_authenticate_response));
    return true;
  }
  return serve(std::move(*header), in);
}

bool kafka_connection::serve(wire::request_header header, wire::reader& in) {
  // The codec speaks more versions than the listener serves. Kafka closes
  // the connection on a version it does not serve, except that it answers
  // ApiVersions of such a version without parsing it (KIP-511).
  std::optional<wire::request_body> body;
  auto served = kafka_listener_serves(header.api_key, header.api_version);
  if (header.api_key == api_versions_key && !served) {
    body = wire::api_versions_request{};
  } else if (!served) {
    spdlog::warn("kafka: {}: cannot serve {} (key {}) v{}: not served",
                 ctx_.client_host, wire::api_name(header.api_key),
                 header.api_key, header.api_version);
    close("bad request");
    return false;
  } else {
    body = wire::decode_request_body(in, header);
  }
  if (!body) {
    // Kafka closes the connection on an unknown API, an unsupported version
    // and a body it cannot parse.
    spdlog::warn("kafka: {}: cannot serve {} (key {}) v{}: {}",
                 ctx_.client_host, wire::api_name(header.api_key),
                 header.api_key, header.api_version, in.error());
    close("bad request");
    return false;
  }
  spdlog::debug("kafka: {}: {} v{} correlation {}", ctx_.client_host,
                wire::api_name(header.api_key), header.api_version,
                header.correlation_id);
  submit(std::move(header), std::move(*body));
  return true;
}

// -- SASL (SaslServerAuthenticator) ---------------------------------------------

bool kafka_connection::on_sasl_frame(const wire::request_header& header,
                                     wire::reader& in) {
  auto key = header.api_key;
  if (key == api_versions_key && phase_ == sasl_phase::handshake
      && !reauthenticating_)
    return serve(header, in);
  if (key == sasl_handshake_key) {
    if (phase_ != sasl_phase::handshake) {
      wire::sasl_handshake_response res;
      res.error = error_code::illegal_sasl_state;
      answer(frame(header, res, wire::encode_sasl_handshake_response));
      answer(close_reply());
      return false;
    }
    return sasl_handshake(header, in);
  }
  if (key == sasl_authenticate_key) {
    if (phase_ != sasl_phase::authenticate) {
      if (!wire::decode_sasl_authenticate_request(in, header.api_version)) {
        close("bad request");
        return false;
      }
      wire::sasl_authenticate_response res;
      res.error = error_code::illegal_sasl_state;
      res.error_message =
        "Unexpected SaslAuthenticate request before SaslHandshake";
      answer(frame(header, res, wire::encode_sasl_authenticate_response));
      answer(close_reply());
      return false;
    }
    return sasl_authenticate(header, in);
  }
  // Kafka: IllegalSaslStateException, the connection closes.
  spdlog::info("kafka: {}: unexpected {} request during SASL {}",
               ctx_.client_host, wire::api_name(key),
               phase_ == sasl_phase::handshake ? "handshake"
                                               : "authentication");
  close(nullptr);
  return false;
}

bool kafka_connection::sasl_handshake(const wire::request_header& header,
                                      wire::reader& in) {
  auto v = header.api_version;
  auto req = wire::decode_sasl_handshake_request(in, v);
  if (!req) {
    spdlog::warn("kafka: {}: cannot serve SaslHandshake v{}: {}",
                 ctx_.client_host, v, in.error());
    close("bad request");
    return false;
  }
  auto snapshot = security_->store
                    ? security_->store->snapshot()
                    : std::make_shared<const security::security_snapshot>();
  authenticator_.emplace(security_->mechanisms, security_->plain_users,
                         std::move(snapshot));
  wire::sasl_handshake_response res;
  res.mechanisms = security_->mechanisms;
  if (!authenticator_->select(req->mechanism)) {
    // UNSUPPORTED_SASL_MECHANISM with the enabled list, then Kafka closes.
    spdlog::info("kafka: {}: unsupported SASL mechanism '{}'",
                 ctx_.client_host, req->mechanism);
    res.error = error_code::unsupported_sasl_mechanism;
    answer(frame(header, res, wire::encode_sasl_handshake_response));
    answer(close_reply());
    return false;
  }
  bad_mechanism_.clear();
  if (reauthenticating_ && req->mechanism != mechanism_)
    bad_mechanism_ = "SASL mechanism '" + req->mechanism
                     + "' requested by client is not supported for "
                       "re-authentication of mechanism '"
                     + mechanism_ + "'";
  answer(frame(header, res, wire::encode_sasl_handshake_response));
  // v0: the SASL tokens follow as raw size-prefixed frames (KIP-43).
  phase_ = v == 0 ? sasl_phase::raw_token : sasl_phase::authenticate;
  return true;
}

bool kafka_connection::sasl_authenticate(const wire::request_header& header,
                                         wire::reader& in) {
  auto v = header.api_version;
  auto req = wire::decode_sasl_authenticate_request(in, v);
  if (!req) {
    spdlog::warn("kafka: {}: cannot serve SaslAuthenticate v{}: {}",
                 ctx_.client_host, v, in.error());
    close("bad request");
    return false;
  }
  auto fail = [&](std::string message) {
    spdlog::info("kafka: {}: SASL authentication failed: {}", ctx_.client_host,
                 message);
    wire::sasl_authenticate_response res;
    res.error = error_code::sasl_authentication_failed;
    res.error_message = std::move(message);
    // Kafka sends the response, then closes the connection.
    answer(frame(header, res, wire::encode_sasl_authenticate_response));
    answer(close_reply());
    return false;
  };
  if (!bad_mechanism_.empty())
    return fail(bad_mechanism_);
  std::string_view token{reinterpret_cast<const char*>(req->auth_bytes.data()),
                         req->auth_bytes.size()};
  auto step = authenticator_->step(token);
  if (!step.error.empty())
    return fail(step.error);
  wire::sasl_authenticate_response res;
  res.auth_bytes.assign(step.response.begin(), step.response.end());
  if (step.complete) {
    auto principal = authenticator_->principal();
    if (reauthenticating_ && principal != principal_)
      return fail("Cannot change principals during re-authentication from "
                  + principal_ + ": " + principal);
    // KIP-368: a v1+ client is told its session lifetime and must
    // re-authenticate within it.
    expires_.reset();
    if (v >= 1 && security_->reauth_ms > 0) {
      res.session_lifetime_ms = security_->reauth_ms;
      expires_ = std::chrono::steady_clock::now()
                 + std::chrono::milliseconds{security_->reauth_ms};
    }
    answer(frame(header, res, wire::encode_sasl_authenticate_response));
    authenticated(principal);
    return true;
  }
  answer(frame(header, res, wire::encode_sasl_authenticate_response));
  return true;
}

bool kafka_connection::on_raw_token(const uint8_t* data, size_t size) {
  std::string_view token{reinterpret_cast<const char*>(data), size};
  auto step = authenticator_->step(token);
  if (!step.error.empty()) {
    // No Kafka header to carry an error: Kafka closes the connection.
    spdlog::info("kafka: {}: SASL authentication failed: {}", ctx_.client_host,
                 step.error);
    close(nullptr);
    return false;
  }
  auto principal = step.complete ? authenticator_->principal() : "";
  if (step.complete && reauthenticating_ && principal != principal_) {
    spdlog::info("kafka: {}: re-authentication changed the principal from "
                 "{} to {}",
                 ctx_.client_host, principal_, principal);
    close(nullptr);
    return false;
  }
  // PLAIN's success is an empty token, sent as a zero size.
  answer({kafka_reply::kind::frame, raw_token_frame(step.response)});
  if (step.complete) {
    expires_.reset();
    authenticated(principal);
  }
  return true;
}

void kafka_connection::authenticated(const std::string& principal) {
  if (reauthenticating_)
    spdlog::info("kafka: {} re-authenticated as {} ({})", ctx_.client_host,
                 principal, authenticator_->mechanism());
  else
    spdlog::debug("kafka: {} authenticated as {} ({})", ctx_.client_host,
                  principal, authenticator_->mechanism());
  principal_ = principal;
  mechanism_ = authenticator_->mechanism();
  phase_ = sasl_phase::authenticated;
  reauthenticating_ = false;
  authenticator_.reset();
  set_identity(principal);
  arm_idle_timer();
}

void kafka_connection::set_identity(std::string principal) {
  if (session_)
    session_->set_identity({std::move(principal), host_});
}

// -- requests and replies -------------------------------------------------------

void kafka_connection::answer(kafka_reply reply) {
  pending_.emplace(next_seq_++, std::move(reply));
  flush();
}

void kafka_connection::submit(wire::request_header header,
                              wire::request_body body) {
  auto seq = next_seq_++;
  pending_.emplace(seq, std::nullopt);
  std::weak_ptr<kafka_connection> weak = shared_from_this();
  session_->submit(
    std::move(header), std::move(body),
    [weak, io = io_, seq](kafka_reply reply) {
      // A listener already stopped drops the reply.
      if (auto ctx = io.lock())
        asio::post(*ctx, [weak, seq, reply = std::move(reply)]() mutable {
          if (auto self = weak.lock())
            self->on_reply(seq, std::move(reply));
        });
    });
}

void kafka_connection::on_reply(uint64_t seq, kafka_reply reply) {
  if (closed_)
    return;
  auto i = pending_.find(seq);
  if (i == pending_.end())
    return;
  i->second = std::move(reply);
  flush();
}

void kafka_connection::flush() {
  if (closed_)
    return;
  // Responses leave in request order: only a ready head is written.
  while (!close_after_write_ && !pending_.empty()
         && pending_.begin()->second) {
    auto reply = std::move(*pending_.begin()->second);
    pending_.erase(pending_.begin());
    if (reply.what == kafka_reply::kind::frame) {
      out_.push_back(std::move(reply.frame));
    } else if (reply.what == kafka_reply::kind::close) {
      close_after_write_ = true;
      break;
    }
  }
  if (!writing_) {
    if (!out_.empty())
      do_write();
    else if (close_after_write_)
      close("request failed");
  }
}

void kafka_connection::do_write() {
  writing_ = true;
  auto done = [self = shared_from_this()](auto ec, size_t) {
    self->on_write(ec);
  };
  if (tls_)
    asio::async_write(*tls_, asio::buffer(out_.front()), std::move(done));
  else
    asio::async_write(socket_, asio::buffer(out_.front()), std::move(done));
}

void kafka_connection::on_write(const boost::system::error_code& ec) {
  writing_ = false;
  if (closed_)
    return;
  if (ec) {
    close("write failed");
    return;
  }
  out_.erase(out_.begin());
  if (!out_.empty())
    do_write();
  else if (close_after_write_)
    close("request failed");
}

void kafka_connection::arm_idle_timer() {
  auto now = std::chrono::steady_clock::now();
  auto at = now + idle_timeout_;
  // A TLS handshake and a SASL authentication end by their deadline.
  bool authenticating = handshaking_ || sasl_pending();
  if (authenticating)
    at = std::min(at, auth_deadline_);
  idle_timer_.expires_at(at);
  idle_timer_.async_wait([weak = weak_from_this()](auto ec) {
    auto self = weak.lock();
    if (ec || !self || self->closed_)
      return;
    if (self->handshaking_) {
      self->close("TLS handshake timed out");
      return;
    }
    if (self->sasl_pending()
        && std::chrono::steady_clock::now() >= self->auth_deadline_) {
      self->close("SASL authentication timed out");
      return;
    }
    // connections.max.idle.ms: a connection awaiting answers is not idle.
    if (!self->pending_.empty() || self->writing_)
      self->arm_idle_timer();
    else
      self->close("idle");
  });
}

void kafka_connection::close(const char* why) {
  if (closed_)
    return;
  closed_ = true;
  if (why)
    spdlog::info("kafka: closing {} ({})", ctx_.client_host, why);
  boost::system::error_code ec;
  idle_timer_.cancel();
  auto& s = tcp();
  s.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  s.close(ec);
  session_.reset();
}

} // namespace troupe
