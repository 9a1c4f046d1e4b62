#pragma once

// troupe's Kafka client: the one FindCoordinator of every client in the
// process (the consumer of both group protocols, the REST routes and the
// REST consumer instances). See docs/ARCHITECTURE.md §3 (the client side)
// and §5 (REST consumer instances).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "domain/error_code.hpp"
#include "messages/interfaces.hpp"

namespace troupe::client {

/// What one lookup found.
struct coordinator {
  /// The coordinating broker; null unless `error` is NONE.
  broker_actor broker;
  /// Kafka's error; COORDINATOR_NOT_AVAILABLE when the ask itself failed.
  error_code error = error_code::none;
  /// Why the ask failed (sec::request_timeout, sec::invalid_argument for no
  /// broker to ask, ...); none when a broker answered.
  caf::error failure;
};

/// Errors that mean "ask for the coordinator again": the group's
/// coordinator moved, is not there yet, or is still loading the group.
inline bool is_coordinator_error(error_code e) noexcept {
  return e == error_code::not_coordinator
         || e == error_code::coordinator_not_available
         || e == error_code::coordinator_load_in_progress;
}

/// FindCoordinator (key type GROUP) for `group`, asked of `to`:
/// `k(coordinator)` runs in `self` when the answer, an error or the timeout
/// arrives. The one place troupe's clients send it.
template <class Self, class K>
void find_coordinator(Self* self, const broker_actor& to,
                      const std::string& group,
                      std::chrono::milliseconds timeout, K k) {
  troupe::ask<find_coordinator_response>(
    self, to, timeout, find_coordinator_request{group},
    [k = std::move(k)](caf::expected<find_coordinator_response> res) mutable {
      coordinator found;
      if (!res) {
        found.error = error_code::coordinator_not_available;
        found.failure = std::move(res.error());
      } else if (res->error != error_code::none) {
        found.error = res->error;
      } else {
        found.broker = caf::actor_cast<broker_actor>(res->broker);
      }
      k(std::move(found));
    });
}

/// Kafka's coordinator lookup on the client's side (AbstractCoordinator's
/// lookupCoordinator and markCoordinatorUnknown): which broker is asked,
/// FindCoordinator (key type GROUP) itself, and its answers cached for
/// `max_age_ms` until a request finds the coordinator moved. Lives in the
/// state of the actor that asks (one per consumer, per REST bridge, per
/// instance registry); only that actor touches it.
class coordinator_lookup {
public:
  // -- constructors -----------------------------------------------------------

  /// `max_age_ms` 0 caches nothing: every lookup asks. More than
  /// `max_entries` cached groups start the cache afresh.
  explicit coordinator_lookup(int64_t max_age_ms = 0,
                              size_t max_entries = 10000)
    : max_age_ms_(max_age_ms), max_entries_(max_entries) {
    // nop
  }

  // -- where to ask -----------------------------------------------------------

  /// The broker asked first (bootstrap.servers' first entry).
  void bootstrap(broker_actor b) {
    brokers_.push_back(std::move(b));
  }

  /// Remembers a broker named by an answer (FindCoordinator, Metadata): it
  /// is asked in turn when others fail, as Kafka clients pick any known
  /// broker (leastLoadedNode).
  void learn(const caf::actor& handle) {
    learn(caf::actor_cast<broker_actor>(handle));
  }
  void learn(broker_actor b) {
    if (b && std::find(brokers_.begin(), brokers_.end(), b) == brokers_.end())
      brokers_.push_back(std::move(b));
  }

  /// The broker the next lookup asks.
  const broker_actor& next_broker() const {
    return brokers_[next_ % brokers_.size()];
  }

  /// The broker asked last failed us: ask the next one next time.
  void skip() {
    ++next_;
  }

  // -- the cache ----------------------------------------------------------------

  /// A request answered NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE: the
  /// cached coordinator moved (Kafka's markCoordinatorUnknown).
  void forget(const std::string& group, error_code e) {
    if (e == error_code::not_coordinator
        || e == error_code::coordinator_not_available)
      cache_.erase(group);
  }

  // -- the lookup ---------------------------------------------------------------

  /// find_coordinator() through the cache: `k(coordinator)` runs at once
  /// for a fresh cached answer.
  template <class Self, class K>
  void find(Self* self, const broker_actor& to, const std::string& group,
            std::chrono::milliseconds timeout, K k) {
    if (max_age_ms_ > 0) {
      auto i = cache_.find(group);
      if (i != cache_.end() && now_ms(self) - i->second.at_ms < max_age_ms_) {
        k(coordinator{i->second.broker, error_code::none, {}});
        return;
      }
    }
    find_coordinator(self, to, group, timeout,
                     [this, self, group,
                      k = std::move(k)](coordinator found) mutable {
                       if (found.error == error_code::none)
                         remember(self, group, found.broker);
                       k(std::move(found));
                     });
  }

  /// The same, asked of next_broker().
  template <class Self, class K>
  void find(Self* self, const std::string& group,
            std::chrono::milliseconds timeout, K k) {
    auto to = next_broker();
    find(self, to, group, timeout, std::move(k));
  }

  /// A group member's lookup (Kafka's AbstractCoordinator
  /// ensureCoordinatorReady), asked of next_broker(). An answer that
  /// `current()` no longer wants is dropped. Found: the broker is learnt
  /// and `found(broker)` runs. A failed ask or a retriable error: that
  /// broker is skipped next time and `retry()` runs. Any other error:
  /// `fatal(error)`.
  template <class Self, class Current, class Found, class Retry, class Fatal>
  void find_for_member(Self* self, const std::string& group,
                       std::chrono::milliseconds timeout, Current current,
                       Found found, Retry retry, Fatal fatal) {
    find(self, group, timeout,
         [this, current = std::move(current), found = std::move(found),
          retry = std::move(retry),
          fatal = std::move(fatal)](coordinator c) mutable {
           if (!current())
             return;
           if (c.failure
               || (c.error != error_code::none && is_retriable(c.error))) {
             skip();
             retry();
           } else if (c.error != error_code::none) {
             fatal(c.error);
           } else {
             learn(c.broker);
             found(std::move(c.broker));
           }
         });
  }

private:
  struct entry {
    broker_actor broker;
    int64_t at_ms = 0;
  };

  template <class Self>
  void remember(Self* self, const std::string& group, broker_actor b) {
    if (max_age_ms_ <= 0)
      return;
    if (cache_.size() > max_entries_)
      cache_.clear();
    cache_[group] = {std::move(b), now_ms(self)};
  }

  int64_t max_age_ms_;
  size_t max_entries_;
  std::unordered_map<std::string, entry> cache_;
  std::vector<broker_actor> brokers_;
  size_t next_ = 0;
};

} // namespace troupe::client
