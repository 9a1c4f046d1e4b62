#pragma once

// One client socket of a broker's Kafka listener: reads int32 size-prefixed
// requests, hands each to the connection's session actor
// (gateway/kafka/kafka_session) and writes the responses in request order, as
// Kafka's clients rely on (they match responses to requests by order as
// much as by correlation id).

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/fwd.hpp>

#include "gateway/kafka/kafka_request_handler.hpp"
#include "gateway/kafka/kafka_session.hpp"

namespace troupe {

class kafka_connection : public std::enable_shared_from_this<kafka_connection> {
public:
  // -- constructors -----------------------------------------------------------

  kafka_connection(std::shared_ptr<boost::asio::io_context> io,
                   boost::asio::ip::tcp::socket socket, caf::actor_system& sys,
                   kafka_request_context ctx, size_t max_request_bytes,
                   std::chrono::milliseconds idle_timeout);

  // -- operations -------------------------------------------------------------

  void start();

private:
  void do_read();
  void on_read(const boost::system::error_code& ec, size_t n);
  bool on_frame(const uint8_t* data, size_t size);
  void on_reply(uint64_t seq, kafka_reply reply);
  void flush();
  void do_write();
  void on_write(const boost::system::error_code& ec);
  void arm_idle_timer();
  void close(const char* why);

  /// Weak: the io_context owns this connection through its handlers.
  std::weak_ptr<boost::asio::io_context> io_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_timer_;
  kafka_request_context ctx_;
  /// The connection's actor; reset when the connection closes.
  std::unique_ptr<kafka_session> session_;
  size_t max_request_bytes_;
  std::chrono::milliseconds idle_timeout_;
  std::vector<uint8_t> in_;
  std::array<uint8_t, 65536> chunk_;
  uint64_t next_seq_ = 0;
  /// Replies by request sequence number; nullopt while still awaited.
  std::map<uint64_t, std::optional<kafka_reply>> pending_;
  std::vector<wire::bytes> out_;
  bool writing_ = false;
  bool close_after_write_ = false;
  bool closed_ = false;
};

} // namespace troupe
