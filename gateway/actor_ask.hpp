#pragma once

// Asking actors from outside the actor system (the gateway's Asio threads):
// one short-lived actor sends the requests and hands the answers to a
// callback, which runs on a CAF worker thread. Shared by the Kafka listener
// and the HTTP gateway. Include only from .cpp files (pulls in caf/all.hpp).

#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace troupe {

/// Sends every (handle, request) pair at once from one short-lived actor;
/// `done` gets all answers in order (nullopt for a failed request, a timeout
/// or a null handle) once the last one is in.
template <class Res, class Handle, class Req, class Done>
void request_all(caf::actor_system& sys,
                 std::vector<std::pair<Handle, Req>> requests, Done done,
                 std::chrono::milliseconds timeout) {
  sys.spawn([requests = std::move(requests), done = std::move(done),
             timeout](caf::event_based_actor* self) mutable -> caf::behavior {
    struct fan_in {
      std::vector<std::optional<Res>> results;
      size_t outstanding = 0;
      Done done;
    };
    auto fan = std::make_shared<fan_in>(fan_in{
      std::vector<std::optional<Res>>(requests.size()), 1, std::move(done)});
    auto finished = [self, fan] {
      if (--fan->outstanding == 0) {
        fan->done(std::move(fan->results));
        self->quit();
      }
    };
    for (size_t i = 0; i < requests.size(); ++i) {
      auto& [to, req] = requests[i];
      if (!to)
        continue;
      ++fan->outstanding;
      self->request(to, timeout, std::move(req))
        .then(
          [fan, i, finished](Res& res) {
            fan->results[i] = std::move(res);
            finished();
          },
          [finished](caf::error& err) {
            spdlog::debug("gateway: request failed: {}", to_string(err));
            finished();
          });
    }
    finished(); // releases the count taken while sending
    // Keeps the actor alive until the last answer; it gets no message.
    return {[](caf::unit_t) {}};
  });
}

/// One request; `done` gets the answer or nullopt.
template <class Res, class Handle, class Req, class Done>
void request_one(caf::actor_system& sys, Handle to, Req req, Done done,
                 std::chrono::milliseconds timeout) {
  std::vector<std::pair<Handle, Req>> one;
  one.emplace_back(std::move(to), std::move(req));
  request_all<Res>(
    sys, std::move(one),
    [done = std::move(done)](std::vector<std::optional<Res>> results) mutable {
      done(std::move(results[0]));
    },
    timeout);
}

} // namespace troupe
