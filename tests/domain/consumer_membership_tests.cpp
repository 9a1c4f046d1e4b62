// The member's side of KIP-848 (Kafka's ConsumerMembershipManager and the
// heartbeat fields of ConsumerHeartbeatRequestManager), alone and against
// the plain consumer group it talks to.

#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "domain/consumer_group/membership.hpp"
#include "tests/domain/consumer_group_fixture.hpp"

using namespace troupe;
using troupe::test::make_topic;

namespace {

const topic_info orders = make_topic("orders", 4);

membership_config config_of(std::optional<std::string> instance = {}) {
  membership_config c;
  c.group_id = "g";
  c.topics = {"orders"};
  c.rebalance_timeout_ms = 30000;
  c.instance_id = std::move(instance);
  return c;
}

consumer_group_heartbeat_response
answer(int32_t epoch, std::optional<std::vector<int32_t>> partitions) {
  consumer_group_heartbeat_response r;
  r.member_id = std::string{"m"};
  r.member_epoch = epoch;
  r.heartbeat_interval_ms = 5000;
  if (partitions) {
    consumer_group_assignment a;
    if (!partitions->empty())
      a.topic_partitions.push_back({orders.id, orders.name, *partitions});
    r.assignment = std::move(a);
  }
  return r;
}

consumer_group_heartbeat_response failure(error_code e) {
  consumer_group_heartbeat_response r;
  r.error = e;
  return r;
}

std::vector<topic_partition> tps(std::initializer_list<int32_t> ps) {
  std::vector<topic_partition> out;
  for (auto p : ps)
    out.push_back({"orders", p});
  return out;
}

/// Joins and reconciles `partitions` at epoch 1.
void join(consumer_membership& m, std::vector<int32_t> partitions) {
  m.next_heartbeat();
  REQUIRE(m.on_heartbeat(answer(1, partitions)) == heartbeat_outcome::ok);
  REQUIRE(m.reconcile());
  m.reconciled();
  m.next_heartbeat();
}

} // namespace

TEST_CASE("a joining member sends every field with epoch 0, later ones only "
          "what changed") {
  consumer_membership m{config_of(), "m"};
  CHECK(m.heartbeat_now());
  auto first = m.next_heartbeat();
  CHECK(first.member_id == "m");
  CHECK(first.member_epoch == 0);
  CHECK(first.rebalance_timeout_ms == 30000);
  REQUIRE(first.subscribed_topic_names);
  CHECK(*first.subscribed_topic_names == std::vector<std::string>{"orders"});
  REQUIRE(first.topic_partitions);
  CHECK(first.topic_partitions->empty());
  REQUIRE(m.on_heartbeat(answer(1, std::vector<int32_t>{0, 1}))
          == heartbeat_outcome::ok);
  CHECK(m.member_epoch() == 1);
  CHECK(m.heartbeat_interval_ms() == 5000);
  CHECK(m.phase() == member_phase::reconciling);
  REQUIRE(m.reconcile());
  m.reconciled();
  auto ack = m.next_heartbeat();
  CHECK(ack.member_epoch == 1);
  CHECK(ack.rebalance_timeout_ms == -1);
  CHECK_FALSE(ack.subscribed_topic_names);
  REQUIRE(ack.topic_partitions);
  CHECK(ack.topic_partitions->at(0).partitions == std::vector<int32_t>{0, 1});
  CHECK(m.phase() == member_phase::stable);
  auto plain = m.next_heartbeat();
  CHECK_FALSE(plain.topic_partitions);
  CHECK_FALSE(plain.subscribed_topic_names);
}

TEST_CASE("a new assignment is reconciled by revoking first, then assigning, "
          "then acknowledging") {
  consumer_membership m{config_of(), "m"};
  join(m, {0, 1});
  REQUIRE(m.on_heartbeat(answer(2, std::vector<int32_t>{1, 2}))
          == heartbeat_outcome::ok);
  CHECK(m.phase() == member_phase::reconciling);
  auto r = m.reconcile();
  REQUIRE(r);
  CHECK(r->revoked == tps({0}));
  CHECK(r->added == tps({2}));
  CHECK(r->assigned == tps({1, 2}));
  // Until the caller is done, the member still owns its old partitions.
  CHECK(m.owned() == tps({0, 1}));
  m.reconciled();
  CHECK(m.owned() == tps({1, 2}));
  CHECK(m.phase() == member_phase::acknowledging);
  CHECK(m.heartbeat_now());
  auto ack = m.next_heartbeat();
  REQUIRE(ack.topic_partitions);
  CHECK(ack.topic_partitions->at(0).partitions == std::vector<int32_t>{1, 2});
}

TEST_CASE("an answer without an assignment keeps the member's partitions") {
  consumer_membership m{config_of(), "m"};
  join(m, {0, 1});
  REQUIRE(m.on_heartbeat(answer(3, std::nullopt)) == heartbeat_outcome::ok);
  CHECK(m.member_epoch() == 3);
  CHECK(m.phase() == member_phase::stable);
  CHECK_FALSE(m.reconcile());
  CHECK(m.owned() == tps({0, 1}));
}

TEST_CASE("a fenced member loses its partitions and joins again with epoch "
          "0 and the same member id") {
  for (auto e :
       {error_code::fenced_member_epoch, error_code::unknown_member_id}) {
    consumer_membership m{config_of(), "m"};
    join(m, {0, 1});
    CHECK(m.on_heartbeat(failure(e)) == heartbeat_outcome::fenced);
    CHECK(m.fence() == tps({0, 1}));
    CHECK(m.phase() == member_phase::joining);
    auto rejoin = m.next_heartbeat();
    CHECK(rejoin.member_id == "m");
    CHECK(rejoin.member_epoch == 0);
    REQUIRE(rejoin.topic_partitions);
    CHECK(rejoin.topic_partitions->empty());
    CHECK(rejoin.subscribed_topic_names);
  }
}

TEST_CASE("heartbeat errors: coordinator errors retry, others stop the "
          "member") {
  consumer_membership m{config_of(), "m"};
  join(m, {0});
  CHECK(m.on_heartbeat(failure(error_code::not_coordinator))
        == heartbeat_outcome::coordinator_unknown);
  // After an error every field goes out again.
  auto full = m.next_heartbeat();
  CHECK(full.rebalance_timeout_ms == 30000);
  CHECK(full.subscribed_topic_names);
  CHECK(full.topic_partitions);
  CHECK(m.on_heartbeat(failure(error_code::coordinator_load_in_progress))
        == heartbeat_outcome::retry);
  CHECK(m.on_heartbeat(failure(error_code::group_max_size_reached))
        == heartbeat_outcome::fatal);
  CHECK(m.phase() == member_phase::fatal);
  CHECK(m.skip_heartbeat());
}

TEST_CASE("a leaving member gives up its partitions and sends epoch -1, a "
          "static one -2") {
  consumer_membership dynamic{config_of(), "m"};
  join(dynamic, {0, 1});
  CHECK(dynamic.leave() == tps({0, 1}));
  CHECK(dynamic.heartbeat_now());
  auto leave = dynamic.next_heartbeat();
  CHECK(leave.member_epoch == -1);
  CHECK(dynamic.phase() == member_phase::unsubscribed);
  CHECK(dynamic.on_heartbeat(answer(-1, std::nullopt))
        == heartbeat_outcome::left);

  consumer_membership fixed{config_of(std::string{"host-1"}), "m"};
  join(fixed, {2});
  CHECK(fixed.leave() == tps({2}));
  auto temporary = fixed.next_heartbeat();
  CHECK(temporary.member_epoch == -2);
  REQUIRE(temporary.instance_id);
  CHECK(*temporary.instance_id == "host-1");
}

TEST_CASE("partitions of a topic whose name is unknown wait for the "
          "metadata") {
  consumer_membership m{config_of(), "m"};
  m.next_heartbeat();
  auto r = answer(1, std::vector<int32_t>{0});
  r.assignment->topic_partitions[0].topic_name.clear();
  REQUIRE(m.on_heartbeat(r) == heartbeat_outcome::ok);
  auto first = m.reconcile();
  REQUIRE(first);
  CHECK(first->assigned.empty());
  m.reconciled();
  CHECK(m.unresolved() == std::vector<uuid>{orders.id});
  // The acknowledgement does not take the unnamed partition.
  m.next_heartbeat();
  CHECK(m.phase() == member_phase::reconciling);
  m.learn_topic(orders.id, "orders");
  auto second = m.reconcile();
  REQUIRE(second);
  CHECK(second->assigned == tps({0}));
}

TEST_CASE("members talking to the consumer group never own a partition "
          "twice and converge on one epoch") {
  group_config cfg;
  // The clock stands still here: the assignor runs on every change.
  cfg.consumer_assignment_interval_ms = 0;
  consumer_group g{"g", cfg, 1};
  g.update_topics({orders});
  std::map<std::string, consumer_membership> members;
  std::map<std::string, std::set<int32_t>> owned;
  auto check_exclusive = [&] {
    std::map<int32_t, int> count;
    for (auto& [id, ps] : owned)
      for (auto p : ps)
        CHECK(++count[p] == 1);
  };
  auto step = [&](const std::string& id) {
    auto& m = members.at(id);
    auto req = m.next_heartbeat();
    auto res = g.heartbeat(req, 0);
    g.take_effects();
    if (m.on_heartbeat(res) != heartbeat_outcome::ok)
      return;
    if (auto r = m.reconcile()) {
      for (auto& tp : r->revoked)
        owned[id].erase(tp.partition);
      check_exclusive();
      for (auto& tp : r->assigned)
        owned[id].insert(tp.partition);
      check_exclusive();
      m.reconciled();
    }
  };
  for (auto id : {"a", "b", "c"})
    members.emplace(id, consumer_membership{config_of(), id});
  for (int round = 0; round < 6; ++round)
    for (auto& [id, m] : members)
      step(id);
  int32_t epoch = -1;
  size_t total = 0;
  for (auto& [id, m] : members) {
    CHECK(m.phase() == member_phase::stable);
    if (epoch >= 0)
      CHECK(m.member_epoch() == epoch);
    epoch = m.member_epoch();
    total += owned[id].size();
  }
  CHECK(total == 4);
  CHECK(g.state() == consumer_group_state::stable);
  // One leaves: the others take its partitions over.
  auto& c = members.at("c");
  for (auto& tp : c.leave())
    owned["c"].erase(tp.partition);
  g.heartbeat(c.next_heartbeat(), 0);
  g.take_effects();
  members.erase("c");
  for (int round = 0; round < 4; ++round)
    for (auto& [id, m] : members)
      step(id);
  CHECK(owned["a"].size() + owned["b"].size() == 4);
  CHECK(g.state() == consumer_group_state::stable);
}
