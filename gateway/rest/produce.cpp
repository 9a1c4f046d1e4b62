// REST Proxy v2's produce (kafka-rest ProduceToTopicAction,
// ProduceToPartitionAction): records in the binary (base64) or json
// embedded format, keyed records placed by Java's murmur2 partitioner,
// acks=all, one batch per partition sent to its leader. Like a Kafka
// producer, the gateway keeps topic metadata (in its bridge) and refreshes
// it and retries while leadership moves.

#include <chrono>
#include <map>

#include "domain/base64.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/murmur2.hpp"
#include "gateway.pb.h"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/routes.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

constexpr int max_attempts = 50;
constexpr milliseconds retry_backoff{100}; // Kafka's retry.backoff.ms

int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

/// One record of the request, serialized, and where it goes.
struct pending_record {
  record rec;
  std::optional<int32_t> partition; // given by the request
  int32_t placed = -1;              // chosen
  int64_t offset = -1;
  error_code error = error_code::none;
  std::string message;
};

struct produce_job {
  std::string topic;
  std::string type;
  std::vector<pending_record> records;
};

using job_ptr = std::shared_ptr<produce_job>;

/// Key or value bytes in the request's embedded format (REST Proxy's
/// NoSchemaRecordSerializer); null and absent are no bytes.
bool serialize(embedded_format f, const google::protobuf::Value& v,
               bool present, std::optional<std::vector<uint8_t>>& out,
               std::string& error) {
  if (!present || v.has_null_value())
    return true;
  if (f == embedded_format::binary) {
    if (!v.has_string_value()) {
      error = "data=" + to_json(v) + " is not a base64 string.";
      return false;
    }
    auto raw = base64_decode(v.string_value());
    if (!raw) {
      error = "data=" + to_json(v) + " is not a valid base64 string.";
      return false;
    }
    out.emplace(raw->begin(), raw->end());
    return true;
  }
  auto text = to_json(v);
  out.emplace(text.begin(), text.end());
  return true;
}

std::string offsets_json(const produce_job& job) {
  std::string out = "{\"offsets\":[";
  for (size_t i = 0; i < job.records.size(); ++i) {
    auto& r = job.records[i];
    if (i > 0)
      out += ',';
    if (r.error == error_code::none)
      out += "{\"partition\":" + std::to_string(r.placed)
             + ",\"offset\":" + std::to_string(r.offset)
             + ",\"error_code\":null,\"error\":null}";
    else
      out += "{\"partition\":null,\"offset\":null,\"error_code\":"
             + std::to_string(v2::produce_error_code(r.error))
             + ",\"error\":" + json_quote(r.message) + "}";
  }
  return out + "],\"key_schema_id\":null,\"value_schema_id\":null}";
}

void send_batches(const call& c, job_ptr job, int attempt);

/// Places every record not yet placed; false when the request is refused.
bool place(const call& c, produce_job& job, const topic_metadata& t) {
  auto n = static_cast<int32_t>(t.partition_states.size());
  for (auto& r : job.records) {
    if (r.placed >= 0)
      continue;
    if (r.partition) {
      if (*r.partition < 0 || *r.partition >= n) {
        c.reply(v2::partition_not_found());
        return false;
      }
      r.placed = *r.partition;
    } else if (r.rec.key) {
      std::string_view key{reinterpret_cast<const char*>(r.rec.key->data()),
                           r.rec.key->size()};
      r.placed = partition_for_key(key, n);
    } else {
      r.placed = static_cast<int32_t>(c.cache().next_partition++
                                      % static_cast<uint32_t>(n));
    }
  }
  return true;
}

/// The topic's metadata from the bridge's cache, else from the controller
/// (creating the topic when auto.create.topics.enable).
void with_topic_metadata(const call& c, const std::string& topic, bool fresh,
                         std::function<void(const topic_metadata*)> k) {
  auto& topics = c.cache().topics;
  auto i = topics.find(topic);
  if (!fresh && i != topics.end()
      && c.now() - i->second.fetched_ms < bridge_state::metadata_max_age_ms)
    return k(&i->second.metadata);
  with_metadata(c, {topic}, c.svc().cluster.auto_create_topics,
                [c, topic, k](caf::expected<metadata_response> md) {
                  if (!md) {
                    c.reply(ask_failed(md.error(), "metadata"));
                    return;
                  }
                  if (md->topics.empty()
                      || md->topics[0].error != error_code::none
                      || md->topics[0].partition_states.empty())
                    return k(nullptr);
                  auto& entry = c.cache().topics[topic];
                  entry.metadata = md->topics[0];
                  entry.fetched_ms = c.now();
                  k(&entry.metadata);
                });
}

bool retriable(error_code e) {
  return e == error_code::not_leader_or_follower
         || e == error_code::leader_not_available
         || e == error_code::unknown_topic_or_partition
         || e == error_code::fenced_leader_epoch;
}

/// Sends one batch per partition of the records still without an offset;
/// retries the retriable failures after a metadata refresh.
void send_batches(const call& c, job_ptr job, int attempt) {
  with_topic_metadata(
    c, job->topic, attempt > 0, [c, job, attempt](const topic_metadata* t) {
      if (!t)
        return c.reply(v2::topic_not_found());
      if (!place(c, *job, *t))
        return;
      std::map<int32_t, int32_t> leaders;
      for (auto& p : t->partition_states)
        leaders[p.partition] = p.leader;
      // Records by partition, remembering each one's place in the request.
      std::map<int32_t, std::vector<size_t>> places;
      for (size_t i = 0; i < job->records.size(); ++i) {
        auto& r = job->records[i];
        if (r.offset < 0 && (r.error == error_code::none || retriable(r.error)))
          places[r.placed].push_back(i);
      }
      std::vector<std::pair<broker_actor, produce_request>> reqs;
      std::vector<std::vector<size_t>> order;
      for (auto& [p, idx] : places) {
        std::vector<record> recs;
        for (auto i : idx)
          recs.push_back(job->records[i].rec);
        produce_request pr;
        pr.partition = {job->topic, p};
        pr.acks = -1;
        pr.timeout_ms = 30000;
        pr.batch = encode_batch(0, -1, recs);
        reqs.emplace_back(c.cluster().broker(leaders[p]), std::move(pr));
        order.push_back(idx);
      }
      c.ask_all<produce_response>(
        std::move(reqs), [c, job, attempt, order](
                           std::vector<caf::expected<produce_response>> rs) {
          bool again = false;
          for (size_t b = 0; b < rs.size(); ++b) {
            auto& r = rs[b];
            auto e = !r ? (r.error() == caf::sec::invalid_argument
                             ? error_code::leader_not_available
                             : error_code::request_timed_out)
                        : r->error;
            for (size_t j = 0; j < order[b].size(); ++j) {
              auto& rec = job->records[order[b][j]];
              if (e == error_code::none) {
                rec.offset = r->base_offset + static_cast<int64_t>(j);
                rec.error = e;
              } else {
                rec.error = e;
                rec.message = std::string{error_message(e)};
              }
            }
            if (e != error_code::none && retriable(e))
              again = true;
          }
          if (again && attempt + 1 < max_attempts)
            return c.after(retry_backoff, [c, job, attempt] {
              send_batches(c, job, attempt + 1);
            });
          c.reply(json_response(offsets_json(*job), job->type));
        });
    });
}

void produce(const call& c, std::optional<int32_t> forced) {
  auto& req = c.request();
  auto format = embedded_format_of(req.content_type);
  if (!format)
    return c.reply(v2::unsupported_media_type(
      "produce needs an embedded format: Content-Type "
      "application/vnd.kafka.binary.v2+json or "
      "application/vnd.kafka.json.v2+json, got '"
      + req.content_type + "'"));
  if (*format != embedded_format::binary && *format != embedded_format::json)
    return c.reply(v2::unsupported_media_type(
      std::string{name_of(*format)}
      + " needs a schema registry, which troupe does not have; use binary "
        "or json"));
  auto type = answer_type(c);
  if (!type)
    return;
  pb::ProduceRequest body;
  std::string err;
  if (req.body.empty())
    return c.reply(v2::unprocessable("Request body is empty. Data is "
                                     "required."));
  if (!from_json(req.body, body, err))
    return c.reply(v2::bad_request(err));
  // REST Proxy's ProduceRequest: @NotEmpty records.
  if (body.records_size() == 0)
    return c.reply(v2::unprocessable("records must not be empty"));
  auto job = std::make_shared<produce_job>();
  job->topic = c.param(0);
  job->type = *type;
  auto ts = wall_clock_ms();
  for (auto& r : body.records()) {
    pending_record pr;
    pr.rec.timestamp = ts;
    if (!serialize(*format, r.key(), r.has_key(), pr.rec.key, err)
        || !serialize(*format, r.value(), r.has_value(), pr.rec.value, err))
      return c.reply(v2::bad_request(err));
    if (r.has_partition())
      pr.partition = r.partition();
    else
      pr.partition = forced;
    job->records.push_back(std::move(pr));
  }
  c.run([c, job](bridge_self) { send_batches(c, job, 0); });
}

} // namespace

void produce_to_topic(const call& c) {
  produce(c, std::nullopt);
}

void produce_to_partition(const call& c) {
  int64_t p = -1;
  if (!parse_int(c.param(1), p) || p < 0 || p > INT32_MAX)
    return c.reply(v2::partition_not_found());
  produce(c, static_cast<int32_t>(p));
}

} // namespace troupe::rest
