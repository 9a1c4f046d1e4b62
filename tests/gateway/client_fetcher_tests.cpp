// The REST consumer instances' fetcher (client/fetcher.hpp), driven by a
// plain Io that records each fetch and lets the test answer it: what goes
// to which leader, and what Kafka's Fetcher and FetchCollector make of the
// answers.

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/fetcher.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;
using namespace troupe::client;
using std::chrono::milliseconds;

namespace {

/// One fetch the fetcher sent, waiting for the test's answer.
struct sent_fetch {
  int32_t broker;
  fetch_request req;
  milliseconds timeout;
  std::function<void(caf::expected<fetch_response>)> k;
};

/// The Io: brokers are their ids.
struct test_io {
  std::vector<sent_fetch>* sent;

  int32_t broker(int32_t id) const {
    return id;
  }
  void fetch(int32_t to, fetch_request req, milliseconds timeout,
             std::function<void(caf::expected<fetch_response>)> k) const {
    sent->push_back({to, std::move(req), timeout, std::move(k)});
  }
};

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

/// A fetch answer holding one batch of `values` from `base` on.
fetch_response answer_with(int64_t base, std::vector<std::string> values,
                           std::optional<std::string> key = std::nullopt) {
  std::vector<record> recs;
  for (auto& v : values) {
    record r;
    if (key)
      r.key = bytes_of(*key);
    r.value = bytes_of(v);
    r.timestamp = 1000;
    recs.push_back(std::move(r));
  }
  fetch_response res;
  res.records = encode_batch(base, 0, recs);
  return res;
}

fetch_response answer_error(error_code e) {
  fetch_response res;
  res.error = e;
  return res;
}

std::vector<int64_t> offsets_of(const fetched_records& f) {
  std::vector<int64_t> out;
  for (auto& r : f.records)
    out.push_back(r.offset);
  return out;
}

fetch_settings settings_for_test() {
  fetch_settings s;
  s.max_wait = milliseconds{800};
  s.request_timeout = milliseconds{800 + 35000};
  s.reset_to = position_earliest;
  return s;
}

const topic_partition t0{"orders", 0};
const topic_partition t1{"orders", 1};
const topic_partition t2{"orders", 2};

} // namespace

TEST_CASE("a fetch goes to each partition's leader from its position, as a "
          "long poll of fetch.max.wait.ms and fetch.min.bytes",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  auto s = settings_for_test();
  auto n = send_fetches(test_io{&sent}, {{t0, 5}, {t1, 0}}, {{t0, 2}, {t1, 3}},
                        s, [](fetch_result) {});
  CHECK(n == 2);
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].broker == 2);
  CHECK(sent[0].req.partition == t0);
  CHECK(sent[0].req.offset == 5);
  CHECK(sent[0].req.max_wait_ms == 800);
  CHECK(sent[0].req.min_bytes == 1);
  CHECK(sent[0].req.max_bytes == max_partition_fetch_bytes);
  CHECK(sent[0].timeout == milliseconds{35800});
  CHECK(sent[1].broker == 3);
  CHECK(sent[1].req.partition == t1);
  CHECK(sent[1].req.offset == 0);
}

TEST_CASE("a smaller max_bytes caps max.partition.fetch.bytes in the request",
          "[client][fetcher]") {
  auto s = settings_for_test();
  CHECK(fetch_request_for({t0, 0}, s).max_bytes == max_partition_fetch_bytes);
  s.max_bytes = 100;
  CHECK(fetch_request_for({t0, 0}, s).max_bytes == 100);
  s.max_bytes = 0; // no cap on the request, at least one record back
  CHECK(fetch_request_for({t0, 0}, s).max_bytes == max_partition_fetch_bytes);
  s.max_bytes = int64_t{max_partition_fetch_bytes} * 4;
  CHECK(fetch_request_for({t0, 0}, s).max_bytes == max_partition_fetch_bytes);
}

TEST_CASE("partitions without a position are not fetched, and with nothing "
          "to fetch no request goes out and no answer comes",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  bool answered = false;
  auto k = [&](fetch_result) { answered = true; };
  auto s = settings_for_test();
  CHECK(
    send_fetches(
      test_io{&sent},
      {{t0, position_unknown}, {t1, position_latest}, {t2, position_earliest}},
      {{t0, 1}, {t1, 1}, {t2, 1}}, s, k)
    == 0);
  CHECK(sent.empty());
  CHECK(send_fetches(test_io{&sent}, {{t0, position_unknown}, {t1, 7}},
                     {{t0, 1}, {t1, 1}}, s, k)
        == 1);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].req.partition == t1);
  CHECK_FALSE(answered);
}

TEST_CASE("a partition whose leader the metadata does not name is asked of "
          "broker 0",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  send_fetches(test_io{&sent}, {{t0, 0}}, {}, settings_for_test(),
               [](fetch_result) {});
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].broker == 0);
}

TEST_CASE("the first answer with records ends the fetch and moves that "
          "partition's position past its last record",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  std::vector<fetch_result> results;
  send_fetches(test_io{&sent}, {{t0, 0}, {t1, 10}, {t2, 0}},
               {{t0, 1}, {t1, 1}, {t2, 1}}, settings_for_test(),
               [&](fetch_result r) { results.push_back(std::move(r)); });
  REQUIRE(sent.size() == 3);
  sent[0].k(fetch_response{}); // the long poll ran out: no records
  CHECK(results.empty());
  sent[1].k(answer_with(10, {"a", "b", "c"}));
  REQUIRE(results.size() == 1);
  sent[2].k(answer_with(0, {"late"})); // after the end: dropped
  CHECK(results.size() == 1);
  auto& r = results[0];
  REQUIRE(r.fetched.size() == 1);
  CHECK(r.fetched[0].partition == t1);
  CHECK(offsets_of(r.fetched[0]) == std::vector<int64_t>{10, 11, 12});
  CHECK(r.fetched[0].records[0].value == bytes_of("a"));
  CHECK(r.fetched[0].next_offset == 13);
  CHECK(r.resets.empty());
  auto moves = r.next_positions();
  REQUIRE(moves.size() == 1);
  CHECK(moves[0].partition == t1);
  CHECK(moves[0].offset == 13);
}

TEST_CASE("records before the fetch position in a returned batch are "
          "skipped",
          "[client][fetcher]") {
  auto got = collect_records(t0, answer_with(10, {"a", "b", "c", "d"}), 12, -1);
  CHECK(offsets_of(got) == std::vector<int64_t>{12, 13});
  CHECK(got.next_offset == 14);
  // A batch wholly before the position gives nothing, and does not end
  // the fetch.
  fetch_result out;
  CHECK_FALSE(collect_fetch({t0, 14}, answer_with(10, {"a", "b", "c", "d"}),
                            settings_for_test(), out));
  CHECK(out.fetched.empty());
}

TEST_CASE("the records returned stop at max_bytes of keys and values, but at "
          "least one record is returned",
          "[client][fetcher]") {
  auto res = answer_with(0, {"aaaa", "bbbb", "cccc"}, std::string{"kk"});
  // Each record counts 2 + 4 bytes.
  CHECK(offsets_of(collect_records(t0, res, 0, 12))
        == std::vector<int64_t>{0, 1});
  CHECK(offsets_of(collect_records(t0, res, 0, 11)) == std::vector<int64_t>{0});
  CHECK(offsets_of(collect_records(t0, res, 0, 1)) == std::vector<int64_t>{0});
  CHECK(offsets_of(collect_records(t0, res, 0, 0)) == std::vector<int64_t>{0});
  CHECK(offsets_of(collect_records(t0, res, 0, -1))
        == std::vector<int64_t>{0, 1, 2});
  CHECK(collect_records(t0, res, 0, 11).next_offset == 1);
}

TEST_CASE("OFFSET_OUT_OF_RANGE resets the position by auto.offset.reset",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  std::vector<fetch_result> results;
  auto s = settings_for_test();
  s.reset_to = position_latest;
  send_fetches(test_io{&sent}, {{t0, 99}, {t1, 0}}, {{t0, 1}, {t1, 1}}, s,
               [&](fetch_result r) { results.push_back(std::move(r)); });
  REQUIRE(sent.size() == 2);
  sent[0].k(answer_error(error_code::offset_out_of_range));
  CHECK(results.empty()); // the others are still out
  sent[1].k(answer_with(0, {"x"}));
  REQUIRE(results.size() == 1);
  auto& r = results[0];
  REQUIRE(r.resets.size() == 1);
  CHECK(r.resets[0].partition == t0);
  CHECK(r.resets[0].offset == position_latest);
  auto moves = r.next_positions(); // the resets first, then the records
  REQUIRE(moves.size() == 2);
  CHECK(moves[0].partition == t0);
  CHECK(moves[0].offset == position_latest);
  CHECK(moves[1].partition == t1);
  CHECK(moves[1].offset == 1);
}

TEST_CASE("NOT_LEADER_OR_FOLLOWER, other errors and failed asks give no "
          "records and move no position",
          "[client][fetcher]") {
  std::vector<sent_fetch> sent;
  std::vector<fetch_result> results;
  send_fetches(test_io{&sent}, {{t0, 0}, {t1, 0}, {t2, 0}},
               {{t0, 1}, {t1, 2}, {t2, 3}}, settings_for_test(),
               [&](fetch_result r) { results.push_back(std::move(r)); });
  REQUIRE(sent.size() == 3);
  auto with_records = answer_with(0, {"x"});
  with_records.error = error_code::not_leader_or_follower;
  sent[2].k(with_records);
  sent[0].k(
    caf::expected<fetch_response>{caf::make_error(caf::sec::request_timeout)});
  CHECK(results.empty());
  sent[1].k(answer_error(error_code::unknown_topic_or_partition));
  REQUIRE(results.size() == 1); // after the last answer
  CHECK(results[0].fetched.empty());
  CHECK(results[0].resets.empty());
  CHECK(results[0].next_positions().empty());
}

TEST_CASE("a fetch whose every ask fails at once answers once",
          "[client][fetcher]") {
  // The registry's ask answers a null handle at once: the fetcher must
  // still answer exactly once, after every fetch is out.
  struct failing_io {
    int32_t broker(int32_t id) const {
      return id;
    }
    void fetch(int32_t, fetch_request, milliseconds,
               std::function<void(caf::expected<fetch_response>)> k) const {
      k(caf::expected<fetch_response>{
        caf::make_error(caf::sec::invalid_argument)});
    }
  };
  int answers = 0;
  auto n = send_fetches(failing_io{}, {{t0, 0}, {t1, 0}}, {{t0, 1}, {t1, 1}},
                        settings_for_test(), [&](fetch_result r) {
                          ++answers;
                          CHECK(r.fetched.empty());
                        });
  CHECK(n == 2);
  CHECK(answers == 1);
}
