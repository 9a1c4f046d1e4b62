#include "gateway/http_server.hpp"

#include <deque>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <spdlog/spdlog.h>

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

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

http_response error_response(unsigned status, const char* name,
                             const std::string& message) {
  http_response res;
  res.status = status;
  res.body = "{\"error_code\":" + std::to_string(status) + ",\"error_name\":\""
             + name + "\",\"message\":\"" + json_escape(message) + "\"}";
  return res;
}

std::string mime_type(const std::string& path) {
  auto ends = [&](const char* ext) {
    auto n = std::char_traits<char>::length(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends(".html"))
    return "text/html; charset=utf-8";
  if (ends(".js"))
    return "application/javascript";
  if (ends(".css"))
    return "text/css";
  if (ends(".svg"))
    return "image/svg+xml";
  if (ends(".png"))
    return "image/png";
  return "application/octet-stream";
}

/// The dashboard's files: "/" and "/ui/<name>", no "..".
bool static_file(const std::string& root, const std::string& path,
                 http_response& out) {
  std::string rel;
  if (path == "/" || path == "/index.html")
    rel = "index.html";
  else if (path.rfind("/ui/", 0) == 0)
    rel = path.substr(4);
  else
    return false;
  if (rel.empty() || rel.find("..") != std::string::npos)
    return false;
  std::ifstream in{root + "/" + rel, std::ios::binary};
  if (!in) {
    out = error_response(404, "NOT_FOUND", "no such file: " + path);
    return true;
  }
  std::ostringstream text;
  text << in.rdbuf();
  out.status = 200;
  out.content_type = mime_type(rel);
  out.body = text.str();
  return true;
}

// -- WebSocket session ------------------------------------------------------------

class websocket_session
  : public std::enable_shared_from_this<websocket_session> {
public:
  websocket_session(tcp::socket&& socket, std::shared_ptr<http_handler> api,
                    const http_server_config& config)
    : ws_(std::move(socket)), api_(std::move(api)), config_(config) {
    // nop
  }

  template <class Body, class Allocator>
  void start(http::request<Body, http::basic_fields<Allocator>> req) {
    websocket::stream_base::timeout opt{
      std::chrono::seconds(30), // handshake
      std::chrono::duration_cast<websocket::stream_base::duration>(
        config_.idle_timeout),
      true}; // keep-alive pings
    ws_.set_option(opt);
    ws_.read_message_max(config_.body_limit);
    ws_.async_accept(req, beast::bind_front_handler(
                            &websocket_session::on_accept, shared_from_this()));
  }

private:
  void on_accept(beast::error_code ec) {
    if (ec)
      return;
    std::weak_ptr<websocket_session> weak = shared_from_this();
    auto exec = ws_.get_executor();
    ws_peer peer;
    peer.send = [weak, exec](std::string text) {
      asio::post(exec, [weak, text = std::move(text)]() mutable {
        if (auto self = weak.lock())
          self->enqueue(std::move(text));
      });
    };
    peer.close = [weak, exec](std::string reason) {
      asio::post(exec, [weak, reason = std::move(reason)]() mutable {
        if (auto self = weak.lock())
          self->close(std::move(reason));
      });
    };
    id_ = api_->ws_open(std::move(peer));
    open_ = true;
    do_read();
  }

  void do_read() {
    ws_.async_read(buffer_, beast::bind_front_handler(
                              &websocket_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
    if (ec) {
      finish();
      return;
    }
    if (!ws_.got_text()) {
      buffer_.consume(buffer_.size());
      close("binary frames are not understood; send JSON text");
      return;
    }
    auto text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    api_->ws_message(id_, std::move(text));
    do_read();
  }

  void enqueue(std::string text) {
    if (closing_ || !open_)
      return;
    queue_.push_back(std::move(text));
    if (queue_.size() == 1)
      do_write();
  }

  void do_write() {
    ws_.text(true);
    ws_.async_write(asio::buffer(queue_.front()),
                    beast::bind_front_handler(&websocket_session::on_write,
                                              shared_from_this()));
  }

  void on_write(beast::error_code ec, size_t) {
    if (ec) {
      finish();
      return;
    }
    queue_.pop_front();
    if (!queue_.empty())
      do_write();
    else if (close_reason_)
      do_close();
  }

  void close(std::string reason) {
    if (closing_ || close_reason_)
      return;
    close_reason_ = std::move(reason);
    if (queue_.empty())
      do_close();
  }

  void do_close() {
    closing_ = true;
    // One line, at most 123 bytes: what fits a close frame.
    auto why = close_reason_->substr(0, close_reason_->find('\n'));
    why = why.substr(0, 120);
    websocket::close_reason cr(websocket::close_code::policy_error,
                               beast::string_view(why.data(), why.size()));
    ws_.async_close(
      cr, [self = shared_from_this()](beast::error_code) { self->finish(); });
  }

  void finish() {
    if (!open_)
      return;
    open_ = false;
    api_->ws_closed(id_);
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  std::shared_ptr<http_handler> api_;
  const http_server_config& config_;
  std::deque<std::string> queue_;
  std::optional<std::string> close_reason_;
  bool closing_ = false;
  bool open_ = false;
  uint64_t id_ = 0;
};

// -- HTTP session ---------------------------------------------------------------------

class http_session : public std::enable_shared_from_this<http_session> {
public:
  http_session(tcp::socket&& socket, std::shared_ptr<http_handler> api,
               const http_server_config& config)
    : stream_(std::move(socket)), api_(std::move(api)), config_(config) {
    beast::error_code ec;
    stream_.socket().set_option(tcp::no_delay{true}, ec);
  }

  void start() {
    asio::dispatch(
      stream_.get_executor(),
      beast::bind_front_handler(&http_session::do_read, shared_from_this()));
  }

private:
  void do_read() {
    parser_.emplace();
    parser_->body_limit(config_.body_limit);
    parser_->header_limit(16 * 1024);
    stream_.expires_after(config_.idle_timeout);
    http::async_read(
      stream_, buffer_, *parser_,
      beast::bind_front_handler(&http_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
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
                            + std::to_string(config_.body_limit) + " bytes"));
      return;
    }
    if (ec) {
      keep_alive_ = false;
      send(error_response(400, "BAD_REQUEST",
                          "malformed HTTP request: " + ec.message()));
      return;
    }
    auto req = parser_->release();
    keep_alive_ = req.keep_alive();
    version_ = req.version();
    stream_.expires_never();
    if (websocket::is_upgrade(req)) {
      if (req.target() == "/v1/ws") {
        std::make_shared<websocket_session>(stream_.release_socket(), api_,
                                            config_)
          ->start(std::move(req));
      } else {
        keep_alive_ = false;
        send(
          error_response(404, "NOT_FOUND", "WebSocket lives at /v1/ws only"));
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
    out.body = std::move(req.body());
    if (out.method == "GET") {
      http_response file;
      if (static_file(config_.web_root, out.path, file)) {
        send(std::move(file));
        return;
      }
    }
    // The answer holds the session: nothing else does while it waits.
    auto exec = stream_.get_executor();
    api_->handle(std::move(out),
                 [self = shared_from_this(), exec](http_response res) {
                   asio::post(exec, [self, res = std::move(res)]() mutable {
                     self->send(std::move(res));
                   });
                 });
  }

  void send(http_response res) {
    auto msg = std::make_shared<http::response<http::string_body>>(
      static_cast<http::status>(res.status), version_);
    msg->set(http::field::server, "troupe");
    msg->set(http::field::content_type, res.content_type);
    if (res.status == 405)
      msg->set(http::field::allow, "GET, POST, DELETE");
    msg->keep_alive(keep_alive_);
    msg->body() = std::move(res.body);
    msg->prepare_payload();
    res_ = msg;
    stream_.expires_after(config_.idle_timeout);
    http::async_write(
      stream_, *msg,
      beast::bind_front_handler(&http_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, size_t) {
    if (ec)
      spdlog::debug("http: write: {}", ec.message());
    res_.reset();
    if (ec || !keep_alive_) {
      do_close();
      return;
    }
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> res_;
  std::shared_ptr<http_handler> api_;
  const http_server_config& config_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

} // namespace

// -- listener -------------------------------------------------------------------------

class http_server::listener : public std::enable_shared_from_this<listener> {
public:
  listener(asio::io_context& io, tcp::endpoint ep,
           std::shared_ptr<http_handler> api, const http_server_config& config)
    : io_(io),
      acceptor_(asio::make_strand(io)),
      api_(std::move(api)),
      config_(config) {
    beast::error_code ec;
    acceptor_.open(ep.protocol(), ec);
    if (!ec)
      acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec)
      acceptor_.bind(ep, ec);
    if (!ec)
      acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      throw std::runtime_error("cannot listen for HTTP on port "
                               + std::to_string(ep.port()) + ": "
                               + ec.message());
  }

  uint16_t port() const {
    return acceptor_.local_endpoint().port();
  }

  void start() {
    do_accept();
  }

  void stop() {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
      beast::error_code ec;
      self->acceptor_.close(ec);
    });
  }

private:
  void do_accept() {
    acceptor_.async_accept(
      asio::make_strand(io_),
      beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open())
      return;
    if (!ec)
      std::make_shared<http_session>(std::move(socket), api_, config_)->start();
    do_accept();
  }

  asio::io_context& io_;
  tcp::acceptor acceptor_;
  std::shared_ptr<http_handler> api_;
  const http_server_config& config_;
};

// -- http_server ----------------------------------------------------------------------

http_server::http_server(http_server_config config,
                         std::shared_ptr<http_handler> api)
  : config_(std::move(config)), api_(std::move(api)) {
  // nop
}

http_server::~http_server() {
  stop();
}

void http_server::start() {
  io_ = std::make_shared<asio::io_context>(config_.threads);
  auto addr = asio::ip::make_address(config_.bind_host);
  listener_ = std::make_shared<listener>(
    *io_, tcp::endpoint{addr, config_.port}, api_, config_);
  port_ = listener_->port();
  listener_->start();
  for (int i = 0; i < std::max(1, config_.threads); ++i)
    threads_.emplace_back([io = io_] { io->run(); });
  spdlog::info("http: listening on {}:{}", config_.bind_host, port_);
}

void http_server::stop() {
  if (!io_)
    return;
  if (listener_) // null when start() could not bind
    listener_->stop();
  io_->stop();
  for (auto& t : threads_)
    t.join();
  threads_.clear();
  listener_.reset();
  io_.reset();
}

} // namespace troupe
