// The KIP-848 consumer group coordinator actor under simulated time: answers
// after its records are in __consumer_offsets (a fake replica here), timers
// as delayed sends, a new coordinator rebuilt from the written records.

#include <catch2/catch.hpp>

#include "actors/groups/consumer_group_coordinator.hpp"
#include "domain/log/record_batch.hpp"
#include "storage/offsets_records.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/domain/consumer_group_fixture.hpp"

using namespace troupe;
using troupe::test::cg_driver;
using troupe::test::client;
using troupe::test::make_topic;

namespace {

/// The group's __consumer_offsets replica: keeps every batch it is asked
/// to write, or holds the writes until released, or fails them.
struct fake_log {
  std::vector<bytes> batches;
  bool hold = false;
  /// The error the next writes (and released ones) get.
  error_code fail = error_code::none;
  std::vector<std::pair<caf::typed_response_promise<produce_response>, bytes>>
    held;

  /// The failing writes are appended all the same (acks=all timing out
  /// after the leader's append).
  bool append_failed = false;

  produce_response write(bytes batch) {
    if (fail != error_code::none && append_failed)
      batches.push_back(std::move(batch));
    if (fail != error_code::none)
      return {fail, -1, 0};
    batches.push_back(std::move(batch));
    return {error_code::none, static_cast<int64_t>(batches.size()) - 1, 0};
  }
};

replica_actor::behavior_type fake_replica(replica_actor::pointer self,
                                          std::shared_ptr<fake_log> box) {
  return {
    [self, box](produce_request& req) -> caf::result<produce_response> {
      if (box->hold) {
        auto rp = self->make_response_promise<produce_response>();
        box->held.emplace_back(rp, std::move(req.batch));
        return rp;
      }
      return box->write(std::move(req.batch));
    },
    [](fetch_request&) { return fetch_response{}; },
    [](list_offsets_request&) { return list_offsets_response{}; },
    [](epoch_end_offset_request&) { return epoch_end_offset_response{}; },
    [](replica_status_request&) { return replica_status{}; },
    [](partition_update&) {},
    [](isr_expiration_tick&) {},
    [](produce_timeout&) {},
    [](fetch_timeout&) {},
    [](cluster_peers&) {},
    [](replica_config&) {},
    [](delete_records_request&) {
      return delete_records_response{error_code::not_leader_or_follower, -1};
    },
    // The test's "release the held writes".
    [box](follower_fetch_tick&) {
      auto held = std::exchange(box->held, {});
      for (auto& [rp, batch] : held)
        rp.deliver(box->write(std::move(batch)));
    },
  };
}

struct cg_fixture : test::sim_fixture {
  std::shared_ptr<fake_log> box = std::make_shared<fake_log>();
  replica_actor log;
  std::vector<topic_info> topics{make_topic("t", 6)};
  consumer_group_coordinator_actor coord;

  /// The assignor runs on every change (Kafka 4.0 to 4.2) unless a test
  /// turns assignment batching on.
  group_config config = test::consumer_config();

  explicit cg_fixture(bool with_log = true,
                      std::optional<int32_t> assignment_interval_ms = {},
                      std::vector<std::string> assignors = {}) {
    if (assignment_interval_ms)
      config.consumer_assignment_interval_ms = *assignment_interval_ms;
    if (!assignors.empty())
      config.consumer_assignors = std::move(assignors);
    if (with_log) {
      log = sys.spawn(fake_replica, box);
      to_stop.push_back(caf::actor_cast<caf::actor>(log));
    }
    coord = spawn_coordinator({});
  }

  consumer_group_coordinator_actor spawn_coordinator(consumer_group_image in) {
    auto c = sys.spawn(consumer_group_coordinator, std::string{"g"}, config,
                       uint64_t{42}, listener, log,
                       topic_partition{"__consumer_offsets", 3}, topics,
                       std::move(in));
    to_stop.push_back(caf::actor_cast<caf::actor>(c));
    run();
    return c;
  }

  auto heartbeat(consumer_group_heartbeat_request req) {
    return ask<consumer_group_heartbeat_response>(coord, std::move(req));
  }

  /// Heartbeats as the consumer would and hands it the answer.
  void beat(client& c, bool full = false) {
    auto p = heartbeat(c.next_request(full));
    REQUIRE(p.ready());
    c.on_answer(p.get());
  }

  consumer_group_described_group describe() {
    auto p = ask<consumer_group_described_group>(
      coord, consumer_group_describe_request{{"g"}, false});
    REQUIRE(p.ready());
    return p.get();
  }

  offset_fetch_response fetch() {
    auto p =
      ask<offset_fetch_response>(coord, offset_fetch_request{"g", {{"t", 0}}});
    REQUIRE(p.ready());
    return p.get();
  }

  void release() {
    caf::anon_send(log, follower_fetch_tick{});
    run();
  }

  /// What a new coordinator reads back from the written batches.
  offsets_partition_state replayed() const {
    offsets_partition_state st;
    for (const auto& b : box->batches) {
      auto records = decode_records(b.data(), b.size());
      REQUIRE(records);
      for (auto& r : *records)
        st.apply({r.key.value_or(bytes{}), r.value});
    }
    return st;
  }
};

offset_commit_request commit_req(int32_t epoch) {
  return {"g", epoch, "m1", "", {{"t", 0, 42, -1, ""}}};
}

} // namespace

TEST_CASE("a heartbeat is answered once its records are in "
          "__consumer_offsets") {
  cg_fixture fx;
  fx.box->hold = true;
  auto p = fx.heartbeat(cg_driver::join_req("m1"));
  CHECK(!p.ready());
  // Reads see what is written: nothing yet.
  CHECK(fx.describe().error == error_code::group_id_not_found);
  fx.release();
  REQUIRE(p.ready());
  CHECK(p.get().error == error_code::none);
  CHECK(p.get().member_epoch == 1);
  auto d = fx.describe();
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_epoch == 1);
  auto image = loaded_consumer_group(fx.replayed(), "g");
  CHECK(image.members.at("m1").member_epoch == 1);
  CHECK(image.group_epoch == 1);
}

TEST_CASE("a heartbeat whose records cannot be written gets Kafka's error "
          "and leaves no trace") {
  cg_fixture fx;
  fx.box->fail = error_code::not_enough_replicas;
  auto p = fx.heartbeat(cg_driver::join_req("m1"));
  REQUIRE(p.ready());
  CHECK(p.get().error == error_code::coordinator_not_available);
  fx.box->fail = error_code::none;
  auto q = fx.heartbeat(cg_driver::join_req("m2"));
  REQUIRE(q.ready());
  CHECK(q.get().member_epoch == 1);
  auto d = fx.describe();
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_id == "m2");
  CHECK(d.group_epoch == 1);
}

TEST_CASE("heartbeats that arrive during a write wait for it and are "
          "answered in order") {
  cg_fixture fx;
  fx.box->hold = true;
  auto p1 = fx.heartbeat(cg_driver::join_req("m1"));
  auto p2 = fx.heartbeat(cg_driver::join_req("m2"));
  CHECK(!p1.ready());
  CHECK(!p2.ready());
  fx.release();
  CHECK(p1.ready());
  CHECK(!p2.ready());
  fx.release();
  REQUIRE(p2.ready());
  CHECK(p2.get().member_epoch == 2);
  CHECK(fx.box->batches.size() == 2);
}

TEST_CASE("a failed write also fails the heartbeats computed on top of it") {
  cg_fixture fx;
  fx.box->hold = true;
  auto p1 = fx.heartbeat(cg_driver::join_req("m1"));
  auto p2 = fx.heartbeat(cg_driver::join_req("m2"));
  fx.box->fail = error_code::not_leader_or_follower;
  fx.release();
  REQUIRE(p1.ready());
  REQUIRE(p2.ready());
  CHECK(p1.get().error == error_code::not_coordinator);
  CHECK(p2.get().error == error_code::not_coordinator);
  fx.box->hold = false;
  fx.box->fail = error_code::none;
  auto again = fx.heartbeat(cg_driver::join_req("m2"));
  REQUIRE(again.ready());
  CHECK(again.get().member_epoch == 1);
}

TEST_CASE("a write that times out after its append keeps the group's "
          "state, as Kafka's coordinator runtime does") {
  cg_fixture fx;
  fx.box->hold = true;
  auto p1 = fx.heartbeat(cg_driver::join_req("m1"));
  auto p2 = fx.heartbeat(cg_driver::join_req("m2"));
  fx.box->fail = error_code::request_timed_out;
  fx.box->append_failed = true;
  fx.release();
  REQUIRE(p1.ready());
  // GroupCoordinatorService maps REQUEST_TIMED_OUT to
  // COORDINATOR_NOT_AVAILABLE; m2's heartbeat, computed on top, is written
  // after it and answered.
  CHECK(p1.get().error == error_code::coordinator_not_available);
  fx.box->fail = error_code::none;
  fx.release();
  REQUIRE(p2.ready());
  CHECK(p2.get().error == error_code::none);
  CHECK(p2.get().member_epoch == 2);
  // The coordinator's state is its log's: both members, as a coordinator
  // loading the log would see them.
  auto d = fx.describe();
  CHECK(d.members.size() == 2);
  CHECK(d.group_epoch == 2);
  auto image = loaded_consumer_group(fx.replayed(), "g");
  CHECK(image.members.size() == 2);
  CHECK(image.group_epoch == 2);
  // m1, answered with an error, keeps its epoch 0 and joins again: it is
  // the member the group already has.
  fx.box->hold = false;
  auto again = fx.heartbeat(cg_driver::join_req("m1"));
  REQUIRE(again.ready());
  CHECK(again.get().error == error_code::none);
  CHECK(fx.describe().members.size() == 2);
}

TEST_CASE("a member that stops heartbeating is fenced after "
          "group.consumer.session.timeout.ms and the others take over") {
  cg_fixture fx;
  client m1{"m1"}, m2{"m2"};
  for (int i = 0; i < 4; ++i) {
    fx.beat(m1);
    fx.beat(m2);
  }
  REQUIRE(fx.describe().group_state == any_group_state::stable);
  for (int i = 0; i < 10; ++i) {
    fx.advance(5000, 100);
    fx.beat(m1);
  }
  auto d = fx.describe();
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_id == "m1");
  fx.beat(m1);
  CHECK(partition_count(m1.owned) == 6);
  CHECK(loaded_consumer_group(fx.replayed(), "g").members.count("m2") == 0);
}

TEST_CASE("a member that does not revoke within its rebalance timeout is "
          "fenced") {
  cg_fixture fx;
  auto all = test::parts(fx.topics[0], {0, 1, 2, 3, 4, 5});
  fx.heartbeat(cg_driver::join_req("m1"));
  fx.heartbeat(cg_driver::join_req("m2"));
  for (int i = 0; i < 7; ++i) {
    // m1 heartbeats but never lets go of the partitions m2 is to get.
    REQUIRE(fx.heartbeat(cg_driver::beat_req("m1", 1, all)).ready());
    fx.heartbeat(cg_driver::beat_req("m2", 2, partition_assignment{}));
    fx.advance(5000, 100);
  }
  auto d = fx.describe();
  REQUIRE(d.members.size() == 1);
  CHECK(d.members[0].member_id == "m2");
}

TEST_CASE("offset commits are fenced by the member epoch and answered once "
          "durable") {
  cg_fixture fx;
  fx.heartbeat(cg_driver::join_req("m1"));
  auto stale = fx.ask<offset_commit_response>(fx.coord, commit_req(0));
  REQUIRE(stale.ready());
  CHECK(stale.get().partitions.at(0).error == error_code::stale_member_epoch);
  fx.box->hold = true;
  auto ok = fx.ask<offset_commit_response>(fx.coord, commit_req(1));
  CHECK(!ok.ready());
  CHECK(fx.fetch().partitions.at(0).offset == -1);
  fx.release();
  REQUIRE(ok.ready());
  CHECK(ok.get().partitions.at(0).error == error_code::none);
  CHECK(fx.fetch().partitions.at(0).offset == 42);
}

TEST_CASE("a coordinator rebuilt from the written records carries the "
          "members on without a rebalance") {
  cg_fixture fx;
  client m1{"m1"}, s2{"s2", std::string{"i2"}};
  for (int i = 0; i < 4; ++i) {
    fx.beat(m1);
    fx.beat(s2);
  }
  REQUIRE(
    fx.ask<offset_commit_response>(fx.coord, commit_req(m1.epoch)).ready());
  auto before = fx.describe();
  caf::anon_send(fx.coord, group_shutdown{error_code::not_coordinator});
  fx.run();
  fx.coord = fx.spawn_coordinator(loaded_consumer_group(fx.replayed(), "g"));
  CHECK(fx.describe().group_epoch == before.group_epoch);
  auto epoch = m1.epoch;
  fx.beat(m1);
  fx.beat(s2);
  CHECK(m1.epoch == epoch);
  auto after = fx.describe();
  CHECK(after.group_epoch == before.group_epoch);
  CHECK(after.group_state == any_group_state::stable);
  CHECK(fx.fetch().partitions.at(0).offset == 42);
}

TEST_CASE("everything waiting for a write is answered NOT_COORDINATOR when "
          "the group is given up") {
  cg_fixture fx;
  fx.box->hold = true;
  auto p = fx.heartbeat(cg_driver::join_req("m1"));
  REQUIRE(!p.ready());
  caf::anon_send(fx.coord, group_shutdown{error_code::not_coordinator});
  fx.run();
  REQUIRE(p.ready());
  CHECK(p.get().error == error_code::not_coordinator);
}

TEST_CASE("new partitions of a subscribed topic are assigned on the next "
          "heartbeat") {
  cg_fixture fx;
  client m1{"m1"};
  fx.beat(m1);
  REQUIRE(partition_count(m1.owned) == 6);
  caf::anon_send(fx.coord, consumer_group_topics{{make_topic("t", 8)}});
  fx.run();
  fx.beat(m1);
  CHECK(m1.epoch == 2);
  CHECK(partition_count(m1.owned) == 8);
}

TEST_CASE("the assignment timer runs a delayed target assignment without "
          "waiting for a heartbeat (KIP-1263)") {
  // The range assignor: its joins wait for the interval (the uniform one
  // gives a joiner its share at once when it can).
  cg_fixture fx{true, 1000, {"range"}};
  client m1{"m1"};
  client m2{"m2"};
  fx.beat(m1);
  REQUIRE(partition_count(m1.owned) == 6);
  fx.advance(200, 10);
  fx.beat(m2);
  // Within the interval: m2 is in the group with nothing yet.
  CHECK(m2.owned.empty());
  CHECK(fx.describe().assignment_epoch == 1);
  // The coordinator's delayed send runs the assignor at 1000 ms; m1 learns
  // of its revocation with its next heartbeat, m2 then gets its share.
  fx.advance(800, 10);
  CHECK(fx.describe().assignment_epoch == 2);
  fx.beat(m1);
  CHECK(partition_count(m1.owned) == 3);
  fx.beat(m1);
  fx.beat(m2);
  CHECK(partition_count(m2.owned) == 3);
}

TEST_CASE("the coordinator reports the group's transitions and lists the "
          "group as a consumer group") {
  cg_fixture fx;
  fx.heartbeat(cg_driver::join_req("m1"));
  REQUIRE(!fx.events->groups.empty());
  auto& e = fx.events->groups.back();
  CHECK(e.group_id == "g");
  CHECK(e.from == any_group_state::empty);
  CHECK(e.to == any_group_state::stable);
  CHECK(e.generation == 1);
  CHECK(e.protocol == "uniform");
  auto l = fx.ask<listed_group>(fx.coord, list_groups_request{});
  REQUIRE(l.ready());
  CHECK(l.get().protocol_type == "consumer");
  CHECK(l.get().state == any_group_state::stable);
}

TEST_CASE("without an offsets log the coordinator answers at once") {
  cg_fixture fx{false};
  auto p = fx.heartbeat(cg_driver::join_req("m1"));
  REQUIRE(p.ready());
  CHECK(p.get().member_epoch == 1);
  CHECK(fx.describe().members.size() == 1);
}
