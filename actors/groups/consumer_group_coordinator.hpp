#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/groups/offsets_writer.hpp"
#include "domain/consumer_group/consumer_group.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// One per KIP-848 consumer group. Thin: the semantics live in
/// troupe::consumer_group; this actor carries out its effects. It writes
/// the records of every change to its __consumer_offsets replica (acks=all)
/// and answers the requests behind them once they are there, as Kafka's
/// coordinator runtime does; it arms the session and rebalance timers as
/// delayed sends guarded by the group's timer ids.
struct consumer_group_coordinator_state {
  /// Answers waiting for records to be written: each gets `none` once they
  /// are, or the error a client understands when the write failed.
  struct batch {
    std::vector<consumer_group_record> records;
    std::vector<std::function<void(error_code)>> answers;
  };

  std::unique_ptr<consumer_group> g;
  event_listener_actor listener;
  /// Where the group's records are written (acks=all). Without a replica
  /// the group lives in memory only (no log.dirs): every answer goes out
  /// at once.
  offsets_log log;
  /// What __consumer_offsets holds of the group: reads are answered from
  /// it (Kafka reads at the last committed offset) and a failed write
  /// restores the group from it.
  consumer_group_image durable;
  /// One write at a time: the one in flight, and what piles up behind it.
  batch in_flight;
  bool writing = false;
  batch next;

  static inline const char* name = "consumer_group_coordinator";
};

using consumer_group_coordinator_ptr =
  consumer_group_coordinator_actor::stateful_pointer<
    consumer_group_coordinator_state>;

/// `topics`: the cluster's topics (later ones arrive as
/// consumer_group_topics). `loaded`: what __consumer_offsets holds of the
/// group (storage's loaded_consumer_group), empty for a new group.
/// `listener` (may be null) receives every state transition.
consumer_group_coordinator_actor::behavior_type consumer_group_coordinator(
  consumer_group_coordinator_ptr self, std::string group_id,
  group_config config, uint64_t seed, event_listener_actor listener,
  replica_actor offsets_log, topic_partition offsets_partition,
  std::vector<topic_info> topics, consumer_group_image loaded);

} // namespace troupe
