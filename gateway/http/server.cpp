#include "gateway/http/server.hpp"

#include <algorithm>

#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include "gateway/http/listener.hpp"
#include "gateway/http/tls_context.hpp"
#include "gateway/thread_slot.hpp"

namespace asio = boost::asio;

namespace troupe {

http_server::http_server(http_server_config config,
                         std::shared_ptr<http_handler> api)
  : ctx_(std::make_shared<server_context>(
    server_context{std::move(config), std::move(api), nullptr})) {
  // nop
}

http_server::~http_server() {
  stop();
}

void http_server::start() {
  auto& config = ctx_->config;
  if (config.ssl_enabled && !ctx_->tls) // throws when the PEMs are unusable
    ctx_->tls = make_tls_server_context(config.ssl);
  auto threads = std::max(1, config.threads);
  io_ = std::make_shared<asio::io_context>(threads);
  auto addr = asio::ip::make_address(config.bind_host);
  listener_ = std::make_shared<listener>(
    *io_, asio::ip::tcp::endpoint{addr, config.port}, ctx_);
  port_ = listener_->port();
  listener_->start();
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([io = io_, i] {
      gateway_thread_slot = static_cast<size_t>(i);
      io->run();
    });
  spdlog::info("http: listening on {}:{}{}", config.bind_host, port_,
               ctx_->tls ? " (HTTPS)" : "");
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
