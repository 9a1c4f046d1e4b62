// REST Proxy v2's produce (kafka-rest ProduceToTopicAction,
// ProduceToPartitionAction): records in the binary (base64) or json
// embedded format, keyed records placed by Java's murmur2 partitioner,
// acks=all, one batch per partition sent to its leader. Like a Kafka
// producer, the gateway keeps topic metadata (its bridge's client::producer)
// and refreshes it and retries while leadership moves.

#include <chrono>
#include <map>

#include "domain/base64.hpp"
#include "client/sender.hpp"
#include "domain/log/record_batch.hpp"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/json_value.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/routes.hpp"

namespace troupe::rest {

namespace {

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
bool serialize(embedded_format f, const json_value* v,
               std::optional<std::vector<uint8_t>>& out, std::string& error) {
  if (!v || v->is_null())
    return true;
  if (f == embedded_format::binary) {
    if (v->type != json_value::kind::string) {
      error = "data=" + v->compact() + " is not a base64 string.";
      return false;
    }
    auto raw = base64_decode(v->text);
    if (!raw) {
      error = "data=" + v->compact() + " is not a valid base64 string.";
      return false;
    }
    out.emplace(raw->begin(), raw->end());
    return true;
  }
  auto text = v->compact();
  out.emplace(text.begin(), text.end());
  return true;
}

/// A record's partition: an integer in int32's range.
bool partition_of(const json_value& v, std::optional<int32_t>& out) {
  if (v.is_null())
    return true;
  if (v.type != json_value::kind::number
      || v.text.find_first_of(".eE") != std::string::npos)
    return false;
  int64_t p = 0;
  if (!parse_int(v.text, p) || p < INT32_MIN || p > INT32_MAX)
    return false;
  out = static_cast<int32_t>(p);
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

/// Places every record; false when the request is refused.
bool place(const call& c, produce_job& job, const topic_metadata& t) {
  auto n = static_cast<int32_t>(t.partition_states.size());
  for (auto& r : job.records) {
    if (r.partition) {
      if (*r.partition < 0 || *r.partition >= n) {
        c.reply(v2::partition_not_found());
        return false;
      }
      r.placed = *r.partition;
    } else {
      r.placed = c.cache().producer.partitioner.partition(r.rec.key, n);
    }
  }
  return true;
}

/// The producer's way into the cluster from a REST call (client/sender.hpp's
/// Io): the bridge's producer, its clock, the controller for metadata
/// (creating the topic when auto.create.topics.enable), the cluster view
/// for leaders' handles, and the bridge for asks and retries.
struct rest_io {
  call c;

  client::producer& state() const {
    return c.cache().producer;
  }
  int64_t now() const {
    return c.now();
  }
  void
  metadata(std::string topic,
           std::function<void(caf::expected<metadata_response>)> k) const {
    with_metadata(c, {std::move(topic)}, c.svc().cluster.auto_create_topics,
                  std::move(k));
  }
  broker_actor broker(int32_t id) const {
    return c.cluster().broker(id);
  }
  void produce(broker_actor to, produce_request req,
               std::function<void(caf::expected<produce_response>)> k) const {
    c.ask<produce_response>(std::move(to), std::move(req), std::move(k));
  }
  void after(milliseconds delay, std::function<void()> fn) const {
    c.after(delay, std::move(fn));
  }
};

/// Places the job's records and queues them per partition; answers once
/// every partition's batch is acknowledged.
void start(const call& c, job_ptr job) {
  rest_io io{c};
  client::with_topic_metadata(
    io, job->topic, false,
    [c, io, job](const topic_metadata* t, const caf::error& err) {
      if (!t)
        return c.reply(err ? ask_failed(err, "metadata")
                           : v2::topic_not_found());
      if (!place(c, *job, *t))
        return;
      std::map<int32_t, std::vector<size_t>> places;
      for (size_t i = 0; i < job->records.size(); ++i)
        places[job->records[i].placed].push_back(i);
      auto outstanding = std::make_shared<size_t>(places.size());
      for (auto& [p, idx] : places) {
        client::pending_records pending;
        for (auto i : idx) {
          auto& rec = job->records[i].rec;
          pending.bytes += (rec.key ? rec.key->size() : 0)
                           + (rec.value ? rec.value->size() : 0) + 32;
          pending.records.push_back(rec);
        }
        pending.done = [c, job, idx = idx, outstanding](error_code e,
                                                        int64_t base) {
          for (size_t j = 0; j < idx.size(); ++j) {
            auto& r = job->records[idx[j]];
            r.error = e;
            if (e == error_code::none)
              r.offset = base + static_cast<int64_t>(j);
            else
              r.message = std::string{error_message(e)};
          }
          if (--*outstanding == 0)
            c.reply(json_response(offsets_json(*job), job->type));
        };
        client::append(io, {job->topic, p}, std::move(pending));
      }
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
  // Produce needs WRITE on the topic (Kafka's handleProduceRequest): a
  // denied request writes nothing.
  if (!c.allow_topics(security::acl_operation::write, {c.param(0)}))
    return;
  if (req.body.empty())
    return c.reply(v2::unprocessable("Request body is empty. Data is "
                                     "required."));
  json_value body;
  std::string err;
  if (!parse_json(req.body, body, err))
    return c.reply(v2::bad_request("malformed JSON: " + err));
  if (body.type != json_value::kind::object)
    return c.reply(v2::bad_request("the body must be a JSON object"));
  const json_value* records = nullptr;
  for (auto& [name, v] : body.members) {
    if (name == "records")
      records = &v;
    else if (name != "key_schema" && name != "key_schema_id"
             && name != "value_schema" && name != "value_schema_id")
      return c.reply(v2::bad_request("unknown field '" + name + "'"));
  }
  if (records && !records->is_null()
      && records->type != json_value::kind::array)
    return c.reply(v2::bad_request("field 'records' must be an array"));
  // REST Proxy's ProduceRequest: @NotEmpty records.
  if (!records || records->items.empty())
    return c.reply(v2::unprocessable("records must not be empty"));
  auto job = std::make_shared<produce_job>();
  job->topic = c.param(0);
  job->type = *type;
  auto ts = wall_clock_ms();
  for (auto& r : records->items) {
    if (r.type != json_value::kind::object)
      return c.reply(v2::bad_request("every record must be an object"));
    pending_record pr;
    pr.rec.timestamp = ts;
    pr.partition = forced;
    for (auto& [name, v] : r.members) {
      if (name == "key") {
        if (!serialize(*format, &v, pr.rec.key, err))
          return c.reply(v2::bad_request(err));
      } else if (name == "value") {
        if (!serialize(*format, &v, pr.rec.value, err))
          return c.reply(v2::bad_request(err));
      } else if (name == "partition") {
        std::optional<int32_t> p;
        if (!partition_of(v, p))
          return c.reply(v2::bad_request("partition must be an integer"));
        if (p)
          pr.partition = p;
      } else {
        return c.reply(
          v2::bad_request("unknown field '" + name + "' in a record"));
      }
    }
    job->records.push_back(std::move(pr));
  }
  c.run([c, job](bridge_self) { start(c, job); });
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
