// The broker's log manager actor on a real temporary directory.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include "actors/log_manager.hpp"
#include "domain/log/record_batch.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/actors/temp_dir.hpp"

using namespace troupe;
using troupe::test::temp_dir;

namespace {

std::vector<uint8_t> batch_of(int n, const std::string& value) {
  std::vector<record> rs;
  for (int i = 0; i < n; ++i)
    rs.push_back({std::nullopt,
                  std::vector<uint8_t>(value.begin(), value.end()),
                  1000 + i,
                  {}});
  return encode_batch(0, 0, rs);
}

struct log_fixture : test::sim_fixture {
  temp_dir dir;
  log_manager_actor logs;

  log_fixture() {
    start();
  }

  void start() {
    logs = sys.spawn(log_manager, dir.path + "/broker-0", cluster_config{});
    to_stop.push_back(caf::actor_cast<caf::actor>(logs));
    run();
  }

  log_append_response append(topic_partition tp, std::vector<uint8_t> b,
                             int32_t epoch = 0) {
    auto p = ask<log_append_response>(logs, log_append_request{tp, epoch, b});
    REQUIRE(p.ready());
    return p.get();
  }
};

} // namespace

TEST_CASE("the log manager assigns offsets and reads batches back") {
  log_fixture fx;
  topic_partition tp{"orders", 2};
  auto a = fx.append(tp, batch_of(3, "a"));
  CHECK(a.error == error_code::none);
  CHECK(a.base_offset == 0);
  CHECK(a.log_end_offset == 3);
  auto b = fx.append(tp, batch_of(2, "b"), 4);
  CHECK(b.base_offset == 3);
  CHECK(b.log_end_offset == 5);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{tp, 3, 1024});
  REQUIRE(r.ready());
  CHECK(r.get().error == error_code::none);
  auto hdr = parse_header(r.get().records.data(), r.get().records.size());
  REQUIRE(hdr);
  CHECK(hdr->base_offset == 3);
  CHECK(hdr->partition_leader_epoch == 4); // stamped by the leader
  CHECK(r.get().log_end_offset == 5);
}

TEST_CASE("a corrupt batch is refused with CORRUPT_MESSAGE and nothing is "
          "written") {
  log_fixture fx;
  auto b = batch_of(2, "x");
  b.back() ^= 0xff;
  CHECK(fx.append({"t", 0}, b).error == error_code::corrupt_message);
  auto r = fx.ask<log_read_response>(fx.logs, log_read_request{{"t", 0}, 0, 1});
  CHECK(r.get().log_end_offset == 0);
}

TEST_CASE("reading past the log end is OFFSET_OUT_OF_RANGE") {
  log_fixture fx;
  fx.append({"t", 0}, batch_of(1, "x"));
  auto r =
    fx.ask<log_read_response>(fx.logs, log_read_request{{"t", 0}, 7, 100});
  CHECK(r.get().error == error_code::offset_out_of_range);
}

TEST_CASE("a follower's truncation drops the divergent tail") {
  log_fixture fx;
  topic_partition tp{"t", 1};
  fx.append(tp, batch_of(2, "a"));
  fx.append(tp, batch_of(2, "b"));
  auto t = fx.ask<log_read_response>(fx.logs, log_truncate_request{tp, 2});
  CHECK(t.get().error == error_code::none);
  CHECK(t.get().log_end_offset == 2);
  CHECK(fx.append(tp, batch_of(1, "c")).base_offset == 2);
}

TEST_CASE("a restarted log manager finds its partitions' logs again") {
  log_fixture fx;
  fx.append({"t", 0}, batch_of(5, "a"));
  caf::anon_send_exit(fx.logs, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  CHECK(fx.append({"t", 0}, batch_of(1, "b")).base_offset == 5);
}

TEST_CASE("an unusable log directory answers KAFKA_STORAGE_ERROR and the "
          "log manager stays up") {
  test::sim_fixture fx;
  temp_dir dir;
  std::ofstream{dir.path + "/file"} << "x";
  auto logs =
    fx.sys.spawn(log_manager, dir.path + "/file/broker-0", cluster_config{});
  fx.to_stop.push_back(caf::actor_cast<caf::actor>(logs));
  auto r = fx.ask<log_append_response>(
    logs, log_append_request{{"t", 0}, 0, batch_of(1, "x")});
  CHECK(r.get().error == error_code::kafka_storage_error);
  auto again = fx.ask<log_append_response>(
    logs, log_append_request{{"t", 0}, 0, batch_of(1, "x")});
  CHECK(again.ready()); // still answering
}
