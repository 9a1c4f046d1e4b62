#pragma once

// troupe's Kafka client: a producer's sending side (docs/ARCHITECTURE.md
// §5, the REST gateway's produce): topic metadata through the producer's
// cache, one batch per partition in flight, retries while leadership moves.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "client/producer.hpp"
#include "domain/log/record_batch.hpp"
#include "messages/interfaces.hpp"

namespace troupe::client {

/// Kafka's producer retries (retries, retry.backoff.ms) while the leader
/// moves.
constexpr int max_send_attempts = 50;
constexpr std::chrono::milliseconds retry_backoff{100};

/// A produce answer that a new leader may accept.
inline bool retriable_produce_error(error_code e) {
  return e == error_code::not_leader_or_follower
         || e == error_code::leader_not_available
         || e == error_code::unknown_topic_or_partition
         || e == error_code::fenced_leader_epoch;
}

// `Io` is what the producer's owner gives it to reach the cluster, copied
// into every continuation. It has:
//   producer& state() const;                      // the owner's producer
//   int64_t now() const;                          // ms, the actor's clock
//   void metadata(std::string topic, std::function<void(caf::expected<metadata_response>)>) const;
//   broker_actor broker(int32_t id) const;        // null when unknown
//   void produce(broker_actor, produce_request, std::function<void(caf::expected<produce_response>)>) const;
//   void after(std::chrono::milliseconds, std::function<void()>) const;
// All of it runs in the owning actor.

/// The topic's metadata from the producer's cache unless `fresh`, else
/// asked; `k(nullptr, err)` when there is none, with the error of a failed
/// ask if that was why.
template <class Io>
void with_topic_metadata(
  const Io& io, const std::string& topic, bool fresh,
  std::function<void(const topic_metadata*, const caf::error&)> k) {
  if (!fresh)
    if (auto* t = io.state().metadata.fresh(topic, io.now()))
      return k(t, caf::error{});
  io.metadata(topic, [io, topic, k](caf::expected<metadata_response> md) {
    if (!md)
      return k(nullptr, md.error());
    if (md->topics.empty() || md->topics[0].error != error_code::none
        || md->topics[0].partition_states.empty())
      return k(nullptr, caf::error{});
    auto& t = io.state().metadata.update(topic, md->topics[0], io.now());
    k(&t, caf::error{});
  });
}

template <class Io>
void flush(const Io& io, const topic_partition& tp);

/// Sends one batch (acks=all) to the partition's leader; while leadership
/// moves, refreshes the metadata and tries again, as Kafka's Sender does.
template <class Io>
void send(const Io& io, topic_partition tp,
          std::shared_ptr<records_batch> batch, int attempt) {
  with_topic_metadata(
    io, tp.topic, attempt > 0,
    [io, tp, batch, attempt](const topic_metadata* t, const caf::error&) {
      auto leader = t ? metadata_cache::leader_of(*t, tp.partition) : -1;
      produce_request pr;
      pr.partition = tp;
      pr.acks = -1;
      pr.timeout_ms = 30000;
      pr.batch = encode_batch(0, -1, record_accumulator::records_of(*batch));
      io.produce(
        io.broker(leader), std::move(pr),
        [io, tp, batch, attempt](caf::expected<produce_response> r) {
          auto e = r ? r->error
                     : (r.error() == caf::sec::invalid_argument
                          ? error_code::leader_not_available
                          : error_code::request_timed_out);
          if (e != error_code::none && retriable_produce_error(e)
              && attempt + 1 < max_send_attempts)
            return io.after(retry_backoff, [io, tp, batch, attempt] {
              send(io, tp, batch, attempt + 1);
            });
          auto base = e == error_code::none ? r->base_offset : int64_t{-1};
          io.state().accumulator.complete(tp, *batch, e, base);
          flush(io, tp);
        });
    });
}

/// Sends what waits for `tp` as one batch, unless a batch is in flight.
template <class Io>
void flush(const Io& io, const topic_partition& tp) {
  if (auto batch = io.state().accumulator.drain(tp))
    send(io, tp, std::move(batch), 0);
}

/// Queues `records` for `tp` and sends them when the partition is free.
template <class Io>
void append(const Io& io, const topic_partition& tp, pending_records records) {
  io.state().accumulator.append(tp, std::move(records));
  flush(io, tp);
}

} // namespace troupe::client
