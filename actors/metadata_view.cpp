#include "actors/metadata_view.hpp"

#include <functional>

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

} // namespace troupe
