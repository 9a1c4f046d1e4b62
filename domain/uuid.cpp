#include "domain/uuid.hpp"

#include "domain/base64.hpp"

namespace troupe {

std::string to_string(const uuid& x) {
  // Kafka's Uuid.toString: the 16 bytes, big-endian, in unpadded base64url.
  char bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(x.high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<char>(x.low >> (56 - 8 * i));
  }
  return base64url_encode({bytes, sizeof bytes});
}

std::optional<uuid> uuid_from_string(std::string_view text) {
  // Uuid.fromString decodes with Java's URL-safe decoder, which takes the
  // padding of 16 bytes ("==") too.
  auto bytes = base64url_decode(text);
  if (!bytes || bytes->size() != 16)
    return std::nullopt;
  uuid result;
  for (int i = 0; i < 8; ++i) {
    result.high = (result.high << 8) | static_cast<uint8_t>((*bytes)[i]);
    result.low = (result.low << 8) | static_cast<uint8_t>((*bytes)[8 + i]);
  }
  return result;
}

uuid random_uuid(std::mt19937_64& rng) {
  for (;;) {
    uuid x{rng(), rng()};
    // java.util.UUID.randomUUID: version 4, IETF variant.
    x.high = (x.high & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;
    x.low = (x.low & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
    bool reserved = x.high == 0 && (x.low == 0 || x.low == 1);
    if (!reserved && to_string(x).front() != '-')
      return x;
  }
}

} // namespace troupe
