// The leader side of partition replication (docs/ARCHITECTURE.md §4:
// Kafka's Partition and ReplicaManager) and the leader-epoch cache, on a
// hand-moved clock.

#include <catch2/catch.hpp>

#include <random>

#include "domain/replication/leader_epoch_cache.hpp"
#include "domain/replication/partition_leader.hpp"

using namespace troupe;

namespace {

partition_leader three_replicas(int32_t min_isr = 2, int64_t lag = 30000) {
  partition_leader_config cfg;
  cfg.min_insync_replicas = min_isr;
  cfg.replica_lag_time_max_ms = lag;
  return partition_leader{0, 1, {0, 1, 2}, {0, 1, 2}, 0, 0, cfg, 0};
}

std::vector<int32_t> ids(std::initializer_list<int32_t> xs) {
  return xs;
}

} // namespace

TEST_CASE("a follower not caught up within replica.lag.time.max.ms leaves "
          "the ISR, exactly then") {
  auto p = three_replicas();
  p.on_local_append(10);
  for (int64_t t = 1000; t <= 30000; t += 1000)
    p.on_follower_fetch(1, 10, t); // follower 1 keeps up; 2 is silent
  p.on_isr_expiration(30000);      // 30000 - 0 is not more than the lag
  CHECK_FALSE(p.proposed_isr());
  p.on_isr_expiration(30001);
  REQUIRE(p.proposed_isr());
  CHECK(*p.proposed_isr() == ids({0, 1}));
  p.apply_isr(*p.proposed_isr());
  CHECK(p.isr() == ids({0, 1}));
}

TEST_CASE("a fetching follower that stays behind counts as caught up only "
          "as of the fetch that reached the leader's previous LEO") {
  auto p = three_replicas();
  // Kafka's updateFetchState: fetch offset >= leader LEO at the previous
  // fetch -> lastCaughtUpTime = time of the previous fetch.
  p.on_local_append(10);
  p.on_follower_fetch(1, 10, 1000); // caught up at 1000
  p.on_local_append(20);
  p.on_follower_fetch(1, 10, 2000); // behind (LEO 20), but reached 10
  CHECK(p.follower(1)->last_caught_up_ms == 1000);
  p.on_local_append(30);
  p.on_follower_fetch(1, 20, 3000); // reached the LEO seen at 2000
  CHECK(p.follower(1)->last_caught_up_ms == 2000);
  p.on_follower_fetch(1, 30, 4000);
  CHECK(p.follower(1)->last_caught_up_ms == 4000);
}

TEST_CASE("a follower whose LEO reaches the high watermark rejoins the ISR") {
  auto p = three_replicas(1);
  p.on_local_append(10);
  p.on_follower_fetch(1, 10, 100);
  p.on_isr_expiration(40000); // follower 2 never fetched
  p.apply_isr(*p.proposed_isr());
  REQUIRE(p.isr() == ids({0}));
  p.on_local_append(20);
  CHECK(p.high_watermark() == 20); // ISR {0}, min.insync 1
  p.on_follower_fetch(2, 15, 40100);
  CHECK_FALSE(p.proposed_isr()); // below the HW: not yet
  p.on_follower_fetch(2, 20, 40200);
  REQUIRE(p.proposed_isr());
  CHECK(*p.proposed_isr() == ids({0, 2}));
}

TEST_CASE("the high watermark is the minimum LEO over the ISR and never "
          "decreases") {
  auto p = three_replicas();
  p.on_local_append(100);
  p.on_follower_fetch(1, 60, 10);
  p.on_follower_fetch(2, 40, 10);
  CHECK(p.high_watermark() == 40);
  p.on_follower_fetch(2, 80, 20);
  CHECK(p.high_watermark() == 60);
  // A follower reporting a lower offset (it truncated) does not move the
  // HW back.
  p.on_follower_fetch(1, 50, 30);
  CHECK(p.high_watermark() == 60);
}

TEST_CASE("a new leader alone in its ISR moves the high watermark to its "
          "log end at once (Partition.makeLeader)") {
  partition_leader_config cfg;
  cfg.min_insync_replicas = 1;
  partition_leader alone{1, 2, {0, 1, 2}, {1}, 3, 0, cfg, 0};
  CHECK(alone.high_watermark() == 3);
  // With followers in the ISR their LEO is unknown: the HW waits for them.
  partition_leader shared{1, 2, {0, 1, 2}, {1, 2}, 3, 0, cfg, 0};
  CHECK(shared.high_watermark() == 0);
  // Below min.insync.replicas it does not move either.
  cfg.min_insync_replicas = 2;
  partition_leader short_isr{1, 2, {0, 1, 2}, {1}, 3, 0, cfg, 0};
  CHECK(short_isr.high_watermark() == 0);
}

TEST_CASE("the high watermark does not advance while the ISR is below "
          "min.insync.replicas") {
  auto p = three_replicas(2);
  p.on_local_append(10);
  p.on_isr_expiration(31000);
  p.apply_isr(*p.proposed_isr()); // {0}: both followers silent
  REQUIRE(p.isr() == ids({0}));
  p.on_local_append(20);
  CHECK(p.high_watermark() == 0);
}

TEST_CASE("acks=all is rejected with NOT_ENOUGH_REPLICAS when the ISR is "
          "below min.insync.replicas") {
  auto p = three_replicas(2);
  CHECK(p.check_acks_all() == error_code::none);
  p.on_isr_expiration(31000);
  p.apply_isr(*p.proposed_isr());
  CHECK(p.check_acks_all() == error_code::not_enough_replicas);
}

TEST_CASE("acks=all is answered when the high watermark passes the batch") {
  auto p = three_replicas(2);
  p.on_local_append(5);
  p.add_pending({7, 5});
  CHECK(p.take_completed().empty());
  p.on_follower_fetch(1, 5, 10);
  CHECK(p.take_completed().empty()); // follower 2 is in the ISR too
  p.on_follower_fetch(2, 5, 10);
  auto done = p.take_completed();
  REQUIRE(done.size() == 1);
  CHECK(done[0].id == 7);
  CHECK(done[0].error == error_code::none);
}

TEST_CASE("acks=all gets NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR "
          "shrinks below min.insync.replicas while it waits") {
  auto p = three_replicas(2);
  p.on_local_append(5);
  p.add_pending({1, 5});
  p.on_isr_expiration(31000);
  p.apply_isr(*p.proposed_isr());
  auto done = p.take_completed();
  REQUIRE(done.size() == 1);
  CHECK(done[0].error == error_code::not_enough_replicas_after_append);
}

TEST_CASE("an acks=all produce that times out is removed once") {
  auto p = three_replicas(2);
  p.on_local_append(5);
  p.add_pending({3, 5});
  CHECK(p.expire_pending(3));
  CHECK_FALSE(p.expire_pending(3));
  p.on_follower_fetch(1, 5, 1);
  p.on_follower_fetch(2, 5, 1);
  CHECK(p.take_completed().empty());
}

TEST_CASE("a replica being added to the ISR holds the high watermark "
          "before the controller stored it") {
  auto p = three_replicas(1);
  p.on_local_append(10);
  p.on_isr_expiration(40000); // both followers silent
  p.apply_isr(*p.proposed_isr());
  REQUIRE(p.isr() == ids({0}));
  REQUIRE(p.high_watermark() == 10);
  p.on_follower_fetch(2, 10, 40001); // caught up to the HW: proposed
  REQUIRE(p.proposed_isr());
  p.on_local_append(20);
  CHECK(p.high_watermark() == 10); // Kafka's maximal ISR includes 2
  p.on_follower_fetch(2, 20, 40002);
  CHECK(p.high_watermark() == 20);
}

TEST_CASE("randomized: the high watermark never decreases and never passes "
          "an in-sync replica's LEO") {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 200; ++round) {
    auto p = three_replicas(1 + static_cast<int32_t>(rng() % 3), 1000);
    int64_t now = 0, leo = 0, f1 = 0, f2 = 0, hw = 0;
    for (int step = 0; step < 300; ++step) {
      now += rng() % 200;
      switch (rng() % 5) {
        case 0:
          leo += rng() % 5;
          p.on_local_append(leo);
          break;
        case 1:
          f1 = std::min<int64_t>(leo, f1 + rng() % 6);
          p.on_follower_fetch(1, f1, now);
          break;
        case 2:
          f2 = std::min<int64_t>(leo, f2 + rng() % 6);
          p.on_follower_fetch(2, f2, now);
          break;
        case 3:
          p.on_isr_expiration(now);
          break;
        case 4:
          if (p.proposed_isr())
            p.apply_isr(*p.proposed_isr());
          break;
      }
      CHECK(p.high_watermark() >= hw);
      hw = p.high_watermark();
      CHECK(hw <= leo);
      for (auto id : p.isr()) {
        if (id == 1)
          CHECK(hw <= std::max<int64_t>(f1, 0));
        if (id == 2)
          CHECK(hw <= std::max<int64_t>(f2, 0));
      }
    }
  }
}

// -- leader epochs -------------------------------------------------------------------

TEST_CASE("end offset for an epoch is where the next epoch starts") {
  leader_epoch_cache c;
  c.assign(1, 0);
  c.assign(3, 100);
  c.assign(4, 250);
  CHECK(c.end_offset_for(4, 300) == std::make_pair(4, int64_t{300}));
  CHECK(c.end_offset_for(3, 300) == std::make_pair(3, int64_t{250}));
  // Epoch 2 was never ours: the floor epoch 1 ends where 3 starts.
  CHECK(c.end_offset_for(2, 300) == std::make_pair(1, int64_t{100}));
  CHECK(c.end_offset_for(0, 300) == std::make_pair(0, int64_t{0}));
  CHECK(c.end_offset_for(5, 300).first == undefined_epoch);
}

TEST_CASE("a follower of a deposed leader truncates its divergent tail") {
  // Old leader (epoch 1) wrote 0..119; the follower got up to 119 too but
  // the new leader (epoch 2) only had 0..99 when elected and wrote from 100.
  leader_epoch_cache new_leader;
  new_leader.assign(1, 0);
  new_leader.assign(2, 100);
  leader_epoch_cache follower;
  follower.assign(1, 0);
  auto answer = new_leader.end_offset_for(follower.latest_epoch(), 150);
  CHECK(answer == std::make_pair(1, int64_t{100}));
  CHECK(follower_truncation_offset(follower, answer, 120, 90) == 100);
}

TEST_CASE("a follower that is behind the new leader truncates nothing") {
  leader_epoch_cache leader;
  leader.assign(1, 0);
  leader.assign(2, 100);
  leader_epoch_cache follower;
  follower.assign(1, 0);
  auto answer = leader.end_offset_for(1, 150);
  CHECK(follower_truncation_offset(follower, answer, 80, 80) == 80);
}

TEST_CASE("truncating the log forgets the epochs that began after it") {
  leader_epoch_cache c;
  c.assign(1, 0);
  c.assign(2, 50);
  c.assign(3, 80);
  c.truncate_from_end(60);
  CHECK(c.latest_epoch() == 2);
  c.truncate_from_start(55);
  REQUIRE(c.entries().size() == 1);
  CHECK(c.entries().at(2) == 55);
  c.assign(2, 90); // not newer: ignored
  CHECK(c.entries().at(2) == 55);
}
