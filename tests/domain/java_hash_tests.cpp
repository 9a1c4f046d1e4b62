#include <catch2/catch.hpp>

#include "domain/java_hash.hpp"

using namespace troupe;

namespace {

struct known_hash {
  const char* utf8;
  int32_t java_hash;         // "...".hashCode() printed by a JVM
  int32_t offsets_partition; // Utils.abs(hashCode) % 50
};

// Computed with OpenJDK 17: s.hashCode() and Utils.abs(s.hashCode()) % 50.
const known_hash known[] = {
  {"", 0, 0},
  {"a", 97, 47},
  {"group", 98629247, 47},
  {"my-group", -1906497762, 12},
  {"console-consumer-12345", 158455506, 6},
  {"troupe-demo", -676887209, 9},
  {"test-group-0", 2060176935, 35},
  {"orders", -1008770331, 31},
  // Strings whose hash is Integer.MIN_VALUE: Utils.abs gives 0.
  {"polygenelubricants", INT32_MIN, 0},
  {"GydZG_", INT32_MIN, 0},
  {"DESIGNING WORKHOUSES", INT32_MIN, 0},
  // Non-ASCII: hashed over UTF-16 code units, not UTF-8 bytes.
  {"\xc3\xa9t\xc3\xa9", 227742, 42},                      // "été"
  {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 25921943, 43}, // "日本語"
  {"\xf0\x9f\x98\x80grin", 930098995, 45}, // U+1F600: a surrogate pair
};

} // namespace

TEST_CASE("group id hash matches Java String.hashCode") {
  for (const auto& k : known) {
    INFO("group id: " << k.utf8);
    CHECK(java_string_hash(k.utf8) == k.java_hash);
  }
}

TEST_CASE(
  "coordinator partition is abs(hash) mod offsets.topic.num.partitions") {
  for (const auto& k : known) {
    INFO("group id: " << k.utf8);
    CHECK(offsets_partition_for(k.utf8, 50) == k.offsets_partition);
  }
}

TEST_CASE("abs of Integer.MIN_VALUE is zero, as Kafka's Utils.abs") {
  CHECK(kafka_abs(INT32_MIN) == 0);
  CHECK(kafka_abs(-5) == 5);
  CHECK(kafka_abs(7) == 7);
  CHECK(offsets_partition_for("polygenelubricants", 50) == 0);
}

TEST_CASE("coordinator partition stays in range for any partition count") {
  for (int32_t n : {1, 3, 7, 50, 1000})
    for (const auto& k : known) {
      auto p = offsets_partition_for(k.utf8, n);
      CHECK(p >= 0);
      CHECK(p < n);
    }
}

TEST_CASE("invalid UTF-8 hashes like Java's replacement character") {
  // Java decodes a lone 0xFF byte to U+FFFD (65533).
  CHECK(java_string_hash("\xff") == 65533);
  CHECK(java_string_hash("a\xff") == 97 * 31 + 65533);
}
