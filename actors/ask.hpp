#pragma once

// The one way troupe asks actors and gathers their answers: request/response
// from inside an actor (`self`), every answer as caf::expected so that the
// caller sees the actual error (a timeout is sec::request_timeout, a null
// handle sec::invalid_argument). Used by the gateway's bridge actors
// (docs/ARCHITECTURE.md §5); any actor may use it.

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include <caf/all.hpp>

namespace troupe {

namespace detail {

/// A response handler that first takes its request's timeout out of the
/// actor clock (see request_then), then runs `f`.
template <class Self, class F,
          class Args = typename caf::detail::get_callable_trait<F>::arg_types>
struct settling_handler;

template <class Self, class F, class... Ts>
struct settling_handler<Self, F, caf::detail::type_list<Ts...>> {
  Self* self;
  caf::message_id id;
  bool armed;
  F f;
  auto operator()(Ts... xs) {
    if (armed)
      self->clock().cancel_request_timeout(self, id);
    return f(std::forward<Ts>(xs)...);
  }
};

} // namespace detail

/// `self->request(to, timeout, req).then(on_answer, on_error)`, except that
/// the request's timeout leaves the actor clock once the answer or an error
/// arrives. CAF 0.17 keeps every request's timeout entry (two nodes of the
/// clock's multimaps, about 200 bytes) until it fires, then delivers a
/// stale timeout the actor drops: a Kafka listener kept every request's
/// for 30 s. The cancellation wakes CAF's clock thread, so a burst of them
/// costs time: the consumer's JoinGroup and SyncGroup do without
/// (docs/ARCHITECTURE.md §5).
template <class Self, class Handle, class Req, class OnAnswer, class OnError>
void request_then(Self* self, const Handle& to, caf::duration timeout,
                  Req&& req, OnAnswer on_answer, OnError on_error) {
  auto handle = self->request(to, timeout, std::forward<Req>(req));
  // No entry was made for a null handle or an infinite timeout.
  bool armed = static_cast<bool>(to) && timeout.valid();
  auto id = handle.id();
  auto on_error_settled = [self, id, armed,
                           g = std::move(on_error)](caf::error& err) mutable {
    // A timeout that fired has left the clock already.
    if (armed && err != caf::sec::request_timeout)
      self->clock().cancel_request_timeout(self, id);
    g(err);
  };
  handle.then(detail::settling_handler<Self, OnAnswer>{self, id, armed,
                                                       std::move(on_answer)},
              std::move(on_error_settled));
}

template <class Self, class Handle, class Req, class OnAnswer, class OnError,
          class Rep, class Period>
void request_then(Self* self, const Handle& to,
                  std::chrono::duration<Rep, Period> timeout, Req&& req,
                  OnAnswer on_answer, OnError on_error) {
  request_then(self, to, caf::duration{timeout}, std::forward<Req>(req),
               std::move(on_answer), std::move(on_error));
}

/// Sends `req` to `to`; `k(caf::expected<Res>)` runs in `self` when the
/// answer, an error or the timeout arrives. A null handle answers
/// sec::invalid_argument at once.
template <class Res, class Self, class Handle, class Req, class K>
void ask(Self* self, const Handle& to, std::chrono::milliseconds timeout,
         Req req, K k) {
  if (!to) {
    k(caf::expected<Res>{caf::make_error(caf::sec::invalid_argument)});
    return;
  }
  auto shared = std::make_shared<K>(std::move(k));
  request_then(
    self, to, timeout, std::move(req),
    [shared](Res& res) { (*shared)(caf::expected<Res>{std::move(res)}); },
    [shared](caf::error& err) {
      (*shared)(caf::expected<Res>{std::move(err)});
    });
}

/// Sends every (handle, request) pair at once. `each(i, answer)` sees each
/// answer as it arrives and returns true to stop waiting for the rest;
/// `done()` runs exactly once: after that stop or after the last answer.
template <class Res, class Self, class Handle, class Req, class Each,
          class Done>
void ask_each(Self* self, std::vector<std::pair<Handle, Req>> requests,
              std::chrono::milliseconds timeout, Each each, Done done) {
  struct gather {
    Each each;
    Done done;
    size_t outstanding = 1; // released once every request is out
    bool finished = false;
    void finish() {
      if (!finished) {
        finished = true;
        done();
      }
    }
    void release() {
      if (--outstanding == 0)
        finish();
    }
  };
  auto g = std::make_shared<gather>(gather{std::move(each), std::move(done)});
  for (size_t i = 0; i < requests.size(); ++i) {
    ++g->outstanding;
    auto& [to, req] = requests[i];
    ask<Res>(self, to, timeout, std::move(req),
             [g, i](caf::expected<Res> answer) {
               if (!g->finished && g->each(i, answer))
                 g->finish();
               g->release();
             });
  }
  g->release();
}

/// Sends every pair at once; `k(std::vector<caf::expected<Res>>)` gets all
/// answers, in request order, once the last one is in.
template <class Res, class Self, class Handle, class Req, class K>
void ask_all(Self* self, std::vector<std::pair<Handle, Req>> requests,
             std::chrono::milliseconds timeout, K k) {
  using answers = std::vector<caf::expected<Res>>;
  auto out = std::make_shared<answers>(
    requests.size(),
    caf::expected<Res>{caf::make_error(caf::sec::invalid_argument)});
  ask_each<Res>(
    self, std::move(requests), timeout,
    [out](size_t i, caf::expected<Res>& answer) {
      (*out)[i] = std::move(answer);
      return false;
    },
    [out, k = std::move(k)]() mutable { k(std::move(*out)); });
}

} // namespace troupe
