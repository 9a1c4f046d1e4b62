#pragma once

// One keep-alive HTTP/1.1 connection (Beast's chat-multi http_session):
// reads a request with a body limit (413) and an idle timeout, serves the
// dashboard's files, hands everything else to the API and writes its
// answer, which arrives from another thread and is posted onto the
// session's strand. Upgrades on /v1/ws become a websocket_session.

#include <memory>
#include <optional>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "gateway/http/config.hpp"

namespace troupe {

class http_session : public std::enable_shared_from_this<http_session> {
public:
  http_session(boost::asio::ip::tcp::socket&& socket,
               std::shared_ptr<const server_context> ctx);

  void start();

private:
  void do_read();
  void on_read(boost::beast::error_code ec, size_t);
  void send(http_response res);
  void on_write(boost::beast::error_code ec, size_t);
  void do_close();

  using request_parser =
    boost::beast::http::request_parser<boost::beast::http::string_body>;
  using response =
    boost::beast::http::response<boost::beast::http::string_body>;

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<request_parser> parser_;
  std::shared_ptr<response> res_;
  std::shared_ptr<const server_context> ctx_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
};

} // namespace troupe
