// group.consumer.* properties: Kafka's names, defaults and bounds
// (GroupCoordinatorConfig).

#include <catch2/catch.hpp>

#include "domain/properties.hpp"

using namespace troupe;

TEST_CASE("group.consumer.* defaults are Kafka's") {
  group_config g;
  CHECK(g.consumer_session_timeout_ms == 45000);
  CHECK(g.consumer_min_session_timeout_ms == 45000);
  CHECK(g.consumer_max_session_timeout_ms == 60000);
  CHECK(g.consumer_heartbeat_interval_ms == 5000);
  CHECK(g.consumer_min_heartbeat_interval_ms == 5000);
  CHECK(g.consumer_max_heartbeat_interval_ms == 15000);
  CHECK(g.consumer_max_size == std::numeric_limits<int32_t>::max());
  CHECK(g.consumer_assignors == std::vector<std::string>{"uniform", "range"});
}

TEST_CASE("group.consumer.* properties are read by Kafka's names") {
  std::vector<std::string> errors;
  properties props{
    {"group.consumer.session.timeout.ms", "50000"},
    {"group.consumer.heartbeat.interval.ms", "6000"},
    {"group.consumer.max.size", "10"},
    {"group.consumer.assignors",
     "org.apache.kafka.coordinator.group.assignor.RangeAssignor, uniform"}};
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.group.consumer_session_timeout_ms == 50000);
  CHECK(cfg.group.consumer_heartbeat_interval_ms == 6000);
  CHECK(cfg.group.consumer_max_size == 10);
  CHECK(cfg.group.consumer_assignors
        == std::vector<std::string>{"range", "uniform"});
}

TEST_CASE("group.consumer.* values outside Kafka's bounds are refused") {
  auto errors_for = [](properties props) {
    std::vector<std::string> errors;
    cluster_config cfg;
    apply_properties(props, cfg, errors);
    return errors;
  };
  // Below group.consumer.min.session.timeout.ms.
  CHECK(errors_for({{"group.consumer.session.timeout.ms", "10000"}}).size()
        == 1);
  // Above group.consumer.max.heartbeat.interval.ms.
  CHECK(errors_for({{"group.consumer.heartbeat.interval.ms", "20000"}}).size()
        == 1);
  // A heartbeat interval must be shorter than the session timeout.
  CHECK(errors_for({{"group.consumer.min.session.timeout.ms", "1000"},
                    {"group.consumer.session.timeout.ms", "5000"}})
          .size()
        == 1);
  CHECK(errors_for({{"group.consumer.assignors", "sticky"}}).size() == 1);
  CHECK(errors_for({{"group.consumer.assignors", ""}}).size() == 1);
  CHECK(errors_for({{"group.consumer.max.size", "0"}}).size() == 1);
}
