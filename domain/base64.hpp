#pragma once

// RFC 4648 base64 (standard alphabet), as REST Proxy's binary embedded
// format carries keys and values.

#include <optional>
#include <string>
#include <string_view>

namespace troupe {

/// Padded base64 of `bytes`.
std::string base64_encode(std::string_view bytes);

/// The bytes of `text`, or nullopt when it is not base64: a character
/// outside the alphabet, padding anywhere but at the end, or a length that
/// no padding can complete. Padding may be left out.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace troupe
