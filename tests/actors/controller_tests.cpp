// The controller actor: topics with replicas, failover on a broker stop,
// AlterIsr, and metadata that survives a restart.

#include <algorithm>

#include <catch2/catch.hpp>

#include <cstdlib>

#include "actors/controller.hpp"
#include "tests/actors/sim_fixture.hpp"

using namespace troupe;

namespace {

struct controller_fixture : test::sim_fixture {
  cluster_config config;
  controller_actor ctl;
  std::string dir;

  controller_fixture() {
    char tmpl[] = "/tmp/troupe-ctl-XXXXXX";
    dir = ::mkdtemp(tmpl);
    config.log_dirs = dir;
    start();
  }

  ~controller_fixture() {
    auto cmd = "rm -rf '" + dir + "'";
    if (std::system(cmd.c_str()) != 0)
      std::perror("rm");
  }

  void start() {
    auto md = load_cluster_metadata(config);
    REQUIRE(std::holds_alternative<cluster_metadata>(md));
    ctl = sys.spawn(controller, config,
                    std::move(std::get<cluster_metadata>(md)),
                    controller_security{});
    to_stop.push_back(caf::actor_cast<caf::actor>(ctl));
    run();
  }

  partition_metadata partition(const std::string& topic, int32_t p) {
    auto res = ask<metadata_response>(ctl, metadata_request{{topic}, false});
    REQUIRE(res.ready());
    return res.get().topics.at(0).partition_states.at(static_cast<size_t>(p));
  }
};

} // namespace

TEST_CASE("a stopped broker's partitions get a new leader from the ISR with "
          "leader epoch + 1") {
  controller_fixture fx;
  auto created = fx.ask<create_topics_response>(
    fx.ctl, create_topics_request{{{"orders", 6, 3}}});
  REQUIRE(created.get().topics.at(0).error == error_code::none);
  std::vector<int32_t> led_by_0;
  for (int32_t p = 0; p < 6; ++p)
    if (fx.partition("orders", p).leader == 0)
      led_by_0.push_back(p);
  REQUIRE(!led_by_0.empty());
  auto before = fx.partition("orders", led_by_0.front());
  auto update =
    fx.ask<leadership_update>(fx.ctl, broker_status_change{0, false});
  REQUIRE(update.ready());
  size_t moved = 0; // __consumer_offsets partitions move too
  for (auto& p : update.get().partitions) {
    if (p.topic != "orders")
      continue;
    auto& isr = p.state.isr;
    CHECK(std::find(isr.begin(), isr.end(), 0) == isr.end());
    moved += std::count(led_by_0.begin(), led_by_0.end(), p.state.partition);
  }
  CHECK(moved == led_by_0.size());
  auto after = fx.partition("orders", led_by_0.front());
  CHECK(after.leader != 0);
  CHECK(after.leader == before.replicas.at(1)); // next in assignment order
  CHECK(after.leader_epoch == before.leader_epoch + 1);
}

TEST_CASE("the controller stores an ISR change from the current leader and "
          "refuses a stale one") {
  controller_fixture fx;
  fx.ask<create_topics_response>(fx.ctl, create_topics_request{{{"t", 1, 3}}});
  auto p = fx.partition("t", 0);
  std::vector<int32_t> shrunk{p.leader, p.replicas.at(1)};
  auto ok = fx.ask<alter_isr_response>(
    fx.ctl, alter_isr_request{
              {"t", 0}, p.leader, p.leader_epoch, p.partition_epoch, shrunk});
  CHECK(ok.get().error == error_code::none);
  CHECK(ok.get().state.isr == shrunk);
  auto stale = fx.ask<alter_isr_response>(
    fx.ctl,
    alter_isr_request{
      {"t", 0}, p.leader, p.leader_epoch, p.partition_epoch, p.replicas});
  CHECK(stale.get().error == error_code::invalid_update_version);
}

TEST_CASE("a restarted controller comes back with topics, leaders and ISR") {
  controller_fixture fx;
  fx.ask<create_topics_response>(fx.ctl, create_topics_request{{{"t", 3, 2}}});
  fx.ask<leadership_update>(fx.ctl, broker_status_change{1, false});
  auto before = fx.partition("t", 1);
  caf::anon_send_exit(fx.ctl, caf::exit_reason::user_shutdown);
  fx.run();
  fx.start();
  auto after = fx.partition("t", 1);
  CHECK(after.leader == before.leader);
  CHECK(after.leader_epoch == before.leader_epoch);
  CHECK(after.isr == before.isr);
  CHECK(after.replicas == before.replicas);
}

TEST_CASE("stopping an unknown broker answers BROKER_NOT_AVAILABLE") {
  controller_fixture fx;
  auto res = fx.ask<leadership_update>(fx.ctl, broker_status_change{42, false});
  CHECK(res.get().error == error_code::broker_not_available);
}
