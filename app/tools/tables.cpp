#include "app/tools/tables.hpp"

#include <algorithm>
#include <sstream>

namespace troupe::tools {

std::string pad(const std::string& s, size_t width) {
  if (s.size() >= width)
    return s;
  return s + std::string(width - s.size(), ' ');
}

namespace {

template <class T>
std::string or_missing(const std::optional<T>& x) {
  if (!x)
    return missing;
  if constexpr (std::is_same_v<T, std::string>)
    return *x;
  else
    return std::to_string(*x);
}

} // namespace

std::string format_offsets(const std::vector<offset_row>& rows) {
  size_t group_len = 15, topic_len = 15, consumer_len = 15, host_len = 15;
  for (auto& r : rows) {
    group_len = std::max(group_len, r.group.size());
    topic_len = std::max(topic_len, or_missing(r.topic).size());
    consumer_len = std::max(consumer_len, or_missing(r.consumer_id).size());
    host_len = std::max(host_len, or_missing(r.host).size());
  }
  auto line = [&](const std::string& g, const std::string& t,
                  const std::string& p, const std::string& cur,
                  const std::string& end, const std::string& lag,
                  const std::string& c, const std::string& h,
                  const std::string& cl) {
    return "\n" + pad(g, group_len) + " " + pad(t, topic_len) + " "
           + pad(p, 10) + " " + pad(cur, 15) + " " + pad(end, 15) + " "
           + pad(lag, 15) + " " + pad(c, consumer_len) + " " + pad(h, host_len)
           + " " + cl;
  };
  std::string out = line("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                         "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
                         "CLIENT-ID");
  for (auto& r : rows)
    out += line(r.group, or_missing(r.topic), or_missing(r.partition),
                or_missing(r.current_offset), or_missing(r.log_end_offset),
                or_missing(r.lag), or_missing(r.consumer_id),
                or_missing(r.host), or_missing(r.client_id));
  return out + "\n";
}

std::string format_members(const std::vector<member_row>& rows, bool verbose) {
  size_t group_len = 15, consumer_len = 15, instance_len = 17, host_len = 15,
         client_len = 15;
  bool with_instance = false;
  for (auto& r : rows) {
    group_len = std::max(group_len, r.group.size());
    consumer_len = std::max(consumer_len, r.consumer_id.size());
    instance_len = std::max(instance_len, r.group_instance_id.size());
    host_len = std::max(host_len, r.host.size());
    client_len = std::max(client_len, r.client_id.size());
    with_instance = with_instance || !r.group_instance_id.empty();
  }
  auto line = [&](const std::string& g, const std::string& c,
                  const std::string& i, const std::string& h,
                  const std::string& cl, const std::string& n) {
    std::string s = pad(g, group_len) + " " + pad(c, consumer_len) + " ";
    if (with_instance)
      s += pad(i, instance_len) + " ";
    return s + pad(h, host_len) + " " + pad(cl, client_len) + " " + pad(n, 15)
           + " ";
  };
  std::string out = "\n"
                    + line("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST",
                           "CLIENT-ID", "#PARTITIONS");
  if (verbose)
    out += "ASSIGNMENT";
  out += "\n";
  for (auto& r : rows) {
    out += line(r.group, r.consumer_id, r.group_instance_id, r.host,
                r.client_id, std::to_string(r.partitions));
    if (verbose) {
      if (r.assignment.empty()) {
        out += missing;
      } else {
        // Per topic "(p1,p2)", partitions sorted as strings, topics'
        // groups sorted as strings, joined with ", " (Kafka's sort).
        std::map<std::string, std::vector<std::string>> by_topic;
        for (auto& tp : r.assignment)
          by_topic[tp.topic].push_back(std::to_string(tp.partition));
        std::vector<std::string> groups;
        for (auto& [topic, ps] : by_topic) {
          std::sort(ps.begin(), ps.end());
          std::string g = "(";
          for (size_t i = 0; i < ps.size(); ++i)
            g += (i ? "," : "") + ps[i];
          groups.push_back(g + ")");
        }
        std::sort(groups.begin(), groups.end());
        for (size_t i = 0; i < groups.size(); ++i)
          out += (i ? ", " : "") + groups[i];
      }
    }
    out += "\n";
  }
  return out;
}

std::string format_state(const state_row& r) {
  size_t col = std::max<size_t>(25, r.coordinator.size());
  auto line = [&](const std::string& a, const std::string& b,
                  const std::string& c, const std::string& d,
                  const std::string& e) {
    return "\n" + pad(a, col) + " " + pad(b, 25) + " " + pad(c, 20) + " "
           + pad(d, 15) + " " + e;
  };
  return line("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE",
              "#MEMBERS")
         + line(r.group, r.coordinator, r.assignment_strategy, r.state,
                std::to_string(r.members))
         + "\n";
}

std::string format_group_listing(const std::vector<listing_row>& rows,
                                 bool include_type, bool include_state) {
  size_t group_len = 15;
  for (auto& r : rows)
    group_len = std::max(group_len, r.group.size());
  group_len += 10;
  auto line = [&](const std::string& g, const std::string& t,
                  const std::string& s) {
    std::string out = pad(g, group_len);
    if (include_type)
      out += " " + pad(t, 20);
    if (include_state)
      out += " " + pad(s, 20);
    return out + "\n";
  };
  std::string out = line("GROUP", "TYPE", "STATE");
  for (auto& r : rows)
    out += line(r.group, r.type, r.state);
  return out;
}

std::string format_reset(
  const std::map<std::string, std::map<kafka_client::topic_partition, int64_t>>&
    plan) {
  auto line = [](const std::string& g, const std::string& t,
                 const std::string& p, const std::string& o) {
    return "\n" + pad(g, 30) + " " + pad(t, 30) + " " + pad(p, 10) + " "
           + pad(o, 15);
  };
  std::string out;
  if (!plan.empty())
    out += line("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET");
  for (auto& [group, offsets] : plan)
    for (auto& [tp, offset] : offsets)
      out += line(group, tp.topic, std::to_string(tp.partition),
                  std::to_string(offset));
  return out + "\n";
}

std::string format_delete_offsets(
  const std::map<kafka_client::topic_partition, std::optional<std::string>>&
    results) {
  auto line = [](const std::string& t, const std::string& p,
                 const std::string& s) {
    return "\n" + pad(t, 30) + " " + pad(p, 15) + " " + pad(s, 15);
  };
  std::string out = line("TOPIC", "PARTITION", "STATUS");
  for (auto& [tp, error] : results)
    out += line(tp.topic,
                tp.partition >= 0 ? std::to_string(tp.partition)
                                  : std::string{"Not Provided"},
                error ? "Error: :" + *error : std::string{"Successful"});
  return out + "\n";
}

std::string join_ints(const std::vector<int32_t>& xs) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? "," : "") + std::to_string(xs[i]);
  return out;
}

std::string format_topic_line(const std::string& topic,
                              const std::string& topic_id, size_t partitions,
                              size_t replication_factor,
                              const std::string& configs) {
  std::string out = "Topic: " + topic;
  if (!topic_id.empty())
    out += "\tTopicId: " + topic_id;
  out += "\tPartitionCount: " + std::to_string(partitions);
  out += "\tReplicationFactor: " + std::to_string(replication_factor);
  out += "\tConfigs: " + configs;
  return out + "\n";
}

std::string format_partition_line(const std::string& topic,
                                  const wire::metadata_partition& p) {
  std::string out = "\tTopic: " + topic;
  out += "\tPartition: " + std::to_string(p.partition_index);
  out += "\tLeader: "
         + (p.leader_id >= 0 ? std::to_string(p.leader_id)
                             : std::string{"none"});
  out += "\tReplicas: " + join_ints(p.replica_nodes);
  out += "\tIsr: " + join_ints(p.isr_nodes);
  out += "\tElr: N/A\tLastKnownElr: N/A";
  return out + "\n";
}

std::string config_source_name(int8_t source) {
  switch (source) {
    case 1:
      return "DYNAMIC_TOPIC_CONFIG";
    case 2:
      return "DYNAMIC_BROKER_CONFIG";
    case 3:
      return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case 4:
      return "STATIC_BROKER_CONFIG";
    case 5:
      return "DEFAULT_CONFIG";
    case 6:
      return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case 7:
      return "DYNAMIC_CLIENT_METRICS_CONFIG";
    case 8:
      return "DYNAMIC_GROUP_CONFIG";
    default:
      return "UNKNOWN";
  }
}

std::string
format_config_entry(const wire::describe_configs_resource_result& e) {
  std::string synonyms;
  for (size_t i = 0; i < e.synonyms.size(); ++i) {
    auto& s = e.synonyms[i];
    synonyms += (i ? ", " : "") + config_source_name(s.source) + ":" + s.name
                + "=" + s.value.value_or("null");
  }
  return "  " + e.name + "=" + e.value.value_or("null")
         + " sensitive=" + (e.is_sensitive ? "true" : "false") + " synonyms={"
         + synonyms + "}\n";
}

} // namespace troupe::tools
