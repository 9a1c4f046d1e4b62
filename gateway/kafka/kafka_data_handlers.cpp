// The data path of the Kafka listener: Metadata, Produce, Fetch,
// ListOffsets, OffsetForLeaderEpoch and InitProducerId, every version the
// codec speaks, mapped to the broker's messages with Kafka's semantics
// (docs/ARCHITECTURE.md §5).

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "actors/metrics.hpp"
#include "domain/log/legacy_records.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"
#include "domain/replication/cluster_metadata.hpp"
#include "gateway/kafka/kafka_authorization.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

namespace {

/// Kafka's error response to a Metadata request it refuses
/// (MetadataRequest.getErrorResponse): every requested topic with the error.
wire::metadata_response metadata_error(const wire::metadata_request& req,
                                       error_code e) {
  wire::metadata_response out;
  if (req.topics)
    for (auto& t : *req.topics) {
      wire::metadata_topic topic;
      topic.error = e;
      topic.name = t.name;
      topic.topic_id = t.topic_id;
      out.topics.push_back(std::move(topic));
    }
  return out;
}

using kafka_auth::acl_operation;
using kafka_auth::request_authorizer;
using kafka_auth::resource_type;

/// A topic Metadata refuses (TOPIC_AUTHORIZATION_FAILED): its name, or its
/// id when asked by id (Kafka does not consider ids sensitive).
wire::metadata_topic denied_topic(std::optional<std::string> name, uuid id) {
  wire::metadata_topic topic;
  topic.error = error_code::topic_authorization_failed;
  topic.name = std::move(name);
  topic.topic_id = id;
  return topic;
}

wire::metadata_topic to_wire(const topic_metadata& t,
                             const std::vector<broker_info>& live,
                             bool with_operations,
                             const request_authorizer& auth) {
  wire::metadata_topic topic;
  topic.error = t.error;
  topic.name = t.name;
  topic.topic_id = t.topic_id;
  topic.is_internal = t.name == offsets_topic;
  if (with_operations)
    topic.topic_authorized_operations =
      auth.operations(resource_type::topic, t.name, topic_operations);
  auto alive = [&](int32_t id) {
    return std::any_of(live.begin(), live.end(),
                       [id](auto& b) { return b.node_id == id; });
  };
  for (auto& p : t.partition_states) {
    wire::metadata_partition part;
    part.error = p.leader < 0 ? error_code::leader_not_available
                              : error_code::none;
    part.partition_index = p.partition;
    part.leader_id = p.leader;
    part.leader_epoch = p.leader_epoch;
    part.replica_nodes = p.replicas;
    part.isr_nodes = p.isr;
    // Kafka's offline replicas: those whose broker is down.
    for (auto r : p.replicas)
      if (!alive(r))
        part.offline_replicas.push_back(r);
    topic.partitions.push_back(std::move(part));
  }
  return topic;
}

/// The broker Kafka clients send controller requests to.
int32_t controller_of(const metadata_response& res) {
  if (res.controller_id >= 0)
    return res.controller_id;
  return res.brokers.empty() ? -1 : res.brokers.front().node_id;
}

/// Whole batches from the start of `records` that fit in `limit` bytes.
size_t fitting_batches(const bytes& records, int64_t limit) {
  size_t keep = 0;
  for (auto& b : record_batches{records}) {
    if (static_cast<int64_t>(b.end()) > limit)
      break;
    keep = b.end();
  }
  return keep;
}

/// What a produced partition's records become before the append: Produce
/// v3+ carries exactly one RecordBatch v2 (Kafka's
/// ProduceRequest.validateRecords: INVALID_RECORD for another magic, none or
/// more than one batch, UNSUPPORTED_COMPRESSION_TYPE for zstd before v7);
/// v0-2 carry what the producer wrote,
/// and a magic 0/1 message set is converted up to one v2 batch (Kafka's
/// LogValidator on a v2 log: the log assigns the offsets, the messages keep
/// their CreateTime timestamps, magic 0's none). Kafka checks no magic
/// against v0-2, so a v2 batch there is appended as is.
struct produced_records {
  error_code error = error_code::none;
  std::string message{};
};

produced_records prepare_produced(int16_t v, bytes& records) {
  if (v >= 3) {
    // ProduceRequest.validateRecords, in its order.
    auto prefix = "Produce requests with version " + std::to_string(v);
    if (is_legacy_set(records.data(), records.size()))
      return {error_code::invalid_record,
              prefix
                + " are only allowed to contain record batches with magic "
                  "version 2"};
    size_t batches = 0;
    int codec = 0;
    for (auto& batch : record_batches{records}) {
      if (batches++ == 0)
        codec = batch.header.compression();
    }
    if (batches == 0)
      return {error_code::invalid_record,
              prefix + " must have at least one record batch per partition"};
    if (v < 7 && codec == static_cast<int>(compression_codec::zstd))
      return {error_code::unsupported_compression_type,
              prefix + " are not allowed to use ZStandard compression"};
    if (batches > 1)
      return {error_code::invalid_record,
              prefix
                + " are only allowed to contain exactly one record batch per "
                  "partition"};
    return {};
  }
  if (!is_legacy_set(records.data(), records.size()))
    return {};
  auto up = up_convert(records.data(), records.size());
  if (up.error != error_code::none)
    return {up.error, std::move(up.reason)};
  records = std::move(up.records);
  return {};
}

/// The message format a Fetch version reads (Kafka's handleFetchRequest:
/// magic 0 for v0-1, magic 1 for v2-3, the log's v2 batches from v4 on).
int8_t fetch_magic(int16_t v) {
  return v <= 1 ? 0 : v <= 3 ? 1 : 2;
}

/// Kafka's down-conversion of a fetched partition (LazyDownConversionRecords)
/// for Fetch v0-3: the v2 batches read from `fetch_offset` become magic
/// `magic` messages, batch by batch, as far as the partition's answer may
/// reach: the size of the batches read, or the first converted batch if it
/// is larger (so that a consumer always gets at least one whole message and
/// makes progress). Kafka would cut the last message short there; troupe
/// ends at a whole message, which the old consumers read the same (they
/// drop a message cut short). A batch that cannot be converted (zstd:
/// UNSUPPORTED_COMPRESSION_TYPE) ends the answer, or is the partition's
/// error when it is the first.
converted_records down_convert_fetched(const bytes& records, int8_t magic,
                                       int64_t fetch_offset) {
  converted_records out;
  int64_t limit = static_cast<int64_t>(records.size());
  bool first = true;
  for (auto& b : record_batches{records}) {
    auto c = down_convert(b.data, b.size, magic, fetch_offset);
    if (c.error != error_code::none) {
      if (first && out.records.empty())
        return c;
      break;
    }
    if (first)
      limit = std::max(limit, static_cast<int64_t>(c.records.size()));
    first = false;
    out.records.insert(out.records.end(), c.records.begin(), c.records.end());
    if (static_cast<int64_t>(out.records.size()) >= limit)
      break;
  }
  auto keep = fitting_legacy_messages(out.records.data(), out.records.size(),
                                      limit, true);
  out.records.resize(keep);
  return out;
}

} // namespace

// -- Metadata (3) ---------------------------------------------------------------

void serve_metadata(kafka_session_ptr self, const wire::request_header& h,
                    wire::metadata_request& req, kafka_reply_fn reply) {
  auto v = h.api_version;
  auto& st = self->state;
  // v0: an empty array is every topic; v1+: null is every topic and an
  // empty array none.
  bool every = v == 0 ? (!req.topics || req.topics->empty()) : !req.topics;
  bool none = v > 0 && req.topics && req.topics->empty();
  std::vector<std::string> names;
  std::vector<uuid> ids;
  if (req.topics)
    for (auto& t : *req.topics) {
      // Kafka's handleTopicMetadataRequest: topic ids only from v12 on.
      if (v < 12 && (!t.name || !t.topic_id.is_zero())) {
        reply(frame(h, metadata_error(req, error_code::invalid_request),
                    wire::encode_metadata_response));
        return;
      }
      if (!t.topic_id.is_zero())
        ids.push_back(t.topic_id);
      else if (t.name)
        names.push_back(*t.name);
    }
  // Asked by id, the names are ignored and nothing is created (Kafka).
  bool by_id = !ids.empty();
  if (!every && !by_id && names.empty())
    none = true;
  metadata_request out;
  // allow_auto_topic_creation is v4+; before, Kafka always auto-creates.
  out.allow_auto_topic_creation =
    st.ctx.auto_create_topics && !by_id && !every
    && (v < 4 || req.allow_auto_topic_creation);
  // Kafka's handleTopicMetadataRequest: named topics without DESCRIBE are
  // refused (and not looked up), those the principal may not create are
  // looked up without creating them.
  request_authorizer auth{st.ctx.security, st.identity};
  kafka_auth::metadata_plan plan;
  if (!every && !by_id && !none)
    plan = kafka_auth::plan_metadata(auth, names, out.allow_auto_topic_creation);
  std::vector<metadata_request> asks;
  if (!plan.ask.empty()) {
    out.topics = plan.ask;
    asks.push_back(std::move(out));
  }
  if (!plan.no_create.empty())
    asks.push_back(metadata_request{plan.no_create, false});
  // Nothing named is left to look up: ask for the brokers only.
  bool looked_up = !asks.empty();
  if (!looked_up)
    asks.push_back(metadata_request{});
  bool answer_topics = !none && (every || by_id || looked_up);
  bool topic_ops = v >= 8 && req.include_topic_authorized_operations;
  bool cluster_ops = v >= 8 && v <= 10
                     && req.include_cluster_authorized_operations;
  bool asked_all = !looked_up;
  std::set<std::string> no_create(plan.no_create.begin(),
                                  plan.no_create.end());
  ask_broker<metadata_response>(
    self, edge_request_timeout, std::move(asks),
    [self, h, answer_topics, by_id, every, ids, topic_ops, cluster_ops,
     asked_all, auth, no_create, denied = std::move(plan.denied),
     reply = std::move(reply)](
      std::vector<std::optional<metadata_response>> answers) {
      for (auto& a : answers)
        if (!a) {
          reply(close_reply());
          return;
        }
      auto& res = *answers.front();
      remember_topics(self->state, res, asked_all);
      wire::metadata_response out;
      // Every broker's endpoint of the client's listener, as Kafka.
      for (auto& b : res.brokers) {
        auto e = endpoint_for(b.listeners, b.host, b.port,
                              self->state.ctx.listener_name);
        out.brokers.push_back({b.node_id, e.host, e.port, std::nullopt});
      }
      out.controller_id = controller_of(res);
      out.cluster_id = null_if_empty(res.cluster_id);
      if (cluster_ops)
        out.cluster_authorized_operations =
          kafka_auth::cluster_operations(auth, cluster_operations);
      auto describable = [&](const topic_metadata& t) {
        return auth.topic(acl_operation::describe, t.name);
      };
      if (by_id) {
        for (auto& id : ids) {
          auto i = std::find_if(res.topics.begin(), res.topics.end(),
                                [&](auto& t) { return t.topic_id == id; });
          if (i == res.topics.end()) {
            wire::metadata_topic unknown;
            unknown.error = error_code::unknown_topic_id;
            unknown.topic_id = id;
            out.topics.push_back(std::move(unknown));
          } else if (!describable(*i)) {
            out.topics.push_back(denied_topic(std::nullopt, id));
          } else {
            out.topics.push_back(
              to_wire(*i, res.brokers, topic_ops, auth));
          }
        }
      } else if (answer_topics) {
        std::vector<std::string> create_denied;
        for (auto& a : answers)
          for (auto& t : a->topics) {
            // Every topic: those without DESCRIBE are left out.
            if (every && !describable(t))
              continue;
            bool missing = t.error == error_code::unknown_topic_or_partition
                           || t.error == error_code::invalid_topic_exception;
            if (missing && no_create.count(t.name) > 0)
              create_denied.push_back(t.name);
            else
              out.topics.push_back(to_wire(t, res.brokers, topic_ops, auth));
          }
        for (auto& name : create_denied)
          out.topics.push_back(denied_topic(name, uuid{}));
      }
      for (auto& name : denied)
        out.topics.push_back(denied_topic(name, uuid{}));
      reply(frame(h, out, wire::encode_metadata_response));
    });
}

// -- Produce (0) ----------------------------------------------------------------

void serve_produce(kafka_session_ptr self, const wire::request_header& h,
                   wire::produce_request& req, kafka_reply_fn reply) {
  std::vector<produce_request> parts;
  wire::produce_response shape;
  auto v = h.api_version;
  // Old message formats first: what is appended is a v2 batch.
  std::map<std::pair<std::string, int32_t>, produced_records> refused;
  for (auto& t : req.topics)
    for (auto& p : t.partitions)
      if (auto r = prepare_produced(v, p.records); r.error != error_code::none)
        refused[{t.name, p.index}] = std::move(r);
  // Kafka's handleProduceRequest: transactional records need a
  // transactional id the principal may write, and no principal may on a
  // broker without transactions.
  bool transactional = false;
  for (auto& t : req.topics)
    for (auto& p : t.partitions) {
      auto hd = parse_header(p.records.data(), p.records.size());
      if (hd && (hd->attributes & batch_layout::transactional_flag))
        transactional = true;
    }
  // Then WRITE on each topic: a partition of a topic without it gets
  // TOPIC_AUTHORIZATION_FAILED and nothing of it is appended.
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  bool denied = false;
  for (auto& t : req.topics) {
    wire::produce_topic_response tr;
    tr.name = t.name;
    auto topic_error =
      transactional ? error_code::none : kafka_auth::produce_error(auth, t.name);
    for (auto& p : t.partitions) {
      wire::produce_partition_response pr;
      pr.index = p.index;
      auto bad = refused.find({t.name, p.index});
      if (transactional) {
        pr.error = error_code::transactional_id_authorization_failed;
      } else if (topic_error != error_code::none) {
        pr.error = topic_error;
        denied = true;
      } else if (bad != refused.end()) {
        // handleProduceRequest's invalidRequestResponses.
        pr.error = bad->second.error;
        pr.error_message = bad->second.message;
        denied = true; // an error for acks=0 too: the connection closes
      } else {
        parts.push_back({{t.name, p.index},
                         req.acks,
                         req.timeout_ms,
                         std::move(p.records)});
      }
      tr.partitions.push_back(pr);
    }
    shape.responses.push_back(std::move(tr));
  }
  auto acks = req.acks;
  auto timeout = milliseconds{std::max(req.timeout_ms, 0)} + edge_request_timeout;
  ask_broker<produce_response>(
    self, timeout, std::move(parts),
    [h, acks, transactional, denied, shape = std::move(shape),
     reply = std::move(reply)](
      std::vector<std::optional<produce_response>> results) mutable {
      // acks=0 has no answer to carry an error: Kafka closes the
      // connection instead (handleProduceRequest's errorInResponse).
      if (acks == 0) {
        reply(denied ? close_reply() : kafka_reply{kafka_reply::kind::none, {}});
        return;
      }
      size_t i = 0;
      for (auto& t : shape.responses)
        for (auto& p : t.partitions) {
          if (transactional || p.error != error_code::none)
            continue;
          auto& r = results[i++];
          p.error = r ? r->error : error_code::request_timed_out;
          p.base_offset = r ? r->base_offset : -1;
          p.log_start_offset = r ? r->log_start_offset : -1;
          if (r && !r->error_message.empty())
            p.error_message = r->error_message;
        }
      reply(frame(h, shape, wire::encode_produce_response));
    });
}

// -- Fetch (1) --------------------------------------------------------------------

namespace {

int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

/// The incremental response of a fetch session: only the partitions the
/// session selects (wire::fetch_session_cache::answer), with its id.
void select_for_session(kafka_session_ptr self, wire::fetch_context& session,
                        wire::fetch_response& shape) {
  std::vector<wire::fetch_partition_outcome> outcomes;
  for (auto& t : shape.responses)
    for (auto& p : t.partitions)
      outcomes.push_back({p.error, p.high_watermark, p.last_stable_offset,
                          p.log_start_offset, !p.records.empty()});
  std::vector<size_t> included;
  {
    auto& shared = *self->state.ctx.fetch_sessions;
    std::lock_guard<std::mutex> guard{shared.lock};
    auto opening = session.open_session;
    included = shared.cache.answer(session, outcomes, steady_now_ms());
    if (opening && session.session_id != 0)
      spdlog::debug("kafka: fetch session {} opened for {} ({} partitions)",
                    session.session_id, self->state.ctx.client_host,
                    session.partitions.size());
  }
  shape.session_id = session.session_id;
  if (included.size() == outcomes.size())
    return;
  std::vector<bool> keep(outcomes.size(), false);
  for (auto i : included)
    keep[i] = true;
  size_t slot = 0;
  std::vector<wire::fetch_topic_response> kept;
  for (auto& t : shape.responses) {
    wire::fetch_topic_response out;
    out.topic = t.topic;
    out.topic_id = t.topic_id;
    for (auto& p : t.partitions)
      if (keep[slot++])
        out.partitions.push_back(std::move(p));
    if (!out.partitions.empty())
      kept.push_back(std::move(out));
  }
  shape.responses = std::move(kept);
}

void read_fetch(kafka_session_ptr self, std::shared_ptr<delayed_fetch> df);

/// Answers a fetch once every topic id is resolved; `session` (may be null)
/// is the fetch session it belongs to (KIP-227).
void fetch_by_name(kafka_session_ptr self, const wire::request_header& h,
                   wire::fetch_request req, kafka_reply_fn reply,
                   std::shared_ptr<wire::fetch_context> session = nullptr) {
  auto& st = self->state;
  auto v = h.api_version;
  auto df = std::make_shared<delayed_fetch>();
  df->h = h;
  df->session = std::move(session);
  df->reply = std::move(reply);
  df->min_bytes = req.min_bytes;
  df->deadline_ms = steady_now_ms() + std::max(req.max_wait_ms, 0);
  // With the broker's purgatory, each read asks the replicas for what they
  // have now, and the fetch waits here (read_fetch); without, each replica
  // holds its own long poll.
  auto wait_at_replica = st.ctx.purgatory ? 0 : req.max_wait_ms;
  auto& shape = df->shape;
  // Partitions of unknown topic ids are answered here, not asked for, and
  // so are those the principal may not fetch (handleFetchRequest: READ on
  // the topic, or CLUSTER_ACTION for a follower: a replica id >= 0).
  request_authorizer auth{st.ctx.security, st.identity};
  auto replica_id = v >= 15 ? (req.replica_state ? req.replica_state->replica_id
                                                 : -1)
                            : req.replica_id;
  bool from_follower = replica_id >= 0;
  for (auto& t : req.topics) {
    wire::fetch_topic_response tr;
    tr.topic = t.topic;
    tr.topic_id = t.topic_id;
    std::string name = t.topic;
    bool known = true;
    if (v >= 13) {
      auto i = st.topic_names.find(t.topic_id);
      known = i != st.topic_names.end();
      if (known)
        name = i->second;
    }
    auto denied = known ? kafka_auth::fetch_error(auth, from_follower, name)
                        : error_code::none;
    for (auto& p : t.partitions) {
      wire::fetch_partition_response pr;
      pr.partition_index = p.partition;
      df->asked.push_back(known && denied == error_code::none);
      if (!known) {
        pr.error = error_code::unknown_topic_id;
      } else if (denied != error_code::none) {
        pr.error = denied;
      } else {
        fetch_request f;
        f.partition = {name, p.partition};
        f.replica_id = -1; // the listener serves consumers only
        f.offset = p.fetch_offset;
        f.max_bytes = p.partition_max_bytes;
        f.max_wait_ms = wait_at_replica;
        f.min_bytes = req.min_bytes;
        f.current_leader_epoch = p.current_leader_epoch;
        df->partitions.push_back(f.partition);
        df->parts.push_back(std::move(f));
      }
      tr.partitions.push_back(std::move(pr));
    }
    shape.responses.push_back(std::move(tr));
  }
  // v3+: the response's max_bytes over all partitions; the first partition
  // with data gets its first batch even when larger (KIP-74).
  df->budget = req.max_bytes < 0 ? 0 : req.max_bytes;
  read_fetch(self, std::move(df));
}

/// Fills the fetch's answer from what its replicas read, and sends it.
void answer_fetch(kafka_session_ptr self, delayed_fetch& df,
                  std::vector<std::optional<fetch_response>>& results) {
  auto v = df.h.api_version;
  auto& shape = df.shape;
  size_t i = 0;
  auto magic = fetch_magic(v);
  size_t slot = 0;
  auto left = df.budget;
  bool taken = false;
  for (auto& t : shape.responses)
    for (auto& p : t.partitions) {
      if (!df.asked[slot++])
        continue;
      auto fetch_offset = df.parts[i].offset;
      auto& r = results[i++];
      if (!r) {
        p.error = error_code::request_timed_out;
        continue;
      }
      p.error = r->error;
      // handleFetchRequest's maybeDownConvertStorageError: clients of
      // v5 and before may not know KAFKA_STORAGE_ERROR and would not
      // retry; NOT_LEADER_OR_FOLLOWER makes them refresh metadata.
      if (v <= 5 && p.error == error_code::kafka_storage_error)
        p.error = error_code::not_leader_or_follower;
      p.high_watermark = r->high_watermark;
      // No transactions: everything below the high watermark is stable.
      p.last_stable_offset = r->high_watermark;
      p.log_start_offset = r->log_start_offset;
      if (v >= 13 && r->error == error_code::unknown_topic_or_partition)
        self->state.topic_names.erase(t.topic_id); // deleted meanwhile
      auto size = static_cast<int64_t>(r->records.size());
      if (size == 0)
        continue;
      if (!taken || size <= left) {
        p.records = std::move(r->records);
      } else {
        auto keep = fitting_batches(r->records, left);
        r->records.resize(keep);
        p.records = std::move(r->records);
      }
      left = std::max<int64_t>(0, left - size);
      taken = true;
      // Fetch v0-3: the old message format, converted down from the
      // batches read (message.downconversion.enable is always true in
      // troupe: the topic config is refused as unsupported).
      if (magic < 2 && !p.records.empty()) {
        auto c = down_convert_fetched(p.records, magic, fetch_offset);
        p.records = std::move(c.records);
        if (c.error != error_code::none)
          p.error = c.error;
      }
    }
  if (df.session)
    select_for_session(self, *df.session, shape);
  df.reply(frame(df.h, shape, wire::encode_fetch_response));
}

/// Whether a read of `f` would surely find nothing, by the leader view
/// its replica published: the fetch asks at exactly the high watermark,
/// in the epoch the replica leads (or none), so the replica would answer
/// it empty and error-free, with this high watermark and log start offset.
bool caught_up(const fetch_request& f,
               const std::optional<fetch_purgatory::leader_view>& view) {
  return view && f.offset == view->high_watermark && f.max_bytes >= 0
         && (f.current_leader_epoch < 0
             || f.current_leader_epoch == view->leader_epoch);
}

/// The fetch's answers in hand: answered now or parked (read_fetch).
void after_read(kafka_session_ptr self, std::shared_ptr<delayed_fetch> df,
                std::vector<uint64_t> seen,
                std::vector<std::optional<fetch_response>> results);

/// Kafka's ReplicaManager.fetchMessages and DelayedFetch: reads every
/// partition as it is now; answers when the records reach min.bytes
/// (summed over the partitions), when a partition answers an error, or at
/// max.wait.ms; else parks the fetch in the broker's purgatory until one
/// of its partitions changes, and reads again then. A partition the fetch
/// has read to its leader's high watermark is answered from the leader's
/// published view instead of a round trip to its replica (caught_up): a
/// consumer of many partitions, most of them quiet, costs the replicas
/// only the partitions that moved (docs/ARCHITECTURE.md §5).
void read_fetch(kafka_session_ptr self, std::shared_ptr<delayed_fetch> df) {
  auto purgatory = self->state.ctx.purgatory;
  if (!purgatory) {
    auto timeout = milliseconds{std::max<int64_t>(
                     df->deadline_ms - steady_now_ms(), 0)}
                   + edge_request_timeout;
    ask_broker<fetch_response>(
      self, timeout, df->parts,
      [self, df](std::vector<std::optional<fetch_response>> results) mutable {
        answer_fetch(self, *df, results);
      });
    return;
  }
  auto now = purgatory->snapshot(df->partitions);
  std::vector<uint64_t> seen;
  seen.reserve(now.size());
  std::vector<std::optional<fetch_response>> results(df->parts.size());
  std::vector<fetch_request> asked;
  std::vector<size_t> asked_at;
  for (size_t i = 0; i < df->parts.size(); ++i) {
    seen.push_back(now[i].version);
    if (caught_up(df->parts[i], now[i].view)) {
      auto& v = *now[i].view;
      results[i] = fetch_response{error_code::none, v.high_watermark,
                                  v.log_start_offset, -1, {}};
    } else {
      asked.push_back(df->parts[i]);
      asked_at.push_back(i);
    }
  }
  // The partitions answered here count as answered fetches, as the
  // replicas count theirs.
  metrics().record_fetches += df->parts.size() - asked.size();
  if (asked.empty()) {
    after_read(self, std::move(df), std::move(seen), std::move(results));
    return;
  }
  ask_broker<fetch_response>(
    self, edge_request_timeout, std::move(asked),
    [self, df, seen = std::move(seen), results = std::move(results),
     asked_at = std::move(asked_at)](
      std::vector<std::optional<fetch_response>> read) mutable {
      for (size_t j = 0; j < read.size(); ++j)
        results[asked_at[j]] = std::move(read[j]);
      after_read(self, std::move(df), std::move(seen), std::move(results));
    });
}

void after_read(kafka_session_ptr self, std::shared_ptr<delayed_fetch> df,
                std::vector<uint64_t> seen,
                std::vector<std::optional<fetch_response>> results) {
  auto purgatory = self->state.ctx.purgatory;
  int64_t bytes = 0;
  bool failed = false;
  for (auto& r : results) {
    failed = failed || !r || r->error != error_code::none;
    if (r)
      bytes += static_cast<int64_t>(r->records.size());
  }
  // Nothing to wait on (every partition unknown or refused): at once, as
  // fetchMessages with no fetchInfos.
  if (failed || df->parts.empty() || bytes >= df->min_bytes
      || steady_now_ms() >= df->deadline_ms) {
    answer_fetch(self, *df, results);
    return;
  }
  auto& st = self->state;
  auto key = ++st.next_fetch_key;
  caf::weak_actor_ptr weak{self->ctrl()};
  auto watch = purgatory->watch(df->partitions, seen, [weak, key] {
    if (auto strong = weak.lock())
      caf::anon_send(caf::actor_cast<caf::actor>(strong),
                     fetch_wake_atom::value, key);
  });
  if (watch == 0) { // a partition changed during the read
    read_fetch(self, std::move(df));
    return;
  }
  auto wait = df->deadline_ms - steady_now_ms();
  st.parked_fetches.emplace(
    key, kafka_session_state::parked_fetch{std::move(df), watch});
  self->delayed_send(self, milliseconds{std::max<int64_t>(wait, 0)},
                     fetch_wake_atom::value, key);
}

} // namespace

void serve_fetch(kafka_session_ptr self, const wire::request_header& h,
                 wire::fetch_request& req, kafka_reply_fn reply) {
  // Fetch sessions (KIP-227, docs/ARCHITECTURE.md §5): the broker's cache
  // turns the request into the partitions to fetch (all of a session's for
  // an incremental fetch) or an error for the whole fetch; the response
  // then carries what the session selects. Without a cache (v0-6, or none
  // kept), every fetch is full and opens nothing.
  std::shared_ptr<wire::fetch_context> session;
  auto& shared = self->state.ctx.fetch_sessions;
  if (h.api_version >= 7) {
    wire::fetch_context ctx;
    if (shared) {
      std::lock_guard<std::mutex> guard{shared->lock};
      ctx = shared->cache.open(req, h.api_version, steady_now_ms());
    } else if (req.session_epoch != 0 && req.session_epoch != -1) {
      ctx.error = error_code::fetch_session_id_not_found;
    }
    if (ctx.error != error_code::none) {
      wire::fetch_response out;
      out.error = ctx.error;
      reply(frame(h, out, wire::encode_fetch_response));
      return;
    }
    if (shared) {
      // The partitions to fetch, as a request: consecutive partitions of
      // one topic under one entry (a topic may come twice, as in Kafka's
      // incremental responses).
      req.topics.clear();
      for (auto& item : ctx.partitions) {
        bool same = !req.topics.empty()
                    && req.topics.back().topic == item.key.topic
                    && req.topics.back().topic_id == item.key.topic_id;
        if (!same)
          req.topics.push_back({item.key.topic, {}, item.key.topic_id});
        req.topics.back().partitions.push_back(item.request);
      }
      session = std::make_shared<wire::fetch_context>(std::move(ctx));
    }
  }
  if (h.api_version < 13) {
    fetch_by_name(self, h, std::move(req), std::move(reply), session);
    return;
  }
  std::vector<uuid> ids;
  for (auto& t : req.topics)
    ids.push_back(t.topic_id);
  with_topic_names(self, ids,
                   [self, h, req = std::move(req), reply = std::move(reply),
                    session]() mutable {
                     fetch_by_name(self, h, std::move(req), std::move(reply),
                                   session);
                   });
}

void fetch_woken(kafka_session_ptr self, uint64_t key) {
  auto& st = self->state;
  auto i = st.parked_fetches.find(key);
  if (i == st.parked_fetches.end())
    return; // woken before its deadline, or the other way round
  auto df = std::move(i->second.fetch);
  if (st.ctx.purgatory)
    st.ctx.purgatory->cancel(i->second.watch);
  st.parked_fetches.erase(i);
  read_fetch(self, std::move(df));
}

// -- ListOffsets (2) -----------------------------------------------------------

void serve_list_offsets(kafka_session_ptr self, const wire::request_header& h,
                        wire::list_offsets_request& req, kafka_reply_fn reply) {
  std::vector<list_offsets_request> parts;
  std::vector<int32_t> max_offsets; // v0: MaxNumOffsets of each part
  wire::list_offsets_response shape;
  // handleListOffsetRequest: DESCRIBE on each topic, else
  // TOPIC_AUTHORIZATION_FAILED for its partitions.
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  for (auto& t : req.topics) {
    wire::list_offsets_topic_response tr;
    tr.name = t.name;
    bool allowed = auth.topic(acl_operation::describe, t.name);
    for (auto& p : t.partitions) {
      wire::list_offsets_partition_response pr;
      pr.partition_index = p.partition_index;
      if (allowed && h.api_version == 0
          && p.timestamp < wire::earliest_timestamp) {
        // v0 knows no special timestamps past -2: no segment is that old,
        // so nothing is listed (the partition's errors still are).
        parts.push_back(
          {{t.name, p.partition_index}, wire::latest_timestamp, -1});
        max_offsets.push_back(0);
      } else if (allowed) {
        parts.push_back(
          {{t.name, p.partition_index}, p.timestamp, p.current_leader_epoch});
        max_offsets.push_back(p.max_num_offsets);
      } else
        pr.error = error_code::topic_authorization_failed;
      tr.partitions.push_back(pr);
    }
    shape.topics.push_back(std::move(tr));
  }
  // v10's timeout (KIP-1075) bounds waits for tiered storage, which troupe
  // lacks; it only lengthens how long the listener waits here.
  auto timeout = std::max(edge_request_timeout, milliseconds{req.timeout_ms});
  ask_broker<list_offsets_response>(
    self, timeout, std::move(parts),
    [h, max_offsets, shape = std::move(shape), reply = std::move(reply)](
      std::vector<std::optional<list_offsets_response>> results) mutable {
      size_t i = 0;
      for (auto& t : shape.topics)
        for (auto& p : t.partitions) {
          if (p.error != error_code::none)
            continue; // refused above: Kafka's UNKNOWN timestamp and offset
          auto max = max_offsets[i];
          auto& r = results[i++];
          p.error = r ? r->error : error_code::request_timed_out;
          if (h.api_version == 0) {
            // v0 lists offsets (Kafka's legacyFetchOffsetsForTimestamp):
            // the one troupe finds, for -1 (the high watermark, where a
            // consumer reads to), -2 (the log start) and a timestamp (the
            // first offset at or after it; none when there is none), at
            // most MaxNumOffsets of them. Kafka lists segment base offsets
            // beyond the first; troupe's answer is the one offset.
            if (r && r->error == error_code::none && r->offset >= 0 && max > 0)
              p.old_style_offsets.push_back(r->offset);
            continue;
          }
          p.timestamp = r ? r->timestamp : -1;
          p.offset = r ? r->offset : -1;
          p.leader_epoch = r ? r->leader_epoch : -1;
        }
      reply(frame(h, shape, wire::encode_list_offsets_response));
    });
}

// -- OffsetForLeaderEpoch (23) ---------------------------------------------------

void serve_offset_for_leader_epoch(kafka_session_ptr self,
                                   const wire::request_header& h,
                                   wire::offset_for_leader_epoch_request& req,
                                   kafka_reply_fn reply) {
  // A consumer validating its position after a leader change (KIP-320):
  // where its epoch ends in the leader's log.
  std::vector<epoch_end_offset_request> parts;
  wire::offset_for_leader_epoch_response shape;
  // handleOffsetForLeaderEpochRequest: CLUSTER_ACTION, or DESCRIBE on the
  // topic (KIP-320), else TOPIC_AUTHORIZATION_FAILED.
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  for (auto& t : req.topics) {
    wire::offset_for_leader_topic_result tr;
    tr.topic = t.topic;
    auto denied = kafka_auth::offset_for_leader_epoch_error(auth, t.topic);
    for (auto& p : t.partitions) {
      wire::offset_for_leader_partition_result pr;
      pr.partition = p.partition;
      if (denied == error_code::none)
        parts.push_back(
          {{t.topic, p.partition}, p.leader_epoch, p.current_leader_epoch});
      else
        pr.error = denied;
      tr.partitions.push_back(pr);
    }
    shape.topics.push_back(std::move(tr));
  }
  ask_broker<epoch_end_offset_response>(
    self, edge_request_timeout, std::move(parts),
    [h, shape = std::move(shape), reply = std::move(reply)](
      std::vector<std::optional<epoch_end_offset_response>> results) mutable {
      size_t i = 0;
      for (auto& t : shape.topics)
        for (auto& p : t.partitions) {
          if (p.error != error_code::none)
            continue; // refused above
          auto& r = results[i++];
          p.error = r ? r->error : error_code::request_timed_out;
          p.leader_epoch = r ? r->leader_epoch : -1;
          p.end_offset = r ? r->end_offset : -1;
        }
      reply(frame(h, shape, wire::encode_offset_for_leader_epoch_response));
    });
}

// -- InitProducerId (22) ------------------------------------------------------------

void serve_init_producer_id(kafka_session_ptr self,
                            const wire::request_header& h,
                            wire::init_producer_id_request& req,
                            kafka_reply_fn reply) {
  auto refuse = [&](error_code e) {
    reply(frame(h, wire::init_producer_id_response{0, e, -1, -1},
                wire::encode_init_producer_id_response));
  };
  // KafkaApis.handleInitProducerIdRequest: a transactional id needs WRITE
  // on it, and no principal has it on a broker without transactions; an
  // idempotent producer needs IDEMPOTENT_WRITE on the CLUSTER or WRITE on
  // some topic (CLUSTER_AUTHORIZATION_FAILED).
  if (req.transactional_id)
    return refuse(error_code::transactional_id_authorization_failed);
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  if (auto e = kafka_auth::init_producer_id_error(auth, std::nullopt);
      e != error_code::none)
    return refuse(e);
  if ((req.producer_id == -1) != (req.producer_epoch == -1))
    return refuse(error_code::invalid_request);
  // Without a transactional id Kafka's TransactionCoordinator always hands
  // out a new producer id with epoch 0, also to a producer that names its
  // current one (KIP-360).
  ask_one<init_producer_id_response>(
    self, edge_request_timeout, init_producer_id_request{}, std::move(reply),
    [h](init_producer_id_response& res) {
      wire::init_producer_id_response out{0, res.error, res.producer_id,
                                          res.producer_epoch};
      return frame(h, out, wire::encode_init_producer_id_response);
    });
}

} // namespace troupe::kafka_handlers
