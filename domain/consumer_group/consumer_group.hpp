#pragma once

// KIP-848's consumer group (Kafka's group-coordinator GroupMetadataManager
// .consumerGroupHeartbeat and modern.consumer.ConsumerGroup) as a plain
// class: no actors, no clocks. The caller passes the time in, writes the
// records this class emits to __consumer_offsets before it hands out the
// answers, arms the timers it asks for and hands their ids back when they
// fire. Comments that restate Kafka's semantics say so.
//
// The group's state is the replay of its records (consumer_group_image):
// every change is a record, applied here as it is emitted, exactly as a
// coordinator that takes the group over replays it (restore).
//
// Topics: members subscribe by name, assignments are by topic id. The
// caller supplies every topic of the cluster (update_topics: name, id,
// partition count); as Kafka, a change of a subscribed topic bumps the
// group epoch on the next heartbeat, which recomputes the target.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "domain/consumer_group/current_assignment.hpp"
#include "domain/consumer_group/records.hpp"
#include "domain/consumer_group/server_assignor.hpp"
#include "domain/group_config.hpp"
#include "domain/group_kinds.hpp"
#include "domain/consumer_group/requests.hpp"
#include "domain/group_requests.hpp"
#include "domain/offsets/committed_offsets.hpp"

namespace troupe {

// consumer_group_state and its state_name(): domain/group_kinds.hpp.

/// Kafka's ConsumerGroup.maybeUpdateGroupState, for any image.
consumer_group_state derive_state(const consumer_group_image& image);

/// A timer the caller arms for a member; when it fires, the caller hands
/// member id and timer back. A newer timer of the same kind for the member
/// makes older ones stale.
struct consumer_group_timer {
  std::string member_id;
  uint64_t timer = 0;
  int64_t delay_ms = 0;
};

struct consumer_group_transition {
  consumer_group_state from;
  consumer_group_state to;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string reason;
};

/// What a call asks the caller to do.
struct consumer_group_effects {
  /// Write these (in order, acks=all) before any answer of the same call
  /// goes out; if the write fails, restore the group from what was written
  /// before (Kafka reverts to the last committed state).
  std::vector<consumer_group_record> records;
  std::vector<consumer_group_timer> session_timers;
  std::vector<consumer_group_timer> rebalance_timers;
  /// The group's assignment timer (member id empty): when it fires, the
  /// caller hands the timer back (on_assignment_timer).
  std::optional<consumer_group_timer> assignment_timer;
  std::vector<consumer_group_transition> transitions;

  bool empty() const noexcept {
    return records.empty() && session_timers.empty() && rebalance_timers.empty()
           && !assignment_timer && transitions.empty();
  }
};

/// What one run of offsets expiry did to a consumer group.
struct consumer_group_expiry {
  /// Offsets that got tombstones.
  std::vector<topic_partition> offsets;
  /// The group was Empty with no offsets left: its records got tombstones
  /// and it is Dead.
  bool group_deleted = false;

  bool empty() const noexcept {
    return offsets.empty() && !group_deleted;
  }
};

class consumer_group {
public:
  // -- constructors ----------------------------------------------------------

  /// `config.consumer_*` are the group.consumer.* settings.
  consumer_group(std::string group_id, group_config config, uint64_t seed);

  consumer_group(const consumer_group&) = delete;
  consumer_group& operator=(const consumer_group&) = delete;

  // -- requests --------------------------------------------------------------

  /// ConsumerGroupHeartbeat: join (epoch 0), heartbeat, leave (-1, -2).
  consumer_group_heartbeat_response
  heartbeat(const consumer_group_heartbeat_request& req, int64_t now_ms);

  /// OffsetCommit, its generation id being the member epoch (Kafka's
  /// ConsumerGroup.validateOffsetCommit).
  offset_commit_response commit(const offset_commit_request& req,
                                int64_t now_ms);

  /// OffsetFetch of the committed offsets (no member fields: an admin
  /// fetch, always allowed).
  offset_fetch_response fetch(const offset_fetch_request& req) const;

  /// ConsumerGroupDescribe of this group.
  consumer_group_described_group describe() const;

  listed_group listing() const;

  // -- cluster metadata ------------------------------------------------------

  /// The topics of the cluster. A change of a subscribed topic bumps the
  /// group epoch on the next heartbeat (Kafka's requestMetadataRefresh).
  void update_topics(const std::vector<topic_info>& topics);

  // -- timers ----------------------------------------------------------------

  /// A session timer fired: the member is fenced unless it heartbeated
  /// within group.consumer.session.timeout.ms (then the timer is re-armed).
  void on_session_timer(const std::string& member_id, uint64_t timer,
                        int64_t now_ms);

  /// A rebalance timer fired: a member still revoking in the epoch the
  /// timer was armed for is fenced.
  void on_rebalance_timer(const std::string& member_id, uint64_t timer,
                          int64_t now_ms);

  /// The assignment timer fired: a group epoch that waited for
  /// group.consumer.assignment.interval.ms gets its target assignment now,
  /// and the members pick it up with their next heartbeats.
  void on_assignment_timer(uint64_t timer, int64_t now_ms);

  // -- offsets expiry ----------------------------------------------------------

  /// Kafka's offset expiry for a consumer group at `now_ms` (KIP-211 and
  /// KIP-496 as the new coordinator runs them: OffsetMetadataManager
  /// .cleanupExpiredOffsets with ConsumerGroup.offsetExpirationCondition,
  /// GroupMetadataManager.maybeDeleteGroup). The offsets of topics no member
  /// subscribes to expire `retention_ms` after their commit and get
  /// tombstones; when every offset expired (or there is none) and the group
  /// has no members, every record of the group gets a tombstone and the
  /// group is Dead. The records go out as effects: a failed write restores
  /// the group (restore), which brings it back.
  consumer_group_expiry expire_offsets(int64_t now_ms, int64_t retention_ms);

  /// Kafka's ModernGroup.isSubscribedToTopic.
  bool is_subscribed_to_topic(const std::string& topic) const {
    return subscribed_topics_.count(topic) > 0;
  }

  // -- the coordinator's admin -------------------------------------------------

  /// DeleteGroups (Kafka's GroupCoordinatorShard.deleteGroups): a group
  /// without members emits tombstones for every committed offset and for
  /// itself and is Dead; GROUP_ID_NOT_FOUND when Dead, NON_EMPTY_GROUP
  /// with members. A failed write is undone by restore.
  error_code delete_group();

  /// OffsetDelete (OffsetMetadataManager.deleteOffsets): one result per
  /// partition, in order; GROUP_SUBSCRIBED_TO_TOPIC for a topic a member
  /// subscribes to, else NONE with a tombstone for what is committed.
  offset_delete_response
  delete_offsets(const std::vector<topic_partition>& partitions);

  // -- loading and teardown --------------------------------------------------

  /// Takes the group over from its replayed records (Kafka's replay plus
  /// onLoaded), or goes back to what was written when a write failed (a
  /// group deleted by expiry lives again): every member gets a full session timeout from `now_ms`,
  /// members still revoking get their rebalance timeout again, and the
  /// subscription metadata is checked against the topics on the next
  /// heartbeat. Emits no records.
  void restore(consumer_group_image image, int64_t now_ms);

  /// The coordinator gives the group up: it becomes Dead and answers
  /// NOT_COORDINATOR from now on.
  void shutdown();

  // -- effects ---------------------------------------------------------------

  consumer_group_effects take_effects() {
    return std::exchange(effects_, consumer_group_effects{});
  }

  // -- observers -------------------------------------------------------------

  const std::string& id() const noexcept {
    return group_id_;
  }
  consumer_group_state state() const noexcept {
    return state_;
  }
  int32_t group_epoch() const noexcept {
    return image_.group_epoch;
  }
  int32_t assignment_epoch() const noexcept {
    return image_.assignment_epoch;
  }
  /// Everything the group's records say, as replayed.
  const consumer_group_image& image() const noexcept {
    return image_;
  }
  size_t size() const noexcept {
    return image_.members.size();
  }
  const consumer_member* member(const std::string& member_id) const;
  /// The member's target assignment (empty when it has none).
  const partition_assignment& target_of(const std::string& member_id) const;
  /// The assignor the next target assignment uses (Kafka's
  /// preferredServerAssignor, else the first of group.consumer.assignors).
  std::string assignor() const;
  const group_config& config() const noexcept {
    return config_;
  }
  /// The cluster's topics by id, as last supplied.
  const std::map<uuid, topic_info>& topics_by_id() const noexcept {
    return topics_by_id_;
  }

private:
  struct failure {
    error_code error;
    std::string message;
  };

  /// A member's timers (not persisted: restore arms them afresh).
  struct member_timers {
    int64_t session_deadline_ms = 0;
    uint64_t session_timer = 0;
    uint64_t rebalance_timer = 0;
    int32_t rebalance_epoch = 0;
  };

  struct partition_owner {
    std::string member_id;
    int32_t epoch = 0;
  };

  // -- heartbeat paths (Kafka's GroupMetadataManager) -------------------------

  consumer_group_heartbeat_response
  join_or_heartbeat(const consumer_group_heartbeat_request& req,
                    int64_t now_ms);

  consumer_group_heartbeat_response
  leave(const consumer_group_heartbeat_request& req);

  /// getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember: the member the
  /// heartbeat is for, as it stands before this heartbeat (a new one is not
  /// yet part of the group).
  std::variant<consumer_member, failure>
  find_or_create_member(const consumer_group_heartbeat_request& req,
                        const std::string& member_id,
                        const std::optional<partition_assignment>& owned);

  std::optional<failure>
  check_member_epoch(const consumer_member& m, int32_t received,
                     const std::optional<partition_assignment>& owned) const;

  // -- group changes -----------------------------------------------------------

  /// replaceMember: the static member `old_id` comes back as `m`.
  void replace_member(const std::string& old_id, const consumer_member& m);
  /// removeMember: the member's three tombstones.
  void remove_member(const std::string& member_id);
  /// consumerGroupFenceMember.
  void fence_member(const std::string& member_id, const std::string& reason);
  std::map<std::string, topic_info> compute_subscription_metadata() const;
  /// TargetAssignmentBuilder for the group at `epoch`.
  void update_target_assignment(int32_t epoch);
  /// Kafka 4.3's maybeUpdateTargetAssignment with assignment batching
  /// (KIP-1263): runs the assignor for the group epoch unless the last run
  /// was less than group.consumer.assignment.interval.ms ago; then the
  /// assignment timer is armed for the rest of the interval and the members
  /// keep reconciling towards the last target meanwhile.
  /// `joined` is the member this heartbeat created, if any: a join that
  /// the interval would make wait gets its share at once when
  /// assign_joiner can give it (docs/ARCHITECTURE.md §3, "KIP-848
  /// incremental joins").
  void maybe_update_target_assignment(int64_t now_ms,
                                      const std::string* joined = nullptr);
  /// The uniform assignor's answer for one new member of a homogeneous,
  /// balanced group, without running it over the whole group: the joiner
  /// takes its quota one partition at a time from the members holding the
  /// most. False (nothing written) when the group is not in that shape:
  /// the target lags more than this join, another assignor, a
  /// heterogeneous subscription, a changed topic or an unbalanced target.
  bool assign_joiner(const std::string& member_id);
  /// maybeReconcile; false when the member must be fenced.
  bool maybe_reconcile(const std::string& member_id,
                       const std::optional<partition_assignment>& owned);

  // -- records -----------------------------------------------------------------

  /// Applies `r` to the image and its indexes and emits it.
  void append(consumer_group_record r);
  void unindex(const consumer_member& m);
  void index(const consumer_member& m);
  void rebuild_indexes();
  int32_t current_partition_epoch(const uuid& topic, int32_t partition) const;

  // -- timers ------------------------------------------------------------------

  void schedule_session(const std::string& member_id, int64_t now_ms);
  void schedule_rebalance(const std::string& member_id, int32_t epoch,
                          int32_t timeout_ms);
  void cancel_rebalance(const std::string& member_id);

  // -- helpers -----------------------------------------------------------------

  void update_state(const std::string& reason);
  /// The group's tombstones; it is Dead until restored.
  void bury(const char* reason);
  std::string generate_member_id();
  std::optional<partition_assignment> resolve(
    const nullable<std::vector<consumer_group_topic_partitions>>& xs) const;
  consumer_group_assignment
  to_wire(const partition_assignment& assignment) const;
  consumer_group_heartbeat_response answer(const failure& f) const;
  int32_t heartbeat_interval_for(const consumer_member& m, int64_t now_ms,
                                 std::optional<int64_t> epoch_moved_ms) const;

  // -- state -------------------------------------------------------------------

  std::string group_id_;
  group_config config_;
  std::mt19937_64 rng_;
  consumer_group_image image_;
  consumer_group_state state_ = consumer_group_state::empty;

  // Derived from image_ (Kafka keeps the same indexes in ConsumerGroup).
  std::map<uuid, std::map<int32_t, partition_owner>> partition_owners_;
  /// Member epoch -> members Stable at it (Kafka's group state needs
  /// every member stable at the assignment epoch).
  std::map<int32_t, size_t> stable_at_epoch_;
  /// group.instance.id -> member id.
  std::map<std::string, std::string> static_members_;
  /// Subscribed topic name -> number of subscribers.
  std::map<std::string, int> subscribed_topics_;
  /// Server assignor name -> number of members naming it.
  std::map<std::string, int> server_assignors_;

  std::map<std::string, topic_info> topics_by_name_;
  std::map<uuid, topic_info> topics_by_id_;
  /// The subscribed topics' metadata may have changed.
  bool metadata_refresh_needed_ = false;

  std::map<std::string, member_timers> timers_;
  uint64_t next_timer_ = 0;
  /// When the assignor last ran (not persisted: a new coordinator runs it
  /// at once, as Kafka's does).
  std::optional<int64_t> last_assignment_ms_;
  /// The armed assignment timer, 0 for none.
  uint64_t assignment_timer_ = 0;
  /// When a heartbeat last moved the group epoch (a join or a subscription
  /// change): members heard within a short window after it come back soon
  /// (heartbeat_interval_for).
  std::optional<int64_t> last_epoch_bump_ms_;

  /// The target's members by partition count, for assign_joiner. Valid
  /// while every target record since it was built came from assign_joiner
  /// itself; any other target change drops it and the next incremental
  /// join builds it again (once per assignor run).
  struct target_counts {
    bool valid = false;
    /// The partition counts of the subscribed topics it was built with.
    std::map<uuid, int32_t> partition_counts;
    std::map<size_t, std::set<std::string>> by_count;
    size_t total = 0;
  };
  target_counts target_counts_;
  /// assign_joiner's own records keep target_counts_ valid.
  bool assigning_joiner_ = false;
  /// Dead because offsets expiry deleted it (restore undoes it), not
  /// because the coordinator gave it up.
  bool expired_ = false;

  consumer_group_effects effects_;
};

/// Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid: the answer a
/// malformed heartbeat gets before any group is looked at, or nullopt. The
/// broker asks it before it creates a coordinator for the heartbeat.
std::optional<consumer_group_heartbeat_response>
check_consumer_group_heartbeat(const consumer_group_heartbeat_request& req,
                               const group_config& config);

// -- reads of any image (the coordinator answers reads from its durable one) --

consumer_group_described_group describe_consumer_group(
  const std::string& group_id, const consumer_group_image& image,
  const std::map<uuid, topic_info>& topics_by_id,
  const std::vector<std::string>& assignors, bool dead = false);

/// The assignor a group with these members uses: the one most members
/// name, ties by the order of `configured`; the first configured when no
/// member names one.
std::string preferred_assignor(const std::map<std::string, int>& counts,
                               const std::vector<std::string>& configured);

} // namespace troupe
