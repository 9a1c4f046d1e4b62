#include "domain/java_hash.hpp"

namespace troupe {

namespace {

// Decodes one UTF-8 code point starting at s[i]; advances i. Malformed input
// yields U+FFFD and consumes one byte, like Java's replacing decoder.
uint32_t next_code_point(std::string_view s, size_t& i) noexcept {
  constexpr uint32_t replacement = 0xFFFD;
  auto b0 = static_cast<uint8_t>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  size_t len;
  uint32_t cp;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++i;
    return replacement;
  }
  if (i + len > s.size()) {
    ++i;
    return replacement;
  }
  for (size_t k = 1; k < len; ++k) {
    auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return replacement;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return replacement;
  }
  i += len;
  return cp;
}

} // namespace

int32_t java_string_hash(std::string_view utf8) noexcept {
  uint32_t h = 0; // unsigned: wraparound is defined, as Java's int arithmetic
  auto mix = [&h](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < utf8.size();) {
    auto cp = next_code_point(utf8, i);
    if (cp >= 0x10000) { // a surrogate pair in UTF-16
      cp -= 0x10000;
      mix(0xD800 + (cp >> 10));
      mix(0xDC00 + (cp & 0x3FF));
    } else {
      mix(cp);
    }
  }
  return static_cast<int32_t>(h);
}

int32_t offsets_partition_for(std::string_view group_id,
                              int32_t offsets_topic_partitions) noexcept {
  if (offsets_topic_partitions <= 0)
    return 0;
  return kafka_abs(java_string_hash(group_id)) % offsets_topic_partitions;
}

} // namespace troupe
