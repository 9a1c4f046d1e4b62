#include "gateway/kafka/kafka_listener.hpp"

#include <stdexcept>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <spdlog/spdlog.h>

#include "gateway/kafka/kafka_connection.hpp"

namespace asio = boost::asio;
using asio::ip::tcp;

namespace troupe {

/// One broker's acceptor.
struct kafka_listener::acceptor
  : std::enable_shared_from_this<kafka_listener::acceptor> {
  acceptor(const std::shared_ptr<asio::io_context>& io, tcp::endpoint at,
           caf::actor_system& sys, kafka_request_context ctx,
           const kafka_listener_config& config)
    : io(io), socket(*io), sys(sys), ctx(std::move(ctx)), config(config) {
    socket.open(at.protocol());
    socket.set_option(tcp::acceptor::reuse_address(true));
    socket.bind(at);
    socket.listen();
  }

  void do_accept() {
    socket.async_accept([self = shared_from_this()](auto ec, tcp::socket s) {
      self->on_accept(ec, std::move(s));
    });
  }

  void on_accept(const boost::system::error_code& ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || !socket.is_open())
      return;
    if (!ec)
      std::make_shared<kafka_connection>(
        io.lock(), std::move(s), sys, ctx, config.max_request_bytes,
        std::chrono::milliseconds{config.connections_max_idle_ms})
        ->start();
    else
      spdlog::warn("kafka: accept failed: {}", ec.message());
    do_accept();
  }

  /// Weak: the io_context owns this acceptor through its handlers.
  std::weak_ptr<asio::io_context> io;
  tcp::acceptor socket;
  caf::actor_system& sys;
  kafka_request_context ctx;
  kafka_listener_config config;
};

// -- constructors -------------------------------------------------------------

kafka_listener::kafka_listener(caf::actor_system& sys,
                               kafka_listener_config config)
  : sys_(sys),
    config_(std::move(config)),
    io_(std::make_shared<asio::io_context>(1)) {
  // nop
}

kafka_listener::~kafka_listener() {
  stop();
}

// -- operations ---------------------------------------------------------------

void kafka_listener::start(const embedded_node& node,
                           const cluster_config& cluster) {
  auto address = asio::ip::make_address(config_.bind_host);
  auto shared = std::make_shared<const cluster_config>(cluster);
  for (size_t i = 0; i < node.brokers.size(); ++i) {
    auto port = static_cast<uint16_t>(cluster.base_port + i);
    kafka_request_context ctx;
    ctx.broker = node.brokers[i];
    ctx.broker_id = static_cast<int32_t>(i);
    ctx.auto_create_topics = cluster.auto_create_topics;
    ctx.config = shared;
    ctx.security = config_.security;
    try {
      auto a = std::make_shared<acceptor>(io_, tcp::endpoint{address, port},
                                          sys_, std::move(ctx), config_);
      a->do_accept();
      acceptors_.push_back(std::move(a));
    } catch (const boost::system::system_error& e) {
      throw std::runtime_error("cannot listen on " + config_.bind_host + ":"
                               + std::to_string(port) + ": " + e.what());
    }
  }
  thread_ = std::thread{[io = io_] { io->run(); }};
}

void kafka_listener::stop() {
  if (!thread_.joinable())
    return;
  io_->stop();
  thread_.join();
  for (auto& a : acceptors_) {
    boost::system::error_code ec;
    a->socket.close(ec);
  }
  // Connections still open end with the io_context: destroying it drops
  // their handlers, and with them the connections and their sockets.
  acceptors_.clear();
  io_.reset();
}

} // namespace troupe
