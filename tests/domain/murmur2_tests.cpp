#include <catch2/catch.hpp>

#include "domain/base64.hpp"
#include "domain/murmur2.hpp"

using namespace troupe;

namespace {

struct known_murmur2 {
  const char* key;
  int32_t java_value; // Utils.murmur2(key.getBytes()) in the Java client
};

// Kafka's own test vectors: UtilsTest.testMurmur2 in apache/kafka
// (clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java).
const known_murmur2 kafka_vectors[] = {
  {"21", -973932308},
  {"foobar", -790332482},
  {"a-little-bit-long-string", -985981536},
  {"a-little-bit-longer-string", -1486304829},
  {"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
  {"abc", 479470107},
};

} // namespace

TEST_CASE("murmur2 matches the Java client's Utils.murmur2 on Kafka's own "
          "test vectors") {
  for (const auto& k : kafka_vectors) {
    INFO("key: " << k.key);
    CHECK(murmur2(k.key) == k.java_value);
  }
}

TEST_CASE("a keyed record's partition is toPositive(murmur2) modulo the "
          "partition count, as Kafka's default partitioner") {
  // toPositive clears the sign bit: -973932308 & 0x7fffffff = 1173551340.
  CHECK(partition_for_key("21", 4) == 1173551340 % 4);
  CHECK(partition_for_key("abc", 7) == 479470107 % 7);
  CHECK(partition_for_key("foobar", 1) == 0);
  CHECK(partition_for_key("foobar", 0) == 0);
}

TEST_CASE("base64 round-trips bytes with RFC 4648's padding") {
  // RFC 4648 section 10.
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foob") == "Zm9vYg==");
  CHECK(base64_encode("fooba") == "Zm9vYmE=");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  std::string all;
  for (int i = 0; i < 256; ++i)
    all += static_cast<char>(i);
  CHECK(base64_decode(base64_encode(all)) == all);
  CHECK(base64_decode("Zm9vYg==") == std::string{"foob"});
  CHECK(base64_decode("Zm9vYg") == std::string{"foob"});
}

TEST_CASE("text that is not base64 is refused") {
  CHECK_FALSE(base64_decode("not base64!"));
  CHECK_FALSE(base64_decode("Zm9v=Yg=="));
  CHECK_FALSE(base64_decode("Zm9vY"));
  CHECK_FALSE(base64_decode("Zm9vYg="));
}
