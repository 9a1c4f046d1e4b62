#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "domain/log/crc32c.hpp"

using namespace troupe;

namespace {

uint32_t crc_of(const std::vector<uint8_t>& bytes) {
  return crc32c(bytes.data(), bytes.size());
}

// Bit at a time, straight from the definition: the reference the sliced
// tables must agree with.
uint32_t crc32c_bitwise(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int bit = 0; bit < 8; ++bit)
      c = (c & 1) ? (c >> 1) ^ 0x82F63B78 : c >> 1;
  }
  return ~c;
}

} // namespace

TEST_CASE("record batch CRC-32C matches the standard check values") {
  const char* check = "123456789";
  CHECK(crc32c(reinterpret_cast<const uint8_t*>(check), std::strlen(check))
        == 0xE3069283);
  CHECK(crc_of(std::vector<uint8_t>(32, 0x00)) == 0x8A9136AA);
  CHECK(crc_of(std::vector<uint8_t>(32, 0xFF)) == 0x62A8AB43);
  std::vector<uint8_t> ascending(32);
  for (size_t i = 0; i < ascending.size(); ++i)
    ascending[i] = static_cast<uint8_t>(i);
  CHECK(crc_of(ascending) == 0x46DD794E);
  CHECK(crc32c(nullptr, 0) == 0);
}

TEST_CASE("record batch CRC-32C computed in chunks equals the one-shot CRC") {
  std::mt19937 rng{42};
  std::vector<uint8_t> data(1000);
  for (auto& b : data)
    b = static_cast<uint8_t>(rng());
  auto whole = crc_of(data);
  for (size_t cut = 0; cut <= data.size(); cut += 7) {
    auto first = crc32c(data.data(), cut);
    CHECK(crc32c(data.data() + cut, data.size() - cut, first) == whole);
  }
  // Byte by byte, too.
  uint32_t c = 0;
  for (auto b : data)
    c = crc32c(&b, 1, c);
  CHECK(c == whole);
}

TEST_CASE(
  "record batch CRC-32C slicing-by-8 agrees with the bitwise definition "
  "for every length and alignment") {
  std::mt19937 rng{7};
  std::vector<uint8_t> data(300);
  for (auto& b : data)
    b = static_cast<uint8_t>(rng());
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t n = 0; n + offset <= data.size(); ++n)
      REQUIRE(crc32c(data.data() + offset, n)
              == crc32c_bitwise(data.data() + offset, n));
}
