// Idempotent producers (KIP-98) on the embedded three-broker node with real
// temporary log directories, driven deterministically: a retried batch is
// stored once, also when the leader changed between the two tries
// (docs/ARCHITECTURE.md §4).

#include <catch2/catch.hpp>

#include "actors/node.hpp"
#include "domain/log/record_batch.hpp"
#include "tests/actors/record_values.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;
using troupe::test::batch_of;
using troupe::test::values_of;

namespace {

struct idempotence_fixture : test::sim_fixture {
  test::temp_dir dir;
  cluster_config config;
  embedded_node node;
  topic_partition tp{"t", 0};

  idempotence_fixture() {
    config.seed = 7;
    config.log_dirs = dir.path;
    config.detached_io = false;
    config.offsets_topic_num_partitions = 3;
    config.min_insync_replicas = 2;
    config.group.initial_rebalance_delay_ms = 0;
    node = spawn_embedded_node(sys, config, listener);
    run();
    auto created = ask<create_topics_response>(
      node.controller, create_topics_request{{{"t", 1, 3}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
    advance(200, 10);
  }

  ~idempotence_fixture() {
    stop_embedded_node(node);
    run();
  }

  partition_metadata state() {
    auto md = ask<metadata_response>(node.controller,
                                     metadata_request{{tp.topic}, false});
    return md.get().topics.at(0).partition_states.at(0);
  }

  broker_actor leader() {
    return node.brokers.at(static_cast<size_t>(state().leader));
  }

  produce_response produce(bytes batch, int16_t acks = -1) {
    auto p =
      ask<produce_response>(leader(), produce_request{tp, acks, 30000, batch});
    REQUIRE(p.ready());
    return p.get();
  }

  std::vector<std::string> consume() {
    std::vector<std::string> out;
    int64_t offset = 0;
    for (;;) {
      auto f = ask<fetch_response>(
        leader(), fetch_request{tp, -1, offset, 1 << 20, 0, 1, -1});
      REQUIRE(f.ready());
      REQUIRE(f.get().error == error_code::none);
      auto vs = values_of(f.get().records);
      if (vs.empty())
        return out;
      offset += static_cast<int64_t>(vs.size());
      out.insert(out.end(), vs.begin(), vs.end());
    }
  }

  void stop_broker(int32_t id) {
    auto res =
      ask<leadership_update>(node.controller, broker_status_change{id, false});
    REQUIRE(res.ready());
    advance(200, 10);
  }
};

using strings = std::vector<std::string>;

} // namespace

TEST_CASE("a batch retried after its acknowledgement was lost is stored once "
          "and answered with its original offset") {
  idempotence_fixture fx;
  auto first = batch_of({"a", "b", "c"}, 4000, 0, 0);
  auto original = fx.produce(first);
  REQUIRE(original.error == error_code::none);
  CHECK(original.base_offset == 0);
  // The producer never saw that answer and sends the batch again.
  auto retry = fx.produce(first);
  CHECK(retry.error == error_code::none);
  CHECK(retry.base_offset == 0);
  auto next = fx.produce(batch_of({"d"}, 4000, 0, 3));
  CHECK(next.base_offset == 3);
  CHECK(fx.consume() == strings{"a", "b", "c", "d"});
}

TEST_CASE("a retry that arrives while the original is still being appended "
          "waits for it and gets the same offset") {
  idempotence_fixture fx;
  auto batch = batch_of({"a", "b"}, 4001, 0, 0);
  auto to = fx.leader();
  produce_request req{fx.tp, -1, 30000, batch};
  // Both reach the leader before its log manager appended the first.
  auto p1 = std::make_shared<std::optional<produce_response>>();
  auto p2 = std::make_shared<std::optional<produce_response>>();
  fx.sys.spawn([=](caf::event_based_actor* self) {
    self->request(to, std::chrono::seconds(3600), req)
      .then([=](produce_response& r) { *p1 = r; });
    self->request(to, std::chrono::seconds(3600), req)
      .then([=](produce_response& r) { *p2 = r; });
  });
  fx.run();
  fx.advance(100, 10);
  REQUIRE(*p1);
  REQUIRE(*p2);
  CHECK((*p1)->error == error_code::none);
  CHECK((*p2)->error == error_code::none);
  CHECK((*p1)->base_offset == 0);
  CHECK((*p2)->base_offset == 0);
  CHECK(fx.consume() == strings{"a", "b"});
}

TEST_CASE("a batch retried after the leader changed is stored once: the new "
          "leader rebuilds the producer state from its log") {
  idempotence_fixture fx;
  auto first = batch_of({"a", "b"}, 4002, 0, 0);
  auto second = batch_of({"c"}, 4002, 0, 2);
  REQUIRE(fx.produce(first).error == error_code::none);
  REQUIRE(fx.produce(second).base_offset == 2);
  auto old_leader = fx.state().leader;
  fx.stop_broker(old_leader);
  REQUIRE(fx.state().leader != old_leader);
  REQUIRE(fx.state().leader >= 0);
  // The answer to `second` was lost with the old leader: the retry goes to
  // the new one, which finds the batch in its log.
  auto retry = fx.produce(second);
  CHECK(retry.error == error_code::none);
  CHECK(retry.base_offset == 2);
  // An older retained batch is a duplicate too, and the sequence goes on.
  CHECK(fx.produce(first).base_offset == 0);
  CHECK(fx.produce(batch_of({"d"}, 4002, 0, 3)).base_offset == 3);
  CHECK(fx.consume() == strings{"a", "b", "c", "d"});
}

TEST_CASE("a sequence gap is refused with OUT_OF_ORDER_SEQUENCE_NUMBER and "
          "an older producer epoch with INVALID_PRODUCER_EPOCH") {
  idempotence_fixture fx;
  REQUIRE(fx.produce(batch_of({"a"}, 4003, 2, 0)).error == error_code::none);
  auto gap = fx.produce(batch_of({"b"}, 4003, 2, 5));
  CHECK(gap.error == error_code::out_of_order_sequence_number);
  CHECK_FALSE(gap.error_message.empty());
  CHECK(fx.produce(batch_of({"b"}, 4003, 1, 1)).error
        == error_code::invalid_producer_epoch);
  // A producer without an id is not checked at all.
  CHECK(
    fx.produce(encode_batch(0, 0, {{std::nullopt, bytes{'x'}, 1000, {}}})).error
    == error_code::none);
  CHECK(fx.consume() == strings{"a", "x"});
}
