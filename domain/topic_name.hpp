#pragma once

#include <string_view>

#include "domain/error_code.hpp"

namespace troupe {

/// Kafka's Topic.validate: 1..249 characters from [a-zA-Z0-9._-], not "."
/// or "..". Returns none or INVALID_TOPIC_EXCEPTION.
error_code validate_topic_name(std::string_view name) noexcept;

/// Group ids for JoinGroup/SyncGroup/Heartbeat/LeaveGroup must be non-empty;
/// every id is an int16-length string on the wire.
error_code validate_group_id(std::string_view group_id,
                             bool allow_empty) noexcept;

} // namespace troupe
