#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "storage/metadata_file.hpp"

using namespace troupe;

namespace {

struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/troupe-meta-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0)
      std::perror("rm");
  }
};

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
