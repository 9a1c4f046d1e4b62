// __consumer_offsets records in Kafka's own schemas (docs/ARCHITECTURE.md
// §3): the bytes troupe writes, against bytes assembled by hand from Kafka
// 3.9's group-coordinator/src/main/resources/common/message/*.json (not from
// troupe's encoder), and every value version Kafka 3.9 reads.

#include <catch2/catch.hpp>

#include <cctype>
#include <string>

#include "storage/offsets_records.hpp"

using namespace troupe;

namespace {

/// Bytes from hex digits and 'quoted' ASCII, spaces ignored:
/// "00 01 'g'" is {0x00, 0x01, 0x67}.
bytes b(const std::string& spec) {
  bytes out;
  for (size_t i = 0; i < spec.size(); ++i) {
    auto c = spec[i];
    if (c == ' ')
      continue;
    if (c == '\'') {
      auto end = spec.find('\'', i + 1);
      for (auto j = i + 1; j < end; ++j)
        out.push_back(static_cast<uint8_t>(spec[j]));
      i = end;
      continue;
    }
    out.push_back(
      static_cast<uint8_t>(std::stoi(spec.substr(i, 2), nullptr, 16)));
    ++i;
  }
  return out;
}

const uuid topic_id{1, 2};
// A Uuid on the wire: most significant long, then least significant.
const std::string topic_id_bytes =
  "00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 02";

} // namespace

TEST_CASE("an offset commit is written as Kafka 3.9 writes it: "
          "OffsetCommitKey v1 and OffsetCommitValue v3") {
  auto r = offset_commit_record("g", {"t", 3}, {5, 2, "m", 1000});
  // version 1, group "g", topic "t", partition 3
  CHECK(r.key == b("00 01  00 01 'g'  00 01 't'  00 00 00 03"));
  // version 3, offset, leaderEpoch (v3+), metadata, commitTimestamp
  REQUIRE(r.value);
  CHECK(*r.value
        == b("00 03  00 00 00 00 00 00 00 05  00 00 00 02  00 01 'm'"
             "  00 00 00 00 00 00 03 e8"));
  auto t = offset_tombstone("g", {"t", 3});
  CHECK(t.key == r.key);
  CHECK_FALSE(t.value);
}

TEST_CASE("a group's metadata is written as GroupMetadataKey v2 and "
          "GroupMetadataValue v3, protocol and leader null without members") {
  stored_group g{"consumer", 1, "range",
                 "m1",       7, {{"m1", "", "c", "/h", 300, 100, {1, 2}, {3}}}};
  auto r = group_metadata_record("g", g);
  CHECK(r.key == b("00 02  00 01 'g'"));
  REQUIRE(r.value);
  CHECK(
    *r.value
    == b("00 03  00 08 'consumer'  00 00 00 01  00 05 'range'  00 02 'm1'"
         "  00 00 00 00 00 00 00 07"  // currentStateTimestamp (v2+)
         "  00 00 00 01"              // one member
         "  00 02 'm1'  ff ff"        // memberId, groupInstanceId null (v3+)
         "  00 01 'c'  00 02 '/h'"    // clientId, clientHost
         "  00 00 01 2c  00 00 00 64" // rebalanceTimeout (v1+), sessionTimeout
         "  00 00 00 02 01 02  00 00 00 01 03")); // subscription, assignment
  stored_group empty{"consumer", 2, "", "", 9, {}};
  CHECK(*group_metadata_record("g", empty).value
        == b("00 03  00 08 'consumer'  00 00 00 02  ff ff  ff ff"
             "  00 00 00 00 00 00 00 09  00 00 00 00"));
  CHECK(group_tombstone("g").key == r.key);
  CHECK_FALSE(group_tombstone("g").value);
}

TEST_CASE("KIP-848 records are written with key versions 3 to 8 and flexible "
          "v0 values with tagged fields") {
  auto kv = [](consumer_group_record r) {
    return consumer_group_record_kv("g", r);
  };
  auto epoch = kv(group_epoch_record{5, false});
  CHECK(epoch.key == b("00 03  00 01 'g'"));
  CHECK(*epoch.value == b("00 00  00 00 00 05  00"));

  subscription_metadata_record sub;
  sub.topics.push_back({topic_id, "t", 3});
  auto s = kv(sub);
  CHECK(s.key == b("00 04  00 01 'g'"));
  // Topics: compact array of 1; TopicId, TopicName (compact), NumPartitions,
  // PartitionMetadata (empty compact array), the topic's tags; the tags.
  CHECK(
    *s.value
    == b("00 00  02 " + topic_id_bytes + " 02 't'  00 00 00 03  01 00  00"));

  member_metadata_record m;
  m.member_id = "m1";
  m.client_id = "c";
  m.client_host = "/h";
  m.subscribed_topic_names = {"t"};
  m.rebalance_timeout_ms = 300;
  m.server_assignor = "uniform";
  auto mm = kv(m);
  CHECK(mm.key == b("00 05  00 01 'g'  00 02 'm1'"));
  // InstanceId null, RackId null, ClientId, ClientHost, SubscribedTopicNames,
  // SubscribedTopicRegex null, RebalanceTimeoutMs, ServerAssignor, tags.
  CHECK(*mm.value
        == b("00 00  00 00  02 'c'  03 '/h'  02 02 't'  00"
             "  00 00 01 2c  08 'uniform'  00"));

  auto ta_epoch = kv(target_assignment_epoch_record{9, false});
  CHECK(ta_epoch.key == b("00 06  00 01 'g'"));
  CHECK(*ta_epoch.value == b("00 00  00 00 00 09  00"));

  target_assignment_record ta{"m1", {{topic_id, {7}}}, false};
  auto t = kv(ta);
  CHECK(t.key == b("00 07  00 01 'g'  00 02 'm1'"));
  CHECK(*t.value
        == b("00 00  02 " + topic_id_bytes + " 02 00 00 00 07  00  00"));

  current_assignment_record ca;
  ca.member_id = "m1";
  ca.member_epoch = 5;
  ca.previous_member_epoch = 4;
  ca.state = member_state::stable;
  ca.assigned = {{topic_id, {0, 1}}};
  auto c = kv(ca);
  CHECK(c.key == b("00 08  00 01 'g'  00 02 'm1'"));
  CHECK(*c.value
        == b("00 00  00 00 00 05  00 00 00 04  00"
             "  02 "
             + topic_id_bytes
             + " 03 00 00 00 00 00 00 00 01  00"
               "  01  00"));

  auto tomb =
    kv(member_metadata_record{"m1", {}, {}, "", "", {}, {}, -1, {}, true});
  CHECK(tomb.key == mm.key);
  CHECK_FALSE(tomb.value);
}

TEST_CASE("every OffsetCommitValue version Kafka 3.9 reads, v0 to v4, "
          "replays to the committed offset") {
  auto key = b("00 01  00 01 'g'  00 01 't'  00 00 00 00");
  struct version {
    const char* value;
    int32_t leader_epoch;
  };
  // offset 5, metadata "m", commitTimestamp 1000 in each; v1 also has
  // expireTimestamp 2000, v3 and v4 leaderEpoch 2; v4 is flexible.
  const version versions[] = {
    {"00 00  00 00 00 00 00 00 00 05  00 01 'm'  00 00 00 00 00 00 03 e8", -1},
    {"00 01  00 00 00 00 00 00 00 05  00 01 'm'  00 00 00 00 00 00 03 e8"
     "  00 00 00 00 00 00 07 d0",
     -1},
    {"00 02  00 00 00 00 00 00 00 05  00 01 'm'  00 00 00 00 00 00 03 e8", -1},
    {"00 03  00 00 00 00 00 00 00 05  00 00 00 02  00 01 'm'"
     "  00 00 00 00 00 00 03 e8",
     2},
    {"00 04  00 00 00 00 00 00 00 05  00 00 00 02  02 'm'"
     "  00 00 00 00 00 00 03 e8  00",
     2},
  };
  for (const auto& v : versions) {
    INFO(v.value);
    offsets_partition_state st;
    st.apply({key, b(v.value)});
    CHECK(st.malformed == 0);
    REQUIRE(st.offsets.count("g"));
    auto& c = st.offsets.at("g").at({"t", 0});
    CHECK(c.offset == 5);
    CHECK(c.leader_epoch == v.leader_epoch);
    CHECK(c.metadata == "m");
    CHECK(c.commit_timestamp_ms == 1000);
  }
  // Record type 0, OffsetCommitKey v0, is read as well.
  offsets_partition_state st;
  st.apply(
    {b("00 00  00 01 'g'  00 01 't'  00 00 00 01"), b(versions[0].value)});
  CHECK(st.offsets.at("g").at({"t", 1}).offset == 5);
}

TEST_CASE("every GroupMetadataValue version Kafka 3.9 reads, v0 to v4, "
          "replays to the group") {
  auto key = b("00 02  00 01 'g'");
  const std::string head = "00 08 'consumer'  00 00 00 03  00 05 'range'"
                           "  00 02 'm1'";
  const std::string compact_head = "09 'consumer'  00 00 00 03  06 'range'"
                                   "  03 'm1'";
  const std::string values[] = {
    // v0: no currentStateTimestamp, no rebalanceTimeout, no groupInstanceId
    "00 00 " + head
      + "  00 00 00 01  00 02 'm1'  00 01 'c'  00 02 '/h'"
        "  00 00 00 64  00 00 00 01 01  00 00 00 01 02",
    // v1: rebalanceTimeout
    "00 01 " + head
      + "  00 00 00 01  00 02 'm1'  00 01 'c'  00 02 '/h'"
        "  00 00 01 2c  00 00 00 64  00 00 00 01 01  00 00 00 01 02",
    // v2: currentStateTimestamp
    "00 02 " + head
      + "  00 00 00 00 00 00 00 07  00 00 00 01  00 02 'm1'"
        "  00 01 'c'  00 02 '/h'  00 00 01 2c  00 00 00 64  00 00 00 01 01"
        "  00 00 00 01 02",
    // v3: groupInstanceId
    "00 03 " + head
      + "  00 00 00 00 00 00 00 07  00 00 00 01  00 02 'm1'"
        "  00 02 'i1'  00 01 'c'  00 02 '/h'  00 00 01 2c  00 00 00 64"
        "  00 00 00 01 01  00 00 00 01 02",
    // v4: flexible (compact strings, bytes and arrays, tagged fields)
    "00 04 " + compact_head
      + "  00 00 00 00 00 00 00 07  02  03 'm1'"
        "  03 'i1'  02 'c'  03 '/h'  00 00 01 2c  00 00 00 64  02 01  02 02"
        "  00  00",
  };
  for (size_t v = 0; v < 5; ++v) {
    INFO("GroupMetadataValue v" << v);
    offsets_partition_state st;
    st.apply({key, b(values[v])});
    CHECK(st.malformed == 0);
    REQUIRE(st.groups.count("g"));
    auto& g = st.groups.at("g");
    CHECK(g.protocol_type == "consumer");
    CHECK(g.generation == 3);
    CHECK(g.protocol == "range");
    CHECK(g.leader == "m1");
    CHECK(g.timestamp_ms == (v >= 2 ? 7 : -1));
    REQUIRE(g.members.size() == 1);
    auto& m = g.members[0];
    CHECK(m.member_id == "m1");
    CHECK(m.group_instance_id == (v >= 3 ? "i1" : ""));
    CHECK(m.client_id == "c");
    CHECK(m.client_host == "/h");
    CHECK(m.rebalance_timeout_ms == (v >= 1 ? 300 : -1));
    CHECK(m.session_timeout_ms == 100);
    CHECK(m.subscription == bytes{1});
    CHECK(m.assignment == bytes{2});
  }
}

TEST_CASE("a consumer group member value with Kafka's tagged "
          "ClassicMemberMetadata is read, the tag skipped") {
  // ClassicMemberMetadata (tag 0): SessionTimeoutMs 45000, SupportedProtocols
  // [{"range", 0x01}], as a nullable struct: marker 1, the struct, its tags.
  auto classic = "01  00 00 af c8  02  06 'range' 02 01  00  00";
  auto value = b(std::string("00 00  00 00  02 'c'  03 '/h'  02 02 't'  00"
                             "  00 00 01 2c  08 'uniform'  01 00 10 ")
                 + classic);
  offsets_partition_state st;
  st.apply({b("00 03  00 01 'g'"), b("00 00  00 00 00 01  00")});
  st.apply({b("00 05  00 01 'g'  00 02 'm1'"), value});
  CHECK(st.malformed == 0);
  auto& m = st.consumer_groups.at("g").members.at("m1");
  CHECK(m.client_id == "c");
  CHECK(m.rebalance_timeout_ms == 300);
  CHECK(m.server_assignor == std::optional<std::string>{"uniform"});
}

TEST_CASE("records of an unknown record type or value version are skipped and "
          "counted, as Kafka's coordinator loader skips them") {
  offsets_partition_state st;
  // Record type 9 (a share group's record in Kafka 4.x).
  st.apply({b("00 09  00 01 'g'"), b("00 00  00 00 00 01  00")});
  // OffsetCommitValue v5 does not exist in Kafka 3.9.
  st.apply({b("00 01  00 01 'g'  00 01 't'  00 00 00 00"),
            b("00 05  00 00 00 00 00 00 00 05  00 00 00 02  02 'm'"
              "  00 00 00 00 00 00 03 e8  00")});
  // ConsumerGroupMetadataValue v1 neither.
  st.apply({b("00 03  00 01 'g'"), b("00 01  00 00 00 01  00")});
  // A negative record type.
  st.apply({b("ff 00  00 01 'g'"), std::nullopt});
  CHECK(st.malformed == 4);
  CHECK(st.offsets.empty());
  CHECK(st.consumer_groups.empty());
}

TEST_CASE("a Kafka record's key starts with 0x00 and a key of troupe's old "
          "protobuf records never does") {
  CHECK_FALSE(is_legacy_key(offset_commit_record("g", {"t", 0}, {}).key));
  CHECK_FALSE(is_legacy_key(group_tombstone("").key));
  CHECK_FALSE(is_legacy_key(
    consumer_group_record_kv("", current_assignment_record{}).key));
  // The old format: ConsumerOffsetsRecord with one key field set. Its first
  // byte is the tag of that field (number << 3 | 2, a length-delimited
  // message): 0x0a offset_key, 0x12 group_key, 0x2a..0x52 the KIP-848 keys;
  // protobuf has no field number 0, and a set message field is written even
  // when empty. Here the keys of the old release for group "" as it wrote
  // them (an empty submessage: tag, length 0).
  for (uint8_t field : {1, 2, 5, 6, 7, 8, 9, 10}) {
    bytes old_key{static_cast<uint8_t>(field << 3 | 2), 0x00};
    CHECK(is_legacy_key(old_key));
  }
  CHECK_FALSE(is_legacy_key(bytes{}));
}

TEST_CASE("every record type round-trips through Kafka's format into the "
          "partition state") {
  offsets_partition_state st;
  st.apply(offset_commit_record("g", {"t", 0}, {9, 3, "meta", 77}));
  stored_group g{"consumer",
                 4,
                 "range",
                 "m1",
                 55,
                 {{"m1", "i1", "c", "/h", 300, 100, {1}, {2}},
                  {"m2", "", "c2", "/h2", -1, 100, {}, {}}}};
  st.apply(group_metadata_record("g", g));
  member_metadata_record m{"m1",
                           std::string{"i"},
                           std::string{"r"},
                           "c",
                           "/h",
                           {"t"},
                           std::string{"t.*"},
                           300,
                           std::string{"range"},
                           false};
  subscription_metadata_record sub{{{topic_id, "t", 3}}, false};
  target_assignment_record ta{"m1", {{topic_id, {0, 2}}}, false};
  current_assignment_record ca{"m1",
                               5,
                               4,
                               member_state::unrevoked_partitions,
                               {{topic_id, {0}}},
                               {{topic_id, {1}}},
                               false};
  for (consumer_group_record r :
       {consumer_group_record{group_epoch_record{5, false}},
        consumer_group_record{sub}, consumer_group_record{m},
        consumer_group_record{target_assignment_epoch_record{5, false}},
        consumer_group_record{ta}, consumer_group_record{ca}})
    st.apply(consumer_group_record_kv("cg", r));
  CHECK(st.malformed == 0);
  CHECK(st.legacy_keys.empty());
  auto& o = st.offsets.at("g").at({"t", 0});
  CHECK(o.offset == 9);
  CHECK(o.leader_epoch == 3);
  CHECK(o.metadata == "meta");
  CHECK(o.commit_timestamp_ms == 77);
  CHECK(st.groups.at("g") == g);
  consumer_group_image expected;
  for (consumer_group_record r :
       {consumer_group_record{group_epoch_record{5, false}},
        consumer_group_record{sub}, consumer_group_record{m},
        consumer_group_record{target_assignment_epoch_record{5, false}},
        consumer_group_record{ta}, consumer_group_record{ca}})
    expected.apply(r);
  CHECK(st.consumer_groups.at("cg") == expected);
  // The group's records as consumer_group_records writes them replay to the
  // same image.
  offsets_partition_state again;
  for (const auto& r : consumer_group_records("cg", expected))
    again.apply(r);
  CHECK(again.consumer_groups.at("cg") == expected);
}
