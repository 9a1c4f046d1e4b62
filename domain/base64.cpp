#include "domain/base64.hpp"

#include <cstdint>

namespace troupe {

namespace {

constexpr char standard[] =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr char url_safe[] =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int value_of(const char* alphabet, char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == alphabet[62])
    return 62;
  if (c == alphabet[63])
    return 63;
  return -1;
}

std::string encode(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  auto at = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i]));
  };
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    auto n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (auto rest = bytes.size() - i; rest > 0) {
    auto n = at(i) << 16;
    if (rest == 2)
      n |= at(i + 1) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    if (rest == 2)
      out += alphabet[(n >> 6) & 63];
    if (pad)
      out.append(3 - rest, '=');
  }
  return out;
}

std::optional<std::string> decode(std::string_view text, const char* alphabet,
                                  bool zero_tail) {
  auto end = text.size();
  while (end > 0 && text[end - 1] == '=' && text.size() - end < 2)
    --end;
  if (end < text.size() && text.size() % 4 != 0)
    return std::nullopt; // padding that does not complete a quantum
  if (end % 4 == 1)
    return std::nullopt; // one character cannot carry a whole byte
  std::string out;
  out.reserve(end / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    auto v = value_of(alphabet, text[i]);
    if (v < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (zero_tail && (acc & ((1u << bits) - 1)) != 0)
    return std::nullopt;
  return out;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
  return encode(bytes, standard, true);
}

std::optional<std::string> base64_decode(std::string_view text) {
  return decode(text, standard, false);
}

std::string base64url_encode(std::string_view bytes) {
  return encode(bytes, url_safe, false);
}

std::optional<std::string> base64url_decode(std::string_view text) {
  return decode(text, url_safe, true);
}

} // namespace troupe
