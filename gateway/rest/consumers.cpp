// REST Proxy v2's consumer instances (kafka-rest ConsumersResource): each
// route checks its request here and asks the instance registry
// (gateway/rest/instances.cpp), which answers with the HTTP response.

#include <ctime>

#include "domain/assignors/assignor.hpp"
#include "gateway.pb.h"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/routes.hpp"

namespace pb = troupe::gateway;

namespace troupe::rest {

namespace {

instance_key key_of(const call& c) {
  return {c.param(0), c.param(1)};
}

/// An instance is a member of its group: every instance route needs READ
/// on the group, as JoinGroup, Heartbeat and OffsetCommit do.
bool member_allowed(const call& c) {
  return c.allow_group(security::acl_operation::read, c.param(0));
}

bool topics_allowed(const call& c, const std::vector<topic_partition>& tps) {
  std::vector<std::string> topics;
  for (auto& tp : tps)
    topics.push_back(tp.topic);
  return c.allow_topics(security::acl_operation::read, topics);
}

/// Sends `req` to the registry and answers with its response, in the media
/// type Accept chose.
template <class Request>
void forward(const call& c, std::string type, Request req,
             milliseconds timeout = edge_request_timeout) {
  c.ask<http_response>(
    c.svc().instances, std::move(req),
    [c, type](caf::expected<http_response> res) {
      if (!res)
        return c.reply(ask_failed(res.error(), "consumer instance"));
      if (res->status < 300 && !res->body.empty()
          && res->content_type == v2_json)
        res->content_type = type;
      c.reply(std::move(*res));
    },
    timeout);
}

/// REST Proxy's @NotNull bodies: no body is a 422.
bool require_body(const call& c) {
  if (!c.request().body.empty())
    return true;
  c.reply(v2::unprocessable("Null input provided. Data is required."));
  return false;
}

/// A property REST Proxy takes as a string of digits (troupe's Kafka
/// consumer settings): positive milliseconds up to a day.
bool parse_ms(const std::string& text, int32_t& out) {
  if (text.empty())
    return true;
  int64_t v = 0;
  if (!parse_int(text, v) || v <= 0 || v > 86400000)
    return false;
  out = static_cast<int32_t>(v);
  return true;
}

/// An integer given as a JSON number or a string of digits.
bool int_value(const google::protobuf::Value& v, int64_t& out) {
  if (v.has_number_value()) {
    out = static_cast<int64_t>(v.number_value());
    return static_cast<double>(out) == v.number_value();
  }
  if (v.has_string_value())
    return parse_int(v.string_value(), out);
  return false;
}

/// An ISO-8601 UTC instant (REST Proxy's java.time.Instant:
/// 2021-03-01T12:00:00Z, fractions allowed) or epoch milliseconds.
bool timestamp_ms(const google::protobuf::Value& v, int64_t& out) {
  if (int_value(v, out))
    return true;
  if (!v.has_string_value())
    return false;
  std::tm tm{};
  auto& s = v.string_value();
  auto* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest)
    return false;
  int64_t millis = 0;
  if (*rest == '.') {
    ++rest;
    int digits = 0;
    while (*rest >= '0' && *rest <= '9') {
      if (digits < 3)
        millis = millis * 10 + (*rest - '0');
      ++digits, ++rest;
    }
    for (; digits < 3; ++digits)
      millis *= 10;
  }
  if (std::string{rest} != "Z")
    return false;
  out = static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
  return true;
}

bool partitions_of(const call& c, const pb::PartitionsRequest& body,
                   std::vector<topic_partition>& out) {
  for (auto& p : body.partitions()) {
    if (!p.has_topic() || !p.has_partition()) {
      c.reply(v2::unprocessable("every partition needs 'topic' and "
                                "'partition'"));
      return false;
    }
    out.push_back({p.topic(), p.partition()});
  }
  return true;
}

void seek_all(const call& c, int64_t to) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c) || !require_body(c))
    return;
  pb::PartitionsRequest body;
  if (!read_body(c, body))
    return;
  std::vector<topic_partition> tps;
  if (!partitions_of(c, body, tps))
    return;
  seek_instance req;
  req.key = key_of(c);
  for (auto& tp : tps)
    req.positions.push_back({tp, to});
  forward(c, *type, std::move(req));
}

} // namespace

void create_consumer(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c))
    return;
  pb::CreateConsumerRequest body;
  if (!read_body(c, body))
    return;
  instance_settings s;
  s.name = !body.id().empty() ? body.id() : body.name();
  if (!body.format().empty()) {
    auto f = format_by_name(body.format());
    if (!f)
      return c.reply(v2::unprocessable("Invalid format type."));
    if (*f != embedded_format::binary && *f != embedded_format::json)
      return c.reply(v2::invalid_consumer_config(
        "format " + body.format()
        + " needs a schema registry, which troupe does not have"));
    s.format = *f;
  }
  auto& reset = body.auto_offset_reset();
  if (!reset.empty() && reset != "earliest" && reset != "latest"
      && reset != "none")
    return c.reply(v2::invalid_consumer_config(
      "Invalid value " + reset
      + " for configuration auto.offset.reset: String must be one of: "
        "latest, earliest, none"));
  if (!reset.empty())
    s.offset_reset = reset;
  auto& commit = body.auto_commit_enable();
  if (!commit.empty() && commit != "true" && commit != "false")
    return c.reply(v2::invalid_consumer_config(
      "Invalid value " + commit
      + " for configuration enable.auto.commit: Expected value to be either "
        "true or false"));
  s.auto_commit = commit != "false";
  if (body.has_consumer_request_timeout_ms()) {
    int64_t v = 0;
    if (!int_value(body.consumer_request_timeout_ms(), v) || v < 0
        || v > c.svc().config.max_poll_timeout_ms)
      return c.reply(v2::invalid_consumer_config(
        "consumer.request.timeout.ms must be an integer from 0 to "
        + std::to_string(c.svc().config.max_poll_timeout_ms)));
    s.request_timeout_ms = static_cast<int32_t>(v);
  }
  if (body.has_fetch_min_bytes()) {
    int64_t v = 0;
    if (!int_value(body.fetch_min_bytes(), v) || v < -1)
      return c.reply(v2::invalid_consumer_config(
        "fetch.min.bytes must be an integer of at least -1"));
  }
  if (!parse_ms(body.max_poll_interval_ms(), s.max_poll_interval_ms)
      || !parse_ms(body.session_timeout_ms(), s.session_timeout_ms)
      || !parse_ms(body.heartbeat_interval_ms(), s.heartbeat_interval_ms))
    return c.reply(v2::invalid_consumer_config(
      "max.poll.interval.ms, session.timeout.ms and heartbeat.interval.ms "
      "must be positive integers (ms)"));
  auto& limits = c.svc().cluster.group;
  if (s.session_timeout_ms < limits.min_session_timeout_ms
      || s.session_timeout_ms > limits.max_session_timeout_ms)
    return c.reply(v2::invalid_consumer_config(
      "session.timeout.ms must lie within group.min.session.timeout.ms and "
      "group.max.session.timeout.ms"));
  if (auto& a = body.partition_assignment_strategy(); !a.empty()) {
    if (!find_assignor(a))
      return c.reply(v2::invalid_consumer_config(
        "partition.assignment.strategy " + a
        + " is not one of range, roundrobin, sticky, cooperative-sticky"));
    s.assignors = {a};
  }
  forward(c, *type,
          create_instance{c.param(0), std::move(s), c.svc().config.base_uri});
}

void delete_consumer(const call& c) {
  auto type = answer_type(c, true);
  if (type && member_allowed(c))
    forward(c, *type, delete_instance{key_of(c)});
}

void subscribe(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c) || !require_body(c))
    return;
  pb::SubscriptionRequest body;
  if (!read_body(c, body))
    return;
  subscribe_instance req;
  req.key = key_of(c);
  if (body.has_topics()) {
    req.has_topics = true;
    for (auto& t : body.topics().values()) {
      if (!t.has_string_value())
        return c.reply(v2::bad_request("topics must be strings"));
      req.topics.push_back(t.string_value());
    }
    if (!c.allow_topics(security::acl_operation::read, req.topics))
      return;
  } else if (body.has_topic_pattern()) {
    req.has_pattern = true;
    req.pattern = body.topic_pattern();
  }
  forward(c, *type, std::move(req));
}

void get_subscription(const call& c) {
  auto type = answer_type(c, true);
  if (type && member_allowed(c))
    forward(c, *type, subscription_of{key_of(c)});
}

void unsubscribe(const call& c) {
  auto type = answer_type(c, true);
  if (type && member_allowed(c))
    forward(c, *type, unsubscribe_instance{key_of(c)});
}

void read_records(const call& c) {
  // The registry negotiates the records' format with the instance's own.
  if (!member_allowed(c))
    return;
  poll_instance req;
  req.key = key_of(c);
  req.accept = c.request().accept;
  req.may = c.access(); // READ on each topic it reads, checked by the registry
  std::string text;
  if (query_param(c.request().query, "timeout", text)
      && !parse_int(text, req.timeout_ms))
    return c.reply(v2::bad_request("timeout must be an integer (ms)"));
  if (query_param(c.request().query, "max_bytes", text)
      && !parse_int(text, req.max_bytes))
    return c.reply(v2::bad_request("max_bytes must be an integer"));
  auto wait = std::max<int64_t>(req.timeout_ms, 0);
  wait = std::min<int64_t>(wait, c.svc().config.max_poll_timeout_ms);
  forward(c, "", std::move(req), milliseconds{wait} + edge_request_timeout);
}

void commit_offsets(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c))
    return;
  pb::CommitOffsetsRequest body;
  if (!read_body(c, body))
    return;
  commit_instance req;
  req.key = key_of(c);
  req.has_offsets = body.offsets_size() > 0;
  for (auto& o : body.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return c.reply(v2::unprocessable("every offset needs 'topic', "
                                       "'partition' and 'offset'"));
    offset_commit_partition p;
    p.topic = o.topic();
    p.partition = o.partition();
    // The next record to read, as the Java consumer commits it
    // (KafkaConsumerState.commitOffsets).
    p.offset = o.offset() + 1;
    p.metadata = o.metadata();
    req.offsets.push_back(std::move(p));
  }
  std::vector<std::string> topics;
  for (auto& o : req.offsets)
    topics.push_back(o.topic);
  if (!c.allow_topics(security::acl_operation::read, topics))
    return;
  // Without offsets the registry commits what the instance consumed: the
  // topics its polls were allowed to read.
  forward(c, *type, std::move(req));
}

void get_committed_offsets(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c))
    return;
  // REST Proxy: no request body is "partition not found".
  if (c.request().body.empty())
    return c.reply(v2::partition_not_found());
  pb::PartitionsRequest body;
  if (!read_body(c, body))
    return;
  committed_of req;
  req.key = key_of(c);
  if (!partitions_of(c, body, req.partitions)
      || !topics_allowed(c, req.partitions))
    return;
  forward(c, *type, std::move(req));
}

void seek(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c) || !require_body(c))
    return;
  pb::SeekRequest body;
  if (!read_body(c, body))
    return;
  seek_instance req;
  req.key = key_of(c);
  for (auto& o : body.offsets()) {
    if (!o.has_topic() || !o.has_partition() || !o.has_offset())
      return c.reply(v2::unprocessable("every offset needs 'topic', "
                                       "'partition' and 'offset'"));
    if (o.offset() < 0)
      return c.reply(v2::unprocessable("offsets must not be negative"));
    req.positions.push_back({{o.topic(), o.partition()}, o.offset()});
  }
  for (auto& t : body.timestamps()) {
    int64_t ms = 0;
    if (!t.has_topic() || !t.has_partition() || !t.has_timestamp()
        || !timestamp_ms(t.timestamp(), ms))
      return c.reply(v2::unprocessable(
        "every timestamp needs 'topic', 'partition' and 'timestamp' "
        "(ISO-8601 such as 2021-03-01T12:00:00Z, or epoch ms)"));
    req.timestamps.push_back({{t.topic(), t.partition()}, ms});
  }
  forward(c, *type, std::move(req));
}

void seek_to_beginning(const call& c) {
  seek_all(c, position_earliest);
}

void seek_to_end(const call& c) {
  seek_all(c, position_latest);
}

void assign(const call& c) {
  auto type = answer_type(c, true);
  if (!type || !member_allowed(c) || !require_body(c))
    return;
  pb::PartitionsRequest body;
  if (!read_body(c, body))
    return;
  assign_instance req;
  req.key = key_of(c);
  if (!partitions_of(c, body, req.partitions)
      || !topics_allowed(c, req.partitions))
    return;
  forward(c, *type, std::move(req));
}

void get_assignments(const call& c) {
  auto type = answer_type(c, true);
  if (type && member_allowed(c))
    forward(c, *type, assignment_of{key_of(c)});
}

} // namespace troupe::rest
