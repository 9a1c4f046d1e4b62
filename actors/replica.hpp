#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "domain/cluster_config.hpp"
#include "domain/replication/fetch_purgatory.hpp"
#include "domain/replication/partition_leader.hpp"
#include "domain/replication/producer_state.hpp"
#include "actors/replication_quotas.hpp"
#include "domain/replication/replica_role.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// Kafka's fetcher settings for a follower replica.
struct replica_fetch_config {
  /// replica.fetch.wait.max.ms: a follower's long-poll.
  int32_t wait_max_ms = 500;
  /// replica.fetch.backoff.ms: pause after a failed fetch.
  int32_t backoff_ms = 1000;
  /// replica.fetch.max.bytes
  int32_t max_bytes = 1048576;
};

/// One partition on one broker, as Kafka's Partition plus, while it
/// follows, its share of a ReplicaFetcherThread. The log itself lives in
/// the broker's log manager (file I/O on its own thread); the high
/// watermark, ISR bookkeeping and parked requests live here.
struct replica_state {
  using role = replica_role;

  struct waiting_produce {
    caf::typed_response_promise<produce_response> promise;
    int64_t base_offset = -1;
  };

  struct parked_fetch {
    caf::typed_response_promise<fetch_response> promise;
    fetch_request request;
    /// A throttled follower's fetch held back by the leader quota: data
    /// does not wake it, its max wait answers it empty (Kafka's
    /// DelayedFetch counts no bytes of a throttled partition).
    bool throttled = false;
  };

  /// A DeleteRecords whose offset the low watermark has not reached yet
  /// (Kafka's DelayedDeleteRecords).
  struct waiting_deletion {
    caf::typed_response_promise<delete_records_response> promise;
    int64_t required_offset = 0;
    /// The low watermark when it was parked: the answer at its timeout.
    int64_t low_watermark = -1;
  };

  /// A produce with a producer id that waits for the producer state: its
  /// replay from the log, or the append of the batch it retries.
  struct parked_produce {
    produce_request request;
    caf::typed_response_promise<produce_response> promise;
  };

  topic_partition partition;
  int32_t broker_id = -1;
  cluster_config config;
  replica_fetch_config fetch;
  log_manager_actor log;
  controller_actor controller;
  std::vector<broker_info> peers;
  /// Told each time this replica starts or stops leading; null for most.
  replica_listener_actor leadership_listener;
  /// The broker's replication quotas; null: never throttled.
  replication_quotas_ptr quotas;
  /// The broker's waiting consumer fetches (may be null): told what a
  /// caught-up consumer would hear while this replica leads (its leader
  /// view), and when leadership ends.
  std::shared_ptr<fetch_purgatory> purgatory;
  /// The leader view last published there.
  std::optional<fetch_purgatory::leader_view> published_view;
  /// The topic's throttled-replica configs name this replica (replica_config).
  bool leader_throttled = false;
  bool follower_throttled = false;

  /// The partition as the controller last described it.
  std::optional<partition_metadata> metadata;
  role current = role::loading;
  /// Bumped on every role change: answers and ticks of an older role are
  /// dropped.
  uint64_t role_epoch = 0;
  std::optional<partition_leader> leader;

  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t high_watermark = 0;
  int32_t latest_epoch = -1;

  uint64_t next_id = 1;
  std::map<uint64_t, waiting_produce> produces;
  /// Produces whose append the log manager has not confirmed yet.
  std::map<uint64_t, caf::typed_response_promise<produce_response>> appending;
  std::map<uint64_t, parked_fetch> fetches;
  /// Their timers are produce_timeout, in the same id space.
  std::map<uint64_t, waiting_deletion> deletions;
  bool alter_isr_in_flight = false;
  /// A follower's fetch is out (one at a time, like a fetcher thread).
  bool fetching = false;
  /// The leader's handle a follower's request (epoch end offset or fetch)
  /// waits on; fetch_id tells its answer from one given up on when that
  /// handle went away (a peer's node link dropped).
  caf::actor_addr fetch_target;
  uint64_t fetch_id = 0;
  /// A follower has cut its log where it diverges from the leader's.
  bool truncated = false;

  // -- idempotent producers (KIP-98, docs/ARCHITECTURE.md §4) --

  /// Every producer id's epoch and last batches, as the log holds them.
  producer_state producers;
  /// True while `producers` reflects every batch of the log: after a replay
  /// of the log, kept by the leader's appends and a follower's copies; a
  /// truncation makes it stale, and the next produce with a producer id
  /// replays the log again (Kafka rebuilds it from its segments).
  bool producers_current = false;
  bool producers_loading = false;
  std::vector<parked_produce> parked_produces;
  /// A follower's appends and truncations the log has not answered yet,
  /// whatever the role is now: a leader that takes over while one is out
  /// cannot trust `producers` until it is rebuilt from the log.
  int32_t follower_log_ops = 0;

  static inline const char* name = "replica";
};

using replica_ptr = replica_actor::stateful_pointer<replica_state>;

/// Starts in `loading` (opening and recovering its log), then takes the
/// role the controller's partition_update names. `leadership_listener`
/// (may be null) hears replica_leadership on each start and end of its
/// leadership. `quotas` (may be null) are the broker's replication quotas.
replica_actor::behavior_type
replica(replica_ptr self, topic_partition partition, int32_t broker_id,
        cluster_config config, replica_fetch_config fetch,
        log_manager_actor log, controller_actor controller,
        std::vector<broker_info> peers,
        replica_listener_actor leadership_listener,
        replication_quotas_ptr quotas,
        std::shared_ptr<fetch_purgatory> purgatory);

} // namespace troupe
