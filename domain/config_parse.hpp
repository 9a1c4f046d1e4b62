#pragma once

// Kafka's ConfigDef parsing of one value, shared by the topic configs and
// the dynamic broker configs (domain/topic_config.cpp). Plain C++.

#include <cstdint>
#include <optional>
#include <string_view>

namespace troupe {

/// A LONG as ConfigDef parses it: String.trim, then Long.parseLong (an
/// optional sign, decimal digits, within 64 bits). nullopt when it does
/// not parse.
std::optional<int64_t> parse_config_long(std::string_view value);

} // namespace troupe
