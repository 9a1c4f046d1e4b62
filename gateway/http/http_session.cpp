#include "gateway/http/http_session.hpp"

#include <type_traits>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include "gateway/http/static_files.hpp"
#include "gateway/http/tls_context.hpp"
#include "gateway/http/websocket_session.hpp"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace troupe {

namespace {

std::string str(beast::string_view s) {
  return std::string(s.data(), s.size());
}

http_response error_response(unsigned status, const char* name,
                             const std::string& message) {
  http_response res;
  res.status = status;
  res.body = "{\"error_code\":" + std::to_string(status) + ",\"error_name\":\""
             + name + "\",\"message\":\"" + message + "\"}";
  return res;
}

template <class Stream>
constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

} // namespace

template <class Stream>
http_session<Stream>::http_session(Stream&& stream,
                                   std::shared_ptr<const server_context> ctx,
                                   std::string remote_host)
  : stream_(std::move(stream)),
    ctx_(std::move(ctx)),
    remote_host_(std::move(remote_host)) {
  beast::error_code ec;
  beast::get_lowest_layer(stream_).socket().set_option(tcp::no_delay{true},
                                                       ec);
}

template <class Stream>
void http_session<Stream>::start() {
  auto self = this->shared_from_this();
  asio::dispatch(stream_.get_executor(), [self] {
    if constexpr (is_tls<Stream>) {
      // A client that opens the connection and says nothing (or too
      // little) is cut off like an idle one.
      beast::get_lowest_layer(self->stream_)
        .expires_after(self->ctx_->config.idle_timeout);
      self->stream_.async_handshake(
        asio::ssl::stream_base::server,
        beast::bind_front_handler(&http_session::on_handshake, self));
    } else {
      self->do_read();
    }
  });
}

template <class Stream>
void http_session<Stream>::on_handshake(beast::error_code ec) {
  if (ec) {
    spdlog::debug("http: TLS handshake from {}: {}", remote_host_,
                  ec.message());
    beast::get_lowest_layer(stream_).close();
    return;
  }
  if constexpr (is_tls<Stream>)
    tls_subject_ = tls_peer_subject(stream_.native_handle());
  do_read();
}

template <class Stream>
void http_session<Stream>::do_read() {
  parser_.emplace();
  parser_->body_limit(ctx_->config.body_limit);
  parser_->header_limit(16 * 1024);
  beast::get_lowest_layer(stream_).expires_after(ctx_->config.idle_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&http_session::on_read,
                                             this->shared_from_this()));
}

template <class Stream>
void http_session<Stream>::on_read(beast::error_code ec, size_t) {
  if (ec)
    spdlog::debug("http: read: {}", ec.message());
  if (ec == http::error::end_of_stream || ec == beast::error::timeout
      || ec == asio::error::connection_reset || ec == asio::error::eof
      || ec == asio::ssl::error::stream_truncated) {
    do_close();
    return;
  }
  if (ec == http::error::body_limit) {
    keep_alive_ = false;
    send(error_response(413, "PAYLOAD_TOO_LARGE",
                        "request body exceeds "
                          + std::to_string(ctx_->config.body_limit)
                          + " bytes"));
    return;
  }
  if (ec) {
    keep_alive_ = false;
    send(error_response(400, "BAD_REQUEST", "malformed HTTP request"));
    return;
  }
  auto& head = parser_->get();
  keep_alive_ = head.keep_alive();
  version_ = head.version();
  beast::get_lowest_layer(stream_).expires_never();
  if (websocket::is_upgrade(head)) {
    upgrade();
    return;
  }
  auto req = parser_->release();
  http_request out;
  out.method = str(req.method_string());
  auto target = str(req.target());
  auto q = target.find('?');
  out.path = target.substr(0, q);
  if (q != std::string::npos)
    out.query = target.substr(q + 1);
  out.content_type = str(req[http::field::content_type]);
  out.accept = str(req[http::field::accept]);
  out.authorization = str(req[http::field::authorization]);
  out.body = std::move(req.body());
  out.remote_host = remote_host_;
  out.tls_subject = tls_subject_;
  if (out.method == "GET") {
    http_response file;
    if (static_file(ctx_->config.web_root, out.path, file)) {
      // The dashboard's files are behind the same door as the API: under
      // troupe.http.auth=basic the browser asks for credentials here once
      // and sends them with the dashboard's calls (docs/ARCHITECTURE.md §5).
      if (auto refused = ctx_->api->admit(out))
        file = std::move(*refused);
      send(std::move(file));
      return;
    }
  }
  // The answer holds the session: nothing else does while it waits.
  auto exec = stream_.get_executor();
  ctx_->api->handle(std::move(out), [self = this->shared_from_this(),
                                     exec](http_response res) {
    asio::post(exec, [self, res = std::move(res)]() mutable {
      self->send(std::move(res));
    });
  });
}

template <class Stream>
void http_session<Stream>::upgrade() {
  auto req = parser_->release();
  if (req.target() != "/v1/ws") {
    keep_alive_ = false;
    send(error_response(404, "NOT_FOUND", "WebSocket lives at /v1/ws only"));
    return;
  }
  // Authenticated at the upgrade, before the socket exists (a browser
  // sends the page's Basic credentials with it).
  http_request who;
  who.method = "GET";
  who.path = "/v1/ws";
  who.authorization = str(req[http::field::authorization]);
  who.remote_host = remote_host_;
  who.tls_subject = tls_subject_;
  if (auto refused = ctx_->api->admit(who)) {
    keep_alive_ = false;
    send(std::move(*refused));
    return;
  }
  std::make_shared<websocket_session<Stream>>(std::move(stream_), ctx_,
                                              std::move(who))
    ->start(std::move(req));
}

template <class Stream>
void http_session<Stream>::send(http_response res) {
  auto msg =
    std::make_shared<response>(static_cast<http::status>(res.status), version_);
  msg->set(http::field::server, "troupe");
  if (res.status != 204)
    msg->set(http::field::content_type, res.content_type);
  for (auto& [name, value] : res.headers)
    msg->set(name, value);
  msg->keep_alive(keep_alive_);
  msg->body() = std::move(res.body);
  msg->prepare_payload();
  res_ = msg;
  beast::get_lowest_layer(stream_).expires_after(ctx_->config.idle_timeout);
  http::async_write(stream_, *msg,
                    beast::bind_front_handler(&http_session::on_write,
                                              this->shared_from_this()));
}

template <class Stream>
void http_session<Stream>::on_write(beast::error_code ec, size_t) {
  if (ec)
    spdlog::debug("http: write: {}", ec.message());
  res_.reset();
  if (ec || !keep_alive_) {
    do_close();
    return;
  }
  do_read();
}

template <class Stream>
void http_session<Stream>::do_close() {
  auto& lowest = beast::get_lowest_layer(stream_);
  if constexpr (is_tls<Stream>) {
    // close_notify, bounded: a peer that never answers it is cut off.
    lowest.expires_after(std::chrono::seconds(5));
    stream_.async_shutdown(
      [self = this->shared_from_this()](beast::error_code) {
        beast::get_lowest_layer(self->stream_).close();
      });
  } else {
    beast::error_code ec;
    lowest.socket().shutdown(tcp::socket::shutdown_send, ec);
    lowest.socket().close(ec);
  }
}

template class http_session<plain_stream>;
template class http_session<tls_stream>;

} // namespace troupe
