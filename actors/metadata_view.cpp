#include "actors/metadata_view.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

namespace troupe {

topic_result create_topic(cluster_metadata& m, const cluster_config& config,
                          std::mt19937_64& rng, const new_topic& t) {
  auto partitions =
    t.num_partitions == -1 ? config.num_partitions : t.num_partitions;
  int32_t rf = t.replication_factor == -1 ? config.default_replication_factor
                                          : t.replication_factor;
  if (partitions > 1000000)
    return {t.name, error_code::invalid_partitions,
            "Number of partitions must be at most 1000000."};
  // Kafka picks a random start broker; a hash of the name spreads topics
  // over the brokers just as well and is reproducible.
  auto start = static_cast<int32_t>(std::hash<std::string>{}(t.name) % 1024);
  cluster_metadata trial = m;
  auto e = trial.create_topic(t.name, partitions, rf, start, random_uuid(rng));
  switch (e) {
    case error_code::none: {
      // Then the topic's configs (AdminZkClient.validateTopicCreate ends
      // with LogConfig.validate); Kafka's own topics carry its internal
      // ones.
      auto configs = t.configs;
      for (auto& [k, v] : internal_topic_configs(config, t.name))
        configs.emplace(k, v);
      if (auto err = validate_topic_configs(config, t.name, configs); !err.ok())
        return {t.name, err.error, err.message};
      if (t.validate_only)
        return {t.name, e, {}};
      trial.set_configs(t.name, std::move(configs));
      m = std::move(trial);
      spdlog::info("controller: created topic {} with {} partitions, "
                   "replication factor {}, {} config overrides",
                   t.name, partitions, rf, m.configs(t.name).size());
      return {t.name, e, {}};
    }
    case error_code::invalid_topic_exception:
      return {t.name, e, "Topic name is illegal: " + t.name};
    case error_code::topic_already_exists:
      return {t.name, e, "Topic '" + t.name + "' already exists."};
    case error_code::invalid_partitions:
      return {t.name, e, "Number of partitions must be at least 1."};
    case error_code::invalid_replication_factor:
      return {t.name, e,
              "Replication factor: " + std::to_string(rf)
                + " larger than available brokers: "
                + std::to_string(m.live_brokers().size()) + "."};
    default:
      return {t.name, e, std::string{error_message(e)}};
  }
}

partition_metadata to_message(int32_t partition, const partition_state& s) {
  return {partition,  s.leader, s.leader_epoch,
          s.replicas, s.isr,    s.partition_epoch};
}

topic_metadata describe(const cluster_metadata& m, const std::string& name) {
  topic_metadata t{error_code::none, name, 0, {}, m.topic_id(name),
                   m.configs(name)};
  auto i = m.topics().find(name);
  if (i == m.topics().end()) {
    t.error = error_code::unknown_topic_or_partition;
    return t;
  }
  t.partitions = static_cast<int32_t>(i->second.size());
  for (size_t p = 0; p < i->second.size(); ++p) {
    auto& s = i->second[p];
    t.partition_states.push_back(to_message(static_cast<int32_t>(p), s));
  }
  return t;
}

leadership_update partitions_of(const cluster_metadata& m,
                                const std::string& name) {
  leadership_update u;
  for (auto& p : describe(m, name).partition_states)
    u.partitions.push_back({name, p});
  return u;
}

alter_topic_configs_response
alter_topic_configs(cluster_metadata& m, const cluster_config& config,
                    const alter_topic_configs_request& req,
                    std::vector<partition_change>* elected) {
  alter_topic_configs_response res;
  if (!req.topic.empty() && !m.has_topic(req.topic)) {
    res.error = error_code::unknown_topic_or_partition;
    res.message = "The topic '" + req.topic + "' does not exist.";
    return res;
  }
  topic_configs next;
  auto err = alter_topic_configs(config, req.topic, m.configs(req.topic),
                                 req.ops, req.incremental, next);
  if (!err.ok()) {
    res.error = err.error;
    res.message = std::move(err.message);
    res.configs = m.configs(req.topic);
    return res;
  }
  res.configs = next;
  if (!req.validate_only) {
    spdlog::info("controller: topic {} now has {} config overrides", req.topic,
                 next.size());
    auto broker = config.unclean_leader_election;
    auto was = unclean_leader_election_of(m.configs(req.topic), broker);
    m.set_configs(req.topic, std::move(next));
    // KafkaController.enableTopicUncleanLeaderElection.
    if (!was && unclean_leader_election_of(m.configs(req.topic), broker)) {
      auto changes = m.elect_offline(req.topic, broker);
      if (!changes.empty())
        spdlog::warn("controller: unclean leader election for {} partitions "
                     "of {}",
                     changes.size(), req.topic);
      if (elected)
        *elected = std::move(changes);
    }
  }
  return res;
}

namespace {

std::string joined(const std::vector<int32_t>& xs) {
  std::string out;
  for (auto x : xs)
    out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

/// One topic of CreatePartitions: the replicas of its new partitions, or
/// the error in Kafka's words.
create_partitions_result grow(const cluster_metadata& m,
                              const new_partitions& t,
                              std::vector<std::vector<int32_t>>& replicas) {
  auto i = m.topics().find(t.topic);
  if (i == m.topics().end())
    return {t.topic, error_code::unknown_topic_or_partition,
            "The topic '" + t.topic + "' does not exist."};
  auto current = static_cast<int32_t>(i->second.size());
  auto increment = t.count - current;
  if (increment < 0)
    return {t.topic, error_code::invalid_partitions,
            "Topic currently has " + std::to_string(current)
              + " partitions, which is higher than the requested "
              + std::to_string(t.count) + "."};
  if (increment == 0)
    return {t.topic, error_code::invalid_partitions,
            "Topic already has " + std::to_string(current) + " partitions."};
  auto brokers = m.live_brokers();
  auto rf = i->second.empty()
              ? 0
              : static_cast<int32_t>(i->second.front().replicas.size());
  if (t.assignments.empty()) {
    if (rf > static_cast<int32_t>(brokers.size()))
      return {t.topic, error_code::invalid_replication_factor,
              "Replication factor: " + std::to_string(rf)
                + " larger than available brokers: "
                + std::to_string(brokers.size()) + "."};
    replicas = m.assign_new_partitions(t.topic, increment);
    return {t.topic, error_code::none, {}};
  }
  auto known = [&](int32_t id) {
    return std::find(brokers.begin(), brokers.end(), id) != brokers.end();
  };
  std::vector<int32_t> unknown;
  for (auto& a : t.assignments)
    for (auto id : a)
      if (!known(id)
          && std::find(unknown.begin(), unknown.end(), id) == unknown.end())
        unknown.push_back(id);
  if (!unknown.empty())
    return {t.topic, error_code::invalid_replica_assignment,
            "Unknown broker(s) in replica assignment: " + joined(unknown)
              + "."};
  if (static_cast<int32_t>(t.assignments.size()) != increment)
    return {t.topic, error_code::invalid_replica_assignment,
            "Increasing the number of partitions by "
              + std::to_string(increment) + " but "
              + std::to_string(t.assignments.size())
              + " assignments provided."};
  // validateReplicaAssignment, partition by partition.
  std::vector<int32_t> bad_partitions;
  std::vector<int32_t> bad_factors;
  for (size_t j = 0; j < t.assignments.size(); ++j) {
    auto& a = t.assignments[j];
    auto id = current + static_cast<int32_t>(j);
    if (a.empty())
      return {t.topic, error_code::invalid_replica_assignment,
              "Cannot have replication factor of 0 for partition id "
                + std::to_string(id) + "."};
    if (std::set<int32_t>(a.begin(), a.end()).size() != a.size())
      return {t.topic, error_code::invalid_replica_assignment,
              "Duplicate brokers not allowed in replica assignment: "
                + joined(a) + " for partition id " + std::to_string(id)
                + "."};
    if (static_cast<int32_t>(a.size()) != rf) {
      bad_partitions.push_back(id);
      bad_factors.push_back(static_cast<int32_t>(a.size()));
    }
  }
  if (!bad_partitions.empty())
    return {t.topic, error_code::invalid_replica_assignment,
            "Inconsistent replication factor between partitions, partition 0 "
            "has "
              + std::to_string(rf) + " while partitions ["
              + joined(bad_partitions) + "] have replication factors ["
              + joined(bad_factors) + "], respectively."};
  replicas = t.assignments;
  return {t.topic, error_code::none, {}};
}

std::string strategy_of(int8_t election_type) {
  return election_type == 0 ? "PreferredReplicaPartitionLeaderElectionStrategy"
                            : "OfflinePartitionLeaderElectionStrategy(true)";
}

} // namespace

create_partitions_response
create_partitions(cluster_metadata& m, const create_partitions_request& req,
                  std::vector<partition_change>& created) {
  create_partitions_response res;
  std::map<std::string, int> mentions;
  for (auto& t : req.topics)
    ++mentions[t.topic];
  std::set<std::string> answered;
  for (auto& t : req.topics) {
    if (!answered.insert(t.topic).second)
      continue;
    if (mentions[t.topic] > 1) {
      res.results.push_back({t.topic, error_code::invalid_request,
                             "Duplicate topic in request."});
      continue;
    }
    std::vector<std::vector<int32_t>> replicas;
    auto r = grow(m, t, replicas);
    if (r.error == error_code::none && !req.validate_only) {
      spdlog::info("controller: topic {} grows to {} partitions", t.topic,
                   t.count);
      auto added = m.add_partitions(t.topic, replicas);
      created.insert(created.end(), added.begin(), added.end());
    }
    res.results.push_back(std::move(r));
  }
  return res;
}

elect_leaders_response elect_leaders(cluster_metadata& m,
                                     const elect_leaders_request& req,
                                     std::vector<partition_change>& elected) {
  elect_leaders_response res;
  if (req.election_type != 0 && req.election_type != 1) {
    res.error = error_code::invalid_request;
    return res;
  }
  std::vector<topic_partition> wanted;
  if (req.all_partitions) {
    for (auto& [topic, partitions] : m.topics())
      for (size_t p = 0; p < partitions.size(); ++p)
        wanted.push_back({topic, static_cast<int32_t>(p)});
  } else {
    std::set<topic_partition> seen;
    for (auto& tp : req.partitions)
      if (seen.insert(tp).second)
        wanted.push_back(tp);
  }
  for (auto& tp : wanted) {
    auto e = req.election_type == 0 ? m.elect_preferred(tp, elected)
                                    : m.elect_unclean(tp, elected);
    if (e == error_code::election_not_needed && req.all_partitions)
      continue;
    elected_leader r{tp, e, {}};
    if (e == error_code::unknown_topic_or_partition)
      r.message = "The partition does not exist.";
    else if (e == error_code::preferred_leader_not_available
             || e == error_code::eligible_leaders_not_available)
      r.message = "Failed to elect leader for partition " + to_string(tp)
                  + " under strategy " + strategy_of(req.election_type);
    res.results.push_back(std::move(r));
  }
  if (!elected.empty())
    spdlog::info("controller: {} partitions elected a new leader",
                 elected.size());
  return res;
}

alter_partition_reassignments_response
alter_partition_reassignments(cluster_metadata& m,
                              const alter_partition_reassignments_request& req,
                              std::vector<partition_change>& changed) {
  alter_partition_reassignments_response res;
  for (auto& t : req.partitions) {
    reassignment_result r{t.partition, error_code::none, {}};
    if (t.cancel) {
      r.error = m.cancel_reassignment(t.partition, changed);
      if (r.error == error_code::no_reassignment_in_progress)
        r.message = "No ongoing reassignment for partition "
                    + to_string(t.partition) + ".";
      else if (r.error == error_code::unknown_topic_or_partition)
        r.message = "Unable to find partition " + to_string(t.partition)
                    + ".";
    } else {
      r.error = m.reassign(t.partition, t.replicas, r.message, changed);
      if (r.error == error_code::none)
        spdlog::info("controller: reassigning {} to {} replicas",
                     to_string(t.partition), t.replicas.size());
    }
    res.results.push_back(std::move(r));
  }
  return res;
}

list_partition_reassignments_response
list_partition_reassignments(const cluster_metadata& m,
                             const list_partition_reassignments_request& req) {
  list_partition_reassignments_response res;
  auto add = [&](const topic_partition& tp) {
    auto p = m.partition(tp);
    if (p && p->reassigning())
      res.partitions.push_back({tp, p->replicas, p->adding, p->removing});
  };
  if (req.all_partitions) {
    for (auto& [topic, partitions] : m.topics())
      for (size_t i = 0; i < partitions.size(); ++i)
        add({topic, static_cast<int32_t>(i)});
  } else {
    for (auto& tp : req.partitions)
      add(tp);
  }
  return res;
}

} // namespace troupe
