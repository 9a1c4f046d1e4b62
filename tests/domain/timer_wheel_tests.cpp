// The coordinator's timer wheel (domain/timer_wheel.hpp): timers filed by
// tick, due exactly at their deadline, one wait for the earliest bucket.

#include <catch2/catch.hpp>

#include <string>

#include "domain/timer_wheel.hpp"

using namespace troupe;

TEST_CASE("a timer fires exactly at its deadline and not a millisecond "
          "before") {
  timer_wheel<std::string> w;
  w.schedule(10000, "m-1");
  CHECK(w.advance(9999).empty());
  CHECK(w.size() == 1);
  auto due = w.advance(10000);
  REQUIRE(due.size() == 1);
  CHECK(due[0] == "m-1");
  CHECK(w.size() == 0);
  CHECK_FALSE(w.next_deadline());
}

TEST_CASE("a coarser tick rounds a deadline up, never down") {
  timer_wheel<int> w{100};
  w.schedule(1001, 1);
  CHECK(w.next_deadline() == 1100);
  CHECK(w.advance(1099).empty());
  CHECK(w.advance(1100).size() == 1);
  w.schedule(1200, 2); // on a tick: stays there
  CHECK(w.next_deadline() == 1200);
}

TEST_CASE("many timers on one tick are one bucket, fired together in the "
          "order they were filed") {
  timer_wheel<int> w;
  for (int i = 0; i < 10000; ++i)
    w.schedule(5000, i);
  CHECK(w.size() == 10000);
  CHECK(w.buckets() == 1);
  auto due = w.advance(5000);
  REQUIRE(due.size() == 10000);
  for (int i = 0; i < 10000; ++i)
    REQUIRE(due[static_cast<size_t>(i)] == i);
}

TEST_CASE("timers fire in deadline order across buckets, and only the due "
          "ones") {
  timer_wheel<std::string> w;
  w.schedule(300, "c");
  w.schedule(100, "a");
  w.schedule(200, "b");
  w.schedule(400, "d");
  auto due = w.advance(300);
  CHECK(due == std::vector<std::string>{"a", "b", "c"});
  CHECK(w.next_deadline() == 400);
  CHECK(w.size() == 1);
}

TEST_CASE("filing a timer says whether the wheel's next deadline moved "
          "earlier") {
  timer_wheel<int> w;
  CHECK(w.schedule(1000, 1)); // the first: the owner must wait on it
  CHECK_FALSE(w.schedule(2000, 2)); // later: the wait stands
  CHECK_FALSE(w.schedule(1000, 3)); // the same bucket
  CHECK(w.schedule(500, 4)); // earlier: a new wait
  CHECK(w.next_deadline() == 500);
}

TEST_CASE("a re-armed timer is a new timer: the owner tells the stale one "
          "by its number when it fires") {
  // The coordinator's use: (member, session number); a heartbeat moves the
  // member's deadline without touching the wheel, a restarted session
  // files a new number and the old timer is dropped when it fires.
  timer_wheel<std::pair<std::string, int>> w;
  int current = 1;
  w.schedule(1000, {"m", 1});
  current = 2; // the session restarted
  w.schedule(1500, {"m", 2});
  auto due = w.advance(1000);
  REQUIRE(due.size() == 1);
  CHECK(due[0].second != current); // stale: dropped by the owner
  due = w.advance(1500);
  REQUIRE(due.size() == 1);
  CHECK(due[0].second == current);
}

TEST_CASE("a timer filed in the past is due at once") {
  timer_wheel<int> w;
  w.advance(5000);
  w.schedule(4000, 7);
  CHECK(w.next_deadline() == 4000);
  CHECK(w.advance(5000) == std::vector<int>{7});
}
