// The controller's metadata: Kafka's replica assignment, leader election on
// broker failure, and AlterIsr validation.

#include <algorithm>

#include <catch2/catch.hpp>

#include "domain/replication/cluster_metadata.hpp"

using namespace troupe;

namespace {

cluster_metadata with_brokers(int n) {
  cluster_metadata m;
  for (int i = 0; i < n; ++i)
    m.register_broker(i);
  return m;
}

std::vector<int32_t> v(std::initializer_list<int32_t> xs) {
  return xs;
}

} // namespace

TEST_CASE("replica assignment follows Kafka's AdminUtils example") {
  // AdminUtils.assignReplicasToBrokers javadoc: 5 brokers, 10 partitions,
  // replication factor 3, start index 0.
  auto m = with_brokers(5);
  REQUIRE(m.create_topic("t", 10, 3) == error_code::none);
  auto r = [&](int p) { return m.partition({"t", p})->replicas; };
  CHECK(r(0) == v({0, 1, 2}));
  CHECK(r(1) == v({1, 2, 3}));
  CHECK(r(4) == v({4, 0, 1}));
  CHECK(r(5) == v({0, 2, 3}));
  CHECK(r(9) == v({4, 1, 2}));
  for (int p = 0; p < 10; ++p) {
    CHECK(m.partition({"t", p})->leader == r(p).front());
    CHECK(m.partition({"t", p})->isr == r(p));
  }
}

TEST_CASE("topic creation refuses bad partition counts, replication factors "
          "and names") {
  auto m = with_brokers(3);
  CHECK(m.create_topic("t", 0, 1) == error_code::invalid_partitions);
  CHECK(m.create_topic("t", 3, 4) == error_code::invalid_replication_factor);
  CHECK(m.create_topic("t", 3, 0) == error_code::invalid_replication_factor);
  CHECK(m.create_topic("bad name!", 3, 1)
        == error_code::invalid_topic_exception);
  CHECK(m.create_topic("t", 3, 3) == error_code::none);
  CHECK(m.create_topic("t", 3, 3) == error_code::topic_already_exists);
}

TEST_CASE("a stopped leader is replaced by the first live ISR replica in "
          "assignment order with leader epoch + 1") {
  auto m = with_brokers(3);
  m.create_topic("t", 3, 3);
  auto before = *m.partition({"t", 0}); // replicas {0, 1, 2}
  auto changes = m.broker_stopped(0, false);
  REQUIRE(changes.size() == 3); // one new leader, two ISR shrinks
  auto& p = *m.partition({"t", 0});
  CHECK(p.leader == 1);
  CHECK(p.leader_epoch == before.leader_epoch + 1);
  CHECK(p.partition_epoch == before.partition_epoch + 1);
  // Partitions the stopped broker only followed keep their leader.
  CHECK(m.partition({"t", 1})->leader == 1);
  CHECK(m.partition({"t", 2})->leader == 2);
}

TEST_CASE("without unclean election a partition whose ISR is gone goes "
          "offline, and comes back with its ISR replica") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 2); // replicas {0, 1}
  REQUIRE(m.alter_isr({"t", 0}, 0, 0, 0, {0}) == error_code::none);
  m.broker_stopped(0, false);
  CHECK(m.partition({"t", 0})->leader == -1);
  m.broker_started(1, false); // alive already, not in the ISR
  CHECK(m.partition({"t", 0})->leader == -1);
  auto changes = m.broker_started(0, false);
  REQUIRE(changes.size() == 1);
  CHECK(m.partition({"t", 0})->leader == 0);
  CHECK(m.partition({"t", 0})->leader_epoch == 2);
}

TEST_CASE("unclean.leader.election.enable lets a live out-of-sync replica "
          "lead") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 2);
  m.alter_isr({"t", 0}, 0, 0, 0, {0});
  m.broker_stopped(0, true);
  CHECK(m.partition({"t", 0})->leader == 1);
  CHECK(m.partition({"t", 0})->isr == v({1}));
}

TEST_CASE("an ISR change from a stale leader epoch or version is refused") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3);
  auto p = *m.partition({"t", 0});
  CHECK(m.alter_isr({"t", 0}, 1, p.leader_epoch, p.partition_epoch, {0, 1})
        == error_code::not_leader_or_follower);
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch + 1, {0, 1})
        == error_code::invalid_update_version);
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch, {1})
        == error_code::invalid_request); // the leader must stay in its ISR
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch, {0, 7})
        == error_code::invalid_request);
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch, {0, 1})
        == error_code::none);
  CHECK(m.partition({"t", 0})->isr == v({0, 1}));
  m.broker_stopped(0, false);
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch + 1, {0, 1})
        == error_code::fenced_leader_epoch);
  CHECK(m.alter_isr({"nope", 0}, 0, 0, 0, {0})
        == error_code::unknown_topic_or_partition);
}

TEST_CASE("a stopped follower leaves the ISR of every partition at once and "
          "the leaders keep their epoch") {
  auto m = with_brokers(3);
  m.create_topic("t", 3, 3);
  std::vector<partition_state> before;
  for (int p = 0; p < 3; ++p)
    before.push_back(*m.partition({"t", p}));
  auto changes = m.broker_stopped(2, false);
  CHECK(changes.size() == 3); // broker 2 hosts a replica of each partition
  for (int p = 0; p < 3; ++p) {
    auto& now = *m.partition({"t", p});
    INFO("partition " << p);
    CHECK(std::find(now.isr.begin(), now.isr.end(), 2) == now.isr.end());
    CHECK(now.isr.size() == 2);
    CHECK(now.partition_epoch == before[p].partition_epoch + 1);
    if (before[p].leader != 2) {
      CHECK(now.leader == before[p].leader);
      CHECK(now.leader_epoch == before[p].leader_epoch);
    } else {
      CHECK(now.leader != 2);
      CHECK(now.leader_epoch == before[p].leader_epoch + 1);
    }
  }
}

TEST_CASE("a stopped leader's partition gets a new leader and an ISR "
          "without it") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3); // replicas {0, 1, 2}
  m.broker_stopped(0, false);
  auto& p = *m.partition({"t", 0});
  CHECK(p.leader == 1);
  CHECK(p.isr == v({1, 2}));
  CHECK(p.replicas == v({0, 1, 2})); // the assignment itself stays
}

TEST_CASE("stopping the only ISR member leaves the partition offline with "
          "that ISR, its return brings it back as leader") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3);
  m.broker_stopped(2, false);
  m.broker_stopped(1, false);
  CHECK(m.partition({"t", 0})->isr == v({0}));
  CHECK(m.partition({"t", 0})->leader == 0);
  auto epoch = m.partition({"t", 0})->leader_epoch;
  m.broker_stopped(0, false);
  CHECK(m.partition({"t", 0})->leader == -1);
  CHECK(m.partition({"t", 0})->isr == v({0}));
  // Replicas that were not in sync do not lead without unclean election.
  CHECK(m.broker_started(1, false).empty());
  CHECK(m.partition({"t", 0})->leader == -1);
  auto changes = m.broker_started(0, false);
  REQUIRE(changes.size() == 1);
  CHECK(m.partition({"t", 0})->leader == 0);
  CHECK(m.partition({"t", 0})->leader_epoch == epoch + 2);
  CHECK(m.partition({"t", 0})->isr == v({0}));
}

TEST_CASE("an ISR expansion naming a stopped broker is refused with "
          "INELIGIBLE_REPLICA") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3);
  m.broker_stopped(2, false);
  auto p = *m.partition({"t", 0});
  REQUIRE(p.isr == v({0, 1}));
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch, {0, 1, 2})
        == error_code::ineligible_replica);
  m.broker_started(2, false);
  CHECK(m.alter_isr({"t", 0}, 0, p.leader_epoch, p.partition_epoch, {0, 1, 2})
        == error_code::none);
}

TEST_CASE("liveness follows the registered brokers: gone ones fail over, "
          "returning ones lead their offline partitions again") {
  auto m = with_brokers(3);
  m.create_topic("t", 3, 3);
  auto before = m;
  m.sync_liveness({0, 1}, false); // broker 2's registration is gone
  CHECK_FALSE(m.is_alive(2));
  auto changed = changed_partitions(before, m);
  CHECK(changed.size() == 3);
  for (int p = 0; p < 3; ++p) {
    auto& isr = m.partition({"t", p})->isr;
    CHECK(std::find(isr.begin(), isr.end(), 2) == isr.end());
  }
  auto again = m;
  m.sync_liveness({0, 1}, false);
  CHECK(changed_partitions(again, m).empty()); // idempotent
  m.sync_liveness({0, 1, 2}, false);
  CHECK(m.is_alive(2));
}

TEST_CASE("a broker only named in a replica list counts as alive until the "
          "registrations say otherwise") {
  std::map<std::string, std::vector<partition_state>> topics;
  partition_state p;
  p.replicas = {4, 5};
  p.leader = 4;
  p.isr = {4, 5};
  topics["t"] = {p};
  auto m = cluster_metadata::restore({}, topics);
  m.sync_liveness({5}, false);
  CHECK(m.partition({"t", 0})->leader == 5);
  CHECK(m.partition({"t", 0})->isr == v({5}));
}

TEST_CASE("auto leader rebalance: a broker leading none of its preferred "
          "partitions is over leader.imbalance.per.broker.percentage and gets "
          "them back once in the ISR") {
  auto m = with_brokers(3);
  m.create_topic("t", 6, 3); // broker b is preferred for partitions b, b+3
  m.sync_liveness({0, 1}, false); // broker 2 fails over
  CHECK(imbalanced_partitions(m, 10).empty()); // 2 is not alive
  m.sync_liveness({0, 1, 2}, false);
  // Back, but not yet in any ISR (its replicas have to catch up first).
  CHECK(imbalanced_partitions(m, 10).empty());
  for (int p : {2, 5}) {
    auto s = *m.partition({"t", p});
    REQUIRE(s.leader != 2);
    REQUIRE(m.alter_isr({"t", p}, s.leader, s.leader_epoch, s.partition_epoch,
                        v({0, 1, 2}))
            == error_code::none);
  }
  auto moving = imbalanced_partitions(m, 10);
  std::sort(moving.begin(), moving.end());
  CHECK(moving == std::vector<topic_partition>{{"t", 2}, {"t", 5}});
  std::vector<partition_change> elected;
  for (auto& tp : moving)
    CHECK(m.elect_preferred(tp, elected) == error_code::none);
  CHECK(m.partition({"t", 2})->leader == 2);
  CHECK(imbalanced_partitions(m, 10).empty());
}

TEST_CASE("auto leader rebalance: an imbalance at or under the percentage "
          "moves nothing, and topics being deleted are left out") {
  auto m = with_brokers(2);
  m.create_topic("t", 4, 2); // broker 0 prefers t-0 and t-2
  m.sync_liveness({1}, false);
  m.sync_liveness({0, 1}, false);
  for (int p : {0, 2}) {
    auto q = *m.partition({"t", p});
    REQUIRE(q.leader == 1); // failed over and stayed
    REQUIRE(m.alter_isr({"t", p}, 1, q.leader_epoch, q.partition_epoch,
                        v({1, 0}))
            == error_code::none);
  }
  // Broker 0 leads none of its 2 preferred partitions: 100 %.
  CHECK(imbalanced_partitions(m, 100).empty()); // "above", never at
  CHECK(imbalanced_partitions(m, 99).size() == 2);
  CHECK(imbalanced_partitions(m, 99, {"t"}).empty());
  // Broker 1 leads all of its own: it is never a candidate.
  for (auto& tp : imbalanced_partitions(m, 0))
    CHECK(m.partition(tp)->replicas.front() == 0);
}

// -- partition reassignment (KIP-455) ---------------------------------------------

namespace {

/// The leader adds `id` to the ISR of `tp`, as its AlterIsr would once the
/// new replica caught up.
void catch_up(cluster_metadata& m, const topic_partition& tp, int32_t id) {
  auto s = *m.partition(tp);
  auto isr = s.isr;
  isr.push_back(id);
  REQUIRE(m.alter_isr(tp, s.leader, s.leader_epoch, s.partition_epoch, isr)
          == error_code::none);
}

} // namespace

TEST_CASE("a reassignment adds the target replicas first, completes once they "
          "are in the ISR, moves leadership off a removed leader and drops "
          "the removed replicas") {
  auto m = with_brokers(4);
  m.create_topic("t", 1, 3); // replicas {0, 1, 2}, leader 0
  std::string message;
  std::vector<partition_change> changes;
  auto before = *m.partition({"t", 0});
  REQUIRE(m.reassign({"t", 0}, {1, 2, 3}, message, changes)
          == error_code::none);
  auto moving = *m.partition({"t", 0});
  // Kafka's ReplicaAssignment: the target, then the original replicas not in
  // it; the leader stays and every replica hears of the new set.
  CHECK(moving.replicas == v({1, 2, 3, 0}));
  CHECK(moving.adding == v({3}));
  CHECK(moving.removing == v({0}));
  CHECK(moving.leader == 0);
  CHECK(moving.isr == v({0, 1, 2}));
  CHECK(moving.leader_epoch == before.leader_epoch + 1);
  CHECK(moving.target_replicas() == v({1, 2, 3}));
  // Kafka's originReplicas (replicas diff addingReplicas): the original
  // set, in the order the moving replica list holds it.
  CHECK(moving.original_replicas() == v({1, 2, 0}));
  CHECK_FALSE(m.complete_reassignments(changes)); // 3 is not in the ISR yet
  catch_up(m, {"t", 0}, 3);
  changes.clear();
  CHECK(m.complete_reassignments(changes));
  auto done = *m.partition({"t", 0});
  CHECK(done.replicas == v({1, 2, 3}));
  CHECK_FALSE(done.reassigning());
  CHECK(done.leader == 1); // the first target replica in the ISR
  CHECK(done.isr == v({1, 2, 3}));
  CHECK(done.leader_epoch == moving.leader_epoch + 1);
  CHECK(changes.size() == 1);
}

TEST_CASE("a reassignment whose target is already in the ISR completes at once "
          "and keeps a leader that stays a replica") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3); // {0, 1, 2}
  std::string message;
  std::vector<partition_change> changes;
  REQUIRE(m.reassign({"t", 0}, {0, 1}, message, changes) == error_code::none);
  auto p = *m.partition({"t", 0});
  CHECK(p.replicas == v({0, 1}));
  CHECK(p.isr == v({0, 1}));
  CHECK(p.leader == 0);
  CHECK_FALSE(p.reassigning());
  // The same replicas again: nothing to do, no new epoch.
  changes.clear();
  REQUIRE(m.reassign({"t", 0}, {0, 1}, message, changes) == error_code::none);
  CHECK(changes.empty());
  CHECK(m.partition({"t", 0})->leader_epoch == p.leader_epoch);
}

TEST_CASE("a reassignment is refused with Kafka's errors: unknown partition, "
          "empty or duplicate replicas, an unknown broker") {
  auto m = with_brokers(3);
  m.create_topic("t", 1, 3);
  std::string message;
  std::vector<partition_change> changes;
  CHECK(m.reassign({"t", 1}, {0}, message, changes)
        == error_code::unknown_topic_or_partition);
  CHECK(m.reassign({"u", 0}, {0}, message, changes)
        == error_code::unknown_topic_or_partition);
  CHECK(m.reassign({"t", 0}, {}, message, changes)
        == error_code::invalid_replica_assignment);
  CHECK(message.find("empty replica list") != std::string::npos);
  CHECK(m.reassign({"t", 0}, {0, 1, 0}, message, changes)
        == error_code::invalid_replica_assignment);
  CHECK(m.reassign({"t", 0}, {0, 7}, message, changes)
        == error_code::invalid_replica_assignment);
  CHECK(message.find("broker 7") != std::string::npos);
  CHECK(changes.empty());
  CHECK(m.cancel_reassignment({"t", 0}, changes)
        == error_code::no_reassignment_in_progress);
}

TEST_CASE("a reassignment replaced by another keeps the original replicas, "
          "drops the replicas it no longer adds from the ISR, and a cancel "
          "goes back to the original") {
  auto m = with_brokers(6);
  m.create_topic("t", 1, 3, 0); // {0, 1, 2}
  std::string message;
  std::vector<partition_change> changes;
  REQUIRE(m.reassign({"t", 0}, {3, 4, 5}, message, changes)
          == error_code::none);
  catch_up(m, {"t", 0}, 4);
  REQUIRE(m.reassign({"t", 0}, {0, 1, 3}, message, changes)
          == error_code::none);
  auto p = *m.partition({"t", 0});
  // The original is still {0, 1, 2}: 3 is being added, 2 removed; 4 and 5
  // are no replicas any more, and 4 left the ISR.
  CHECK(p.replicas == v({0, 1, 3, 2}));
  CHECK(p.adding == v({3}));
  CHECK(p.removing == v({2}));
  CHECK(p.isr == v({0, 1, 2}));
  REQUIRE(m.cancel_reassignment({"t", 0}, changes) == error_code::none);
  p = *m.partition({"t", 0});
  CHECK(p.replicas == v({0, 1, 2}));
  CHECK_FALSE(p.reassigning());
  CHECK(p.isr == v({0, 1, 2}));
  CHECK(p.leader == 0);
}

TEST_CASE("a reassignment waits while no target replica can lead, and a "
          "stopped broker leaves the ISR of a moving partition as of any "
          "other") {
  auto m = with_brokers(4);
  m.create_topic("t", 1, 2, 0); // {0, 1}
  std::string message;
  std::vector<partition_change> changes;
  REQUIRE(m.reassign({"t", 0}, {2, 3}, message, changes) == error_code::none);
  catch_up(m, {"t", 0}, 2);
  m.sync_liveness({0, 1, 3}, false); // broker 2 stops: out of the ISR
  CHECK(m.partition({"t", 0})->isr == v({0, 1}));
  changes.clear();
  CHECK_FALSE(m.complete_reassignments(changes));
  CHECK(m.partition({"t", 0})->reassigning());
}
