#pragma once

// The instance registry's state, shared by its two translation units
// (instances.cpp: the instance routes; instance_poll.cpp: reading records).
// Not a public header.

#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/timeouts.hpp"
#include "gateway/rest/instances.hpp"

namespace troupe::rest {

/// How an instance gets partitions (Kafka's SubscriptionState type).
enum class subscription_kind { none, topics, pattern, assigned };

struct instance {
  instance_key key;
  /// Tells this instance from a later one of the same name.
  uint64_t uid = 0;
  instance_settings settings;
  subscription_kind kind = subscription_kind::none;
  /// The subscribed topics; for a pattern, the topics it matches now.
  std::vector<std::string> topics;
  std::string pattern;
  std::shared_ptr<const std::regex> compiled;
  /// Kafka's assign(): the partitions.
  std::vector<topic_partition> assigned;
  /// troupe's client-side consumer actor; null while unsubscribed, and
  /// while subscribed after max.poll.interval.ms without a poll (it left
  /// the group; the next poll rejoins).
  consumer_actor consumer;
  /// Guards the consumer.instance.timeout.ms timer.
  uint64_t idle_epoch = 0;
  /// Guards the max.poll.interval.ms timer.
  uint64_t poll_interval_epoch = 0;
  /// Bumped by every seek, (re)assignment and poll that moves a position:
  /// a poll that started before drops what it read.
  uint64_t position_epoch = 0;
  /// What auto.commit.enable last committed, to skip repeating it.
  std::map<topic_partition, int64_t> auto_committed;
};

/// One GET .../records in progress.
struct poll_context {
  uint64_t id = 0;
  instance_key key;
  uint64_t uid = 0;
  caf::typed_response_promise<http_response> promise;
  int64_t deadline_ms = 0;
  int64_t max_bytes = -1;
  embedded_format format = embedded_format::binary;
  /// Where an out-of-range position goes (auto.offset.reset).
  int64_t reset_to = position_latest;
  /// A pattern subscription was matched against the topics once.
  bool pattern_checked = false;
};

struct registry_state {
  std::shared_ptr<const cluster_view> cluster;
  registry_config config;
  std::map<instance_key, instance> instances;
  std::map<uint64_t, poll_context> polls;
  uint64_t next_uid = 1;
  uint64_t next_poll = 1;

  instance* find(const instance_key& key, uint64_t uid = 0) {
    auto i = instances.find(key);
    if (i == instances.end() || (uid != 0 && i->second.uid != uid))
      return nullptr;
    return &i->second;
  }

  /// A GET .../records of the instance is waiting.
  bool polling(uint64_t uid) const {
    for (auto& [id, ctx] : polls)
      if (ctx.uid == uid)
        return true;
    return false;
  }

  static inline const char* name = "rest_instances";
};

using registry_ptr = instances_actor::stateful_pointer<registry_state>;

/// Consumer requests wait this long.
constexpr std::chrono::milliseconds consumer_timeout{10000};

// -- instances.cpp ------------------------------------------------------------------

/// The instance a request names, or null; the request counts as activity
/// (re-arms consumer.instance.timeout.ms, as kafka-rest's
/// getConsumerInstance does for every route).
instance* requested(registry_ptr self, const instance_key& key);

/// (Re)arms the instance's consumer.instance.timeout.ms timer.
void touch(registry_ptr self, instance& inst);

/// (Re)arms the instance's max.poll.interval.ms timer.
void arm_poll_interval(registry_ptr self, instance& inst);

/// The instance's consumer, spawned for its subscription or assignment.
consumer_actor spawn_consumer_for(registry_ptr self, const instance& inst);

/// Replaces the instance's consumer (the old one leaves its group).
void replace_consumer(registry_ptr self, instance& inst, consumer_actor next);

// -- instance_poll.cpp ----------------------------------------------------------------

/// GET .../records.
caf::result<http_response> start_poll(registry_ptr self, poll_instance& req);

/// Continues a poll that waited (for an assignment or after an error).
void continue_poll(registry_ptr self, uint64_t poll);

/// The topics a pattern subscription matches now (Java's
/// Pattern.matcher(topic).matches(), internal topics excluded).
std::vector<std::string> matching_topics(const std::regex& pattern,
                                         const metadata_response& md);

} // namespace troupe::rest
