#pragma once

// Kafka's consumer-group state machine (kafka.coordinator.group.
// GroupCoordinator + GroupMetadata), as a plain class: no actors, no clocks.
// The caller passes the current time in, parks the requests this class says
// are parked, and carries out the effects it collects: answers to parked
// JoinGroup/SyncGroup requests, timers to arm, member sessions to start or
// stop. Comments that restate Kafka's semantics say so.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "domain/group_config.hpp"
#include "domain/group_kinds.hpp"
#include "domain/group_requests.hpp"
#include "domain/offset_store.hpp"

namespace troupe {

// group_state and its state_name(): domain/group_kinds.hpp.

/// The protocol type of Kafka's consumers (ConsumerProtocol.PROTOCOL_TYPE):
/// the coordinator reads their subscriptions (offsets expiry, KIP-496).
inline constexpr std::string_view consumer_protocol_type = "consumer";

struct group_member {
  std::string member_id;
  std::string group_instance_id;
  std::string client_id;
  std::string client_host;
  std::string protocol_type;
  /// In the member's order of preference.
  std::vector<join_protocol> protocols;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  bytes assignment;
  /// Order of first join; the leader is re-elected in this order.
  uint64_t join_seq = 0;
  int64_t last_heartbeat_ms = 0;
  bool awaiting_join = false;
  bool awaiting_sync = false;
  /// The generation whose JoinGroup answer it got without having sent
  /// SyncGroup yet (Kafka's pendingSyncMembers), or -1: a new generation
  /// makes every older mark stale without a walk over the members.
  int32_t pending_sync_generation = -1;
  /// Joined during the current rebalance, not yet part of a generation.
  bool is_new = false;

  bool is_static() const noexcept {
    return !group_instance_id.empty();
  }

  const bytes* metadata_for(std::string_view protocol) const noexcept;
};

/// The group as a coordinator stored it after a rebalance (Kafka's
/// GroupMetadataValue): what a new coordinator rebuilds it from.
struct group_snapshot {
  int32_t generation = 0;
  std::string protocol_type;
  std::string protocol_name;
  std::string leader;
  /// In join order; each with the chosen protocol's metadata as its only
  /// protocol, its assignment and its timeouts.
  std::vector<group_member> members;
  /// When the group entered its state (GroupMetadataValue's
  /// currentStateTimestamp); none in records that lack it.
  std::optional<int64_t> current_state_timestamp_ms;
};

/// What one run of offsets expiry took from a group (Kafka's
/// OffsetMetadataManager.cleanupExpiredOffsets and GroupMetadataManager
/// .maybeDeleteGroup): the tombstones for the caller to write.
struct expired_offsets {
  /// Removed from the group, each as it was.
  std::vector<std::pair<topic_partition, committed_offset>> offsets;
  /// The group was Empty with no offsets left and is Dead now.
  bool group_deleted = false;
  /// Its group metadata gets a tombstone too (it had a generation).
  bool metadata_tombstone = false;
  /// The state timestamp before the group died, for undo_expiry.
  std::optional<int64_t> state_timestamp_ms;

  bool empty() const noexcept {
    return offsets.empty() && !group_deleted;
  }
};

/// What DeleteGroups or OffsetDelete took from a group (Kafka's
/// GroupCoordinator.handleDeleteGroups and handleDeleteOffsets, through
/// GroupMetadataManager.cleanupGroupMetadata): the same tombstones as an
/// expiry, undone the same way (undo_expiry) when they cannot be written.
struct offsets_removal {
  /// The group's error; nothing was removed when it is set.
  error_code error = error_code::none;
  /// OffsetDelete's answer for each partition asked, in request order.
  std::vector<partition_result> partitions;
  expired_offsets removed;
};

/// A timer the caller arms; when it fires, the caller hands the epoch back.
/// A newer arm of the same timer makes older epochs stale.
struct timer_request {
  uint64_t epoch = 0;
  int64_t delay_ms = 0;
};

struct state_transition {
  group_state from;
  group_state to;
  int32_t generation;
  std::string reason;
};

/// What a call asks the caller to do.
struct group_effects {
  /// Answers for parked JoinGroup requests, by member id.
  std::vector<std::pair<std::string, join_group_response>> join_answers;
  /// Answers for parked SyncGroup requests, by member id.
  std::vector<std::pair<std::string, sync_group_response>> sync_answers;
  std::optional<timer_request> join_timer;
  std::optional<timer_request> sync_timer;
  /// Member sessions to start, or to re-arm when already running (member
  /// id, next check after ms).
  std::vector<std::pair<std::string, int64_t>> sessions_started;
  std::vector<std::string> sessions_stopped;
  std::vector<state_transition> transitions;
  /// Store the group with its new assignment (this generation) before the
  /// members get it; answer with on_group_stored.
  std::optional<int32_t> store_group;

  bool empty() const noexcept {
    return join_answers.empty() && sync_answers.empty() && !join_timer
           && !sync_timer && sessions_started.empty()
           && sessions_stopped.empty() && transitions.empty() && !store_group;
  }
};

/// The result of a request that may be parked: either an answer now, or
/// parked under a member id until an effect answers it.
template <class Response>
struct maybe_parked {
  std::optional<Response> answer;
  std::string parked_member_id;

  bool parked() const noexcept {
    return !answer.has_value();
  }
};

class group {
public:
  // -- constructors ----------------------------------------------------------

  group(std::string group_id, group_config config,
        std::unique_ptr<offset_store> offsets, uint64_t seed);

  group(const group&) = delete;
  group& operator=(const group&) = delete;

  // -- requests --------------------------------------------------------------

  maybe_parked<join_group_response> join(const join_group_request& req,
                                         int64_t now_ms);

  maybe_parked<sync_group_response> sync(const sync_group_request& req,
                                         int64_t now_ms);

  heartbeat_response heartbeat(const heartbeat_request& req, int64_t now_ms);

  leave_group_response leave(const leave_group_request& req, int64_t now_ms);

  offset_commit_response commit(const offset_commit_request& req,
                                int64_t now_ms);

  offset_fetch_response fetch(const offset_fetch_request& req) const;

  described_group describe() const;

  listed_group listing() const;

  // -- timers ------------------------------------------------------------------

  /// The join timer fired (initial rebalance delay or rebalance timeout).
  void on_join_timer(uint64_t epoch, int64_t now_ms);

  /// The pending-sync timer fired (rebalance timeout after the JoinGroup
  /// barrier completed).
  void on_sync_timer(uint64_t epoch, int64_t now_ms);

  /// A member session's timer fired. Returns when to check again, or
  /// nullopt when the session is over (the member expired or is gone).
  std::optional<int64_t> check_session(const std::string& member_id,
                                       int64_t now_ms);

  // -- teardown ------------------------------------------------------------------

  /// The coordinator gives the group up (Kafka's onGroupUnloaded): the group
  /// becomes Dead and every parked request is answered with `reason`.
  void shutdown(error_code reason);

  // -- loading -----------------------------------------------------------------------

  /// A coordinator taking the group over from __consumer_offsets rebuilds it
  /// from the group metadata last stored (Kafka's
  /// GroupMetadataManager.loadGroup and GroupCoordinator.onGroupLoaded):
  /// generation, protocol type and name, leader and every member with its
  /// metadata and assignment. With members the group is Stable and each
  /// member's session starts afresh now, so members that heartbeat to the
  /// new coordinator with the current generation carry on without a
  /// rebalance; without members it is Empty and keeps its generation, so
  /// generations never repeat.
  void restore(group_snapshot snapshot, int64_t now_ms);

  /// The group metadata asked for by a store_group effect was written
  /// (error none) or not: Kafka's storeGroup callback in doSyncGroup. On
  /// success the assignment goes out and the group is Stable; on failure
  /// the members get the error (already mapped for SyncGroup) and the group
  /// rebalances.
  void on_group_stored(int32_t generation, error_code error, int64_t now_ms);

  // -- offsets expiry ------------------------------------------------------------

  /// Kafka's offset expiry for this group at `now_ms` (KIP-211, KIP-496;
  /// docs/ARCHITECTURE.md §3). Without a protocol type (offsets stored
  /// without a group membership) each offset expires `retention_ms` after
  /// its commit; an Empty group's offsets expire `retention_ms` after it
  /// became Empty; a Stable group of the consumer protocol keeps the offsets
  /// of the topics its members subscribe to, the others expire after their
  /// commit; a rebalancing group keeps all. Partitions in `pending_commits`
  /// (a commit being written) stay. The expired offsets are removed, and an
  /// Empty group left without offsets becomes Dead. The caller writes the
  /// tombstones and calls undo_expiry if that fails.
  expired_offsets
  expire_offsets(int64_t now_ms, int64_t retention_ms,
                 const std::set<topic_partition>& pending_commits = {});

  /// The tombstones of `expired` could not be written: the offsets are back
  /// (unless committed again meanwhile) and a deleted group is Empty again.
  void undo_expiry(const expired_offsets& expired);

  // -- the coordinator's admin -----------------------------------------------------

  /// Kafka's handleDeleteGroups for this group: an Empty group gives up
  /// every committed offset and is Dead; a Dead one is GROUP_ID_NOT_FOUND;
  /// one with members NON_EMPTY_GROUP. The caller writes the tombstones
  /// and calls undo_expiry if that fails.
  offsets_removal delete_group(int64_t now_ms);

  /// Kafka's handleDeleteOffsets: an Empty group gives up the offsets of
  /// `partitions`; a group of the consumer protocol with members keeps
  /// those of the topics a member subscribes to
  /// (GROUP_SUBSCRIBED_TO_TOPIC) and gives up the others; a group of
  /// another protocol with members is NON_EMPTY_GROUP, a Dead one
  /// GROUP_ID_NOT_FOUND. An Empty group left without offsets is Dead.
  offsets_removal delete_offsets(const std::vector<topic_partition>& partitions,
                                 int64_t now_ms);

  /// Kafka's isSubscribedToTopic: a member subscribes to it, or (consumer
  /// protocol) the subscriptions are unknown.
  bool is_subscribed_to_topic(const std::string& topic) const;

  /// The group's committed offsets.
  offset_store& offsets() noexcept {
    return *offsets_;
  }

  // -- effects ---------------------------------------------------------------------

  group_effects take_effects() {
    return std::exchange(effects_, group_effects{});
  }

  // -- observers -------------------------------------------------------------------

  const std::string& id() const noexcept {
    return group_id_;
  }
  group_state state() const noexcept {
    return state_;
  }
  int32_t generation() const noexcept {
    return generation_;
  }
  const std::string& leader() const noexcept {
    return leader_;
  }
  const std::string& protocol_type() const noexcept {
    return protocol_type_;
  }
  const std::string& protocol_name() const noexcept {
    return protocol_name_;
  }
  size_t size() const noexcept {
    return members_.size();
  }
  bool has_member(const std::string& member_id) const {
    return members_.count(member_id) > 0;
  }
  const group_member* member(const std::string& member_id) const;
  bool is_pending_member(const std::string& member_id) const {
    return pending_members_.count(member_id) > 0;
  }
  /// Members in join order.
  std::vector<const group_member*> members_in_join_order() const;
  /// Largest rebalance timeout of the members (0 when empty).
  int32_t rebalance_timeout_ms() const;
  const group_config& config() const noexcept {
    return config_;
  }
  /// When the group entered its state (Kafka's currentStateTimestamp).
  std::optional<int64_t> current_state_timestamp_ms() const noexcept {
    return current_state_timestamp_ms_;
  }
  /// The topics the members subscribe to, when the group knows them
  /// (consumer protocol only; Kafka's subscribedTopics).
  const std::optional<std::set<std::string>>& subscribed_topics() const {
    return subscribed_topics_;
  }

private:
  // -- join paths (Kafka's doNewMemberJoinGroup / doCurrentMemberJoinGroup) --

  maybe_parked<join_group_response>
  join_new_member(const join_group_request& req, int64_t now_ms);

  maybe_parked<join_group_response>
  join_current_member(const join_group_request& req, int64_t now_ms);

  maybe_parked<join_group_response>
  add_member_and_rebalance(const std::string& member_id,
                           const join_group_request& req, int64_t now_ms);

  maybe_parked<join_group_response>
  update_member_and_rebalance(group_member& m, const join_group_request& req,
                              const char* reason, int64_t now_ms);

  maybe_parked<join_group_response>
  update_static_member_and_rebalance(const std::string& new_member_id,
                                     const join_group_request& req,
                                     int64_t now_ms);

  join_group_response current_join_answer(const group_member& m) const;

  // -- rebalance barrier -------------------------------------------------------

  bool can_rebalance() const noexcept;
  void maybe_prepare_rebalance(const std::string& reason, int64_t now_ms);
  void prepare_rebalance(const std::string& reason, int64_t now_ms);
  void try_complete_join(int64_t now_ms);
  void complete_join(int64_t now_ms);
  bool all_members_joined() const noexcept;
  bool maybe_elect_new_joined_leader();
  void init_next_generation(int64_t now_ms);
  std::optional<std::set<std::string>> compute_subscribed_topics() const;
  std::string select_protocol() const;
  void arm_join_timer(int64_t delay_ms, bool initial);
  void arm_sync_timer(int64_t delay_ms);
  void cancel_sync_timer() {
    ++sync_epoch_;
  }

  // -- SyncGroup ----------------------------------------------------------------

  /// Each member's assignment from the leader's SyncGroup.
  void set_assignment(const std::vector<sync_group_assignment>& given);
  bool pending_sync(const group_member& m) const noexcept {
    return m.pending_sync_generation == generation_;
  }
  void set_pending_sync(group_member& m, bool pending);
  void reset_and_propagate_assignment_error(error_code error);
  void propagate_assignment(error_code error, int64_t now_ms);

  // -- membership -----------------------------------------------------------------

  group_member& add_member(group_member m);
  void remove_member(const std::string& member_id);
  void remove_member_and_update_group(const std::string& member_id,
                                      const std::string& reason,
                                      int64_t now_ms);
  void update_member_protocols(group_member& m,
                               std::vector<join_protocol> protocols);
  void set_awaiting_join(group_member& m, bool value);
  bool supports_protocols(const std::string& protocol_type,
                          const std::vector<join_protocol>& protocols) const;
  bool accept_joining_member(const std::string& member_id,
                             const std::string& instance_id) const;
  bool is_static_member_fenced(const std::string& member_id,
                               const std::string& instance_id) const;
  std::string generate_member_id(const std::string& prefix);
  group_member* find_member(const std::string& member_id);

  // -- helpers -------------------------------------------------------------------

  /// `now_ms` -1: no clock (teardown), the state timestamp stays.
  void transition_to(group_state target, std::string reason, int64_t now_ms);
  void answer_join(group_member& m, join_group_response answer);
  void answer_sync(group_member& m, sync_group_response answer);
  void start_session(const std::string& member_id, int64_t first_check_ms);
  void stop_session(const std::string& member_id);
  error_code validate_ids(const std::string& member_id,
                          const std::string& instance_id) const;

  // -- state -----------------------------------------------------------------------

  std::string group_id_;
  group_config config_;
  std::unique_ptr<offset_store> offsets_;
  std::mt19937_64 rng_;

  group_state state_ = group_state::empty;
  int32_t generation_ = 0;
  std::string protocol_type_;
  std::string protocol_name_;
  std::string leader_;
  std::optional<int64_t> current_state_timestamp_ms_;
  std::optional<std::set<std::string>> subscribed_topics_;
  /// The generation whose group metadata is being stored.
  std::optional<int32_t> storing_generation_;

  std::unordered_map<std::string, group_member> members_;
  /// The members by join_seq. An unordered_map's elements never move (a
  /// rehash relinks nodes), so walking the group in join order costs no
  /// lookup by member id: at 10,000 members those hashes were a fifth of
  /// the coordinator's time in a rebalance (README, issue 24).
  std::map<uint64_t, group_member*> join_order_;
  uint64_t next_join_seq_ = 0;
  /// Protocol name -> number of members supporting it.
  std::unordered_map<std::string, size_t> supported_protocols_;
  size_t num_awaiting_join_ = 0;
  /// group.instance.id -> member id.
  std::unordered_map<std::string, std::string> static_members_;
  /// KIP-394: members that were handed an id and must rejoin with it,
  /// with the time they got it and their session timeout.
  std::unordered_map<std::string, std::pair<int64_t, int32_t>> pending_members_;
  /// How many members are pending SyncGroup in this generation.
  size_t num_pending_sync_ = 0;

  // Join timer: the initial rebalance delay (InitialDelayedJoin) or the
  // rebalance timeout (DelayedJoin).
  uint64_t join_epoch_ = 0;
  bool join_timer_initial_ = false;
  int64_t initial_delay_ms_ = 0;
  int64_t initial_remaining_ms_ = 0;
  bool new_member_added_ = false;

  uint64_t sync_epoch_ = 0;

  group_effects effects_;
};

} // namespace troupe
