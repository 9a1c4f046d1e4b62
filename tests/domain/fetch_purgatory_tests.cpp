// Fetches waiting for min.bytes (Kafka's DelayedFetch purgatory, keyed by
// partition): woken once by the first change on a watched partition
// (domain/replication/fetch_purgatory.hpp).

#include <catch2/catch.hpp>

#include "domain/replication/fetch_purgatory.hpp"

using namespace troupe;

namespace {

const topic_partition p0{"orders", 0};
const topic_partition p1{"orders", 1};
const topic_partition p2{"orders", 2};

/// The change counts of `tps`, as a listener reads them before a read.
std::vector<uint64_t> counts(const fetch_purgatory& purgatory,
                             const std::vector<topic_partition>& tps) {
  std::vector<uint64_t> out;
  for (auto& entry : purgatory.snapshot(tps))
    out.push_back(entry.version);
  return out;
}

/// The leader of `tp` (replica 1, epoch 0) moves its high watermark on.
void new_data(fetch_purgatory& purgatory, const topic_partition& tp) {
  auto now = purgatory.snapshot({tp})[0].view;
  auto hw = now ? now->high_watermark + 1 : 1;
  purgatory.publish(tp, 1, fetch_purgatory::leader_view{hw, 0, 0});
}

} // namespace

TEST_CASE("a delayed fetch is woken by new data on any of its partitions, "
          "once") {
  fetch_purgatory purgatory;
  int woken = 0;
  std::vector<topic_partition> tps{p0, p1};
  auto id = purgatory.watch(tps, counts(purgatory, tps), [&] { ++woken; });
  REQUIRE(id != 0);
  CHECK(purgatory.waiting() == 1);
  new_data(purgatory, p2); // not watched
  CHECK(woken == 0);
  new_data(purgatory, p1);
  CHECK(woken == 1);
  CHECK(purgatory.waiting() == 0);
  new_data(purgatory, p0); // its other partition: the fetch is gone already
  CHECK(woken == 1);
  CHECK_FALSE(purgatory.cancel(id));
}

TEST_CASE("a delayed fetch that expires is cancelled and never woken") {
  fetch_purgatory purgatory;
  int woken = 0;
  std::vector<topic_partition> tps{p0};
  auto id = purgatory.watch(tps, counts(purgatory, tps), [&] { ++woken; });
  CHECK(purgatory.cancel(id));
  new_data(purgatory, p0);
  CHECK(woken == 0);
  CHECK(purgatory.waiting() == 0);
}

TEST_CASE("data that arrived between the read and the watch is not missed: "
          "the watch refuses and the fetch reads again") {
  fetch_purgatory purgatory;
  std::vector<topic_partition> tps{p0, p1};
  auto seen = counts(purgatory, tps); // before the read
  new_data(purgatory, p1);               // during the read
  int woken = 0;
  CHECK(purgatory.watch(tps, seen, [&] { ++woken; }) == 0);
  CHECK(purgatory.waiting() == 0);
  CHECK(woken == 0);
  // With fresh counts it parks.
  CHECK(purgatory.watch(tps, counts(purgatory, tps), [&] { ++woken; }) != 0);
}

TEST_CASE("one change wakes every fetch watching the partition") {
  fetch_purgatory purgatory;
  int woken = 0;
  std::vector<topic_partition> tps{p0};
  for (int i = 0; i < 100; ++i)
    purgatory.watch(tps, counts(purgatory, tps), [&] { ++woken; });
  CHECK(purgatory.waiting() == 100);
  new_data(purgatory, p0);
  CHECK(woken == 100);
  CHECK(purgatory.waiting() == 0);
}

TEST_CASE("a woken fetch leaves no trace on its quiet partitions") {
  fetch_purgatory purgatory;
  std::vector<topic_partition> tps{p0, p1, p2};
  for (int i = 0; i < 1000; ++i) {
    auto id = purgatory.watch(tps, counts(purgatory, tps), [] {});
    REQUIRE(id != 0);
    new_data(purgatory, p0);
  }
  // p1 and p2 never changed; a later change wakes only the live watch.
  int woken = 0;
  purgatory.watch({p1}, counts(purgatory, {p1}), [&] { ++woken; });
  new_data(purgatory, p1);
  CHECK(woken == 1);
  CHECK(purgatory.waiting() == 0);
  CHECK(counts(purgatory, {p0, p1, p2})
        == std::vector<uint64_t>{1000, 1, 0});
}

TEST_CASE("a wake function may watch again from inside the wake") {
  fetch_purgatory purgatory;
  int woken = 0;
  std::vector<topic_partition> tps{p0};
  std::function<void()> again = [&] {
    if (++woken < 3)
      purgatory.watch(tps, counts(purgatory, tps), again);
  };
  purgatory.watch(tps, counts(purgatory, tps), again);
  new_data(purgatory, p0);
  new_data(purgatory, p0);
  new_data(purgatory, p0);
  new_data(purgatory, p0);
  CHECK(woken == 3);
}

TEST_CASE("a leader's published view is read with its change count, and a "
          "new high watermark wakes the fetches watching it") {
  fetch_purgatory purgatory;
  using view = fetch_purgatory::leader_view;
  CHECK_FALSE(purgatory.snapshot({p0})[0].view); // nobody leads it yet
  purgatory.publish(p0, 7, view{10, 0, 3});
  auto s = purgatory.snapshot({p0, p1});
  REQUIRE(s[0].view);
  CHECK(s[0].view->high_watermark == 10);
  CHECK(s[0].view->leader_epoch == 3);
  CHECK(s[0].version == 1);
  CHECK_FALSE(s[1].view);
  int woken = 0;
  REQUIRE(purgatory.watch({p0}, {s[0].version}, [&] { ++woken; }) != 0);
  purgatory.publish(p0, 7, view{10, 0, 3}); // the same view: no change
  CHECK(woken == 0);
  CHECK(purgatory.snapshot({p0})[0].version == 1);
  purgatory.publish(p0, 7, view{11, 0, 3});
  CHECK(woken == 1);
  CHECK(purgatory.snapshot({p0})[0].view->high_watermark == 11);
}

TEST_CASE("a moved log start offset or a new leader epoch is a change") {
  fetch_purgatory purgatory;
  using view = fetch_purgatory::leader_view;
  purgatory.publish(p0, 7, view{10, 0, 3});
  purgatory.publish(p0, 7, view{10, 4, 3}); // DeleteRecords
  CHECK(purgatory.snapshot({p0})[0].version == 2);
  purgatory.publish(p0, 7, view{10, 4, 4}); // led again in a new epoch
  CHECK(purgatory.snapshot({p0})[0].version == 3);
  CHECK(purgatory.snapshot({p0})[0].view->log_start_offset == 4);
}

TEST_CASE("leadership that ends withdraws the view and wakes the fetches "
          "waiting on it (DelayedFetch case A)") {
  fetch_purgatory purgatory;
  purgatory.publish(p0, 7, fetch_purgatory::leader_view{10, 0, 3});
  int woken = 0;
  auto seen = counts(purgatory, {p0});
  REQUIRE(purgatory.watch({p0}, seen, [&] { ++woken; }) != 0);
  purgatory.publish(p0, 7, std::nullopt);
  CHECK(woken == 1);
  CHECK_FALSE(purgatory.snapshot({p0})[0].view);
}

TEST_CASE("a replica that ends after its successor began to lead leaves the "
          "successor's view") {
  fetch_purgatory purgatory;
  using view = fetch_purgatory::leader_view;
  purgatory.publish(p0, 7, view{10, 0, 3});
  purgatory.publish(p0, 8, view{10, 0, 3}); // the topic made again, say
  purgatory.publish(p0, 7, std::nullopt);   // the old replica's last word
  auto s = purgatory.snapshot({p0});
  REQUIRE(s[0].view);
  CHECK(s[0].view->leader_epoch == 3);
  purgatory.publish(p0, 8, std::nullopt);
  CHECK_FALSE(purgatory.snapshot({p0})[0].view);
  purgatory.publish(p1, 9, std::nullopt); // never led: nothing kept
  CHECK(counts(purgatory, {p1})[0] == 0);
}
