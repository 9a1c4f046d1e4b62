#include "gateway/http/websocket_session.hpp"

#include <boost/asio/post.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace troupe {

template <class Stream>
websocket_session<Stream>::websocket_session(
  Stream&& stream, std::shared_ptr<const server_context> ctx,
  http_request who)
  : ws_(std::move(stream)), ctx_(std::move(ctx)), who_(std::move(who)) {
  // nop
}

template <class Stream>
void websocket_session<Stream>::start(
  beast::http::request<beast::http::string_body> req) {
  // The websocket stream's own timeouts take over from the HTTP ones.
  beast::get_lowest_layer(ws_).expires_never();
  websocket::stream_base::timeout opt{
    std::chrono::seconds(30), // handshake
    std::chrono::duration_cast<websocket::stream_base::duration>(
      ctx_->config.idle_timeout),
    true}; // keep-alive pings
  ws_.set_option(opt);
  ws_.read_message_max(ctx_->config.body_limit);
  ws_.async_accept(req,
                   beast::bind_front_handler(&websocket_session::on_accept,
                                             this->shared_from_this()));
}

template <class Stream>
void websocket_session<Stream>::on_accept(beast::error_code ec) {
  if (ec)
    return;
  std::weak_ptr<websocket_session> weak = this->shared_from_this();
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
  peer.authorization = std::move(who_.authorization);
  peer.remote_host = who_.remote_host;
  peer.tls_subject = who_.tls_subject;
  id_ = ctx_->api->ws_open(std::move(peer));
  open_ = true;
  do_read();
}

template <class Stream>
void websocket_session<Stream>::do_read() {
  ws_.async_read(buffer_, beast::bind_front_handler(&websocket_session::on_read,
                                                    this->shared_from_this()));
}

template <class Stream>
void websocket_session<Stream>::on_read(beast::error_code ec, size_t) {
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
  ctx_->api->ws_message(id_, std::move(text));
  do_read();
}

template <class Stream>
void websocket_session<Stream>::enqueue(std::string text) {
  if (closing_ || !open_)
    return;
  queue_.push_back(std::move(text));
  if (queue_.size() == 1)
    do_write();
}

template <class Stream>
void websocket_session<Stream>::do_write() {
  ws_.text(true);
  ws_.async_write(asio::buffer(queue_.front()),
                  beast::bind_front_handler(&websocket_session::on_write,
                                            this->shared_from_this()));
}

template <class Stream>
void websocket_session<Stream>::on_write(beast::error_code ec, size_t) {
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

template <class Stream>
void websocket_session<Stream>::close(std::string reason) {
  if (closing_ || close_reason_)
    return;
  close_reason_ = std::move(reason);
  if (queue_.empty())
    do_close();
}

template <class Stream>
void websocket_session<Stream>::do_close() {
  closing_ = true;
  // One line, at most 123 bytes: what fits a close frame.
  auto why = close_reason_->substr(0, close_reason_->find('\n'));
  why = why.substr(0, 120);
  websocket::close_reason cr(websocket::close_code::policy_error,
                             beast::string_view(why.data(), why.size()));
  ws_.async_close(
    cr, [self = this->shared_from_this()](beast::error_code) { self->finish(); });
}

template <class Stream>
void websocket_session<Stream>::finish() {
  if (!open_)
    return;
  open_ = false;
  ctx_->api->ws_closed(id_);
}

template class websocket_session<beast::tcp_stream>;
template class websocket_session<beast::ssl_stream<beast::tcp_stream>>;

} // namespace troupe
