// __consumer_offsets records and their replay: what a new coordinator
// rebuilds when it takes over an offsets partition.

#include <catch2/catch.hpp>

#include <random>

#include "storage/offsets_records.hpp"

using namespace troupe;

TEST_CASE("replaying __consumer_offsets keeps the last commit per partition") {
  offsets_partition_state st;
  st.apply(offset_commit_record("g", {"t", 0}, {5, 1, "a", 100}));
  st.apply(offset_commit_record("g", {"t", 1}, {7, 1, "", 101}));
  st.apply(offset_commit_record("g", {"t", 0}, {9, 2, "b", 102}));
  st.apply(offset_commit_record("h", {"t", 0}, {1, -1, "", 103}));
  REQUIRE(st.offsets.at("g").size() == 2);
  auto& c = st.offsets.at("g").at({"t", 0});
  CHECK(c.offset == 9);
  CHECK(c.leader_epoch == 2);
  CHECK(c.metadata == "b");
  CHECK(c.commit_timestamp_ms == 102);
  CHECK(st.offsets.at("h").at({"t", 0}).offset == 1);
  CHECK(st.malformed == 0);
}

TEST_CASE("an offset tombstone deletes the committed offset") {
  offsets_partition_state st;
  st.apply(offset_commit_record("g", {"t", 0}, {5, 1, "", 1}));
  st.apply(offset_tombstone("g", {"t", 0}));
  CHECK(st.offsets.count("g") == 0);
}

TEST_CASE("group metadata replays to the last stored generation, and a "
          "tombstone removes the group") {
  offsets_partition_state st;
  stored_group g1{
    "consumer", 1,  "range",
    "m1",       10, {{"m1", "", "c", "/h", 300000, 45000, {1, 2}, {3}}}};
  stored_group g2 = g1;
  g2.generation = 2;
  g2.members.push_back({"m2", "i2", "c", "/h", 300000, 45000, {4}, {}});
  st.apply(group_metadata_record("g", g1));
  st.apply(group_metadata_record("g", g2));
  REQUIRE(st.groups.count("g"));
  CHECK(st.groups.at("g") == g2);
  st.apply(group_tombstone("g"));
  CHECK(st.groups.count("g") == 0);
}

TEST_CASE("malformed __consumer_offsets records are skipped and counted") {
  offsets_partition_state st;
  st.apply({{0xff, 0xff, 0xff}, bytes{0x01}});
  // An offset key whose value is cut short.
  auto offset = offset_commit_record("g", {"t", 0}, {1, 0, "", 0});
  auto cut = *offset.value;
  cut.resize(cut.size() - 1);
  st.apply({offset.key, cut});
  // An empty key.
  st.apply({{}, bytes{0x00, 0x03}});
  CHECK(st.malformed == 3);
  CHECK(st.offsets.empty());
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    bytes k(rng() % 40), v(rng() % 40);
    for (auto& x : k)
      x = static_cast<uint8_t>(rng());
    for (auto& x : v)
      x = static_cast<uint8_t>(rng());
    st.apply({k, v}); // never crashes
  }
}
