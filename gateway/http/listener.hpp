#pragma once

// Accepts connections and starts an http_session for each (Beast's
// chat-multi listener).

#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "gateway/http/config.hpp"

namespace troupe {

class listener : public std::enable_shared_from_this<listener> {
public:
  /// Binds and listens; throws std::runtime_error when it cannot.
  listener(boost::asio::io_context& io, boost::asio::ip::tcp::endpoint ep,
           std::shared_ptr<const server_context> ctx);

  uint16_t port() const;

  void start();

  /// Closes the acceptor (on its strand).
  void stop();

private:
  void do_accept();
  void on_accept(boost::system::error_code ec,
                 boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<const server_context> ctx_;
};

} // namespace troupe
