#pragma once

// RFC 4648 base64: the standard alphabet, as REST Proxy's binary embedded
// format carries keys and values, and the URL-safe one without padding, as
// Kafka's Uuid.toString writes topic and member ids.

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

/// Unpadded base64url (RFC 4648 §5) of `bytes`.
std::string base64url_encode(std::string_view bytes);

/// The bytes of unpadded or padded base64url `text`, or nullopt as
/// base64_decode; also when the bits after the last whole byte are not
/// zero (Java's decoder, which Kafka's Uuid.fromString uses, insists).
std::optional<std::string> base64url_decode(std::string_view text);

} // namespace troupe
