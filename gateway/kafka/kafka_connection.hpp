#pragma once

// One client socket of a broker's Kafka listener: reads int32 size-prefixed
// requests, hands each to the connection's session actor
// (gateway/kafka/kafka_session) and writes the responses in request order, as
// Kafka's clients rely on (they match responses to requests by order as
// much as by correlation id).
//
// A listener's security protocol (docs/ARCHITECTURE.md §9) decides what
// happens first: SSL and SASL_SSL run a TLS handshake (bounded in time; the
// client certificate's subject, mapped by ssl.principal.mapping.rules, is
// the principal of an SSL connection); SASL_PLAINTEXT and SASL_SSL serve
// only ApiVersions, SaslHandshake and SaslAuthenticate (or raw SASL tokens
// after SaslHandshake v0) until the client authenticated, as Kafka's
// SaslServerAuthenticator, and KIP-368 re-authentication on the same
// connection afterwards.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/fwd.hpp>

#include "domain/security/principal_mapping.hpp"
#include "domain/security/sasl.hpp"
#include "domain/security/security_config.hpp"
#include "gateway/kafka/kafka_request_handler.hpp"
#include "gateway/kafka/kafka_session.hpp"

namespace troupe {

/// What one listener's connections need to secure themselves; shared by
/// every connection of the listener.
struct kafka_listener_security {
  security::listener_protocol protocol = security::listener_protocol::plaintext;
  /// The TLS context (SSL, SASL_SSL).
  std::shared_ptr<boost::asio::ssl::context> tls;
  /// ssl.principal.mapping.rules (SSL).
  std::optional<security::principal_mapper> mapper;
  /// sasl.enabled.mechanisms and PLAIN's users (SASL_*).
  std::vector<std::string> mechanisms;
  std::map<std::string, std::string> plain_users;
  /// connections.max.reauth.ms (0: sessions do not expire).
  int64_t reauth_ms = 0;
  /// The SCRAM credentials in force (null: none).
  std::shared_ptr<security::security_store> store;
  /// How long a TLS handshake and a SASL authentication may take.
  std::chrono::milliseconds auth_timeout{10000};
};

class kafka_connection : public std::enable_shared_from_this<kafka_connection> {
public:
  // -- constructors -----------------------------------------------------------

  kafka_connection(std::shared_ptr<boost::asio::io_context> io,
                   boost::asio::ip::tcp::socket socket, caf::actor_system& sys,
                   kafka_request_context ctx, size_t max_request_bytes,
                   std::chrono::milliseconds idle_timeout,
                   std::shared_ptr<const kafka_listener_security> security
                   = nullptr);

  // -- operations -------------------------------------------------------------

  void start();

private:
  /// Where a SASL connection is in Kafka's SaslServerAuthenticator.
  enum class sasl_phase {
    /// ApiVersions and SaslHandshake only.
    handshake,
    /// After SaslHandshake v1: SaslAuthenticate only.
    authenticate,
    /// After SaslHandshake v0: the frames are raw SASL tokens.
    raw_token,
    /// Every request (and SaslHandshake to re-authenticate).
    authenticated,
  };

  boost::asio::ip::tcp::socket& tcp();
  void on_handshake(const boost::system::error_code& ec);
  void do_read();
  void on_read(const boost::system::error_code& ec, size_t n);
  bool on_frame(const uint8_t* data, size_t size);
  bool serve(wire::request_header header, wire::reader& in);
  bool on_sasl_frame(const wire::request_header& header, wire::reader& in);
  bool on_raw_token(const uint8_t* data, size_t size);
  bool sasl_handshake(const wire::request_header& header, wire::reader& in);
  bool sasl_authenticate(const wire::request_header& header, wire::reader& in);
  /// Ends a successful exchange: the session acts as `principal` next.
  void authenticated(const std::string& principal);
  void set_identity(std::string principal);
  /// Queues a response the connection answers itself, in request order.
  void answer(kafka_reply reply);
  void submit(wire::request_header header, wire::request_body body);
  void on_reply(uint64_t seq, kafka_reply reply);
  void flush();
  void do_write();
  void on_write(const boost::system::error_code& ec);
  void arm_idle_timer();
  void close(const char* why);
  bool sasl_pending() const noexcept {
    return sasl_ && phase_ != sasl_phase::authenticated;
  }

  /// Weak: the io_context owns this connection through its handlers.
  std::weak_ptr<boost::asio::io_context> io_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  kafka_request_context ctx_;
  std::shared_ptr<const kafka_listener_security> security_;
  /// TLS over socket_ (moved in) on SSL and SASL_SSL listeners.
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
  bool handshaking_ = false;
  /// When the TLS handshake and the SASL authentication (or the current
  /// re-authentication) must be over.
  std::chrono::steady_clock::time_point auth_deadline_ =
    std::chrono::steady_clock::time_point::max();
  /// The client's address without port ("127.0.0.1"), for the authorizer.
  std::string host_;
  /// The connection's actor; reset when the connection closes.
  std::unique_ptr<kafka_session> session_;
  size_t max_request_bytes_;
  std::chrono::milliseconds idle_timeout_;
  // -- SASL
  bool sasl_ = false;
  sasl_phase phase_ = sasl_phase::handshake;
  std::optional<security::sasl_authenticator> authenticator_;
  /// Set while a KIP-368 re-authentication runs.
  bool reauthenticating_ = false;
  /// Kafka fails a re-authentication that changes the mechanism at its
  /// SaslAuthenticate, with this message.
  std::string bad_mechanism_;
  std::string principal_;
  std::string mechanism_;
  /// KIP-368: past this, only a re-authentication may use the connection.
  std::optional<std::chrono::steady_clock::time_point> expires_;
  // -- framing
  std::vector<uint8_t> in_;
  std::array<uint8_t, 65536> chunk_;
  uint64_t next_seq_ = 0;
  /// Replies by request sequence number; nullopt while still awaited.
  std::map<uint64_t, std::optional<kafka_reply>> pending_;
  std::vector<wire::bytes> out_;
  bool writing_ = false;
  bool close_after_write_ = false;
  bool closed_ = false;
};

} // namespace troupe
