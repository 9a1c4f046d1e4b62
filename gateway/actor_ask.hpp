#pragma once

// The Kafka listener's way into the actor system (gateway/kafka_*): one
// short-lived actor per request batch that asks with actors/ask.hpp's
// ask_all, the project's one fan-in. The HTTP gateway uses long-lived
// bridge actors instead (gateway/bridge.hpp); the Kafka listener can switch
// to them by posting its asks to a bridge the same way.
// Include only from .cpp files (pulls in caf/all.hpp).

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"

namespace troupe {

/// Sends every (handle, request) pair at once; `done` gets all answers in
/// order (nullopt for a failed request, a timeout or a null handle) once
/// the last one is in. `done` runs on a CAF worker thread.
template <class Res, class Handle, class Req, class Done>
void request_all(caf::actor_system& sys,
                 std::vector<std::pair<Handle, Req>> requests, Done done,
                 std::chrono::milliseconds timeout) {
  sys.spawn([requests = std::move(requests), done = std::move(done),
             timeout](caf::event_based_actor* self) mutable -> caf::behavior {
    ask_all<Res>(self, std::move(requests), timeout,
                 [self, done = std::move(done)](
                   std::vector<caf::expected<Res>> answers) mutable {
                   std::vector<std::optional<Res>> out;
                   out.reserve(answers.size());
                   for (auto& a : answers) {
                     if (a) {
                       out.emplace_back(std::move(*a));
                     } else {
                       spdlog::debug("gateway: request failed: {}",
                                     to_string(a.error()));
                       out.emplace_back(std::nullopt);
                     }
                   }
                   done(std::move(out));
                   self->quit();
                 });
    // Keeps the actor alive until the last answer; it gets no message.
    return {[](caf::unit_t) {}};
  });
}

} // namespace troupe
