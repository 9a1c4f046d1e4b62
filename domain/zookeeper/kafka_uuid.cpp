#include "domain/zookeeper/kafka_uuid.hpp"

#include <array>

namespace troupe::zk {

namespace {

constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "abcdefghijklmnopqrstuvwxyz"
                                      "0123456789-_";

int sextet_of(char c) {
  auto pos = alphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

std::array<uint8_t, 16> bytes_of(const kafka_uuid& id) {
  std::array<uint8_t, 16> bytes{};
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(id.most_significant >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(id.least_significant >> (56 - 8 * i));
  }
  return bytes;
}

} // namespace

std::string to_string(const kafka_uuid& id) {
  auto bytes = bytes_of(id);
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += alphabet[(n >> 18) & 0x3f];
    out += alphabet[(n >> 12) & 0x3f];
    out += alphabet[(n >> 6) & 0x3f];
    out += alphabet[n & 0x3f];
  }
  // 16 = 5 * 3 + 1: one byte left, two characters, no padding.
  uint32_t n = bytes[i] << 16;
  out += alphabet[(n >> 18) & 0x3f];
  out += alphabet[(n >> 12) & 0x3f];
  return out;
}

decoded<kafka_uuid> parse_kafka_uuid(std::string_view text) {
  using result = decoded<kafka_uuid>;
  constexpr size_t max_length = 24;
  if (text.size() > max_length)
    return result::failure("uuid '" + std::string{text}
                           + "' is too long to be a base64 UUID");
  // java.util.Base64's decoder: padding is optional, but if present it must
  // complete the last group.
  auto data = text;
  if (data.size() % 4 == 0 && !data.empty()) {
    if (data.back() == '=')
      data.remove_suffix(1);
    if (!data.empty() && data.back() == '=')
      data.remove_suffix(1);
  }
  if (data.size() % 4 == 1)
    return result::failure("uuid '" + std::string{text}
                           + "' is not valid base64");
  std::string bytes;
  uint32_t bits = 0;
  int nbits = 0;
  for (char c : data) {
    int v = sextet_of(c);
    if (v < 0)
      return result::failure("uuid '" + std::string{text}
                             + "' is not URL-safe base64");
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      bytes += static_cast<char>((bits >> nbits) & 0xff);
    }
  }
  if (bytes.size() != 16)
    return result::failure("uuid '" + std::string{text} + "' decoded as "
                           + std::to_string(bytes.size())
                           + " bytes, not the 16 of a UUID");
  kafka_uuid id;
  for (int i = 0; i < 8; ++i) {
    id.most_significant =
      (id.most_significant << 8) | static_cast<uint8_t>(bytes[i]);
    id.least_significant =
      (id.least_significant << 8) | static_cast<uint8_t>(bytes[8 + i]);
  }
  return id;
}

kafka_uuid random_kafka_uuid(std::mt19937_64& rng) {
  for (;;) {
    // java.util.UUID.randomUUID: version 4, IETF variant.
    kafka_uuid id{rng(), rng()};
    id.most_significant = (id.most_significant & ~uint64_t{0xf000}) | 0x4000;
    id.least_significant =
      (id.least_significant & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);
    bool reserved = id.most_significant == 0 && id.least_significant <= 1;
    if (!reserved && to_string(id).front() != '-')
      return id;
  }
}

} // namespace troupe::zk
