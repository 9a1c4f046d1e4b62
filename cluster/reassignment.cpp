// KIP-455 partition reassignment on the active controller
// (docs/ARCHITECTURE.md §7).

#include "cluster/active_controller.hpp"

namespace troupe {

caf::result<alter_partition_reassignments_response>
active_controller::alter_partition_reassignments(
  alter_partition_reassignments_request&) {
  // TODO(issue 23, reassignment)
  return alter_partition_reassignments_response{
    error_code::unknown_server_error, "not built yet", {}};
}

caf::result<list_partition_reassignments_response>
active_controller::list_partition_reassignments(
  list_partition_reassignments_request&) {
  return list_partition_reassignments_response{
    error_code::unknown_server_error, "not built yet", {}};
}

} // namespace troupe
