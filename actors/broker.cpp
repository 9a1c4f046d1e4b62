#include "actors/broker.hpp"

#include <algorithm>
#include <memory>
#include <random>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/group_coordinator.hpp"
#include "domain/java_hash.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "domain/topic_name.hpp"

namespace troupe {

namespace {

constexpr auto internal_timeout = std::chrono::seconds(30);

/// Leader of the group's __consumer_offsets partition, -1 while unknown.
int32_t coordinator_for(broker_ptr self, const std::string& group_id) {
  auto& st = self->state;
  auto p = static_cast<size_t>(offsets_partition_for(
    group_id, static_cast<int32_t>(st.offsets_leaders.size())));
  return p < st.offsets_leaders.size() ? st.offsets_leaders[p] : -1;
}

/// Takes the controller's view of __consumer_offsets leadership. Groups of
/// partitions this broker no longer leads are resigned: their coordinators
/// answer everything parked with NOT_COORDINATOR and stop.
void update_offsets_leaders(broker_ptr self,
                            const std::vector<partition_metadata>& parts) {
  auto& st = self->state;
  for (auto& p : parts) {
    if (p.partition < 0)
      continue;
    auto i = static_cast<size_t>(p.partition);
    if (i >= st.offsets_leaders.size())
      st.offsets_leaders.resize(i + 1, -1);
    st.offsets_leaders[i] = p.leader;
  }
  for (auto i = st.groups.begin(); i != st.groups.end();) {
    if (coordinator_for(self, i->first) != st.node_id) {
      spdlog::info("broker {}: resigning group {}", st.node_id, i->first);
      self->send(i->second, group_shutdown{error_code::not_coordinator});
      i = st.groups.erase(i);
    } else {
      ++i;
    }
  }
}

group_coordinator_actor find_group(broker_ptr self,
                                   const std::string& group_id) {
  auto i = self->state.groups.find(group_id);
  return i == self->state.groups.end() ? group_coordinator_actor{} : i->second;
}

/// Kafka's getOrMaybeCreateGroup: only a new member's JoinGroup or a
/// standalone commit creates a group.
group_coordinator_actor create_group(broker_ptr self,
                                     const std::string& group_id) {
  auto& st = self->state;
  auto seed = st.config.seed != 0 ? st.config.seed + st.next_seed++
                                  : std::random_device{}();
  auto coordinator = self->spawn<caf::linked>(
    group_coordinator, group_id, st.config.group, seed, st.listener);
  st.groups.emplace(group_id, coordinator);
  return coordinator;
}

/// Kafka's order of checks before a group request reaches its coordinator.
error_code check_group_request(broker_ptr self, const std::string& group_id,
                               bool allow_empty_id) {
  if (auto e = validate_group_id(group_id, allow_empty_id);
      e != error_code::none)
    return e;
  auto leader = coordinator_for(self, group_id);
  if (leader < 0)
    return error_code::coordinator_not_available;
  if (leader != self->state.node_id)
    return error_code::not_coordinator;
  return error_code::none;
}

offset_commit_response commit_error(const offset_commit_request& req,
                                    error_code e) {
  offset_commit_response res;
  for (auto& p : req.partitions)
    res.partitions.push_back({p.topic, p.partition, e});
  return res;
}

leave_group_response leave_error(const leave_group_request& req, error_code e) {
  leave_group_response res;
  for (auto& m : req.members)
    res.members.push_back({m.member_id, m.group_instance_id, e});
  if (res.members.size() == 1 || req.members.empty())
    res.error = e;
  return res;
}

/// Collects one answer per coordinator, then delivers them together.
template <class Response>
struct fan_in {
  caf::typed_response_promise<Response> promise;
  Response response;
  size_t outstanding = 0;

  void done() {
    if (--outstanding == 0)
      promise.deliver(std::move(response));
  }
};

} // namespace

broker_actor::behavior_type broker(broker_ptr self, int32_t node_id,
                                   cluster_config config,
                                   controller_actor controller,
                                   event_listener_actor listener) {
  auto& st = self->state;
  st.node_id = node_id;
  st.config = std::move(config);
  st.controller = std::move(controller);
  st.listener = std::move(listener);
  // Coordinators are linked: a coordinator that ends on its own (group
  // deleted) leaves the map; the broker ending takes them all down.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& groups = self->state.groups;
    for (auto i = groups.begin(); i != groups.end(); ++i) {
      if (i->second.address() == msg.source) {
        groups.erase(i);
        return;
      }
    }
    // A coordinator it resigned ends normally; anyone else's failure is
    // ours too.
    if (msg.reason != caf::exit_reason::normal)
      self->quit(msg.reason);
  });
  return {
    // -- cluster ------------------------------------------------------------
    [self](cluster_peers& peers) {
      auto& st = self->state;
      st.peers = std::move(peers.brokers);
      std::sort(st.peers.begin(), st.peers.end(),
                [](auto& x, auto& y) { return x.node_id < y.node_id; });
      self
        ->request(st.controller, internal_timeout,
                  metadata_request{{offsets_topic}, false})
        .then(
          [self](metadata_response& res) {
            if (!res.topics.empty())
              update_offsets_leaders(self, res.topics[0].partition_states);
          },
          [self](caf::error& err) {
            spdlog::error("broker {}: no __consumer_offsets metadata: {}",
                          self->state.node_id, caf::to_string(err));
          });
    },
    [self](leadership_update& update) {
      std::vector<partition_metadata> parts;
      for (auto& p : update.partitions)
        if (p.topic == offsets_topic)
          parts.push_back(p.state);
      if (!parts.empty())
        update_offsets_leaders(self, parts);
    },
    [self](find_coordinator_request& req) {
      auto& st = self->state;
      find_coordinator_response res;
      if (auto e = validate_group_id(req.key, true); e != error_code::none) {
        res.error = e;
        return res;
      }
      auto leader = coordinator_for(self, req.key);
      auto i = std::find_if(st.peers.begin(), st.peers.end(),
                            [&](auto& b) { return b.node_id == leader; });
      if (i == st.peers.end() || !i->handle) {
        res.error = error_code::coordinator_not_available;
        return res;
      }
      res.node_id = i->node_id;
      res.host = i->host;
      res.port = i->port;
      res.broker = i->handle;
      return res;
    },
    [self](metadata_request& req) -> caf::result<metadata_response> {
      auto rp = self->make_response_promise<metadata_response>();
      self->request(self->state.controller, internal_timeout, std::move(req))
        .then(
          [self, rp](metadata_response& res) mutable {
            res.brokers = self->state.peers;
            rp.deliver(std::move(res));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
      return rp;
    },
    [self](create_topics_request& req) {
      return self->delegate(self->state.controller, std::move(req));
    },
    // -- the group protocol ------------------------------------------------------
    [self](join_group_request& req) -> caf::result<join_group_response> {
      if (auto e = check_group_request(self, req.group_id, false);
          e != error_code::none) {
        join_group_response res;
        res.error = e;
        res.member_id = req.member_id;
        return res;
      }
      auto c = find_group(self, req.group_id);
      if (!c) {
        if (!req.member_id.empty()) {
          join_group_response res;
          res.error = error_code::unknown_member_id;
          res.member_id = req.member_id;
          return res;
        }
        c = create_group(self, req.group_id);
      }
      return self->delegate(c, std::move(req));
    },
    [self](sync_group_request& req) -> caf::result<sync_group_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c) {
        sync_group_response res;
        res.error = e != error_code::none ? e : error_code::unknown_member_id;
        return res;
      }
      return self->delegate(c, std::move(req));
    },
    [self](heartbeat_request& req) -> caf::result<heartbeat_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c)
        return heartbeat_response{
          e != error_code::none ? e : error_code::unknown_member_id};
      return self->delegate(c, std::move(req));
    },
    [self](leave_group_request& req) -> caf::result<leave_group_response> {
      auto e = check_group_request(self, req.group_id, false);
      auto c = e == error_code::none ? find_group(self, req.group_id)
                                     : group_coordinator_actor{};
      if (!c)
        return leave_error(
          req, e != error_code::none ? e : error_code::unknown_member_id);
      return self->delegate(c, std::move(req));
    },
    [self](offset_commit_request& req) -> caf::result<offset_commit_response> {
      // Kafka accepts the empty group id for offset APIs.
      if (auto e = check_group_request(self, req.group_id, true);
          e != error_code::none)
        return commit_error(req, e);
      auto c = find_group(self, req.group_id);
      if (!c) {
        // No group: a standalone commit creates it; a commit that claims a
        // generation comes from an old generation of a gone group.
        if (req.generation_id >= 0)
          return commit_error(req, error_code::illegal_generation);
        c = create_group(self, req.group_id);
      }
      return self->delegate(c, std::move(req));
    },
    [self](offset_fetch_request& req) -> caf::result<offset_fetch_response> {
      if (auto e = check_group_request(self, req.group_id, true);
          e != error_code::none) {
        offset_fetch_response res;
        res.error = e;
        return res;
      }
      auto c = find_group(self, req.group_id);
      if (!c) {
        // Kafka: an unknown group has nothing committed.
        offset_fetch_response res;
        for (auto& tp : req.partitions)
          res.partitions.push_back(
            {tp.topic, tp.partition, -1, -1, {}, error_code::none});
        return res;
      }
      return self->delegate(c, std::move(req));
    },
    [self](
      describe_groups_request& req) -> caf::result<describe_groups_response> {
      using state_t = fan_in<describe_groups_response>;
      auto fan = std::make_shared<state_t>();
      fan->promise = self->make_response_promise<describe_groups_response>();
      fan->response.groups.resize(req.group_ids.size());
      fan->outstanding = 1; // released below, after every request is out
      for (size_t i = 0; i < req.group_ids.size(); ++i) {
        auto& id = req.group_ids[i];
        auto& slot = fan->response.groups[i];
        slot.group_id = id;
        if (auto e = check_group_request(self, id, true);
            e != error_code::none) {
          slot.error = e;
          continue;
        }
        auto c = find_group(self, id);
        if (!c) {
          slot.state = "Dead"; // Kafka's answer for an unknown group
          continue;
        }
        ++fan->outstanding;
        self->request(c, internal_timeout, describe_groups_request{{id}})
          .then(
            [fan, i](described_group& g) {
              fan->response.groups[i] = std::move(g);
              fan->done();
            },
            [fan, i](caf::error&) {
              fan->response.groups[i].error = error_code::not_coordinator;
              fan->done();
            });
      }
      fan->done();
      return fan->promise;
    },
    [self](list_groups_request& req) -> caf::result<list_groups_response> {
      using state_t = fan_in<list_groups_response>;
      auto fan = std::make_shared<state_t>();
      fan->promise = self->make_response_promise<list_groups_response>();
      fan->outstanding = 1;
      auto filter = std::make_shared<std::vector<std::string>>(
        std::move(req.states_filter));
      for (auto& [id, c] : self->state.groups) {
        ++fan->outstanding;
        self->request(c, internal_timeout, list_groups_request{})
          .then(
            [fan, filter](listed_group& g) {
              if (filter->empty()
                  || std::find(filter->begin(), filter->end(), g.state)
                       != filter->end())
                fan->response.groups.push_back(std::move(g));
              fan->done();
            },
            [fan](caf::error&) { fan->done(); });
      }
      fan->done();
      return fan->promise;
    },
  };
}

} // namespace troupe
