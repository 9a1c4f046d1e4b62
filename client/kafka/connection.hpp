#pragma once

// One blocking connection to one Kafka broker (client/kafka/, no CAF):
// TCP (POSIX sockets), TLS (OpenSSL) when the security protocol says so,
// ApiVersions negotiation, then SASL (PLAIN, SCRAM-SHA-256/512) over
// SaslHandshake and SaslAuthenticate. Every connect, read and write is
// bounded by request.timeout.ms. Requests are framed with troupe's codec
// (domain/kafka/protocol.hpp); send() and receive() may be pipelined.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/kafka/client_config.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::kafka_client {

/// What went wrong, as one line a tool prints.
class client_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class connection {
public:
  // -- constructors -----------------------------------------------------------

  /// Connects, negotiates versions and authenticates; throws client_error.
  connection(std::string host, int port, int32_t node_id,
             const client_config& cfg);
  ~connection();

  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // -- properties -------------------------------------------------------------

  const std::string& host() const noexcept {
    return host_;
  }
  int port() const noexcept {
    return port_;
  }
  int32_t node_id() const noexcept {
    return node_id_;
  }

  /// The highest version of `key` both the broker and troupe's codec
  /// speak, or -1 when there is none.
  int16_t version(wire::api_key key) const noexcept;

  /// version(), throwing client_error naming the API when there is none.
  int16_t require_version(wire::api_key key) const;

  // -- requests ---------------------------------------------------------------

  /// Sends one request whose body is already encoded; returns its
  /// correlation id.
  int32_t send(wire::api_key key, int16_t version,
               const std::vector<uint8_t>& body);

  /// Reads the next response, which must answer `correlation_id`; returns
  /// its body (after the response header).
  std::vector<uint8_t> receive(int32_t correlation_id, wire::api_key key,
                               int16_t version);

  /// send() then receive().
  std::vector<uint8_t> call(wire::api_key key, int16_t version,
                            const std::vector<uint8_t>& body) {
    return receive(send(key, version, body), key, version);
  }

private:
  void release() noexcept;
  void connect_tcp();
  void start_tls();
  void negotiate_versions();
  void authenticate();
  void write_all(const uint8_t* data, size_t size);
  void read_all(uint8_t* data, size_t size);
  [[noreturn]] void fail(const std::string& what);

  std::string host_;
  int port_ = 0;
  int32_t node_id_ = -1;
  client_config cfg_;
  int fd_ = -1;
  void* ssl_ctx_ = nullptr; // SSL_CTX*
  void* ssl_ = nullptr;     // SSL*
  int32_t next_correlation_ = 1;
  std::map<int16_t, std::pair<int16_t, int16_t>> broker_versions_;
};

/// Encodes a request body with troupe's codec; throws client_error when
/// the codec refuses the value.
template <class Request, class Encode>
std::vector<uint8_t> encode_body(const Request& req, int16_t version,
                                 Encode encode) {
  std::vector<uint8_t> buf;
  wire::writer out{buf};
  if (!encode(out, req, version) || !out.ok())
    throw client_error("cannot encode request: " + out.error());
  return buf;
}

/// Decodes a response body; throws client_error when malformed.
template <class Decode>
auto decode_body(const std::vector<uint8_t>& body, int16_t version,
                 Decode decode) {
  wire::reader in{body};
  auto res = decode(in, version);
  if (!res)
    throw client_error("malformed response from the broker: " + in.error());
  return std::move(*res);
}

} // namespace troupe::kafka_client

/// One typed request/response over a connection, e.g.
/// TROUPE_KAFKA_CALL(conn, metadata, req) with api_key::metadata and
/// wire::encode_metadata_request / decode_metadata_response.
#define TROUPE_KAFKA_CALL(conn, name, req, version)                            \
  ::troupe::kafka_client::decode_body(                                         \
    (conn).call(::troupe::wire::api_key::name, (version),                      \
                ::troupe::kafka_client::encode_body(                           \
                  (req), (version), ::troupe::wire::encode_##name##_request)), \
    (version), ::troupe::wire::decode_##name##_response)
