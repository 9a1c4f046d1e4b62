#pragma once

// A cluster node's ACLs and SCRAM credentials (docs/ARCHITECTURE.md §9),
// where Kafka's brokers keep them in ZooKeeper mode: the bindings in
// /kafka-acl/<Type>/<name> (LITERAL) and /kafka-acl-extended/prefixed/
// <Type>/<name> (PREFIXED), announced by /kafka-acl-changes/acl_changes_
// and /kafka-acl-extended-changes/acl_changes_; the credentials in
// /config/users/<user>, announced by /config/changes/config_change_. Every
// node reads all of them when its session starts and watches the change
// paths, so that a change made through any node reaches every node's
// security store without a restart. The node that receives CreateAcls,
// DeleteAcls or AlterUserScramCredentials writes the znodes itself, as
// Kafka's AclAuthorizer and ZkAdminManager do: read with the zkVersion,
// write conditionally on it, and start over when another writer won.

#include <caf/fwd.hpp>

#include "cluster/cluster_controller.hpp"

namespace troupe::cluster_security {

/// The session's persistent paths exist: create the ACL paths, read every
/// ACL and credential into the node's store, watch the change paths.
void start(cluster_controller_ptr self);

/// A watch fired on one of the change paths (/kafka-acl-changes,
/// /kafka-acl-extended-changes, /config/changes): reads what changed.
/// False when the path is none of them.
bool on_watch(cluster_controller_ptr self, const std::string& path);

caf::result<create_acls_response> create_acls(cluster_controller_ptr self,
                                              create_acls_request& req);

caf::result<delete_acls_response> delete_acls(cluster_controller_ptr self,
                                              delete_acls_request& req);

caf::result<alter_scram_credentials_response>
alter_scram(cluster_controller_ptr self, alter_scram_credentials_request& req);

} // namespace troupe::cluster_security
