// REST Proxy v2's topics, partitions and brokers resources
// (kafka-rest TopicsResource, PartitionsResource, BrokersResource): the
// controller's metadata, answered as application/vnd.kafka.v2+json. A
// topic's "configs" are every config DescribeConfigs lists for it with its
// value (kafka-rest's GetTopicResponse.fromTopic over its topic configs):
// the topic's overrides and, for the rest, the broker's settings.

#include <algorithm>

#include "gateway.pb.h"
#include "gateway/kafka/kafka_configs.hpp"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/routes.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

constexpr std::string_view offsets_topic = "__consumer_offsets";

pb::PartitionInfo partition_info(const partition_metadata& p) {
  pb::PartitionInfo out;
  out.set_partition(p.partition);
  out.set_leader(p.leader);
  for (auto r : p.replicas) {
    auto* ri = out.add_replicas();
    ri->set_broker(r);
    ri->set_leader(r == p.leader);
    ri->set_in_sync(std::count(p.isr.begin(), p.isr.end(), r) > 0);
  }
  return out;
}

/// The topic's metadata, or the answer for a missing topic or a failure.
void with_topic(const call& c, std::string type,
                std::function<void(const topic_metadata&)> k) {
  if (!c.allow_topics(security::acl_operation::describe, {c.param(0)}))
    return;
  with_metadata(
    c, {c.param(0)}, false, [c, type, k](caf::expected<metadata_response> md) {
      if (!md)
        return c.reply(ask_failed(md.error(), "metadata"));
      if (md->topics.empty() || md->topics[0].error != error_code::none)
        return c.reply(v2::topic_not_found());
      k(md->topics[0]);
    });
}

/// The partition named by the route's second parameter, or nullptr.
const partition_metadata* find_partition(const call& c,
                                         const topic_metadata& t) {
  int64_t id = -1;
  if (!parse_int(c.param(1), id))
    return nullptr;
  for (auto& p : t.partition_states)
    if (p.partition == id)
      return &p;
  return nullptr;
}

} // namespace

void list_topics(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_metadata(c, {}, false, [c, type](caf::expected<metadata_response> md) {
    if (!md)
      return c.reply(ask_failed(md.error(), "metadata"));
    std::vector<std::string> names;
    // Kafka's AdminClient.listTopics leaves internal topics out; Metadata
    // hides the topics the caller may not DESCRIBE.
    for (auto& t : md->topics)
      if (t.name != offsets_topic
          && c.may(security::acl_operation::describe,
                   security::resource_type::topic, t.name))
        names.push_back(t.name);
    std::sort(names.begin(), names.end());
    std::string out = "[";
    for (auto& n : names) {
      if (out.size() > 1)
        out += ',';
      out += json_quote(n);
    }
    c.reply(json_response(out + "]", *type));
  });
}

void get_topic(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_topic(c, *type, [c, type](const topic_metadata& t) {
    pb::TopicInfo info;
    info.set_name(t.name);
    auto& configs = *info.mutable_configs();
    for (auto& e : topic_config_entries(c.svc().cluster, t.name, t.configs))
      configs[e.name] = e.value;
    for (auto& p : t.partition_states)
      *info.add_partitions() = partition_info(p);
    c.reply(json_response(to_json(info), *type));
  });
}

void list_topic_partitions(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_topic(c, *type, [c, type](const topic_metadata& t) {
    std::vector<pb::PartitionInfo> out;
    for (auto& p : t.partition_states)
      out.push_back(partition_info(p));
    c.reply(json_response(to_json_array(out), *type));
  });
}

void get_partition(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_topic(c, *type, [c, type](const topic_metadata& t) {
    auto* p = find_partition(c, t);
    if (!p)
      return c.reply(v2::partition_not_found());
    c.reply(json_response(to_json(partition_info(*p)), *type));
  });
}

void get_partition_offsets(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_topic(c, *type, [c, type](const topic_metadata& t) {
    auto* p = find_partition(c, t);
    if (!p)
      return c.reply(v2::partition_not_found());
    auto leader = c.cluster().broker(p->leader);
    topic_partition tp{t.name, p->partition};
    // ListOffsets: -2 the log start, -1 the latest (the high watermark).
    std::vector<std::pair<broker_actor, list_offsets_request>> reqs = {
      {leader, {tp, -2}}, {leader, {tp, -1}}};
    c.ask_all<list_offsets_response>(
      std::move(reqs),
      [c, type](std::vector<caf::expected<list_offsets_response>> rs) {
        for (auto& r : rs) {
          if (!r)
            return c.reply(ask_failed(r.error(), "ListOffsets"));
          if (r->error != error_code::none)
            return c.reply(v2::kafka(r->error, "ListOffsets failed"));
        }
        c.reply(json_response(
          "{\"beginning_offset\":" + std::to_string(rs[0]->offset)
            + ",\"end_offset\":" + std::to_string(rs[1]->offset) + "}",
          *type));
      });
  });
}

void list_broker_ids(const call& c) {
  auto type = answer_type(c);
  if (!type)
    return;
  with_brokers(c, [c, type = *type] {
    // Kafka lists the brokers that are registered, i.e. alive.
    std::string out = "{\"brokers\":[";
    bool first = true;
    for (auto& b : c.cluster().brokers()) {
      if (!c.cluster().alive(b.node_id))
        continue;
      if (!first)
        out += ',';
      first = false;
      out += std::to_string(b.node_id);
    }
    c.reply(json_response(out + "]}", type));
  });
}

} // namespace troupe::rest
