// troupe's /v1 cluster routes: create a topic, the brokers with their
// liveness and leaderships, stop and start a broker (admin routes), and
// every partition's full replica assignment with ISR, LEO and HW. Kafka's
// error codes and names.

#include <algorithm>
#include <map>

#include "gateway.pb.h"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/routes.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

/// Every broker's replica statuses (a stopped broker still answers, with
/// alive = false); a broker that does not answer is left out.
void statuses_of_brokers(const call& c,
                         std::function<void(std::vector<replica_statuses>)> k);

void with_statuses(const call& c,
                   std::function<void(std::vector<replica_statuses>)> k) {
  with_brokers(c, [c, k = std::move(k)] { statuses_of_brokers(c, k); });
}

void statuses_of_brokers(const call& c,
                         std::function<void(std::vector<replica_statuses>)> k) {
  std::vector<std::pair<broker_actor, broker_status_request>> reqs;
  for (auto& b : c.cluster().brokers())
    reqs.emplace_back(caf::actor_cast<broker_actor>(b.handle),
                      broker_status_request{});
  c.ask_all<replica_statuses>(
    std::move(reqs),
    [k](std::vector<caf::expected<replica_statuses>> rs) {
      std::vector<replica_statuses> out;
      for (auto& r : rs)
        if (r)
          out.push_back(std::move(*r));
      k(std::move(out));
    },
    milliseconds{5000});
}

void change_broker(const call& c, bool alive) {
  int64_t id = -1;
  if (!parse_int(c.param(0), id) || id < 0 || id > INT32_MAX)
    return c.reply(kafka_error(400, error_code::invalid_request,
                               "broker id must be a number"));
  auto broker = static_cast<int32_t>(id);
  c.ask<leadership_update>(
    c.cluster().controller(), broker_status_change{broker, alive},
    [c, broker, alive](caf::expected<leadership_update> res) {
      if (!res)
        return c.reply(ask_failed(res.error(), "controller", false));
      if (res->error != error_code::none)
        return c.reply(
          kafka_error(404, res->error, "no broker " + std::to_string(broker)));
      c.svc().view->set_alive(broker, alive);
      c.reply(json_response("{\"broker\":" + std::to_string(broker)
                              + ",\"alive\":" + (alive ? "true" : "false")
                              + ",\"moved_leaders\":"
                              + std::to_string(res->partitions.size()) + "}",
                            "application/json"));
    });
}

} // namespace

void create_topic(const call& c) {
  pb::CreateTopicRequest body;
  if (!read_body(c, body))
    return;
  if (!body.has_name())
    return c.reply(v2::bad_request("field 'name' is required"));
  // Kafka's CreateTopics: CREATE on the cluster, else on the topic.
  if (!c.may(security::acl_operation::create, security::resource_type::cluster,
             cluster_resource)
      && !c.allow_topics(security::acl_operation::create, {body.name()}))
    return;
  new_topic t{body.name(), body.partitions() > 0 ? body.partitions() : -1,
              static_cast<int16_t>(body.replication_factor() > 0
                                     ? body.replication_factor()
                                     : -1)};
  c.ask<create_topics_response>(
    c.cluster().controller(), create_topics_request{{t}},
    [c](caf::expected<create_topics_response> res) {
      if (!res)
        return c.reply(ask_failed(res.error(), "controller", false));
      if (res->topics.empty())
        return c.reply(kafka_error(500, error_code::unknown_server_error,
                                   "the controller answered nothing"));
      auto& r = res->topics[0];
      if (r.error == error_code::topic_already_exists)
        return c.reply(kafka_error(409, r.error, r.message));
      if (r.error != error_code::none)
        return c.reply(kafka_error(400, r.error, r.message));
      c.reply(json_response("{\"name\":" + json_quote(r.name) + "}",
                            "application/json", 201));
    });
}

void list_brokers(const call& c) {
  with_statuses(c, [c](std::vector<replica_statuses> sts) {
    pb::BrokerList out;
    auto& cfg = c.svc().cluster;
    for (auto& b : c.cluster().brokers()) {
      auto id = b.node_id;
      auto* bi = out.add_brokers();
      bi->set_id(id);
      bi->set_host(b.port < 0 ? cfg.advertised_host : b.host);
      bi->set_port(b.port < 0 ? cfg.base_port + id : b.port);
      for (auto& s : sts)
        if (s.broker_id == id) {
          bi->set_alive(s.alive);
          bi->set_replicas(static_cast<int32_t>(s.replicas.size()));
          bi->set_leaders(static_cast<int32_t>(
            std::count_if(s.replicas.begin(), s.replicas.end(), [](auto& r) {
              return r.role == replica_role::leader;
            })));
        }
    }
    c.reply(json_response(to_json(out), "application/json"));
  });
}

void stop_broker(const call& c) {
  change_broker(c, false);
}

void start_broker(const call& c) {
  change_broker(c, true);
}

void list_partition_states(const call& c) {
  std::string topic;
  query_param(c.request().query, "topic", topic);
  with_metadata(c, {}, false, [c, topic](caf::expected<metadata_response> md) {
    if (!md)
      return c.reply(ask_failed(md.error(), "metadata", false));
    auto topics = std::move(md->topics);
    with_statuses(c, [c, topic, topics](std::vector<replica_statuses> sts) {
      std::map<int32_t, bool> alive;
      std::map<std::pair<topic_partition, int32_t>, const replica_status*> reps;
      for (auto& s : sts) {
        alive[s.broker_id] = s.alive;
        for (auto& r : s.replicas)
          reps[{r.partition, r.broker_id}] = &r;
      }
      pb::PartitionList out;
      for (auto& t : topics) {
        if ((!topic.empty() && t.name != topic)
            || !c.may(security::acl_operation::describe,
                      security::resource_type::topic, t.name))
          continue; // Metadata hides what the caller may not DESCRIBE
        for (auto& p : t.partition_states) {
          auto* ps = out.add_partitions();
          ps->set_topic(t.name);
          ps->set_partition(p.partition);
          ps->set_leader(p.leader);
          ps->set_leader_epoch(p.leader_epoch);
          for (auto i : p.isr)
            ps->add_isr(i);
          ps->set_log_start_offset(-1);
          ps->set_log_end_offset(-1);
          ps->set_high_watermark(-1);
          // The full assignment from the controller's metadata, in its
          // order; a replica on a stopped broker is offline.
          for (auto b : p.replicas) {
            auto* rs = ps->add_replicas();
            rs->set_broker(b);
            rs->set_in_sync(std::count(p.isr.begin(), p.isr.end(), b) > 0);
            auto a = alive.find(b);
            bool offline = a == alive.end() || !a->second;
            rs->set_offline(offline);
            rs->set_log_end_offset(-1);
            rs->set_high_watermark(-1);
            auto r = reps.find({{t.name, p.partition}, b});
            if (offline || r == reps.end()) {
              rs->set_role(offline ? "offline" : "unknown");
              continue;
            }
            rs->set_role(std::string{replica_role_name(r->second->role)});
            rs->set_log_end_offset(
              static_cast<double>(r->second->log_end_offset));
            rs->set_high_watermark(
              static_cast<double>(r->second->high_watermark));
            if (b == p.leader && r->second->role == replica_role::leader) {
              ps->set_log_end_offset(
                static_cast<double>(r->second->log_end_offset));
              ps->set_high_watermark(
                static_cast<double>(r->second->high_watermark));
              ps->set_log_start_offset(
                static_cast<double>(r->second->log_start_offset));
            }
          }
        }
      }
      c.reply(json_response(to_json(out), "application/json"));
    });
  });
}

} // namespace troupe::rest
