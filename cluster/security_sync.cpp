#include "cluster/security_sync.hpp"

#include <caf/all.hpp>

namespace troupe::cluster_security {

void start(cluster_controller_ptr) {
}

bool on_watch(cluster_controller_ptr, const std::string&) {
  return false;
}

caf::result<create_acls_response> create_acls(cluster_controller_ptr,
                                              create_acls_request& req) {
  create_acls_response res;
  for (size_t i = 0; i < req.creations.size(); ++i)
    res.results.push_back({error_code::unknown_server_error, "not yet"});
  return res;
}

caf::result<delete_acls_response> delete_acls(cluster_controller_ptr,
                                              delete_acls_request& req) {
  delete_acls_response res;
  for (size_t i = 0; i < req.filters.size(); ++i)
    res.results.push_back({error_code::unknown_server_error, "not yet", {}});
  return res;
}

caf::result<alter_scram_credentials_response>
alter_scram(cluster_controller_ptr, alter_scram_credentials_request&) {
  return alter_scram_credentials_response{};
}

} // namespace troupe::cluster_security
