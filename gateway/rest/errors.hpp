#pragma once

// Error answers. REST Proxy v2 routes answer `{error_code, message}` with
// REST Proxy's own codes (kafka-rest Errors.java, rest-utils'
// KafkaExceptionMapper); troupe adds `error_name`. troupe's /v1 routes use
// Kafka's error code and name instead. No CAF.

#include <string>
#include <string_view>
#include <vector>

#include "domain/error_code.hpp"
#include "gateway/http/handler.hpp"

namespace troupe::rest {

/// `{error_code, error_name, message}` with `status`.
http_response error_body(unsigned status, int code, std::string_view name,
                         std::string_view message,
                         std::string_view content_type = "application/json");

/// REST Proxy's errors, by its codes.
namespace v2 {

http_response bad_request(std::string_view message);          // 400, 400
http_response topic_not_found();                              // 404, 40401
http_response partition_not_found();                          // 404, 40402
http_response instance_not_found();                           // 404, 40403
http_response format_mismatch();                              // 406, 40601
http_response not_acceptable();                               // 406, 406
http_response instance_exists();                              // 409, 40902
http_response illegal_state(std::string_view message);        // 409, 40903
http_response unsupported_media_type(std::string_view what);  // 415, 415
http_response unprocessable(std::string_view message);        // 422, 422
http_response invalid_consumer_config(std::string_view what); // 422, 42204

/// A Kafka error as REST Proxy's exception mapper reports it: unknown topic
/// or partition 404/40403, broker not available 503/50302, bad requests
/// 400/40002, retriable errors 500/50003, others 500/50002.
http_response kafka(error_code e, std::string_view message);

/// The code a produce answer carries per failed record: 50003 for
/// retriable errors, 50002 for others (AbstractProduceAction).
int produce_error_code(error_code e);

/// An ACL denial: 403 with REST Proxy's 40301 and Kafka's code and name
/// (`kafka_error_code`, `error_name`).
http_response forbidden(error_code e, std::string_view message);

/// TOPIC_AUTHORIZATION_FAILED: "Not authorized to access topics: [a, b]".
http_response topics_forbidden(const std::vector<std::string>& topics);

/// GROUP_AUTHORIZATION_FAILED: "Not authorized to access group: g".
http_response group_forbidden(std::string_view group);

/// CLUSTER_AUTHORIZATION_FAILED.
http_response cluster_forbidden();

} // namespace v2

/// troupe's /v1 errors: Kafka's code and name.
http_response kafka_error(unsigned status, error_code e,
                          std::string_view message);

} // namespace troupe::rest
