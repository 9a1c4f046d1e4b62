#include "gateway/rest/call.hpp"

#include "gateway/rest/errors.hpp"

namespace troupe::rest {

http_response ask_failed(const caf::error& err, std::string_view what,
                         bool v2) {
  std::string message{what};
  if (err == caf::sec::request_timeout) {
    message += ": no answer in time";
    return v2 ? error_body(504, 504, "REQUEST_TIMED_OUT", message,
                           "application/vnd.kafka.v2+json")
              : kafka_error(504, error_code::request_timed_out, message);
  }
  if (err == caf::sec::invalid_argument) {
    message += ": no broker to ask (leader not available or broker stopped)";
    return v2 ? error_body(503, 50302, "BROKER_NOT_AVAILABLE", message,
                           "application/vnd.kafka.v2+json")
              : kafka_error(503, error_code::broker_not_available, message);
  }
  message += ": " + to_string(err);
  return v2 ? error_body(500, 50002, "KAFKA_ERROR", message,
                         "application/vnd.kafka.v2+json")
            : kafka_error(500, error_code::unknown_server_error, message);
}

} // namespace troupe::rest
