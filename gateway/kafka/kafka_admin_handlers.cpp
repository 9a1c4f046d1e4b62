// The admin client's APIs through the Kafka listener: CreateTopics,
// DeleteTopics, DescribeConfigs, AlterConfigs, IncrementalAlterConfigs and
// DescribeCluster, every version the codec speaks (docs/ARCHITECTURE.md §5).

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "domain/broker_config.hpp"
#include "domain/topic_name.hpp"
#include "gateway/kafka/kafka_authorization.hpp"
#include "gateway/kafka/kafka_configs.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

namespace {

using kafka_auth::acl_operation;
using kafka_auth::request_authorizer;
using kafka_auth::resource_type;

request_authorizer authorizer_of(kafka_session_ptr self) {
  return {self->state.ctx.security, self->state.identity};
}

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

/// A created topic's configs as CreateTopics v5+ lists them (KIP-525):
/// every config with its value and source, as DescribeConfigs would.
std::vector<wire::creatable_topic_configs>
created_configs(const cluster_config& c, const std::string& topic,
                const topic_configs& overrides) {
  std::vector<wire::creatable_topic_configs> out;
  for (auto& e : topic_config_entries(c, topic, overrides))
    out.push_back(
      {e.name, e.value, e.read_only, static_cast<int8_t>(e.source), false});
  return out;
}

/// What troupe refuses before asking the controller: explicit replica
/// assignments (troupe assigns replicas itself, as Kafka's rack-unaware
/// AdminUtils) and null config values (ZkAdminManager.createTopics); the
/// controller validates the configs themselves (LogConfig.validate).
std::optional<std::pair<error_code, std::string>>
refusal(const wire::creatable_topic& t) {
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
  std::string nulls;
  for (auto& given : t.configs)
    if (!given.value)
      nulls += (nulls.empty() ? "" : ",") + given.name;
  if (!nulls.empty())
    return std::pair{error_code::invalid_config,
                     "Null value not supported for topic configs: " + nulls};
  return std::nullopt;
}

topic_configs configs_of(const wire::creatable_topic& t) {
  topic_configs out;
  for (auto& given : t.configs)
    out[given.name] = given.value.value_or("");
  return out;
}

} // namespace

// -- CreateTopics (19) ----------------------------------------------------------

void serve_create_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::create_topics_request& req,
                         kafka_reply_fn reply) {
  auto v = h.api_version;
  auto results = std::make_shared<std::vector<wire::creatable_topic_result>>();
  std::map<std::string, int> seen;
  for (auto& t : req.topics)
    ++seen[t.name];
  // The topics that pass the listener's checks, by their result's index.
  std::vector<size_t> asked;
  create_topics_request out;
  // handleCreateTopicsRequest: CREATE on the CLUSTER or on the TOPIC, else
  // TOPIC_AUTHORIZATION_FAILED; a created topic's configs are described
  // only with DESCRIBE_CONFIGS on it (else TopicConfigErrorCode).
  auto auth = authorizer_of(self);
  auto no_configs = std::make_shared<std::set<std::string>>();
  for (auto& t : req.topics)
    if (!auth.topic(acl_operation::describe_configs, t.name))
      no_configs->insert(t.name);
  for (auto& t : req.topics) {
    wire::creatable_topic_result r;
    r.name = t.name;
    if (seen[t.name] > 1) {
      r.error = error_code::invalid_request;
      r.error_message = "Create topics request contains multiple entries for "
                        "the topic "
                        + t.name + ".";
    } else if (auto e = kafka_auth::create_topic_error(auth, t.name);
               e != error_code::none) {
      r.error = e;
      r.error_message = "Authorization failed.";
    } else if (auto refused = refusal(t)) {
      r.error = refused->first;
      r.error_message = refused->second;
    } else {
      asked.push_back(results->size());
      out.topics.push_back({t.name, t.num_partitions, t.replication_factor,
                            configs_of(t), req.validate_only});
    }
    results->push_back(std::move(r));
  }
  auto send = [h, results, no_configs, reply] {
    for (auto& r : *results)
      if (r.error == error_code::none && no_configs->count(r.name) > 0) {
        r.topic_config_error = error_code::topic_authorization_failed;
        r.configs = std::vector<wire::creatable_topic_configs>{};
        r.num_partitions = -1;
        r.replication_factor = -1;
      }
    wire::create_topics_response res;
    res.topics = std::move(*results);
    reply(frame(h, res, wire::encode_create_topics_response));
  };
  if (asked.empty()) {
    send();
    return;
  }
  auto wanted = std::make_shared<std::vector<new_topic>>(out.topics);
  bool validate_only = req.validate_only;
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [self, v, results, asked, wanted, validate_only,
       send](create_topics_response& res) {
        std::vector<std::string> created;
        for (size_t j = 0; j < asked.size(); ++j) {
          auto& r = (*results)[asked[j]];
          if (j < res.topics.size()) {
            r.error = res.topics[j].error;
            r.error_message = null_if_empty(res.topics[j].message);
          } else {
            r.error = error_code::unknown_server_error;
          }
          if (r.error == error_code::none)
            created.push_back(r.name);
        }
        // v5+ answers carry the topic's partitions, replication factor and
        // configs (KIP-525), v7+ its id. validate_only: as it would be
        // created, the broker's defaults filled in.
        if (v < 5 || created.empty()) {
          send();
          return;
        }
        if (validate_only) {
          auto& c = config_of(self);
          for (size_t j = 0; j < asked.size(); ++j) {
            auto& r = (*results)[asked[j]];
            if (r.error != error_code::none)
              continue;
            auto& t = (*wanted)[j];
            r.num_partitions =
              t.num_partitions == -1 ? c.num_partitions : t.num_partitions;
            r.replication_factor =
              t.replication_factor == -1
                ? static_cast<int16_t>(c.default_replication_factor)
                : t.replication_factor;
            r.configs = created_configs(c, t.name, t.configs);
          }
          send();
          return;
        }
        self
          ->request(self->state.ctx.broker, edge_request_timeout,
                    metadata_request{created, false})
          .then(
            [self, results, send](metadata_response& md) {
              auto& c = config_of(self);
              for (auto& r : *results) {
                if (r.error != error_code::none)
                  continue;
                for (auto& t : md.topics)
                  if (t.name == r.name && t.error == error_code::none) {
                    r.topic_id = t.topic_id;
                    r.num_partitions = t.partitions;
                    if (!t.partition_states.empty())
                      r.replication_factor = static_cast<int16_t>(
                        t.partition_states.front().replicas.size());
                    r.configs = created_configs(c, t.name, t.configs);
                  }
              }
              send();
            },
            // Created, but not described: Kafka's null configs with
            // TopicConfigErrorCode.
            [results, send](caf::error&) {
              for (auto& r : *results)
                if (r.error == error_code::none) {
                  r.configs = std::nullopt;
                  r.topic_config_error = error_code::unknown_server_error;
                }
              send();
            });
      },
      [reply](caf::error&) { reply(close_reply()); });
}

// -- DeleteTopics (20) ----------------------------------------------------------

namespace {

void delete_topics(kafka_session_ptr self, const wire::request_header& h,
                   wire::delete_topics_request& req, kafka_reply_fn reply) {
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
  // handleDeleteTopicsRequest: DELETE on the topic, else
  // TOPIC_AUTHORIZATION_FAILED; a topic named by id that the principal may
  // not DESCRIBE keeps its name to itself. An id the session cannot name is
  // the controller's UNKNOWN_TOPIC_ID.
  auto auth = authorizer_of(self);
  auto& known = self->state.topic_names;
  for (auto& t : wanted) {
    deleted_topic r{t.name, t.topic_id, error_code::none, {}};
    std::string name = t.name;
    if (name.empty() && !t.topic_id.is_zero())
      if (auto i = known.find(t.topic_id); i != known.end())
        name = i->second;
    if (!t.name.empty() && names[t.name] > 1) {
      r.error = error_code::invalid_request;
      r.message = "Duplicate topic name.";
    } else if (t.name.empty() && !t.topic_id.is_zero() && ids[t.topic_id] > 1) {
      r.error = error_code::invalid_request;
      r.message = "Duplicate topic id.";
    } else if (!name.empty() && t.name.empty()
               && !auth.topic(acl_operation::describe, name)) {
      r.error = error_code::topic_authorization_failed;
    } else if (!name.empty() && !auth.topic(acl_operation::delete_, name)) {
      r.name = name;
      r.error = error_code::topic_authorization_failed;
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

} // namespace

void serve_delete_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::delete_topics_request& req,
                         kafka_reply_fn reply) {
  // v6 names topics by id: the authorizer needs their names first.
  std::vector<uuid> ids;
  if (h.api_version >= 6)
    for (auto& t : req.topics)
      if (!t.topic_id.is_zero())
        ids.push_back(t.topic_id);
  if (ids.empty() || !authorizer_of(self).enabled()) {
    delete_topics(self, h, req, std::move(reply));
    return;
  }
  with_topic_names(self, ids,
                   [self, h, req, reply = std::move(reply)]() mutable {
                     delete_topics(self, h, req, std::move(reply));
                   });
}

// -- DescribeConfigs (32) ----------------------------------------------------------

namespace {

wire::describe_configs_resource_result to_wire(const config_entry& e, int16_t v,
                                               bool synonyms, bool docs) {
  wire::describe_configs_resource_result r;
  r.name = e.name;
  r.value = e.value;
  r.read_only = e.read_only;
  r.config_source = static_cast<int8_t>(e.source);
  // v0 has IsDefault instead of the source: whether nothing sets it.
  if (v == 0)
    r.is_default = e.source == config_source::default_config;
  r.is_sensitive = false;
  // Kafka lists the synonyms by precedence: the topic's override, then the
  // broker settings that are set, then their defaults.
  if (synonyms)
    for (auto& s : e.synonyms)
      r.synonyms.push_back({s.name, s.value, static_cast<int8_t>(s.source)});
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
         int32_t broker_id, const broker_configs& dynamic, int16_t v,
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
    auto topic = std::find_if(md.topics.begin(), md.topics.end(), [&](auto& t) {
      return t.name == res.resource_name && t.error == error_code::none;
    });
    if (topic == md.topics.end()) {
      out.error = error_code::unknown_topic_or_partition;
      return out;
    }
    fill(out, topic_config_entries(c, topic->name, topic->configs), res, v,
         req);
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
    fill(out, broker_config_entries(c, broker_id, dynamic), res, v, req);
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
  // ConfigHelper.handleDescribeConfigsRequest: DESCRIBE_CONFIGS on the
  // TOPIC (TOPIC_AUTHORIZATION_FAILED) or, for brokers, on the CLUSTER
  // (CLUSTER_AUTHORIZATION_FAILED); the refused resources come after the
  // described ones, with Kafka's message of the error.
  auto auth = authorizer_of(self);
  std::vector<wire::describe_configs_result> refused;
  std::vector<wire::describe_configs_resource> allowed;
  for (auto& r : req.resources) {
    auto e = kafka_auth::config_resource_error(auth, r.resource_type,
                                               r.resource_name, false);
    if (e == error_code::none) {
      allowed.push_back(r);
      continue;
    }
    wire::describe_configs_result x;
    x.error = e;
    x.error_message = std::string{error_message(e)};
    x.resource_type = r.resource_type;
    x.resource_name = r.resource_name;
    refused.push_back(std::move(x));
  }
  req.resources = std::move(allowed);
  metadata_request md;
  for (auto& r : req.resources)
    if (r.resource_type == wire::config_resource_topic
        && validate_topic_name(r.resource_name) == error_code::none)
      md.topics.push_back(r.resource_name);
  auto answer = [self, h, req, refused, reply](const metadata_response& md,
                                               const broker_configs& dynamic) {
    wire::describe_configs_response out;
    for (auto& r : req.resources)
      out.results.push_back(describe(r, md, config_of(self),
                                     self->state.ctx.broker_id, dynamic,
                                     h.api_version, req));
    out.results.insert(out.results.end(), refused.begin(), refused.end());
    reply(frame(h, out, wire::encode_describe_configs_response));
  };
  // The topics' configs come with the metadata; the broker's dynamic
  // configs from the broker.
  auto with_dynamic = [self, answer, reply,
                       md = std::move(md)](broker_configs dynamic) mutable {
    if (md.topics.empty()) {
      answer(metadata_response{}, dynamic);
      return;
    }
    self->request(self->state.ctx.broker, edge_request_timeout, std::move(md))
      .then([answer, dynamic](metadata_response& res) { answer(res, dynamic); },
            [reply](caf::error&) { reply(close_reply()); });
  };
  bool of_broker =
    std::any_of(req.resources.begin(), req.resources.end(), [](auto& r) {
      return r.resource_type == wire::config_resource_broker;
    });
  if (!of_broker) {
    with_dynamic({});
    return;
  }
  self
    ->request(self->state.ctx.broker, edge_request_timeout,
              dynamic_broker_configs_request{})
    .then([with_dynamic](dynamic_broker_configs& d) mutable {
            with_dynamic(std::move(d.configs));
          },
          [reply](caf::error&) { reply(close_reply()); });
}

// -- AlterConfigs (33) and IncrementalAlterConfigs (44) -----------------------------

namespace {

/// One resource of either request: AlterConfigs' configs are SETs of the
/// whole new set (`incremental` false).
struct config_change {
  int8_t resource_type = 0;
  std::string resource_name;
  std::vector<config_op> ops;
};

std::string joined(const std::vector<std::string>& names,
                   std::string_view sep) {
  std::string out;
  for (auto& n : names)
    out += (out.empty() ? "" : std::string{sep}) + n;
  return out;
}

/// Kafka's ConfigAdminManager.preprocess (the broker's checks before the
/// change goes to the controller) and, for broker resources, its answer:
/// INVALID_REQUEST for a resource given twice, a config named twice, a
/// null value other than a DELETE's, an unknown operation; a broker config
/// troupe does not change at run time (Kafka's answer for a config that
/// cannot be updated dynamically). nullopt: a topic, or this broker's
/// replication quotas, to send on.
std::optional<std::pair<error_code, std::string>>
preprocess(const config_change& r, int count_of_resource, int32_t broker_id) {
  auto refuse = [](error_code e, std::string message) {
    return std::optional{std::pair{e, std::move(message)}};
  };
  if (count_of_resource > 1)
    return refuse(error_code::invalid_request,
                  "Each resource must appear at most once.");
  std::set<std::string> names;
  for (auto& op : r.ops)
    if (!names.insert(op.name).second)
      return refuse(error_code::invalid_request,
                    "Error due to duplicate config keys");
  std::vector<std::string> nulls;
  for (auto& op : r.ops)
    if (!op.value && op.op != config_op_type::remove)
      nulls.push_back(op.name);
  if (!nulls.empty())
    return refuse(error_code::invalid_request,
                  "Null value not supported for : " + joined(nulls, ", "));
  for (auto& op : r.ops) {
    auto id = static_cast<int8_t>(op.op);
    if (id < wire::config_operation_set || id > wire::config_operation_subtract)
      return refuse(error_code::invalid_request,
                    "Unknown operations type " + std::to_string(int{id}));
  }
  switch (r.resource_type) {
    case wire::config_resource_topic:
      // ZkAdminManager.alterTopicConfigs
      if (r.resource_name.empty())
        return refuse(error_code::invalid_request,
                      "Default topic resources are not allowed.");
      return std::nullopt;
    case wire::config_resource_broker: {
      // The empty name is the cluster-wide default, else this broker.
      if (!r.resource_name.empty()) {
        char* end = nullptr;
        auto id = std::strtol(r.resource_name.c_str(), &end, 10);
        if (end == r.resource_name.c_str() || *end != '\0')
          return refuse(error_code::invalid_request,
                        "Node id must be an integer, but it is: "
                          + r.resource_name);
        if (id != broker_id)
          return refuse(error_code::invalid_request,
                        "Unexpected broker id, expected "
                          + std::to_string(broker_id) + ", but received "
                          + r.resource_name);
      }
      // AlterConfigs with no configs clears a broker's dynamic set.
      if (r.ops.empty() && !r.resource_name.empty())
        return std::nullopt;
      if (r.ops.empty())
        return std::pair{error_code::none, std::string{}};
      std::vector<std::string> fixed;
      for (auto& op : r.ops)
        if (!dynamic_broker_config(op.name))
          fixed.push_back(op.name);
      // DynamicBrokerConfig.validateConfigs' words (a ConfigException that
      // the broker answers as INVALID_REQUEST, KAFKA-13609).
      if (!fixed.empty())
        return refuse(error_code::invalid_request,
                      "Cannot update these configs dynamically: Set("
                        + joined(fixed, ", ")
                        + "): troupe reads these broker configs only at "
                          "start (the properties file and --override); set "
                          "them there and restart the broker");
      if (r.resource_name.empty())
        return refuse(error_code::invalid_request,
                      "troupe keeps dynamic broker configs per broker, not "
                      "as cluster-wide defaults: set them on each broker "
                      "id");
      // The replication quotas: on to the broker (stored by its node).
      return std::nullopt;
    }
    case wire::config_resource_client_metrics:
    case wire::config_resource_group:
      return refuse(error_code::invalid_request,
                    std::string{"AlterConfigs is only supported for topics and "
                                "brokers, but resource type is "}
                      + (r.resource_type == wire::config_resource_group
                           ? "GROUP"
                           : "CLIENT_METRICS"));
    default:
      // BROKER_LOGGER too: troupe sets no log levels through Kafka's API.
      break;
  }
  return refuse(error_code::invalid_request,
                "Unknown resource type "
                  + std::to_string(static_cast<int>(r.resource_type)));
}

void alter_topic_configs(
  kafka_session_ptr self,
  std::shared_ptr<std::vector<wire::alter_configs_resource_response>> results,
  std::vector<alter_topic_configs_request> asks, std::vector<size_t> asked,
  std::function<void(std::vector<wire::alter_configs_resource_response>)>
    answer);

/// Both APIs: the listener's checks, then each topic's change to the
/// controller through the broker, answered in the request's order
/// (ConfigAdminManager.reassemble*Response).
void alter_configs(
  kafka_session_ptr self, std::vector<config_change> changes, bool incremental,
  bool validate_only,
  std::function<void(std::vector<wire::alter_configs_resource_response>)>
    answer) {
  std::map<std::pair<int8_t, std::string>, int> seen;
  for (auto& r : changes)
    ++seen[{r.resource_type, r.resource_name}];
  auto results =
    std::make_shared<std::vector<wire::alter_configs_resource_response>>();
  std::vector<alter_topic_configs_request> asks;
  std::vector<size_t> asked;
  // A broker resource names this broker (preprocess): at most one.
  std::optional<alter_broker_configs_request> broker_ask;
  size_t broker_asked = 0;
  auto auth = authorizer_of(self);
  for (auto& r : changes) {
    wire::alter_configs_resource_response out;
    out.resource_type = r.resource_type;
    out.resource_name = r.resource_name;
    auto refused = preprocess(r, seen[{r.resource_type, r.resource_name}],
                              self->state.ctx.broker_id);
    // process*AlterConfigsRequest: what passes preprocessing needs
    // ALTER_CONFIGS on the TOPIC or the CLUSTER (no message).
    if (!refused || refused->first == error_code::none)
      if (auto e = kafka_auth::config_resource_error(auth, r.resource_type,
                                                     r.resource_name, true);
          e != error_code::none)
        refused = std::pair{e, std::string{}};
    if (refused) {
      out.error = refused->first;
      if (refused->first != error_code::none && !refused->second.empty())
        out.error_message = refused->second;
    } else if (r.resource_type == wire::config_resource_broker) {
      broker_asked = results->size();
      broker_ask = alter_broker_configs_request{self->state.ctx.broker_id, r.ops,
                                                incremental, validate_only};
    } else {
      asked.push_back(results->size());
      asks.push_back({r.resource_name, r.ops, incremental, validate_only});
    }
    results->push_back(std::move(out));
  }
  if (broker_ask) {
    // The broker's own change first, then the topics'.
    auto rest = [self, results, answer, asks = std::move(asks), asked = std::move(asked)]() mutable {
      alter_topic_configs(self, results, std::move(asks), std::move(asked),
                          std::move(answer));
    };
    self
      ->request(self->state.ctx.broker, edge_request_timeout,
                std::move(*broker_ask))
      .then(
        [results, broker_asked, rest](alter_broker_configs_response& a) mutable {
          auto& r = (*results)[broker_asked];
          r.error = a.error;
          if (a.error != error_code::none)
            r.error_message = a.message.empty()
                                ? std::string{error_message(a.error)}
                                : a.message;
          rest();
        },
        [results, broker_asked, rest](caf::error&) mutable {
          auto& r = (*results)[broker_asked];
          r.error = error_code::request_timed_out;
          r.error_message = "The broker's node did not answer in time.";
          rest();
        });
    return;
  }
  alter_topic_configs(self, results, std::move(asks), std::move(asked),
                      std::move(answer));
}

/// The topics' changes of alter_configs, through the broker to the
/// controller, answered in the request's order.
void alter_topic_configs(
  kafka_session_ptr self,
  std::shared_ptr<std::vector<wire::alter_configs_resource_response>> results,
  std::vector<alter_topic_configs_request> asks, std::vector<size_t> asked,
  std::function<void(std::vector<wire::alter_configs_resource_response>)>
    answer) {
  if (asks.empty()) {
    answer(std::move(*results));
    return;
  }
  ask_broker<alter_topic_configs_response>(
    self, edge_request_timeout, std::move(asks),
    [results, asked,
     answer](std::vector<std::optional<alter_topic_configs_response>> answers) {
      for (size_t j = 0; j < asked.size(); ++j) {
        auto& r = (*results)[asked[j]];
        auto& a = answers[j];
        if (!a) {
          r.error = error_code::request_timed_out;
          r.error_message = "The controller did not answer in time.";
          continue;
        }
        r.error = a->error;
        if (a->error != error_code::none)
          r.error_message = a->message.empty()
                              ? std::string{error_message(a->error)}
                              : a->message;
      }
      answer(std::move(*results));
    });
}

} // namespace

void serve_alter_configs(kafka_session_ptr self, const wire::request_header& h,
                         wire::alter_configs_request& req,
                         kafka_reply_fn reply) {
  std::vector<config_change> changes;
  for (auto& r : req.resources) {
    config_change c{r.resource_type, r.resource_name, {}};
    for (auto& x : r.configs)
      c.ops.push_back({x.name, config_op_type::set, x.value});
    changes.push_back(std::move(c));
  }
  alter_configs(self, std::move(changes), false, req.validate_only,
                [h, reply](auto results) {
                  wire::alter_configs_response out;
                  out.responses = std::move(results);
                  reply(frame(h, out, wire::encode_alter_configs_response));
                });
}

void serve_incremental_alter_configs(
  kafka_session_ptr self, const wire::request_header& h,
  wire::incremental_alter_configs_request& req, kafka_reply_fn reply) {
  std::vector<config_change> changes;
  for (auto& r : req.resources) {
    config_change c{r.resource_type, r.resource_name, {}};
    for (auto& x : r.configs)
      c.ops.push_back(
        {x.name, static_cast<config_op_type>(x.config_operation), x.value});
    changes.push_back(std::move(c));
  }
  alter_configs(
    self, std::move(changes), true, req.validate_only,
    [h, reply](auto results) {
      wire::incremental_alter_configs_response out;
      out.responses = std::move(results);
      reply(frame(h, out, wire::encode_incremental_alter_configs_response));
    });
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
  md.include_fenced = v >= 2 && req.include_fenced_brokers;
  // computeDescribeClusterResponse: the CLUSTER's authorized operations,
  // 0 without DESCRIBE on it.
  auto auth = authorizer_of(self);
  ask_one<metadata_response>(
    self, edge_request_timeout, std::move(md), std::move(reply),
    [h, with_operations, auth,
     listener = self->state.ctx.listener_name](metadata_response& res) {
      wire::describe_cluster_response out;
      out.cluster_id = res.cluster_id;
      for (auto& b : res.brokers) {
        auto e = endpoint_for(b.listeners, b.host, b.port, listener);
        out.brokers.push_back({b.node_id, e.host, e.port, std::nullopt});
        out.brokers.back().is_fenced = b.fenced;
      }
      auto controller = controller_of(res);
      bool listed =
        std::any_of(res.brokers.begin(), res.brokers.end(), [&](auto& b) {
          return b.node_id == controller && !b.fenced;
        });
      out.controller_id = listed ? controller : -1;
      if (with_operations)
        out.cluster_authorized_operations =
          kafka_auth::cluster_operations(auth, cluster_operations);
      return frame(h, out, wire::encode_describe_cluster_response);
    });
}

// -- CreatePartitions (37) ------------------------------------------------------

void serve_create_partitions(kafka_session_ptr self,
                             const wire::request_header& h,
                             wire::create_partitions_request& req,
                             kafka_reply_fn reply) {
  // Kafka's handleCreatePartitionsRequest: a topic named twice is
  // INVALID_REQUEST, one without ALTER on it TOPIC_AUTHORIZATION_FAILED;
  // the rest go to the controller, which answers each in request order.
  auto results =
    std::make_shared<std::vector<wire::create_partitions_topic_result>>();
  std::map<std::string, int> seen;
  for (auto& t : req.topics)
    ++seen[t.name];
  auto auth = authorizer_of(self);
  std::vector<size_t> asked;
  create_partitions_request out;
  out.validate_only = req.validate_only;
  for (auto& t : req.topics) {
    wire::create_partitions_topic_result r;
    r.name = t.name;
    if (seen[t.name] > 1) {
      r.error = error_code::invalid_request;
      r.error_message = "Duplicate topic in request.";
    } else if (!auth.topic(acl_operation::alter, t.name)) {
      r.error = error_code::topic_authorization_failed;
      r.error_message = "The topic authorization is failed.";
    } else {
      asked.push_back(results->size());
      new_partitions np{t.name, t.count, {}};
      if (t.assignments)
        for (auto& a : *t.assignments)
          np.assignments.push_back(a.broker_ids);
      out.topics.push_back(std::move(np));
    }
    results->push_back(std::move(r));
  }
  auto send = [h, results, reply] {
    wire::create_partitions_response res;
    res.results = std::move(*results);
    reply(frame(h, res, wire::encode_create_partitions_response));
  };
  if (asked.empty()) {
    send();
    return;
  }
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [results, asked, send](create_partitions_response& res) {
        for (size_t j = 0; j < asked.size(); ++j) {
          auto& r = (*results)[asked[j]];
          if (j < res.results.size()) {
            r.error = res.results[j].error;
            r.error_message = null_if_empty(res.results[j].message);
          } else {
            r.error = error_code::unknown_server_error;
          }
        }
        send();
      },
      // The controller did not answer in time: Kafka's REQUEST_TIMED_OUT.
      [results, asked, send](caf::error& err) {
        for (auto j : asked) {
          (*results)[j].error = error_code::request_timed_out;
          (*results)[j].error_message = caf::to_string(err);
        }
        send();
      });
}

// -- ElectLeaders (43) ------------------------------------------------------------

void serve_elect_leaders(kafka_session_ptr self, const wire::request_header& h,
                         wire::elect_leaders_request& req,
                         kafka_reply_fn reply) {
  // Kafka's handleElectLeaders: ALTER on the CLUSTER, else every partition
  // (and, v1+, the answer) is CLUSTER_AUTHORIZATION_FAILED. A null topic
  // list asks for every partition. v0 is always PREFERRED.
  auto type = h.api_version == 0 ? int8_t{0} : req.election_type;
  auto answer = [h, reply](wire::elect_leaders_response res) {
    reply(frame(h, res, wire::encode_elect_leaders_response));
  };
  auto each = [&req](error_code e, const std::string& message) {
    wire::elect_leaders_response res;
    if (req.topic_partitions)
      for (auto& t : *req.topic_partitions) {
        wire::elect_leaders_replica_result r{t.topic, {}};
        for (auto p : t.partitions)
          r.partition_result.push_back({p, e, message});
        res.replica_election_results.push_back(std::move(r));
      }
    return res;
  };
  if (!authorizer_of(self).cluster(acl_operation::alter)) {
    auto res = each(error_code::cluster_authorization_failed,
                    "Cluster authorization failed.");
    res.error = error_code::cluster_authorization_failed;
    answer(std::move(res));
    return;
  }
  if (type != 0 && type != 1) {
    answer(each(error_code::invalid_request,
                "Unknown election type " + std::to_string(type) + "."));
    return;
  }
  elect_leaders_request out;
  out.election_type = type;
  out.all_partitions = !req.topic_partitions.has_value();
  if (req.topic_partitions)
    for (auto& t : *req.topic_partitions)
      for (auto p : t.partitions)
        out.partitions.push_back({t.topic, p});
  auto timed_out = each(error_code::request_timed_out, "");
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [answer](elect_leaders_response& res) {
        // One result per topic, its partitions in the controller's order.
        wire::elect_leaders_response out;
        out.error = res.error;
        std::map<std::string, size_t> index;
        for (auto& r : res.results) {
          auto [i, added] = index.emplace(r.partition.topic,
                                          out.replica_election_results.size());
          if (added)
            out.replica_election_results.push_back({r.partition.topic, {}});
          out.replica_election_results[i->second].partition_result.push_back(
            {r.partition.partition, r.error, null_if_empty(r.message)});
        }
        answer(std::move(out));
      },
      [answer, timed_out](caf::error& err) mutable {
        for (auto& t : timed_out.replica_election_results)
          for (auto& p : t.partition_result)
            p.error_message = caf::to_string(err);
        answer(std::move(timed_out));
      });
}

// -- AlterPartitionReassignments (45), ListPartitionReassignments (46) -------------

void serve_alter_partition_reassignments(
  kafka_session_ptr self, const wire::request_header& h,
  wire::alter_partition_reassignments_request& req, kafka_reply_fn reply) {
  // Kafka's handleAlterPartitionReassignmentsRequest: ALTER on the CLUSTER,
  // else the whole answer is CLUSTER_AUTHORIZATION_FAILED.
  auto answer = [h, reply](wire::alter_partition_reassignments_response res) {
    reply(frame(h, res, wire::encode_alter_partition_reassignments_response));
  };
  auto top_level = [answer](error_code e, std::string message) {
    wire::alter_partition_reassignments_response res;
    res.error = e;
    res.error_message = std::move(message);
    answer(std::move(res));
  };
  if (!authorizer_of(self).cluster(acl_operation::alter)) {
    top_level(error_code::cluster_authorization_failed,
              "Cluster authorization failed.");
    return;
  }
  alter_partition_reassignments_request out;
  out.timeout_ms = req.timeout_ms;
  for (auto& t : req.topics)
    for (auto& p : t.partitions)
      out.partitions.push_back(
        {{t.name, p.partition_index}, !p.replicas.has_value(),
         p.replicas ? *p.replicas : std::vector<int32_t>{}});
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [answer](alter_partition_reassignments_response& res) {
        wire::alter_partition_reassignments_response out;
        out.error = res.error;
        out.error_message = null_if_empty(res.message);
        std::map<std::string, size_t> index;
        for (auto& r : res.results) {
          auto [i, added] =
            index.emplace(r.partition.topic, out.responses.size());
          if (added)
            out.responses.push_back({r.partition.topic, {}});
          out.responses[i->second].partitions.push_back(
            {r.partition.partition, r.error, null_if_empty(r.message)});
        }
        answer(std::move(out));
      },
      [top_level](caf::error& err) {
        top_level(error_code::request_timed_out, caf::to_string(err));
      });
}

void serve_list_partition_reassignments(
  kafka_session_ptr self, const wire::request_header& h,
  wire::list_partition_reassignments_request& req, kafka_reply_fn reply) {
  // Kafka's handleListPartitionReassignmentsRequest: DESCRIBE on the
  // CLUSTER. Null topics list every ongoing reassignment; partitions named
  // that do not move are left out.
  auto answer = [h, reply](wire::list_partition_reassignments_response res) {
    reply(frame(h, res, wire::encode_list_partition_reassignments_response));
  };
  auto top_level = [answer](error_code e, std::string message) {
    wire::list_partition_reassignments_response res;
    res.error = e;
    res.error_message = std::move(message);
    answer(std::move(res));
  };
  if (!authorizer_of(self).cluster(acl_operation::describe)) {
    top_level(error_code::cluster_authorization_failed,
              "Cluster authorization failed.");
    return;
  }
  list_partition_reassignments_request out;
  out.timeout_ms = req.timeout_ms;
  out.all_partitions = !req.topics.has_value();
  if (req.topics)
    for (auto& t : *req.topics)
      for (auto p : t.partition_indexes)
        out.partitions.push_back({t.name, p});
  self->request(self->state.ctx.broker, edge_request_timeout, std::move(out))
    .then(
      [answer](list_partition_reassignments_response& res) {
        wire::list_partition_reassignments_response out;
        out.error = res.error;
        out.error_message = null_if_empty(res.message);
        std::map<std::string, size_t> index;
        for (auto& r : res.partitions) {
          auto [i, added] = index.emplace(r.partition.topic, out.topics.size());
          if (added)
            out.topics.push_back({r.partition.topic, {}});
          out.topics[i->second].partitions.push_back(
            {r.partition.partition, r.replicas, r.adding, r.removing});
        }
        answer(std::move(out));
      },
      [top_level](caf::error& err) {
        top_level(error_code::request_timed_out, caf::to_string(err));
      });
}

} // namespace troupe::kafka_handlers
