// Kafka's offsets expiry (KIP-211) through the group service and both kinds
// of coordinator, on the embedded three-broker node with real temporary log
// directories in simulated time: the expiry timer of each led
// __consumer_offsets partition (offsets.retention.check.interval.ms), the
// tombstones it writes, and what a coordinator that replays the partition
// afterwards finds.

#include <catch2/catch.hpp>

#include <algorithm>

#include "actors/node.hpp"
#include "domain/consumer_protocol.hpp"
#include "domain/java_hash.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

constexpr int64_t retention_ms = 60000;
constexpr int64_t check_ms = 1000;

struct expiry_fixture : test::sim_fixture {
  test::temp_dir dir;
  cluster_config config;
  embedded_node node;

  expiry_fixture() {
    config.seed = 7;
    // Small __consumer_offsets segments and an eager cleaner: compaction
    // runs while the tests wait.
    config.offsets_topic_segment_bytes = 2048;
    config.log_cleaner_backoff_ms = 200;
    config.log.min_cleanable_dirty_ratio = 0.01;
    config.log.delete_retention_ms = 1000;
    config.log_dirs = dir.path;
    config.detached_io = false;
    // One offsets partition: every group shares it, and its expiry run.
    config.offsets_topic_num_partitions = 1;
    config.min_insync_replicas = 1;
    config.group.initial_rebalance_delay_ms = 0;
    config.group.offsets_retention_ms = retention_ms;
    config.group.offsets_retention_check_interval_ms = check_ms;
    start();
    auto created = ask<create_topics_response>(
      node.controller, create_topics_request{{{"t", 2, 3}}});
    REQUIRE(created.get().topics.at(0).error == error_code::none);
    advance(300, 10);
  }

  ~expiry_fixture() {
    stop();
  }

  void start() {
    node = spawn_embedded_node(sys, config, listener);
    run();
  }

  void stop() {
    stop_embedded_node(node);
    run();
  }

  int32_t coordinator() {
    auto md = ask<metadata_response>(node.controller,
                                     metadata_request{{offsets_topic}, false});
    return md.get().topics.at(0).partition_states.at(0).leader;
  }

  broker_actor broker() {
    return node.brokers.at(static_cast<size_t>(coordinator()));
  }

  /// Simulated time in steps that keep the node's own timers going.
  void wait(int64_t total_ms) {
    advance(total_ms, 50);
  }

  /// The committed offset of a group's partition, -1 for none; asked until
  /// a coordinator that is loading the partition has finished.
  int64_t committed(const std::string& group, int32_t partition = 0) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto f = ask<offset_fetch_response>(
        broker(), offset_fetch_request{group, {{"t", partition}}});
      REQUIRE(f.ready());
      if (f.get().error == error_code::coordinator_load_in_progress
          || f.get().error == error_code::not_coordinator) {
        advance(10, 10);
        continue;
      }
      REQUIRE(f.get().error == error_code::none);
      return f.get().partitions.at(0).offset;
    }
    FAIL("the coordinator never answered OffsetFetch for " << group);
    return -2;
  }

  std::vector<std::string> listed() {
    auto l = ask<list_groups_response>(broker(), list_groups_request{});
    REQUIRE(l.ready());
    std::vector<std::string> ids;
    for (auto& g : l.get().groups)
      ids.push_back(g.group_id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  bool is_listed(const std::string& group) {
    auto ids = listed();
    return std::find(ids.begin(), ids.end(), group) != ids.end();
  }

  void commit(const std::string& group, int32_t partition, int64_t offset,
              int32_t generation = -1, const std::string& member = "") {
    auto c = ask<offset_commit_response>(
      broker(),
      offset_commit_request{
        group, generation, member, "", {{"t", partition, offset, -1, ""}}});
    REQUIRE(c.ready());
    REQUIRE(c.get().partitions.at(0).error == error_code::none);
  }

  /// A classic consumer group of one member (subscribed to t, a session
  /// far longer than the test's steps), Stable; its member id and
  /// generation.
  std::pair<std::string, int32_t> stable_group(const std::string& group) {
    consumer_subscription sub;
    sub.topics = {"t"};
    join_group_request join;
    join.group_id = group;
    join.protocol_type = "consumer";
    join.protocols = {{"range", encode_subscription(sub)}};
    join.session_timeout_ms = 600000;
    join.rebalance_timeout_ms = 10000;
    join.require_known_member_id = false;
    auto j = ask<join_group_response>(broker(), join);
    REQUIRE(j.ready());
    REQUIRE(j.get().error == error_code::none);
    auto s = ask<sync_group_response>(
      broker(),
      sync_group_request{
        group, j.get().generation_id, j.get().member_id, "", "", "", {}});
    REQUIRE(s.ready());
    REQUIRE(s.get().error == error_code::none);
    return {j.get().member_id, j.get().generation_id};
  }

  void leave(const std::string& group, const std::string& member) {
    auto l = ask<leave_group_response>(
      broker(), leave_group_request{group, {{member, ""}}});
    REQUIRE(l.ready());
    REQUIRE(l.get().error == error_code::none);
  }

  void heartbeat(const std::string& group, const std::string& member,
                 int32_t generation) {
    auto h = ask<heartbeat_response>(
      broker(), heartbeat_request{group, generation, member, ""});
    REQUIRE(h.ready());
    REQUIRE(h.get().error == error_code::none);
  }

  /// What a fetch of __consumer_offsets-0 from its start reads: how many
  /// records, and the offset after the last batch. Fewer records than
  /// offsets: the cleaner left holes.
  std::pair<int64_t, int64_t> offsets_topic_records() {
    int64_t count = 0;
    int64_t next = 0;
    for (;;) {
      auto f = ask<fetch_response>(
        broker(), fetch_request{{offsets_topic, 0}, -1, next, 1 << 20, 0, 1,
                                -1});
      REQUIRE(f.ready());
      REQUIRE(f.get().error == error_code::none);
      auto& data = f.get().records;
      if (data.empty())
        return {count, next};
      size_t pos = 0;
      while (pos < data.size()) {
        auto size = next_batch_size(data.data() + pos, data.size() - pos);
        REQUIRE(size);
        auto header = parse_header(data.data() + pos, *size);
        REQUIRE(header);
        count += header->records_count;
        next = header->base_offset + header->last_offset_delta + 1;
        pos += *size;
      }
    }
  }

  /// The coordinator's broker stops; another replica of the partition
  /// takes it over and replays it.
  void move_coordinator() {
    auto old = coordinator();
    auto res =
      ask<leadership_update>(node.controller, broker_status_change{old, false});
    REQUIRE(res.ready());
    run();
    REQUIRE(coordinator() >= 0);
    REQUIRE(coordinator() != old);
  }
};

} // namespace

TEST_CASE("an Empty group's offsets expire offsets.retention.minutes after it "
          "became Empty, counted from then and not from the commit") {
  expiry_fixture fx;
  auto [member, generation] = fx.stable_group("g");
  fx.commit("g", 0, 42, generation, member);
  fx.wait(40000);
  fx.leave("g", member); // Empty 40 s after the commit
  // Past the commit's retention, not the emptiness's.
  fx.wait(retention_ms - 40000 + 5 * check_ms);
  CHECK(fx.committed("g") == 42);
  CHECK(fx.is_listed("g"));
  fx.wait(40000);
  CHECK(fx.committed("g") == -1);
  // Empty with no offsets: Dead and gone.
  CHECK_FALSE(fx.is_listed("g"));
}

TEST_CASE("a Stable group's offsets never expire") {
  expiry_fixture fx;
  auto [member, generation] = fx.stable_group("g");
  fx.commit("g", 0, 7, generation, member);
  for (int i = 0; i < 10; ++i) {
    fx.wait(retention_ms / 2);
    fx.heartbeat("g", member, generation);
  }
  CHECK(fx.committed("g") == 7);
  CHECK(fx.is_listed("g"));
}

TEST_CASE("standalone commits expire counted from each commit") {
  expiry_fixture fx;
  fx.commit("solo", 0, 10);
  fx.wait(30000);
  fx.commit("solo", 1, 20);
  fx.wait(retention_ms - 30000 + 5 * check_ms);
  CHECK(fx.committed("solo", 0) == -1);
  CHECK(fx.committed("solo", 1) == 20);
  CHECK(fx.is_listed("solo"));
  fx.wait(30000);
  CHECK(fx.committed("solo", 1) == -1);
  CHECK_FALSE(fx.is_listed("solo"));
}

TEST_CASE("after expiry and a reload of the partition by another coordinator "
          "the expired group is gone and every other group is intact") {
  expiry_fixture fx;
  // To expire: an Empty classic group and a standalone group.
  auto [m1, g1] = fx.stable_group("emptied");
  fx.commit("emptied", 0, 1, g1, m1);
  fx.leave("emptied", m1);
  fx.commit("solo", 0, 2);
  fx.wait(retention_ms / 2);
  // To keep: a Stable group, a recently emptied one, a recent standalone
  // commit.
  auto [m2, g2] = fx.stable_group("stable");
  fx.commit("stable", 1, 3, g2, m2);
  auto [m3, g3] = fx.stable_group("quiet");
  fx.commit("quiet", 0, 4, g3, m3);
  fx.leave("quiet", m3);
  fx.commit("recent", 1, 5);
  fx.wait(retention_ms / 2 + 5 * check_ms);
  CHECK(fx.committed("emptied") == -1);
  CHECK(fx.committed("solo") == -1);
  CHECK(fx.listed() == std::vector<std::string>{"quiet", "recent", "stable"});
  fx.heartbeat("stable", m2, g2);
  fx.move_coordinator();
  // The new coordinator replayed the tombstones: nothing came back.
  CHECK(fx.committed("emptied") == -1);
  CHECK(fx.committed("solo") == -1);
  CHECK(fx.committed("stable", 1) == 3);
  CHECK(fx.committed("quiet") == 4);
  CHECK(fx.committed("recent", 1) == 5);
  CHECK(fx.listed() == std::vector<std::string>{"quiet", "recent", "stable"});
  // The Stable group goes on at its generation on the new coordinator.
  fx.heartbeat("stable", m2, g2);
  auto d = fx.ask<describe_groups_response>(
    fx.broker(), describe_groups_request{{"stable"}});
  REQUIRE(d.ready());
  CHECK(d.get().groups.at(0).state == any_group_state::stable);
  CHECK(d.get().groups.at(0).members.size() == 1);
  // The quiet group's emptiness counts from when it became Empty, stored
  // with its metadata: it expires on the new coordinator on time.
  fx.wait(retention_ms / 2);
  CHECK(fx.committed("quiet") == -1);
  CHECK(fx.committed("recent", 1) == -1);
  CHECK(fx.committed("stable", 1) == 3);
  CHECK(fx.listed() == std::vector<std::string>{"stable"});
}

TEST_CASE("a KIP-848 consumer group's offsets expire and the empty group is "
          "deleted with all its records, also on the next coordinator") {
  expiry_fixture fx;
  consumer_group_heartbeat_request join;
  join.group_id = "cg";
  join.member_id = "m1";
  join.member_epoch = 0;
  join.rebalance_timeout_ms = 30000;
  join.subscribed_topic_names = std::vector<std::string>{"t"};
  join.topic_partitions = std::vector<consumer_group_topic_partitions>{};
  auto joined = fx.ask<consumer_group_heartbeat_response>(fx.broker(), join);
  REQUIRE(joined.get().error == error_code::none);
  fx.commit("cg", 0, 9, joined.get().member_epoch, "m1");
  consumer_group_heartbeat_request leave;
  leave.group_id = "cg";
  leave.member_id = "m1";
  leave.member_epoch = leave_group_member_epoch;
  REQUIRE(
    fx.ask<consumer_group_heartbeat_response>(fx.broker(), leave).get().error
    == error_code::none);
  fx.commit("kept", 0, 1);
  fx.wait(retention_ms / 2);
  CHECK(fx.committed("cg") == 9);
  fx.commit("kept", 0, 2); // a fresh commit
  fx.wait(retention_ms / 2 + 5 * check_ms);
  CHECK(fx.committed("cg") == -1);
  auto described = fx.ask<consumer_group_describe_response>(
    fx.broker(), consumer_group_describe_request{{"cg"}, false});
  CHECK(described.get().groups.at(0).error == error_code::group_id_not_found);
  CHECK(fx.listed() == std::vector<std::string>{"kept"});
  fx.move_coordinator();
  CHECK(fx.committed("cg") == -1);
  CHECK(fx.committed("kept") == 2);
  CHECK(fx.listed() == std::vector<std::string>{"kept"});
  described = fx.ask<consumer_group_describe_response>(
    fx.broker(), consumer_group_describe_request{{"cg"}, false});
  CHECK(described.get().groups.at(0).error == error_code::group_id_not_found);
}

TEST_CASE("after expiry, compaction and a restart of the node the expired "
          "groups are gone and every other group is intact") {
  expiry_fixture fx;
  auto [m1, g1] = fx.stable_group("emptied");
  fx.commit("emptied", 0, 1, g1, m1);
  fx.leave("emptied", m1);
  fx.commit("solo", 1, 2);
  fx.wait(retention_ms / 2);
  fx.commit("recent", 0, 3);
  // Another group commits on: segments roll and the cleaner has work.
  for (int i = 0; i < 40; ++i) {
    fx.commit("busy", 0, 100 + i);
    fx.wait(900);
  }
  // 66 s after the first commits, 36 s after the recent one.
  CHECK(fx.committed("emptied") == -1);
  CHECK(fx.committed("solo", 1) == -1);
  CHECK(fx.committed("recent") == 3);
  CHECK(fx.listed() == std::vector<std::string>{"busy", "recent"});
  // The cleaner ran: the busy group's older commits and the expired
  // groups' values are gone, offsets stay (holes).
  auto [records, end] = fx.offsets_topic_records();
  INFO(records << " records below offset " << end);
  CHECK(end > 40);
  CHECK(records < end / 2);
  fx.stop();
  fx.start();
  fx.advance(2000, 10);
  CHECK(fx.committed("emptied") == -1);
  CHECK(fx.committed("solo", 1) == -1);
  CHECK(fx.committed("recent") == 3);
  CHECK(fx.committed("busy") == 139);
  CHECK(fx.listed() == std::vector<std::string>{"busy", "recent"});
}
