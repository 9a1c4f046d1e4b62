#pragma once

// Kafka's ZooKeeper layout: the paths and the JSON that Kafka's ZkData.scala
// (Kafka 3.x, ZooKeeper mode) writes and reads, so that anyone who knows
// Kafka's znodes can read troupe's with zkCli.sh. Encoders write the bytes a
// Kafka 3.x broker built with Scala 2.13 writes (key order included, see
// scala_map_order.hpp); decoders accept what Kafka's decoders accept and
// return an error value for anything else. No exceptions escape.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/security/security_config.hpp"
#include "domain/topic_config.hpp"
#include "domain/topic_partition.hpp"
#include "domain/uuid.hpp"
#include "domain/zookeeper/decoded.hpp"

namespace troupe::zk {

// -- paths --------------------------------------------------------------------

inline constexpr std::string_view controller_path = "/controller";
inline constexpr std::string_view controller_epoch_path = "/controller_epoch";
inline constexpr std::string_view brokers_path = "/brokers";
inline constexpr std::string_view broker_ids_path = "/brokers/ids";
inline constexpr std::string_view topics_path = "/brokers/topics";
inline constexpr std::string_view delete_topics_path = "/admin/delete_topics";
/// The pre-KIP-455 way to ask for a reassignment (ReassignPartitionsZNode):
/// the controller starts each partition's move when the znode is created,
/// and rewrites it without the partitions whose move completed (deletes it
/// when none is left).
inline constexpr std::string_view reassign_partitions_path =
  "/admin/reassign_partitions";
inline constexpr std::string_view cluster_id_path = "/cluster/id";

/// /brokers/ids/<id> (BrokerIdZNode), ephemeral.
std::string broker_path(int32_t broker_id);

/// /brokers/topics/<t> (TopicZNode): the replica assignment.
std::string topic_path(std::string_view topic);

/// /brokers/topics/<t>/partitions (TopicPartitionsZNode).
std::string topic_partitions_path(std::string_view topic);

/// /brokers/topics/<t>/partitions/<p> (TopicPartitionZNode).
std::string topic_partition_path(const topic_partition& tp);

/// /brokers/topics/<t>/partitions/<p>/state (TopicPartitionStateZNode).
std::string partition_state_path(const topic_partition& tp);

/// /admin/delete_topics/<t> (DeleteTopicsTopicZNode): a deletion request;
/// Kafka stores no data in it.
std::string delete_topic_path(std::string_view topic);

/// ZkData.PersistentZkPaths: the znodes a Kafka broker creates at start-up
/// (KafkaZkClient.createTopLevelPaths), parents before children.
const std::vector<std::string>& persistent_paths();

/// Integer.parseInt, as Kafka reads a broker id from a child of /brokers/ids
/// or a partition from a child of .../partitions: optional sign, decimal
/// digits, 32-bit range, nothing else.
decoded<int32_t> parse_java_int(std::string_view text);

// -- /brokers/ids/<id> ------------------------------------------------------------

/// Kafka's SecurityProtocol, by its names.
enum class security_protocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

/// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
std::string_view to_string(security_protocol protocol);

/// The listener under which troupe registers its CAF middleman port (the
/// internal port the nodes' actors talk over) as one more endpoint of
/// /brokers/ids/<id>, e.g. "TROUPE://10.0.0.1:4242", mapped to PLAINTEXT in
/// listener_security_protocol_map so that Kafka's own decoder accepts it.
inline constexpr std::string_view troupe_listener = "TROUPE";

/// One advertised listener (Kafka's EndPoint).
struct broker_endpoint {
  std::string listener; // ListenerName, upper case
  std::string host;     // empty: Kafka's null host (all interfaces)
  int32_t port = -1;
  security_protocol protocol = security_protocol::plaintext;

  friend bool operator==(const broker_endpoint& x, const broker_endpoint& y) {
    return x.listener == y.listener && x.host == y.host && x.port == y.port
           && x.protocol == y.protocol;
  }
};

/// EndPoint.connectionString: "LISTENER://host:port", an IPv6 host in
/// brackets, ":port" for a null host.
std::string connection_string(const broker_endpoint& endpoint);

/// Kafka's `listeners` / `advertised.listeners`: NAME://host:port entries
/// separated by commas (CoreUtils.listenerListToEndPoints). A listener named
/// after a security protocol uses it; any other is PLAINTEXT, as troupe has
/// no listener.security.protocol.map. Refuses repeated names and ports.
decoded<std::vector<broker_endpoint>> parse_listeners(std::string_view text);

/// Same, with listener.security.protocol.map (names upper case): each
/// listener takes its protocol from the map, and a name the map lacks is
/// refused, as Kafka refuses it ("No security protocol defined for listener
/// X"). An empty map: the rule above.
decoded<std::vector<broker_endpoint>> parse_listeners(
  std::string_view text,
  const std::map<std::string, security::listener_protocol>& protocol_map);

/// The two spellings of Kafka's SecurityProtocol.
security_protocol to_zk(security::listener_protocol p);
security::listener_protocol from_zk(security_protocol p);

/// BrokerInfo as BrokerIdZNode stores it.
struct broker_registration {
  int32_t id = -1; // from the znode's name, not from the JSON
  /// Advertised listeners in order; troupe's own (troupe_listener) among them.
  std::vector<broker_endpoint> endpoints;
  std::optional<std::string> rack;
  int32_t jmx_port = -1;
  int64_t timestamp_ms = 0; // registration time
  int32_t version = 5;      // as read; the encoder always writes 5
};

/// The endpoint of `listener`, or nullptr.
const broker_endpoint* find_endpoint(const broker_registration& broker,
                                     std::string_view listener);

/// BrokerIdZNode.encode, version 5: {"features":{},
/// "listener_security_protocol_map":{...},"endpoints":[...],("rack":...,)
/// "jmx_port":-1,"port":9092,"host":"...","version":5,"timestamp":"..."}.
/// The top-level host and port are those of the first PLAINTEXT endpoint
/// (troupe's own excluded), or null and -1 without one.
std::string encode_broker_registration(const broker_registration& broker);

/// BrokerIdZNode.decode: version 1 reads host and port; later versions read
/// "endpoints" with "listener_security_protocol_map" (default: each
/// security protocol's own name). Every listener needs a security protocol.
decoded<broker_registration> decode_broker_registration(int32_t broker_id,
                                                        std::string_view json);

// -- /controller and /controller_epoch ----------------------------------------------

struct controller_registration {
  int32_t broker_id = -1;
  int64_t timestamp_ms = 0;
  int32_t version = 1;
  /// Written (as -1 outside a KRaft migration) by Kafka 3.4+, version 2.
  std::optional<int32_t> kraft_controller_epoch;
};

/// ControllerZNode.encode as Kafka up to 3.3 writes it (version 1):
/// {"version":1,"brokerid":N,"timestamp":"ms"}.
std::string encode_controller(int32_t broker_id, int64_t timestamp_ms);

/// ControllerZNode.decodeController: "brokerid" is required; version 2's
/// "kraftControllerEpoch" is read when present.
decoded<controller_registration> decode_controller(std::string_view json);

/// ControllerEpochZNode: the epoch as decimal text.
std::string encode_controller_epoch(int32_t epoch);
decoded<int32_t> decode_controller_epoch(std::string_view text);

// -- /brokers/topics/<t> ---------------------------------------------------------------

/// One partition's replicas (Kafka's ReplicaAssignment); adding and removing
/// replicas are non-empty only during a reassignment.
struct replica_assignment {
  std::vector<int32_t> replicas;
  std::vector<int32_t> adding_replicas;
  std::vector<int32_t> removing_replicas;

  friend bool operator==(const replica_assignment& x,
                         const replica_assignment& y) {
    return x.replicas == y.replicas && x.adding_replicas == y.adding_replicas
           && x.removing_replicas == y.removing_replicas;
  }
};

/// TopicIdReplicaAssignment.
struct topic_assignment {
  std::optional<uuid> topic_id;
  std::map<int32_t, replica_assignment> partitions;
};

/// TopicZNode.encode, version 3: {"partitions":{"0":[1,2,3]},
/// "topic_id":"...","adding_replicas":{},"removing_replicas":{},"version":3}.
std::string encode_topic_assignment(const topic_assignment& topic);

/// TopicZNode.decode: "partitions" (missing: none), optional "topic_id",
/// "adding_replicas", "removing_replicas". Where Kafka would silently read
/// malformed JSON as "no partitions", this reports an error.
decoded<topic_assignment> decode_topic_assignment(std::string_view json);

// -- /brokers/topics/<t>/partitions/<p>/state ------------------------------------------

/// Kafka's LeaderRecoveryState (KIP-704).
enum class leader_recovery_state : int8_t { recovered = 0, recovering = 1 };

/// LeaderIsrAndControllerEpoch without the zkVersion, which is the znode's
/// stat version (the caller has it from the read).
struct leader_isr_state {
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t controller_epoch = 0;
  leader_recovery_state recovery = leader_recovery_state::recovered;

  friend bool operator==(const leader_isr_state& x, const leader_isr_state& y) {
    return x.leader == y.leader && x.leader_epoch == y.leader_epoch
           && x.isr == y.isr && x.controller_epoch == y.controller_epoch
           && x.recovery == y.recovery;
  }
};

/// TopicPartitionStateZNode.encode: {"controller_epoch":E,"leader":L,
/// "version":1,"leader_epoch":LE,"isr":[...]}, plus "leader_recovery_state"
/// only while RECOVERING.
std::string encode_partition_state(const leader_isr_state& state);

/// TopicPartitionStateZNode.decode.
decoded<leader_isr_state> decode_partition_state(std::string_view json);

// -- /cluster/id ---------------------------------------------------------------------------

/// ClusterIdZNode.toJson: {"version":"1","id":"<cluster id>"}.
std::string encode_cluster_id(std::string_view cluster_id);
decoded<std::string> decode_cluster_id(std::string_view json);

// -- /latest_producer_id_block ----------------------------------------------------------

inline constexpr std::string_view producer_id_block_path =
  "/latest_producer_id_block";

/// The last block of producer ids the controller handed out (Kafka's
/// ProducerIdBlockZNode; KIP-98, KIP-730).
struct producer_id_block {
  int32_t broker_id = -1;
  int64_t first = 0;
  int64_t last = -1;
};

/// ProducerIdBlockZNode.generateProducerIdBlockJson:
/// {"version":1,"broker":B,"block_start":"S","block_end":"E"}.
std::string encode_producer_id_block(const producer_id_block& block);

/// ProducerIdBlockZNode.parseProducerIdBlockData; empty data (the znode as
/// ZkData's persistent paths create it) is no block yet: last = -1.
decoded<producer_id_block> decode_producer_id_block(std::string_view json);

/// The block after `previous` with `size` ids, for `broker_id`; fails when
/// the ids would pass Long.MAX_VALUE (Kafka: "Exhausted all producerIds").
decoded<producer_id_block>
next_producer_id_block(const producer_id_block& previous, int32_t broker_id,
                       int32_t size);

// -- /admin/reassign_partitions --------------------------------------------------

/// ReassignPartitionsZNode: partition -> target replicas.
using partition_reassignments =
  std::map<std::pair<std::string, int32_t>, std::vector<int32_t>>;

/// {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}
/// in the map's order.
std::string encode_reassign_partitions(const partition_reassignments& r);

/// ReassignPartitionsZNode.decode: "partitions" entries with "topic",
/// "partition" and "replicas" ("log_dirs" ignored); a partition named twice
/// keeps its last entry.
decoded<partition_reassignments>
decode_reassign_partitions(std::string_view json);

// -- /config/topics/<t>, /config/changes ------------------------------------------

inline constexpr std::string_view config_topics_path = "/config/topics";
inline constexpr std::string_view config_changes_path = "/config/changes";

/// The prefix of a change notification's sequential znode
/// (ConfigEntityChangeNotificationSequenceZNode.createPath): ZooKeeper
/// appends a ten-digit sequence number.
inline constexpr std::string_view config_change_prefix =
  "/config/changes/config_change_";

/// /config/topics/<t> (ConfigEntityZNode): the topic's overrides.
std::string topic_config_path(std::string_view topic);

/// The entity path a change notification names for a topic:
/// "topics/<t>" (topic names need no Sanitizer escaping).
std::string topic_entity_path(std::string_view topic);

/// /config/brokers/<id> (ConfigEntityZNode): a broker's dynamic configs,
/// in the same format as a topic's (encode_topic_config).
std::string broker_config_path(int32_t broker_id);

/// The entity path a change notification names for a broker: "brokers/<id>".
std::string broker_entity_path(int32_t broker_id);

/// ConfigEntityZNode.encode: {"version":1,"config":{"k":"v",...}} with the
/// config's keys in the order Jackson writes a java.util.Properties filled
/// in ascending key order (JDK 9+: its ConcurrentHashMap's).
std::string encode_topic_config(const topic_configs& configs);

/// ConfigEntityZNode.decode: the "config" object's members, every value a
/// string; a missing or empty znode is no overrides.
decoded<topic_configs> decode_topic_config(std::string_view json);

/// ConfigEntityChangeNotificationSequenceZNode.encode:
/// {"version":2,"entity_path":"topics/<t>"}.
std::string encode_config_change(std::string_view entity_path);

/// A change notification's entity: version 2's "entity_path", or version
/// 1's "entity_type"/"entity_name" joined by '/' (Kafka's
/// ConfigChangedNotificationHandler reads both).
decoded<std::string> decode_config_change(std::string_view json);

/// The topic an entity path names ("topics/<t>"); empty for another entity
/// type (clients, users, brokers, ips).
std::string topic_of_entity_path(std::string_view entity_path);

} // namespace troupe::zk
