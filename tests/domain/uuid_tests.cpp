// Kafka's Uuid: its string form and its random ids.

#include <catch2/catch.hpp>

#include <set>

#include "domain/uuid.hpp"

using namespace troupe;

TEST_CASE("a Uuid prints as Kafka prints it") {
  // Kafka's Uuid.METADATA_TOPIC_ID and ZERO_UUID.
  CHECK(to_string(uuid{0, 1}) == "AAAAAAAAAAAAAAAAAAAAAQ");
  CHECK(to_string(uuid{0, 0}) == "AAAAAAAAAAAAAAAAAAAAAA");
  CHECK(to_string(uuid{~0ull, ~0ull}) == "_____________________w");
}

TEST_CASE("a Uuid parses back from its string, and nothing else parses") {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) {
    auto x = random_uuid(rng);
    auto text = to_string(x);
    CHECK(text.size() == 22);
    CHECK(text.front() != '-');
    CHECK(uuid_from_string(text) == x);
  }
  CHECK(!uuid_from_string(""));
  CHECK(!uuid_from_string("AAAAAAAAAAAAAAAAAAAAA"));  // 21 characters
  CHECK(!uuid_from_string("AAAAAAAAAAAAAAAAAAAAA=")); // one pad
  CHECK(!uuid_from_string("AAAAAAAAAAAAAAAAAAAAAAAAA"));
  // Java's URL-safe decoder, which Uuid.fromString uses, takes "==".
  CHECK(uuid_from_string("RSZ--odYRlSOPGRgukKnAQ==")
        == uuid_from_string("RSZ--odYRlSOPGRgukKnAQ"));
  CHECK(!uuid_from_string("AAAAAAAAAAAAAAAAAAAAAB")); // bits past 128
  CHECK(!uuid_from_string("AAAAAAAAAAAAAAAAAAAA+A")); // not URL-safe
}

TEST_CASE("random Uuids are version 4 and never a reserved id") {
  std::mt19937_64 rng(9);
  std::set<uuid> seen;
  for (int i = 0; i < 1000; ++i) {
    auto x = random_uuid(rng);
    CHECK(((x.high >> 12) & 0xF) == 4);
    CHECK((x.low >> 62) == 2);
    CHECK(!x.is_zero());
    CHECK(seen.insert(x).second);
  }
}
