#pragma once

// Where the Kafka listener asks the authorizer (docs/ARCHITECTURE.md §9):
// one request's view of the ACLs in force, and the decisions of Kafka 3.9's
// KafkaApis that are more than one check, as plain functions of the request
// so that tests can name them. With no security store, or an authorizer
// that is off, everything is allowed and the authorized operations are
// "everything", as Kafka without an authorizer.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/kafka/protocol.hpp"
#include "domain/security/acl.hpp"
#include "domain/security/security_store.hpp"

namespace troupe::kafka_auth {

using security::acl_operation;
using security::resource_type;

/// Kafka's name of the one CLUSTER resource (Resource.CLUSTER_NAME).
inline constexpr std::string_view cluster_name = "kafka-cluster";

/// The authorizer as one request sees it: the snapshot in force when the
/// request arrived, and who asks.
class request_authorizer {
public:
  /// No authorizer: everything is allowed.
  request_authorizer() = default;

  request_authorizer(const std::shared_ptr<security::security_store>& store,
                     security::request_identity who);

  request_authorizer(std::shared_ptr<const security::security_snapshot> snap,
                     security::request_identity who);

  /// Whether an authorizer decides at all.
  bool enabled() const noexcept;

  bool allow(acl_operation op, resource_type type, std::string_view name) const;

  bool topic(acl_operation op, std::string_view name) const {
    return allow(op, resource_type::topic, name);
  }

  bool group(acl_operation op, std::string_view name) const {
    return allow(op, resource_type::group, name);
  }

  bool cluster(acl_operation op) const {
    return allow(op, resource_type::cluster, cluster_name);
  }

  /// Kafka's authorizeByResourceType.
  bool any(acl_operation op, resource_type type) const;

  /// The authorized-operations bit field of a resource; `everything`
  /// without an authorizer.
  int32_t operations(resource_type type, std::string_view name,
                     int32_t everything) const;

private:
  std::shared_ptr<const security::security_snapshot> snapshot_;
  security::request_identity who_;
};

// -- decisions ------------------------------------------------------------------

/// Metadata for named topics (handleTopicMetadataRequest): the names the
/// principal may DESCRIBE go to the broker, the others are answered with
/// TOPIC_AUTHORIZATION_FAILED. When the request would auto-create and the
/// principal lacks CREATE on the CLUSTER, the names without CREATE on the
/// TOPIC are asked without auto-creation (`no_create`): if they do not
/// exist they are answered TOPIC_AUTHORIZATION_FAILED too.
struct metadata_plan {
  std::vector<std::string> ask;
  std::vector<std::string> no_create;
  std::vector<std::string> denied;
};

metadata_plan plan_metadata(const request_authorizer& a,
                            const std::vector<std::string>& names,
                            bool auto_create);

/// Produce (0): TOPIC_AUTHORIZATION_FAILED without WRITE on the topic.
error_code produce_error(const request_authorizer& a, std::string_view topic);

/// Fetch (1): a follower (replica id >= 0) needs CLUSTER_ACTION on the
/// CLUSTER, a consumer READ on each topic; TOPIC_AUTHORIZATION_FAILED.
error_code fetch_error(const request_authorizer& a, bool from_follower,
                       std::string_view topic);

/// OffsetForLeaderEpoch (23): CLUSTER_ACTION on the CLUSTER or DESCRIBE
/// on the topic (KIP-320).
error_code offset_for_leader_epoch_error(const request_authorizer& a,
                                         std::string_view topic);

/// InitProducerId (22): WRITE on the transactional id
/// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); without one, IDEMPOTENT_WRITE
/// on the CLUSTER or WRITE on some topic (CLUSTER_AUTHORIZATION_FAILED).
error_code init_producer_id_error(const request_authorizer& a,
                                  const std::optional<std::string>& txn_id);

/// FindCoordinator (10): DESCRIBE on the GROUP or the TRANSACTIONAL_ID.
error_code find_coordinator_error(const request_authorizer& a,
                                  int8_t key_type, std::string_view key);

/// ListGroups (16): DESCRIBE on the CLUSTER lists every group, else those
/// with DESCRIBE on the GROUP.
bool lists_group(const request_authorizer& a, bool cluster_describe,
                 std::string_view group);

/// CreateTopics (19): CREATE on the CLUSTER or on the TOPIC.
error_code create_topic_error(const request_authorizer& a,
                              std::string_view topic);

/// DescribeConfigs (32) with `alter` false, AlterConfigs (33) and
/// IncrementalAlterConfigs (44) with `alter` true: DESCRIBE_CONFIGS or
/// ALTER_CONFIGS on the TOPIC (TOPIC_AUTHORIZATION_FAILED) or, for brokers,
/// broker loggers and client metrics, on the CLUSTER
/// (CLUSTER_AUTHORIZATION_FAILED). Other types: none here (the handler
/// refuses them as it did).
error_code config_resource_error(const request_authorizer& a,
                                 int8_t resource_type,
                                 std::string_view resource_name, bool alter);

/// Metadata v8-10 and DescribeCluster: the CLUSTER's authorized operations
/// when the principal may DESCRIBE it, else 0.
int32_t cluster_operations(const request_authorizer& a, int32_t everything);

} // namespace troupe::kafka_auth
