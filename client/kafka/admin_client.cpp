#include "client/kafka/admin_client.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

namespace troupe::kafka_client {

namespace {

using clock_type = std::chrono::steady_clock;

bool retriable_coordinator_error(error_code e) {
  return e == error_code::coordinator_load_in_progress
         || e == error_code::coordinator_not_available
         || e == error_code::not_coordinator;
}

std::string error_text(error_code e) {
  return std::string{error_name(e)} + ": " + std::string{error_message(e)};
}

} // namespace

std::vector<topic_partition>
decode_consumer_assignment(const std::vector<uint8_t>& bytes) {
  // ConsumerProtocolAssignment.json: Version, AssignedPartitions [Topic,
  // Partitions], UserData -- the same layout in v0-v3.
  std::vector<topic_partition> out;
  if (bytes.empty())
    return out;
  wire::reader in{bytes};
  int16_t version = 0;
  size_t topics = 0;
  if (!in.i16(version) || !in.array_size(topics, 6))
    return {};
  for (size_t i = 0; i < topics; ++i) {
    std::string name;
    size_t n = 0;
    if (!in.string(name) || !in.array_size(n, 4))
      return {};
    for (size_t j = 0; j < n; ++j) {
      int32_t p = 0;
      if (!in.i32(p))
        return {};
      out.push_back({name, p});
    }
  }
  return out;
}

// -- cluster ------------------------------------------------------------------

admin_client::admin_client(client_config cfg) : cfg_(std::move(cfg)) {
  std::string last = "no bootstrap server given";
  for (auto& entry : cfg_.bootstrap) {
    std::string host;
    int port = 0;
    if (!split_host_port(entry, host, port))
      continue;
    try {
      bootstrap_ = std::make_unique<connection>(host, port, -1, cfg_);
      metadata(std::vector<std::string>{});
      return;
    } catch (const client_error& e) {
      bootstrap_.reset();
      last = e.what();
    }
  }
  throw client_error("cannot reach any bootstrap server: " + last);
}

void admin_client::update_brokers(const wire::metadata_response& md) {
  brokers_.clear();
  for (auto& b : md.brokers)
    brokers_.push_back({b.node_id, b.host, b.port});
  std::sort(brokers_.begin(), brokers_.end(),
            [](auto& x, auto& y) { return x.id < y.id; });
  controller_id_ = md.controller_id;
}

wire::metadata_response admin_client::metadata(
  const std::optional<std::vector<std::string>>& topics) {
  auto& conn = any();
  auto v = conn.require_version(wire::api_key::metadata);
  wire::metadata_request req;
  if (topics) {
    req.topics.emplace();
    for (auto& t : *topics) {
      wire::metadata_request_topic rt;
      rt.name = t;
      req.topics->push_back(rt);
    }
  } else if (v == 0) {
    req.topics.emplace(); // v0: empty is every topic
  }
  req.allow_auto_topic_creation = false;
  auto res = TROUPE_KAFKA_CALL(conn, metadata, req, v);
  update_brokers(res);
  return res;
}

connection& admin_client::broker_connection(int32_t id) {
  if (auto i = connections_.find(id); i != connections_.end())
    return *i->second;
  auto b = std::find_if(brokers_.begin(), brokers_.end(),
                        [&](auto& x) { return x.id == id; });
  if (b == brokers_.end()) {
    metadata(std::vector<std::string>{});
    b = std::find_if(brokers_.begin(), brokers_.end(),
                     [&](auto& x) { return x.id == id; });
    if (b == brokers_.end())
      throw client_error("broker " + std::to_string(id)
                         + " is not in the cluster's metadata");
  }
  auto conn = std::make_unique<connection>(b->host, b->port, b->id, cfg_);
  auto& ref = *conn;
  connections_.emplace(id, std::move(conn));
  return ref;
}

connection& admin_client::node(int32_t id) {
  return broker_connection(id);
}

connection& admin_client::controller() {
  if (controller_id_ < 0)
    return any();
  return broker_connection(controller_id_);
}

// -- groups -------------------------------------------------------------------

broker_node admin_client::find_coordinator(const std::string& group) {
  auto deadline = clock_type::now()
                  + std::chrono::milliseconds(cfg_.request_timeout_ms);
  auto& conn = any();
  auto v = conn.require_version(wire::api_key::find_coordinator);
  for (;;) {
    wire::find_coordinator_request req;
    req.key_type = wire::coordinator_key_group;
    if (v >= 4)
      req.coordinator_keys = {group};
    else
      req.key = group;
    auto res = TROUPE_KAFKA_CALL(conn, find_coordinator, req, v);
    broker_node node;
    error_code err = res.error;
    if (v >= 4) {
      if (res.coordinators.empty())
        throw client_error("FindCoordinator answered no coordinator for "
                           + group);
      auto& c = res.coordinators.front();
      err = c.error;
      node = {c.node_id, c.host, c.port};
    } else {
      node = {res.node_id, res.host, res.port};
    }
    if (err == error_code::none) {
      coordinators_[group] = node.id;
      return node;
    }
    if (!retriable_coordinator_error(err) || clock_type::now() > deadline)
      throw client_error("cannot find the coordinator of group '" + group
                         + "': " + error_text(err));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

connection& admin_client::coordinator_connection(const std::string& group) {
  auto i = coordinators_.find(group);
  int32_t id = i != coordinators_.end() ? i->second : find_coordinator(group).id;
  return broker_connection(id);
}

namespace {

/// Runs `attempt(conn)` against the group's coordinator, finding it again
/// and retrying while it answers a retriable coordinator error, until the
/// request timeout.
template <class Attempt>
auto with_coordinator(admin_client& client, const std::string& group,
                      int32_t timeout_ms, Attempt attempt) {
  auto deadline = clock_type::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto node = client.find_coordinator(group);
    auto& conn = client.node(node.id);
    auto [err, value] = attempt(conn, node);
    if (!retriable_coordinator_error(err) || clock_type::now() > deadline)
      return std::make_pair(err, std::move(value));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

} // namespace

std::vector<wire::listed_group>
admin_client::list_groups(const std::vector<std::string>& states,
                          const std::vector<std::string>& types) {
  std::map<std::string, wire::listed_group> merged;
  auto ids = brokers_;
  for (auto& b : ids) {
    auto& conn = broker_connection(b.id);
    auto v = conn.require_version(wire::api_key::list_groups);
    wire::list_groups_request req;
    if (v >= 4)
      req.states_filter = states;
    if (v >= 5)
      req.types_filter = types;
    auto res = TROUPE_KAFKA_CALL(conn, list_groups, req, v);
    if (res.error != error_code::none)
      throw client_error("ListGroups failed on broker " + std::to_string(b.id)
                         + ": " + error_text(res.error));
    for (auto& g : res.groups) {
      if (!g.protocol_type.empty() && g.protocol_type != "consumer")
        continue;
      if (v < 4 && !states.empty()
          && std::none_of(states.begin(), states.end(), [&](auto& s) {
               return s == g.group_state;
             }))
        continue;
      merged[g.group_id] = g;
    }
  }
  std::vector<wire::listed_group> out;
  for (auto& [id, g] : merged)
    out.push_back(g);
  return out;
}

group_description admin_client::describe_group(const std::string& group) {
  auto [err, desc] = with_coordinator(
    *this, group, cfg_.request_timeout_ms,
    [&](connection& conn, const broker_node& node) {
      group_description d;
      d.group_id = group;
      d.coordinator = node;
      auto cv = conn.version(wire::api_key::consumer_group_describe);
      if (cv >= 0) {
        wire::consumer_group_describe_request req;
        req.group_ids = {group};
        auto res = TROUPE_KAFKA_CALL(conn, consumer_group_describe, req, cv);
        if (!res.groups.empty()) {
          auto& g = res.groups.front();
          if (retriable_coordinator_error(g.error))
            return std::make_pair(g.error, d);
          if (g.error == error_code::none) {
            d.consumer_group = true;
            d.state = g.group_state;
            d.assignor = g.assignor_name;
            for (auto& m : g.members) {
              member_description md;
              md.member_id = m.member_id;
              md.group_instance_id = m.instance_id.value_or("");
              md.client_id = m.client_id;
              md.host = m.client_host;
              for (auto& tp : m.assignment.topic_partitions)
                for (auto p : tp.partitions)
                  md.assignment.push_back({tp.topic_name, p});
              d.members.push_back(std::move(md));
            }
            return std::make_pair(error_code::none, d);
          }
          // GROUP_ID_NOT_FOUND: a classic group (or none); ask
          // DescribeGroups, as Kafka's DescribeConsumerGroupsHandler does.
        }
      }
      auto v = conn.require_version(wire::api_key::describe_groups);
      wire::describe_groups_request req;
      req.groups = {group};
      auto res = TROUPE_KAFKA_CALL(conn, describe_groups, req, v);
      if (res.groups.empty())
        throw client_error("DescribeGroups answered nothing for " + group);
      auto& g = res.groups.front();
      d.error = g.error;
      if (g.error != error_code::none)
        return std::make_pair(g.error, d);
      d.state = g.group_state;
      d.assignor = g.protocol_data;
      for (auto& m : g.members) {
        member_description md;
        md.member_id = m.member_id;
        md.group_instance_id = m.group_instance_id.value_or("");
        md.client_id = m.client_id;
        md.host = m.client_host;
        if (g.protocol_type == "consumer")
          md.assignment = decode_consumer_assignment(m.member_assignment);
        d.members.push_back(std::move(md));
      }
      return std::make_pair(error_code::none, d);
    });
  desc.error = err;
  return desc;
}

std::map<topic_partition, int64_t>
admin_client::committed_offsets(const std::string& group) {
  auto [err, out] = with_coordinator(
    *this, group, cfg_.request_timeout_ms,
    [&](connection& conn, const broker_node&) {
      std::map<topic_partition, int64_t> offsets;
      auto v = conn.require_version(wire::api_key::offset_fetch);
      wire::offset_fetch_request req;
      std::vector<wire::offset_fetch_topic_response> topics;
      error_code err = error_code::none;
      if (v >= 8) {
        wire::offset_fetch_group g;
        g.group_id = group;
        g.topics = std::nullopt;
        req.groups.push_back(g);
        auto res = TROUPE_KAFKA_CALL(conn, offset_fetch, req, v);
        if (!res.groups.empty()) {
          err = res.groups.front().error;
          topics = res.groups.front().topics;
        }
      } else {
        req.group_id = group;
        req.topics = std::nullopt;
        auto res = TROUPE_KAFKA_CALL(conn, offset_fetch, req, v);
        err = res.error;
        topics = res.topics;
      }
      for (auto& t : topics)
        for (auto& p : t.partitions)
          if (p.error == error_code::none && p.committed_offset >= 0)
            offsets[{t.name, p.partition_index}] = p.committed_offset;
      return std::make_pair(err, offsets);
    });
  if (err != error_code::none && err != error_code::group_id_not_found)
    throw client_error("cannot fetch the offsets of group '" + group
                       + "': " + error_text(err));
  return out;
}

std::map<topic_partition, error_code>
admin_client::commit_offsets(const std::string& group,
                             const std::map<topic_partition, int64_t>& offsets) {
  auto [err, out] = with_coordinator(
    *this, group, cfg_.request_timeout_ms,
    [&](connection& conn, const broker_node&) {
      std::map<topic_partition, error_code> result;
      auto v = conn.require_version(wire::api_key::offset_commit);
      wire::offset_commit_request req;
      req.group_id = group;
      req.generation_id = -1;
      req.member_id = "";
      for (auto& [tp, offset] : offsets) {
        if (req.topics.empty() || req.topics.back().name != tp.topic)
          req.topics.push_back({tp.topic, {}});
        wire::offset_commit_partition p;
        p.partition_index = tp.partition;
        p.committed_offset = offset;
        p.committed_metadata = std::string{};
        req.topics.back().partitions.push_back(p);
      }
      auto res = TROUPE_KAFKA_CALL(conn, offset_commit, req, v);
      error_code first = error_code::none;
      for (auto& t : res.topics)
        for (auto& p : t.partitions) {
          result[{t.name, p.partition_index}] = p.error;
          if (first == error_code::none)
            first = p.error;
        }
      return std::make_pair(first, result);
    });
  return out;
}

error_code admin_client::delete_group(const std::string& group) {
  auto [err, unused] = with_coordinator(
    *this, group, cfg_.request_timeout_ms,
    [&](connection& conn, const broker_node&) {
      auto v = conn.require_version(wire::api_key::delete_groups);
      wire::delete_groups_request req;
      req.groups_names = {group};
      auto res = TROUPE_KAFKA_CALL(conn, delete_groups, req, v);
      error_code e = res.results.empty() ? error_code::unknown_server_error
                                         : res.results.front().error;
      return std::make_pair(e, 0);
    });
  (void) unused;
  return err;
}

std::pair<error_code, std::map<topic_partition, error_code>>
admin_client::delete_offsets(const std::string& group,
                             const std::vector<topic_partition>& partitions) {
  return with_coordinator(
    *this, group, cfg_.request_timeout_ms,
    [&](connection& conn, const broker_node&) {
      std::map<topic_partition, error_code> result;
      auto v = conn.require_version(wire::api_key::offset_delete);
      wire::offset_delete_request req;
      req.group_id = group;
      auto sorted = partitions;
      std::sort(sorted.begin(), sorted.end());
      for (auto& tp : sorted) {
        if (req.topics.empty() || req.topics.back().name != tp.topic)
          req.topics.push_back({tp.topic, {}});
        req.topics.back().partitions.push_back({tp.partition});
      }
      auto res = TROUPE_KAFKA_CALL(conn, offset_delete, req, v);
      for (auto& t : res.topics)
        for (auto& p : t.partitions)
          result[{t.name, p.partition_index}] = p.error;
      return std::make_pair(res.error, result);
    });
}

// -- offsets ------------------------------------------------------------------

std::map<topic_partition, offset_answer>
admin_client::list_offsets(const std::vector<topic_partition>& partitions,
                           int64_t timestamp) {
  std::map<topic_partition, offset_answer> out;
  if (partitions.empty())
    return out;
  std::set<std::string> names;
  for (auto& tp : partitions)
    names.insert(tp.topic);
  auto md = metadata(std::vector<std::string>{names.begin(), names.end()});
  std::map<topic_partition, int32_t> leaders;
  for (auto& t : md.topics)
    for (auto& p : t.partitions)
      leaders[{t.name.value_or(""), p.partition_index}] = p.leader_id;
  std::map<int32_t, std::vector<topic_partition>> by_leader;
  for (auto& tp : partitions) {
    auto i = leaders.find(tp);
    if (i == leaders.end()) {
      out[tp] = {error_code::unknown_topic_or_partition, -1};
    } else if (i->second < 0) {
      out[tp] = {error_code::leader_not_available, -1};
    } else {
      by_leader[i->second].push_back(tp);
    }
  }
  for (auto& [leader, tps] : by_leader) {
    auto& conn = broker_connection(leader);
    auto v = conn.require_version(wire::api_key::list_offsets);
    wire::list_offsets_request req;
    req.replica_id = -1;
    auto sorted = tps;
    std::sort(sorted.begin(), sorted.end());
    for (auto& tp : sorted) {
      if (req.topics.empty() || req.topics.back().name != tp.topic)
        req.topics.push_back({tp.topic, {}});
      wire::list_offsets_partition p;
      p.partition_index = tp.partition;
      p.timestamp = timestamp;
      req.topics.back().partitions.push_back(p);
    }
    auto res = TROUPE_KAFKA_CALL(conn, list_offsets, req, v);
    for (auto& t : res.topics)
      for (auto& p : t.partitions)
        out[{t.name, p.partition_index}] = {p.error, p.offset};
  }
  return out;
}

// -- topics -------------------------------------------------------------------

wire::creatable_topic_result
admin_client::create_topic(const wire::creatable_topic& t) {
  auto& conn = controller();
  auto v = conn.require_version(wire::api_key::create_topics);
  wire::create_topics_request req;
  req.topics = {t};
  req.timeout_ms = cfg_.request_timeout_ms;
  auto res = TROUPE_KAFKA_CALL(conn, create_topics, req, v);
  if (res.topics.empty())
    throw client_error("CreateTopics answered nothing for " + t.name);
  return res.topics.front();
}

wire::deletable_topic_result
admin_client::delete_topic(const std::string& name) {
  auto& conn = controller();
  auto v = conn.require_version(wire::api_key::delete_topics);
  wire::delete_topics_request req;
  if (v >= 6) {
    wire::delete_topic_state s;
    s.name = name;
    req.topics = {s};
  } else {
    req.topic_names = {name};
  }
  req.timeout_ms = cfg_.request_timeout_ms;
  auto res = TROUPE_KAFKA_CALL(conn, delete_topics, req, v);
  if (res.responses.empty())
    throw client_error("DeleteTopics answered nothing for " + name);
  return res.responses.front();
}

wire::create_partitions_topic_result
admin_client::create_partitions(const std::string& name, int32_t count) {
  auto& conn = controller();
  auto v = conn.require_version(wire::api_key::create_partitions);
  wire::create_partitions_request req;
  wire::create_partitions_topic t;
  t.name = name;
  t.count = count;
  req.topics = {t};
  req.timeout_ms = cfg_.request_timeout_ms;
  auto res = TROUPE_KAFKA_CALL(conn, create_partitions, req, v);
  if (res.results.empty())
    throw client_error("CreatePartitions answered nothing for " + name);
  return res.results.front();
}

// -- partition reassignment (KIP-455) -------------------------------------------

std::map<topic_partition, std::pair<error_code, std::string>>
admin_client::alter_partition_reassignments(
  const std::map<topic_partition, std::optional<std::vector<int32_t>>>&
    targets) {
  auto& conn = controller();
  auto v = conn.require_version(wire::api_key::alter_partition_reassignments);
  wire::alter_partition_reassignments_request req;
  req.timeout_ms = cfg_.request_timeout_ms;
  for (auto& [tp, replicas] : targets) {
    if (req.topics.empty() || req.topics.back().name != tp.topic)
      req.topics.push_back({tp.topic, {}});
    req.topics.back().partitions.push_back({tp.partition, replicas});
  }
  auto res = TROUPE_KAFKA_CALL(conn, alter_partition_reassignments, req, v);
  if (res.error != error_code::none)
    throw client_error(std::string{error_name(res.error)} + ": "
                       + res.error_message.value_or(""));
  std::map<topic_partition, std::pair<error_code, std::string>> out;
  for (auto& t : res.responses)
    for (auto& p : t.partitions)
      out[{t.name, p.partition_index}] = {p.error,
                                          p.error_message.value_or("")};
  return out;
}

std::vector<wire::ongoing_topic_reassignment>
admin_client::list_partition_reassignments(
  const std::optional<std::vector<topic_partition>>& partitions) {
  auto& conn = controller();
  auto v = conn.require_version(wire::api_key::list_partition_reassignments);
  wire::list_partition_reassignments_request req;
  req.timeout_ms = cfg_.request_timeout_ms;
  if (partitions) {
    req.topics.emplace();
    for (auto& tp : *partitions) {
      if (req.topics->empty() || req.topics->back().name != tp.topic)
        req.topics->push_back({tp.topic, {}});
      req.topics->back().partition_indexes.push_back(tp.partition);
    }
  }
  auto res = TROUPE_KAFKA_CALL(conn, list_partition_reassignments, req, v);
  if (res.error != error_code::none)
    throw client_error(std::string{error_name(res.error)} + ": "
                       + res.error_message.value_or(""));
  return res.topics;
}

// -- configs ------------------------------------------------------------------

namespace {

bool broker_resource(int8_t type, const std::string& name) {
  return (type == wire::config_resource_broker
          || type == wire::config_resource_broker_logger)
         && !name.empty();
}

} // namespace

wire::describe_configs_result
admin_client::describe_configs(int8_t resource_type, const std::string& name,
                               bool include_synonyms) {
  // A broker's own configs are asked of that broker (Kafka's
  // ConstantNodeIdProvider); topics and the cluster default of any.
  auto& conn = broker_resource(resource_type, name)
                 ? broker_connection(std::stoi(name))
                 : any();
  auto v = conn.require_version(wire::api_key::describe_configs);
  wire::describe_configs_request req;
  req.resources.push_back({resource_type, name, std::nullopt});
  req.include_synonyms = include_synonyms;
  auto res = TROUPE_KAFKA_CALL(conn, describe_configs, req, v);
  if (res.results.empty())
    throw client_error("DescribeConfigs answered nothing for " + name);
  return res.results.front();
}

wire::alter_configs_resource_response admin_client::alter_configs(
  int8_t resource_type, const std::string& name,
  const std::vector<wire::incremental_alterable_config>& ops,
  const std::vector<wire::alterable_config>& full_set, bool legacy) {
  auto& conn = broker_resource(resource_type, name)
                 ? broker_connection(std::stoi(name))
                 : any();
  auto iv = conn.version(wire::api_key::incremental_alter_configs);
  if (iv >= 0 && !legacy) {
    wire::incremental_alter_configs_request req;
    req.resources.push_back({resource_type, name, ops});
    auto res = TROUPE_KAFKA_CALL(conn, incremental_alter_configs, req, iv);
    if (res.responses.empty())
      throw client_error("IncrementalAlterConfigs answered nothing for "
                         + name);
    return res.responses.front();
  }
  auto v = conn.require_version(wire::api_key::alter_configs);
  wire::alter_configs_request req;
  req.resources.push_back({resource_type, name, full_set});
  auto res = TROUPE_KAFKA_CALL(conn, alter_configs, req, v);
  if (res.responses.empty())
    throw client_error("AlterConfigs answered nothing for " + name);
  return res.responses.front();
}

} // namespace troupe::kafka_client
