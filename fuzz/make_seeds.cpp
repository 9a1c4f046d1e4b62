// Writes a starting corpus for the fuzz targets: valid request frames for
// kafka_frame_fuzz and valid record batches for record_batch_fuzz, so a short
// run starts from real structure instead of rediscovering it.
//
// usage: make_seeds <corpus-dir>  (writes <dir>/kafka_frame_fuzz/seed-*, ...)

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "domain/kafka/protocol.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;
using namespace troupe::kafka;

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
                  {std::vector<std::string>{"t"}}),
    request_frame(api_key::produce, 3, encode_produce_request,
                  {std::nullopt, -1, 1000, {{"t", {{0, batch}}}}}),
    request_frame(api_key::fetch, 4, encode_fetch_request,
                  {-1, 500, 1, 1 << 20, 0, {{"t", {{0, 0, 1 << 20}}}}}),
    request_frame(api_key::list_offsets, 1, encode_list_offsets_request,
                  {-1, {{"t", {{0, latest_timestamp}}}}}),
    request_frame(api_key::offset_commit, 2, encode_offset_commit_request,
                  {"g", 1, "m", -1, {{"t", {{0, 5, std::string{"x"}}}}}}),
    request_frame(api_key::offset_fetch, 1, encode_offset_fetch_request,
                  {"g", {{"t", {0, 1}}}}),
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
  };
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
