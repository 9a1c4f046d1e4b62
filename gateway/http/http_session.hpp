#pragma once

// One keep-alive HTTP/1.1 connection (Beast's chat-multi http_session):
// reads a request with a body limit (413) and an idle timeout, serves the
// dashboard's files, hands everything else to the API and writes its
// answer, which arrives from another thread and is posted onto the
// session's strand. Upgrades on /v1/ws become a websocket_session.
// `Stream` is beast::tcp_stream (HTTP) or beast::ssl_stream of one
// (HTTPS, troupe.http.ssl.enable): the TLS handshake comes first, bounded
// by the idle timeout, and a close sends TLS's close_notify.

#include <memory>
#include <optional>
#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "gateway/http/config.hpp"

namespace troupe {

using plain_stream = boost::beast::tcp_stream;
using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

template <class Stream>
class http_session
  : public std::enable_shared_from_this<http_session<Stream>> {
public:
  http_session(Stream&& stream, std::shared_ptr<const server_context> ctx,
               std::string remote_host);

  void start();

private:
  void on_handshake(boost::beast::error_code ec);
  void do_read();
  void on_read(boost::beast::error_code ec, size_t);
  void upgrade();
  void send(http_response res);
  void on_write(boost::beast::error_code ec, size_t);
  void do_close();

  using request_parser =
    boost::beast::http::request_parser<boost::beast::http::string_body>;
  using response =
    boost::beast::http::response<boost::beast::http::string_body>;

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<request_parser> parser_;
  std::shared_ptr<response> res_;
  std::shared_ptr<const server_context> ctx_;
  std::string remote_host_;
  /// The verified client certificate's subject (HTTPS), or empty.
  std::string tls_subject_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

extern template class http_session<plain_stream>;
extern template class http_session<tls_stream>;

} // namespace troupe
