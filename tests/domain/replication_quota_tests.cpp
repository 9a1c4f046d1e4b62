// Replication throttling (KIP-73): the quota's sliding-window rate, the
// throttled-replica topic configs, and the dynamic broker configs that set
// the rates (docs/ARCHITECTURE.md §7).

#include <catch2/catch.hpp>

#include "domain/broker_config.hpp"
#include "domain/replication/replication_quota.hpp"
#include "domain/topic_config.hpp"

using namespace troupe;

// -- the rate ----------------------------------------------------------------------

TEST_CASE("a replication quota is exceeded once the measured byte rate "
          "passes it") {
  replication_rate r{1000};
  r.record(500, 0);
  // One window at least: 500 bytes over 1 s.
  CHECK(r.rate(100) == Approx(500));
  CHECK_FALSE(r.exceeded(100));
  r.record(600, 100);
  CHECK(r.exceeded(100));
  // The same bytes over two seconds are 550 B/s.
  CHECK(r.rate(2000) == Approx(550));
  CHECK_FALSE(r.exceeded(2000));
}

TEST_CASE("a replication quota forgets traffic older than its eleven "
          "one-second samples") {
  replication_rate r{1000};
  r.record(100000, 0);
  CHECK(r.exceeded(10999));
  CHECK(r.rate(11000) == 0);
  CHECK_FALSE(r.exceeded(11000));
}

TEST_CASE("a replication quota keeps one sample per window, at most eleven") {
  replication_rate r{1000};
  for (int64_t t = 0; t < 20000; t += 1000)
    r.record(1000, t);
  // Samples started at 9000..19000: 11,000 bytes over 10.5 s at 19500.
  CHECK(r.rate(19500) == Approx(11000.0 / 10.5));
}

TEST_CASE("the unlimited replication quota is never exceeded") {
  replication_rate r;
  CHECK(r.unlimited());
  r.record(int64_t{1} << 40, 0);
  CHECK_FALSE(r.exceeded(1));
}

TEST_CASE("a new replication quota applies to the traffic already measured") {
  replication_rate r{10000};
  r.record(5000, 0);
  CHECK_FALSE(r.exceeded(10));
  r.set_quota(1000);
  CHECK(r.exceeded(10));
  r.set_quota(unlimited_replication_rate);
  CHECK_FALSE(r.exceeded(10));
}

// -- throttled replicas -------------------------------------------------------------

TEST_CASE("a throttled-replica list names partition:broker pairs or every "
          "replica") {
  auto all = parse_throttled_replicas("*");
  REQUIRE(all);
  CHECK(all->all);
  CHECK(all->covers(7, 3));
  auto some = parse_throttled_replicas(" 0:1 , 1:2,");
  REQUIRE(some);
  CHECK_FALSE(some->all);
  CHECK(some->covers(0, 1));
  CHECK(some->covers(1, 2));
  CHECK_FALSE(some->covers(0, 2));
  CHECK(to_config_value(*some) == "0:1,1:2");
  auto none = parse_throttled_replicas("");
  REQUIRE(none);
  CHECK_FALSE(none->covers(0, 1));
  // ThrottledReplicaListValidator joins the items: "*" with blanks is "*".
  CHECK(parse_throttled_replicas("*, ")->all);
}

TEST_CASE("a throttled-replica list refuses anything but pairs of digits") {
  CHECK_FALSE(parse_throttled_replicas("0"));
  CHECK_FALSE(parse_throttled_replicas("0:x"));
  CHECK_FALSE(parse_throttled_replicas("-1:2"));
  CHECK_FALSE(parse_throttled_replicas("*,0:1"));
  CHECK_FALSE(parse_throttled_replicas("0:1:2"));
}

TEST_CASE("the throttled-replica topic configs are validated as Kafka's "
          "ThrottledReplicaListValidator does") {
  cluster_config broker;
  CHECK(validate_topic_configs(
          broker, "t", {{"leader.replication.throttled.replicas", "0:1,1:2"}})
          .ok());
  CHECK(validate_topic_configs(
          broker, "t", {{"follower.replication.throttled.replicas", "*"}})
          .ok());
  auto bad = validate_topic_configs(
    broker, "t", {{"leader.replication.throttled.replicas", "0:1, bad"}});
  CHECK(bad.error == error_code::invalid_config);
  CHECK(bad.message
        == "Invalid value [0:1, bad] for configuration "
           "leader.replication.throttled.replicas: Must be the literal '*' or "
           "a list of replicas in the following format: "
           "[partitionId]:[brokerId],[partitionId]:[brokerId],...");
  CHECK(
    default_config_value(broker, "t", "follower.replication.throttled.replicas")
    == "");
}

// -- dynamic broker configs ----------------------------------------------------------

namespace {

config_op set(std::string name, std::string value) {
  return {std::move(name), config_op_type::set, std::move(value)};
}

} // namespace

TEST_CASE("a broker's replication rates change at run time and fall back "
          "to the static settings") {
  cluster_config c;
  c.follower_replication_throttled_rate = 5000;
  broker_configs out;
  REQUIRE(
    alter_broker_configs(
      1, {}, {set("leader.replication.throttled.rate", "1048576")}, true, out)
      .ok());
  CHECK(out
        == broker_configs{{"leader.replication.throttled.rate", "1048576"}});
  auto r = replication_rates_of(c, out);
  CHECK(r.leader == 1048576);
  CHECK(r.follower == 5000);
  broker_configs cleared;
  REQUIRE(alter_broker_configs(
            1, out,
            {{"leader.replication.throttled.rate", config_op_type::remove, {}}},
            true, cleared)
            .ok());
  CHECK(cleared.empty());
  CHECK(replication_rates_of(c, cleared).leader == INT64_MAX);
}

TEST_CASE("AlterConfigs replaces a broker's whole dynamic set") {
  broker_configs current{{"leader.replication.throttled.rate", "10"}};
  broker_configs out;
  REQUIRE(alter_broker_configs(
            2, current, {set("follower.replication.throttled.rate", "20")},
            false, out)
            .ok());
  CHECK(out == broker_configs{{"follower.replication.throttled.rate", "20"}});
}

TEST_CASE("a broker config troupe cannot change at run time is refused as "
          "Kafka refuses it") {
  broker_configs out{{"x", "y"}};
  auto e = alter_broker_configs(
    1, {},
    {set("follower.replication.throttled.rate", "1"),
     set("log.retention.ms", "1"), set("num.partitions", "3")},
    true, out);
  CHECK(e.error == error_code::invalid_request);
  CHECK(e.message
        == "Cannot update these configs dynamically: Set(log.retention.ms, "
           "num.partitions)");
  CHECK(out == broker_configs{{"x", "y"}});
}

TEST_CASE("a replication rate must be a LONG of at least zero") {
  broker_configs out;
  auto e = alter_broker_configs(
    3, {}, {set("leader.replication.throttled.rate", "fast")}, true, out);
  CHECK(e.error == error_code::invalid_request);
  CHECK(e.message
        == "Invalid config value for resource ConfigResource(type=BROKER, "
           "name='3'): Invalid value fast for configuration "
           "leader.replication.throttled.rate: Not a number of type LONG");
  e = alter_broker_configs(
    3, {}, {set("leader.replication.throttled.rate", "-1")}, true, out);
  CHECK(e.message.find("Value must be at least 0") != std::string::npos);
  e = alter_broker_configs(3, {},
                           {{"leader.replication.throttled.rate",
                             config_op_type::append, std::string{"1"}}},
                           true, out);
  CHECK(e.error == error_code::invalid_config);
  CHECK(e.message
        == "Config value append is not allowed for config key: "
           "leader.replication.throttled.rate");
}
