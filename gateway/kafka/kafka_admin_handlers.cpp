// The admin client's APIs through the Kafka listener: CreateTopics,
// DeleteTopics, DescribeConfigs and DescribeCluster, every version the
// codec speaks (docs/ARCHITECTURE.md §5).

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "domain/topic_name.hpp"
#include "gateway/kafka/kafka_configs.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

namespace {

const cluster_config& config_of(kafka_session_ptr self) {
  static const cluster_config defaults;
  auto& c = self->state.ctx.config;
  return c ? *c : defaults;
}

/// The broker that clients send controller requests to (as Metadata says).
int32_t controller_of(const metadata_response& res) {
  if (res.controller_id >= 0)
    return res.controller_id;
  return res.brokers.empty() ? -1 : res.brokers.front().node_id;
}

std::vector<wire::creatable_topic_configs>
created_configs(const cluster_config& c) {
  std::vector<wire::creatable_topic_configs> out;
  for (auto& e : topic_config_entries(c))
    out.push_back({e.name, e.value, true, static_cast<int8_t>(e.source),
                   false});
  return out;
}

/// What troupe refuses before asking the controller: explicit replica
/// assignments (troupe assigns replicas itself, as Kafka's rack-unaware
/// AdminUtils) and per-topic configs other than the broker's values.
std::optional<std::pair<error_code, std::string>>
refusal(const wire::creatable_topic& t, const cluster_config& c) {
  if (!t.assignments.empty()) {
    // ReplicationControlManager.createTopic's order of checks.
    if (t.num_partitions != -1 || t.replication_factor != -1)
      return std::pair{error_code::invalid_request,
                       std::string{"A manual partition assignment was "
                                   "specified, but numPartitions or "
                                   "replicationFactor was not set to -1."}};
    return std::pair{error_code::invalid_replica_assignment,
                     std::string{"troupe assigns replicas itself; explicit "
                                 "replica assignments are not supported."}};
  }
  auto configs = topic_config_entries(c);
  for (auto& given : t.configs) {
    auto i = std::find_if(configs.begin(), configs.end(),
                          [&](auto& e) { return e.name == given.name; });
    if (i == configs.end())
      return std::pair{error_code::invalid_config,
                       "Unknown topic config name: " + given.name};
    if (!given.value || *given.value != i->value)
      return std::pair{error_code::invalid_config,
                       "troupe has no per-topic configs: " + given.name
                         + " is " + i->value + " for every topic."};
  }
  return std::nullopt;
}

/// Kafka's answers to a topic it would create, without creating it
/// (validate_only): ReplicationControlManager's checks.
wire::creatable_topic_result validate(const wire::creatable_topic& t,
                                      const metadata_response& md,
                                      const cluster_config& c) {
  wire::creatable_topic_result r;
  r.name = t.name;
  auto existing = std::find_if(md.topics.begin(), md.topics.end(),
                               [&](auto& x) { return x.name == t.name; });
  auto partitions = t.num_partitions == -1 ? c.num_partitions
                                           : t.num_partitions;
  int32_t rf = t.replication_factor == -1 ? c.default_replication_factor
                                          : t.replication_factor;
  auto live = static_cast<int32_t>(md.brokers.size());
  if (auto e = validate_topic_name(t.name); e != error_code::none) {
    r.error = e;
    r.error_message = "Topic name is illegal: " + t.name;
  } else if (existing != md.topics.end()
             && existing->error == error_code::none) {
    r.error = error_code::topic_already_exists;
    r.error_message = "Topic '" + t.name + "' already exists.";
  } else if (partitions < 1 || partitions > 1000000) {
    r.error = error_code::invalid_partitions;
    r.error_message = "Number of partitions was set to an invalid non-positive "
                      "value.";
  } else if (rf < 1) {
    r.error = error_code::invalid_replication_factor;
    r.error_message = "Replication factor must be larger than 0.";
  } else if (rf > live) {
    r.error = error_code::invalid_replication_factor;
    r.error_message = "Unable to replicate the partition " + std::to_string(rf)
                      + " time(s): The target replication factor of "
                      + std::to_string(rf)
                      + " cannot be reached because only "
                      + std::to_string(live) + " broker(s) are registered.";
  } else {
    r.num_partitions = partitions;
    r.replication_factor = static_cast<int16_t>(rf);
    r.configs = created_configs(c);
  }
  return r;
}

} // namespace

// -- CreateTopics (19) ----------------------------------------------------------

void serve_create_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::create_topics_request& req,
                         kafka_reply_fn reply) {
  auto v = h.api_version;
  auto& c = config_of(self);
  auto results = std::make_shared<std::vector<wire::creatable_topic_result>>();
  std::map<std::string, int> seen;
  for (auto& t : req.topics)
    ++seen[t.name];
  // The topics that pass the listener's checks, by their result's index.
  std::vector<size_t> asked;
  for (auto& t : req.topics) {
    wire::creatable_topic_result r;
    r.name = t.name;
    if (seen[t.name] > 1) {
      r.error = error_code::invalid_request;
      r.error_message = "Create topics request contains multiple entries for "
                        "the topic "
                        + t.name + ".";
    } else if (auto refused = refusal(t, c)) {
      r.error = refused->first;
      r.error_message = refused->second;
    } else {
      asked.push_back(results->size());
    }
    results->push_back(std::move(r));
  }
  // v5+ answers carry the created topic's partitions, replication factor
  // and configs, v7+ its id: one Metadata request after the creation (or,
  // for validate_only, before).
  auto finish = [self, h, v, results,
                 reply](const std::optional<metadata_response>& md) {
    auto& c = config_of(self);
    for (auto& r : *results) {
      if (r.error != error_code::none || v < 5)
        continue;
      if (!md)
        continue;
      for (auto& t : md->topics)
        if (t.name == r.name && t.error == error_code::none) {
          r.topic_id = t.topic_id;
          r.num_partitions = t.partitions;
          if (!t.partition_states.empty())
            r.replication_factor = static_cast<int16_t>(
              t.partition_states.front().replicas.size());
          r.configs = created_configs(c);
        }
    }
    wire::create_topics_response out;
    out.topics = std::move(*results);
    reply(frame(h, out, wire::encode_create_topics_response));
  };
  std::vector<std::string> names;
  for (auto i : asked)
    names.push_back((*results)[i].name);
  if (names.empty()) {
    finish(std::nullopt);
    return;
  }
  auto describe = [self, names, finish](auto then) {
    self
      ->request(self->state.ctx.broker, edge_request_timeout,
                metadata_request{names, false})
      .then([then](metadata_response& md) mutable { then(md); },
            [finish](caf::error&) { finish(std::nullopt); });
  };
  if (req.validate_only) {
    auto topics = std::make_shared<std::vector<wire::creatable_topic>>();
    for (auto i : asked)
      topics->push_back(req.topics[i]);
    describe([self, h, results, asked, topics, reply,
              v](metadata_response& md) {
      auto& c = config_of(self);
      for (size_t j = 0; j < asked.size(); ++j) {
        auto r = validate((*topics)[j], md, c);
        if (v < 5) {
          r.configs = std::vector<wire::creatable_topic_configs>{};
          r.num_partitions = -1;
          r.replication_factor = -1;
        }
        (*results)[asked[j]] = std::move(r);
      }
      wire::create_topics_response out;
      out.topics = std::move(*results);
      reply(frame(h, out, wire::encode_create_topics_response));
    });
    return;
  }
  create_topics_request out;
  for (auto i : asked) {
    auto& t = req.topics[i];
    out.topics.push_back({t.name, t.num_partitions, t.replication_factor});
  }
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [results, asked, describe, finish](create_topics_response& res) {
        for (size_t j = 0; j < asked.size() && j < res.topics.size(); ++j) {
          auto& r = (*results)[asked[j]];
          r.error = res.topics[j].error;
          r.error_message = null_if_empty(res.topics[j].message);
        }
        describe([finish](metadata_response& md) { finish(md); });
      },
      [reply](caf::error&) { reply(close_reply()); });
}

// -- DeleteTopics (20) ----------------------------------------------------------

void serve_delete_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::delete_topics_request& req,
                         kafka_reply_fn reply) {
  auto v = h.api_version;
  std::vector<topic_to_delete> wanted;
  if (v >= 6) {
    for (auto& t : req.topics)
      wanted.push_back({or_empty(t.name), t.topic_id});
  } else {
    for (auto& name : req.topic_names)
      wanted.push_back({name, {}});
  }
  // ControllerApis.deleteTopics: a name or an id given twice is refused.
  std::map<std::string, int> names;
  std::map<uuid, int> ids;
  for (auto& t : wanted) {
    if (!t.name.empty())
      ++names[t.name];
    else if (!t.topic_id.is_zero())
      ++ids[t.topic_id];
  }
  auto results = std::make_shared<std::vector<deleted_topic>>();
  delete_topics_request out;
  std::vector<size_t> asked;
  for (auto& t : wanted) {
    deleted_topic r{t.name, t.topic_id, error_code::none, {}};
    if (!t.name.empty() && names[t.name] > 1) {
      r.error = error_code::invalid_request;
      r.message = "Duplicate topic name.";
    } else if (t.name.empty() && !t.topic_id.is_zero() && ids[t.topic_id] > 1) {
      r.error = error_code::invalid_request;
      r.message = "Duplicate topic id.";
    } else {
      asked.push_back(results->size());
      out.topics.push_back(t);
    }
    results->push_back(std::move(r));
  }
  std::vector<delete_topics_request> one{std::move(out)};
  ask_broker<delete_topics_response>(
    self, edge_request_timeout, std::move(one),
    [h, v, results, asked, reply](
      std::vector<std::optional<delete_topics_response>> answers) {
      auto& answer = answers.front();
      for (size_t j = 0; j < asked.size(); ++j) {
        auto& r = (*results)[asked[j]];
        if (answer && j < answer->topics.size()) {
          r = answer->topics[j];
        } else {
          r.error = error_code::unknown_server_error;
          r.message = "The controller does not delete topics.";
        }
      }
      wire::delete_topics_response res;
      for (auto& r : *results) {
        wire::deletable_topic_result d;
        // v6 names an unknown id's topic null; before, names are required.
        d.name = v >= 6 ? null_if_empty(r.name) : std::optional{r.name};
        d.topic_id = r.topic_id;
        d.error = r.error;
        if (r.error != error_code::none)
          d.error_message = r.message.empty()
                              ? std::string{error_message(r.error)}
                              : r.message;
        res.responses.push_back(std::move(d));
      }
      reply(frame(h, res, wire::encode_delete_topics_response));
    });
}

// -- DescribeConfigs (32) ----------------------------------------------------------

namespace {

wire::describe_configs_resource_result to_wire(const config_entry& e, int16_t v,
                                               bool synonyms, bool docs) {
  wire::describe_configs_resource_result r;
  r.name = e.name;
  r.value = e.value;
  r.read_only = true;
  r.config_source = static_cast<int8_t>(e.source);
  r.is_sensitive = false;
  if (synonyms) {
    // Kafka lists the synonyms by precedence: the broker setting, then its
    // default when it is set.
    r.synonyms.push_back(
      {e.synonym, e.value, static_cast<int8_t>(e.source)});
  }
  r.config_type = static_cast<int8_t>(e.type);
  if (docs && v >= 3)
    r.documentation = null_if_empty(e.documentation);
  return r;
}

void fill(wire::describe_configs_result& out, std::vector<config_entry> entries,
          const wire::describe_configs_resource& res, int16_t v,
          const wire::describe_configs_request& req) {
  auto& keys = res.configuration_keys;
  for (auto& e : entries) {
    if (keys && !keys->empty()
        && std::find(keys->begin(), keys->end(), e.name) == keys->end())
      continue;
    out.configs.push_back(
      to_wire(e, v, req.include_synonyms, req.include_documentation));
  }
}

/// Kafka's ConfigHelper.describeConfigs for one resource.
wire::describe_configs_result
describe(const wire::describe_configs_resource& res,
         const metadata_response& md, const cluster_config& c,
         int32_t broker_id, int16_t v,
         const wire::describe_configs_request& req) {
  wire::describe_configs_result out;
  out.resource_type = res.resource_type;
  out.resource_name = res.resource_name;
  auto refuse = [&](error_code e, std::string message) {
    out.error = e;
    out.error_message = std::move(message);
    return out;
  };
  if (res.resource_type == wire::config_resource_topic) {
    if (auto e = validate_topic_name(res.resource_name); e != error_code::none)
      return refuse(e, "Topic name is illegal: " + res.resource_name);
    bool exists = std::any_of(md.topics.begin(), md.topics.end(), [&](auto& t) {
      return t.name == res.resource_name && t.error == error_code::none;
    });
    if (!exists) {
      out.error = error_code::unknown_topic_or_partition;
      return out;
    }
    fill(out, topic_config_entries(c), res, v, req);
    return out;
  }
  if (res.resource_type == wire::config_resource_broker) {
    // The empty name is the cluster-wide dynamic defaults: troupe has none.
    if (res.resource_name.empty())
      return out;
    char* end = nullptr;
    auto id = std::strtol(res.resource_name.c_str(), &end, 10);
    if (end == res.resource_name.c_str() || *end != '\0')
      return refuse(error_code::invalid_request,
                    "Broker id must be an integer, but it is: "
                      + res.resource_name);
    if (id != broker_id)
      return refuse(error_code::invalid_request,
                    "Unexpected broker id, expected " + std::to_string(broker_id)
                      + " or empty string, but received " + res.resource_name);
    fill(out, broker_configs(c, broker_id), res, v, req);
    return out;
  }
  return refuse(error_code::invalid_request,
                "Unsupported resource type: "
                  + std::to_string(static_cast<int>(res.resource_type)));
}

} // namespace

void serve_describe_configs(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::describe_configs_request& req,
                            kafka_reply_fn reply) {
  metadata_request md;
  for (auto& r : req.resources)
    if (r.resource_type == wire::config_resource_topic
        && validate_topic_name(r.resource_name) == error_code::none)
      md.topics.push_back(r.resource_name);
  auto answer = [self, h, req, reply](const metadata_response& md) {
    wire::describe_configs_response out;
    for (auto& r : req.resources)
      out.results.push_back(describe(r, md, config_of(self),
                                     self->state.ctx.broker_id, h.api_version,
                                     req));
    reply(frame(h, out, wire::encode_describe_configs_response));
  };
  if (md.topics.empty()) {
    answer(metadata_response{});
    return;
  }
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(md))
    .then([answer](metadata_response& res) { answer(res); },
          [reply](caf::error&) { reply(close_reply()); });
}

// -- DescribeCluster (60) ------------------------------------------------------------

void serve_describe_cluster(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::describe_cluster_request& req,
                            kafka_reply_fn reply) {
  auto v = h.api_version;
  // AuthHelper.computeDescribeClusterResponse: a broker answers for
  // brokers; controllers are asked at their own endpoints (KIP-919).
  auto type = req.endpoint_type;
  if (type != wire::endpoint_type_brokers) {
    wire::describe_cluster_response out;
    bool known = type == wire::endpoint_type_controllers;
    out.error = v == 0 ? error_code::invalid_request
                : known ? error_code::mismatched_endpoint_type
                        : error_code::unsupported_endpoint_type;
    out.error_message =
      known ? std::string{"The request was sent to an endpoint of type BROKER, "
                          "but we wanted an endpoint of type CONTROLLER"}
            : "Unsupported endpoint type " + std::to_string(int{type});
    reply(frame(h, out, wire::encode_describe_cluster_response));
    return;
  }
  bool with_operations = req.include_cluster_authorized_operations;
  // Only the brokers matter: ask for no topic in particular.
  metadata_request md;
  md.topics.push_back("__consumer_offsets");
  ask_one<metadata_response>(
    self, edge_request_timeout, std::move(md), std::move(reply),
    [h, with_operations](metadata_response& res) {
      wire::describe_cluster_response out;
      out.cluster_id = res.cluster_id;
      for (auto& b : res.brokers)
        out.brokers.push_back({b.node_id, b.host, b.port, std::nullopt});
      auto controller = controller_of(res);
      bool listed = std::any_of(res.brokers.begin(), res.brokers.end(),
                                [&](auto& b) { return b.node_id == controller; });
      out.controller_id = listed ? controller : -1;
      if (with_operations)
        out.cluster_authorized_operations = cluster_operations;
      return frame(h, out, wire::encode_describe_cluster_response);
    });
}

} // namespace troupe::kafka_handlers
