#pragma once

// REST Proxy v2 consumer instances, owned by one registry actor. Each
// instance is troupe's client-side consumer actor (client/consumer.hpp)
// plus REST Proxy's settings; the registry answers every instance route
// with a ready HTTP response, reads records for them, and runs two timers
// per instance by delayed send: consumer.instance.timeout.ms without any
// request deletes the instance, max.poll.interval.ms without a poll makes
// its consumer leave the group (the next poll rejoins).
// Its messages never leave the process (docs/ARCHITECTURE.md §5).

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "domain/group_config.hpp"
#include "gateway/http/handler.hpp"
#include "gateway/rest/auth.hpp"
#include "gateway/rest/cluster_view.hpp"
#include "gateway/rest/media.hpp"
#include "messages/interfaces.hpp"

namespace troupe::rest {

/// A consumer instance's name within its group.
struct instance_key {
  std::string group;
  std::string name;

  friend bool operator<(const instance_key& x, const instance_key& y) {
    return std::tie(x.group, x.name) < std::tie(y.group, y.name);
  }
};

/// What POST /consumers/{group} configures (REST Proxy's
/// CreateConsumerInstanceRequest plus troupe's Kafka consumer settings).
struct instance_settings {
  /// Empty: the registry makes one up ("rest-consumer-...").
  std::string name;
  embedded_format format = embedded_format::binary;
  /// auto.offset.reset: "earliest", "latest" or "none".
  std::string offset_reset = "latest";
  /// auto.commit.enable
  bool auto_commit = true;
  /// consumer.request.timeout.ms: a poll's wait when the request names none.
  int32_t request_timeout_ms = 1000;
  int32_t max_poll_interval_ms = 300000;
  int32_t session_timeout_ms = 10000;
  int32_t heartbeat_interval_ms = 3000;
  std::vector<std::string> assignors = {"range"};
};

// -- requests (each answered with an http_response) ---------------------------

struct create_instance {
  std::string group;
  instance_settings settings;
  /// Prefix of the answer's base_uri.
  std::string base_uri;
};

/// `topics` (present) or `pattern`; neither: nothing to do.
struct subscribe_instance {
  instance_key key;
  bool has_topics = false;
  std::vector<std::string> topics;
  bool has_pattern = false;
  std::string pattern;
};

struct unsubscribe_instance {
  instance_key key;
};

struct subscription_of {
  instance_key key;
};

struct assign_instance {
  instance_key key;
  std::vector<topic_partition> partitions;
};

struct assignment_of {
  instance_key key;
};

struct poll_instance {
  instance_key key;
  std::string accept;
  /// -1: consumer.request.timeout.ms of the instance.
  int64_t timeout_ms = -1;
  /// -1: no limit.
  int64_t max_bytes = -1;
  /// The caller's decisions: READ on every topic the instance reads
  /// (empty: everything allowed).
  access_check may;
};

/// `offsets` given: commit each offset + 1; else every consumed position.
struct commit_instance {
  instance_key key;
  bool has_offsets = false;
  std::vector<offset_commit_partition> offsets;
};

struct committed_of {
  instance_key key;
  std::vector<topic_partition> partitions;
};

/// Offsets, position_earliest / position_latest, or `timestamps` (ms) to
/// resolve with ListOffsets first.
struct seek_instance {
  instance_key key;
  std::vector<partition_position> positions;
  std::vector<std::pair<topic_partition, int64_t>> timestamps;
};

struct delete_instance {
  instance_key key;
};

/// How many instances exist (for /metrics).
struct instance_count_request {
  // nop
};

struct instance_count {
  size_t instances = 0;
};

/// Closes every instance (each leaves its group); answered once they did.
struct close_all_instances {
  // nop
};

// -- internal -------------------------------------------------------------------

/// consumer.instance.timeout.ms passed without a request to the instance.
struct instance_expiry {
  instance_key key;
  uint64_t uid = 0;
  uint64_t epoch = 0;
};

/// max.poll.interval.ms passed without a poll.
struct poll_interval_expiry {
  instance_key key;
  uint64_t uid = 0;
  uint64_t epoch = 0;
};

struct poll_wake {
  uint64_t poll = 0;
};

using instances_actor = caf::typed_actor<
  caf::replies_to<create_instance>::with<http_response>,
  caf::replies_to<subscribe_instance>::with<http_response>,
  caf::replies_to<unsubscribe_instance>::with<http_response>,
  caf::replies_to<subscription_of>::with<http_response>,
  caf::replies_to<assign_instance>::with<http_response>,
  caf::replies_to<assignment_of>::with<http_response>,
  caf::replies_to<poll_instance>::with<http_response>,
  caf::replies_to<commit_instance>::with<http_response>,
  caf::replies_to<committed_of>::with<http_response>,
  caf::replies_to<seek_instance>::with<http_response>,
  caf::replies_to<delete_instance>::with<http_response>,
  caf::replies_to<instance_count_request>::with<instance_count>,
  caf::replies_to<close_all_instances>::with<instance_count>,
  caf::reacts_to<instance_expiry>, caf::reacts_to<poll_interval_expiry>,
  caf::reacts_to<poll_wake>>;

struct registry_config {
  group_config limits;
  /// Upper bound of records?timeout=.
  int32_t max_poll_timeout_ms = 30000;
  /// REST Proxy's consumer.instance.timeout.ms: an instance that gets no
  /// request for this long is deleted.
  int32_t instance_timeout_ms = 300000;
};

instances_actor spawn_instance_registry(caf::actor_system& sys,
                                        std::shared_ptr<const cluster_view> cv,
                                        registry_config config);

} // namespace troupe::rest

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::http_response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::create_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::subscribe_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::unsubscribe_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::subscription_of)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::assign_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::assignment_of)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::poll_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::commit_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::committed_of)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::seek_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::delete_instance)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::instance_count_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::instance_count)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::close_all_instances)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::instance_expiry)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::poll_interval_expiry)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::poll_wake)
