// The coordinator's admin APIs on the plain group classes: DeleteGroups
// (Kafka's GroupCoordinator.handleDeleteGroups, GroupCoordinatorShard
// .deleteGroups), OffsetDelete (handleDeleteOffsets, OffsetMetadataManager
// .deleteOffsets) and the admin OffsetCommit (validateOffsetCommit with
// generation -1), for a classic group and a KIP-848 consumer group.

#include <catch2/catch.hpp>

#include "domain/consumer_protocol.hpp"
#include "domain/offsets/committed_offsets.hpp"
#include "tests/domain/consumer_group_fixture.hpp"
#include "tests/domain/group_fixture.hpp"

using namespace troupe;
using troupe::test::cg_driver;
using troupe::test::group_driver;

namespace {

join_protocol subscribing(std::vector<std::string> topics) {
  consumer_subscription sub;
  sub.topics = std::move(topics);
  return {"range", encode_subscription(sub)};
}

offset_commit_request commit_req(int32_t generation, const std::string& member,
                                 std::vector<offset_commit_partition> ps) {
  return {"g", generation, member, "", std::move(ps)};
}

/// An admin commit: generation -1, no member id.
offset_commit_response admin_commit(group_driver& d,
                                    std::vector<offset_commit_partition> ps) {
  auto r = d.g.commit(commit_req(-1, "", std::move(ps)), d.now);
  d.drain();
  return r;
}

std::string stable_consumer(group_driver& d,
                            std::vector<std::string> topics = {"t"}) {
  auto id = d.join_new({subscribing(std::move(topics))});
  d.advance(0);
  d.sync(id);
  REQUIRE(d.g.state() == group_state::stable);
  return id;
}

std::vector<error_code> errors_of(const offset_commit_response& r) {
  std::vector<error_code> out;
  for (auto& p : r.partitions)
    out.push_back(p.error);
  return out;
}

template <class Record>
size_t tombstones_of(const std::vector<consumer_group_record>& records) {
  size_t n = 0;
  for (auto& r : records)
    if (auto x = std::get_if<Record>(&r); x && x->tombstone)
      ++n;
  return n;
}

} // namespace

// -- classic groups: DeleteGroups ----------------------------------------------------

TEST_CASE("DeleteGroups of a classic group with members is NON_EMPTY_GROUP "
          "and changes nothing") {
  group_driver d;
  auto id = stable_consumer(d);
  d.g.commit(commit_req(d.g.generation(), id, {{"t", 0, 7, -1, ""}}), d.now);
  auto r = d.g.delete_group(d.now);
  CHECK(r.error == error_code::non_empty_group);
  CHECK(r.removed.offsets.empty());
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.g.offsets().get({"t", 0}));
}

TEST_CASE("DeleteGroups of an Empty classic group removes every offset and "
          "the group is Dead") {
  group_driver d;
  auto id = stable_consumer(d);
  d.g.commit(commit_req(d.g.generation(), id,
                        {{"t", 0, 7, -1, ""}, {"t", 1, 9, -1, ""}}),
             d.now);
  REQUIRE(d.leave(id) == error_code::none);
  REQUIRE(d.g.state() == group_state::empty);
  auto r = d.g.delete_group(d.now);
  CHECK(r.error == error_code::none);
  CHECK(r.removed.offsets.size() == 2);
  CHECK(r.removed.group_deleted);
  // It had a generation: its metadata gets a tombstone too.
  CHECK(r.removed.metadata_tombstone);
  CHECK(d.g.state() == group_state::dead);
  CHECK(d.g.offsets().entries().empty());
  // A Dead group does not exist for a second DeleteGroups.
  CHECK(d.g.delete_group(d.now).error == error_code::group_id_not_found);
}

TEST_CASE("a DeleteGroups whose tombstones were not written is undone") {
  group_driver d;
  admin_commit(d, {{"t", 0, 3, -1, ""}});
  auto r = d.g.delete_group(d.now);
  REQUIRE(r.error == error_code::none);
  // Only offsets, never a generation: no metadata tombstone (Kafka skips
  // it at generation 0).
  CHECK_FALSE(r.removed.metadata_tombstone);
  d.g.undo_expiry(r.removed);
  CHECK(d.g.state() == group_state::empty);
  REQUIRE(d.g.offsets().get({"t", 0}));
  CHECK(d.g.offsets().get({"t", 0})->offset == 3);
}

// -- classic groups: OffsetDelete ----------------------------------------------------

TEST_CASE("OffsetDelete of a topic a classic group's member subscribes to is "
          "GROUP_SUBSCRIBED_TO_TOPIC, other topics' offsets go") {
  group_driver d;
  auto id = stable_consumer(d, {"t"});
  d.g.commit(commit_req(d.g.generation(), id,
                        {{"t", 0, 7, -1, ""}, {"other", 0, 4, -1, ""}}),
             d.now);
  auto r = d.g.delete_offsets({{"t", 0}, {"other", 0}}, d.now);
  CHECK(r.error == error_code::none);
  REQUIRE(r.partitions.size() == 2);
  CHECK(r.partitions[0].error == error_code::group_subscribed_to_topic);
  CHECK(r.partitions[1].error == error_code::none);
  REQUIRE(r.removed.offsets.size() == 1);
  CHECK(r.removed.offsets[0].first == topic_partition{"other", 0});
  CHECK(d.g.offsets().get({"t", 0}));
  CHECK_FALSE(d.g.offsets().get({"other", 0}));
  CHECK(d.g.state() == group_state::stable);
}

TEST_CASE("OffsetDelete after the classic group left removes the offsets and "
          "an Empty group left without offsets is Dead") {
  group_driver d;
  auto id = stable_consumer(d, {"t"});
  d.g.commit(commit_req(d.g.generation(), id, {{"t", 0, 7, -1, ""}}), d.now);
  REQUIRE(d.leave(id) == error_code::none);
  // A partition without a commit is answered NONE too.
  auto r = d.g.delete_offsets({{"t", 0}, {"t", 5}}, d.now);
  CHECK(r.error == error_code::none);
  REQUIRE(r.partitions.size() == 2);
  CHECK(r.partitions[0].error == error_code::none);
  CHECK(r.partitions[1].error == error_code::none);
  CHECK(r.removed.offsets.size() == 1);
  CHECK(r.removed.group_deleted);
  CHECK(d.g.state() == group_state::dead);
}

TEST_CASE("OffsetDelete of a classic group of another protocol type with "
          "members is NON_EMPTY_GROUP") {
  group_driver d;
  auto req = d.join_req("");
  req.protocol_type = "connect";
  auto res = d.join(req);
  REQUIRE(res.parked());
  d.advance(0);
  d.sync(res.parked_member_id);
  auto r = d.g.delete_offsets({{"t", 0}}, d.now);
  CHECK(r.error == error_code::non_empty_group);
  CHECK(r.partitions.empty());
}

// -- classic groups: the admin OffsetCommit ----------------------------------------------

TEST_CASE("an admin OffsetCommit to an Empty classic group stores the "
          "offsets") {
  group_driver d;
  auto id = stable_consumer(d);
  REQUIRE(d.leave(id) == error_code::none);
  auto r = admin_commit(d, {{"t", 0, 42, -1, "reset"}});
  CHECK(errors_of(r) == std::vector<error_code>{error_code::none});
  REQUIRE(d.g.offsets().get({"t", 0}));
  CHECK(d.g.offsets().get({"t", 0})->offset == 42);
}

TEST_CASE("an admin OffsetCommit to a classic group with members is "
          "UNKNOWN_MEMBER_ID") {
  group_driver d;
  stable_consumer(d);
  auto r = admin_commit(d, {{"t", 0, 42, -1, ""}});
  CHECK(errors_of(r) == std::vector<error_code>{error_code::unknown_member_id});
  CHECK_FALSE(d.g.offsets().get({"t", 0}));
}

TEST_CASE("an OffsetCommit with generation -1 and a member id to an Empty "
          "classic group is accepted, as Kafka's validateOffsetCommit") {
  group_driver d;
  auto r = d.g.commit(commit_req(-1, "stale-member", {{"t", 0, 5, -1, ""}}),
                      d.now);
  CHECK(errors_of(r) == std::vector<error_code>{error_code::none});
}

TEST_CASE("OffsetCommit v1's commit timestamp is the offset's commit "
          "timestamp, -1 is the coordinator's clock") {
  group_driver d;
  d.now = 5000;
  offset_commit_partition stamped{"t", 0, 1, -1, ""};
  stamped.commit_timestamp_ms = 1234;
  offset_commit_partition unstamped{"t", 1, 2, -1, ""};
  admin_commit(d, {stamped, unstamped});
  CHECK(d.g.offsets().get({"t", 0})->commit_timestamp_ms == 1234);
  CHECK(d.g.offsets().get({"t", 1})->commit_timestamp_ms == 5000);
}

// -- KIP-848 consumer groups -------------------------------------------------------------

TEST_CASE("DeleteGroups of a consumer group with members is NON_EMPTY_GROUP") {
  cg_driver d;
  REQUIRE(d.join("m1", {"t"}).error == error_code::none);
  d.records.clear();
  CHECK(d.g.delete_group() == error_code::non_empty_group);
  d.collect();
  CHECK(d.records.empty());
}

TEST_CASE("DeleteGroups of an empty consumer group writes tombstones for its "
          "offsets and records and the group is Dead") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  REQUIRE(joined.error == error_code::none);
  d.g.commit(commit_req(joined.member_epoch, "m1",
                        {{"t", 0, 5, -1, ""}, {"t", 1, 6, -1, ""}}),
             d.now);
  d.collect();
  REQUIRE(d.beat("m1", leave_group_member_epoch).error == error_code::none);
  REQUIRE(d.g.state() == consumer_group_state::empty);
  auto before = d.records.size();
  CHECK(d.g.delete_group() == error_code::none);
  d.collect();
  CHECK(d.g.state() == consumer_group_state::dead);
  std::vector<consumer_group_record> written(d.records.begin() + before,
                                             d.records.end());
  CHECK(tombstones_of<offset_record>(written) == 2);
  CHECK(tombstones_of<group_epoch_record>(written) == 1);
  // What a coordinator replays after a restart: nothing of the group.
  consumer_group_image replayed;
  for (auto& r : d.records)
    replayed.apply(r);
  CHECK_FALSE(replayed.exists);
  CHECK(replayed.offsets.empty());
  CHECK(d.g.delete_group() == error_code::group_id_not_found);
}

TEST_CASE("OffsetDelete of a consumer group keeps subscribed topics' "
          "offsets and tombstones the others'") {
  cg_driver d{test::consumer_config(),
              {test::make_topic("t", 2), test::make_topic("u", 2)}};
  auto joined = d.join("m1", {"t"});
  REQUIRE(joined.error == error_code::none);
  d.g.commit(commit_req(joined.member_epoch, "m1",
                        {{"t", 0, 5, -1, ""}, {"u", 0, 6, -1, ""}}),
             d.now);
  d.collect();
  auto before = d.records.size();
  auto r = d.g.delete_offsets({{"t", 0}, {"u", 0}, {"u", 1}});
  d.collect();
  CHECK(r.error == error_code::none);
  REQUIRE(r.partitions.size() == 3);
  CHECK(r.partitions[0].error == error_code::group_subscribed_to_topic);
  CHECK(r.partitions[1].error == error_code::none);
  CHECK(r.partitions[2].error == error_code::none);
  std::vector<consumer_group_record> written(d.records.begin() + before,
                                             d.records.end());
  // Only what was committed gets a tombstone.
  CHECK(tombstones_of<offset_record>(written) == 1);
  CHECK(d.g.image().offsets.count({"t", 0}) == 1);
  CHECK(d.g.image().offsets.count({"u", 0}) == 0);
}

TEST_CASE("an admin OffsetCommit to a consumer group with members is "
          "UNKNOWN_MEMBER_ID, to an empty one it is stored") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  REQUIRE(joined.error == error_code::none);
  auto refused = d.g.commit(commit_req(-1, "", {{"t", 0, 5, -1, ""}}), d.now);
  CHECK(errors_of(refused)
        == std::vector<error_code>{error_code::unknown_member_id});
  REQUIRE(d.beat("m1", leave_group_member_epoch).error == error_code::none);
  auto stored = d.g.commit(commit_req(-1, "", {{"t", 0, 5, -1, ""}}), d.now);
  CHECK(errors_of(stored) == std::vector<error_code>{error_code::none});
  CHECK(d.g.image().offsets.at({"t", 0}).offset == 5);
}
