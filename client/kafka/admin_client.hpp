#pragma once

// troupe's Kafka admin client (client/kafka/, plain C++, no CAF): what the
// tools (`troupe groups|topics|configs`) ask a cluster, over the Kafka
// protocol, sent where Kafka's AdminClient sends it: group APIs to the
// group's coordinator (FindCoordinator), ListOffsets to each partition's
// leader, CreateTopics/DeleteTopics/CreatePartitions to the controller
// (Metadata's controller_id), ListGroups to every broker, DescribeConfigs
// of a broker to that broker and of a topic to any broker. Blocking; one
// connection per broker, opened on first use. Errors that end the tool
// (an unreachable cluster, a malformed response) are thrown as
// client_error; Kafka error codes of single items are returned.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "client/kafka/client_config.hpp"
#include "client/kafka/connection.hpp"

namespace troupe::kafka_client {

struct broker_node {
  int32_t id = -1;
  std::string host{};
  int32_t port = 0;
};

struct topic_partition {
  std::string topic{};
  int32_t partition = 0;
  friend bool operator<(const topic_partition& x, const topic_partition& y) {
    return std::tie(x.topic, x.partition) < std::tie(y.topic, y.partition);
  }
  friend bool operator==(const topic_partition& x, const topic_partition& y) {
    return x.topic == y.topic && x.partition == y.partition;
  }
};

struct member_description {
  std::string member_id{};
  std::string group_instance_id{}; // empty: none
  std::string client_id{};
  std::string host{};
  std::vector<topic_partition> assignment{};
};

/// Kafka's ConsumerGroupDescription, for either protocol.
struct group_description {
  std::string group_id{};
  error_code error = error_code::none;
  /// Kafka's ConsumerGroupState names: Stable, Empty, PreparingRebalance,
  /// CompletingRebalance, Assigning, Reconciling, Dead.
  std::string state{};
  std::string assignor{}; // classic: the protocol; KIP-848: the assignor
  bool consumer_group = false; // KIP-848 (ConsumerGroupDescribe)
  broker_node coordinator{};
  std::vector<member_description> members{};
};

/// Decodes a classic member's ConsumerProtocolAssignment (v0-v3); empty
/// when the bytes are not one.
std::vector<topic_partition>
decode_consumer_assignment(const std::vector<uint8_t>& bytes);

/// Kafka's ListOffsets answer per partition.
struct offset_answer {
  error_code error = error_code::none;
  int64_t offset = -1;
};

class admin_client {
public:
  /// Connects to the first bootstrap server that answers and reads the
  /// cluster's metadata; throws client_error when none does.
  explicit admin_client(client_config cfg);

  const client_config& config() const noexcept {
    return cfg_;
  }

  // -- cluster ----------------------------------------------------------------

  /// Metadata for `topics` (nullopt: every topic); refreshes the brokers.
  wire::metadata_response metadata(
    const std::optional<std::vector<std::string>>& topics = std::nullopt);

  const std::vector<broker_node>& brokers() const noexcept {
    return brokers_;
  }
  int32_t controller_id() const noexcept {
    return controller_id_;
  }

  /// The connection to broker `id`, opened on first use.
  connection& node(int32_t id);
  /// The bootstrap connection.
  connection& any() {
    return *bootstrap_;
  }
  /// The controller (Kafka's ControllerNodeProvider); the bootstrap
  /// connection when the cluster names none.
  connection& controller();

  // -- groups -----------------------------------------------------------------

  /// FindCoordinator for a group, retried while the coordinator loads.
  broker_node find_coordinator(const std::string& group);

  /// ListGroups on every broker, merged; consumer groups only (protocol
  /// type "consumer" or empty, as Kafka's listConsumerGroups).
  std::vector<wire::listed_group>
  list_groups(const std::vector<std::string>& states = {},
              const std::vector<std::string>& types = {});

  /// ConsumerGroupDescribe, falling back to DescribeGroups for classic
  /// groups and brokers without KIP-848.
  group_description describe_group(const std::string& group);

  /// OffsetFetch of every committed offset of the group (-1 left out).
  std::map<topic_partition, int64_t> committed_offsets(const std::string& group);

  /// OffsetCommit as an admin (generation -1, no member id).
  std::map<topic_partition, error_code>
  commit_offsets(const std::string& group,
                 const std::map<topic_partition, int64_t>& offsets);

  /// DeleteGroups at the group's coordinator.
  error_code delete_group(const std::string& group);

  /// OffsetDelete: the group's error and each partition's.
  std::pair<error_code, std::map<topic_partition, error_code>>
  delete_offsets(const std::string& group,
                 const std::vector<topic_partition>& partitions);

  // -- offsets ----------------------------------------------------------------

  /// ListOffsets at each partition's leader; `timestamp` -1 latest, -2
  /// earliest, else the first offset at or after it.
  std::map<topic_partition, offset_answer>
  list_offsets(const std::vector<topic_partition>& partitions,
               int64_t timestamp);

  // -- topics -----------------------------------------------------------------

  wire::creatable_topic_result create_topic(const wire::creatable_topic& t);
  wire::deletable_topic_result delete_topic(const std::string& name);
  wire::create_partitions_topic_result create_partitions(const std::string& name,
                                                         int32_t count);

  // -- partition reassignment (KIP-455) ---------------------------------------

  /// AlterPartitionReassignments at the controller: `replicas` nullopt
  /// cancels that partition's reassignment. The request's error is thrown
  /// as client_error; each partition's answer is returned.
  std::map<topic_partition, std::pair<error_code, std::string>>
  alter_partition_reassignments(
    const std::map<topic_partition, std::optional<std::vector<int32_t>>>&
      targets);

  /// ListPartitionReassignments at the controller: every ongoing one
  /// (nullopt) or those of `partitions`.
  std::vector<wire::ongoing_topic_reassignment> list_partition_reassignments(
    const std::optional<std::vector<topic_partition>>& partitions =
      std::nullopt);

  // -- configs ----------------------------------------------------------------

  wire::describe_configs_result describe_configs(int8_t resource_type,
                                                 const std::string& name,
                                                 bool include_synonyms);
  /// IncrementalAlterConfigs; AlterConfigs with `full_set` (the whole
  /// dynamic set after the change) when the broker lacks it, or always
  /// when `legacy` (Kafka 3.9's tool alters broker configs that way).
  wire::alter_configs_resource_response
  alter_configs(int8_t resource_type, const std::string& name,
                const std::vector<wire::incremental_alterable_config>& ops,
                const std::vector<wire::alterable_config>& full_set,
                bool legacy);

private:
  connection& broker_connection(int32_t id);
  connection& coordinator_connection(const std::string& group);
  void update_brokers(const wire::metadata_response& md);

  client_config cfg_;
  std::unique_ptr<connection> bootstrap_;
  std::vector<broker_node> brokers_;
  int32_t controller_id_ = -1;
  std::map<int32_t, std::unique_ptr<connection>> connections_;
  std::map<std::string, int32_t> coordinators_;
};

} // namespace troupe::kafka_client
