// KIP-848 consumer group records in __consumer_offsets: their bytes and the
// replay that lets a new coordinator rebuild the group.

#include <catch2/catch.hpp>

#include "storage/offsets_records.hpp"
#include "tests/domain/consumer_group_fixture.hpp"

using namespace troupe;
using namespace troupe::test;

namespace {

const auto t6 = make_topic("t", 6);

consumer_group_image replay(const std::vector<consumer_group_record>& rs) {
  consumer_group_image image;
  for (const auto& r : rs)
    image.apply(r);
  return image;
}

offsets_partition_state
through_bytes(const std::string& group,
              const std::vector<consumer_group_record>& rs) {
  offsets_partition_state st;
  for (const auto& r : rs)
    st.apply(consumer_group_record_kv(group, r));
  return st;
}

} // namespace

TEST_CASE("every consumer group record survives its __consumer_offsets "
          "bytes") {
  member_metadata_record member{"m1",
                                std::string{"i1"},
                                std::string{"rack"},
                                "client",
                                "/10.0.0.1",
                                {"t", "u"},
                                std::nullopt,
                                30000,
                                std::string{"range"},
                                false};
  current_assignment_record current{"m1",
                                    4,
                                    3,
                                    member_state::unrevoked_partitions,
                                    parts(t6, {0, 1}),
                                    parts(t6, {2}),
                                    false};
  std::vector<consumer_group_record> records{
    group_epoch_record{4, false},
    subscription_metadata_record{{t6, make_topic("u", 2)}, false},
    member,
    target_assignment_epoch_record{4, false},
    target_assignment_record{"m1", parts(t6, {0, 1}), false},
    current,
    offset_record{{"t", 1}, {17, 2, "meta", 1234}, false},
  };
  auto st = through_bytes("g", records);
  CHECK(st.malformed == 0);
  CHECK(loaded_consumer_group(st, "g") == replay(records));
  // A member without its optional fields keeps them null.
  member.instance_id.reset();
  member.rack_id.reset();
  member.server_assignor.reset();
  records.push_back(member);
  auto again = through_bytes("g", records);
  CHECK(!loaded_consumer_group(again, "g").members.at("m1").instance_id);
  CHECK(loaded_consumer_group(again, "g") == replay(records));
}

TEST_CASE("replaying a consumer group's records rebuilds the group the "
          "coordinator had") {
  cg_driver d;
  std::vector<client> cs{{"m1"}, {"s2", std::string{"i2"}}, {"m3"}};
  for (int round = 0; round < 8; ++round)
    for (auto& c : cs)
      c.on_answer(d.send(c.next_request(false)));
  d.g.commit({"g", cs[0].epoch, "m1", "", {{"t", 0, 5, -1, ""}}}, d.now);
  d.collect();
  // m3 leaves, s2 leaves for a while: tombstones and epoch -2.
  d.send(cg_driver::beat_req("m3", -1));
  d.send(cg_driver::beat_req("s2", -2, std::nullopt, std::string{"i2"}));
  auto st = through_bytes("g", d.records);
  CHECK(st.malformed == 0);
  auto image = loaded_consumer_group(st, "g");
  CHECK(image == d.g.image());
  CHECK(image.members.count("m3") == 0);
  CHECK(image.members.at("s2").member_epoch == -2);
  CHECK(image.offsets.at({"t", 0}).offset == 5);
}

TEST_CASE("a group epoch tombstone deletes the consumer group, keeping its "
          "offsets") {
  std::vector<consumer_group_record> records{
    group_epoch_record{1, false}, target_assignment_epoch_record{1, false},
    offset_record{{"t", 0}, {3, -1, "", 0}, false},
    target_assignment_epoch_record{0, true}, group_epoch_record{0, true}};
  auto st = through_bytes("g", records);
  CHECK(st.consumer_groups.count("g") == 0);
  CHECK(st.offsets.at("g").at({"t", 0}).offset == 3);
  // Tombstones of a group nobody knows create nothing.
  auto none = through_bytes("h", {target_assignment_record{"m", {}, true},
                                  group_epoch_record{0, true}});
  CHECK(none.consumer_groups.empty());
  CHECK(none.malformed == 0);
}

TEST_CASE("consumer group records and classic group records of one group id "
          "are kept apart") {
  offsets_partition_state st;
  st.apply(group_metadata_record(
    "g", stored_group{"consumer", 3, "range", "m", 0, {}}));
  st.apply(consumer_group_record_kv("g", group_epoch_record{7, false}));
  CHECK(st.groups.at("g").generation == 3);
  CHECK(st.consumer_groups.at("g").group_epoch == 7);
  st.apply(group_tombstone("g"));
  CHECK(st.groups.count("g") == 0);
  CHECK(st.consumer_groups.count("g") == 1);
}

TEST_CASE("a consumer group key with a value that does not parse as its "
          "record type's is malformed") {
  // Kafka's values carry no type of their own: the key's record type says
  // how to read them. A member's key with a group epoch value does not
  // parse (its ClientId would be a null string), so it is skipped.
  member_metadata_record m;
  m.member_id = "m";
  auto key = consumer_group_record_kv("g", m);
  auto other = consumer_group_record_kv("g", group_epoch_record{1, false});
  offsets_partition_state st;
  st.apply({key.key, other.value});
  CHECK(st.malformed == 1);
  CHECK(st.consumer_groups.empty());
}
