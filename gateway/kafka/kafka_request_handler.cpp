#include "gateway/kafka/kafka_request_handler.hpp"

#include <algorithm>
#include <utility>

#include "gateway/kafka/kafka_authorization.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe {

namespace {

using namespace kafka_handlers;

struct handler {
  kafka_session_ptr self;
  const wire::request_header& header;
  kafka_reply_fn reply;

  void operator()(wire::api_versions_request& req) {
    // KIP-511: Kafka keeps the client's software name and version for its
    // connection metrics; troupe logs them once per connection.
    if (header.api_version >= 3 && self->state.client_software.empty()) {
      self->state.client_software =
        req.client_software_name + " " + req.client_software_version;
      spdlog::info("kafka: {} is {}", self->state.ctx.client_host,
                   self->state.client_software);
    }
    auto answer = wire::answer_api_versions(req, header.api_version,
                                            kafka_listener_versions());
    auto h = header;
    h.api_version = answer.version;
    reply(frame(h, answer.response, wire::encode_api_versions_response));
  }

  void operator()(wire::metadata_request& req) {
    serve_metadata(self, header, req, std::move(reply));
  }

  void operator()(wire::produce_request& req) {
    serve_produce(self, header, req, std::move(reply));
  }

  void operator()(wire::fetch_request& req) {
    serve_fetch(self, header, req, std::move(reply));
  }

  void operator()(wire::list_offsets_request& req) {
    serve_list_offsets(self, header, req, std::move(reply));
  }

  void operator()(wire::offset_for_leader_epoch_request& req) {
    serve_offset_for_leader_epoch(self, header, req, std::move(reply));
  }

  void operator()(wire::init_producer_id_request& req) {
    serve_init_producer_id(self, header, req, std::move(reply));
  }

  void operator()(wire::offset_commit_request& req) {
    serve_offset_commit(self, header, req, std::move(reply));
  }

  void operator()(wire::offset_fetch_request& req) {
    serve_offset_fetch(self, header, req, std::move(reply));
  }

  void operator()(wire::find_coordinator_request& req) {
    serve_find_coordinator(self, header, req, std::move(reply));
  }

  void operator()(wire::join_group_request& req) {
    serve_join_group(self, header, req, std::move(reply));
  }

  void operator()(wire::sync_group_request& req) {
    serve_sync_group(self, header, req, std::move(reply));
  }

  void operator()(wire::heartbeat_request& req) {
    serve_heartbeat(self, header, req, std::move(reply));
  }

  void operator()(wire::leave_group_request& req) {
    serve_leave_group(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_groups_request& req) {
    serve_describe_groups(self, header, req, std::move(reply));
  }

  void operator()(wire::list_groups_request& req) {
    serve_list_groups(self, header, req, std::move(reply));
  }

  void operator()(wire::create_topics_request& req) {
    serve_create_topics(self, header, req, std::move(reply));
  }

  void operator()(wire::delete_topics_request& req) {
    serve_delete_topics(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_configs_request& req) {
    serve_describe_configs(self, header, req, std::move(reply));
  }

  void operator()(wire::alter_configs_request& req) {
    serve_alter_configs(self, header, req, std::move(reply));
  }

  void operator()(wire::incremental_alter_configs_request& req) {
    serve_incremental_alter_configs(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_cluster_request& req) {
    serve_describe_cluster(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_acls_request& req) {
    serve_describe_acls(self, header, req, std::move(reply));
  }

  void operator()(wire::create_acls_request& req) {
    serve_create_acls(self, header, req, std::move(reply));
  }

  void operator()(wire::delete_acls_request& req) {
    serve_delete_acls(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_user_scram_credentials_request& req) {
    serve_describe_user_scram_credentials(self, header, req, std::move(reply));
  }

  void operator()(wire::alter_user_scram_credentials_request& req) {
    serve_alter_user_scram_credentials(self, header, req, std::move(reply));
  }

  void operator()(wire::delete_groups_request& req) {
    serve_delete_groups(self, header, req, std::move(reply));
  }

  void operator()(wire::offset_delete_request& req) {
    serve_offset_delete(self, header, req, std::move(reply));
  }

  void operator()(wire::create_partitions_request& req) {
    serve_create_partitions(self, header, req, std::move(reply));
  }

  void operator()(wire::delete_records_request& req) {
    serve_delete_records(self, header, req, std::move(reply));
  }

  void operator()(wire::describe_log_dirs_request& req) {
    serve_describe_log_dirs(self, header, req, std::move(reply));
  }

  void operator()(wire::elect_leaders_request& req) {
    serve_elect_leaders(self, header, req, std::move(reply));
  }

  void operator()(wire::alter_partition_reassignments_request& req) {
    serve_alter_partition_reassignments(self, header, req, std::move(reply));
  }

  void operator()(wire::list_partition_reassignments_request& req) {
    serve_list_partition_reassignments(self, header, req, std::move(reply));
  }

  kafka_auth::request_authorizer authorizer() const {
    return {self->state.ctx.security, self->state.identity};
  }

  void operator()(wire::consumer_group_heartbeat_request& req) {
    // handleConsumerGroupHeartbeat: READ on the group.
    if (!authorizer().group(kafka_auth::acl_operation::read, req.group_id)) {
      wire::consumer_group_heartbeat_response out;
      out.error = error_code::group_authorization_failed;
      reply(frame(header, out, wire::encode_consumer_group_heartbeat_response));
      return;
    }
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
    out.client_id = header.client_id.value_or("");
    out.client_host = self->state.ctx.client_host;
    ask_one<consumer_group_heartbeat_response>(
      self, edge_request_timeout, std::move(out), std::move(reply),
      [h = header](consumer_group_heartbeat_response& res) {
        wire::consumer_group_heartbeat_response out;
        out.throttle_time_ms = res.throttle_time_ms;
        out.error = res.error;
        out.error_message = res.error_message;
        out.member_id = res.member_id;
        out.member_epoch = res.member_epoch;
        out.heartbeat_interval_ms = res.heartbeat_interval_ms;
        // Topic ids only: the wire has no names here.
        if (res.assignment) {
          wire::consumer_group_heartbeat_assignment a;
          for (auto& t : res.assignment->topic_partitions)
            a.topic_partitions.push_back({t.topic_id, t.partitions});
          out.assignment = std::move(a);
        }
        return frame(h, out, wire::encode_consumer_group_heartbeat_response);
      });
  }

  void operator()(wire::consumer_group_describe_request& req) {
    // handleConsumerGroupDescribe: groups without DESCRIBE come first, as
    // GROUP_AUTHORIZATION_FAILED; the others carry their real authorized
    // operations.
    auto auth = authorizer();
    wire::consumer_group_describe_response refused;
    std::vector<std::string> allowed;
    for (auto& g : req.group_ids) {
      if (auth.group(kafka_auth::acl_operation::describe, g)) {
        allowed.push_back(g);
        continue;
      }
      wire::described_consumer_group dg;
      dg.error = error_code::group_authorization_failed;
      dg.group_id = g;
      refused.groups.push_back(std::move(dg));
    }
    if (allowed.empty() && !req.group_ids.empty()) {
      reply(frame(header, refused,
                  wire::encode_consumer_group_describe_response));
      return;
    }
    bool with_operations = req.include_authorized_operations;
    ask_one<consumer_group_describe_response>(
      self, edge_request_timeout,
      consumer_group_describe_request{allowed,
                                      req.include_authorized_operations},
      std::move(reply),
      [h = header, auth, with_operations,
       refused = std::move(refused)](consumer_group_describe_response& res) {
        auto assignment = [](const consumer_group_assignment& a) {
          wire::described_assignment out;
          for (auto& t : a.topic_partitions)
            out.topic_partitions.push_back(
              {t.topic_id, t.topic_name, t.partitions});
          return out;
        };
        wire::consumer_group_describe_response out = refused;
        out.throttle_time_ms = res.throttle_time_ms;
        for (auto& g : res.groups) {
          wire::described_consumer_group dg;
          dg.error = g.error;
          dg.error_message = g.error_message;
          dg.group_id = g.group_id;
          dg.group_state = std::string{state_name(g.group_state)};
          dg.group_epoch = g.group_epoch;
          dg.assignment_epoch = g.assignment_epoch;
          dg.assignor_name = g.assignor_name;
          dg.authorized_operations = g.authorized_operations;
          if (with_operations && g.error == error_code::none)
            dg.authorized_operations = auth.operations(
              kafka_auth::resource_type::group, g.group_id,
              g.authorized_operations);
          for (auto& m : g.members) {
            wire::described_consumer_group_member dm;
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
        return frame(h, out, wire::encode_consumer_group_describe_response);
      });
  }

  /// APIs the codec decodes but the listener does not serve; the
  /// connection refuses them before they get here.
  template <class Request>
  void operator()(Request&) {
    reply(close_reply());
  }
};

} // namespace

// -- the session's topic ids ----------------------------------------------------

namespace kafka_handlers {

void remember_topics(kafka_session_state& st, const metadata_response& res,
                     bool every_topic) {
  if (every_topic)
    st.topic_names.clear();
  for (auto& t : res.topics)
    if (t.error == error_code::none && !t.topic_id.is_zero())
      st.topic_names[t.topic_id] = t.name;
}

void with_topic_names(kafka_session_ptr self, const std::vector<uuid>& ids,
                      std::function<void()> then) {
  auto& names = self->state.topic_names;
  bool known = std::all_of(ids.begin(), ids.end(), [&](const uuid& id) {
    return id.is_zero() || names.count(id) > 0;
  });
  if (known) {
    then();
    return;
  }
  self->request(self->state.ctx.broker, edge_request_timeout, metadata_request{})
    .then(
      [self, then](metadata_response& res) {
        remember_topics(self->state, res, true);
        then();
      },
      [then](caf::error&) { then(); });
}

} // namespace kafka_handlers

// -- the served table -----------------------------------------------------------

const std::vector<wire::api_version>& kafka_listener_versions() {
  // Every API and version the codec speaks has a handler.
  return wire::supported_versions();
}

bool kafka_listener_serves(int16_t api_key, int16_t api_version) noexcept {
  for (const auto& api : kafka_listener_versions())
    if (api.api_key == api_key)
      return api_version >= api.min_version && api_version <= api.max_version;
  return false;
}

void handle_kafka_request(kafka_session_ptr self,
                          const wire::request_header& header,
                          wire::request_body body, kafka_reply_fn reply) {
  std::visit(handler{self, header, std::move(reply)}, body);
}

} // namespace troupe
