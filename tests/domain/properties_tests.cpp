#include <catch2/catch.hpp>

#include <cstdint>

#include "domain/log/log_defaults.hpp"
#include "domain/properties.hpp"

using namespace troupe;

TEST_CASE("properties file uses Kafka's syntax and names") {
  std::vector<std::string> errors;
  auto props = parse_properties("# a comment\n"
                                "! another\n"
                                "group.initial.rebalance.delay.ms=0\n"
                                "  offsets.topic.num.partitions : 10 \n"
                                "\n"
                                "auto.create.topics.enable=false\r\n",
                                errors);
  CHECK(errors.empty());
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.group.initial_rebalance_delay_ms == 0);
  CHECK(cfg.offsets_topic_num_partitions == 10);
  CHECK_FALSE(cfg.auto_create_topics);
}

TEST_CASE("an override replaces the file's value") {
  std::vector<std::string> errors;
  auto props = parse_properties("group.max.size=5\n", errors);
  REQUIRE(parse_override("group.max.size=7", props));
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(cfg.group.max_size == 7);
  CHECK_FALSE(parse_override("no-equals-sign", props));
}

TEST_CASE("unknown properties and bad values are reported, not ignored") {
  std::vector<std::string> errors;
  properties props{{"group.max.size", "-3"},
                   {"gruop.max.size", "3"},
                   {"auto.create.topics.enable", "maybe"},
                   {"offsets.topic.num.partitions", "12abc"}};
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.size() == 4);
  CHECK(cfg.group.max_size == std::numeric_limits<int32_t>::max());
}

TEST_CASE("a malformed properties line is reported with its number") {
  std::vector<std::string> errors;
  parse_properties("a=1\njust words\n", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("line 2") != std::string::npos);
}

TEST_CASE("defaults are Kafka's") {
  cluster_config cfg;
  CHECK(cfg.offsets_topic_num_partitions == 50);
  CHECK(cfg.group.initial_rebalance_delay_ms == 3000);
  CHECK(cfg.group.min_session_timeout_ms == 6000);
  CHECK(cfg.group.max_session_timeout_ms == 1800000);
  CHECK(cfg.group.offset_metadata_max_bytes == 4096);
  CHECK(cfg.brokers == 3);
}

TEST_CASE("the HTTP gateway's admin guard is configured by troupe.http.admin "
          "properties") {
  std::vector<std::string> errors;
  auto props = parse_properties("troupe.http.admin.token=s3cret\n"
                                "troupe.http.admin.enable=true\n",
                                errors);
  cluster_config cluster;
  process_config process;
  apply_properties(props, cluster, errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.empty());
  CHECK(process.http_admin_token == "s3cret");
  CHECK(process.http_admin_enable);
  props = parse_properties("troupe.http.admin.enable=yes\n"
                           "troupe.http.admin.tokn=x\n",
                           errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.size() == 2);
}

TEST_CASE("consumer.instance.timeout.ms is REST Proxy's, 300000 by default, "
          "and refuses values below 1 ms") {
  CHECK(process_config{}.consumer_instance_timeout_ms == 300000);
  std::vector<std::string> errors;
  cluster_config cluster;
  process_config process;
  properties props{{"consumer.instance.timeout.ms", "2500"}};
  apply_properties(props, cluster, errors);
  apply_process_properties(props, process, errors);
  CHECK(errors.empty());
  CHECK(process.consumer_instance_timeout_ms == 2500);
  for (auto bad : {"0", "-1", "5s", "2147483648"}) {
    errors.clear();
    props["consumer.instance.timeout.ms"] = bad;
    apply_process_properties(props, process, errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]
          == "invalid value '" + std::string{bad}
               + "' for consumer.instance.timeout.ms: expected 1..2147483647");
  }
  CHECK(process.consumer_instance_timeout_ms == 2500);
}

TEST_CASE("the log cleaner's broker properties have Kafka's names and "
          "defaults, and __consumer_offsets is compacted") {
  cluster_config defaults;
  CHECK_FALSE(defaults.log.compact);
  CHECK(defaults.log.delete_policy);
  CHECK(defaults.log.segment_ms == 604800000);
  CHECK(defaults.log.delete_retention_ms == 86400000);
  CHECK(defaults.log.min_compaction_lag_ms == 0);
  CHECK(defaults.log.max_compaction_lag_ms == INT64_MAX);
  CHECK(defaults.log.min_cleanable_dirty_ratio == 0.5);
  CHECK(defaults.log_cleaner_enable);
  CHECK(defaults.log_cleaner_backoff_ms == 15000);
  CHECK(defaults.offsets_topic_segment_bytes == 104857600);

  std::vector<std::string> errors;
  properties props{{"log.cleanup.policy", "compact, delete"},
                   {"log.roll.ms", "3600000"},
                   {"log.cleaner.enable", "false"},
                   {"log.cleaner.backoff.ms", "500"},
                   {"log.cleaner.io.max.bytes.per.second", "1048576.5"},
                   {"log.cleaner.min.cleanable.ratio", "0.25"},
                   {"log.cleaner.delete.retention.ms", "1000"},
                   {"log.cleaner.min.compaction.lag.ms", "2000"},
                   {"log.cleaner.max.compaction.lag.ms", "3000"},
                   {"offsets.topic.segment.bytes", "16384"}};
  cluster_config cfg;
  apply_properties(props, cfg, errors);
  CHECK(errors.empty());
  CHECK(cfg.log.compact);
  CHECK(cfg.log.delete_policy);
  CHECK(cfg.log.segment_ms == 3600000);
  CHECK_FALSE(cfg.log_cleaner_enable);
  CHECK(cfg.log_cleaner_backoff_ms == 500);
  CHECK(cfg.log_cleaner_io_max_bytes_per_second == 1048576.5);
  CHECK(cfg.log.min_cleanable_dirty_ratio == 0.25);
  CHECK(cfg.log.delete_retention_ms == 1000);
  CHECK(cfg.log.min_compaction_lag_ms == 2000);
  CHECK(cfg.log.max_compaction_lag_ms == 3000);
  CHECK(cfg.offsets_topic_segment_bytes == 16384);

  // __consumer_offsets: compact only, its own segment size; other topics
  // get the broker's settings.
  auto offsets = default_log_config(cfg, "__consumer_offsets");
  CHECK(offsets.compact);
  CHECK_FALSE(offsets.delete_policy);
  CHECK(offsets.segment_bytes == 16384);
  auto plain = default_log_config(cfg, "orders");
  CHECK(plain.delete_policy);
  CHECK(plain.segment_bytes == cfg.log.segment_bytes);

  properties bad{{"log.cleanup.policy", "compress"},
                 {"log.cleaner.min.cleanable.ratio", "1.5"},
                 {"log.cleaner.io.max.bytes.per.second", "fast"},
                 {"log.roll.ms", "0"}};
  errors.clear();
  apply_properties(bad, cfg, errors);
  CHECK(errors.size() == 4);
  log_config c;
  CHECK_FALSE(parse_cleanup_policy("", c));
  CHECK(parse_cleanup_policy("compact", c));
  CHECK(cleanup_policy_name(c) == "compact");
  CHECK(parse_cleanup_policy("delete,compact", c));
  CHECK(cleanup_policy_name(c) == "compact,delete");
}
