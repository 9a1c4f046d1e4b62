#include "messages/type_ids.hpp"

#include <caf/actor_system_config.hpp>

#include "messages/interfaces.hpp"

namespace troupe {

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::troupe>();
  // Typed handles travel inside messages only as caf::actor, but register
  // them so that they can also be sent on their own.
  cfg.add_message_type<broker_actor>("troupe::broker_actor");
  cfg.add_message_type<group_coordinator_actor>(
    "troupe::group_coordinator_actor");
  cfg.add_message_type<consumer_actor>("troupe::consumer_actor");
  cfg.add_message_type<controller_actor>("troupe::controller_actor");
  cfg.add_message_type<event_listener_actor>("troupe::event_listener_actor");
  cfg.add_message_type<log_manager_actor>("troupe::log_manager_actor");
  cfg.add_message_type<replica_actor>("troupe::replica_actor");
  cfg.add_message_type<cluster_controller_actor>(
    "troupe::cluster_controller_actor");
  cfg.add_message_type<consumer_group_coordinator_actor>(
    "troupe::consumer_group_coordinator_actor");
}

} // namespace troupe
