#pragma once

// REST Proxy's media types and content negotiation (confluentinc/kafka-rest
// Versions.java): `application/vnd.kafka.v2+json` for metadata and consumer
// management, `application/vnd.kafka.{binary,json,...}.v2+json` for
// embedded records. Plain C++.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::rest {

/// REST Proxy's EmbeddedFormat; troupe serves binary and json (avro,
/// jsonschema and protobuf need a schema registry).
enum class embedded_format { binary, json, avro, jsonschema, protobuf };

inline constexpr std::string_view v2_json = "application/vnd.kafka.v2+json";
inline constexpr std::string_view plain_json = "application/json";

/// "binary", "json", ...
std::string_view name_of(embedded_format f);

/// application/vnd.kafka.<name>.v2+json
std::string media_type_of(embedded_format f);

/// A format by its name, case-insensitive as REST Proxy's
/// CreateConsumerInstanceRequest reads it.
std::optional<embedded_format> format_by_name(std::string_view name);

/// The embedded format a Content-Type names, parameters ignored.
std::optional<embedded_format> embedded_format_of(std::string_view ctype);

/// A body REST Proxy reads as JSON on the management routes: the v2 type,
/// any embedded v2 type, or no Content-Type at all; troupe also takes
/// application/json.
bool is_json_body(std::string_view ctype);

/// One media range of an Accept header.
struct media_range {
  std::string type; // "application/vnd.kafka.v2+json", "*/*", ...
  double q = 1;
};

/// The ranges of an Accept header, most preferred first (by q, then order).
std::vector<media_range> parse_accept(std::string_view accept);

/// What a metadata or management route answers with for `accept`:
/// the v2 type (also for wildcards and no Accept), application/json when
/// only that is acceptable, an embedded type when `embedded_ok` (REST
/// Proxy's consumer routes produce those too); nullopt: 406.
std::optional<std::string> negotiate(std::string_view accept,
                                     bool embedded_ok = false);

/// GET .../records: REST Proxy picks the reader by Accept, and a reader of
/// another format than the instance's answers 40601.
enum class records_choice {
  /// Serve the instance's own format.
  own,
  /// Accept names other embedded formats only (the plain v2 type counts as
  /// binary, which REST Proxy serves it from): 406, error_code 40601.
  mismatch,
  /// Nothing acceptable that records could be: 406.
  unacceptable,
};

records_choice negotiate_records(std::string_view accept, embedded_format own);

} // namespace troupe::rest
