// The group state machine against Kafka's GroupCoordinator semantics
// (docs/ARCHITECTURE.md §3), one behaviour per test, on a hand-moved clock.

#include <catch2/catch.hpp>

#include <regex>

#include "tests/domain/group_fixture.hpp"

using namespace troupe;
using troupe::test::group_driver;
using troupe::test::proto;

namespace {

bytes b(const std::string& s) {
  return bytes(s.begin(), s.end());
}

} // namespace

// -- the JoinGroup barrier ----------------------------------------------------------

TEST_CASE("initial rebalance delay re-arms while members keep arriving and "
          "is bounded by the rebalance timeout") {
  auto cfg = group_driver::default_config();
  cfg.initial_rebalance_delay_ms = 3000;
  group_driver d{cfg};
  // rebalance timeout 10 s: delays 3000, 3000, 3000, then min(3000, 1000).
  d.join_new({proto("range")}, 10000, 10000);
  REQUIRE(d.g.state() == group_state::preparing_rebalance);
  REQUIRE(d.join_timer->delay_ms == 3000);
  // A new member arrives every second.
  for (int i = 0; i < 20 && d.g.state() == group_state::preparing_rebalance;
       ++i) {
    d.advance(1000);
    if (d.g.state() == group_state::preparing_rebalance)
      d.join_new({proto("range")}, 10000, 10000);
  }
  // Without the bound it would wait as long as members arrive; Kafka stops
  // at the rebalance timeout (10 s after the first join): delays of 3000,
  // 3000, 3000, then min(3000, remaining 1000).
  CHECK(d.g.state() == group_state::completing_rebalance);
  CHECK(d.now == 10000);
  CHECK(d.g.generation() == 1);
}

TEST_CASE("initial rebalance delay completes after one delay when nobody "
          "else arrives") {
  auto cfg = group_driver::default_config();
  cfg.initial_rebalance_delay_ms = 3000;
  group_driver d{cfg};
  d.join_new();
  d.advance(2999);
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.advance(1);
  CHECK(d.g.state() == group_state::completing_rebalance);
}

TEST_CASE("JoinGroup barrier completes as soon as every known member "
          "rejoined") {
  group_driver d;
  auto ids = d.stable_group(3);
  auto gen = d.g.generation();
  // A new member starts a rebalance; the barrier waits for the others.
  auto fresh = d.join_new();
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.join(d.join_req(ids[0]));
  d.join(d.join_req(ids[1]));
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.join(d.join_req(ids[2])); // the last one: no timer needed
  CHECK(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.generation() == gen + 1);
  CHECK(d.now == 0);
  CHECK(d.parked_join_count() == 0);
  CHECK(d.joined.at(fresh).generation_id == gen + 1);
}

TEST_CASE("rebalance timeout removes members that did not rejoin") {
  group_driver d;
  auto ids = d.stable_group(3);
  d.join(d.join_req(ids[0])); // ids[0] is the leader: starts a rebalance
  REQUIRE(d.g.state() == group_state::preparing_rebalance);
  d.join(d.join_req(ids[1]));
  d.advance(4999);
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.advance(1); // the rebalance timeout (5 s) fires
  CHECK(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.size() == 2);
  CHECK_FALSE(d.g.has_member(ids[2]));
  CHECK(d.joined.at(ids[0]).error == error_code::none);
}

TEST_CASE("only the leader's JoinGroup answer carries the member list") {
  group_driver d;
  auto a = d.join_new({proto("range", "meta-a")});
  auto b2 = d.join_new({proto("range", "meta-b")});
  d.advance(0);
  REQUIRE(d.g.state() == group_state::completing_rebalance);
  auto& leader = d.joined.at(a);
  auto& follower = d.joined.at(b2);
  CHECK(leader.leader == a);
  CHECK(follower.leader == a);
  REQUIRE(leader.members.size() == 2);
  CHECK(leader.members[0].member_id == a);
  CHECK(leader.members[0].metadata == b("meta-a"));
  CHECK(leader.members[1].metadata == b("meta-b"));
  CHECK(follower.members.empty());
  CHECK(leader.protocol_name == "range");
  CHECK(leader.generation_id == follower.generation_id);
}

TEST_CASE("the first member to join becomes the leader") {
  group_driver d;
  auto first = d.join_new();
  d.join_new();
  d.advance(0);
  CHECK(d.g.leader() == first);
}

// -- SyncGroup ------------------------------------------------------------------------

TEST_CASE("the leader's SyncGroup assignment reaches every parked follower") {
  group_driver d;
  auto a = d.join_new();
  auto f1 = d.join_new();
  auto f2 = d.join_new();
  d.advance(0);
  CHECK(d.sync(f1).parked());
  CHECK(d.sync(f2).parked());
  CHECK(d.g.state() == group_state::completing_rebalance);
  d.sync(a, {{a, b("A")}, {f1, b("F1")}, {f2, b("F2")}});
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.parked_sync_count() == 0);
  CHECK(d.synced.at(a).assignment == b("A"));
  CHECK(d.synced.at(f1).assignment == b("F1"));
  CHECK(d.synced.at(f2).assignment == b("F2"));
  CHECK(d.synced.at(f1).protocol_name == "range");
}

TEST_CASE("with durable group metadata, SyncGroup answers only after the "
          "assignment is stored, as Kafka's doSyncGroup") {
  auto cfg = group_driver::default_config();
  cfg.store_before_sync = true;
  group_driver d{cfg};
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  CHECK(d.sync(f).parked());
  CHECK(d.sync(a, {{a, b("A")}, {f, b("F")}}).parked());
  // Still CompletingRebalance: nothing goes out before the write is acked.
  CHECK(d.g.state() == group_state::completing_rebalance);
  REQUIRE(d.stores == std::vector<int32_t>{d.g.generation()});
  CHECK(d.parked_sync_count() == 2);
  d.g.on_group_stored(d.g.generation(), error_code::none, d.now);
  d.drain();
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.synced.at(a).assignment == b("A"));
  CHECK(d.synced.at(f).assignment == b("F"));
}

TEST_CASE("a failed group metadata write answers SyncGroup with the error "
          "and rebalances") {
  auto cfg = group_driver::default_config();
  cfg.store_before_sync = true;
  group_driver d{cfg};
  auto a = d.join_new();
  d.advance(0);
  auto generation = d.g.generation();
  CHECK(d.sync(a, {{a, b("A")}}).parked());
  d.g.on_group_stored(generation, error_code::coordinator_not_available, d.now);
  d.drain();
  CHECK(d.synced.at(a).error == error_code::coordinator_not_available);
  CHECK(d.synced.at(a).assignment.empty());
  CHECK(d.g.state() == group_state::preparing_rebalance);
  // A late answer for an older generation changes nothing.
  d.g.on_group_stored(generation, error_code::none, d.now);
  d.drain();
  CHECK(d.g.state() == group_state::preparing_rebalance);
}

TEST_CASE("a member missing from the leader's assignment gets an empty one") {
  group_driver d;
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  d.sync(f);
  d.sync(a, {{a, b("A")}, {"not-a-member", b("X")}});
  CHECK(d.synced.at(f).error == error_code::none);
  CHECK(d.synced.at(f).assignment.empty());
}

TEST_CASE("a member the leader leaves out of the next generation's "
          "assignment gets an empty one, not its old one") {
  group_driver d;
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  d.sync(f);
  d.sync(a, {{a, b("A")}, {f, b("F")}});
  REQUIRE(d.synced.at(f).assignment == b("F"));
  // A rebalance: both rejoin, and the leader gives f nothing this time.
  CHECK(d.join(d.join_req(a)).parked());
  CHECK(d.join(d.join_req(f)).parked());
  d.advance(0);
  REQUIRE(d.g.state() == group_state::completing_rebalance);
  d.synced.clear();
  d.sync(f);
  d.sync(a, {{a, b("A2")}});
  CHECK(d.synced.at(a).assignment == b("A2"));
  CHECK(d.synced.at(f).error == error_code::none);
  CHECK(d.synced.at(f).assignment.empty());
}

TEST_CASE("of two entries for one member in the leader's assignment the "
          "last counts") {
  group_driver d;
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  d.sync(f);
  d.sync(a, {{f, b("first")}, {a, b("A")}, {f, b("second")}});
  CHECK(d.synced.at(f).assignment == b("second"));
}

TEST_CASE("a late SyncGroup in a Stable group gets the stored assignment") {
  group_driver d;
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  d.sync(a, {{f, b("F")}});
  auto res = d.sync(f);
  REQUIRE_FALSE(res.parked());
  CHECK(res.answer->assignment == b("F"));
}

TEST_CASE("SyncGroup with a stale generation is fenced with "
          "ILLEGAL_GENERATION") {
  group_driver d;
  auto a = d.join_new();
  d.advance(0);
  sync_group_request r{"g", d.g.generation() - 1, a, "", "", "", {}};
  CHECK(d.g.sync(r, d.now).answer->error == error_code::illegal_generation);
}

TEST_CASE("SyncGroup during PreparingRebalance answers REBALANCE_IN_PROGRESS") {
  group_driver d;
  auto ids = d.stable_group(2);
  d.join(d.join_req(ids[0]));
  auto res = d.sync(ids[1]);
  CHECK(res.answer->error == error_code::rebalance_in_progress);
}

TEST_CASE("a rebalance during CompletingRebalance answers parked SyncGroups "
          "with REBALANCE_IN_PROGRESS") {
  group_driver d;
  auto a = d.join_new();
  auto f = d.join_new();
  d.advance(0);
  d.sync(f);
  d.join_new(); // a newcomer before the leader synced
  CHECK(d.synced.at(f).error == error_code::rebalance_in_progress);
  CHECK(d.g.state() == group_state::preparing_rebalance);
  (void)a;
}

TEST_CASE("members that never send SyncGroup expire after the rebalance "
          "timeout") {
  group_driver d;
  auto a = d.join_new();
  auto silent = d.join_new();
  d.advance(0);
  d.sync(a, {{a, b("A")}});
  REQUIRE(d.g.state() == group_state::stable);
  d.heartbeat(a, d.g.generation());
  d.advance(5000);
  CHECK_FALSE(d.g.has_member(silent));
  CHECK(d.g.state() != group_state::stable); // the rest rebalance
}

// -- Heartbeat and sessions -------------------------------------------------------------

TEST_CASE("heartbeat during PreparingRebalance answers REBALANCE_IN_PROGRESS") {
  group_driver d;
  auto ids = d.stable_group(2);
  auto gen = d.g.generation();
  CHECK(d.heartbeat(ids[1], gen) == error_code::none);
  d.join_new();
  REQUIRE(d.g.state() == group_state::preparing_rebalance);
  CHECK(d.heartbeat(ids[1], gen) == error_code::rebalance_in_progress);
}

TEST_CASE("heartbeat in CompletingRebalance and Stable answers NONE") {
  group_driver d;
  auto a = d.join_new();
  d.advance(0);
  REQUIRE(d.g.state() == group_state::completing_rebalance);
  CHECK(d.heartbeat(a, d.g.generation()) == error_code::none);
  d.sync(a);
  CHECK(d.heartbeat(a, d.g.generation()) == error_code::none);
}

TEST_CASE("heartbeat from a stale generation or unknown member is fenced") {
  group_driver d;
  auto ids = d.stable_group(1);
  CHECK(d.heartbeat(ids[0], d.g.generation() - 1)
        == error_code::illegal_generation);
  CHECK(d.heartbeat("nobody", d.g.generation())
        == error_code::unknown_member_id);
}

TEST_CASE("session expiry removes the member and rebalances the rest") {
  group_driver d;
  auto ids = d.stable_group(3);
  auto gen = d.g.generation();
  // ids[0] and ids[1] heartbeat every 3 s; ids[2] is silent.
  for (int i = 0; i < 3; ++i) {
    d.advance(3000);
    d.heartbeat(ids[0], gen);
    d.heartbeat(ids[1], gen);
  }
  CHECK(d.g.has_member(ids[2]));
  d.advance(1000); // 10 s since ids[2]'s last sign of life
  CHECK_FALSE(d.g.has_member(ids[2]));
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.join(d.join_req(ids[0]));
  d.join(d.join_req(ids[1]));
  CHECK(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.generation() == gen + 1);
  CHECK(d.g.size() == 2);
}

TEST_CASE("heartbeats keep a member's session alive") {
  group_driver d;
  auto ids = d.stable_group(1);
  for (int i = 0; i < 20; ++i) {
    d.advance(9000);
    CHECK(d.heartbeat(ids[0], d.g.generation()) == error_code::none);
  }
  CHECK(d.g.has_member(ids[0]));
  CHECK(d.g.state() == group_state::stable);
}

TEST_CASE("offset commits count as a member's heartbeat") {
  group_driver d;
  auto ids = d.stable_group(1);
  for (int i = 0; i < 5; ++i) {
    d.advance(9000);
    offset_commit_request r{
      "g", d.g.generation(), ids[0], "", {{"t", 0, i, -1, ""}}};
    CHECK(d.g.commit(r, d.now).partitions[0].error == error_code::none);
  }
  CHECK(d.g.has_member(ids[0]));
}

// -- leaving and leadership -----------------------------------------------------------------

TEST_CASE("leader leaving mid-rebalance elects a new leader") {
  group_driver d;
  auto ids = d.stable_group(3);
  REQUIRE(d.g.leader() == ids[0]);
  d.join_new(); // start a rebalance
  d.join(d.join_req(ids[1]));
  CHECK(d.leave(ids[0]) == error_code::none);
  CHECK(d.g.leader() != ids[0]);
  d.join(d.join_req(ids[2]));
  REQUIRE(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.leader() == ids[1]);
  CHECK(d.joined.at(ids[1]).members.size() == 3);
  CHECK(d.joined.at(ids[2]).leader == ids[1]);
}

TEST_CASE("a leader that does not rejoin is replaced by a member that did") {
  group_driver d;
  auto ids = d.stable_group(2);
  d.join(d.join_req(ids[1], {proto("range", "changed")}));
  d.advance(5000); // the leader never rejoins
  REQUIRE(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.leader() == ids[1]);
  CHECK(d.joined.at(ids[1]).members.size() == 1);
}

TEST_CASE("the last member leaving empties the group and bumps the "
          "generation") {
  group_driver d;
  auto ids = d.stable_group(1);
  auto gen = d.g.generation();
  d.leave(ids[0]);
  CHECK(d.g.state() == group_state::empty);
  CHECK(d.g.generation() == gen + 1);
}

TEST_CASE("LeaveGroup of an unknown member answers UNKNOWN_MEMBER_ID") {
  group_driver d;
  d.stable_group(1);
  CHECK(d.leave("nobody") == error_code::unknown_member_id);
}

TEST_CASE("a member removed while its JoinGroup is parked gets "
          "UNKNOWN_MEMBER_ID") {
  group_driver d;
  auto ids = d.stable_group(3);
  d.join(d.join_req(ids[0])); // the leader's rejoin starts a rebalance
  REQUIRE(d.join(d.join_req(ids[1])).parked());
  d.leave(ids[1]);
  CHECK(d.joined.at(ids[1]).error == error_code::unknown_member_id);
}

// -- offsets -------------------------------------------------------------------------------

TEST_CASE("a commit from the previous generation is fenced with "
          "ILLEGAL_GENERATION") {
  group_driver d;
  auto ids = d.stable_group(2);
  auto old_gen = d.g.generation();
  d.join_new();
  d.join(d.join_req(ids[0]));
  d.join(d.join_req(ids[1]));
  REQUIRE(d.g.generation() == old_gen + 1);
  d.sync(ids[0]);
  offset_commit_request r{"g", old_gen, ids[1], "", {{"t", 0, 10, -1, ""}}};
  auto res = d.g.commit(r, d.now);
  CHECK(res.partitions.at(0).error == error_code::illegal_generation);
  auto fetched = d.g.fetch({"g", {{"t", 0}}});
  CHECK(fetched.partitions.at(0).offset == -1); // nothing was stored
}

TEST_CASE("a commit from an unknown member is fenced with UNKNOWN_MEMBER_ID") {
  group_driver d;
  d.stable_group(1);
  offset_commit_request r{
    "g", d.g.generation(), "ghost", "", {{"t", 0, 1, -1, ""}}};
  CHECK(d.g.commit(r, 0).partitions.at(0).error
        == error_code::unknown_member_id);
}

TEST_CASE("a commit during CompletingRebalance answers "
          "REBALANCE_IN_PROGRESS") {
  group_driver d;
  auto a = d.join_new();
  d.advance(0);
  offset_commit_request r{"g", d.g.generation(), a, "", {{"t", 0, 1, -1, ""}}};
  CHECK(d.g.commit(r, 0).partitions.at(0).error
        == error_code::rebalance_in_progress);
}

TEST_CASE("a commit during PreparingRebalance is accepted") {
  group_driver d;
  auto ids = d.stable_group(2);
  d.join_new();
  REQUIRE(d.g.state() == group_state::preparing_rebalance);
  offset_commit_request r{
    "g", d.g.generation(), ids[1], "", {{"t", 0, 7, -1, ""}}};
  CHECK(d.g.commit(r, 0).partitions.at(0).error == error_code::none);
}

TEST_CASE("a standalone commit to an empty group is stored") {
  group_driver d;
  offset_commit_request r{"g", -1, "", "", {{"t", 3, 42, 5, "meta"}}};
  CHECK(d.g.commit(r, 0).partitions.at(0).error == error_code::none);
  auto f = d.g.fetch({"g", {}});
  REQUIRE(f.partitions.size() == 1);
  CHECK(f.partitions[0].offset == 42);
  CHECK(f.partitions[0].leader_epoch == 5);
  CHECK(f.partitions[0].metadata == "meta");
}

TEST_CASE("a standalone commit to a group with members is rejected") {
  group_driver d;
  d.stable_group(1);
  offset_commit_request r{"g", -1, "", "", {{"t", 0, 1, -1, ""}}};
  CHECK(d.g.commit(r, 0).partitions.at(0).error
        == error_code::unknown_member_id);
}

TEST_CASE("offset metadata over 4096 bytes gets OFFSET_METADATA_TOO_LARGE") {
  group_driver d;
  offset_commit_request r{"g",
                          -1,
                          "",
                          "",
                          {{"t", 0, 1, -1, std::string(4097, 'x')},
                           {"t", 1, 2, -1, std::string(4096, 'x')}}};
  auto res = d.g.commit(r, 0);
  CHECK(res.partitions.at(0).error == error_code::offset_metadata_too_large);
  CHECK(res.partitions.at(1).error == error_code::none);
  CHECK(d.g.fetch({"g", {{"t", 0}}}).partitions.at(0).offset == -1);
  CHECK(d.g.fetch({"g", {{"t", 1}}}).partitions.at(0).offset == 2);
}

// -- protocol choice ------------------------------------------------------------------------

TEST_CASE("protocol vote picks the majority choice") {
  group_driver d;
  d.join_new({proto("range"), proto("roundrobin")});
  d.join_new({proto("roundrobin"), proto("range")});
  d.join_new({proto("roundrobin"), proto("range"), proto("sticky")});
  d.advance(0);
  CHECK(d.g.protocol_name() == "roundrobin");
}

TEST_CASE("protocol vote only counts protocols every member supports") {
  group_driver d;
  d.join_new({proto("sticky"), proto("range")});
  d.join_new({proto("sticky"), proto("range")});
  d.join_new({proto("range")}); // sticky is not a candidate
  d.advance(0);
  CHECK(d.g.protocol_name() == "range");
}

TEST_CASE("protocol vote tie is broken by the leader's preference") {
  group_driver d;
  d.join_new({proto("roundrobin"), proto("range")}); // leader
  d.join_new({proto("range"), proto("roundrobin")});
  d.advance(0);
  CHECK(d.g.protocol_name() == "roundrobin");
}

TEST_CASE("a member with no common protocol gets INCONSISTENT_GROUP_PROTOCOL") {
  group_driver d;
  d.join_new({proto("range")});
  auto res = d.join(d.join_req("", {proto("sticky")}));
  REQUIRE_FALSE(res.parked());
  CHECK(res.answer->error == error_code::inconsistent_group_protocol);
}

TEST_CASE("a member with another protocol type gets "
          "INCONSISTENT_GROUP_PROTOCOL") {
  group_driver d;
  d.join_new();
  auto r = d.join_req("");
  r.protocol_type = "connect";
  CHECK(d.join(r).answer->error == error_code::inconsistent_group_protocol);
}

// -- static membership (KIP-345) ----------------------------------------------------------------

TEST_CASE("static member rejoin replaces the old member id and fences the old "
          "one") {
  group_driver d;
  auto r = d.join_req("");
  r.group_instance_id = "instance-1";
  auto first = d.join(r).parked_member_id;
  auto other = d.join_new();
  d.advance(0);
  d.sync(first, {{first, b("A1")}, {other, b("A2")}});
  REQUIRE(d.g.state() == group_state::stable);
  auto gen = d.g.generation();
  // The same instance restarts and joins without its member id.
  auto res = d.join(r);
  REQUIRE_FALSE(res.parked()); // Stable, same protocol: no rebalance
  auto second = res.answer->member_id;
  CHECK(second != first);
  CHECK(res.answer->generation_id == gen);
  CHECK(res.answer->leader == first); // old leader id: no trivial assignment
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.g.member(second)->assignment == b("A1"));
  // The old id is fenced everywhere.
  heartbeat_request hb{"g", gen, first, "instance-1"};
  CHECK(d.g.heartbeat(hb, d.now).error == error_code::fenced_instance_id);
  offset_commit_request c{"g", gen, first, "instance-1", {{"t", 0, 1, -1, ""}}};
  CHECK(d.g.commit(c, d.now).partitions[0].error
        == error_code::fenced_instance_id);
  CHECK(d.g.leader() == second);
  hb.member_id = second;
  CHECK(d.g.heartbeat(hb, d.now).error == error_code::none);
}

TEST_CASE("a static member replaced while its JoinGroup is parked gets "
          "FENCED_INSTANCE_ID") {
  group_driver d;
  auto r = d.join_req("");
  r.group_instance_id = "instance-1";
  auto first = d.join(r).parked_member_id;
  d.join_new();
  // Still PreparingRebalance (timer not fired): the instance comes back.
  auto second = d.join(r).parked_member_id;
  CHECK(d.joined.at(first).error == error_code::fenced_instance_id);
  d.advance(0);
  CHECK(d.joined.at(second).error == error_code::none);
  CHECK(d.g.size() == 2);
}

TEST_CASE("a static member that does not rejoin keeps its place through a "
          "rebalance") {
  group_driver d;
  auto r = d.join_req("");
  r.group_instance_id = "instance-1";
  auto s = d.join(r).parked_member_id;
  auto dyn = d.join_new();
  d.advance(0);
  d.sync(s, {});
  d.sync(dyn);
  d.join(d.join_req(dyn, {proto("range", "new")}));
  // the static member is busy and does not rejoin in time
  d.advance(5000);
  CHECK(d.g.state() == group_state::completing_rebalance);
  CHECK(d.g.has_member(s));
}

// -- group size and bad input ----------------------------------------------------------------

TEST_CASE("group at max size rejects the next member") {
  auto cfg = group_driver::default_config();
  cfg.max_size = 2;
  group_driver d{cfg};
  d.join_new();
  d.join_new();
  auto res = d.join(d.join_req(""));
  REQUIRE_FALSE(res.parked());
  CHECK(res.answer->error == error_code::group_max_size_reached);
  d.advance(0);
  CHECK(d.g.size() == 2);
}

TEST_CASE("a new member without an id gets MEMBER_ID_REQUIRED and an id") {
  group_driver d;
  auto r = d.join_req("");
  r.require_known_member_id = true;
  auto res = d.join(r);
  REQUIRE_FALSE(res.parked());
  CHECK(res.answer->error == error_code::member_id_required);
  auto id = res.answer->member_id;
  CHECK(id.rfind("client-", 0) == 0);
  CHECK(d.g.is_pending_member(id));
  CHECK(d.g.state() == group_state::empty);
  r.member_id = id;
  CHECK(d.join(r).parked());
  CHECK(d.g.has_member(id));
}

TEST_CASE("a pending member that never comes back is forgotten after its "
          "session timeout") {
  group_driver d;
  auto ids = d.stable_group(1);
  auto r = d.join_req("");
  r.require_known_member_id = true;
  auto id = d.join(r).answer->member_id;
  // The leader rejoins with a long rebalance timeout; the barrier waits for
  // the pending member until its session timeout (10 s) forgets it.
  d.join(d.join_req(ids[0], {proto("range")}, 10000, 60000));
  CHECK(d.g.state() == group_state::preparing_rebalance);
  d.advance(10000);
  CHECK_FALSE(d.g.is_pending_member(id));
  CHECK(d.g.state() == group_state::completing_rebalance);
}

TEST_CASE("JoinGroup with an empty or over-long group id gets "
          "INVALID_GROUP_ID") {
  group_driver d;
  auto r = d.join_req("");
  r.group_id = "";
  CHECK(d.g.join(r, 0).answer->error == error_code::invalid_group_id);
  group big(std::string(32768, 'g'), group_driver::default_config(), nullptr,
            1);
  r.group_id = std::string(32768, 'g');
  CHECK(big.join(r, 0).answer->error == error_code::invalid_group_id);
}

TEST_CASE("JoinGroup with a session timeout out of bounds gets "
          "INVALID_SESSION_TIMEOUT") {
  group_driver d;
  for (int32_t t : {-1, 0, 5999, 1800001, INT32_MAX}) {
    auto r = d.join_req("", {proto("range")}, t);
    CHECK(d.g.join(r, 0).answer->error == error_code::invalid_session_timeout);
  }
  CHECK(d.g.state() == group_state::empty);
}

TEST_CASE("JoinGroup with a negative rebalance timeout gets INVALID_REQUEST") {
  group_driver d;
  auto r = d.join_req("", {proto("range")}, 10000, -5);
  CHECK(d.g.join(r, 0).answer->error == error_code::invalid_request);
}

TEST_CASE("JoinGroup v0 without a rebalance timeout uses the session timeout") {
  group_driver d;
  auto id = d.join_new({proto("range")}, 10000, -1);
  CHECK(d.g.member(id)->rebalance_timeout_ms == 10000);
}

TEST_CASE("JoinGroup with an empty protocol list or type gets "
          "INCONSISTENT_GROUP_PROTOCOL") {
  group_driver d;
  auto r = d.join_req("", {});
  CHECK(d.g.join(r, 0).answer->error
        == error_code::inconsistent_group_protocol);
  r = d.join_req("");
  r.protocol_type = "";
  CHECK(d.g.join(r, 0).answer->error
        == error_code::inconsistent_group_protocol);
}

TEST_CASE("JoinGroup with an unknown member id gets UNKNOWN_MEMBER_ID") {
  group_driver d;
  d.stable_group(1);
  auto res = d.join(d.join_req("made-up-id"));
  CHECK(res.answer->error == error_code::unknown_member_id);
}

TEST_CASE("garbage assignment bytes are relayed untouched") {
  group_driver d;
  auto a = d.join_new();
  d.advance(0);
  bytes garbage{0xff, 0x00, 0x13, 0x37};
  d.sync(a, {{a, garbage}});
  CHECK(d.synced.at(a).assignment == garbage);
}

// -- teardown -------------------------------------------------------------------------------

TEST_CASE("every parked promise is answered when a group is torn down") {
  SECTION("parked JoinGroups") {
    group_driver d;
    auto ids = d.stable_group(2);
    d.join(d.join_req(ids[0]));
    d.join_new();
    REQUIRE(d.parked_join_count() == 2);
    d.g.shutdown(error_code::not_coordinator);
    d.drain();
    CHECK(d.parked_join_count() == 0);
    CHECK(d.joined.at(ids[0]).error == error_code::not_coordinator);
  }
  SECTION("parked SyncGroups") {
    group_driver d;
    auto a = d.join_new();
    auto f = d.join_new();
    d.advance(0);
    d.sync(f);
    REQUIRE(d.parked_sync_count() == 1);
    d.g.shutdown(error_code::not_coordinator);
    d.drain();
    CHECK(d.parked_sync_count() == 0);
    CHECK(d.synced.at(f).error == error_code::not_coordinator);
    CHECK(d.sessions.empty());
    (void)a;
  }
  SECTION("a Dead group answers COORDINATOR_NOT_AVAILABLE") {
    group_driver d;
    d.g.shutdown(error_code::not_coordinator);
    CHECK(d.g.state() == group_state::dead);
    CHECK(d.g.join(d.join_req(""), 0).answer->error
          == error_code::coordinator_not_available);
  }
}

TEST_CASE("state transitions follow Kafka's valid previous states") {
  group_driver d;
  auto ids = d.stable_group(2);
  d.leave(ids[0]);
  d.leave(ids[1]);
  std::vector<std::pair<group_state, group_state>> seen;
  for (auto& t : d.transitions)
    seen.emplace_back(t.from, t.to);
  CHECK(seen.front().first == group_state::empty);
  CHECK(seen.back().second == group_state::empty);
}

TEST_CASE("describe shows members and assignments only while Stable") {
  group_driver d;
  auto a = d.join_new();
  d.advance(0);
  auto desc = d.g.describe();
  CHECK(desc.state == any_group_state::completing_rebalance);
  CHECK(desc.protocol_data.empty());
  d.sync(a, {{a, b("A")}});
  desc = d.g.describe();
  CHECK(desc.state == any_group_state::stable);
  CHECK(desc.protocol_type == "consumer");
  CHECK(desc.protocol_data == "range");
  REQUIRE(desc.members.size() == 1);
  CHECK(desc.members[0].assignment == b("A"));
}

TEST_CASE("member ids are the client id and a version-4 UUID, as Kafka's") {
  group_driver d;
  auto id = d.join_new();
  std::regex uuid{
    "client-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}"
    "-[0-9a-f]{12}"};
  CHECK(std::regex_match(id, uuid));
  CHECK(d.join_new() != id);
}

// -- loading a group on a new coordinator ------------------------------------------------

namespace {

/// What a coordinator stored for a Stable group of `d`, as a new coordinator
/// replays it (Kafka's GroupMetadataValue).
group_snapshot snapshot_of(const group& g) {
  group_snapshot s{
    g.generation(), g.protocol_type(), g.protocol_name(), g.leader(), {}};
  for (auto m : g.members_in_join_order()) {
    auto copy = *m;
    copy.protocols = {{g.protocol_name(), *m->metadata_for(g.protocol_name())}};
    s.members.push_back(std::move(copy));
  }
  return s;
}

} // namespace

TEST_CASE("a group loaded by a new coordinator keeps its members, generation, "
          "protocol and leader, and is Stable") {
  group_driver old;
  auto ids = old.stable_group(3);
  group_driver d;
  d.now = 50000;
  d.g.restore(snapshot_of(old.g), d.now);
  d.drain();
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.g.generation() == old.g.generation());
  CHECK(d.g.protocol_name() == old.g.protocol_name());
  CHECK(d.g.protocol_type() == "consumer");
  CHECK(d.g.leader() == old.g.leader());
  REQUIRE(d.g.size() == 3);
  for (auto& id : ids) {
    INFO(id);
    CHECK(d.g.has_member(id));
    CHECK(d.sessions.count(id) == 1); // a fresh session timer per member
  }
  CHECK(d.transitions.empty()); // loading is not a rebalance
}

TEST_CASE("members that heartbeat to the new coordinator with the current "
          "generation carry on without a rebalance") {
  group_driver old;
  auto ids = old.stable_group(2);
  group_driver d;
  d.g.restore(snapshot_of(old.g), d.now);
  d.drain();
  for (int i = 0; i < 5; ++i) {
    d.advance(5000);
    for (auto& id : ids)
      CHECK(d.heartbeat(id, old.g.generation()) == error_code::none);
  }
  CHECK(d.g.state() == group_state::stable);
  CHECK(d.g.generation() == old.g.generation());
  CHECK(d.transitions.empty());
  // A commit of the current generation is accepted there.
  offset_commit_request r{
    "g", old.g.generation(), ids[1], "", {{"t", 0, 42, -1, ""}}};
  CHECK(d.g.commit(r, d.now).partitions.at(0).error == error_code::none);
  // A stale generation is still fenced.
  r.generation_id = old.g.generation() - 1;
  CHECK(d.g.commit(r, d.now).partitions.at(0).error
        == error_code::illegal_generation);
}

TEST_CASE("a loaded member that never comes back expires after its session "
          "timeout and the others rebalance") {
  group_driver old;
  auto ids = old.stable_group(2);
  group_driver d;
  d.g.restore(snapshot_of(old.g), d.now);
  d.drain();
  for (int i = 0; i < 2; ++i) {
    d.advance(4000);
    CHECK(d.heartbeat(ids[0], old.g.generation()) == error_code::none);
  }
  CHECK(d.g.has_member(ids[1]));
  d.advance(3000);
  CHECK_FALSE(d.g.has_member(ids[1])); // session timeout 10 s, silent
  CHECK(d.g.state() == group_state::preparing_rebalance);
  CHECK(d.heartbeat(ids[0], old.g.generation())
        == error_code::rebalance_in_progress);
}

TEST_CASE("a group stored without members loads Empty and keeps its "
          "generation") {
  group_driver d;
  d.g.restore({7, "consumer", "", "", {}}, 0);
  d.drain();
  CHECK(d.g.state() == group_state::empty);
  CHECK(d.g.generation() == 7);
  auto id = d.join_new();
  d.advance(0);
  CHECK(d.joined.at(id).generation_id == 8);
}

TEST_CASE("a loaded static member keeps its group.instance.id") {
  group_driver old;
  auto r = old.join_req("", {proto("range")});
  r.group_instance_id = "instance-1";
  old.join(r);
  old.advance(0);
  auto id = old.joined.begin()->first;
  old.sync(id);
  REQUIRE(old.g.state() == group_state::stable);
  group_driver d;
  d.g.restore(snapshot_of(old.g), d.now);
  d.drain();
  // The same instance with another member id is fenced, as before the move.
  heartbeat_request hb{"g", d.g.generation(), "someone-else", "instance-1"};
  CHECK(d.g.heartbeat(hb, d.now).error == error_code::fenced_instance_id);
  hb.member_id = id;
  CHECK(d.g.heartbeat(hb, d.now).error == error_code::none);
}
