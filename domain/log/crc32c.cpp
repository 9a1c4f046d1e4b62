#include "domain/log/crc32c.hpp"

#include <array>

namespace troupe {

namespace {

constexpr uint32_t polynomial = 0x82F63B78; // reflected 0x1EDC6F41

using crc_tables = std::array<std::array<uint32_t, 256>, 8>;

// Slicing-by-8: table k maps a byte to its CRC contribution k bytes further
// along, so eight table look-ups consume eight bytes at once.
constexpr crc_tables make_tables() {
  crc_tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit)
      c = (c & 1) ? (c >> 1) ^ polynomial : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k)
    for (size_t i = 0; i < 256; ++i)
      t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  return t;
}

constexpr crc_tables tables = make_tables();

// Assembled byte by byte: independent of host byte order and alignment.
inline uint32_t load_le32(const uint8_t* p) noexcept {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16
         | uint32_t{p[3]} << 24;
}

} // namespace

uint32_t crc32c(const uint8_t* data, size_t n, uint32_t crc) noexcept {
  const auto& t = tables;
  uint32_t c = ~crc;
  for (; n >= 8; data += 8, n -= 8) {
    uint32_t lo = c ^ load_le32(data);
    uint32_t hi = load_le32(data + 4);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF]
        ^ t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF]
        ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++data, --n)
    c = (c >> 8) ^ t[0][(c ^ *data) & 0xFF];
  return ~c;
}

} // namespace troupe
