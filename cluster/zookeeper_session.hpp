#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include <caf/typed_response_promise.hpp>

#include "cluster/zookeeper/zookeeper_client.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// A node's ZooKeeper session (docs/ARCHITECTURE.md §7): owns the
/// cluster::zookeeper_client and turns every callback, which ZooKeeper runs
/// on its own threads, into a message to itself, so that no actor ever
/// waits on ZooKeeper. Requests are answered with a zk_result; session and
/// watch events go to the owner. Spawned detached: closing a session may
/// take one round trip to the server.
struct zookeeper_session_state {
  std::unique_ptr<cluster::zookeeper_client> client;
  zookeeper_owner_actor owner;
  uint64_t next_id = 0;
  std::map<uint64_t, caf::typed_response_promise<zk_result>> pending;

  static inline const char* name = "zookeeper_session";
};

using zookeeper_session_ptr =
  zookeeper_session_actor::stateful_pointer<zookeeper_session_state>;

/// Connects (without waiting) to `config.connect`; `owner` hears of the
/// session's state and of every watch. Quits with an error when the connect
/// string is malformed.
zookeeper_session_actor::behavior_type
zookeeper_session(zookeeper_session_ptr self, cluster::zookeeper_config config,
                  zookeeper_owner_actor owner);

} // namespace troupe
