// The consumer-instance registry (gateway/rest/instances.hpp): one actor
// owns every REST Proxy consumer instance. The instance routes follow
// kafka-rest's KafkaConsumerState: subscribe / assign are mutually
// exclusive (Kafka's IllegalStateException is 409, 40903), commits store
// offset + 1.
//
// Two timers per instance, each a delayed send guarded by an epoch (no
// expiration thread), kept apart as in REST Proxy, where one is the
// proxy's and the other the Java consumer's own:
// - consumer.instance.timeout.ms (a server property, kafka-rest's
//   KafkaRestConfig, default 300000): every request to the instance (poll,
//   commit, committed offsets, subscription, assignments, positions) re-arms
//   it, and a poll still waiting keeps it; when it fires, the consumer
//   leaves its group and the instance is deleted (then 404, 40403).
// - max.poll.interval.ms (the instance's consumer setting): a subscribed
//   consumer not polled for that long leaves its group, as the Java
//   consumer's heartbeat thread does, so that its partitions go to members
//   that do poll. The instance stays: a REST Proxy user who comes back with
//   GET .../records within consumer.instance.timeout.ms finds it and the
//   poll rejoins the group, as KafkaConsumer.poll() does; its positions
//   start again from the committed offsets. Manual assignments have no
//   group to leave.

#include <algorithm>
#include <random>

#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "client/consumer.hpp"
#include "client/coordinator_lookup.hpp"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/instance_state.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/routes.hpp"

namespace troupe::rest {

namespace {

using std::chrono::milliseconds;
using rp_t = caf::typed_response_promise<http_response>;

constexpr std::string_view mutually_exclusive =
  "Subscription to topics, partitions and pattern are mutually exclusive";

http_response ok(std::string body) {
  return json_response(std::move(body), std::string{v2_json});
}

/// A random name as REST Proxy makes one (rest-consumer-<uuid>).
std::string generated_name() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  auto hex = [](uint64_t v, int digits) {
    static constexpr char d[] = "0123456789abcdef";
    std::string out;
    for (int i = digits - 1; i >= 0; --i)
      out += d[(v >> (i * 4)) & 15];
    return out;
  };
  auto a = rng();
  auto b = rng();
  return "rest-consumer-" + hex(a >> 32, 8) + "-" + hex(a >> 16, 4) + "-"
         + hex(a, 4) + "-" + hex(b >> 48, 4) + "-" + hex(b, 12);
}

std::string partitions_json(const std::vector<topic_partition>& tps) {
  std::string out = "{\"partitions\":[";
  for (size_t i = 0; i < tps.size(); ++i) {
    if (i > 0)
      out += ',';
    out += "{\"topic\":" + json_quote(tps[i].topic)
           + ",\"partition\":" + std::to_string(tps[i].partition) + "}";
  }
  return out + "]}";
}

void close_consumer(
  registry_ptr self, consumer_actor c, std::function<void()> done = [] {}) {
  if (!c)
    return done();
  ask<consumer_status>(self, c, consumer_timeout, consumer_close{},
                       [done](caf::expected<consumer_status>) { done(); });
}

/// Kafka's unsubscribe(): no topics, no partitions, no membership.
void drop_subscription(registry_ptr self, instance& inst) {
  inst.kind = subscription_kind::none;
  inst.topics.clear();
  inst.pattern.clear();
  inst.compiled.reset();
  inst.assigned.clear();
  ++inst.position_epoch;
  close_consumer(self, std::exchange(inst.consumer, {}));
}

/// The group's coordinating broker, or the error (a Kafka error reads as
/// no broker to ask).
void with_coordinator(registry_ptr self, const std::string& group,
                      std::function<void(caf::expected<broker_actor>)> k) {
  client::find_coordinator(self, self->state.cluster->bootstrap(), group,
                           edge_request_timeout, [k](client::coordinator found) {
                             if (found.failure)
                               return k(found.failure);
                             if (found.error != error_code::none)
                               return k(caf::make_error(
                                 caf::sec::invalid_argument));
                             k(found.broker);
                           });
}

http_response commit_result(caf::expected<offset_commit_response>& res) {
  if (!res)
    return ask_failed(res.error(), "OffsetCommit");
  for (auto& p : res->partitions)
    if (p.error != error_code::none)
      return v2::kafka(p.error, "Commit of " + p.topic + "-"
                                  + std::to_string(p.partition) + " failed: "
                                  + std::string{error_message(p.error)});
  return ok("[]");
}

/// Commits through the consumer (a group member commits with its
/// generation) or, with no membership, as a standalone commit
/// (generation -1), as Kafka's commitSync does for assign().
void commit(registry_ptr self, const instance& inst,
            std::vector<offset_commit_partition> offsets, rp_t rp) {
  if (offsets.empty()) {
    rp.deliver(ok("[]"));
    return;
  }
  bool member = inst.kind == subscription_kind::topics
                || inst.kind == subscription_kind::pattern;
  if (member && !inst.consumer) {
    // Left after max.poll.interval.ms: Kafka's CommitFailedException.
    rp.deliver(v2::kafka(error_code::unknown_member_id,
                         "Offset commit cannot be completed since the "
                         "consumer is not part of an active group for auto "
                         "partition assignment; it is likely that the "
                         "consumer was kicked out of the group."));
    return;
  }
  if (member) {
    ask<offset_commit_response>(
      self, inst.consumer, edge_request_timeout, consumer_commit{std::move(offsets)},
      [rp](caf::expected<offset_commit_response> res) mutable {
        rp.deliver(commit_result(res));
      });
    return;
  }
  auto group = inst.key.group;
  with_coordinator(self, group,
                   [self, group, offsets = std::move(offsets),
                    rp](caf::expected<broker_actor> b) mutable {
                     if (!b) {
                       rp.deliver(ask_failed(b.error(), "FindCoordinator"));
                       return;
                     }
                     offset_commit_request req;
                     req.group_id = group;
                     req.generation_id = -1;
                     req.partitions = std::move(offsets);
                     ask<offset_commit_response>(
                       self, *b, edge_request_timeout, std::move(req),
                       [rp](caf::expected<offset_commit_response> res) mutable {
                         rp.deliver(commit_result(res));
                       });
                   });
}

// -- handlers ---------------------------------------------------------------------

http_response on_create(registry_ptr self, create_instance& req) {
  auto& st = self->state;
  auto name = req.settings.name.empty() ? generated_name() : req.settings.name;
  instance_key key{req.group, name};
  if (st.instances.count(key))
    return v2::instance_exists();
  auto& inst = st.instances[key];
  inst.key = key;
  inst.uid = st.next_uid++;
  inst.settings = std::move(req.settings);
  inst.settings.name = name;
  touch(self, inst);
  return ok("{\"instance_id\":" + json_quote(name) + ",\"base_uri\":"
            + json_quote(req.base_uri + "/consumers/" + req.group
                         + "/instances/" + name)
            + "}");
}

caf::result<http_response> on_delete(registry_ptr self, delete_instance& req) {
  auto& st = self->state;
  auto i = st.instances.find(req.key);
  if (i == st.instances.end())
    return v2::instance_not_found();
  auto c = std::exchange(i->second.consumer, {});
  st.instances.erase(i);
  // LeaveGroup goes out before the answer: the group rebalances at once.
  auto rp = self->make_response_promise<http_response>();
  close_consumer(self, c, [rp]() mutable { rp.deliver(no_content()); });
  return rp;
}

caf::result<http_response> on_subscribe(registry_ptr self,
                                        subscribe_instance& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  if (!req.has_topics && !req.has_pattern)
    return no_content(); // REST Proxy: neither field, nothing to do
  if (inst->kind == subscription_kind::assigned
      || (req.has_topics && inst->kind == subscription_kind::pattern)
      || (req.has_pattern && inst->kind == subscription_kind::topics))
    return v2::illegal_state(mutually_exclusive);
  if (req.has_topics) {
    // Kafka's subscribe([]) is unsubscribe().
    if (req.topics.empty()) {
      drop_subscription(self, *inst);
      return no_content();
    }
    std::sort(req.topics.begin(), req.topics.end());
    req.topics.erase(std::unique(req.topics.begin(), req.topics.end()),
                     req.topics.end());
    inst->kind = subscription_kind::topics;
    inst->topics = std::move(req.topics);
    ++inst->position_epoch;
    replace_consumer(self, *inst, spawn_consumer_for(self, *inst));
    arm_poll_interval(self, *inst);
    return no_content();
  }
  std::shared_ptr<const std::regex> compiled;
  try {
    compiled =
      std::make_shared<const std::regex>(req.pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return v2::bad_request("topic_pattern is not a valid regular expression: "
                           + std::string{e.what()});
  }
  auto rp = self->make_response_promise<http_response>();
  ask<metadata_response>(
    self, self->state.cluster->controller(), edge_request_timeout,
    metadata_request{{}, false},
    [self, key = req.key, uid = inst->uid, pattern = req.pattern, compiled,
     rp](caf::expected<metadata_response> md) mutable {
      if (!md) {
        rp.deliver(ask_failed(md.error(), "metadata"));
        return;
      }
      self->state.cluster->learn(md->brokers);
      auto* inst = self->state.find(key, uid);
      if (!inst) {
        rp.deliver(v2::instance_not_found());
        return;
      }
      if (inst->kind == subscription_kind::assigned
          || inst->kind == subscription_kind::topics) {
        rp.deliver(v2::illegal_state(mutually_exclusive));
        return;
      }
      inst->kind = subscription_kind::pattern;
      inst->pattern = pattern;
      inst->compiled = compiled;
      inst->topics = matching_topics(*compiled, *md);
      ++inst->position_epoch;
      replace_consumer(self, *inst, spawn_consumer_for(self, *inst));
      arm_poll_interval(self, *inst);
      rp.deliver(no_content());
    });
  return rp;
}

http_response on_unsubscribe(registry_ptr self, unsubscribe_instance& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  drop_subscription(self, *inst);
  return no_content();
}

http_response on_subscription(registry_ptr self, subscription_of& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  std::string out = "{\"topics\":[";
  if (inst->kind == subscription_kind::topics
      || inst->kind == subscription_kind::pattern)
    for (size_t i = 0; i < inst->topics.size(); ++i)
      out += (i > 0 ? "," : "") + json_quote(inst->topics[i]);
  return ok(out + "]}");
}

caf::result<http_response> on_assign(registry_ptr self, assign_instance& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  if (inst->kind == subscription_kind::topics
      || inst->kind == subscription_kind::pattern)
    return v2::illegal_state(mutually_exclusive);
  // Kafka's assign([]) is unsubscribe().
  if (req.partitions.empty()) {
    drop_subscription(self, *inst);
    return no_content();
  }
  std::sort(req.partitions.begin(), req.partitions.end());
  req.partitions.erase(
    std::unique(req.partitions.begin(), req.partitions.end()),
    req.partitions.end());
  inst->kind = subscription_kind::assigned;
  inst->assigned = req.partitions;
  ++inst->position_epoch;
  if (!inst->consumer) {
    inst->consumer = spawn_consumer_for(self, *inst);
    return no_content();
  }
  auto rp = self->make_response_promise<http_response>();
  ask<consumer_positions>(self, inst->consumer, consumer_timeout,
                          consumer_assign{std::move(req.partitions)},
                          [rp](caf::expected<consumer_positions> res) mutable {
                            if (!res)
                              rp.deliver(ask_failed(res.error(), "assign"));
                            else
                              rp.deliver(no_content());
                          });
  return rp;
}

caf::result<http_response> on_assignment(registry_ptr self,
                                         assignment_of& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  if (inst->kind == subscription_kind::assigned)
    return ok(partitions_json(inst->assigned));
  if (!inst->consumer)
    return ok(partitions_json({}));
  auto rp = self->make_response_promise<http_response>();
  ask<consumer_status>(
    self, inst->consumer, consumer_timeout, consumer_status_request{},
    [rp](caf::expected<consumer_status> st) mutable {
      rp.deliver(ok(
        partitions_json(st ? st->assignment : std::vector<topic_partition>{})));
    });
  return rp;
}

caf::result<http_response> on_commit(registry_ptr self, commit_instance& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  // No offsets: every position read so far (Kafka's commitSync()).
  if (!req.has_offsets && !inst->consumer)
    return ok("[]");
  auto rp = self->make_response_promise<http_response>();
  if (req.has_offsets) {
    commit(self, *inst, std::move(req.offsets), rp);
    return rp;
  }
  ask<consumer_positions>(
    self, inst->consumer, consumer_timeout, consumer_positions_request{},
    [self, key = req.key, uid = inst->uid,
     rp](caf::expected<consumer_positions> pos) mutable {
      auto* inst = self->state.find(key, uid);
      if (!inst) {
        rp.deliver(v2::instance_not_found());
        return;
      }
      if (!pos) {
        rp.deliver(ask_failed(pos.error(), "positions"));
        return;
      }
      std::vector<offset_commit_partition> offsets;
      for (auto& p : pos->positions)
        if (p.offset >= 0)
          offsets.push_back(
            {p.partition.topic, p.partition.partition, p.offset, -1, ""});
      commit(self, *inst, std::move(offsets), rp);
    });
  return rp;
}

caf::result<http_response> on_committed(registry_ptr self, committed_of& req) {
  if (!requested(self, req.key))
    return v2::instance_not_found();
  auto rp = self->make_response_promise<http_response>();
  auto group = req.key.group;
  with_coordinator(
    self, group,
    [self, group, parts = std::move(req.partitions),
     rp](caf::expected<broker_actor> b) mutable {
      if (!b) {
        rp.deliver(ask_failed(b.error(), "FindCoordinator"));
        return;
      }
      ask<offset_fetch_response>(
        self, *b, edge_request_timeout, offset_fetch_request{group, parts},
        [rp](caf::expected<offset_fetch_response> res) mutable {
          if (!res) {
            rp.deliver(ask_failed(res.error(), "OffsetFetch"));
            return;
          }
          if (res->error != error_code::none) {
            rp.deliver(v2::kafka(res->error, "OffsetFetch failed"));
            return;
          }
          // Kafka's committed(): partitions without a commit are left out.
          std::string out = "{\"offsets\":[";
          bool first = true;
          for (auto& o : res->partitions) {
            if (o.error != error_code::none || o.offset < 0)
              continue;
            out += (first ? "" : ",");
            first = false;
            out += "{\"topic\":" + json_quote(o.topic)
                   + ",\"partition\":" + std::to_string(o.partition)
                   + ",\"offset\":" + std::to_string(o.offset)
                   + ",\"metadata\":" + json_quote(o.metadata) + "}";
          }
          rp.deliver(ok(out + "]}"));
        });
    });
  return rp;
}

/// Hands resolved positions to the consumer; unowned partitions are 409.
void apply_seek(registry_ptr self, instance_key key, uint64_t uid,
                std::vector<partition_position> positions, rp_t rp) {
  auto* inst = self->state.find(key, uid);
  if (!inst || !inst->consumer) {
    rp.deliver(inst ? v2::illegal_state(
                 "No current assignment for partition "
                 + (positions.empty() ? std::string{}
                                      : to_string(positions[0].partition)))
                    : v2::instance_not_found());
    return;
  }
  ask<consumer_positions>(
    self, inst->consumer, consumer_timeout, consumer_seek{std::move(positions)},
    [self, key, uid, rp](caf::expected<consumer_positions> res) mutable {
      if (!res) {
        rp.deliver(ask_failed(res.error(), "seek"));
        return;
      }
      if (auto* inst = self->state.find(key, uid))
        ++inst->position_epoch;
      if (!res->not_assigned.empty()) {
        rp.deliver(v2::illegal_state("No current assignment for partition "
                                     + to_string(res->not_assigned[0])));
        return;
      }
      rp.deliver(no_content());
    });
}

caf::result<http_response> on_seek(registry_ptr self, seek_instance& req) {
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  if (!inst->consumer && (!req.positions.empty() || !req.timestamps.empty())) {
    auto& tp = !req.positions.empty() ? req.positions[0].partition
                                      : req.timestamps[0].first;
    return v2::illegal_state("No current assignment for partition "
                             + to_string(tp));
  }
  if (req.positions.empty() && req.timestamps.empty())
    return no_content();
  auto rp = self->make_response_promise<http_response>();
  if (req.timestamps.empty()) {
    apply_seek(self, req.key, inst->uid, std::move(req.positions), rp);
    return rp;
  }
  // Kafka's offsetsForTimes: ListOffsets by timestamp at each leader.
  std::vector<std::string> topics;
  for (auto& [tp, ts] : req.timestamps)
    topics.push_back(tp.topic);
  ask<metadata_response>(
    self, self->state.cluster->controller(), edge_request_timeout,
    metadata_request{topics, false},
    [self, key = req.key, uid = inst->uid, positions = std::move(req.positions),
     stamps = std::move(req.timestamps),
     rp](caf::expected<metadata_response> md) mutable {
      if (!md) {
        rp.deliver(ask_failed(md.error(), "metadata"));
        return;
      }
      self->state.cluster->learn(md->brokers);
      std::map<topic_partition, int32_t> leaders;
      for (auto& t : md->topics)
        for (auto& p : t.partition_states)
          leaders[{t.name, p.partition}] = p.leader;
      std::vector<std::pair<broker_actor, list_offsets_request>> reqs;
      for (auto& [tp, ts] : stamps)
        reqs.emplace_back(self->state.cluster->broker(leaders[tp]),
                          list_offsets_request{tp, ts});
      ask_all<list_offsets_response>(
        self, std::move(reqs), edge_request_timeout,
        [self, key, uid, positions = std::move(positions), stamps,
         rp](std::vector<caf::expected<list_offsets_response>> rs) mutable {
          for (size_t i = 0; i < rs.size(); ++i) {
            // No record at or after the time: read from the end.
            int64_t to = position_latest;
            if (rs[i] && rs[i]->error == error_code::none && rs[i]->offset >= 0)
              to = rs[i]->offset;
            positions.push_back({stamps[i].first, to});
          }
          apply_seek(self, key, uid, std::move(positions), rp);
        });
    });
  return rp;
}

void on_expiry(registry_ptr self, instance_expiry& x) {
  auto* inst = self->state.find(x.key, x.uid);
  if (!inst || inst->idle_epoch != x.epoch)
    return;
  // kafka-rest renews the expiration after each partial read of a poll.
  if (self->state.polling(inst->uid))
    return touch(self, *inst);
  spdlog::info("http: consumer instance {} of group {} got no request within "
               "consumer.instance.timeout.ms={}; it leaves the group and is "
               "deleted",
               x.key.name, x.key.group, self->state.config.instance_timeout_ms);
  close_consumer(self, std::exchange(inst->consumer, {}));
  self->state.instances.erase(x.key);
}

void on_poll_interval_expiry(registry_ptr self, poll_interval_expiry& x) {
  auto* inst = self->state.find(x.key, x.uid);
  if (!inst || inst->poll_interval_epoch != x.epoch || !inst->consumer
      || inst->kind == subscription_kind::assigned)
    return;
  if (self->state.polling(inst->uid))
    return arm_poll_interval(self, *inst);
  spdlog::info("http: consumer instance {} of group {} not polled within "
               "max.poll.interval.ms={}; it leaves the group until its next "
               "poll",
               x.key.name, x.key.group, inst->settings.max_poll_interval_ms);
  ++inst->position_epoch;
  inst->auto_committed.clear();
  close_consumer(self, std::exchange(inst->consumer, {}));
}

caf::result<instance_count> on_close_all(registry_ptr self) {
  auto& st = self->state;
  std::vector<std::pair<consumer_actor, consumer_close>> closes;
  for (auto& [key, inst] : st.instances)
    if (inst.consumer)
      closes.emplace_back(std::exchange(inst.consumer, {}), consumer_close{});
  auto n = st.instances.size();
  st.instances.clear();
  auto rp = self->make_response_promise<instance_count>();
  ask_all<consumer_status>(
    self, std::move(closes), consumer_timeout,
    [rp, n](std::vector<caf::expected<consumer_status>>) mutable {
      rp.deliver(instance_count{n});
    });
  return rp;
}

instances_actor::behavior_type registry(registry_ptr self,
                                        std::shared_ptr<const cluster_view> cv,
                                        registry_config config) {
  self->state.cluster = std::move(cv);
  self->state.config = config;
  // The consumers are not linked (one failing must not take the registry
  // down); they go with it.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    for (auto& [key, inst] : self->state.instances)
      if (inst.consumer)
        self->send_exit(inst.consumer, msg.reason);
    self->quit(msg.reason);
  });
  return {
    [self](create_instance& r) { return on_create(self, r); },
    [self](subscribe_instance& r) { return on_subscribe(self, r); },
    [self](unsubscribe_instance& r) { return on_unsubscribe(self, r); },
    [self](subscription_of& r) { return on_subscription(self, r); },
    [self](assign_instance& r) { return on_assign(self, r); },
    [self](assignment_of& r) { return on_assignment(self, r); },
    [self](poll_instance& r) { return start_poll(self, r); },
    [self](commit_instance& r) { return on_commit(self, r); },
    [self](committed_of& r) { return on_committed(self, r); },
    [self](seek_instance& r) { return on_seek(self, r); },
    [self](delete_instance& r) { return on_delete(self, r); },
    [self](instance_count_request&) {
      return instance_count{self->state.instances.size()};
    },
    [self](close_all_instances&) { return on_close_all(self); },
    [self](instance_expiry& x) { on_expiry(self, x); },
    [self](poll_interval_expiry& x) { on_poll_interval_expiry(self, x); },
    [self](poll_wake& w) { continue_poll(self, w.poll); },
  };
}

} // namespace

instance* requested(registry_ptr self, const instance_key& key) {
  auto* inst = self->state.find(key);
  if (inst)
    touch(self, *inst);
  return inst;
}

void touch(registry_ptr self, instance& inst) {
  self->delayed_send(self, milliseconds{self->state.config.instance_timeout_ms},
                     instance_expiry{inst.key, inst.uid, ++inst.idle_epoch});
}

void arm_poll_interval(registry_ptr self, instance& inst) {
  self->delayed_send(
    self, milliseconds{inst.settings.max_poll_interval_ms},
    poll_interval_expiry{inst.key, inst.uid, ++inst.poll_interval_epoch});
}

consumer_actor spawn_consumer_for(registry_ptr self, const instance& inst) {
  consumer_config c;
  c.name = inst.key.name;
  c.client_id = inst.key.name;
  c.group_id = inst.key.group;
  c.assignors = inst.settings.assignors;
  c.session_timeout_ms = inst.settings.session_timeout_ms;
  c.heartbeat_interval_ms = inst.settings.heartbeat_interval_ms;
  c.max_poll_interval_ms = inst.settings.max_poll_interval_ms;
  c.bootstrap_servers = self->state.cluster->broker_handles();
  if (inst.kind == subscription_kind::assigned) {
    c.manual_assignment = true;
    c.assignment = inst.assigned;
  } else {
    c.topics = inst.topics;
  }
  return self->spawn<consumer>(c, self->state.cluster->bootstrap(),
                     event_listener_actor{});
}

void replace_consumer(registry_ptr self, instance& inst, consumer_actor next) {
  close_consumer(self, std::exchange(inst.consumer, std::move(next)));
}

instances_actor spawn_instance_registry(caf::actor_system& sys,
                                        std::shared_ptr<const cluster_view> cv,
                                        registry_config config) {
  return sys.spawn(registry, std::move(cv), config);
}

} // namespace troupe::rest
