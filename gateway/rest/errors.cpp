#include "gateway/rest/errors.hpp"

#include "gateway/rest/json.hpp"
#include "gateway/rest/media.hpp"

namespace troupe::rest {

http_response error_body(unsigned status, int code, std::string_view name,
                         std::string_view message,
                         std::string_view content_type) {
  http_response res;
  res.status = status;
  res.content_type = std::string{content_type};
  res.body = "{\"error_code\":" + std::to_string(code) + ",\"error_name\":"
             + json_quote(name) + ",\"message\":" + json_quote(message) + "}";
  return res;
}

namespace v2 {

namespace {

http_response err(unsigned status, int code, std::string_view name,
                  std::string_view message) {
  return error_body(status, code, name, message, v2_json);
}

} // namespace

http_response bad_request(std::string_view message) {
  return err(400, 400, "BAD_REQUEST", message);
}

http_response topic_not_found() {
  return err(404, 40401, "TOPIC_NOT_FOUND", "Topic not found.");
}

http_response partition_not_found() {
  return err(404, 40402, "PARTITION_NOT_FOUND", "Partition not found.");
}

http_response instance_not_found() {
  return err(404, 40403, "CONSUMER_INSTANCE_NOT_FOUND",
             "Consumer instance not found.");
}

http_response format_mismatch() {
  return err(406, 40601, "CONSUMER_FORMAT_MISMATCH",
             "The requested embedded data format does not match the "
             "deserializer for this consumer instance");
}

http_response not_acceptable() {
  return err(406, 406, "NOT_ACCEPTABLE", "HTTP 406 Not Acceptable");
}

http_response instance_exists() {
  return err(409, 40902, "CONSUMER_ALREADY_EXISTS",
             "Consumer with specified consumer ID already exists in the "
             "specified consumer group.");
}

http_response illegal_state(std::string_view message) {
  return err(409, 40903, "ILLEGAL_STATE",
             "Illegal state: " + std::string{message});
}

http_response unsupported_media_type(std::string_view what) {
  return err(415, 415, "UNSUPPORTED_MEDIA_TYPE",
             "HTTP 415 Unsupported Media Type: " + std::string{what});
}

http_response unprocessable(std::string_view message) {
  return err(422, 422, "UNPROCESSABLE_ENTITY", message);
}

http_response invalid_consumer_config(std::string_view what) {
  return err(422, 42204, "INVALID_CONSUMER_CONFIG",
             "Invalid consumer configuration: " + std::string{what});
}

http_response kafka(error_code e, std::string_view message) {
  auto name = error_name(e);
  switch (e) {
    case error_code::unknown_topic_or_partition:
      return err(404, 40403, name, message);
    case error_code::broker_not_available:
      return err(503, 50302, name, message);
    case error_code::invalid_request:
    case error_code::invalid_topic_exception:
    case error_code::invalid_partitions:
    case error_code::invalid_replication_factor:
    case error_code::topic_already_exists:
    case error_code::unknown_server_error:
    case error_code::unsupported_version:
      return err(400, 40002, name, message);
    default:
      return err(500, produce_error_code(e), name, message);
  }
}

int produce_error_code(error_code e) {
  return is_retriable(e) ? 50003 : 50002;
}

http_response forbidden(error_code e, std::string_view message) {
  http_response res;
  res.status = 403;
  res.content_type = v2_json;
  res.body = "{\"error_code\":40301,\"error_name\":" + json_quote(error_name(e))
             + ",\"kafka_error_code\":" + std::to_string(static_cast<int>(e))
             + ",\"message\":" + json_quote(message) + "}";
  return res;
}

http_response topics_forbidden(const std::vector<std::string>& topics) {
  std::string list;
  for (auto& t : topics)
    list += (list.empty() ? "" : ", ") + t;
  return forbidden(error_code::topic_authorization_failed,
                   "Not authorized to access topics: [" + list + "]");
}

http_response group_forbidden(std::string_view group) {
  return forbidden(error_code::group_authorization_failed,
                   "Not authorized to access group: " + std::string{group});
}

http_response cluster_forbidden() {
  return forbidden(error_code::cluster_authorization_failed,
                   "Cluster authorization failed.");
}

} // namespace v2

http_response kafka_error(unsigned status, error_code e,
                          std::string_view message) {
  return error_body(status, static_cast<int>(e), error_name(e), message);
}

} // namespace troupe::rest
