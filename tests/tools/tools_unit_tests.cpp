// The admin tools without a cluster: Kafka 3.9's table layouts byte for
// byte, flag errors (one line, status 1), client properties, the classic
// consumer protocol's assignment bytes.

#include <sstream>

#include <catch2/catch.hpp>

#include "app/tools/tables.hpp"
#include "app/tools/tool_args.hpp"
#include "app/tools/tools.hpp"
#include "client/kafka/admin_client.hpp"
#include "client/kafka/client_config.hpp"

using namespace troupe;
using namespace troupe::tools;

TEST_CASE("describe offsets: Kafka's columns, 15-wide minimum, - where "
          "nothing is committed") {
  offset_row committed{"g", "t", 0, 5, 8, 3, "c-1", "/127.0.0.1", "cl"};
  offset_row none{"g", "t", 1, std::nullopt, 8, std::nullopt, "c-1",
                  "/127.0.0.1", "cl"};
  auto text = format_offsets({committed, none});
  CHECK(text
        == "\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  "
           "LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            "
           "CLIENT-ID"
           "\ng               t               0          5               8   "
           "            3               c-1             /127.0.0.1      cl"
           "\ng               t               1          -               8   "
           "            -               c-1             /127.0.0.1      cl\n");
}

TEST_CASE("describe offsets: a long topic or consumer id widens its column") {
  offset_row r{"group", "a-topic-with-a-long-name", 0, 1, 1, 0,
               "consumer-1-0123456789abcdef", "/h", "c"};
  auto text = format_offsets({r});
  CHECK(text.find("\nGROUP           TOPIC                    PARTITION  ")
        == 0);
  CHECK(text.find("CONSUMER-ID                 HOST            CLIENT-ID")
        != std::string::npos);
}

TEST_CASE("describe members: trailing space after #PARTITIONS, verbose "
          "assignment as (p,p) per topic") {
  member_row m{"g", "c-1", "", "/1.2.3.4", "client", 2,
               {{"b", 1}, {"a", 10}, {"a", 2}}};
  CHECK(format_members({m}, false)
        == "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       "
           "#PARTITIONS     \n"
           "g               c-1             /1.2.3.4        client          "
           "2               \n");
  auto verbose = format_members({m}, true);
  CHECK(verbose.find("#PARTITIONS     ASSIGNMENT\n") != std::string::npos);
  // Kafka sorts partitions as strings: "10" before "2".
  CHECK(verbose.find("2               (1), (10,2)\n") != std::string::npos);
}

TEST_CASE("describe members: GROUP-INSTANCE-ID appears only when a member "
          "has one") {
  member_row m{"g", "c-1", "static-1", "/h", "client", 0, {}};
  auto text = format_members({m}, false);
  CHECK(text.find("CONSUMER-ID     GROUP-INSTANCE-ID HOST") != std::string::npos);
}

TEST_CASE("describe state: the GROUP column takes the coordinator's width") {
  state_row r{"g", "127.0.0.1:9092  (0)", "range", "Stable", 3};
  CHECK(format_state(r)
        == "\nGROUP                     COORDINATOR (ID)          "
           "ASSIGNMENT-STRATEGY  STATE           #MEMBERS"
           "\ng                         127.0.0.1:9092  (0)       range      "
           "          Stable          3\n");
}

TEST_CASE("reset-offsets: GROUP TOPIC PARTITION NEW-OFFSET, 30/30/10/15") {
  std::map<std::string, std::map<kafka_client::topic_partition, int64_t>> plan;
  plan["g"][{"t", 0}] = 0;
  plan["g"][{"t", 1}] = 12;
  CHECK(format_reset(plan)
        == "\nGROUP                          TOPIC                          "
           "PARTITION  NEW-OFFSET     "
           "\ng                              t                              "
           "0          0              "
           "\ng                              t                              "
           "1          12             \n");
}

TEST_CASE("list with --state: GROUP padded to the longest name plus 10") {
  auto text = format_group_listing({{"g1", "Classic", "Empty"}}, false, true);
  CHECK(text == "GROUP                     STATE               \n"
                "g1                        Empty               \n");
}

TEST_CASE("delete-offsets: TOPIC PARTITION STATUS, Successful or Error: :") {
  std::map<kafka_client::topic_partition, std::optional<std::string>> r;
  r[{"t", 0}] = std::nullopt;
  r[{"t", 1}] = std::string{"The group is subscribed to the topic."};
  auto text = format_delete_offsets(r);
  CHECK(text.find("\nt                              0               Successful")
        != std::string::npos);
  CHECK(text.find("Error: :The group is subscribed to the topic.")
        != std::string::npos);
}

TEST_CASE("topic describe lines: tab-separated as TopicCommand prints them") {
  CHECK(format_topic_line("t", "AAAA", 2, 3, "retention.ms=1000")
        == "Topic: t\tTopicId: AAAA\tPartitionCount: 2\tReplicationFactor: "
           "3\tConfigs: retention.ms=1000\n");
  wire::metadata_partition p;
  p.partition_index = 1;
  p.leader_id = -1;
  p.replica_nodes = {0, 1};
  p.isr_nodes = {1};
  CHECK(format_partition_line("t", p)
        == "\tTopic: t\tPartition: 1\tLeader: none\tReplicas: 0,1\tIsr: "
           "1\tElr: N/A\tLastKnownElr: N/A\n");
}

TEST_CASE("config entries: name=value sensitive=... synonyms={SOURCE:k=v}") {
  wire::describe_configs_resource_result e;
  e.name = "retention.ms";
  e.value = "1000";
  e.config_source = 1;
  e.synonyms = {{"retention.ms", std::string{"1000"}, 1},
                {"log.retention.ms", std::nullopt, 5}};
  CHECK(format_config_entry(e)
        == "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:"
           "retention.ms=1000, DEFAULT_CONFIG:log.retention.ms=null}\n");
}

TEST_CASE("add-config: square brackets group values holding commas") {
  auto pairs = parse_config_pairs("a=1,b=[x,y],c=3");
  REQUIRE(pairs.size() == 3);
  CHECK(pairs[1] == std::make_pair(std::string{"b"}, std::string{"x,y"}));
  CHECK_THROWS_AS(parse_config_pairs("novalue"), usage_error);
}

TEST_CASE("the classic consumer protocol's assignment decodes to its "
          "partitions") {
  // Version 1, one topic "t" with partitions 0 and 2, null user data.
  std::vector<uint8_t> bytes = {0, 1, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 2,
                                0, 0, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff};
  auto tps = kafka_client::decode_consumer_assignment(bytes);
  REQUIRE(tps.size() == 2);
  CHECK(tps[1].topic == "t");
  CHECK(tps[1].partition == 2);
  CHECK(kafka_client::decode_consumer_assignment({0, 1, 0}).empty());
}

TEST_CASE("client properties: security.protocol, SASL JAAS, timeouts") {
  kafka_client::client_config cfg;
  std::string error;
  properties props{
    {"security.protocol", "SASL_SSL"},
    {"sasl.mechanism", "SCRAM-SHA-512"},
    {"sasl.jaas.config",
     "org.apache.kafka.common.security.scram.ScramLoginModule required "
     "username=\"alice\" password=\"alice-secret\";"},
    {"ssl.truststore.type", "PEM"},
    {"ssl.endpoint.identification.algorithm", ""},
    {"request.timeout.ms", "1234"}};
  REQUIRE(kafka_client::apply_client_properties(props, cfg, error));
  CHECK(cfg.uses_tls());
  CHECK(cfg.uses_sasl());
  CHECK(cfg.sasl_username == "alice");
  CHECK(cfg.sasl_password == "alice-secret");
  CHECK_FALSE(cfg.verify_hostname);
  CHECK(cfg.request_timeout_ms == 1234);
  kafka_client::client_config bad;
  CHECK_FALSE(kafka_client::apply_client_properties(
    {{"security.protocol", "TLS"}}, bad, error));
  CHECK(error.find("security.protocol") != std::string::npos);
  CHECK_FALSE(kafka_client::apply_client_properties(
    {{"ssl.truststore.type", "JKS"}}, bad, error));
  CHECK_FALSE(kafka_client::apply_client_properties(
    {{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "GSSAPI"}},
    bad, error));
}

namespace {

struct flag_case {
  const char* tool;
  std::vector<std::string> args;
  const char* message; // a part of the one line
};

int run(const flag_case& c, std::string& out, std::string& err) {
  std::ostringstream o, e;
  int status = std::string{c.tool} == "groups"   ? run_groups(c.args, o, e)
               : std::string{c.tool} == "topics" ? run_topics(c.args, o, e)
                                                 : run_configs(c.args, o, e);
  out = o.str();
  err = e.str();
  return status;
}

} // namespace

TEST_CASE("every flag error gives one line on stderr and status 1") {
  const std::string bs = "--bootstrap-server";
  const std::string addr = "127.0.0.1:1";
  std::vector<flag_case> cases = {
    {"groups", {"--frobnicate"}, "frobnicate is not a recognized option"},
    {"groups", {"--list"}, "Missing required argument \"[bootstrap-server]\""},
    {"groups", {bs}, "Option bootstrap-server requires an argument"},
    {"groups", {bs, addr}, "exactly one action"},
    {"groups", {bs, addr, "--list", "--describe"}, "exactly one action"},
    {"groups", {bs, addr, "--describe"}, "[all-groups], [group]"},
    {"groups", {bs, addr, "--describe", "--group", "g", "--members",
                "--offsets"}, "at most one of these options"},
    {"groups", {bs, addr, "--describe", "--group", "g", "--all-groups"},
     "can't be used with option \"[all-groups]\""},
    {"groups", {bs, addr, "--reset-offsets", "--group", "g", "--all-topics"},
     "requires one of the following scenarios"},
    {"groups", {bs, addr, "--reset-offsets", "--group", "g", "--to-earliest",
                "--to-latest", "--all-topics"}, "can't be used with option"},
    {"groups", {bs, addr, "--reset-offsets", "--group", "g", "--to-earliest"},
     "One of the reset scopes should be defined"},
    {"groups", {bs, addr, "--reset-offsets", "--group", "g", "--to-offset",
                "ten", "--all-topics"},
     "Cannot parse argument 'ten' of option to-offset"},
    {"groups", {bs, addr, "--reset-offsets", "--group", "g", "--to-earliest",
                "--all-topics", "--execute", "--dry-run"},
     "only accepts one of [execute] and [dry-run]"},
    {"groups", {bs, addr, "--delete-offsets", "--group", "g"},
     "takes the following options: [group], [topic]"},
    {"groups", {bs, addr, "--list", "--output", "xml"},
     "--output must be table or json"},
    {"groups", {bs, "nohostport", "--list"},
     "Invalid url in bootstrap.servers: nohostport"},
    {"groups", {bs, addr, "--list", "--state", "Sleeping"},
     "Invalid state list 'Sleeping'"},
    {"groups", {bs, addr, "--list"}, "cannot reach any bootstrap server"},
    {"groups", {bs, addr, "--list", "--command-config", "/nonexistent/x"},
     "cannot read --command-config file"},
    {"groups", {"stray"}, "Found non-option argument 'stray'"},
    {"topics", {bs, addr}, "exactly one action"},
    {"topics", {bs, addr, "--create"}, "Missing required argument \"[topic]\""},
    {"topics", {bs, addr, "--create", "--topic", "t", "--partitions", "x"},
     "Cannot parse argument 'x' of option partitions"},
    {"topics", {bs, addr, "--alter", "--topic", "t"}, "needs option"},
    {"topics", {bs, addr, "--list", "--partitions", "3"},
     "can't be used with option \"[list]\""},
    {"topics", {bs, addr, "--list", "--under-replicated-partitions"},
     "can only be used with option \"[describe]\""},
    {"topics", {bs, addr, "--create", "--topic", "t", "--partitions", "0"},
     "The partitions must be greater than 0"},
    {"topics", {bs, addr, "--list"}, "cannot reach any bootstrap server"},
    {"configs", {bs, addr, "--describe"},
     "At least one entity type must be specified"},
    {"configs", {bs, addr, "--describe", "--entity-type", "widgets"},
     "Invalid entity type widgets"},
    {"configs", {bs, addr, "--alter", "--entity-type", "topics",
                 "--entity-name", "t"}, "At least one of --add-config"},
    {"configs", {bs, addr, "--alter", "--entity-type", "topics",
                 "--add-config", "a=1"}, "An entity name must be specified"},
    {"configs", {bs, addr, "--describe", "--entity-type", "brokers",
                 "--entity-name", "one"}, "valid integer broker id"},
    {"configs", {bs, addr, "--alter", "--topic", "t", "--add-config", "oops"},
     "key=val"},
    {"configs", {bs, addr, "--describe", "--alter", "--topic", "t"},
     "exactly one action"},
  };
  for (auto& c : cases) {
    std::string joined = c.tool;
    for (auto& a : c.args)
      joined += " " + a;
    INFO(joined);
    std::string out, err;
    CHECK(run(c, out, err) == 1);
    CHECK(out.empty());
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    INFO(err);
    CHECK(err.find(c.message) != std::string::npos);
    CHECK(err.rfind(std::string{"troupe "} + c.tool + ": ", 0) == 0);
  }
}

TEST_CASE("an unreachable bootstrap server fails within the timeout") {
  // 10.255.255.1 is not routed: connect waits until --timeout.
  auto start = std::chrono::steady_clock::now();
  std::ostringstream o, e;
  int status = run_groups({"--bootstrap-server", "10.255.255.1:9092",
                           "--list", "--timeout", "300"},
                          o, e);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(status == 1);
  auto err = e.str();
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK(took < std::chrono::seconds(5));
}
