#include "gateway/http_api.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <spdlog/spdlog.h>

#include "actors/metrics.hpp"
#include "domain/consumer_protocol.hpp"
#include "domain/log/record_batch.hpp"
#include "gateway.pb.h"
#include "gateway/http_api_impl.hpp"
#include "gateway/http_util.hpp"

namespace pb = troupe::gateway;

namespace troupe {

using namespace troupe::http;
using api_ptr = std::shared_ptr<http_api::impl>;

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty())
        out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    out.push_back(std::move(cur));
  return out;
}

/// Java's Utils.murmur2, so that keyed records land where a Java producer
/// would put them.
int32_t murmur2(const std::string& data) {
  const uint32_t seed = 0x9747b28c;
  const uint32_t m = 0x5bd1e995;
  const int r = 24;
  auto length = static_cast<uint32_t>(data.size());
  uint32_t h = seed ^ length;
  uint32_t length4 = length / 4;
  auto b = [&](size_t i) { return static_cast<uint32_t>(uint8_t(data[i])); };
  for (uint32_t i = 0; i < length4; i++) {
    uint32_t i4 = i * 4;
    uint32_t k =
      b(i4) | (b(i4 + 1) << 8) | (b(i4 + 2) << 16) | (b(i4 + 3) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  switch (length % 4) {
    case 3:
      h ^= b((length & ~3u) + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= b((length & ~3u) + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= b(length & ~3u);
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

bool json_content_type(const std::string& ct) {
  return ct.empty() || ct.find("json") != std::string::npos;
}

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

// -- cluster: topics ----------------------------------------------------------------

void with_metadata(api_ptr api, std::vector<std::string> topics,
                   bool auto_create,
                   std::function<void(std::optional<metadata_response>)> k) {
  metadata_request req{std::move(topics), auto_create};
  ask<metadata_response>(api->sys, api->bootstrap(), std::move(req),
                         std::move(k));
}

pb::TopicInfo topic_info(const topic_metadata& t) {
  pb::TopicInfo out;
  out.set_name(t.name);
  for (auto& p : t.partition_states) {
    auto* pi = out.add_partitions();
    pi->set_partition(p.partition);
    pi->set_leader(p.leader);
    for (auto r : p.replicas) {
      auto* ri = pi->add_replicas();
      ri->set_broker(r);
      ri->set_leader(r == p.leader);
      ri->set_in_sync(std::count(p.isr.begin(), p.isr.end(), r) > 0);
    }
  }
  return out;
}

void list_topics(api_ptr api, http_reply_fn reply) {
  with_metadata(api, {}, false, [reply](auto md) {
    if (!md)
      return reply(error(500, 50002, "KAFKA_ERROR", "metadata unavailable"));
    std::string out = "[";
    for (auto& t : md->topics) {
      if (out.size() > 1)
        out += ',';
      out += "\"" + escape(t.name) + "\"";
    }
    reply(json(200, out + "]"));
  });
}

void get_topic(api_ptr api, const std::string& name, bool partitions_only,
               http_reply_fn reply) {
  with_metadata(api, {name}, false, [reply, partitions_only](auto md) {
    if (!md || md->topics.empty())
      return reply(error(500, 50002, "KAFKA_ERROR", "metadata unavailable"));
    auto& t = md->topics[0];
    if (t.error != error_code::none)
      return reply(error(404, 40401, std::string{error_name(t.error)},
                         "Topic " + t.name + " not found."));
    auto info = topic_info(t);
    reply(json(200, partitions_only ? to_json_array(info.partitions())
                                    : to_json(info)));
  });
}

void create_topic(api_ptr api, const http_request& req, http_reply_fn reply) {
  pb::CreateTopicRequest body;
  std::string err;
  if (!from_json(req.body, body, err))
    return reply(bad_request(err));
  if (!body.has_name())
    return reply(bad_request("field 'name' is required"));
  new_topic t{body.name(), body.partitions() > 0 ? body.partitions() : -1,
              static_cast<int16_t>(body.replication_factor() > 0
                                     ? body.replication_factor()
                                     : -1)};
  ask<create_topics_response>(
    api->sys, api->bootstrap(), create_topics_request{{t}}, [reply](auto res) {
      if (!res || res->topics.empty())
        return reply(error(500, 50002, "KAFKA_ERROR", "controller timeout"));
      auto& r = res->topics[0];
      if (r.error == error_code::topic_already_exists)
        return reply(kafka_error(409, r.error, r.message));
      if (r.error != error_code::none)
        return reply(kafka_error(400, r.error, r.message));
      reply(json(201, "{\"name\":\"" + escape(r.name) + "\"}"));
    });
}

// -- produce ---------------------------------------------------------------------------------

bool retriable(error_code e) {
  return e == error_code::not_leader_or_follower
         || e == error_code::leader_not_available
         || e == error_code::unknown_topic_or_partition;
}

/// Sends one partition's batch to its leader; like a Kafka producer, it
/// refreshes the leader and retries while leadership is moving (a new
/// topic, a stopped broker).
void produce_partition(api_ptr api, produce_request req, int32_t leader,
                       int attempts,
                       std::function<void(std::optional<produce_response>)> k) {
  auto to = api->broker_by_id(leader);
  ask<produce_response>(
    api->sys, to, req, [api, req, attempts, k](auto res) mutable {
      if (attempts <= 0 || (res && !retriable(res->error))) {
        k(std::move(res));
        return;
      }
      after(api->sys, milliseconds{100}, [api, req, attempts, k]() mutable {
        auto topic = req.partition.topic;
        with_metadata(api, {topic}, false,
                      [api, req, attempts, k](auto md) mutable {
                        int32_t leader = -1;
                        if (md && !md->topics.empty())
                          for (auto& p : md->topics[0].partition_states)
                            if (p.partition == req.partition.partition)
                              leader = p.leader;
                        produce_partition(api, std::move(req), leader,
                                          attempts - 1, std::move(k));
                      });
      });
    });
}

void produce(api_ptr api, const std::string& topic, const http_request& req,
             http_reply_fn reply) {
  auto body = std::make_shared<pb::ProduceRequest>();
  std::string err;
  if (!from_json(req.body, *body, err))
    return reply(bad_request(err));
  if (body->records_size() == 0)
    return reply(bad_request("field 'records' is required and not empty"));
  with_metadata(
    api, {topic}, api->cluster.auto_create_topics,
    [api, topic, body, reply](auto md) {
      if (!md || md->topics.empty())
        return reply(error(500, 50002, "KAFKA_ERROR", "metadata unavailable"));
      auto& t = md->topics[0];
      if (t.error != error_code::none || t.partition_states.empty())
        return reply(error(404, 40401, std::string{error_name(t.error)},
                           "Topic " + topic + " not found."));
      auto n = static_cast<int32_t>(t.partition_states.size());
      std::map<int32_t, int32_t> leaders;
      for (auto& p : t.partition_states)
        leaders[p.partition] = p.leader;
      // Records by partition, remembering each one's place in the request.
      std::map<int32_t, std::vector<record>> batches;
      std::map<int32_t, std::vector<size_t>> places;
      static std::atomic<uint32_t> round_robin{0};
      auto ts = now_ms();
      for (int i = 0; i < body->records_size(); ++i) {
        auto& r = body->records(i);
        record rec;
        rec.timestamp = ts;
        std::string key_text;
        if (r.has_key() && !r.key().has_null_value()) {
          key_text = to_json(r.key());
          rec.key = std::vector<uint8_t>(key_text.begin(), key_text.end());
        }
        if (r.has_value() && !r.value().has_null_value()) {
          auto v = to_json(r.value());
          rec.value = std::vector<uint8_t>(v.begin(), v.end());
        }
        int32_t p;
        if (r.has_partition()) {
          p = r.partition();
          if (p < 0 || p >= n)
            return reply(error(404, 40402, "UNKNOWN_TOPIC_OR_PARTITION",
                               "Partition " + std::to_string(p)
                                 + " not found in " + topic + "."));
        } else if (rec.key) {
          p = (murmur2(key_text) & 0x7fffffff) % n;
        } else {
          p = static_cast<int32_t>(round_robin++ % static_cast<uint32_t>(n));
        }
        batches[p].push_back(std::move(rec));
        places[p].push_back(static_cast<size_t>(i));
      }
      struct fan {
        std::mutex mtx;
        std::vector<std::optional<produce_response>> results;
        size_t outstanding;
      };
      auto f = std::make_shared<fan>();
      f->results.resize(batches.size());
      f->outstanding = batches.size();
      std::vector<int32_t> order;
      auto total = static_cast<size_t>(body->records_size());
      auto finish = [reply, places, total, f](std::vector<int32_t> order) {
        auto& results = f->results;
        {
          pb::ProduceResponse out;
          std::vector<pb::ProduceOffset> offs(total);
          for (size_t i = 0; i < order.size(); ++i) {
            auto p = order[i];
            auto& idx = places.at(p);
            for (size_t j = 0; j < idx.size(); ++j) {
              auto& o = offs[idx[j]];
              o.set_partition(p);
              auto& r = results[i];
              if (!r) {
                o.set_offset(-1);
                o.set_error_code(
                  static_cast<int>(error_code::request_timed_out));
                o.set_error("REQUEST_TIMED_OUT");
              } else if (r->error != error_code::none) {
                o.set_offset(-1);
                o.set_error_code(static_cast<int>(r->error));
                o.set_error(std::string{error_name(r->error)});
              } else {
                o.set_offset(r->base_offset + static_cast<int64_t>(j));
              }
            }
          }
          for (auto& o : offs)
            *out.add_offsets() = std::move(o);
          reply(json(200, to_json(out)));
        }
      };
      for (auto& [p, recs] : batches)
        order.push_back(p);
      size_t i = 0;
      for (auto& [p, recs] : batches) {
        produce_request pr;
        pr.partition = {topic, p};
        pr.acks = -1;
        pr.timeout_ms = 30000;
        pr.batch = encode_batch(0, -1, recs);
        produce_partition(api, std::move(pr), leaders[p], 50,
                          [f, i, finish, order](auto res) {
                            bool last = false;
                            {
                              std::lock_guard<std::mutex> guard{f->mtx};
                              f->results[i] = std::move(res);
                              last = --f->outstanding == 0;
                            }
                            if (last)
                              finish(order);
                          });
        ++i;
      }
    });
}

// -- /v1: brokers and partitions ---------------------------------------------------------------

void all_statuses(api_ptr api,
                  std::function<void(std::vector<replica_statuses>)> k) {
  std::vector<std::pair<broker_actor, broker_status_request>> reqs;
  for (auto& b : api->node.brokers)
    reqs.emplace_back(b, broker_status_request{});
  ask_all<replica_statuses>(
    api->sys, std::move(reqs),
    [k](std::vector<std::optional<replica_statuses>> rs) {
      std::vector<replica_statuses> out;
      for (auto& r : rs)
        if (r)
          out.push_back(std::move(*r));
      k(std::move(out));
    },
    milliseconds{5000});
}

void list_brokers(api_ptr api, http_reply_fn reply) {
  with_metadata(api, {}, false, [api, reply](auto md) {
    if (!md)
      return reply(kafka_error(500, error_code::request_timed_out,
                               "metadata unavailable"));
    auto brokers = md->brokers;
    all_statuses(api, [reply, brokers](std::vector<replica_statuses> sts) {
      pb::BrokerList out;
      for (auto& b : brokers) {
        auto* bi = out.add_brokers();
        bi->set_id(b.node_id);
        bi->set_host(b.host);
        bi->set_port(b.port);
        for (auto& s : sts)
          if (s.broker_id == b.node_id) {
            bi->set_alive(s.alive);
            bi->set_replicas(static_cast<int32_t>(s.replicas.size()));
            bi->set_leaders(static_cast<int32_t>(
              std::count_if(s.replicas.begin(), s.replicas.end(),
                            [](auto& r) { return r.role == "leader"; })));
          }
      }
      reply(json(200, to_json(out)));
    });
  });
}

void list_partitions(api_ptr api, const std::string& topic_filter,
                     http_reply_fn reply) {
  with_metadata(api, {}, false, [api, reply, topic_filter](auto md) {
    if (!md)
      return reply(kafka_error(500, error_code::request_timed_out,
                               "metadata unavailable"));
    auto topics = md->topics;
    all_statuses(
      api, [reply, topics, topic_filter](std::vector<replica_statuses> sts) {
        std::map<topic_partition, std::vector<const replica_status*>> reps;
        for (auto& s : sts)
          for (auto& r : s.replicas)
            reps[r.partition].push_back(&r);
        pb::PartitionList out;
        for (auto& t : topics) {
          if (!topic_filter.empty() && t.name != topic_filter)
            continue;
          for (auto& p : t.partition_states) {
            auto* ps = out.add_partitions();
            ps->set_topic(t.name);
            ps->set_partition(p.partition);
            ps->set_leader(p.leader);
            ps->set_leader_epoch(p.leader_epoch);
            for (auto i : p.isr)
              ps->add_isr(i);
            ps->set_log_end_offset(-1);
            ps->set_high_watermark(-1);
            auto i = reps.find({t.name, p.partition});
            if (i == reps.end())
              continue;
            for (auto* r : i->second) {
              auto* rs = ps->add_replicas();
              rs->set_broker(r->broker_id);
              rs->set_role(r->role);
              rs->set_log_end_offset(r->log_end_offset);
              rs->set_high_watermark(r->high_watermark);
              if (r->broker_id == p.leader && r->role == "leader") {
                ps->set_log_end_offset(r->log_end_offset);
                ps->set_high_watermark(r->high_watermark);
                ps->set_log_start_offset(r->log_start_offset);
              }
            }
          }
        }
        reply(json(200, to_json(out)));
      });
  });
}

void change_broker(api_ptr api, const std::string& id_text, bool alive,
                   http_reply_fn reply) {
  int32_t id = -1;
  try {
    id = std::stoi(id_text);
  } catch (...) {
    return reply(bad_request("broker id must be a number"));
  }
  ask<leadership_update>(
    api->sys, api->node.controller, broker_status_change{id, alive},
    [api, id, alive, reply](auto res) {
      if (!res)
        return reply(kafka_error(500, error_code::request_timed_out,
                                 "controller timeout"));
      if (res->error != error_code::none)
        return reply(
          kafka_error(404, res->error, "no broker " + std::to_string(id)));
      {
        std::lock_guard<std::mutex> guard{api->mtx};
        if (alive)
          api->stopped_brokers.erase(id);
        else
          api->stopped_brokers.insert(id);
      }
      reply(json(200, "{\"broker\":" + std::to_string(id) + ",\"alive\":"
                        + (alive ? "true" : "false") + ",\"moved_leaders\":"
                        + std::to_string(res->partitions.size()) + "}"));
    });
}

// -- /v1: groups ---------------------------------------------------------------------------------

/// Calls `k` with the coordinating broker of `group` (null if none).
void with_coordinator(api_ptr api, const std::string& group,
                      std::function<void(broker_actor, error_code)> k) {
  auto now = std::chrono::steady_clock::now();
  broker_actor cached;
  {
    std::lock_guard<std::mutex> guard{api->mtx};
    auto i = api->coordinators.find(group);
    if (i != api->coordinators.end()
        && now - i->second.second < std::chrono::seconds(1))
      cached = i->second.first;
  }
  if (cached)
    return k(cached, error_code::none);
  ask<find_coordinator_response>(
    api->sys, api->bootstrap(), find_coordinator_request{group},
    [api, group, now, k](auto res) {
      if (!res)
        return k({}, error_code::coordinator_not_available);
      if (res->error != error_code::none)
        return k({}, res->error);
      auto b = caf::actor_cast<broker_actor>(res->broker);
      {
        std::lock_guard<std::mutex> guard{api->mtx};
        if (api->coordinators.size() > 10000)
          api->coordinators.clear();
        api->coordinators[group] = {b, now};
      }
      k(b, error_code::none);
    });
}

void list_groups(api_ptr api, http_reply_fn reply) {
  std::vector<std::pair<broker_actor, list_groups_request>> reqs;
  for (auto& b : api->node.brokers)
    reqs.emplace_back(b, list_groups_request{});
  ask_all<list_groups_response>(
    api->sys, std::move(reqs),
    [reply](std::vector<std::optional<list_groups_response>> rs) {
      pb::GroupList out;
      for (size_t i = 0; i < rs.size(); ++i)
        if (rs[i])
          for (auto& g : rs[i]->groups) {
            auto* gs = out.add_groups();
            gs->set_group_id(g.group_id);
            gs->set_state(g.state);
            gs->set_protocol_type(g.protocol_type);
            gs->set_coordinator(static_cast<int32_t>(i));
          }
      reply(json(200, to_json(out)));
    },
    milliseconds{5000});
}

void add_partitions(
  google::protobuf::RepeatedPtrField<pb::TopicPartitions>* out,
  const std::vector<topic_partition>& tps) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (auto& tp : tps)
    by_topic[tp.topic].push_back(tp.partition);
  for (auto& [t, ps] : by_topic) {
    auto* x = out->Add();
    x->set_topic(t);
    std::sort(ps.begin(), ps.end());
    for (auto p : ps)
      x->add_partitions(p);
  }
}

/// Adds each partition's committed offset, high watermark and lag to `out`
/// (the partitions the members own), then replies with it.
void reply_with_lag(api_ptr api, broker_actor b, const std::string& group,
                    std::shared_ptr<pb::GroupDescription> out,
                    std::vector<topic_partition> assigned,
                    http_reply_fn reply) {
  ask<offset_fetch_response>(
    api->sys, b, offset_fetch_request{group, assigned},
    [api, out, assigned, reply](auto offs) {
      // The latest offset (the high watermark) from each leader.
      with_metadata(api, {}, false, [api, out, assigned, offs, reply](auto md) {
        std::map<topic_partition, int32_t> leaders;
        if (md)
          for (auto& t : md->topics)
            for (auto& p : t.partition_states)
              leaders[{t.name, p.partition}] = p.leader;
        std::vector<std::pair<broker_actor, list_offsets_request>> reqs;
        for (auto& tp : assigned)
          reqs.emplace_back(api->broker_by_id(leaders[tp]),
                            list_offsets_request{tp, -1});
        ask_all<list_offsets_response>(
          api->sys, std::move(reqs),
          [out, assigned, offs, reply](auto ends) {
            for (size_t i = 0; i < assigned.size(); ++i) {
              auto* l = out->add_lag();
              l->set_topic(assigned[i].topic);
              l->set_partition(assigned[i].partition);
              int64_t committed = -1;
              if (offs)
                for (auto& o : offs->partitions)
                  if (o.topic == assigned[i].topic
                      && o.partition == assigned[i].partition)
                    committed = o.offset;
              int64_t hw = ends[i] ? ends[i]->offset : -1;
              l->set_committed(committed);
              l->set_high_watermark(hw);
              l->set_lag(hw < 0 ? -1 : hw - std::max<int64_t>(committed, 0));
            }
            reply(json(200, to_json(*out)));
          },
          milliseconds{5000});
      });
    });
}

/// A KIP-848 assignment by topic name.
std::vector<topic_partition> partitions_of(const consumer_group_assignment& a) {
  std::vector<topic_partition> out;
  for (auto& t : a.topic_partitions)
    for (auto p : t.partitions)
      out.push_back({t.topic_name, p});
  return out;
}

/// A consumer group (KIP-848), which DescribeGroups sees as Dead: its
/// epochs and each member's current and target assignment.
void describe_consumer_group(api_ptr api, broker_actor b,
                             const std::string& group, http_reply_fn reply) {
  ask<consumer_group_describe_response>(
    api->sys, b, consumer_group_describe_request{{group}, false},
    [api, b, group, reply](auto res) {
      if (!res || res->groups.empty())
        return reply(kafka_error(500, error_code::request_timed_out,
                                 "coordinator timeout"));
      auto& g = res->groups[0];
      if (g.error != error_code::none)
        return reply(kafka_error(404, g.error, "no group " + group));
      auto out = std::make_shared<pb::GroupDescription>();
      out->set_group_id(g.group_id);
      out->set_state(g.group_state);
      out->set_generation(g.group_epoch);
      out->set_protocol_type("consumer");
      out->set_group_type("consumer");
      out->set_group_epoch(g.group_epoch);
      out->set_assignment_epoch(g.assignment_epoch);
      out->set_assignor(g.assignor_name);
      out->set_error_name("NONE");
      std::vector<topic_partition> assigned;
      for (auto& m : g.members) {
        auto* md = out->add_members();
        md->set_member_id(m.member_id);
        if (m.instance_id)
          md->set_group_instance_id(*m.instance_id);
        md->set_client_id(m.client_id);
        md->set_client_host(m.client_host);
        md->set_member_epoch(m.member_epoch);
        md->set_member_state(m.state);
        auto current = partitions_of(m.assignment);
        add_partitions(md->mutable_assignment(), current);
        add_partitions(md->mutable_target_assignment(),
                       partitions_of(m.target_assignment));
        add_partitions(md->mutable_pending_revocation(),
                       partitions_of(m.partitions_pending_revocation));
        assigned.insert(assigned.end(), current.begin(), current.end());
      }
      reply_with_lag(api, b, group, out, std::move(assigned), reply);
    });
}

void describe_group(api_ptr api, const std::string& group,
                    http_reply_fn reply) {
  with_coordinator(
    api, group, [api, group, reply](broker_actor b, error_code e) {
      if (!b)
        return reply(kafka_error(503, e, "no coordinator for " + group));
      ask<describe_groups_response>(
        api->sys, b, describe_groups_request{{group}},
        [api, b, group, reply](auto res) {
          if (!res || res->groups.empty())
            return reply(kafka_error(500, error_code::request_timed_out,
                                     "coordinator timeout"));
          auto& g = res->groups[0];
          if (g.error != error_code::none)
            return reply(kafka_error(404, g.error, "group " + group));
          // Not a classic group: a consumer group, or none
          // (GROUP_ID_NOT_FOUND from ConsumerGroupDescribe).
          if (g.state == "Dead")
            return describe_consumer_group(api, b, group, reply);
          auto out = std::make_shared<pb::GroupDescription>();
          out->set_group_id(g.group_id);
          out->set_state(g.state);
          out->set_generation(g.generation_id);
          out->set_protocol_type(g.protocol_type);
          out->set_protocol(g.protocol_data);
          out->set_leader(g.leader);
          out->set_group_type("classic");
          out->set_error_name("NONE");
          std::vector<topic_partition> assigned;
          for (auto& m : g.members) {
            auto* md = out->add_members();
            md->set_member_id(m.member_id);
            md->set_group_instance_id(m.group_instance_id);
            md->set_client_id(m.client_id);
            md->set_client_host(m.client_host);
            if (auto a = decode_assignment(m.assignment)) {
              add_partitions(md->mutable_assignment(), a->partitions);
              assigned.insert(assigned.end(), a->partitions.begin(),
                              a->partitions.end());
            }
          }
          reply_with_lag(api, b, group, out, std::move(assigned), reply);
        });
    });
}

template <class T>
bool parse_body(const http_request& req, T& msg, http_reply_fn& reply) {
  std::string err;
  if (!json_content_type(req.content_type)) {
    reply(error(415, 415, "UNSUPPORTED_MEDIA_TYPE",
                "expected a JSON body, got " + req.content_type));
    return false;
  }
  if (!from_json(req.body.empty() ? "{}" : req.body, msg, err)) {
    reply(bad_request(err));
    return false;
  }
  return true;
}

pb::KafkaError kafka_code(error_code e) {
  pb::KafkaError out;
  out.set_error_code(static_cast<int>(e));
  out.set_error_name(std::string{error_name(e)});
  return out;
}

void group_join(api_ptr api, const std::string& group, const http_request& req,
                http_reply_fn reply) {
  pb::JoinRequest body;
  if (!parse_body(req, body, reply))
    return;
  if (!body.has_session_timeout_ms())
    return reply(bad_request("field 'session_timeout_ms' is required"));
  if (body.protocols_size() == 0)
    return reply(bad_request("field 'protocols' is required"));
  join_group_request jr;
  jr.group_id = group;
  jr.member_id = body.member_id();
  jr.group_instance_id = body.group_instance_id();
  jr.session_timeout_ms = body.session_timeout_ms();
  jr.rebalance_timeout_ms = body.rebalance_timeout_ms() > 0
                              ? body.rebalance_timeout_ms()
                              : body.session_timeout_ms();
  jr.protocol_type =
    body.protocol_type().empty() ? "consumer" : body.protocol_type();
  jr.client_id = body.client_id().empty() ? "rest" : body.client_id();
  jr.client_host = "/http";
  jr.require_known_member_id = false;
  for (auto& p : body.protocols()) {
    if (!p.has_name())
      return reply(bad_request("every protocol needs a 'name'"));
    join_protocol jp{p.name(), {p.metadata().begin(), p.metadata().end()}};
    if (jp.metadata.empty()) {
      consumer_subscription s;
      s.topics.assign(p.topics().begin(), p.topics().end());
      jp.metadata = encode_subscription(s);
    }
    jr.protocols.push_back(std::move(jp));
  }
  with_coordinator(api, group, [api, jr, reply](broker_actor b, error_code e) {
    if (!b)
      return reply(json(200, to_json(kafka_code(e))));
    // The JoinGroup barrier: this request is held until the rebalance.
    auto timeout = milliseconds{jr.rebalance_timeout_ms + 10000};
    ask<join_group_response>(
      api->sys, b, jr,
      [reply](auto res) {
        if (!res)
          return reply(kafka_error(504, error_code::request_timed_out,
                                   "JoinGroup timed out"));
        pb::JoinResponse out;
        out.set_error_code(static_cast<int>(res->error));
        out.set_error_name(std::string{error_name(res->error)});
        out.set_generation_id(res->generation_id);
        out.set_protocol_type(res->protocol_type);
        out.set_protocol_name(res->protocol_name);
        out.set_leader(res->leader);
        out.set_member_id(res->member_id);
        for (auto& m : res->members) {
          auto* jm = out.add_members();
          jm->set_member_id(m.member_id);
          jm->set_group_instance_id(m.group_instance_id);
          jm->set_metadata(std::string(m.metadata.begin(), m.metadata.end()));
          if (auto s = decode_subscription(m.metadata))
            for (auto& t : s->topics)
              jm->add_topics(t);
        }
        reply(json(200, to_json(out)));
      },
      timeout);
  });
}

void group_sync(api_ptr api, const std::string& group, const http_request& req,
                http_reply_fn reply) {
  pb::SyncRequest body;
  if (!parse_body(req, body, reply))
    return;
  if (!body.has_generation_id() || !body.has_member_id())
    return reply(bad_request("fields 'generation_id' and 'member_id' are "
                             "required"));
  sync_group_request sr;
  sr.group_id = group;
  sr.generation_id = body.generation_id();
  sr.member_id = body.member_id();
  sr.group_instance_id = body.group_instance_id();
  sr.protocol_type = body.protocol_type();
  sr.protocol_name = body.protocol_name();
  for (auto& a : body.assignments()) {
    if (!a.has_member_id())
      return reply(bad_request("every assignment needs a 'member_id'"));
    sync_group_assignment sa{a.member_id(),
                             {a.assignment().begin(), a.assignment().end()}};
    if (sa.assignment.empty()) {
      consumer_assignment ca;
      for (auto& tp : a.partitions())
        for (auto p : tp.partitions())
          ca.partitions.push_back({tp.topic(), p});
      sa.assignment = encode_assignment(ca);
    }
    sr.assignments.push_back(std::move(sa));
  }
  with_coordinator(api, group, [api, sr, reply](broker_actor b, error_code e) {
    if (!b)
      return reply(json(200, to_json(kafka_code(e))));
    ask<sync_group_response>(api->sys, b, sr, [reply](auto res) {
      if (!res)
        return reply(kafka_error(504, error_code::request_timed_out,
                                 "SyncGroup timed out"));
      pb::SyncResponse out;
      out.set_error_code(static_cast<int>(res->error));
      out.set_error_name(std::string{error_name(res->error)});
      out.set_protocol_type(res->protocol_type);
      out.set_protocol_name(res->protocol_name);
      out.set_assignment(
        std::string(res->assignment.begin(), res->assignment.end()));
      if (auto a = decode_assignment(res->assignment))
        add_partitions(out.mutable_partitions(), a->partitions);
      reply(json(200, to_json(out)));
    });
  });
}

void group_heartbeat(api_ptr api, const std::string& group,
                     const http_request& req, http_reply_fn reply) {
  pb::HeartbeatRequest body;
  if (!parse_body(req, body, reply))
    return;
  if (!body.has_generation_id() || !body.has_member_id())
    return reply(bad_request("fields 'generation_id' and 'member_id' are "
                             "required"));
  heartbeat_request hr{group, body.generation_id(), body.member_id(),
                       body.group_instance_id()};
  with_coordinator(api, group, [api, hr, reply](broker_actor b, error_code e) {
    if (!b)
      return reply(json(200, to_json(kafka_code(e))));
    ask<heartbeat_response>(api->sys, b, hr, [reply](auto res) {
      if (!res)
        return reply(kafka_error(504, error_code::request_timed_out,
                                 "Heartbeat timed out"));
      reply(json(200, to_json(kafka_code(res->error))));
    });
  });
}

void group_leave(api_ptr api, const std::string& group, const http_request& req,
                 http_reply_fn reply) {
  pb::LeaveRequest body;
  if (!parse_body(req, body, reply))
    return;
  if (!body.has_member_id())
    return reply(bad_request("field 'member_id' is required"));
  leave_group_request lr{group, {{body.member_id(), body.group_instance_id()}}};
  with_coordinator(api, group, [api, lr, reply](broker_actor b, error_code e) {
    if (!b)
      return reply(json(200, to_json(kafka_code(e))));
    ask<leave_group_response>(api->sys, b, lr, [reply](auto res) {
      if (!res)
        return reply(kafka_error(504, error_code::request_timed_out,
                                 "LeaveGroup timed out"));
      auto e = res->error;
      if (e == error_code::none && !res->members.empty())
        e = res->members[0].error;
      reply(json(200, to_json(kafka_code(e))));
    });
  });
}

void group_commit(api_ptr api, const std::string& group,
                  const http_request& req, http_reply_fn reply) {
  pb::CommitRequest body;
  if (!parse_body(req, body, reply))
    return;
  offset_commit_request cr;
  cr.group_id = group;
  cr.generation_id = body.generation_id();
  cr.member_id = body.member_id();
  for (auto& o : body.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return reply(bad_request("every offset needs 'topic', 'partition' and "
                               "'offset'"));
    offset_commit_partition p;
    p.topic = o.topic();
    p.partition = o.partition();
    p.offset = o.offset();
    cr.partitions.push_back(std::move(p));
  }
  with_coordinator(api, group, [api, cr, reply](broker_actor b, error_code e) {
    if (!b)
      return reply(json(200, to_json(kafka_code(e))));
    ask<offset_commit_response>(api->sys, b, cr, [reply](auto res) {
      if (!res)
        return reply(kafka_error(504, error_code::request_timed_out,
                                 "OffsetCommit timed out"));
      pb::CommitResponse out;
      auto top = error_code::none;
      for (auto& p : res->partitions) {
        auto* pe = out.add_partitions();
        pe->set_topic(p.topic);
        pe->set_partition(p.partition);
        pe->set_error_code(static_cast<int>(p.error));
        pe->set_error_name(std::string{error_name(p.error)});
        if (top == error_code::none)
          top = p.error;
      }
      out.set_error_code(static_cast<int>(top));
      out.set_error_name(std::string{error_name(top)});
      reply(json(200, to_json(out)));
    });
  });
}

// -- /metrics --------------------------------------------------------------------------------

http_response prometheus(api_ptr api) {
  std::ostringstream out;
  auto& m = metrics();
  auto counter = [&](const char* name, const char* help, uint64_t v) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name
        << " counter\n"
        << name << ' ' << v << '\n';
  };
  counter("troupe_rebalances_total", "Transitions into PreparingRebalance.",
          m.rebalances);
  counter("troupe_session_expiries_total",
          "Members removed because their session expired.", m.session_expiries);
  counter("troupe_isr_shrinks_total", "ISR shrinks stored by the controller.",
          m.isr_shrinks);
  counter("troupe_isr_expands_total", "ISR expands stored by the controller.",
          m.isr_expands);
  counter("troupe_group_joins_total", "JoinGroup requests handled.", m.joins);
  counter("troupe_group_syncs_total", "SyncGroup requests handled.", m.syncs);
  counter("troupe_group_heartbeats_total", "Heartbeats handled.", m.heartbeats);
  counter("troupe_group_leaves_total", "LeaveGroup requests handled.",
          m.leaves);
  counter("troupe_offset_commits_total", "OffsetCommit requests handled.",
          m.commits);
  counter("troupe_produce_requests_total", "Produce requests answered.",
          m.produces);
  counter("troupe_fetch_requests_total", "Fetch requests answered.",
          m.record_fetches);
  std::lock_guard<std::mutex> guard{api->mtx};
  counter("troupe_generation_changes_total",
          "Group generation increments seen.", api->generation_changes);
  counter("troupe_group_transitions_total", "Group state transitions seen.",
          api->group_transitions);
  out << "# HELP troupe_consumer_instances REST consumer instances.\n"
      << "# TYPE troupe_consumer_instances gauge\n"
      << "troupe_consumer_instances " << api->instances.size() << '\n'
      << "# HELP troupe_websockets Open /v1/ws sockets.\n"
      << "# TYPE troupe_websockets gauge\n"
      << "troupe_websockets " << api->ws.size() << '\n';
  std::lock_guard<std::mutex> stats_guard{api->stats_mtx};
  out << "# HELP troupe_http_requests_total HTTP requests by route and "
         "status.\n# TYPE troupe_http_requests_total counter\n";
  for (auto& [route, s] : api->stats)
    for (auto& [status, n] : s.by_status)
      out << "troupe_http_requests_total{route=\"" << route << "\",status=\""
          << status << "\"} " << n << '\n';
  out << "# HELP troupe_http_request_duration_seconds HTTP latency by "
         "route.\n# TYPE troupe_http_request_duration_seconds histogram\n";
  for (auto& [route, s] : api->stats) {
    uint64_t cum = 0;
    for (size_t i = 0; i < s.bounds.size(); ++i) {
      cum += s.buckets[i];
      out << "troupe_http_request_duration_seconds_bucket{route=\"" << route
          << "\",le=\"" << s.bounds[i] << "\"} " << cum << '\n';
    }
    out << "troupe_http_request_duration_seconds_bucket{route=\"" << route
        << "\",le=\"+Inf\"} " << s.count << '\n'
        << "troupe_http_request_duration_seconds_sum{route=\"" << route
        << "\"} " << s.sum_seconds << '\n'
        << "troupe_http_request_duration_seconds_count{route=\"" << route
        << "\"} " << s.count << '\n';
  }
  http_response res;
  res.content_type = "text/plain; version=0.0.4";
  res.body = out.str();
  return res;
}

// -- routing ------------------------------------------------------------------------------------

using seg_t = std::vector<std::string>;
using route_fn = std::function<void(api_ptr, const seg_t&, const http_request&,
                                    http_reply_fn)>;

struct route {
  route(std::string m, std::string p, route_fn f)
    : method(std::move(m)),
      pattern(std::move(p)),
      fn(std::move(f)),
      parts(split_path(pattern)) {
    // nop
  }
  std::string method;
  std::string pattern; // "/v1/groups/*/join"; '*' matches one segment
  route_fn fn;
  seg_t parts;
};

bool matches(const seg_t& pattern, const seg_t& path) {
  if (pattern.size() != path.size())
    return false;
  for (size_t i = 0; i < path.size(); ++i)
    if (pattern[i] != "*" && pattern[i] != path[i])
      return false;
  return true;
}

std::string query_param(const std::string& query, const std::string& key) {
  std::istringstream in{query};
  std::string kv;
  while (std::getline(in, kv, '&')) {
    auto eq = kv.find('=');
    if (kv.substr(0, eq) == key)
      return eq == std::string::npos ? "" : url_decode(kv.substr(eq + 1));
  }
  return {};
}

const std::vector<route>& routes() {
  static const std::vector<route> table = [] {
    std::vector<route> rs = {
      {"GET", "/healthz",
       [](api_ptr, const seg_t&, const http_request&, http_reply_fn reply) {
         reply(json(200, "{\"status\":\"ok\"}"));
       }},
      {"GET", "/metrics",
       [](api_ptr api, const seg_t&, const http_request&, http_reply_fn reply) {
         reply(prometheus(api));
       }},
      {"GET", "/topics",
       [](api_ptr api, const seg_t&, const http_request&, http_reply_fn reply) {
         list_topics(api, reply);
       }},
      {"GET", "/topics/*",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         get_topic(api, s[1], false, r);
       }},
      {"POST", "/topics/*",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) {
         if (!json_content_type(req.content_type))
           return r(error(415, 415, "UNSUPPORTED_MEDIA_TYPE",
                          "expected application/vnd.kafka.json.v2+json"));
         produce(api, s[1], req, r);
       }},
      {"GET", "/topics/*/partitions",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         get_topic(api, s[1], true, r);
       }},
      {"POST", "/consumers/*",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { create_instance(api, s[1], req, r); }},
      {"POST", "/consumers/*/instances/*/subscription",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { subscribe_instance(api, s[1], s[3], req, r); }},
      {"GET", "/consumers/*/instances/*/subscription",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         get_subscription(api, s[1], s[3], r);
       }},
      {"GET", "/consumers/*/instances/*/records",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { poll_instance(api, s[1], s[3], req, r); }},
      {"POST", "/consumers/*/instances/*/offsets",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { commit_instance(api, s[1], s[3], req, r); }},
      {"GET", "/consumers/*/instances/*/assignments",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         instance_assignments(api, s[1], s[3], r);
       }},
      {"DELETE", "/consumers/*/instances/*",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         delete_instance(api, s[1], s[3], r);
       }},
      {"POST", "/v1/topics",
       [](api_ptr api, const seg_t&, const http_request& req, http_reply_fn r) {
         create_topic(api, req, r);
       }},
      {"GET", "/v1/brokers",
       [](api_ptr api, const seg_t&, const http_request&, http_reply_fn r) {
         list_brokers(api, r);
       }},
      {"POST", "/v1/brokers/*/stop",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         change_broker(api, s[2], false, r);
       }},
      {"POST", "/v1/brokers/*/start",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         change_broker(api, s[2], true, r);
       }},
      {"GET", "/v1/partitions",
       [](api_ptr api, const seg_t&, const http_request& req, http_reply_fn r) {
         list_partitions(api, query_param(req.query, "topic"), r);
       }},
      {"GET", "/v1/groups",
       [](api_ptr api, const seg_t&, const http_request&, http_reply_fn r) {
         list_groups(api, r);
       }},
      {"GET", "/v1/groups/*",
       [](api_ptr api, const seg_t& s, const http_request&, http_reply_fn r) {
         describe_group(api, s[2], r);
       }},
      {"POST", "/v1/groups/*/join",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { group_join(api, s[2], req, r); }},
      {"POST", "/v1/groups/*/sync",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { group_sync(api, s[2], req, r); }},
      {"POST", "/v1/groups/*/heartbeat",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { group_heartbeat(api, s[2], req, r); }},
      {"POST", "/v1/groups/*/leave",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { group_leave(api, s[2], req, r); }},
      {"POST", "/v1/groups/*/commit",
       [](api_ptr api, const seg_t& s, const http_request& req,
          http_reply_fn r) { group_commit(api, s[2], req, r); }},
    };
    return rs;
  }();
  return table;
}

} // namespace

// -- impl -----------------------------------------------------------------------------------------

broker_actor http_api::impl::bootstrap() {
  std::lock_guard<std::mutex> guard{mtx};
  for (size_t i = 0; i < node.brokers.size(); ++i)
    if (!stopped_brokers.count(static_cast<int32_t>(i)))
      return node.brokers[i];
  return node.brokers.empty() ? broker_actor{} : node.brokers[0];
}

broker_actor http_api::impl::broker_by_id(int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= node.brokers.size())
    return {};
  return node.brokers[static_cast<size_t>(id)];
}

void broadcast(http_api::impl& api, const std::string& text) {
  std::vector<ws_peer> peers;
  {
    std::lock_guard<std::mutex> guard{api.mtx};
    for (auto& [id, m] : api.ws)
      if (m->watching)
        peers.push_back(m->peer);
  }
  for (auto& p : peers)
    p.send(text);
}

// -- http_api -----------------------------------------------------------------------------------

http_api::http_api(caf::actor_system& sys, cluster_config cluster,
                   http_api_config config)
  : impl_(std::make_shared<impl>(sys, std::move(cluster), std::move(config))) {
  std::weak_ptr<impl> weak = impl_;
  impl_->listener = sys.spawn([weak](event_listener_actor::pointer)
                                -> event_listener_actor::behavior_type {
    return {
      [](consumer_event&) {
        // nop: instances and members have their own listeners
      },
      [weak](group_event& ev) {
        auto api = weak.lock();
        if (!api)
          return;
        {
          std::lock_guard<std::mutex> guard{api->mtx};
          ++api->group_transitions;
          auto& g = api->last_generation[ev.group_id];
          if (ev.generation != g) {
            g = ev.generation;
            ++api->generation_changes;
          }
        }
        pb::WsEvent out;
        out.set_type("group");
        out.set_group(ev.group_id);
        out.set_from(ev.from);
        out.set_to(ev.to);
        out.set_generation(ev.generation);
        out.set_reason(ev.reason);
        out.set_at_ms(ev.at_ms);
        out.set_members(static_cast<int32_t>(ev.members));
        out.set_leader_id(ev.leader);
        out.set_protocol(ev.protocol);
        broadcast(*api, to_json(out));
      },
    };
  });
}

http_api::~http_api() {
  shutdown();
}

event_listener_actor http_api::listener() const {
  return impl_->listener;
}

void http_api::attach(const embedded_node& node) {
  impl_->node = node;
  impl_->reaper = std::thread{[api = impl_] {
    std::unique_lock<std::mutex> guard{api->mtx};
    while (!api->stopping) {
      api->reaper_cv.wait_for(guard, std::chrono::milliseconds(250));
      if (api->stopping)
        break;
      guard.unlock();
      expire_idle(api);
      guard.lock();
    }
  }};
}

void http_api::shutdown() {
  {
    std::lock_guard<std::mutex> guard{impl_->mtx};
    if (impl_->stopping)
      return;
    impl_->stopping = true;
  }
  impl_->reaper_cv.notify_all();
  if (impl_->reaper.joinable())
    impl_->reaper.join();
  close_all(impl_);
  anon_send_exit(impl_->listener, caf::exit_reason::user_shutdown);
}

void http_api::handle(http_request req, http_reply_fn reply) {
  auto path = split_path(req.path);
  for (auto& s : path)
    s = url_decode(s);
  bool path_known = false;
  for (auto& r : routes()) {
    if (!matches(r.parts, path))
      continue;
    path_known = true;
    if (r.method != req.method)
      continue;
    // Count and time the request under its route pattern.
    auto start = std::chrono::steady_clock::now();
    auto label = req.method + " " + r.pattern;
    std::weak_ptr<impl> weak = impl_;
    auto timed = [weak, start, label, reply](http_response res) {
      if (auto api = weak.lock()) {
        double secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
        std::lock_guard<std::mutex> guard{api->stats_mtx};
        auto& s = api->stats[label];
        ++s.count;
        s.sum_seconds += secs;
        ++s.by_status[res.status];
        for (size_t i = 0; i < s.bounds.size(); ++i)
          if (secs <= s.bounds[i]) {
            ++s.buckets[i];
            break;
          }
      }
      reply(std::move(res));
    };
    r.fn(impl_, path, req, std::move(timed));
    return;
  }
  if (path_known)
    reply(error(405, 405, "METHOD_NOT_ALLOWED",
                req.method + " is not allowed on " + req.path));
  else
    reply(error(404, 404, "NOT_FOUND", "no route for " + req.path));
}

uint64_t http_api::ws_open(ws_peer peer) {
  return open_ws(impl_, std::move(peer));
}

void http_api::ws_message(uint64_t id, std::string text) {
  on_ws_message(impl_, id, text);
}

void http_api::ws_closed(uint64_t id) {
  on_ws_closed(impl_, id);
}

} // namespace troupe
