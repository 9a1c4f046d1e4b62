#include "client/kafka/connection.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "domain/security/sasl.hpp"
#include "domain/security/scram.hpp"

namespace troupe::kafka_client {

namespace {

std::string ssl_error_text() {
  auto code = ERR_get_error();
  if (code == 0)
    return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

SSL* as_ssl(void* p) {
  return static_cast<SSL*>(p);
}

} // namespace

// -- constructors -------------------------------------------------------------

connection::connection(std::string host, int port, int32_t node_id,
                       const client_config& cfg)
  : host_(std::move(host)), port_(port), node_id_(node_id), cfg_(cfg) {
  try {
    connect_tcp();
    if (cfg_.uses_tls())
      start_tls();
    negotiate_versions();
    if (cfg_.uses_sasl())
      authenticate();
  } catch (...) {
    release();
    throw;
  }
}

connection::~connection() {
  release();
}

void connection::release() noexcept {
  if (ssl_) {
    SSL_shutdown(as_ssl(ssl_));
    SSL_free(as_ssl(ssl_));
    ssl_ = nullptr;
  }
  if (ssl_ctx_) {
    SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
    ssl_ctx_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void connection::fail(const std::string& what) {
  throw client_error(what + " (broker " + host_ + ":" + std::to_string(port_)
                     + ")");
}

// -- connecting ---------------------------------------------------------------

void connection::connect_tcp() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host_.c_str(), std::to_string(port_).c_str(),
                           &hints, &found);
      rc != 0)
    fail(std::string{"cannot resolve host: "} + gai_strerror(rc));
  std::string last = "no address";
  for (auto* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                      a->ai_protocol);
    if (fd < 0)
      continue;
    int flags = fcntl(fd, F_GETFL, 0);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, cfg_.request_timeout_ms);
      if (rc == 0) {
        last = "connect timed out after "
               + std::to_string(cfg_.request_timeout_ms) + " ms";
        ::close(fd);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last = std::string{"cannot connect: "} + std::strerror(errno);
      ::close(fd);
      continue;
    }
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    timeval tv{cfg_.request_timeout_ms / 1000,
               (cfg_.request_timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fd_ = fd;
    break;
  }
  freeaddrinfo(found);
  if (fd_ < 0)
    fail(last);
}

void connection::start_tls() {
  auto* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx)
    fail("cannot create a TLS context: " + ssl_error_text());
  ssl_ctx_ = ctx;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (!cfg_.truststore_location.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, cfg_.truststore_location.c_str(),
                                      nullptr)
        != 1)
      fail("cannot read ssl.truststore.location "
           + cfg_.truststore_location + ": " + ssl_error_text());
  } else {
    SSL_CTX_set_default_verify_paths(ctx);
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!cfg_.keystore_location.empty()) {
    if (!cfg_.key_password.empty())
      SSL_CTX_set_default_passwd_cb_userdata(
        ctx, const_cast<char*>(cfg_.key_password.c_str()));
    if (SSL_CTX_use_certificate_chain_file(ctx,
                                           cfg_.keystore_location.c_str())
          != 1
        || SSL_CTX_use_PrivateKey_file(ctx, cfg_.keystore_location.c_str(),
                                       SSL_FILETYPE_PEM)
             != 1)
      fail("cannot read ssl.keystore.location " + cfg_.keystore_location
           + ": " + ssl_error_text());
  }
  auto* ssl = SSL_new(ctx);
  ssl_ = ssl;
  SSL_set_fd(ssl, fd_);
  SSL_set_tlsext_host_name(ssl, host_.c_str());
  if (cfg_.verify_hostname) {
    auto* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param,
                                    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    // An IP address is checked against the certificate's IP SANs.
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host_.c_str()) != 1)
      X509_VERIFY_PARAM_set1_host(param, host_.c_str(), 0);
  }
  if (SSL_connect(ssl) != 1) {
    auto verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK)
      fail(std::string{"TLS handshake failed: "}
           + X509_verify_cert_error_string(verify));
    fail("TLS handshake failed: " + ssl_error_text());
  }
}

void connection::negotiate_versions() {
  // ApiVersions v3 first (KIP-511); a broker that does not speak it answers
  // UNSUPPORTED_VERSION in the v0 layout with its own range of ApiVersions,
  // and the client retries with the highest version both speak.
  int16_t version = 3;
  for (int attempt = 0; attempt < 2; ++attempt) {
    wire::api_versions_request req;
    req.client_software_name = "troupe-tools";
    req.client_software_version = "0.1.0";
    auto body = call(wire::api_key::api_versions, version,
                     encode_body(req, version,
                                 wire::encode_api_versions_request));
    wire::reader in{body};
    auto res = wire::decode_api_versions_response(in, version);
    if (!res || res->error == error_code::unsupported_version) {
      wire::reader v0{body};
      auto fallback = wire::decode_api_versions_response(v0, 0);
      if (!fallback)
        fail("malformed ApiVersions response");
      int16_t best = -1;
      for (auto& k : fallback->api_keys)
        if (k.api_key == static_cast<int16_t>(wire::api_key::api_versions))
          best = std::min<int16_t>(k.max_version, version - 1);
      if (best < 0)
        fail("the broker does not speak ApiVersions");
      version = best;
      continue;
    }
    if (res->error != error_code::none)
      fail("ApiVersions failed: " + std::string{error_name(res->error)});
    for (auto& k : res->api_keys)
      broker_versions_[k.api_key] = {k.min_version, k.max_version};
    return;
  }
  fail("ApiVersions negotiation failed");
}

int16_t connection::version(wire::api_key key) const noexcept {
  auto k = static_cast<int16_t>(key);
  auto i = broker_versions_.find(k);
  if (i == broker_versions_.end())
    return -1;
  for (auto& ours : wire::supported_versions()) {
    if (ours.api_key != k)
      continue;
    auto hi = std::min(ours.max_version, i->second.second);
    auto lo = std::max(ours.min_version, i->second.first);
    return hi >= lo ? hi : -1;
  }
  return -1;
}

int16_t connection::require_version(wire::api_key key) const {
  auto v = version(key);
  if (v < 0)
    throw client_error("the broker " + host_ + ":" + std::to_string(port_)
                       + " does not support "
                       + std::string{wire::api_name(static_cast<int16_t>(key))}
                       + " in a version troupe speaks");
  return v;
}

void connection::authenticate() {
  auto hv = require_version(wire::api_key::sasl_handshake);
  wire::sasl_handshake_request hs;
  hs.mechanism = cfg_.sasl_mechanism;
  auto shake = TROUPE_KAFKA_CALL(*this, sasl_handshake, hs, hv);
  if (shake.error != error_code::none) {
    std::string enabled;
    for (auto& m : shake.mechanisms)
      enabled += (enabled.empty() ? "" : ", ") + m;
    fail("Unsupported SASL mechanism " + cfg_.sasl_mechanism
         + " (enabled: " + enabled + ")");
  }
  auto av = require_version(wire::api_key::sasl_authenticate);
  auto step = [&](const std::string& token) {
    wire::sasl_authenticate_request req;
    req.auth_bytes.assign(token.begin(), token.end());
    auto res = TROUPE_KAFKA_CALL(*this, sasl_authenticate, req, av);
    if (res.error != error_code::none)
      throw client_error(
        res.error_message ? *res.error_message
                          : std::string{error_message(res.error)});
    return std::string{res.auth_bytes.begin(), res.auth_bytes.end()};
  };
  if (cfg_.sasl_mechanism == security::mechanism_plain) {
    std::string token;
    token.push_back('\0');
    token += cfg_.sasl_username;
    token.push_back('\0');
    token += cfg_.sasl_password;
    step(token);
    return;
  }
  auto mech = security::parse_scram_mechanism(cfg_.sasl_mechanism);
  if (!mech)
    fail("unsupported sasl.mechanism " + cfg_.sasl_mechanism);
  security::scram_client scram{*mech, cfg_.sasl_username,
                               cfg_.sasl_password};
  auto server_first = step(scram.first_message());
  auto final_message = scram.final_message(server_first);
  if (!final_message)
    fail("invalid SCRAM server-first message");
  auto server_final = step(*final_message);
  if (!scram.verify_server_final(server_final))
    fail("the broker's SCRAM signature is not the one the password gives");
}

// -- requests -----------------------------------------------------------------

int32_t connection::send(wire::api_key key, int16_t version,
                         const std::vector<uint8_t>& body) {
  std::vector<uint8_t> frame;
  wire::writer out{frame};
  auto mark = out.begin_frame();
  wire::request_header header;
  header.api_key = static_cast<int16_t>(key);
  header.api_version = version;
  header.correlation_id = next_correlation_++;
  header.client_id = cfg_.client_id;
  wire::encode_request_header(out, header);
  frame.insert(frame.end(), body.begin(), body.end()); // the body as is
  out.end_frame(mark);
  if (!out.ok())
    fail("cannot frame request: " + out.error());
  write_all(frame.data(), frame.size());
  return header.correlation_id;
}

std::vector<uint8_t> connection::receive(int32_t correlation_id,
                                         wire::api_key key, int16_t version) {
  uint8_t prefix[4];
  read_all(prefix, 4);
  uint32_t size = (uint32_t{prefix[0]} << 24) | (uint32_t{prefix[1]} << 16)
                  | (uint32_t{prefix[2]} << 8) | uint32_t{prefix[3]};
  if (size > (1u << 30))
    fail("response of " + std::to_string(size) + " bytes refused");
  std::vector<uint8_t> buf(size);
  read_all(buf.data(), size);
  wire::reader in{buf};
  auto header = wire::decode_response_header(
    in, static_cast<int16_t>(key), version);
  if (!header)
    fail("malformed response header: " + in.error());
  if (header->correlation_id != correlation_id)
    fail("response correlation id " + std::to_string(header->correlation_id)
         + " does not match request " + std::to_string(correlation_id));
  return std::vector<uint8_t>(buf.begin() + in.position(), buf.end());
}

void connection::write_all(const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n;
    if (ssl_) {
      n = SSL_write(as_ssl(ssl_), data, static_cast<int>(size));
      if (n <= 0)
        fail("TLS write failed: " + ssl_error_text());
    } else {
      n = ::send(fd_, data, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
          fail("request timed out after "
               + std::to_string(cfg_.request_timeout_ms) + " ms");
        fail(std::string{"write failed: "} + std::strerror(errno));
      }
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void connection::read_all(uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n;
    if (ssl_) {
      n = SSL_read(as_ssl(ssl_), data, static_cast<int>(size));
      if (n <= 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
          fail("request timed out after "
               + std::to_string(cfg_.request_timeout_ms) + " ms");
        fail("the broker closed the connection");
      }
    } else {
      n = ::recv(fd_, data, size, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        fail("request timed out after "
             + std::to_string(cfg_.request_timeout_ms) + " ms");
      if (n < 0)
        fail(std::string{"read failed: "} + std::strerror(errno));
      if (n == 0)
        fail("the broker closed the connection");
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

} // namespace troupe::kafka_client
