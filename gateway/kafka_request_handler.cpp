#include "gateway/kafka_request_handler.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "gateway/actor_ask.hpp"
#include <spdlog/spdlog.h>

namespace k = troupe::kafka;

namespace troupe {

namespace {

using std::chrono::milliseconds;

/// The broker's own internal timeout is 30 s; the listener waits a little
/// longer so that the broker's answer, not ours, decides.
constexpr milliseconds default_timeout{35000};
constexpr milliseconds slack{5000};

kafka_reply close_reply() {
  return {kafka_reply::kind::close, {}};
}

/// Frames a response: size, header, body in the request's version.
template <class Response, class Encode>
kafka_reply frame(const k::request_header& h, const Response& res,
                  Encode encode) {
  kafka_reply out{kafka_reply::kind::frame, {}};
  k::writer w{out.frame};
  auto mark = w.begin_frame();
  k::encode_response_header(w, k::response_header{h.correlation_id}, h.api_key,
                            h.api_version);
  if (!encode(w, res, h.api_version) || !w.end_frame(mark) || !w.ok()) {
    spdlog::warn("kafka: cannot encode the {} v{} response: {}",
                 k::api_name(h.api_key), h.api_version, w.error());
    return close_reply();
  }
  return out;
}

/// Sends `requests` to the broker all at once; `finish` gets every answer
/// (nullopt for a failed one) once the last has arrived.
template <class Response, class Request, class Finish>
void ask_broker(caf::actor_system& sys, const broker_actor& broker,
                milliseconds timeout, std::vector<Request> requests,
                Finish finish) {
  std::vector<std::pair<broker_actor, Request>> to_broker;
  to_broker.reserve(requests.size());
  for (auto& r : requests)
    to_broker.emplace_back(broker, std::move(r));
  request_all<Response>(sys, std::move(to_broker), std::move(finish), timeout);
}

/// One request, one answer; a failed request closes the connection.
template <class Response, class Request, class Answer>
void ask_one(caf::actor_system& sys, const broker_actor& broker,
             milliseconds timeout, Request request, kafka_reply_fn reply,
             Answer answer) {
  std::vector<Request> requests;
  requests.push_back(std::move(request));
  ask_broker<Response>(sys, broker, timeout, std::move(requests),
                       [reply = std::move(reply), answer = std::move(answer)](
                         std::vector<std::optional<Response>> results) mutable {
                         reply(results[0] ? answer(*results[0])
                                          : close_reply());
                       });
}

std::string group_of(const std::optional<std::string>& x) {
  return x ? *x : std::string{};
}

// -- per-API handlers -----------------------------------------------------------

struct handler {
  caf::actor_system& sys;
  const kafka_request_context& ctx;
  const k::request_header& header;
  kafka_reply_fn reply;

  void operator()(k::api_versions_request& req) {
    auto answer = k::answer_api_versions(req, header.api_version,
                                         kafka_listener_versions());
    auto h = header;
    h.api_version = answer.version;
    reply(frame(h, answer.response, k::encode_api_versions_response));
  }

  void operator()(k::metadata_request& req) {
    metadata_request out;
    // Kafka v1+: null is every topic, an empty array no topic at all.
    bool none = req.topics && req.topics->empty();
    // v10+ may name topics by id only (name null): those are looked up in
    // the answer for every topic.
    std::vector<uuid> by_id;
    if (req.topics)
      for (auto& t : *req.topics) {
        if (t.name)
          out.topics.push_back(*t.name);
        else
          by_id.push_back(t.topic_id);
      }
    if (!by_id.empty())
      out.topics.clear();
    out.allow_auto_topic_creation =
      ctx.auto_create_topics && req.allow_auto_topic_creation && by_id.empty();
    ask_one<metadata_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header, none, by_id, names = req.topics](metadata_response& res) {
        k::metadata_response out;
        for (auto& b : res.brokers)
          out.brokers.push_back({b.node_id, b.host, b.port, std::nullopt});
        out.controller_id = res.controller_id;
        auto wanted = [&](const topic_metadata& t) {
          if (by_id.empty())
            return true;
          if (std::find(by_id.begin(), by_id.end(), t.topic_id) != by_id.end())
            return true;
          for (auto& n : *names)
            if (n.name == t.name)
              return true;
          return false;
        };
        if (!none)
          for (auto& t : res.topics) {
            if (!wanted(t))
              continue;
            k::metadata_topic topic;
            topic.error = t.error;
            topic.name = t.name;
            topic.topic_id = t.topic_id; // v10+
            topic.is_internal = t.name == "__consumer_offsets";
            for (auto& p : t.partition_states) {
              k::metadata_partition part;
              part.error = p.leader < 0 ? error_code::leader_not_available
                                        : error_code::none;
              part.partition_index = p.partition;
              part.leader_id = p.leader;
              part.leader_epoch = p.leader_epoch; // v7+
              part.replica_nodes = p.replicas;
              part.isr_nodes = p.isr;
              topic.partitions.push_back(std::move(part));
            }
            out.topics.push_back(std::move(topic));
          }
        // Kafka's KafkaApis.handleTopicMetadataRequest: an id the cluster
        // does not know is UNKNOWN_TOPIC_ID, with a null name.
        for (auto& id : by_id) {
          bool known = false;
          for (auto& t : out.topics)
            known = known || t.topic_id == id;
          if (!known) {
            k::metadata_topic topic;
            topic.error = error_code::unknown_topic_id;
            topic.name = std::nullopt;
            topic.topic_id = id;
            out.topics.push_back(std::move(topic));
          }
        }
        return frame(h, out, k::encode_metadata_response);
      });
  }

  void operator()(k::produce_request& req) {
    std::vector<produce_request> parts;
    k::produce_response shape;
    for (auto& t : req.topics) {
      k::produce_topic_response tr;
      tr.name = t.name;
      for (auto& p : t.partitions) {
        parts.push_back(
          {{t.name, p.index}, req.acks, req.timeout_ms, std::move(p.records)});
        k::produce_partition_response pr;
        pr.index = p.index;
        tr.partitions.push_back(pr);
      }
      shape.responses.push_back(std::move(tr));
    }
    auto acks = req.acks;
    auto timeout = milliseconds{std::max(req.timeout_ms, 0)} + default_timeout;
    ask_broker<produce_response>(
      sys, ctx.broker, timeout, std::move(parts),
      [h = header, acks, shape = std::move(shape), reply = std::move(reply)](
        std::vector<std::optional<produce_response>> results) mutable {
        if (acks == 0) {
          reply({kafka_reply::kind::none, {}});
          return;
        }
        size_t i = 0;
        for (auto& t : shape.responses)
          for (auto& p : t.partitions) {
            auto& r = results[i++];
            p.error = r ? r->error : error_code::request_timed_out;
            p.base_offset = r ? r->base_offset : -1;
          }
        reply(frame(h, shape, k::encode_produce_response));
      });
  }

  void operator()(k::fetch_request& req) {
    std::vector<fetch_request> parts;
    k::fetch_response shape;
    for (auto& t : req.topics) {
      k::fetch_topic_response tr;
      tr.topic = t.topic;
      for (auto& p : t.partitions) {
        fetch_request f;
        f.partition = {t.topic, p.partition};
        f.replica_id = -1;
        f.offset = p.fetch_offset;
        f.max_bytes = p.partition_max_bytes;
        f.max_wait_ms = req.max_wait_ms;
        f.min_bytes = req.min_bytes;
        parts.push_back(std::move(f));
        k::fetch_partition_response pr;
        pr.partition_index = p.partition;
        tr.partitions.push_back(std::move(pr));
      }
      shape.responses.push_back(std::move(tr));
    }
    auto timeout = milliseconds{std::max(req.max_wait_ms, 0)} + default_timeout;
    ask_broker<fetch_response>(
      sys, ctx.broker, timeout, std::move(parts),
      [h = header, shape = std::move(shape), reply = std::move(reply)](
        std::vector<std::optional<fetch_response>> results) mutable {
        size_t i = 0;
        for (auto& t : shape.responses)
          for (auto& p : t.partitions) {
            auto& r = results[i++];
            if (!r) {
              p.error = error_code::request_timed_out;
              continue;
            }
            p.error = r->error;
            p.high_watermark = r->high_watermark;
            p.last_stable_offset = r->high_watermark;
            p.records = std::move(r->records);
          }
        reply(frame(h, shape, k::encode_fetch_response));
      });
  }

  void operator()(k::list_offsets_request& req) {
    std::vector<list_offsets_request> parts;
    k::list_offsets_response shape;
    for (auto& t : req.topics) {
      k::list_offsets_topic_response tr;
      tr.name = t.name;
      for (auto& p : t.partitions) {
        parts.push_back({{t.name, p.partition_index}, p.timestamp});
        k::list_offsets_partition_response pr;
        pr.partition_index = p.partition_index;
        tr.partitions.push_back(pr);
      }
      shape.topics.push_back(std::move(tr));
    }
    ask_broker<list_offsets_response>(
      sys, ctx.broker, default_timeout, std::move(parts),
      [h = header, shape = std::move(shape), reply = std::move(reply)](
        std::vector<std::optional<list_offsets_response>> results) mutable {
        size_t i = 0;
        for (auto& t : shape.topics)
          for (auto& p : t.partitions) {
            auto& r = results[i++];
            p.error = r ? r->error : error_code::request_timed_out;
            p.timestamp = r ? r->timestamp : -1;
            p.offset = r ? r->offset : -1;
          }
        reply(frame(h, shape, k::encode_list_offsets_response));
      });
  }

  void operator()(k::offset_commit_request& req) {
    offset_commit_request out;
    out.group_id = req.group_id;
    out.generation_id = req.generation_id;
    out.member_id = req.member_id;
    for (auto& t : req.topics)
      for (auto& p : t.partitions)
        out.partitions.push_back({t.name, p.partition_index, p.committed_offset,
                                  -1, group_of(p.committed_metadata)});
    ask_one<offset_commit_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header](offset_commit_response& res) {
        k::offset_commit_response out;
        for (auto& p : res.partitions) {
          if (out.topics.empty() || out.topics.back().name != p.topic)
            out.topics.push_back({p.topic, {}});
          out.topics.back().partitions.push_back({p.partition, p.error});
        }
        return frame(h, out, k::encode_offset_commit_response);
      });
  }

  void operator()(k::offset_fetch_request& req) {
    offset_fetch_request out;
    out.group_id = req.group_id;
    if (req.topics)
      for (auto& t : *req.topics)
        for (auto p : t.partition_indexes)
          out.partitions.push_back({t.name, p});
    auto requested = out.partitions;
    ask_one<offset_fetch_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header, requested](offset_fetch_response& res) {
        // v1 has no top-level error: a group-wide one goes to every
        // requested partition, as Kafka's v1 responses carry it.
        if (res.error != error_code::none && res.partitions.empty())
          for (auto& tp : requested)
            res.partitions.push_back(
              {tp.topic, tp.partition, -1, -1, {}, res.error});
        k::offset_fetch_response out;
        for (auto& p : res.partitions) {
          if (out.topics.empty() || out.topics.back().name != p.topic)
            out.topics.push_back({p.topic, {}});
          out.topics.back().partitions.push_back(
            {p.partition, p.offset, p.metadata, p.error});
        }
        return frame(h, out, k::encode_offset_fetch_response);
      });
  }

  void operator()(k::find_coordinator_request& req) {
    ask_one<find_coordinator_response>(
      sys, ctx.broker, default_timeout, find_coordinator_request{req.key},
      std::move(reply), [h = header](find_coordinator_response& res) {
        k::find_coordinator_response out{res.error, res.node_id, res.host,
                                         res.port};
        return frame(h, out, k::encode_find_coordinator_response);
      });
  }

  void operator()(k::join_group_request& req) {
    join_group_request out;
    out.group_id = req.group_id;
    out.session_timeout_ms = req.session_timeout_ms;
    out.rebalance_timeout_ms = req.rebalance_timeout_ms;
    out.member_id = req.member_id;
    out.protocol_type = req.protocol_type;
    for (auto& p : req.protocols)
      out.protocols.push_back({p.name, p.metadata});
    out.client_id = group_of(header.client_id);
    out.client_host = ctx.client_host;
    // KIP-394's MEMBER_ID_REQUIRED starts at JoinGroup v4.
    out.require_known_member_id = false;
    // The coordinator parks the request up to the rebalance timeout.
    auto wait = std::max(req.rebalance_timeout_ms, req.session_timeout_ms);
    auto timeout = milliseconds{std::max(wait, 0)} + default_timeout;
    ask_one<join_group_response>(
      sys, ctx.broker, timeout, std::move(out), std::move(reply),
      [h = header](join_group_response& res) {
        k::join_group_response out;
        out.error = res.error;
        out.generation_id = res.generation_id;
        out.protocol_name = res.protocol_name;
        out.leader = res.leader;
        out.member_id = res.member_id;
        for (auto& m : res.members)
          out.members.push_back({m.member_id, m.metadata});
        return frame(h, out, k::encode_join_group_response);
      });
  }

  void operator()(k::heartbeat_request& req) {
    heartbeat_request out;
    out.group_id = req.group_id;
    out.generation_id = req.generation_id;
    out.member_id = req.member_id;
    ask_one<heartbeat_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header](heartbeat_response& res) {
        return frame(h, k::heartbeat_response{res.error},
                     k::encode_heartbeat_response);
      });
  }

  void operator()(k::leave_group_request& req) {
    leave_group_request out;
    out.group_id = req.group_id;
    out.members.push_back({req.member_id, {}});
    ask_one<leave_group_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header](leave_group_response& res) {
        auto e = res.error;
        if (e == error_code::none && !res.members.empty())
          e = res.members.front().error;
        return frame(h, k::leave_group_response{e},
                     k::encode_leave_group_response);
      });
  }

  void operator()(k::sync_group_request& req) {
    sync_group_request out;
    out.group_id = req.group_id;
    out.generation_id = req.generation_id;
    out.member_id = req.member_id;
    for (auto& a : req.assignments)
      out.assignments.push_back({a.member_id, a.assignment});
    ask_one<sync_group_response>(
      sys, ctx.broker, default_timeout + slack, std::move(out),
      std::move(reply), [h = header](sync_group_response& res) {
        return frame(h, k::sync_group_response{res.error, res.assignment},
                     k::encode_sync_group_response);
      });
  }

  void operator()(k::describe_groups_request& req) {
    ask_one<describe_groups_response>(
      sys, ctx.broker, default_timeout, describe_groups_request{req.groups},
      std::move(reply), [h = header](describe_groups_response& res) {
        k::describe_groups_response out;
        for (auto& g : res.groups) {
          k::described_group dg;
          dg.error = g.error;
          dg.group_id = g.group_id;
          dg.group_state = g.state;
          dg.protocol_type = g.protocol_type;
          dg.protocol_data = g.protocol_data;
          for (auto& m : g.members)
            dg.members.push_back({m.member_id, m.client_id, m.client_host,
                                  m.metadata, m.assignment});
          out.groups.push_back(std::move(dg));
        }
        return frame(h, out, k::encode_describe_groups_response);
      });
  }

  void operator()(k::list_groups_request&) {
    ask_one<list_groups_response>(
      sys, ctx.broker, default_timeout, list_groups_request{}, std::move(reply),
      [h = header](list_groups_response& res) {
        k::list_groups_response out;
        out.error = res.error;
        for (auto& g : res.groups)
          out.groups.push_back({g.group_id, g.protocol_type});
        return frame(h, out, k::encode_list_groups_response);
      });
  }

  void operator()(k::create_topics_request& req) {
    if (req.validate_only) {
      // Not supported yet: answer without creating, naming why.
      k::create_topics_response out;
      for (auto& t : req.topics)
        out.topics.push_back({t.name, error_code::invalid_request,
                              std::string{"validate_only is not supported"}});
      reply(frame(header, out, k::encode_create_topics_response));
      return;
    }
    create_topics_request out;
    for (auto& t : req.topics)
      out.topics.push_back({t.name, t.num_partitions, t.replication_factor});
    ask_one<create_topics_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header](create_topics_response& res) {
        k::create_topics_response out;
        for (auto& t : res.topics) {
          std::optional<std::string> message;
          if (!t.message.empty())
            message = t.message;
          out.topics.push_back({t.name, t.error, std::move(message)});
        }
        return frame(h, out, k::encode_create_topics_response);
      });
  }

  void operator()(k::consumer_group_heartbeat_request& req) {
    consumer_group_heartbeat_request out;
    out.group_id = req.group_id;
    out.member_id = req.member_id;
    out.member_epoch = req.member_epoch;
    out.instance_id = req.instance_id;
    out.rack_id = req.rack_id;
    out.rebalance_timeout_ms = req.rebalance_timeout_ms;
    out.subscribed_topic_names = req.subscribed_topic_names;
    out.subscribed_topic_regex = req.subscribed_topic_regex;
    out.server_assignor = req.server_assignor;
    if (req.topic_partitions) {
      std::vector<consumer_group_topic_partitions> owned;
      for (auto& t : *req.topic_partitions)
        owned.push_back({t.topic_id, {}, t.partitions});
      out.topic_partitions = std::move(owned);
    }
    out.api_version = header.api_version;
    out.client_id = group_of(header.client_id);
    out.client_host = ctx.client_host;
    ask_one<consumer_group_heartbeat_response>(
      sys, ctx.broker, default_timeout, std::move(out), std::move(reply),
      [h = header](consumer_group_heartbeat_response& res) {
        k::consumer_group_heartbeat_response out;
        out.throttle_time_ms = res.throttle_time_ms;
        out.error = res.error;
        out.error_message = res.error_message;
        out.member_id = res.member_id;
        out.member_epoch = res.member_epoch;
        out.heartbeat_interval_ms = res.heartbeat_interval_ms;
        // Topic ids only: the wire has no names here.
        if (res.assignment) {
          k::consumer_group_heartbeat_assignment a;
          for (auto& t : res.assignment->topic_partitions)
            a.topic_partitions.push_back({t.topic_id, t.partitions});
          out.assignment = std::move(a);
        }
        return frame(h, out, k::encode_consumer_group_heartbeat_response);
      });
  }

  void operator()(k::consumer_group_describe_request& req) {
    ask_one<consumer_group_describe_response>(
      sys, ctx.broker, default_timeout,
      consumer_group_describe_request{req.group_ids,
                                      req.include_authorized_operations},
      std::move(reply), [h = header](consumer_group_describe_response& res) {
        auto assignment = [](const consumer_group_assignment& a) {
          k::described_assignment out;
          for (auto& t : a.topic_partitions)
            out.topic_partitions.push_back(
              {t.topic_id, t.topic_name, t.partitions});
          return out;
        };
        k::consumer_group_describe_response out;
        out.throttle_time_ms = res.throttle_time_ms;
        for (auto& g : res.groups) {
          k::described_consumer_group dg;
          dg.error = g.error;
          dg.error_message = g.error_message;
          dg.group_id = g.group_id;
          dg.group_state = g.group_state;
          dg.group_epoch = g.group_epoch;
          dg.assignment_epoch = g.assignment_epoch;
          dg.assignor_name = g.assignor_name;
          dg.authorized_operations = g.authorized_operations;
          for (auto& m : g.members) {
            k::described_consumer_group_member dm;
            dm.member_id = m.member_id;
            dm.instance_id = m.instance_id;
            dm.rack_id = m.rack_id;
            dm.member_epoch = m.member_epoch;
            dm.client_id = m.client_id;
            dm.client_host = m.client_host;
            dm.subscribed_topic_names = m.subscribed_topic_names;
            dm.subscribed_topic_regex = m.subscribed_topic_regex;
            dm.assignment = assignment(m.assignment);
            dm.target_assignment = assignment(m.target_assignment);
            dm.member_type = m.member_type;
            dg.members.push_back(std::move(dm));
          }
          out.groups.push_back(std::move(dg));
        }
        return frame(h, out, k::encode_consumer_group_describe_response);
      });
  }

  /// APIs the codec decodes but the listener does not serve yet; the
  /// connection refuses them before they get here.
  template <class Request>
  void operator()(Request&) {
    reply(close_reply());
  }
};

} // namespace

const std::vector<kafka::api_version>& kafka_listener_versions() {
  using k::api_key;
  static const std::vector<kafka::api_version> table = [] {
    auto v = [](api_key key, int16_t min, int16_t max) {
      return kafka::api_version{static_cast<int16_t>(key), min, max};
    };
    return std::vector<kafka::api_version>{
      v(api_key::produce, 3, 3),
      v(api_key::fetch, 4, 4),
      v(api_key::list_offsets, 1, 1),
      // v10+ for the topic ids KIP-848's assignments name topics by.
      v(api_key::metadata, 1, 12),
      v(api_key::offset_commit, 2, 2),
      v(api_key::offset_fetch, 1, 1),
      v(api_key::find_coordinator, 0, 0),
      v(api_key::join_group, 0, 1),
      v(api_key::heartbeat, 0, 0),
      v(api_key::leave_group, 0, 0),
      v(api_key::sync_group, 0, 0),
      v(api_key::describe_groups, 0, 0),
      v(api_key::list_groups, 0, 0),
      v(api_key::api_versions, 0, 2),
      v(api_key::create_topics, 0, 1),
      v(api_key::consumer_group_heartbeat, 0, 1),
      v(api_key::consumer_group_describe, 0, 1),
    };
  }();
  return table;
}

bool kafka_listener_serves(int16_t api_key, int16_t api_version) noexcept {
  for (const auto& api : kafka_listener_versions())
    if (api.api_key == api_key)
      return api_version >= api.min_version && api_version <= api.max_version;
  return false;
}

void handle_kafka_request(caf::actor_system& sys,
                          const kafka_request_context& ctx,
                          const kafka::request_header& header,
                          kafka::request_body body, kafka_reply_fn reply) {
  std::visit(handler{sys, ctx, header, std::move(reply)}, body);
}

} // namespace troupe
