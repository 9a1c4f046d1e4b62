#pragma once

// The /v1/ws sockets, owned by one hub actor: a socket can be a group member
// (troupe's client-side consumer actor runs join, the leader's assignor,
// sync and heartbeats; its events become pushed JSON), a watcher of every
// group's transitions, or both. A member silent for its session timeout is
// removed by delayed send. The hub is also the node's event listener, so
// it counts generations and transitions for /metrics. Its messages never
// leave the process (docs/ARCHITECTURE.md §5).

#include <cstdint>
#include <memory>
#include <string>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "domain/group_config.hpp"
#include "gateway/http/handler.hpp"
#include "gateway/rest/auth.hpp"
#include "gateway/rest/cluster_view.hpp"
#include "messages/interfaces.hpp"

namespace troupe::rest {

struct ws_opened {
  uint64_t id = 0;
  ws_peer peer;
  /// What the socket's principal may do (empty: everything).
  access_check may;
};

struct ws_text {
  uint64_t id = 0;
  std::string text;
};

struct ws_gone {
  uint64_t id = 0;
};

/// A member's session timer (stale epochs are ignored).
struct ws_expire {
  uint64_t id = 0;
  uint64_t epoch = 0;
};

/// Gives the hub the node once it exists (the hub listens to it first).
struct hub_attach {
  std::shared_ptr<const cluster_view> cluster;
};

struct hub_stats_request {
  // nop
};

struct hub_stats {
  size_t sockets = 0;
  size_t members = 0;
  uint64_t generation_changes = 0;
  uint64_t group_transitions = 0;
};

/// Closes every member (each leaves its group); answered once they did.
struct hub_close {
  // nop
};

using ws_hub_actor =
  caf::typed_actor<caf::reacts_to<consumer_event>, caf::reacts_to<group_event>,
                   caf::reacts_to<hub_attach>, caf::reacts_to<ws_opened>,
                   caf::reacts_to<ws_text>, caf::reacts_to<ws_gone>,
                   caf::reacts_to<ws_expire>,
                   caf::replies_to<hub_stats_request>::with<hub_stats>,
                   caf::replies_to<hub_close>::with<hub_stats>>;

ws_hub_actor spawn_ws_hub(caf::actor_system& sys, group_config limits);

} // namespace troupe::rest

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::ws_opened)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::ws_text)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::ws_gone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::ws_expire)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::hub_attach)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::hub_stats_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::hub_stats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(troupe::rest::hub_close)
