// The upgrade from troupe's old protobuf records of __consumer_offsets to
// Kafka's (docs/ARCHITECTURE.md §3): a log written by the release before
// issue 20 (tests/fixtures/legacy_offsets, made by that release with real
// clients) loads with nothing lost, and the rewrite a coordinator appends
// after loading it keeps the state through replay and compaction.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "consumer_offsets.pb.h"
#include "domain/log/record_batches.hpp"
#include "domain/offsets/committed_offsets.hpp"
#include "storage/offsets_records.hpp"

using namespace troupe;
namespace fs = std::filesystem;

namespace {

const fs::path fixture =
  fs::path{TROUPE_SOURCE_DIR} / "tests" / "fixtures" / "legacy_offsets";

/// When the coordinator loads the partition (2025-12-02, wall clock).
constexpr int64_t load_ms = 1764633600000;

/// The fixture's __consumer_offsets-0 records in log order, read from its
/// segment files as they are on disk (the files are not opened for writing).
std::vector<record_kv> fixture_records() {
  auto dir = fixture / "logs" / "broker-0" / "__consumer_offsets-0";
  std::vector<fs::path> segments;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".log")
      segments.push_back(e.path());
  std::sort(segments.begin(), segments.end());
  REQUIRE_FALSE(segments.empty());
  std::vector<record_kv> out;
  for (const auto& s : segments) {
    std::ifstream in{s, std::ios::binary};
    bytes data{std::istreambuf_iterator<char>(in), {}};
    record_batches batches{data};
    for (const auto& b : batches) {
      auto records = b.records();
      REQUIRE(records);
      for (auto& r : *records)
        out.push_back({r.key.value_or(bytes{}), r.value});
    }
    REQUIRE(batches.whole_size() == data.size());
  }
  return out;
}

offsets_partition_state replay(const std::vector<record_kv>& records) {
  offsets_partition_state st;
  for (const auto& r : records)
    st.apply(r);
  return st;
}

std::vector<record_kv>
flatten(const std::vector<std::vector<record_kv>>& batches) {
  std::vector<record_kv> out;
  for (const auto& b : batches)
    out.insert(out.end(), b.begin(), b.end());
  return out;
}

/// What Kafka's cleaner leaves: the last record of each key, in log order;
/// without `tombstones` also no tombstone (past delete.retention.ms).
std::vector<record_kv> compacted(const std::vector<record_kv>& log,
                                 bool tombstones) {
  std::map<bytes, size_t> last;
  for (size_t i = 0; i < log.size(); ++i)
    last[log[i].key] = i;
  std::vector<record_kv> out;
  for (size_t i = 0; i < log.size(); ++i)
    if (last[log[i].key] == i && (tombstones || log[i].value))
      out.push_back(log[i]);
  return out;
}

bool same_offsets(const offsets_partition_state& x,
                  const offsets_partition_state& y) {
  if (x.offsets.size() != y.offsets.size())
    return false;
  for (const auto& [group, offsets] : x.offsets) {
    auto i = y.offsets.find(group);
    if (i == y.offsets.end() || i->second.size() != offsets.size())
      return false;
    for (const auto& [tp, o] : offsets) {
      auto j = i->second.find(tp);
      if (j == i->second.end() || j->second.offset != o.offset
          || j->second.leader_epoch != o.leader_epoch
          || j->second.metadata != o.metadata
          || j->second.commit_timestamp_ms != o.commit_timestamp_ms)
        return false;
    }
  }
  return true;
}

/// `st` with its stamps as the rewrite writes them: the old release's
/// steady-clock stamps become the load's wall clock.
offsets_partition_state stamped(offsets_partition_state st) {
  for (auto& [group, offsets] : st.offsets)
    for (auto& [tp, o] : offsets)
      o.commit_timestamp_ms =
        loaded_timestamp_ms(o.commit_timestamp_ms, load_ms);
  for (auto& [id, g] : st.groups)
    g.timestamp_ms = loaded_timestamp_ms(g.timestamp_ms, load_ms);
  return st;
}

void check_same_state(const offsets_partition_state& x,
                      const offsets_partition_state& y) {
  CHECK(same_offsets(x, y));
  CHECK(x.groups == y.groups);
  CHECK(x.consumer_groups == y.consumer_groups);
}

std::vector<std::vector<std::string>> manifest() {
  std::ifstream in{fixture / "manifest.tsv"};
  REQUIRE(in);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> row;
    std::stringstream fields{line};
    std::string field;
    while (std::getline(fields, field, '\t'))
      row.push_back(field);
    if (!line.empty() && line.back() == '\t')
      row.emplace_back();
    rows.push_back(std::move(row));
  }
  return rows;
}

/// The value of `key=` among a manifest row's fields.
std::string attr(const std::vector<std::string>& row, const std::string& key) {
  for (const auto& f : row)
    if (f.rfind(key + "=", 0) == 0)
      return f.substr(key.size() + 1);
  FAIL("manifest row has no " << key);
  return {};
}

/// A record as the release before issue 20 wrote it.
record_kv legacy_offset(const std::string& group, const topic_partition& tp,
                        std::optional<int64_t> offset, int64_t stamp = 5000) {
  proto::ConsumerOffsetsRecord key;
  auto k = key.mutable_offset_key();
  k->set_group(group);
  k->set_topic(tp.topic);
  k->set_partition(tp.partition);
  std::string kb;
  key.SerializeToString(&kb);
  record_kv r{bytes(kb.begin(), kb.end()), std::nullopt};
  if (offset) {
    proto::ConsumerOffsetsRecord value;
    value.mutable_offset_value()->set_offset(*offset);
    value.mutable_offset_value()->set_leader_epoch(-1);
    value.mutable_offset_value()->set_commit_timestamp_ms(stamp);
    std::string vb;
    value.SerializeToString(&vb);
    r.value = bytes(vb.begin(), vb.end());
  }
  return r;
}

} // namespace

TEST_CASE("a log written by the release before issue 20 replays with every "
          "committed offset and group of its manifest") {
  auto records = fixture_records();
  // Every key the old release wrote starts with a field tag, never 0x00.
  for (const auto& r : records)
    CHECK(is_legacy_key(r.key));
  auto st = replay(records);
  CHECK(st.malformed == 0);
  CHECK(st.needs_upgrade());
  size_t offsets = 0;
  for (const auto& row : manifest()) {
    INFO(row[0] << " " << row[1]);
    if (row[0] == "offset") {
      REQUIRE(row.size() == 7);
      ++offsets;
      REQUIRE(st.offsets.count(row[1]));
      auto& group = st.offsets.at(row[1]);
      topic_partition tp{row[2], std::stoi(row[3])};
      REQUIRE(group.count(tp));
      CHECK(group.at(tp).offset == std::stoll(row[4]));
      CHECK(group.at(tp).leader_epoch == std::stoi(row[5]));
      CHECK(group.at(tp).metadata == row[6]);
      CHECK(group.at(tp).commit_timestamp_ms > 0);
    } else if (row[0] == "classic") {
      CHECK(st.consumer_groups.count(row[1]) == 0);
      auto members = std::stoul(attr(row, "members"));
      if (members == 0) {
        // Empty: its metadata, if stored, has no members.
        if (auto i = st.groups.find(row[1]); i != st.groups.end())
          CHECK(i->second.members.empty());
        continue;
      }
      REQUIRE(st.groups.count(row[1]));
      auto& g = st.groups.at(row[1]);
      CHECK(g.protocol_type == row[2]);
      CHECK(g.generation == std::stoi(attr(row, "generation")));
      CHECK(g.protocol == attr(row, "protocol"));
      CHECK(g.leader == attr(row, "leader"));
      REQUIRE(g.members.size() == members);
      CHECK(g.members[0].member_id == attr(row, "member"));
      CHECK(g.members[0].client_id == attr(row, "client_id"));
      CHECK_FALSE(g.members[0].subscription.empty());
      CHECK_FALSE(g.members[0].assignment.empty());
    } else if (row[0] == "consumer") {
      REQUIRE(st.consumer_groups.count(row[1]));
      auto& g = st.consumer_groups.at(row[1]);
      CHECK(g.exists);
      CHECK(g.group_epoch > 0);
      CHECK(g.assignment_epoch == g.group_epoch);
      REQUIRE(g.members.size() == std::stoul(attr(row, "members")));
      auto member = attr(row, "member");
      REQUIRE(g.members.count(member));
      auto& m = g.members.at(member);
      auto topic = attr(row, "subscribed");
      CHECK(m.subscribed_topic_names.count(topic));
      REQUIRE(g.subscription_metadata.count(topic));
      auto id = g.subscription_metadata.at(topic).id;
      REQUIRE(m.assigned.count(id));
      CHECK(m.assigned.at(id) == std::set<int32_t>{0, 1, 2});
      CHECK(g.target_assignment.at(member) == m.assigned);
    }
  }
  CHECK(offsets == 13);
  size_t in_state = 0;
  for (const auto& [group, o] : st.offsets)
    in_state += o.size();
  CHECK(in_state == offsets);
}

TEST_CASE("the upgrade rewrite appended after the old release's records "
          "replays to the same state, and the next load needs none") {
  auto log = fixture_records();
  auto before = replay(log);
  auto batches = upgrade_batches(before, load_ms);
  REQUIRE(batches.size() == 1);
  auto rewrite = batches[0];
  // Every protobuf key whose last record holds a value gets its tombstone,
  // and everything else in the rewrite is in Kafka's format.
  size_t legacy = 0;
  for (const auto& r : rewrite) {
    if (is_legacy_key(r.key)) {
      ++legacy;
      CHECK_FALSE(r.value);
      CHECK(before.legacy_keys.at(r.key));
    }
  }
  CHECK(legacy
        == static_cast<size_t>(
          std::count_if(before.legacy_keys.begin(), before.legacy_keys.end(),
                        [](const auto& kv) { return kv.second; })));
  log.insert(log.end(), rewrite.begin(), rewrite.end());
  auto after = replay(log);
  CHECK(after.malformed == 0);
  check_same_state(stamped(before), after);
  CHECK_FALSE(after.needs_upgrade());
  CHECK(upgrade_batches(after, load_ms).empty());
}

TEST_CASE("after the upgrade rewrite, compaction leaves no protobuf value "
          "and the same state, before and after its tombstones go") {
  auto log = fixture_records();
  auto before = replay(log);
  auto rewrite = flatten(upgrade_batches(before, load_ms));
  log.insert(log.end(), rewrite.begin(), rewrite.end());
  for (bool tombstones : {true, false}) {
    INFO("tombstones kept: " << tombstones);
    auto cleaned = compacted(log, tombstones);
    for (const auto& r : cleaned)
      if (is_legacy_key(r.key))
        CHECK_FALSE(r.value);
    auto st = replay(cleaned);
    check_same_state(stamped(before), st);
    CHECK_FALSE(st.needs_upgrade());
  }
  // Without the rewrite, compaction would keep the protobuf records.
  auto cleaned = compacted(fixture_records(), false);
  CHECK(std::any_of(cleaned.begin(), cleaned.end(),
                    [](const auto& r) { return is_legacy_key(r.key); }));
}

TEST_CASE("the upgrade rewrite puts each protobuf tombstone before the Kafka "
          "record of its logical key") {
  auto before = replay(fixture_records());
  auto rewrite = flatten(upgrade_batches(before, load_ms));
  // Replaying each protobuf tombstone on its own erases its logical key;
  // whatever the rewrite states for that key must come after it, or the
  // tombstone would erase it on every later load.
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (!is_legacy_key(rewrite[i].key))
      continue;
    for (size_t j = 0; j < i; ++j)
      CHECK(is_legacy_key(rewrite[j].key));
  }
  // Swapped, the state is lost: the order matters.
  std::vector<record_kv> swapped;
  for (const auto& r : rewrite)
    if (!is_legacy_key(r.key))
      swapped.push_back(r);
  for (const auto& r : rewrite)
    if (is_legacy_key(r.key))
      swapped.push_back(r);
  auto log = fixture_records();
  log.insert(log.end(), swapped.begin(), swapped.end());
  CHECK_FALSE(same_offsets(before, replay(log)));
}

TEST_CASE("an upgrade rewrite larger than a batch is split between logical "
          "keys, each batch whole, a KIP-848 group never") {
  auto log = fixture_records();
  auto before = replay(log);
  auto batches = upgrade_batches(before, load_ms, 300);
  REQUIRE(batches.size() > 3);
  // Each batch alone after the old records keeps the state of every key
  // it touches: appending any prefix of the batches never loses anything
  // (the keys not yet rewritten keep their old stamps).
  auto unstamped = [](offsets_partition_state st) {
    for (auto& [group, offsets] : st.offsets)
      for (auto& [tp, o] : offsets)
        o.commit_timestamp_ms = 0;
    for (auto& [id, g] : st.groups)
      g.timestamp_ms = 0;
    return st;
  };
  for (size_t n = 1; n <= batches.size(); ++n) {
    auto partial = log;
    for (size_t i = 0; i < n; ++i)
      partial.insert(partial.end(), batches[i].begin(), batches[i].end());
    check_same_state(unstamped(before), unstamped(replay(partial)));
    if (n == batches.size())
      check_same_state(stamped(before), replay(partial));
  }
  // The KIP-848 group's records are all in one batch.
  size_t with_group = 0;
  for (const auto& b : batches)
    if (std::any_of(b.begin(), b.end(), [](const record_kv& r) {
          return !is_legacy_key(r.key) && r.key.size() > 1 && r.key[1] == 3;
        }))
      ++with_group;
  CHECK(with_group == 1);
}

TEST_CASE("a rewrite after a failed one states the latest value, also one "
          "committed in Kafka's format in between") {
  std::vector<record_kv> log;
  log.push_back(legacy_offset("g", {"t", 0}, 5));
  log.push_back(legacy_offset("g", {"t", 1}, 6));
  log.push_back(legacy_offset("g", {"t", 2}, 7));
  log.push_back(legacy_offset("g", {"t", 2}, std::nullopt));
  // The first rewrite failed; a commit in Kafka's format followed.
  log.push_back(offset_commit_record("g", {"t", 0}, {9, -1, "", 1}));
  auto before = replay(log);
  CHECK(before.offsets.at("g").at({"t", 0}).offset == 9);
  CHECK(before.offsets.at("g").count({"t", 2}) == 0);
  auto rewrite = flatten(upgrade_batches(before, load_ms));
  // Tombstones for t-0 and t-1 only (t-2's last protobuf record is one).
  CHECK(std::count_if(rewrite.begin(), rewrite.end(),
                      [](const auto& r) { return is_legacy_key(r.key); })
        == 2);
  log.insert(log.end(), rewrite.begin(), rewrite.end());
  auto after = replay(log);
  check_same_state(stamped(before), after);
  check_same_state(stamped(before), replay(compacted(log, false)));
}

TEST_CASE("the upgrade rewrite stamps the old release's steady-clock times "
          "with the load's wall clock and keeps wall-clock ones") {
  std::vector<record_kv> log;
  log.push_back(legacy_offset("g", {"t", 0}, 5, 5000));
  log.push_back(legacy_offset("g", {"t", 1}, 6, load_ms - 60000));
  stored_group g{"consumer", 1, "", "", 7000, {}};
  log.push_back(group_metadata_record("g", g));
  auto rewritten = replay([&] {
    auto all = log;
    auto rewrite = flatten(upgrade_batches(replay(log), load_ms));
    all.insert(all.end(), rewrite.begin(), rewrite.end());
    return all;
  }());
  CHECK(rewritten.offsets.at("g").at({"t", 0}).commit_timestamp_ms == load_ms);
  CHECK(rewritten.offsets.at("g").at({"t", 1}).commit_timestamp_ms
        == load_ms - 60000);
  // The group's metadata was in Kafka's format already: not rewritten.
  CHECK(rewritten.groups.at("g").timestamp_ms == 7000);
}
