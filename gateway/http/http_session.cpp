#include "gateway/http/http_session.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

#include "gateway/http/static_files.hpp"
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

} // namespace

http_session::http_session(tcp::socket&& socket,
                           std::shared_ptr<const server_context> ctx)
  : stream_(std::move(socket)), ctx_(std::move(ctx)) {
  beast::error_code ec;
  stream_.socket().set_option(tcp::no_delay{true}, ec);
}

void http_session::start() {
  asio::dispatch(
    stream_.get_executor(),
    beast::bind_front_handler(&http_session::do_read, shared_from_this()));
}

void http_session::do_read() {
  parser_.emplace();
  parser_->body_limit(ctx_->config.body_limit);
  parser_->header_limit(16 * 1024);
  stream_.expires_after(ctx_->config.idle_timeout);
  http::async_read(
    stream_, buffer_, *parser_,
    beast::bind_front_handler(&http_session::on_read, shared_from_this()));
}

void http_session::on_read(beast::error_code ec, size_t) {
  if (ec)
    spdlog::debug("http: read: {}", ec.message());
  if (ec == http::error::end_of_stream || ec == beast::error::timeout
      || ec == asio::error::connection_reset || ec == asio::error::eof) {
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
  auto req = parser_->release();
  keep_alive_ = req.keep_alive();
  version_ = req.version();
  stream_.expires_never();
  if (websocket::is_upgrade(req)) {
    if (req.target() == "/v1/ws") {
      std::make_shared<websocket_session>(stream_.release_socket(), ctx_)
        ->start(std::move(req));
    } else {
      keep_alive_ = false;
      send(error_response(404, "NOT_FOUND", "WebSocket lives at /v1/ws only"));
    }
    return;
  }
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
  if (out.method == "GET") {
    http_response file;
    if (static_file(ctx_->config.web_root, out.path, file)) {
      send(std::move(file));
      return;
    }
  }
  // The answer holds the session: nothing else does while it waits.
  auto exec = stream_.get_executor();
  ctx_->api->handle(std::move(out),
                    [self = shared_from_this(), exec](http_response res) {
                      asio::post(exec, [self, res = std::move(res)]() mutable {
                        self->send(std::move(res));
                      });
                    });
}

void http_session::send(http_response res) {
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
  stream_.expires_after(ctx_->config.idle_timeout);
  http::async_write(
    stream_, *msg,
    beast::bind_front_handler(&http_session::on_write, shared_from_this()));
}

void http_session::on_write(beast::error_code ec, size_t) {
  if (ec)
    spdlog::debug("http: write: {}", ec.message());
  res_.reset();
  if (ec || !keep_alive_) {
    do_close();
    return;
  }
  do_read();
}

void http_session::do_close() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream_.socket().close(ec);
}

} // namespace troupe
