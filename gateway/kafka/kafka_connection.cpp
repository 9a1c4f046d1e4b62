#include "gateway/kafka/kafka_connection.hpp"

#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

namespace asio = boost::asio;

namespace troupe {

// -- constructors -------------------------------------------------------------

kafka_connection::kafka_connection(std::shared_ptr<asio::io_context> io,
                                   asio::ip::tcp::socket socket,
                                   caf::actor_system& sys,
                                   kafka_request_context ctx,
                                   size_t max_request_bytes,
                                   std::chrono::milliseconds idle_timeout)
  : io_(std::move(io)),
    socket_(std::move(socket)),
    idle_timer_(socket_.get_executor()),
    ctx_(std::move(ctx)),
    max_request_bytes_(max_request_bytes),
    idle_timeout_(idle_timeout) {
  boost::system::error_code ec;
  auto peer = socket_.remote_endpoint(ec);
  if (!ec)
    ctx_.client_host = "/" + peer.address().to_string();
  socket_.set_option(asio::ip::tcp::no_delay{true}, ec);
  session_ = std::make_unique<kafka_session>(sys, ctx_);
}

// -- operations ---------------------------------------------------------------

void kafka_connection::start() {
  arm_idle_timer();
  do_read();
}

void kafka_connection::do_read() {
  socket_.async_read_some(
    asio::buffer(chunk_),
    [self = shared_from_this()](auto ec, size_t n) { self->on_read(ec, n); });
}

void kafka_connection::on_read(const boost::system::error_code& ec, size_t n) {
  if (closed_)
    return;
  if (ec) {
    close(ec == asio::error::eof ? nullptr : "read failed");
    return;
  }
  arm_idle_timer();
  in_.insert(in_.end(), chunk_.begin(), chunk_.begin() + n);
  size_t used = 0;
  for (;;) {
    auto f = wire::decode_frame(in_.data() + used, in_.size() - used,
                                max_request_bytes_);
    if (f.status == wire::frame_status::need_more)
      break;
    if (f.status == wire::frame_status::error) {
      spdlog::warn("kafka: {}: {}", ctx_.client_host, f.error);
      close("bad frame");
      return;
    }
    used += f.consumed;
    if (!on_frame(f.data, f.size))
      return;
  }
  in_.erase(in_.begin(), in_.begin() + used);
  do_read();
}

bool kafka_connection::on_frame(const uint8_t* data, size_t size) {
  wire::reader in{data, size};
  auto header = wire::decode_request_header(in);
  if (!header) {
    spdlog::warn("kafka: {}: undecodable request header: {}", ctx_.client_host,
                 in.error());
    close("bad header");
    return false;
  }
  // The codec speaks more versions than the listener serves. Kafka closes
  // the connection on a version it does not serve, except that it answers
  // ApiVersions of such a version without parsing it (KIP-511).
  std::optional<wire::request_body> body;
  auto served = kafka_listener_serves(header->api_key, header->api_version);
  if (header->api_key == static_cast<int16_t>(wire::api_key::api_versions)
      && !served) {
    body = wire::api_versions_request{};
  } else if (!served) {
    spdlog::warn("kafka: {}: cannot serve {} (key {}) v{}: not served",
                 ctx_.client_host, wire::api_name(header->api_key),
                 header->api_key, header->api_version);
    close("bad request");
    return false;
  } else {
    body = wire::decode_request_body(in, *header);
  }
  if (!body) {
    // Kafka closes the connection on an unknown API, an unsupported version
    // and a body it cannot parse.
    spdlog::warn("kafka: {}: cannot serve {} (key {}) v{}: {}",
                 ctx_.client_host, wire::api_name(header->api_key),
                 header->api_key, header->api_version, in.error());
    close("bad request");
    return false;
  }
  spdlog::debug("kafka: {}: {} v{} correlation {}", ctx_.client_host,
                wire::api_name(header->api_key), header->api_version,
                header->correlation_id);
  auto seq = next_seq_++;
  pending_.emplace(seq, std::nullopt);
  std::weak_ptr<kafka_connection> weak = shared_from_this();
  session_->submit(
    std::move(*header), std::move(*body),
    [weak, io = io_, seq](kafka_reply reply) {
      // A listener already stopped drops the reply.
      if (auto ctx = io.lock())
        asio::post(*ctx, [weak, seq, reply = std::move(reply)]() mutable {
          if (auto self = weak.lock())
            self->on_reply(seq, std::move(reply));
        });
    });
  return true;
}

void kafka_connection::on_reply(uint64_t seq, kafka_reply reply) {
  if (closed_)
    return;
  auto i = pending_.find(seq);
  if (i == pending_.end())
    return;
  i->second = std::move(reply);
  flush();
}

void kafka_connection::flush() {
  // Responses leave in request order: only a ready head is written.
  while (!pending_.empty() && pending_.begin()->second) {
    auto reply = std::move(*pending_.begin()->second);
    pending_.erase(pending_.begin());
    if (reply.what == kafka_reply::kind::frame) {
      out_.push_back(std::move(reply.frame));
    } else if (reply.what == kafka_reply::kind::close) {
      close_after_write_ = true;
      break;
    }
  }
  if (!writing_) {
    if (!out_.empty())
      do_write();
    else if (close_after_write_)
      close("request failed");
  }
}

void kafka_connection::do_write() {
  writing_ = true;
  asio::async_write(
    socket_, asio::buffer(out_.front()),
    [self = shared_from_this()](auto ec, size_t) { self->on_write(ec); });
}

void kafka_connection::on_write(const boost::system::error_code& ec) {
  writing_ = false;
  if (closed_)
    return;
  if (ec) {
    close("write failed");
    return;
  }
  out_.erase(out_.begin());
  if (!out_.empty())
    do_write();
  else if (close_after_write_)
    close("request failed");
}

void kafka_connection::arm_idle_timer() {
  idle_timer_.expires_after(idle_timeout_);
  idle_timer_.async_wait([weak = weak_from_this()](auto ec) {
    auto self = weak.lock();
    if (ec || !self || self->closed_)
      return;
    // connections.max.idle.ms: a connection awaiting answers is not idle.
    if (!self->pending_.empty() || self->writing_)
      self->arm_idle_timer();
    else
      self->close("idle");
  });
}

void kafka_connection::close(const char* why) {
  if (closed_)
    return;
  closed_ = true;
  if (why)
    spdlog::info("kafka: closing {} ({})", ctx_.client_host, why);
  boost::system::error_code ec;
  idle_timer_.cancel();
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  session_.reset();
}

} // namespace troupe
