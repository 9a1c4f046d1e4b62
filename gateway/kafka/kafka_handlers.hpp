#pragma once

// Internals of the Kafka request handlers (gateway/kafka/kafka_*_handlers.cpp):
// the session actor's state, response framing and asking the broker from
// inside the session actor. Include only from .cpp files (pulls in
// caf/all.hpp).

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/ask.hpp"
#include "actors/timeouts.hpp"
#include "gateway/kafka/kafka_request_handler.hpp"

namespace troupe {

/// One connection's session actor (docs/ARCHITECTURE.md §5): it runs every
/// request of its connection, so what it caches needs no lock.
/// One Fetch between its reads (Kafka's DelayedFetch): what each read asks
/// the replicas, and the answer's frame (kafka_data_handlers.cpp).
struct delayed_fetch {
  wire::request_header h;
  /// The fetch session it belongs to (KIP-227); null: none.
  std::shared_ptr<wire::fetch_context> session;
  kafka_reply_fn reply;
  /// The response's partitions, in request order; those not asked (unknown
  /// topic id, not authorized) carry their error already.
  wire::fetch_response shape;
  /// Which of the response's partitions are asked, in order.
  std::vector<bool> asked;
  /// What each read asks, and of which partition (same order).
  std::vector<fetch_request> parts;
  std::vector<topic_partition> partitions;
  int32_t min_bytes = 1;
  /// When max.wait.ms is up (steady clock, ms).
  int64_t deadline_ms = 0;
  /// The response's max_bytes (v3+, KIP-74).
  int64_t budget = 0;
};

struct kafka_session_state {
  kafka_request_context ctx;
  /// Topic ids to names, from the Metadata answers this session saw: Fetch
  /// v13+ and Metadata v12+ name topics by id.
  std::map<uuid, std::string> topic_names;
  /// What the client said it is (ApiVersions v3+, KIP-511).
  std::string client_software;
  /// Who the connection authenticated as (SASL, or the TLS client
  /// certificate mapped by ssl.principal.mapping.rules; User:ANONYMOUS
  /// otherwise) and its host, for the authorizer. Set by the connection
  /// before the first request and after each re-authentication.
  security::request_identity identity{"User:ANONYMOUS", ""};
  /// Fetches that read less than their min.bytes, parked in the broker's
  /// purgatory until a partition changes or max.wait.ms passes
  /// (kafka_data_handlers.cpp), by the key their wake message carries.
  struct parked_fetch {
    std::shared_ptr<delayed_fetch> fetch;
    uint64_t watch = 0; // the purgatory's id
  };
  std::map<uint64_t, parked_fetch> parked_fetches;
  uint64_t next_fetch_key = 0;

  kafka_session_state() = default;
  kafka_session_state(const kafka_session_state&) = delete;
  kafka_session_state& operator=(const kafka_session_state&) = delete;
  /// A closed connection's parked fetches leave the purgatory.
  ~kafka_session_state() {
    if (ctx.purgatory)
      for (auto& [key, p] : parked_fetches)
        ctx.purgatory->cancel(p.watch);
  }

  static inline const char* name = "kafka_session";
};

/// A parked fetch wakes (a partition changed) or expires (max.wait.ms).
using fetch_wake_atom = caf::atom_constant<caf::atom("fetchwake")>;

using kafka_session_ptr = caf::stateful_actor<kafka_session_state>*;

namespace kafka_handlers {

using std::chrono::milliseconds;

constexpr milliseconds slack{5000};

/// Kafka's answer for the authorized operations of a resource when no
/// authorizer is configured: every operation the resource type supports
/// (AuthHelper.authorizedOperations, AclEntry.supportedOperations) as a bit
/// field of AclOperation codes. TOPIC: READ, WRITE, CREATE, DELETE, ALTER,
/// DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS; GROUP: READ, DESCRIBE,
/// DELETE; CLUSTER: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION,
/// DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE.
constexpr int32_t bit(int op) {
  return int32_t{1} << op;
}
constexpr int32_t topic_operations = bit(3) | bit(4) | bit(5) | bit(6)
                                     | bit(7) | bit(8) | bit(10) | bit(11);
constexpr int32_t group_operations = bit(3) | bit(6) | bit(8);
constexpr int32_t cluster_operations = bit(5) | bit(7) | bit(8) | bit(9)
                                       | bit(10) | bit(11) | bit(12);

inline kafka_reply close_reply() {
  return {kafka_reply::kind::close, {}};
}

/// Frames a response: size, header, body in the request's version.
template <class Response, class Encode>
kafka_reply frame(const wire::request_header& h, const Response& res,
                  Encode encode) {
  kafka_reply out{kafka_reply::kind::frame, {}};
  wire::writer w{out.frame};
  auto mark = w.begin_frame();
  wire::encode_response_header(w, wire::response_header{h.correlation_id},
                               h.api_key, h.api_version);
  if (!encode(w, res, h.api_version) || !w.end_frame(mark) || !w.ok()) {
    spdlog::warn("kafka: cannot encode the {} v{} response: {}",
                 wire::api_name(h.api_key), h.api_version, w.error());
    return close_reply();
  }
  return out;
}

/// Sends every request to `to` at once; `done` gets every answer in order
/// (nullopt for a failed or timed-out one) once the last has arrived. The
/// answers arrive in the session actor, one at a time.
template <class Response, class Handle, class Request, class Done>
void ask_all(kafka_session_ptr self, const Handle& to, milliseconds timeout,
             std::vector<Request> requests, Done done) {
  struct fan_in {
    std::vector<std::optional<Response>> results;
    size_t outstanding = 1; // released below, once every request is out
    Done done;
    void finish() {
      if (--outstanding == 0)
        done(std::move(results));
    }
  };
  auto fan = std::make_shared<fan_in>(
    fan_in{std::vector<std::optional<Response>>(requests.size()), 1,
           std::move(done)});
  for (size_t i = 0; i < requests.size(); ++i) {
    ++fan->outstanding;
    request_then(
      self, to, timeout, std::move(requests[i]),
      [fan, i](Response& res) {
        fan->results[i] = std::move(res);
        fan->finish();
      },
      [fan](caf::error& err) {
        spdlog::debug("kafka: request failed: {}", caf::to_string(err));
        fan->finish();
      });
  }
  fan->finish();
}

/// ask_all to the session's broker.
template <class Response, class Request, class Done>
void ask_broker(kafka_session_ptr self, milliseconds timeout,
                std::vector<Request> requests, Done done) {
  ask_all<Response>(self, self->state.ctx.broker, timeout, std::move(requests),
                    std::move(done));
}

/// One request, one answer; a failed request closes the connection.
template <class Response, class Request, class Answer>
void ask_one(kafka_session_ptr self, milliseconds timeout, Request request,
             kafka_reply_fn reply, Answer answer) {
  request_then(
    self, self->state.ctx.broker, timeout, std::move(request),
    [reply, answer](Response& res) mutable { reply(answer(res)); },
    [reply](caf::error& err) {
      spdlog::debug("kafka: request failed: {}", caf::to_string(err));
      reply(close_reply());
    });
}

inline std::optional<std::string> null_if_empty(const std::string& x) {
  if (x.empty())
    return std::nullopt;
  return x;
}

inline std::string or_empty(const std::optional<std::string>& x) {
  return x ? *x : std::string{};
}

/// Takes the topic ids of a Metadata answer into the session's cache; an
/// answer for every topic replaces it.
void remember_topics(kafka_session_state& st, const metadata_response& res,
                     bool every_topic);

/// Calls `then` once the session's cache names every topic id it can: at
/// once when it knows them all, else after asking for every topic.
void with_topic_names(kafka_session_ptr self, const std::vector<uuid>& ids,
                      std::function<void()> then);

// -- per-API handlers, by area ------------------------------------------------

// kafka_data_handlers.cpp
void serve_metadata(kafka_session_ptr self, const wire::request_header& h,
                    wire::metadata_request& req, kafka_reply_fn reply);
void serve_produce(kafka_session_ptr self, const wire::request_header& h,
                   wire::produce_request& req, kafka_reply_fn reply);
void serve_fetch(kafka_session_ptr self, const wire::request_header& h,
                 wire::fetch_request& req, kafka_reply_fn reply);
/// A parked fetch's wake or deadline (fetch_wake_atom): it reads again.
void fetch_woken(kafka_session_ptr self, uint64_t key);
void serve_list_offsets(kafka_session_ptr self, const wire::request_header& h,
                        wire::list_offsets_request& req, kafka_reply_fn reply);
void serve_offset_for_leader_epoch(kafka_session_ptr self,
                                   const wire::request_header& h,
                                   wire::offset_for_leader_epoch_request& req,
                                   kafka_reply_fn reply);
void serve_init_producer_id(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::init_producer_id_request& req,
                            kafka_reply_fn reply);

// kafka_group_handlers.cpp
void serve_offset_commit(kafka_session_ptr self, const wire::request_header& h,
                         wire::offset_commit_request& req,
                         kafka_reply_fn reply);
void serve_offset_fetch(kafka_session_ptr self, const wire::request_header& h,
                        wire::offset_fetch_request& req, kafka_reply_fn reply);
void serve_find_coordinator(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::find_coordinator_request& req,
                            kafka_reply_fn reply);
void serve_join_group(kafka_session_ptr self, const wire::request_header& h,
                      wire::join_group_request& req, kafka_reply_fn reply);
void serve_sync_group(kafka_session_ptr self, const wire::request_header& h,
                      wire::sync_group_request& req, kafka_reply_fn reply);
void serve_heartbeat(kafka_session_ptr self, const wire::request_header& h,
                     wire::heartbeat_request& req, kafka_reply_fn reply);
void serve_leave_group(kafka_session_ptr self, const wire::request_header& h,
                       wire::leave_group_request& req, kafka_reply_fn reply);
void serve_describe_groups(kafka_session_ptr self,
                           const wire::request_header& h,
                           wire::describe_groups_request& req,
                           kafka_reply_fn reply);
void serve_list_groups(kafka_session_ptr self, const wire::request_header& h,
                       wire::list_groups_request& req, kafka_reply_fn reply);

// kafka_admin_handlers.cpp
void serve_create_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::create_topics_request& req,
                         kafka_reply_fn reply);
void serve_delete_topics(kafka_session_ptr self, const wire::request_header& h,
                         wire::delete_topics_request& req,
                         kafka_reply_fn reply);
void serve_describe_configs(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::describe_configs_request& req,
                            kafka_reply_fn reply);
void serve_alter_configs(kafka_session_ptr self, const wire::request_header& h,
                         wire::alter_configs_request& req,
                         kafka_reply_fn reply);
void serve_incremental_alter_configs(
  kafka_session_ptr self, const wire::request_header& h,
  wire::incremental_alter_configs_request& req, kafka_reply_fn reply);
void serve_describe_cluster(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::describe_cluster_request& req,
                            kafka_reply_fn reply);

// kafka_security_handlers.cpp
void serve_describe_acls(kafka_session_ptr self, const wire::request_header& h,
                         wire::describe_acls_request& req,
                         kafka_reply_fn reply);
void serve_create_acls(kafka_session_ptr self, const wire::request_header& h,
                       wire::create_acls_request& req, kafka_reply_fn reply);
void serve_delete_acls(kafka_session_ptr self, const wire::request_header& h,
                       wire::delete_acls_request& req, kafka_reply_fn reply);
void serve_describe_user_scram_credentials(
  kafka_session_ptr self, const wire::request_header& h,
  wire::describe_user_scram_credentials_request& req, kafka_reply_fn reply);
void serve_alter_user_scram_credentials(
  kafka_session_ptr self, const wire::request_header& h,
  wire::alter_user_scram_credentials_request& req, kafka_reply_fn reply);

// Group admin (kafka_group_handlers.cpp).
void serve_delete_groups(kafka_session_ptr self, const wire::request_header& h,
                         wire::delete_groups_request& req,
                         kafka_reply_fn reply);
void serve_offset_delete(kafka_session_ptr self, const wire::request_header& h,
                         wire::offset_delete_request& req,
                         kafka_reply_fn reply);

// Topic admin (kafka_admin_handlers.cpp; DeleteRecords and DescribeLogDirs:
// kafka_log_handlers.cpp).
void serve_create_partitions(kafka_session_ptr self,
                             const wire::request_header& h,
                             wire::create_partitions_request& req,
                             kafka_reply_fn reply);
void serve_delete_records(kafka_session_ptr self, const wire::request_header& h,
                          wire::delete_records_request& req,
                          kafka_reply_fn reply);
void serve_describe_log_dirs(kafka_session_ptr self,
                             const wire::request_header& h,
                             wire::describe_log_dirs_request& req,
                             kafka_reply_fn reply);
void serve_elect_leaders(kafka_session_ptr self, const wire::request_header& h,
                         wire::elect_leaders_request& req,
                         kafka_reply_fn reply);

/// AlterPartitionReassignments (45) and ListPartitionReassignments (46),
/// KIP-455: ALTER, resp. DESCRIBE, on the CLUSTER; the controller moves
/// the replicas (docs/ARCHITECTURE.md §7).
void serve_alter_partition_reassignments(
  kafka_session_ptr self, const wire::request_header& h,
  wire::alter_partition_reassignments_request& req, kafka_reply_fn reply);
void serve_list_partition_reassignments(
  kafka_session_ptr self, const wire::request_header& h,
  wire::list_partition_reassignments_request& req, kafka_reply_fn reply);

} // namespace kafka_handlers

} // namespace troupe
