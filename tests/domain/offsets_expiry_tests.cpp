// Kafka's offsets expiry (KIP-211, KIP-496) on the plain group classes,
// with explicit times: which committed offsets a classic group and a
// KIP-848 consumer group give up, counted from when, and when the group
// itself is deleted (GroupMetadataManager.cleanupGroupMetadata,
// OffsetMetadataManager.cleanupExpiredOffsets).

#include <catch2/catch.hpp>

#include "domain/consumer_protocol.hpp"
#include "domain/offsets/committed_offsets.hpp"
#include "domain/properties.hpp"
#include "tests/domain/consumer_group_fixture.hpp"
#include "tests/domain/group_fixture.hpp"

using namespace troupe;
using troupe::test::cg_driver;
using troupe::test::group_driver;

namespace {

constexpr int64_t retention_ms = 10000;

/// A consumer's JoinGroup protocol: its subscription in Kafka's consumer
/// protocol, which the coordinator reads (KIP-496).
join_protocol subscribing(std::vector<std::string> topics) {
  consumer_subscription sub;
  sub.topics = std::move(topics);
  return {"range", encode_subscription(sub)};
}

offset_commit_request commit_req(const std::string& group, int32_t generation,
                                 const std::string& member,
                                 std::vector<offset_commit_partition> ps) {
  return {group, generation, member, "", std::move(ps)};
}

/// A Stable classic group of one consumer subscribed to `topics`.
std::string stable_consumer(group_driver& d,
                            std::vector<std::string> topics = {"t"}) {
  auto id = d.join_new({subscribing(std::move(topics))});
  d.advance(0);
  d.sync(id);
  REQUIRE(d.g.state() == group_state::stable);
  return id;
}

void commit(group_driver& d, const std::string& member,
            std::vector<offset_commit_partition> ps) {
  auto generation = member.empty() ? -1 : d.g.generation();
  auto r =
    d.g.commit(commit_req("g", generation, member, std::move(ps)), d.now);
  for (auto& p : r.partitions)
    REQUIRE(p.error == error_code::none);
  d.drain();
}

expired_offsets expire(group_driver& d,
                       const std::set<topic_partition>& pending = {}) {
  auto x = d.g.expire_offsets(d.now, retention_ms, pending);
  d.drain();
  return x;
}

bool has_offset(group_driver& d, const std::string& topic, int32_t p) {
  return d.g.offsets().get({topic, p}).has_value();
}

} // namespace

// -- classic groups ----------------------------------------------------------------

TEST_CASE("an Empty group's offsets expire offsets.retention.minutes after "
          "the group became Empty, not after the commit") {
  group_driver d;
  d.now = 1000;
  auto id = stable_consumer(d);
  commit(d, id, {{"t", 0, 42, -1, ""}});
  d.now = 5000;
  REQUIRE(d.leave(id) == error_code::none);
  REQUIRE(d.g.state() == group_state::empty);
  REQUIRE(d.g.current_state_timestamp_ms() == 5000);
  // The commit is older than the retention, the emptiness is not.
  d.now = 1000 + retention_ms;
  auto x = expire(d);
  CHECK(x.empty());
  CHECK(has_offset(d, "t", 0));
  CHECK(d.g.state() == group_state::empty);
  d.now = 5000 + retention_ms - 1;
  CHECK(expire(d).empty());
  d.now = 5000 + retention_ms;
  x = expire(d);
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0].first == topic_partition{"t", 0});
  CHECK(x.offsets[0].second.offset == 42);
  CHECK_FALSE(has_offset(d, "t", 0));
  // Empty with no offsets left: Dead, and its metadata gets a tombstone.
  CHECK(x.group_deleted);
  CHECK(x.metadata_tombstone);
  CHECK(d.g.state() == group_state::dead);
  REQUIRE_FALSE(d.transitions.empty());
  CHECK(d.transitions.back().from == group_state::empty);
  CHECK(d.transitions.back().to == group_state::dead);
}

TEST_CASE("a Stable group's offsets of the topics it subscribes to never "
          "expire") {
  group_driver d;
  auto id = stable_consumer(d, {"t", "u"});
  commit(d, id, {{"t", 0, 1, -1, ""}, {"u", 3, 2, -1, ""}});
  d.now += 1000 * retention_ms;
  CHECK(expire(d).empty());
  CHECK(has_offset(d, "t", 0));
  CHECK(has_offset(d, "u", 3));
  CHECK(d.g.state() == group_state::stable);
}

TEST_CASE("KIP-496: a Stable consumer group's offsets of topics it no longer "
          "subscribes to expire after their commit") {
  group_driver d;
  auto id = stable_consumer(d, {"t"});
  d.now = 100;
  commit(d, id, {{"t", 0, 1, -1, ""}, {"old", 0, 7, -1, ""}});
  d.now = 100 + retention_ms - 1;
  CHECK(expire(d).empty());
  d.now = 100 + retention_ms;
  auto x = expire(d);
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0].first == topic_partition{"old", 0});
  CHECK_FALSE(x.group_deleted);
  CHECK(has_offset(d, "t", 0));
  CHECK_FALSE(has_offset(d, "old", 0));
  CHECK(d.g.state() == group_state::stable);
}

TEST_CASE("a Stable group of another protocol type keeps all its offsets") {
  // Kafka reads subscriptions of the consumer protocol only.
  group_driver d;
  auto req = d.join_req("", {test::proto("assign")});
  req.protocol_type = "connect";
  auto joined = d.join(req);
  REQUIRE(joined.parked());
  d.advance(0);
  d.sync(joined.parked_member_id);
  REQUIRE(d.g.state() == group_state::stable);
  commit(d, joined.parked_member_id, {{"t", 0, 1, -1, ""}});
  d.now += 1000 * retention_ms;
  CHECK(expire(d).empty());
  CHECK(has_offset(d, "t", 0));
}

TEST_CASE("a rebalancing group's offsets do not expire") {
  group_driver d;
  auto id = stable_consumer(d, {"t"});
  commit(d, id, {{"old", 0, 1, -1, ""}});
  // A second member joins: PreparingRebalance until the first rejoins.
  d.join_new({subscribing({"t"})});
  REQUIRE(d.g.state() == group_state::preparing_rebalance);
  d.now += 1000 * retention_ms;
  CHECK(expire(d).empty());
  CHECK(has_offset(d, "old", 0));
}

TEST_CASE("standalone commits expire counted from each commit, and the group "
          "goes with its last offset") {
  group_driver d;
  d.now = 0;
  commit(d, "", {{"t", 0, 10, -1, ""}});
  d.now = 5000;
  commit(d, "", {{"t", 1, 20, -1, ""}});
  REQUIRE(d.g.protocol_type().empty());
  d.now = retention_ms;
  auto x = expire(d);
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0].first == topic_partition{"t", 0});
  CHECK_FALSE(x.group_deleted);
  CHECK(has_offset(d, "t", 1));
  d.now = 5000 + retention_ms;
  x = expire(d);
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0].first == topic_partition{"t", 1});
  CHECK(x.group_deleted);
  // Generation 0: the group only stored offsets, it has no metadata record.
  CHECK_FALSE(x.metadata_tombstone);
  CHECK(d.g.state() == group_state::dead);
}

TEST_CASE("a commit being written does not expire") {
  group_driver d;
  commit(d, "", {{"t", 0, 10, -1, ""}, {"t", 1, 11, -1, ""}});
  d.now = retention_ms;
  auto x = expire(d, {{"t", 1}});
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0].first == topic_partition{"t", 0});
  CHECK_FALSE(x.group_deleted);
  CHECK(has_offset(d, "t", 1));
}

TEST_CASE("an Empty group without offsets is deleted by the next expiry run") {
  group_driver d;
  auto id = stable_consumer(d);
  REQUIRE(d.leave(id) == error_code::none);
  REQUIRE(d.g.state() == group_state::empty);
  auto x = expire(d);
  CHECK(x.offsets.empty());
  CHECK(x.group_deleted);
  CHECK(x.metadata_tombstone);
  CHECK(d.g.state() == group_state::dead);
}

TEST_CASE("a loaded Empty group counts from its stored state timestamp, and "
          "from each commit when the record has none") {
  auto loaded = [](std::optional<int64_t> stamp) {
    auto d = std::make_unique<group_driver>();
    d->g.offsets().put({"t", 0}, {5, -1, "", 1000});
    group_snapshot s;
    s.generation = 3;
    s.protocol_type = "consumer";
    s.current_state_timestamp_ms = stamp;
    d->g.restore(s, 2000);
    d->drain();
    REQUIRE(d->g.state() == group_state::empty);
    return d;
  };
  auto with = loaded(int64_t{4000});
  with->now = 1000 + retention_ms;
  CHECK(expire(*with).empty());
  with->now = 4000 + retention_ms;
  CHECK(expire(*with).group_deleted);
  auto without = loaded(std::nullopt);
  without->now = 1000 + retention_ms;
  auto x = expire(*without);
  CHECK(x.offsets.size() == 1);
  CHECK(x.group_deleted);
}

TEST_CASE("a failed tombstone write gives the expired offsets and the group "
          "back") {
  group_driver d;
  auto id = stable_consumer(d);
  commit(d, id, {{"t", 0, 42, -1, ""}, {"t", 1, 43, -1, ""}});
  d.now = 500;
  REQUIRE(d.leave(id) == error_code::none);
  d.now = 500 + retention_ms;
  auto x = expire(d);
  REQUIRE(x.group_deleted);
  REQUIRE(d.g.state() == group_state::dead);
  d.g.undo_expiry(x);
  CHECK(d.g.state() == group_state::empty);
  CHECK(d.g.current_state_timestamp_ms() == 500);
  REQUIRE(d.g.offsets().get({"t", 0}));
  CHECK(d.g.offsets().get({"t", 0})->offset == 42);
  CHECK(d.g.offsets().get({"t", 1})->offset == 43);
  // The next run expires them again.
  CHECK(expire(d).group_deleted);
}

TEST_CASE("a Dead group expires nothing and takes no commit") {
  group_driver d;
  commit(d, "", {{"t", 0, 1, -1, ""}});
  d.now = retention_ms;
  REQUIRE(expire(d).group_deleted);
  CHECK(expire(d).empty());
  auto r = d.g.commit(commit_req("g", -1, "", {{"t", 0, 2, -1, ""}}), d.now);
  CHECK(r.partitions.at(0).error == error_code::coordinator_not_available);
}

// -- KIP-848 consumer groups -----------------------------------------------------------

namespace {

consumer_group_expiry expire(cg_driver& d) {
  auto x = d.g.expire_offsets(d.now, retention_ms);
  d.collect();
  return x;
}

void cg_commit(cg_driver& d, const std::string& member, int32_t epoch,
               std::vector<offset_commit_partition> ps) {
  auto r = d.g.commit(commit_req("g", epoch, member, std::move(ps)), d.now);
  for (auto& p : r.partitions)
    REQUIRE(p.error == error_code::none);
  d.collect();
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

TEST_CASE("a consumer group keeps the offsets of subscribed topics and its "
          "other offsets expire after their commit") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  REQUIRE(joined.error == error_code::none);
  d.now = 100;
  cg_commit(d, "m1", joined.member_epoch,
            {{"t", 0, 5, -1, ""}, {"old", 0, 6, -1, ""}});
  d.records.clear();
  d.now = 100 + retention_ms - 1;
  CHECK(expire(d).empty());
  d.now = 100 + retention_ms;
  auto x = expire(d);
  REQUIRE(x.offsets.size() == 1);
  CHECK(x.offsets[0] == topic_partition{"old", 0});
  CHECK_FALSE(x.group_deleted);
  CHECK(tombstones_of<offset_record>(d.records) == 1);
  CHECK(d.g.image().offsets.count({"t", 0}) == 1);
  CHECK(d.g.image().offsets.count({"old", 0}) == 0);
  CHECK(d.g.state() != consumer_group_state::dead);
}

TEST_CASE("an empty consumer group whose offsets expired is deleted with a "
          "tombstone for each of its records") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  REQUIRE(joined.error == error_code::none);
  d.now = 100;
  cg_commit(d, "m1", joined.member_epoch, {{"t", 0, 5, -1, ""}});
  d.now = 200;
  auto left = d.beat("m1", leave_group_member_epoch);
  REQUIRE(left.error == error_code::none);
  REQUIRE(d.g.state() == consumer_group_state::empty);
  // Counted from the commit (the new coordinator's rule for consumer
  // groups), not from when it emptied.
  d.now = 100 + retention_ms - 1;
  CHECK(expire(d).empty());
  auto before = d.records.size();
  d.now = 100 + retention_ms;
  auto x = expire(d);
  CHECK(x.offsets.size() == 1);
  CHECK(x.group_deleted);
  CHECK(d.g.state() == consumer_group_state::dead);
  std::vector<consumer_group_record> written(d.records.begin() + before,
                                             d.records.end());
  CHECK(tombstones_of<offset_record>(written) == 1);
  CHECK(tombstones_of<target_assignment_epoch_record>(written) == 1);
  CHECK(tombstones_of<subscription_metadata_record>(written) == 1);
  CHECK(tombstones_of<group_epoch_record>(written) == 1);
  // What a coordinator replays from the log: nothing of the group is left.
  consumer_group_image replayed;
  for (auto& r : d.records)
    replayed.apply(r);
  CHECK_FALSE(replayed.exists);
  CHECK(replayed.offsets.empty());
  CHECK(replayed.members.empty());
  // A Dead group refuses heartbeats with NOT_COORDINATOR: the member finds
  // the coordinator again and joins a new group.
  CHECK(d.join("m2", {"t"}).error == error_code::not_coordinator);
}

TEST_CASE("a consumer group with members is not deleted when its offsets "
          "expire") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  cg_commit(d, "m1", joined.member_epoch, {{"old", 0, 1, -1, ""}});
  d.now = retention_ms;
  auto x = expire(d);
  CHECK(x.offsets.size() == 1);
  CHECK_FALSE(x.group_deleted);
  CHECK(d.g.state() != consumer_group_state::dead);
}

TEST_CASE("a consumer group restored after a failed expiry write lives "
          "again") {
  cg_driver d;
  auto joined = d.join("m1", {"t"});
  cg_commit(d, "m1", joined.member_epoch, {{"t", 0, 5, -1, ""}});
  d.beat("m1", leave_group_member_epoch);
  consumer_group_image written;
  for (auto& r : d.records)
    written.apply(r);
  d.now = retention_ms;
  REQUIRE(expire(d).group_deleted);
  d.g.restore(written, d.now);
  d.collect();
  CHECK(d.g.state() == consumer_group_state::empty);
  CHECK(d.g.image().offsets.count({"t", 0}) == 1);
  CHECK(expire(d).group_deleted);
}

// -- configuration and loading ------------------------------------------------------------

TEST_CASE("offsets.retention.minutes and offsets.retention.check.interval.ms "
          "are Kafka's properties with Kafka's defaults") {
  cluster_config defaults;
  CHECK(defaults.group.offsets_retention_ms == 10080LL * 60 * 1000);
  CHECK(defaults.group.offsets_retention_check_interval_ms == 600000);
  std::vector<std::string> errors;
  cluster_config cfg;
  apply_properties({{"offsets.retention.minutes", "3"},
                    {"offsets.retention.check.interval.ms", "250"}},
                   cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.group.offsets_retention_ms == 180000);
  CHECK(cfg.group.offsets_retention_check_interval_ms == 250);
  apply_properties({{"offsets.retention.minutes", "0"},
                    {"offsets.retention.check.interval.ms", "-1"}},
                   cfg, errors);
  CHECK(errors.size() == 2);
}

TEST_CASE("a stamp of an older troupe's steady clock counts from the load") {
  constexpr int64_t wall = 1764600000000; // December 2025
  CHECK(loaded_timestamp_ms(wall - 5, wall) == wall - 5);
  // Milliseconds since a host booted are no wall-clock time.
  CHECK(loaded_timestamp_ms(86400000, wall) == wall);
}
