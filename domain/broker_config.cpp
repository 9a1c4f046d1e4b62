#include "domain/broker_config.hpp"

#include <optional>
#include <set>

#include "domain/config_parse.hpp"

namespace troupe {

namespace {

/// A rate: a LONG of at least 0 (Kafka's atLeast(0)).
std::optional<int64_t> parse_rate(std::string_view s) {
  auto n = parse_config_long(s);
  if (!n || *n < 0)
    return std::nullopt;
  return n;
}

} // namespace

bool dynamic_broker_config(std::string_view name) {
  return name == leader_replication_throttled_rate
         || name == follower_replication_throttled_rate;
}

config_error alter_broker_configs(int32_t broker_id,
                                  const broker_configs& current,
                                  const std::vector<config_op>& ops,
                                  bool incremental, broker_configs& out) {
  std::set<std::string> seen;
  for (auto& op : ops)
    if (!seen.insert(op.name).second)
      return {error_code::invalid_request,
              "Error due to duplicate config keys"};
  // DynamicBrokerConfig.validateConfigs: names first, then values.
  std::string fixed;
  for (auto& op : ops)
    if (!dynamic_broker_config(op.name))
      fixed += (fixed.empty() ? "" : ", ") + op.name;
  if (!fixed.empty())
    return {error_code::invalid_request,
            "Cannot update these configs dynamically: Set(" + fixed + ")"};
  broker_configs next = incremental ? current : broker_configs{};
  for (auto& op : ops) {
    switch (op.op) {
      case config_op_type::set:
        if (!op.value)
          return {error_code::invalid_request,
                  "Null value not supported for : " + op.name};
        next[op.name] = *op.value;
        break;
      case config_op_type::remove:
        next.erase(op.name);
        break;
      case config_op_type::append:
      case config_op_type::subtract:
        return {error_code::invalid_config,
                "Config value append is not allowed for config key: "
                  + op.name};
    }
  }
  for (auto& [name, value] : next) {
    if (parse_rate(value))
      continue;
    auto why = parse_config_long(value) ? std::string{"Value must be at least 0"}
                                        : std::string{"Not a number of type LONG"};
    return {error_code::invalid_request,
            "Invalid config value for resource ConfigResource(type=BROKER, "
            "name='"
              + std::to_string(broker_id) + "'): Invalid value " + value
              + " for configuration " + name + ": " + why};
  }
  out = std::move(next);
  return {};
}

replication_rates replication_rates_of(const cluster_config& config,
                                       const broker_configs& dynamic) {
  replication_rates r{config.leader_replication_throttled_rate,
                      config.follower_replication_throttled_rate};
  auto take = [&](std::string_view name, int64_t& into) {
    auto i = dynamic.find(std::string{name});
    if (i == dynamic.end())
      return;
    if (auto n = parse_rate(i->second))
      into = *n;
  };
  take(leader_replication_throttled_rate, r.leader);
  take(follower_replication_throttled_rate, r.follower);
  return r;
}

} // namespace troupe
