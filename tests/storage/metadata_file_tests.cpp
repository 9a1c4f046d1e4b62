#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "storage/metadata_file.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;

namespace {

using test::temp_dir;

} // namespace

TEST_CASE("controller metadata survives a restart") {
  temp_dir dir;
  cluster_metadata m;
  for (int i = 0; i < 3; ++i)
    m.register_broker(i);
  REQUIRE(m.create_topic("orders", 6, 3, 0, uuid{7, 9}) == error_code::none);
  m.broker_stopped(1, false);
  metadata_file file{dir.path + "/meta"};
  REQUIRE(file.save(m).empty());
  metadata_file reopened{dir.path + "/meta"};
  auto loaded = reopened.load();
  REQUIRE(std::holds_alternative<std::optional<cluster_metadata>>(loaded));
  auto& restored = std::get<std::optional<cluster_metadata>>(loaded);
  REQUIRE(restored);
  CHECK(restored->brokers() == m.brokers());
  CHECK(restored->topics() == m.topics());
  CHECK(restored->topic_id("orders") == uuid{7, 9}); // topic ids persist
}

TEST_CASE("a node without metadata yet starts empty") {
  temp_dir dir;
  metadata_file file{dir.path};
  auto loaded = file.load();
  REQUIRE(std::holds_alternative<std::optional<cluster_metadata>>(loaded));
  CHECK_FALSE(std::get<std::optional<cluster_metadata>>(loaded));
}

TEST_CASE("a corrupt metadata file is reported, not trusted") {
  temp_dir dir;
  metadata_file file{dir.path};
  std::ofstream{file.path()} << "\xff\xff\xff garbage";
  auto loaded = file.load();
  CHECK(std::holds_alternative<std::string>(loaded));
}

TEST_CASE("an unwritable metadata directory gives an error, not a crash") {
  temp_dir dir;
  std::ofstream{dir.path + "/a-file"} << "x";
  metadata_file file{dir.path + "/a-file/meta"};
  cluster_metadata m;
  auto err = file.save(m);
  CHECK_FALSE(err.empty());
}

TEST_CASE("a topic's config overrides survive a restart, and a deleted "
          "topic's are gone") {
  temp_dir dir;
  cluster_metadata m;
  for (int i = 0; i < 3; ++i)
    m.register_broker(i);
  REQUIRE(m.create_topic("orders", 2, 3, 0, uuid{7, 9}) == error_code::none);
  REQUIRE(m.create_topic("plain", 1, 1, 0) == error_code::none);
  REQUIRE(m.create_topic("gone", 1, 1, 0) == error_code::none);
  m.set_configs("orders", {{"cleanup.policy", "compact"},
                           {"retention.ms", "1000"}});
  m.set_configs("gone", {{"segment.ms", "60000"}});
  REQUIRE(m.delete_topic("gone") == error_code::none);
  metadata_file file{dir.path + "/meta"};
  REQUIRE(file.save(m).empty());
  auto loaded = metadata_file{dir.path + "/meta"}.load();
  REQUIRE(std::holds_alternative<std::optional<cluster_metadata>>(loaded));
  auto& restored = std::get<std::optional<cluster_metadata>>(loaded);
  REQUIRE(restored);
  CHECK(restored->configs("orders")
        == topic_configs{{"cleanup.policy", "compact"},
                         {"retention.ms", "1000"}});
  CHECK(restored->configs("plain").empty());
  CHECK(restored->all_configs() == m.all_configs());
  CHECK(restored->all_configs().size() == 1);
}

TEST_CASE("a metadata file written before topics had configs still loads, "
          "with no overrides") {
  temp_dir dir;
  metadata_file file{dir.path};
  // ClusterMetadata as the release before per-topic configs wrote it,
  // assembled by hand from that schema: version 1, broker 0 alive, topic
  // "t" with one partition (replicas [0], leader 0, isr [0]).
  const unsigned char old[] = {0x08, 0x01, 0x12, 0x04, 0x08, 0x00, 0x10,
                               0x01, 0x1a, 0x0b, 0x0a, 0x01, 0x74, 0x12,
                               0x06, 0x0a, 0x01, 0x00, 0x22, 0x01, 0x00};
  std::ofstream{file.path(), std::ios::binary}.write(
    reinterpret_cast<const char*>(old), sizeof(old));
  auto loaded = file.load();
  REQUIRE(std::holds_alternative<std::optional<cluster_metadata>>(loaded));
  auto& restored = std::get<std::optional<cluster_metadata>>(loaded);
  REQUIRE(restored);
  REQUIRE(restored->has_topic("t"));
  CHECK(restored->partition({"t", 0})->replicas == std::vector<int32_t>{0});
  CHECK(restored->partition({"t", 0})->isr == std::vector<int32_t>{0});
  CHECK(restored->is_alive(0));
  CHECK(restored->configs("t").empty());
  CHECK(restored->all_configs().empty());
}

TEST_CASE("a broker's dynamic configs (its replication quotas) survive a "
          "restart of the embedded node") {
  temp_dir dir;
  cluster_metadata m;
  m.register_broker(1);
  m.set_dynamic_configs(1, {{"follower.replication.throttled.rate", "1048576"},
                            {"leader.replication.throttled.rate", "2097152"}});
  m.set_dynamic_configs(2, {});
  metadata_file file{dir.path + "/meta"};
  REQUIRE(file.save(m).empty());
  auto loaded = metadata_file{dir.path + "/meta"}.load();
  auto& restored = std::get<std::optional<cluster_metadata>>(loaded);
  REQUIRE(restored);
  CHECK(restored->dynamic_configs(1) == m.dynamic_configs(1));
  CHECK(restored->dynamic_configs(2).empty());
  CHECK(restored->all_dynamic_configs().size() == 1);
}
