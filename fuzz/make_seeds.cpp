// Writes a starting corpus for the fuzz targets: valid request frames (and
// response bodies) of old and flexible versions for kafka_frame_fuzz and
// valid record batches for record_batch_fuzz, so a short run starts from real
// structure instead of rediscovering it.
//
// usage: make_seeds <corpus-dir>  (writes <dir>/kafka_frame_fuzz/seed-*, ...)

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "domain/kafka/protocol.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;
using namespace troupe::wire;

namespace {

bytes b(const std::string& s) {
  return bytes(s.begin(), s.end());
}

template <class T>
bytes request_frame(api_key key, int16_t version,
                    bool (*encode)(writer&, const T&, int16_t), const T& x) {
  bytes buf;
  writer out{buf};
  auto mark = out.begin_frame();
  encode_request_header(
    out, {static_cast<int16_t>(key), version, 1, std::string{"seed"}});
  encode(out, x, version);
  out.end_frame(mark);
  return buf;
}

/// The two bytes kafka_frame_fuzz reads before a body: the index of (key,
/// version) among every version the codec supports, then 0 for a request
/// body or 1 for a response body.
bytes selector(int16_t key, int16_t version, bool response) {
  size_t index = 0;
  for (const auto& api : supported_versions())
    for (auto v = api.min_version; v <= api.max_version; ++v, ++index)
      if (api.api_key == key && v == version)
        return {static_cast<uint8_t>(index), static_cast<uint8_t>(response)};
  return {0, 0};
}

/// A default request frame, and default request and response bodies behind
/// their selector, of each API at its oldest, first flexible and newest
/// version (those the codec can encode).
template <class Request, class Response>
void defaults(std::vector<bytes>& out, api_key key,
              bool (*encode_request)(writer&, const Request&, int16_t),
              bool (*encode_response)(writer&, const Response&, int16_t)) {
  auto k = static_cast<int16_t>(key);
  for (const auto& api : supported_versions()) {
    if (api.api_key != k)
      continue;
    auto flexible = std::max(first_flexible_version(k), api.min_version);
    for (auto v : {api.min_version, flexible, api.max_version}) {
      bytes frame;
      writer w{frame};
      auto mark = w.begin_frame();
      encode_request_header(w, {k, v, 1, std::string{"seed"}});
      if (encode_request(w, Request{}, v) && w.end_frame(mark))
        out.push_back(frame);
      auto request = selector(k, v, false);
      writer wr{request};
      if (encode_request(wr, Request{}, v))
        out.push_back(request);
      auto response = selector(k, v, true);
      writer wb{response};
      if (encode_response(wb, Response{}, v))
        out.push_back(response);
    }
  }
}

void write(const std::string& path, const bytes& x) {
  std::ofstream out{path, std::ios::binary};
  out.write(reinterpret_cast<const char*>(x.data()),
            static_cast<std::streamsize>(x.size()));
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  auto batch = encode_batch(0, 0,
                            {record{b("k"), b("hello"), 1000, {{"h", b("v")}}},
                             record{std::nullopt, b("world"), 1001, {}}});
  join_group_request join{
    "g", 10000,      30000,
    "",  "consumer", {{"range", {0, 1, 0, 0, 0, 1, 0, 1, 't'}}}};
  std::vector<bytes> frames{
    request_frame(api_key::api_versions, 2, encode_api_versions_request, {}),
    request_frame(api_key::metadata, 1, encode_metadata_request,
                  {std::vector<metadata_request_topic>{{uuid{}, "t"}}}),
    request_frame(api_key::produce, 3, encode_produce_request,
                  {std::nullopt, -1, 1000, {{"t", {{0, batch}}}}}),
    request_frame(api_key::fetch, 4, encode_fetch_request,
                  {-1, 500, 1, 1 << 20, 0, {{"t", {{0, 0, 1 << 20}}}}}),
    request_frame(api_key::list_offsets, 1, encode_list_offsets_request,
                  {-1, {{"t", {{0, latest_timestamp}}}}}),
    request_frame(api_key::offset_commit, 2, encode_offset_commit_request,
                  {"g", 1, "m", -1, {{"t", {{0, 5, std::string{"x"}}}}}}),
    request_frame(api_key::offset_fetch, 1, encode_offset_fetch_request,
                  {"g", std::vector<offset_fetch_topic>{{"t", {0, 1}}}}),
    request_frame(api_key::find_coordinator, 0, encode_find_coordinator_request,
                  {"g"}),
    request_frame(api_key::join_group, 0, encode_join_group_request, join),
    request_frame(api_key::join_group, 1, encode_join_group_request, join),
    request_frame(api_key::heartbeat, 0, encode_heartbeat_request,
                  {"g", 1, "m"}),
    request_frame(api_key::leave_group, 0, encode_leave_group_request,
                  {"g", "m"}),
    request_frame(api_key::sync_group, 0, encode_sync_group_request,
                  {"g", 1, "m", {{"m", {0, 1}}}}),
    request_frame(api_key::describe_groups, 0, encode_describe_groups_request,
                  {{"g"}}),
    request_frame(api_key::list_groups, 0, encode_list_groups_request, {}),
    request_frame(
      api_key::create_topics, 1, encode_create_topics_request,
      {{{"t", 3, 1, {{0, {1}}}, {{"retention.ms", std::string{"1"}}}}},
       1000,
       false}),
    request_frame(api_key::alter_configs, 0, encode_alter_configs_request,
                  {{{config_resource_topic,
                     "t",
                     {{"retention.ms", std::string{"1"}},
                      {"cleanup.policy", std::nullopt}}}},
                   true}),
    request_frame(
      api_key::incremental_alter_configs, 1,
      encode_incremental_alter_configs_request,
      {{{config_resource_topic,
         "t",
         {{"cleanup.policy", config_operation_append, std::string{"compact"}},
          {"retention.ms", config_operation_delete, std::nullopt}}}},
       false}),
  };
  // Kafka 3.9's old versions: Produce v0-2 with magic 0/1 message sets,
  // Fetch v0, ListOffsets v0, OffsetCommit v0-1, OffsetFetch v0.
  // A plain magic 0 and a plain magic 1 message, Kafka's layout written out
  // (the golden bytes of tests/domain/log_legacy_records_tests.cpp; this
  // tool links no domain/log/legacy_records.cpp, see scripts/fuzz.sh).
  auto legacy = [](int8_t magic) {
    auto hex = [](const char* h) {
      bytes out;
      for (; h[0] != 0 && h[1] != 0; h += 2)
        out.push_back(
          static_cast<uint8_t>(std::stoi(std::string{h, 2}, nullptr, 16)));
      return out;
    };
    return magic == 0 ? hex("0000000000000005000000101fecd70a0000000000016b"
                            "0000000176")
                      : hex("0000000000000007000000191cff7dfc01000000018bcfe5"
                            "6800ffffffff00000003616263");
  };
  frames.push_back(
    request_frame(api_key::produce, 0, encode_produce_request,
                  {std::nullopt, 1, 1000, {{"t", {{0, legacy(0)}}}}}));
  frames.push_back(
    request_frame(api_key::produce, 2, encode_produce_request,
                  {std::nullopt, -1, 1000, {{"t", {{0, legacy(1)}}}}}));
  frames.push_back(
    request_frame(api_key::fetch, 0, encode_fetch_request,
                  {-1, 500, 1, 0x7fffffff, 0, {{"t", {{0, 0, 1 << 20}}}}}));
  frames.push_back(
    request_frame(api_key::list_offsets, 0, encode_list_offsets_request,
                  {-1, {{"t", {{0, earliest_timestamp, -1, 1}}}}}));
  frames.push_back(
    request_frame(api_key::offset_commit, 0, encode_offset_commit_request,
                  {"g", -1, "", -1, {{"t", {{0, 5, std::string{"x"}}}}}}));
  frames.push_back(request_frame(
    api_key::offset_commit, 1, encode_offset_commit_request,
    {"g", 1, "m", -1, {{"t", {{0, 5, std::string{"x"}, -1, 1000}}}}}));
  frames.push_back(
    request_frame(api_key::offset_fetch, 0, encode_offset_fetch_request,
                  {"g", std::vector<offset_fetch_topic>{{"t", {0}}}}));
  // Flexible versions with their compact fields and tagged fields set.
  join.group_instance_id = "instance-1";
  join.reason = "seed";
  frames.push_back(
    request_frame(api_key::join_group, 9, encode_join_group_request, join));
  frames.push_back(request_frame(api_key::api_versions, 3,
                                 encode_api_versions_request,
                                 {"librdkafka", "2.0.2"}));
  metadata_request topics_by_id;
  topics_by_id.topics =
    std::vector<metadata_request_topic>{{uuid{1, 2}, std::nullopt}};
  frames.push_back(request_frame(api_key::metadata, 12, encode_metadata_request,
                                 topics_by_id));
  fetch_request fetch;
  fetch.session_epoch = 0;
  fetch.cluster_id = "cluster";
  fetch.replica_state = fetch_replica_state{1, 7};
  fetch_topic ft;
  ft.topic_id = uuid{3, 4};
  fetch_partition fp;
  fp.replica_directory_id = uuid{5, 6};
  ft.partitions = {fp};
  fetch.topics = {ft};
  fetch.forgotten_topics_data = {{"", uuid{7, 8}, {1, 2}}};
  frames.push_back(
    request_frame(api_key::fetch, 17, encode_fetch_request, fetch));
  consumer_group_heartbeat_request heartbeat;
  heartbeat.group_id = "g";
  heartbeat.member_id = "m";
  heartbeat.subscribed_topic_names = std::vector<std::string>{"t"};
  heartbeat.subscribed_topic_regex = "t.*";
  heartbeat.topic_partitions =
    std::vector<consumer_group_topic_partitions>{{uuid{1, 1}, {0, 1}}};
  frames.push_back(request_frame(api_key::consumer_group_heartbeat, 1,
                                 encode_consumer_group_heartbeat_request,
                                 heartbeat));
  produce_response produced;
  produce_partition_response pr;
  pr.current_leader = leader_id_and_epoch{2, 5};
  produced.responses = {{"t", {pr}}};
  produced.node_endpoints = std::vector<node_endpoint>{{2, "h", 9092, {}}};
  auto produced_body = selector(0, 12, true);
  writer pw{produced_body};
  encode_produce_response(pw, produced, 12);
  frames.push_back(produced_body);
#define TROUPE_SEED_DEFAULTS(name)                                             \
  defaults(frames, api_key::name, encode_##name##_request,                     \
           encode_##name##_response);
  TROUPE_SEED_DEFAULTS(api_versions)
  TROUPE_SEED_DEFAULTS(metadata)
  TROUPE_SEED_DEFAULTS(produce)
  TROUPE_SEED_DEFAULTS(fetch)
  TROUPE_SEED_DEFAULTS(list_offsets)
  TROUPE_SEED_DEFAULTS(offset_commit)
  TROUPE_SEED_DEFAULTS(offset_fetch)
  TROUPE_SEED_DEFAULTS(find_coordinator)
  TROUPE_SEED_DEFAULTS(join_group)
  TROUPE_SEED_DEFAULTS(heartbeat)
  TROUPE_SEED_DEFAULTS(leave_group)
  TROUPE_SEED_DEFAULTS(sync_group)
  TROUPE_SEED_DEFAULTS(describe_groups)
  TROUPE_SEED_DEFAULTS(list_groups)
  TROUPE_SEED_DEFAULTS(create_topics)
  TROUPE_SEED_DEFAULTS(delete_topics)
  TROUPE_SEED_DEFAULTS(init_producer_id)
  TROUPE_SEED_DEFAULTS(offset_for_leader_epoch)
  TROUPE_SEED_DEFAULTS(describe_configs)
  TROUPE_SEED_DEFAULTS(alter_configs)
  TROUPE_SEED_DEFAULTS(incremental_alter_configs)
  TROUPE_SEED_DEFAULTS(describe_cluster)
  TROUPE_SEED_DEFAULTS(consumer_group_heartbeat)
  TROUPE_SEED_DEFAULTS(consumer_group_describe)
  TROUPE_SEED_DEFAULTS(describe_acls)
  TROUPE_SEED_DEFAULTS(create_acls)
  TROUPE_SEED_DEFAULTS(delete_acls)
  TROUPE_SEED_DEFAULTS(describe_user_scram_credentials)
  TROUPE_SEED_DEFAULTS(alter_user_scram_credentials)
  TROUPE_SEED_DEFAULTS(sasl_handshake)
  TROUPE_SEED_DEFAULTS(sasl_authenticate)
  TROUPE_SEED_DEFAULTS(delete_groups)
  TROUPE_SEED_DEFAULTS(offset_delete)
  TROUPE_SEED_DEFAULTS(delete_records)
  TROUPE_SEED_DEFAULTS(describe_log_dirs)
  TROUPE_SEED_DEFAULTS(create_partitions)
  TROUPE_SEED_DEFAULTS(elect_leaders)
  TROUPE_SEED_DEFAULTS(alter_partition_reassignments)
  TROUPE_SEED_DEFAULTS(list_partition_reassignments)
#undef TROUPE_SEED_DEFAULTS
  for (size_t i = 0; i < frames.size(); ++i)
    write(dir + "/kafka_frame_fuzz/seed-" + std::to_string(i), frames[i]);
  write(dir + "/record_batch_fuzz/seed-0", batch);
  write(dir + "/record_batch_fuzz/seed-1",
        encode_batch(42, 3, {record{std::nullopt, std::nullopt, 5, {}}}));
  auto run = batch;
  run.insert(run.end(), batch.begin(), batch.end());
  write(dir + "/record_batch_fuzz/seed-2", run);
  return 0;
}
