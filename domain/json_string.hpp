#pragma once

// JSON string literals as Jackson writes them (Kafka's znodes; the REST
// gateway's hand-written JSON uses the same).

#include <string>
#include <string_view>

namespace troupe {

/// `s` as a JSON string literal, quotes included: '"', '\\' and the short
/// escapes; other control characters as \u00XX with upper-case hex;
/// everything else, non-ASCII included, as is (Jackson's default).
std::string json_quote(std::string_view s);

} // namespace troupe
