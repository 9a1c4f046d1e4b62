#pragma once

#include <map>
#include <string>

#include "domain/cluster_config.hpp"
#include "messages/interfaces.hpp"

namespace troupe {

/// The cluster's metadata: which topics exist and how many partitions each
/// has. (The replicated-log issue adds replica lists, leaders, epochs and
/// ISR, and persists them.)
struct controller_state {
  cluster_config config;
  std::map<std::string, int32_t> topics;

  static inline const char* name = "controller";
};

using controller_ptr = controller_actor::stateful_pointer<controller_state>;

controller_actor::behavior_type controller(controller_ptr self,
                                           cluster_config config);

} // namespace troupe
