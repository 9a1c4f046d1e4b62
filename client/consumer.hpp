#pragma once

// troupe's Kafka client: the consumer, a group member of either protocol
// (docs/ARCHITECTURE.md §3, the client side, and its KIP-848 table). Used by
// the REST instance registry, the WebSocket hub, the stress harness and the
// demo.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "client/coordinator_lookup.hpp"
#include "domain/assignors/assignor.hpp"
#include "domain/consumer_group/membership.hpp"
#include "domain/consumer_phase.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// A Kafka consumer's group settings, by Kafka's property names.
struct consumer_config {
  /// Shown in events and logs (Kafka's client.id doubles as member id
  /// prefix).
  std::string name = "consumer";
  /// group.id
  std::string group_id;
  /// client.id
  std::string client_id = "troupe-consumer";
  /// group.instance.id (KIP-345); empty for a dynamic member.
  std::string group_instance_id;
  /// subscribe(topics)
  std::vector<std::string> topics;
  /// partition.assignment.strategy, in order of preference; Kafka 3.x's
  /// default is [range, cooperative-sticky].
  std::vector<std::string> assignors = {"range", "cooperative-sticky"};
  /// session.timeout.ms
  int32_t session_timeout_ms = 45000;
  /// max.poll.interval.ms: sent as the rebalance timeout.
  int32_t max_poll_interval_ms = 300000;
  /// heartbeat.interval.ms
  int32_t heartbeat_interval_ms = 3000;
  /// retry.backoff.ms
  int32_t retry_backoff_ms = 100;
  /// request.timeout.ms
  int32_t request_timeout_ms = 30000;
  /// bootstrap.servers beyond the one the consumer starts with: brokers to
  /// ask for the coordinator when that one is down.
  std::vector<broker_actor> bootstrap_servers;
  /// group.protocol: "classic" (JoinGroup/SyncGroup, the assignors above
  /// run on the client) or "consumer" (KIP-848: ConsumerGroupHeartbeat,
  /// the coordinator assigns).
  std::string group_protocol = "classic";
  /// group.remote.assignor (consumer protocol): the server-side assignor
  /// to ask for; empty leaves the choice to the group.
  std::string group_remote_assignor;
  /// client.rack (consumer protocol); empty: none.
  std::string client_rack;
  /// Kafka's assign() instead of subscribe(): own `assignment` without
  /// joining the group (no JoinGroup, no heartbeats).
  bool manual_assignment = false;
  std::vector<topic_partition> assignment;
  /// A shared heartbeat ticker (client/heartbeat_ticker.hpp) for the
  /// classic protocol's ticks; null: the consumer's own delayed sends.
  caf::actor heartbeat_ticker;
};

/// Kafka's ConsumerCoordinator as an actor: finds the coordinator, joins,
/// runs the assignor when it is the leader, syncs, heartbeats every
/// heartbeat.interval.ms, and rejoins on REBALANCE_IN_PROGRESS,
/// ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID. Reports every change to the
/// listener.
struct consumer_state {
  /// The settings, read-only once spawned: shared by every consumer spawned
  /// from the same pointer (`spawn<consumer>(shared_config, ...)`), so that
  /// thousands of members of one group in one process (the stress harness)
  /// hold one copy instead of each its own 360 bytes plus strings
  /// (docs/ARCHITECTURE.md §8).
  std::shared_ptr<const consumer_config> config;
  /// This consumer's name (its config's, unless spawned sharing a config).
  std::string display_name;
  /// FindCoordinator: the bootstrap broker first, then every broker a
  /// FindCoordinator or Metadata answer named, tried in turn when one fails
  /// (Kafka clients pick any known broker). No cache: the consumer keeps
  /// the coordinator it found until a request fails.
  client::coordinator_lookup coordinators;
  /// The coordinating broker (FindCoordinator's answer).
  broker_actor coordinator;
  /// Where group requests go: the broker until a JoinGroup answer arrives,
  /// then the group's coordinator actor that sent it, so that heartbeats
  /// skip the broker's routing hop. If that actor goes away (the broker
  /// resigned the group), requests fail and the consumer rediscovers.
  group_protocol_actor group;
  event_listener_actor listener;

  std::string member_id;
  int32_t generation = -1;
  std::string protocol;
  bool leader = false;
  consumer_phase phase = consumer_phase::unjoined;
  /// Partitions currently owned (assigned and not revoked).
  std::vector<topic_partition> owned;
  /// What the sticky assignors remember across eager revokes.
  std::vector<topic_partition> last_assignment;
  int32_t last_assignment_generation = -1;
  error_code last_error = error_code::none;
  bool cooperative = false;

  /// Commits waiting for the coordinator to be found again: Kafka's
  /// commitSync retries coordinator errors until its deadline (here
  /// request.timeout.ms after the commit was asked for).
  struct waiting_commit {
    offset_commit_request request;
    caf::typed_response_promise<offset_commit_response> promise;
    int64_t deadline_ms = 0;
  };
  std::vector<waiting_commit> waiting_commits;

  /// Guards against stale answers and timers: every new join bumps it.
  uint64_t join_epoch = 0;
  uint64_t heartbeat_epoch = 0;
  uint64_t rejoin_epoch = 0;
  /// When the classic heartbeat now in flight was sent (actor clock, ms);
  /// -1 when none is. One at a time, as librdkafka (a tick that finds one
  /// in flight skips its send) and Kafka's heartbeat thread; its
  /// request.timeout.ms is checked by the ticks, not by a CAF request
  /// timeout, which would cost two clock operations per heartbeat
  /// (docs/ARCHITECTURE.md §8).
  int64_t heartbeat_sent_ms = -1;
  /// Ticks come (a delayed tick is pending, or the shared ticker ticks for
  /// this consumer). They run from the first JoinGroup until the consumer
  /// stops heartbeating: besides heartbeats they watch the JoinGroup's and
  /// SyncGroup's deadlines.
  bool ticking = false;
  /// When the JoinGroup or SyncGroup in flight times out (actor clock, ms);
  /// -1 when none is. Those requests carry no CAF timeout, which CAF 0.17
  /// would keep in its clock until it fired, long after the answer: the
  /// ticks check it instead (docs/ARCHITECTURE.md §8).
  int64_t group_request_deadline_ms = -1;

  /// Spawned with a manual assignment (Kafka's assign()).
  bool manual = false;
  /// Where the consumer reads next, per owned partition (Kafka's
  /// SubscriptionState positions); revoked and lost partitions lose theirs.
  std::map<topic_partition, int64_t> positions;

  // -- group.protocol=consumer (client/consumer_group_member.cpp) --

  /// The member's side of KIP-848; null with the classic protocol.
  std::unique_ptr<consumer_membership> membership;
  /// One heartbeat at a time, as Kafka's heartbeat request manager.
  bool heartbeat_in_flight = false;
  /// close(): answered once the leave heartbeat was answered.
  caf::typed_response_promise<consumer_status> closing;

  static inline const char* name = "consumer";
};

using consumer_ptr = consumer_actor::stateful_pointer<consumer_state>;

/// The consumer of either group protocol (consumer_config.group_protocol),
/// spawned as `sys.spawn<consumer>(config, bootstrap, listener)`, or with
/// settings it shares with others (`sys.spawn<consumer>(shared_config,
/// name, bootstrap, listener)`; `name` replaces the config's: events and
/// logs tell the consumers apart by it).
///
/// Every consumer of a protocol runs one shared behaviour: its handlers
/// find their consumer through current(), which resume() sets while the
/// consumer runs on a thread, where a behaviour of its own (nine handlers,
/// each holding `self`) cost each consumer about 450 bytes
/// (docs/ARCHITECTURE.md §8). Replies to requests (`then`) still hold
/// `self`: they live only while a request is in flight.
class consumer : public consumer_actor::stateful_base<consumer_state> {
public:
  using super = consumer_actor::stateful_base<consumer_state>;

  consumer(caf::actor_config& cfg, consumer_config config,
           broker_actor bootstrap, event_listener_actor listener);

  consumer(caf::actor_config& cfg,
           std::shared_ptr<const consumer_config> config, std::string name,
           broker_actor bootstrap, event_listener_actor listener);

  behavior_type make_behavior() override;

  resume_result resume(caf::execution_unit* ctx,
                       size_t max_throughput) override;

  /// The consumer whose handler runs on this thread (null outside one).
  static consumer_ptr current() noexcept;
};

/// The KIP-848 side of make_behavior (Kafka's AsyncKafkaConsumer with its
/// ConsumerMembershipManager): heartbeats with the member epoch,
/// reconciles each new assignment (revoke first, then assign, then
/// acknowledge), rejoins with epoch 0 when fenced, leaves with epoch -1,
/// commits with the member epoch. `self` has its config and brokers set;
/// this makes up the member and looks for the coordinator.
void start_group_member(consumer_ptr self);

/// The handlers of every KIP-848 consumer (client/consumer_group_member.cpp).
consumer_actor::behavior_type group_member_behavior();

// -- shared by both protocols (client/consumer.cpp) ------------------------------

/// Tells the listener (if any) what happened to the consumer.
void emit(consumer_ptr self, consumer_event_kind kind,
          std::vector<topic_partition> ps = {},
          error_code error = error_code::none);

/// Remembers a broker to ask for the coordinator.
void learn_broker(consumer_ptr self, const caf::actor& handle);

consumer_status status_of(const consumer_state& st);

/// The owned partitions with their positions (position_unknown: from the
/// committed offset).
consumer_positions positions_of(consumer_state& st);

/// Kafka's assign(): INVALID_REQUEST unless spawned with a manual
/// assignment.
consumer_positions assign_partitions(consumer_ptr self,
                                     std::vector<topic_partition> ps);

/// Kafka's seek(): only owned partitions can be sought.
consumer_positions seek_partitions(consumer_ptr self,
                                   const std::vector<partition_position>& to);

/// Kafka's rebalance protocol for a list of assignors: cooperative only if
/// every assignor supports it.
rebalance_protocol protocol_of(const std::vector<std::string>& assignors);

/// The handlers both protocols' behaviours share, each finding its
/// consumer through consumer::current().
namespace consumer_handlers {

inline const auto status = [](consumer_status_request&) {
  return status_of(consumer::current()->state);
};
inline const auto crash = [](consumer_crash&) { consumer::current()->quit(); };
inline const auto assign = [](consumer_assign& req) {
  return assign_partitions(consumer::current(), std::move(req.partitions));
};
inline const auto seek = [](consumer_seek& req) {
  return seek_partitions(consumer::current(), req.positions);
};
inline const auto positions = [](consumer_positions_request&) {
  return positions_of(consumer::current()->state);
};

} // namespace consumer_handlers

} // namespace troupe
