#include "gateway/kafka_request_handler.hpp"

#include <algorithm>
#include <utility>

#include "gateway/kafka_handlers.hpp"

namespace troupe {

namespace {

using namespace kafka_handlers;

/// APIs the codec speaks that no handler here serves: they are left out of
/// the table (and the connection closes on them).
bool has_handler(int16_t key) {
  switch (static_cast<k::api_key>(key)) {
    case k::api_key::consumer_group_heartbeat:
    case k::api_key::consumer_group_describe:
      return false;
    default:
      return true;
  }
}

struct handler {
  kafka_session_ptr self;
  const k::request_header& header;
  kafka_reply_fn reply;

  void operator()(k::api_versions_request& req) {
    // KIP-511: Kafka keeps the client's software name and version for its
    // connection metrics; troupe logs them once per connection.
    if (header.api_version >= 3 && self->state.client_software.empty()) {
      self->state.client_software =
        req.client_software_name + " " + req.client_software_version;
      spdlog::info("kafka: {} is {}", self->state.ctx.client_host,
                   self->state.client_software);
    }
    auto answer = k::answer_api_versions(req, header.api_version,
                                         kafka_listener_versions());
    auto h = header;
    h.api_version = answer.version;
    reply(frame(h, answer.response, k::encode_api_versions_response));
  }

  void operator()(k::metadata_request& req) {
    serve_metadata(self, header, req, std::move(reply));
  }

  void operator()(k::produce_request& req) {
    serve_produce(self, header, req, std::move(reply));
  }

  void operator()(k::fetch_request& req) {
    serve_fetch(self, header, req, std::move(reply));
  }

  void operator()(k::list_offsets_request& req) {
    serve_list_offsets(self, header, req, std::move(reply));
  }

  void operator()(k::offset_for_leader_epoch_request& req) {
    serve_offset_for_leader_epoch(self, header, req, std::move(reply));
  }

  void operator()(k::init_producer_id_request& req) {
    serve_init_producer_id(self, header, req, std::move(reply));
  }

  void operator()(k::offset_commit_request& req) {
    serve_offset_commit(self, header, req, std::move(reply));
  }

  void operator()(k::offset_fetch_request& req) {
    serve_offset_fetch(self, header, req, std::move(reply));
  }

  void operator()(k::find_coordinator_request& req) {
    serve_find_coordinator(self, header, req, std::move(reply));
  }

  void operator()(k::join_group_request& req) {
    serve_join_group(self, header, req, std::move(reply));
  }

  void operator()(k::sync_group_request& req) {
    serve_sync_group(self, header, req, std::move(reply));
  }

  void operator()(k::heartbeat_request& req) {
    serve_heartbeat(self, header, req, std::move(reply));
  }

  void operator()(k::leave_group_request& req) {
    serve_leave_group(self, header, req, std::move(reply));
  }

  void operator()(k::describe_groups_request& req) {
    serve_describe_groups(self, header, req, std::move(reply));
  }

  void operator()(k::list_groups_request& req) {
    serve_list_groups(self, header, req, std::move(reply));
  }

  void operator()(k::create_topics_request& req) {
    serve_create_topics(self, header, req, std::move(reply));
  }

  void operator()(k::delete_topics_request& req) {
    serve_delete_topics(self, header, req, std::move(reply));
  }

  void operator()(k::describe_configs_request& req) {
    serve_describe_configs(self, header, req, std::move(reply));
  }

  void operator()(k::describe_cluster_request& req) {
    serve_describe_cluster(self, header, req, std::move(reply));
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
  self->request(self->state.ctx.broker, default_timeout, metadata_request{})
    .then(
      [self, then](metadata_response& res) {
        remember_topics(self->state, res, true);
        then();
      },
      [then](caf::error&) { then(); });
}

} // namespace kafka_handlers

// -- the served table -----------------------------------------------------------

const std::vector<kafka::api_version>& kafka_listener_versions() {
  static const std::vector<kafka::api_version> table = [] {
    std::vector<kafka::api_version> served;
    for (auto& api : kafka::supported_versions())
      if (has_handler(api.api_key))
        served.push_back(api);
    return served;
  }();
  return table;
}

bool kafka_listener_serves(int16_t api_key, int16_t api_version) noexcept {
  for (const auto& api : kafka_listener_versions())
    if (api.api_key == api_key)
      return api_version >= api.min_version && api_version <= api.max_version;
  return false;
}

void handle_kafka_request(kafka_session_ptr self,
                          const kafka::request_header& header,
                          kafka::request_body body, kafka_reply_fn reply) {
  std::visit(handler{self, header, std::move(reply)}, body);
}

} // namespace troupe
