#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <string>

#include "domain/zookeeper/connect_string.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"
#include "domain/zookeeper/scala_map_order.hpp"

using namespace troupe;
using namespace troupe::zk;

// Expected strings are what Kafka brokers (3.x, Scala 2.13 builds) wrote, as
// printed by `zookeeper-shell.sh ... get <path>`, unless a comment says the
// string is derived from ZkData.scala and Scala's map order.

namespace {

broker_endpoint plaintext(std::string listener, std::string host,
                          int32_t port) {
  return {std::move(listener), std::move(host), port,
          security_protocol::plaintext};
}

} // namespace

// -- paths ----------------------------------------------------------------------

TEST_CASE("znode paths are Kafka's") {
  CHECK(broker_path(3) == "/brokers/ids/3");
  CHECK(topic_path("orders") == "/brokers/topics/orders");
  CHECK(topic_partitions_path("orders") == "/brokers/topics/orders/partitions");
  CHECK(partition_state_path({"orders", 7})
        == "/brokers/topics/orders/partitions/7/state");
  CHECK(delete_topic_path("orders") == "/admin/delete_topics/orders");
  CHECK(controller_path == "/controller");
  CHECK(controller_epoch_path == "/controller_epoch");
  CHECK(persistent_paths().front() == "/consumers");
}

TEST_CASE("child names are read as Java's Integer.parseInt reads them") {
  CHECK(*parse_java_int("0") == 0);
  CHECK(*parse_java_int("1001") == 1001);
  CHECK(*parse_java_int("-1") == -1);
  CHECK(*parse_java_int("2147483647") == 2147483647);
  CHECK(*parse_java_int("-2147483648") == INT32_MIN);
  for (auto bad : {"", "-", "+", "1a", " 1", "2147483648", "1.0", "0x10"}) {
    INFO(bad);
    auto r = parse_java_int(bad);
    CHECK_FALSE(r);
    CHECK_FALSE(r.error().empty());
  }
}

// -- /brokers/ids/<id> ----------------------------------------------------------------

TEST_CASE("broker registration is written byte for byte as Kafka writes it") {
  broker_registration b;
  b.id = 1;
  b.endpoints = {plaintext("PLAINTEXT", "kafka", 9092),
                 plaintext("PLAINTEXT_HOST", "localhost", 29092)};
  b.timestamp_ms = 1736198272985;
  CHECK(encode_broker_registration(b)
        == R"({"features":{},"listener_security_protocol_map":{"PLAINTEXT":)"
           R"("PLAINTEXT","PLAINTEXT_HOST":"PLAINTEXT"},"endpoints":)"
           R"(["PLAINTEXT://kafka:9092","PLAINTEXT_HOST://localhost:29092"],)"
           R"("jmx_port":-1,"port":9092,"host":"kafka","version":5,)"
           R"("timestamp":"1736198272985"})");
}

TEST_CASE("broker registration with four listeners keeps their order") {
  // Strimzi's brokers: the top-level host and port are the first PLAINTEXT
  // listener's, not the first listener's.
  const std::string host = "my-cluster-kafka-0.my-cluster-kafka-brokers"
                           ".myproject.svc";
  broker_registration b;
  b.id = 0;
  b.endpoints = {{"CONTROLPLANE-9090", host, 9090, security_protocol::ssl},
                 {"REPLICATION-9091", host, 9091, security_protocol::ssl},
                 plaintext("PLAIN-9092", host, 9092),
                 {"TLS-9093", host, 9093, security_protocol::ssl}};
  b.timestamp_ms = 1710691902130;
  auto expected =
    R"({"features":{},"listener_security_protocol_map":{"CONTROLPLANE-9090":)"
    R"("SSL","REPLICATION-9091":"SSL","PLAIN-9092":"PLAINTEXT","TLS-9093":)"
    R"("SSL"},"endpoints":["CONTROLPLANE-9090://)"
    + host + R"(:9090","REPLICATION-9091://)" + host
    + R"(:9091","PLAIN-9092://)" + host + R"(:9092","TLS-9093://)" + host
    + R"(:9093"],"jmx_port":-1,"port":9092,"host":")" + host
    + R"(","version":5,"timestamp":"1710691902130"})";
  CHECK(encode_broker_registration(b) == expected);
}

TEST_CASE("troupe's internal endpoint is one more listener, not the host") {
  broker_registration b;
  b.id = 2;
  b.endpoints = {plaintext(std::string{troupe_listener}, "10.0.0.2", 4242),
                 plaintext("PLAINTEXT", "10.0.0.2", 9092)};
  b.timestamp_ms = 1700000000000;
  // Derived from BrokerIdZNode.encode: the TROUPE listener is skipped when
  // picking the legacy host/port; it is in endpoints and the map.
  CHECK(encode_broker_registration(b)
        == R"({"features":{},"listener_security_protocol_map":{"TROUPE":)"
           R"("PLAINTEXT","PLAINTEXT":"PLAINTEXT"},"endpoints":)"
           R"(["TROUPE://10.0.0.2:4242","PLAINTEXT://10.0.0.2:9092"],)"
           R"("jmx_port":-1,"port":9092,"host":"10.0.0.2","version":5,)"
           R"("timestamp":"1700000000000"})");
  auto back = decode_broker_registration(2, encode_broker_registration(b));
  REQUIRE(back);
  auto* internal = find_endpoint(*back, troupe_listener);
  REQUIRE(internal != nullptr);
  CHECK(internal->host == "10.0.0.2");
  CHECK(internal->port == 4242);
}

TEST_CASE("broker rack goes where Kafka's map puts it") {
  broker_registration b;
  b.id = 1;
  b.endpoints = {plaintext("PLAINTEXT", "h1", 9092)};
  b.rack = "dc1";
  b.timestamp_ms = 5;
  // Derived from BrokerIdZNode.encode and scala.collection.mutable.HashMap.
  CHECK(encode_broker_registration(b)
        == R"({"features":{},"listener_security_protocol_map":{"PLAINTEXT":)"
           R"("PLAINTEXT"},"endpoints":["PLAINTEXT://h1:9092"],"rack":"dc1",)"
           R"("jmx_port":-1,"port":9092,"host":"h1","version":5,)"
           R"("timestamp":"5"})");
}

TEST_CASE("strings are escaped as Kafka's Jackson escapes them") {
  // Jackson (ObjectMapper.writeValueAsBytes) checked with OpenJDK 17: short
  // escapes, \u00XX in upper case for other control characters, '/', DEL
  // and non-ASCII as they are.
  broker_registration b;
  b.id = 1;
  b.rack = "a\"b\\c/d\x01\x1f\x7f\n\t\r\b\f\xc3\xa9";
  auto text = encode_broker_registration(b);
  CHECK(text.find(R"("rack":"a\"b\\c/d\u0001\u001F)"
                  "\x7f"
                  R"(\n\t\r\b\f)"
                  "\xc3\xa9\"")
        != std::string::npos);
  auto back = decode_broker_registration(1, text);
  REQUIRE(back);
  CHECK(back->rack == b.rack);
}

TEST_CASE("broker without a plaintext listener registers a null host") {
  broker_registration b;
  b.id = 1;
  b.endpoints = {{"SSL", "h1", 9093, security_protocol::ssl}};
  auto text = encode_broker_registration(b);
  CHECK(text.find(R"("port":-1,"host":null)") != std::string::npos);
  auto back = decode_broker_registration(1, text);
  REQUIRE(back);
  CHECK(back->endpoints == b.endpoints);
}

TEST_CASE("broker registration round-trips IPv6 hosts and racks") {
  broker_registration b;
  b.id = 7;
  b.endpoints = {plaintext("PLAINTEXT", "::1", 9092),
                 {"SASL_SSL", "", 9094, security_protocol::sasl_ssl},
                 plaintext(std::string{troupe_listener}, "127.0.0.1", 4000)};
  b.rack = "rack \"a\"";
  b.jmx_port = 9999;
  b.timestamp_ms = 1623288007386;
  auto text = encode_broker_registration(b);
  CHECK(text.find(R"("PLAINTEXT://[::1]:9092")") != std::string::npos);
  CHECK(text.find(R"("SASL_SSL://:9094")") != std::string::npos);
  auto back = decode_broker_registration(7, text);
  REQUIRE(back);
  CHECK(back->id == 7);
  CHECK(back->endpoints == b.endpoints);
  CHECK(back->rack == b.rack);
  CHECK(back->jmx_port == 9999);
  CHECK(back->timestamp_ms == 1623288007386);
  CHECK(back->version == 5);
}

TEST_CASE("broker registrations Kafka wrote are read") {
  SECTION("Scala 2.12 build, other key order") {
    auto b = decode_broker_registration(
      0,
      R"({"listener_security_protocol_map":{"INSECURE":"PLAINTEXT",)"
      R"("ENCRYPTED":"SSL","REPLICATION":"SASL_PLAINTEXT",)"
      R"("AUTHENTICATED":"SASL_PLAINTEXT"},"endpoints":)"
      R"(["INSECURE://localhost:9092","ENCRYPTED://localhost:19092",)"
      R"("REPLICATION://localhost:29092","AUTHENTICATED://localhost:39092"],)"
      R"("jmx_port":-1,"features":{},"host":"localhost",)"
      R"("timestamp":"1666342423700","port":9092,"version":5})");
    REQUIRE(b);
    REQUIRE(b->endpoints.size() == 4);
    CHECK(b->endpoints[1]
          == broker_endpoint{"ENCRYPTED", "localhost", 19092,
                             security_protocol::ssl});
    CHECK(b->endpoints[3].protocol == security_protocol::sasl_plaintext);
    CHECK_FALSE(b->rack);
  }
  SECTION("version 1: host and port only") {
    auto b = decode_broker_registration(
      3, R"({"version":1,"host":"localhost","port":9092,"jmx_port":9999,)"
         R"("timestamp":"2233345666"})");
    REQUIRE(b);
    CHECK(b->endpoints
          == std::vector<broker_endpoint>{
            plaintext("PLAINTEXT", "localhost", 9092)});
  }
  SECTION("version 2: listeners named after their security protocol") {
    auto b = decode_broker_registration(
      3,
      R"({"version":2,"host":"h","port":9092,"jmx_port":-1,)"
      R"("timestamp":"1","endpoints":["PLAINTEXT://h:9092","SSL://h:9093"]})");
    REQUIRE(b);
    REQUIRE(b->endpoints.size() == 2);
    CHECK(b->endpoints[1].protocol == security_protocol::ssl);
  }
}

TEST_CASE("malformed broker registration is refused with a reason") {
  const char* bad[] = {
    "",
    "null",
    "[1,2]",
    "{\"version\":5",
    R"({"jmx_port":-1,"endpoints":[]})",               // no version
    R"({"version":5,"endpoints":[]})",                 // no jmx_port
    R"({"version":"5","jmx_port":-1,"endpoints":[]})", // string
    R"({"version":0,"jmx_port":-1,"endpoints":[]})",   // version 0
    R"({"version":5,"jmx_port":-1})",                  // no endpoints
    R"({"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT:/h:1"]})",
    R"({"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h:x"]})",
    R"({"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h!:1"]})",
    R"({"version":5,"jmx_port":-1,"endpoints":[42]})",
    // a listener the map does not name
    R"({"version":5,"jmx_port":-1,"endpoints":["CLIENT://h:1"],)"
    R"("listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"}})",
    // an unknown security protocol
    R"({"version":5,"jmx_port":-1,"endpoints":["A://h:1"],)"
    R"("listener_security_protocol_map":{"A":"TLS"}})",
    R"({"version":5,"jmx_port":4.5,"endpoints":[]})",
    R"({"version":5,"jmx_port":-1,"endpoints":[],"rack":7})",
    "{\"version\":5,\"jmx_port\":-1,\"endpoints\":[],\"host\":\"\xff\"}",
  };
  for (auto text : bad) {
    INFO(text);
    auto r = decode_broker_registration(1, text);
    CHECK_FALSE(r);
    CHECK(r.error().find("/brokers/ids/1") == 0);
  }
}

// -- /controller and /controller_epoch ------------------------------------------------

TEST_CASE("controller znode is written as Kafka writes version 1") {
  CHECK(encode_controller(2, 1673382716473)
        == R"({"version":1,"brokerid":2,"timestamp":"1673382716473"})");
  auto c = decode_controller(encode_controller(2, 1673382716473));
  REQUIRE(c);
  CHECK(c->broker_id == 2);
  CHECK(c->timestamp_ms == 1673382716473);
  CHECK(c->version == 1);
  CHECK_FALSE(c->kraft_controller_epoch);
}

TEST_CASE("controller znode of Kafka 3.4+ is read") {
  auto c = decode_controller(R"({"version":2,"brokerid":1,)"
                             R"("timestamp":"1704032949256",)"
                             R"("kraftControllerEpoch":-1})");
  REQUIRE(c);
  CHECK(c->broker_id == 1);
  CHECK(c->version == 2);
  CHECK(c->kraft_controller_epoch == -1);
}

TEST_CASE("malformed controller znode is refused") {
  for (auto text : {"", "{}", R"({"version":1,"brokerid":"1"})",
                    R"({"brokerid":2147483648})", "{\"brokerid\":1"}) {
    INFO(text);
    auto r = decode_controller(text);
    CHECK_FALSE(r);
    CHECK(r.error().find("/controller") == 0);
  }
}

TEST_CASE("controller epoch is decimal text") {
  CHECK(encode_controller_epoch(17) == "17");
  CHECK(*decode_controller_epoch("1") == 1);
  CHECK_FALSE(decode_controller_epoch(""));
  CHECK_FALSE(decode_controller_epoch("1\n"));
  CHECK_FALSE(decode_controller_epoch("{\"epoch\":1}"));
}

// -- /brokers/topics/<t> -----------------------------------------------------------------

TEST_CASE("topic assignment is written byte for byte as Kafka writes it") {
  topic_assignment t;
  auto id = uuid_from_string("W3mXDtj1RsWmsEhQrZjN5g");
  REQUIRE(id);
  t.topic_id = *id;
  t.partitions[0].replicas = {1, 0, 2};
  t.partitions[1].replicas = {0, 2, 1};
  t.partitions[2].replicas = {2, 1, 0};
  t.partitions[3].replicas = {1, 2, 0};
  CHECK(encode_topic_assignment(t)
        == R"({"partitions":{"0":[1,0,2],"1":[0,2,1],"2":[2,1,0],"3":[1,2,0]},)"
           R"("topic_id":"W3mXDtj1RsWmsEhQrZjN5g","adding_replicas":{},)"
           R"("removing_replicas":{},"version":3})");
}

TEST_CASE("topic with twelve partitions has Scala's key order") {
  // Twelve keys grow the partitions map's table to 32 buckets: "11" first.
  topic_assignment t;
  std::vector<std::vector<int32_t>> replicas{
    {0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}, {0, 2, 3},
    {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}, {1, 2, 3}, {1, 3, 4}};
  for (int32_t p = 0; p < 12; ++p)
    t.partitions[p].replicas = replicas[p];
  CHECK(encode_topic_assignment(t)
        == R"({"partitions":{"11":[1,3,4],"0":[0,1,2],"1":[1,2,3],)"
           R"("2":[2,3,4],"3":[3,4,0],"4":[4,0,1],"5":[0,2,3],"6":[1,3,4],)"
           R"("7":[2,4,0],"8":[3,0,1],"9":[4,1,2],"10":[1,2,3]},)"
           R"("adding_replicas":{},"removing_replicas":{},"version":3})");
}

TEST_CASE("topic assignment round-trips a reassignment in progress") {
  topic_assignment t;
  std::mt19937_64 rng{42};
  t.topic_id = random_uuid(rng);
  for (int32_t p = 0; p < 50; ++p)
    t.partitions[p].replicas = {p % 3, (p + 1) % 3};
  t.partitions[7].adding_replicas = {4};
  t.partitions[7].removing_replicas = {0};
  auto back = decode_topic_assignment(encode_topic_assignment(t));
  REQUIRE(back);
  CHECK(back->topic_id == t.topic_id);
  CHECK(back->partitions == t.partitions);
}

TEST_CASE("topic assignment Kafka wrote is read") {
  auto t = decode_topic_assignment(
    R"({"removing_replicas":{},"partitions":{"2":[2,1],"1":[1,3],"0":[3,2]},)"
    R"("topic_id":"RSZ--odYRlSOPGRgukKnAQ","adding_replicas":{},"version":3})");
  REQUIRE(t);
  REQUIRE(t->topic_id);
  CHECK(to_string(*t->topic_id) == "RSZ--odYRlSOPGRgukKnAQ");
  REQUIRE(t->partitions.size() == 3);
  CHECK(t->partitions.at(0).replicas == std::vector<int32_t>{3, 2});
  CHECK(t->partitions.at(2).replicas == std::vector<int32_t>{2, 1});
  // Kafka 1.x wrote version 1 with partitions only.
  auto old = decode_topic_assignment(R"({"version":1,"partitions":{"0":[1]}})");
  REQUIRE(old);
  CHECK_FALSE(old->topic_id);
  CHECK(old->partitions.at(0).replicas == std::vector<int32_t>{1});
}

TEST_CASE("malformed topic assignment is refused") {
  for (auto text :
       {"", "x", R"({"partitions":[]})", R"({"partitions":{"a":[1]}})",
        R"({"partitions":{"0":[1,"2"]}})", R"({"partitions":{"0":1}})",
        R"({"partitions":{},"topic_id":"short"})",
        R"({"partitions":{},"topic_id":"W3mXDtj1RsWmsEhQrZjN5g!"})",
        R"({"partitions":{},"adding_replicas":[]})"}) {
    INFO(text);
    auto r = decode_topic_assignment(text);
    CHECK_FALSE(r);
    CHECK_FALSE(r.error().empty());
  }
}

// -- /brokers/topics/<t>/partitions/<p>/state -------------------------------------------

TEST_CASE("partition state is written byte for byte as Kafka writes it") {
  leader_isr_state s;
  s.controller_epoch = 20;
  s.leader = 1;
  s.leader_epoch = 2;
  s.isr = {1, 0};
  CHECK(encode_partition_state(s)
        == R"({"controller_epoch":20,"leader":1,"version":1,)"
           R"("leader_epoch":2,"isr":[1,0]})");
  auto back = decode_partition_state(encode_partition_state(s));
  REQUIRE(back);
  CHECK(*back == s);
}

TEST_CASE("partition state of an offline partition keeps its last ISR") {
  leader_isr_state s;
  s.controller_epoch = 3;
  s.leader = -1;
  s.leader_epoch = 9;
  s.isr = {2};
  CHECK(encode_partition_state(s)
        == R"({"controller_epoch":3,"leader":-1,"version":1,)"
           R"("leader_epoch":9,"isr":[2]})");
}

TEST_CASE("partition state records a recovering leader") {
  leader_isr_state s;
  s.leader = 4;
  s.isr = {4};
  s.recovery = leader_recovery_state::recovering;
  auto text = encode_partition_state(s);
  CHECK(text.find(R"("leader_recovery_state":1)") != std::string::npos);
  auto back = decode_partition_state(text);
  REQUIRE(back);
  CHECK(back->recovery == leader_recovery_state::recovering);
}

TEST_CASE("malformed partition state is refused") {
  for (auto text :
       {"", R"({"leader":1,"leader_epoch":0,"controller_epoch":1})",
        R"({"leader":1,"leader_epoch":0,"isr":1,"controller_epoch":1})",
        R"({"leader":1.5,"leader_epoch":0,"isr":[],"controller_epoch":1})",
        R"({"leader":1,"leader_epoch":0,"isr":[],"controller_epoch":1,)"
        R"("leader_recovery_state":2})"}) {
    INFO(text);
    CHECK_FALSE(decode_partition_state(text));
  }
}

// -- /cluster/id and topic ids ------------------------------------------------------------

TEST_CASE("cluster id znode is Kafka's") {
  CHECK(encode_cluster_id("eQzK4lYlQ9y8P21IScOl_g")
        == R"({"version":"1","id":"eQzK4lYlQ9y8P21IScOl_g"})");
  CHECK(*decode_cluster_id(R"({"version":"1","id":"abc"})") == "abc");
  CHECK_FALSE(decode_cluster_id(R"({"version":"1"})"));
}

// -- Scala's map order --------------------------------------------------------------------

TEST_CASE("more than four listeners are ordered as Scala's immutable HashMap") {
  std::vector<std::string_view> four{"d", "c", "b", "a"};
  CHECK(scala_immutable_map_order(four) == four);
  // The five keys of a partition state, as Kafka prints them.
  std::vector<std::string_view> keys{"version", "leader", "leader_epoch",
                                     "controller_epoch", "isr"};
  CHECK(scala_immutable_map_order(keys)
        == std::vector<std::string_view>{"controller_epoch", "leader",
                                         "version", "leader_epoch", "isr"});
}

// -- zookeeper.connect -------------------------------------------------------------------

TEST_CASE("zookeeper.connect with servers and a chroot") {
  auto c = parse_connect_string("zk1:2181, zk2:2182,[::1]:2183,zk4/kafka/a");
  REQUIRE(c);
  REQUIRE(c->servers.size() == 4);
  CHECK(c->servers[1].host == "zk2");
  CHECK(c->servers[1].port == 2182);
  CHECK(c->servers[2].host == "::1");
  CHECK(c->servers[3].port == 2181);
  CHECK(c->chroot == "/kafka/a");
  CHECK(c->to_string() == "zk1:2181,zk2:2182,[::1]:2183,zk4:2181/kafka/a");
  auto root = parse_connect_string("localhost:2181/");
  REQUIRE(root);
  CHECK(root->chroot.empty());
}

TEST_CASE("malformed zookeeper.connect is refused with a reason") {
  for (auto bad : {"", ",", "/kafka", "zk:0", "zk:65536", "zk:x", ":2181",
                   "[::1:2181", "zk:2181/kafka/", "zk:2181/kafka//a",
                   "zk:2181/a/../b", "zk:2181/a/./b"}) {
    INFO(bad);
    auto c = parse_connect_string(bad);
    CHECK_FALSE(c);
    CHECK(c.error().find("zookeeper.connect") == 0);
  }
}

TEST_CASE("listeners parse as Kafka's listener lists") {
  auto ls = parse_listeners("PLAINTEXT://127.0.0.1:9092, TROUPE://:9190");
  REQUIRE(ls);
  REQUIRE(ls->size() == 2);
  CHECK((*ls)[0].listener == "PLAINTEXT");
  CHECK((*ls)[0].host == "127.0.0.1");
  CHECK((*ls)[0].port == 9092);
  CHECK((*ls)[1].listener == "TROUPE");
  CHECK((*ls)[1].host.empty()); // all interfaces
  CHECK((*ls)[1].protocol == security_protocol::plaintext);
  CHECK(parse_listeners("SSL://[::1]:9093")->front().protocol
        == security_protocol::ssl);
  for (auto bad :
       {"localhost:9092", "PLAINTEXT://h", "PLAINTEXT://h:x",
        "PLAINTEXT://h:70000", "A://h:1,A://h:2", "A://h:1,B://h:1"}) {
    INFO(bad);
    CHECK_FALSE(parse_listeners(bad));
  }
}

TEST_CASE("the producer id block znode reads and writes Kafka's JSON") {
  // ProducerIdBlockZNode as a Kafka 3.x controller writes it.
  auto text = encode_producer_id_block({2, 1000, 1999});
  CHECK(
    text
    == R"({"version":1,"broker":2,"block_start":"1000","block_end":"1999"})");
  auto b = decode_producer_id_block(text);
  REQUIRE(b);
  CHECK(b->broker_id == 2);
  CHECK(b->first == 1000);
  CHECK(b->last == 1999);
}

TEST_CASE("an empty producer id block znode means no block was handed out") {
  auto b = decode_producer_id_block("");
  REQUIRE(b);
  auto next = next_producer_id_block(*b, 1, 1000);
  REQUIRE(next);
  CHECK(next->first == 0);
  CHECK(next->last == 999);
  CHECK(next->broker_id == 1);
}

TEST_CASE("the next producer id block follows the last one without overlap") {
  auto next = next_producer_id_block({3, 0, 999}, 1, 1000);
  REQUIRE(next);
  CHECK(next->first == 1000);
  CHECK(next->last == 1999);
  auto edge = next_producer_id_block(
    {3, 0, std::numeric_limits<int64_t>::max() - 10}, 1, 1000);
  CHECK_FALSE(edge);
}

TEST_CASE("a malformed producer id block znode is refused with a reason") {
  for (auto bad :
       {R"({"version":1,"broker":1})",
        R"({"version":1,"broker":1,"block_start":"x","block_end":"9"})",
        R"({"version":1,"broker":1,"block_start":"9","block_end":"3"})",
        "not json"}) {
    auto b = decode_producer_id_block(bad);
    CHECK_FALSE(b);
  }
}

TEST_CASE("/admin/reassign_partitions is read and written as Kafka's "
          "ReassignPartitionsZNode") {
  // What kafka-reassign-partitions.sh --zookeeper wrote (Kafka 2.x),
  // log_dirs included.
  auto plan = decode_reassign_partitions(
    R"({"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[2,3],)"
    R"("log_dirs":["any","any"]},{"topic":"b","partition":1,"replicas":[1]}]})");
  REQUIRE(plan);
  CHECK(plan->size() == 2);
  CHECK(plan->at({"a", 0}) == std::vector<int32_t>{2, 3});
  CHECK(plan->at({"b", 1}) == std::vector<int32_t>{1});
  // Derived from ZkData.scala: Map("version" -> 1, "partitions" -> ...).
  CHECK(encode_reassign_partitions(*plan)
        == R"({"version":1,"partitions":[{"topic":"a","partition":0,)"
           R"("replicas":[2,3]},{"topic":"b","partition":1,"replicas":[1]}]})");
  CHECK(decode_reassign_partitions(R"({"version":1})")->empty());
  CHECK_FALSE(decode_reassign_partitions(R"({"partitions":[{"topic":"a"}]})"));
  CHECK_FALSE(decode_reassign_partitions(
    R"({"partitions":[{"topic":"a","partition":0,"replicas":"x"}]})"));
  CHECK_FALSE(decode_reassign_partitions("not json"));
}

TEST_CASE("a broker's dynamic configs live in /config/brokers/<id> with "
          "brokers/<id> change notifications") {
  CHECK(broker_config_path(2) == "/config/brokers/2");
  CHECK(encode_config_change(broker_entity_path(2))
        == R"({"version":2,"entity_path":"brokers/2"})");
  CHECK(encode_topic_config({{"follower.replication.throttled.rate", "10"}})
        == R"({"version":1,"config":{"follower.replication.throttled.rate":"10"}})");
}
