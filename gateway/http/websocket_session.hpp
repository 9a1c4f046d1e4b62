#pragma once

// One WebSocket on /v1/ws (Beast's chat-multi websocket_session): reads
// text frames into the API, writes what the API pushes through a queue on
// the session's strand, closes with a reason (1008) when asked. Over
// plain TCP (ws) or TLS (wss): `Stream` is the http_session's stream.

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "gateway/http/config.hpp"

namespace troupe {

template <class Stream>
class websocket_session
  : public std::enable_shared_from_this<websocket_session<Stream>> {
public:
  /// `who`: the upgrade's credentials and client, which the API admitted.
  websocket_session(Stream&& stream, std::shared_ptr<const server_context> ctx,
                    http_request who);

  /// Accepts the upgrade `req` and starts reading.
  void start(boost::beast::http::request<boost::beast::http::string_body> req);

private:
  void on_accept(boost::beast::error_code ec);
  void do_read();
  void on_read(boost::beast::error_code ec, size_t);
  void enqueue(std::string text);
  void do_write();
  void on_write(boost::beast::error_code ec, size_t);
  void close(std::string reason);
  void do_close();
  void finish();

  boost::beast::websocket::stream<Stream> ws_;
  boost::beast::flat_buffer buffer_;
  std::shared_ptr<const server_context> ctx_;
  http_request who_;
  std::deque<std::string> queue_;
  std::optional<std::string> close_reason_;
  bool closing_ = false;
  bool open_ = false;
  uint64_t id_ = 0;
};

extern template class websocket_session<boost::beast::tcp_stream>;
extern template class websocket_session<
  boost::beast::ssl_stream<boost::beast::tcp_stream>>;

} // namespace troupe
