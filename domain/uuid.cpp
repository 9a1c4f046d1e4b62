#include "domain/uuid.hpp"

namespace troupe {

namespace {

constexpr char alphabet[] =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '-')
    return 62;
  if (c == '_')
    return 63;
  return -1;
}

} // namespace

std::string to_string(const uuid& x) {
  uint8_t bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(x.high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(x.low >> (56 - 8 * i));
  }
  std::string out;
  out.reserve(22);
  // Five full 3-byte groups, then one byte left over (two characters).
  for (int i = 0; i < 15; i += 3) {
    uint32_t v =
      (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += alphabet[(v >> 18) & 0x3F];
    out += alphabet[(v >> 12) & 0x3F];
    out += alphabet[(v >> 6) & 0x3F];
    out += alphabet[v & 0x3F];
  }
  out += alphabet[bytes[15] >> 2];
  out += alphabet[(bytes[15] & 0x03) << 4];
  return out;
}

std::optional<uuid> uuid_from_string(std::string_view text) {
  // Uuid.fromString decodes with Java's URL-safe decoder, which takes the
  // padding of 16 bytes ("==") too.
  if (text.size() == 24 && text.substr(22) == "==")
    text = text.substr(0, 22);
  if (text.size() != 22)
    return std::nullopt;
  uint8_t bytes[16];
  size_t out = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    auto v = decode_char(c);
    if (v < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (out == 16)
        return std::nullopt;
      bytes[out++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  // 22 characters carry 132 bits: the last 4 must be zero, as Java's
  // decoder insists.
  if (out != 16 || (acc & ((1u << bits) - 1)) != 0)
    return std::nullopt;
  uuid result;
  for (int i = 0; i < 8; ++i) {
    result.high = (result.high << 8) | bytes[i];
    result.low = (result.low << 8) | bytes[8 + i];
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
