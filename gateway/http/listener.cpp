#include "gateway/http/listener.hpp"

#include <stdexcept>
#include <string>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "gateway/http/http_session.hpp"

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace troupe {

listener::listener(asio::io_context& io, tcp::endpoint ep,
                   std::shared_ptr<const server_context> ctx)
  : io_(io), acceptor_(asio::make_strand(io)), ctx_(std::move(ctx)) {
  boost::system::error_code ec;
  acceptor_.open(ep.protocol(), ec);
  if (!ec)
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor_.bind(ep, ec);
  if (!ec)
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error("cannot listen for HTTP on port "
                             + std::to_string(ep.port()) + ": " + ec.message());
}

uint16_t listener::port() const {
  return acceptor_.local_endpoint().port();
}

void listener::start() {
  do_accept();
}

void listener::stop() {
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->acceptor_.close(ec);
  });
}

void listener::do_accept() {
  acceptor_.async_accept(
    asio::make_strand(io_),
    boost::beast::bind_front_handler(&listener::on_accept, shared_from_this()));
}

void listener::on_accept(boost::system::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open())
    return;
  if (!ec) {
    boost::system::error_code ep_ec;
    auto remote = socket.remote_endpoint(ep_ec);
    auto host = ep_ec ? std::string{} : remote.address().to_string();
    if (ctx_->tls)
      std::make_shared<http_session<tls_stream>>(
        tls_stream{plain_stream{std::move(socket)}, *ctx_->tls}, ctx_,
        std::move(host))
        ->start();
    else
      std::make_shared<http_session<plain_stream>>(
        plain_stream{std::move(socket)}, ctx_, std::move(host))
        ->start();
  }
  do_accept();
}

} // namespace troupe
