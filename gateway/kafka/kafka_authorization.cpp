#include "gateway/kafka/kafka_authorization.hpp"

#include <utility>

namespace troupe::kafka_auth {

request_authorizer::request_authorizer(
  const std::shared_ptr<security::security_store>& store,
  security::request_identity who)
  : snapshot_(store ? store->snapshot() : nullptr), who_(std::move(who)) {
  // nop
}

request_authorizer::request_authorizer(
  std::shared_ptr<const security::security_snapshot> snap,
  security::request_identity who)
  : snapshot_(std::move(snap)), who_(std::move(who)) {
  // nop
}

bool request_authorizer::enabled() const noexcept {
  return snapshot_ && snapshot_->acls().config().enabled;
}

bool request_authorizer::allow(acl_operation op, resource_type type,
                               std::string_view name) const {
  return !enabled() || snapshot_->acls().authorize(who_, op, type, name);
}

bool request_authorizer::any(acl_operation op, resource_type type) const {
  return !enabled() || snapshot_->acls().authorize_any(who_, op, type);
}

int32_t request_authorizer::operations(resource_type type,
                                       std::string_view name,
                                       int32_t everything) const {
  if (!enabled())
    return everything;
  return snapshot_->acls().authorized_operations(who_, type, name);
}

metadata_plan plan_metadata(const request_authorizer& a,
                            const std::vector<std::string>& names,
                            bool auto_create) {
  metadata_plan out;
  // Kafka checks CREATE on the CLUSTER once, only when it would create.
  std::optional<bool> cluster_create;
  for (auto& name : names) {
    if (!a.topic(acl_operation::describe, name)) {
      out.denied.push_back(name);
      continue;
    }
    if (auto_create) {
      if (!cluster_create)
        cluster_create = a.cluster(acl_operation::create);
      if (!*cluster_create && !a.topic(acl_operation::create, name)) {
        out.no_create.push_back(name);
        continue;
      }
    }
    out.ask.push_back(name);
  }
  return out;
}

error_code produce_error(const request_authorizer& a, std::string_view topic) {
  return a.topic(acl_operation::write, topic)
           ? error_code::none
           : error_code::topic_authorization_failed;
}

error_code fetch_error(const request_authorizer& a, bool from_follower,
                       std::string_view topic) {
  auto ok = from_follower ? a.cluster(acl_operation::cluster_action)
                          : a.topic(acl_operation::read, topic);
  return ok ? error_code::none : error_code::topic_authorization_failed;
}

error_code offset_for_leader_epoch_error(const request_authorizer& a,
                                         std::string_view topic) {
  auto ok = a.cluster(acl_operation::cluster_action)
            || a.topic(acl_operation::describe, topic);
  return ok ? error_code::none : error_code::topic_authorization_failed;
}

error_code init_producer_id_error(const request_authorizer& a,
                                  const std::optional<std::string>& txn_id) {
  if (txn_id)
    return a.allow(acl_operation::write, resource_type::transactional_id,
                   *txn_id)
             ? error_code::none
             : error_code::transactional_id_authorization_failed;
  if (a.cluster(acl_operation::idempotent_write)
      || a.any(acl_operation::write, resource_type::topic))
    return error_code::none;
  return error_code::cluster_authorization_failed;
}

error_code find_coordinator_error(const request_authorizer& a,
                                  int8_t key_type, std::string_view key) {
  if (key_type == wire::coordinator_key_group
      && !a.group(acl_operation::describe, key))
    return error_code::group_authorization_failed;
  if (key_type == wire::coordinator_key_transaction
      && !a.allow(acl_operation::describe, resource_type::transactional_id,
                  key))
    return error_code::transactional_id_authorization_failed;
  return error_code::none;
}

bool lists_group(const request_authorizer& a, bool cluster_describe,
                 std::string_view group) {
  return cluster_describe || a.group(acl_operation::describe, group);
}

error_code create_topic_error(const request_authorizer& a,
                              std::string_view topic) {
  auto ok = a.cluster(acl_operation::create)
            || a.topic(acl_operation::create, topic);
  return ok ? error_code::none : error_code::topic_authorization_failed;
}

error_code config_resource_error(const request_authorizer& a,
                                 int8_t resource_type,
                                 std::string_view resource_name, bool alter) {
  auto op = alter ? acl_operation::alter_configs
                  : acl_operation::describe_configs;
  switch (resource_type) {
    case wire::config_resource_topic:
      return a.topic(op, resource_name)
               ? error_code::none
               : error_code::topic_authorization_failed;
    case wire::config_resource_broker:
    case wire::config_resource_broker_logger:
    case wire::config_resource_client_metrics:
      return a.cluster(op) ? error_code::none
                           : error_code::cluster_authorization_failed;
    default:
      return error_code::none;
  }
}

int32_t cluster_operations(const request_authorizer& a, int32_t everything) {
  if (!a.cluster(acl_operation::describe))
    return 0;
  return a.operations(resource_type::cluster, cluster_name, everything);
}

} // namespace troupe::kafka_auth
