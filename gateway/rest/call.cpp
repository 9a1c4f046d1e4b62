#include "gateway/rest/call.hpp"

#include <algorithm>

#include "gateway/rest/errors.hpp"

namespace troupe::rest {

bool call::allow_topics(security::acl_operation op,
                        const std::vector<std::string>& topics) const {
  std::vector<std::string> denied;
  for (auto& t : topics)
    if (!may(op, security::resource_type::topic, t)
        && std::find(denied.begin(), denied.end(), t) == denied.end())
      denied.push_back(t);
  if (denied.empty())
    return true;
  reply(v2::topics_forbidden(denied));
  return false;
}

bool call::allow_group(security::acl_operation op,
                       const std::string& group) const {
  if (may(op, security::resource_type::group, group))
    return true;
  reply(v2::group_forbidden(group));
  return false;
}

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
