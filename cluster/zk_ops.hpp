#pragma once

// The two helpers every piece of the cluster code uses with its ZooKeeper
// session (docs/ARCHITECTURE.md §7): one operation, and a result's code.

#include <cstdint>
#include <string>

#include "cluster/messages.hpp"
#include "cluster/zookeeper/zookeeper_client.hpp"

namespace troupe::zk_ops {

inline bool is(const zk_result& r, cluster::zk_error e) {
  return r.error == static_cast<int32_t>(e);
}

/// One operation on `path`; `version` -1 is any version.
inline zk_operation zop(zk_operation::kind k, std::string path,
                        std::string data = {}, int32_t version = -1) {
  zk_operation o;
  o.type = k;
  o.path = std::move(path);
  o.data = std::move(data);
  o.version = version;
  return o;
}

} // namespace troupe::zk_ops
