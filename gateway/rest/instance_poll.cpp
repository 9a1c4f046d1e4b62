// GET .../records for a consumer instance: what the Java consumer's poll()
// does (KafkaConsumer.poll: updateFetchPositions, then fetch), as a chain
// of asks from the registry actor:
//   1. the consumer's positions for the partitions it owns (none yet while
//      it joins: wait a little, up to the poll's timeout);
//   2. auto.commit.enable commits what the previous poll returned;
//   3. positions not known yet start at the committed offset, else at
//      auto.offset.reset; seekToBeginning / seekToEnd resolve by ListOffsets;
//   4. a long-poll fetch from every partition's leader (client/fetcher.hpp);
//      the first answer with records wins and moves that partition's
//      position.

#include <algorithm>

#include "actors/ask.hpp"
#include "actors/clock.hpp"
#include "client/coordinator_lookup.hpp"
#include "client/fetcher.hpp"
#include "domain/base64.hpp"
#include "gateway/rest/errors.hpp"
#include "gateway/rest/instance_state.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/routes.hpp"

namespace troupe::rest {

namespace {

using std::chrono::milliseconds;

/// How long a poll waits before looking again (no assignment yet, no
/// leader, a position being reset).
constexpr int64_t retry_ms = 100;

void step(registry_ptr self, uint64_t id);

/// A request whose answer does not matter (a plain send would have the
/// answer arrive as an unexpected message).
template <class Request>
void tell(registry_ptr self, const consumer_actor& c, Request req) {
  using answer = std::conditional_t<std::is_same_v<Request, consumer_commit>,
                                    offset_commit_response, consumer_positions>;
  ask<answer>(self, c, consumer_timeout, std::move(req),
              [](caf::expected<answer>) {});
}

poll_context* find_poll(registry_ptr self, uint64_t id) {
  auto i = self->state.polls.find(id);
  return i == self->state.polls.end() ? nullptr : &i->second;
}

void finish(registry_ptr self, uint64_t id, http_response res) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  ctx->promise.deliver(std::move(res));
  auto* inst = self->state.find(ctx->key, ctx->uid);
  self->state.polls.erase(id);
  // Both timers count from the end of the poll: kafka-rest renews the
  // instance's expiration after each read, and its consumer's poll() runs
  // until the answer.
  if (inst) {
    touch(self, *inst);
    arm_poll_interval(self, *inst);
  }
}

void finish_empty(registry_ptr self, uint64_t id) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  finish(self, id, json_response("[]", media_type_of(ctx->format)));
}

/// Looks again after a short wait, or answers [] at the deadline.
void wait_or_finish(registry_ptr self, uint64_t id) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  auto left = ctx->deadline_ms - now_ms(self);
  if (left <= 0)
    return finish_empty(self, id);
  self->delayed_send(self, milliseconds{std::min(left, retry_ms)},
                     poll_wake{id});
}

std::string embedded(embedded_format f,
                     const std::optional<std::vector<uint8_t>>& data) {
  if (!data)
    return "null";
  std::string_view bytes{reinterpret_cast<const char*>(data->data()),
                         data->size()};
  if (f == embedded_format::binary)
    return json_quote(base64_encode(bytes));
  std::string compact;
  if (parse_json_value(bytes, &compact))
    return compact;
  // Not JSON (written by a Kafka client such as kcat): a JSON string.
  return json_quote(bytes);
}

/// Fetched records as REST Proxy's {Json,Binary}ConsumerRecord, comma
/// separated.
std::string records_json(const std::vector<client::fetched_records>& fetched,
                         embedded_format f) {
  std::string out;
  for (auto& got : fetched)
    for (auto& r : got.records) {
      if (!out.empty())
        out += ',';
      out += "{\"topic\":" + json_quote(got.partition.topic) + ",\"key\":"
             + embedded(f, r.key) + ",\"value\":" + embedded(f, r.value)
             + ",\"partition\":" + std::to_string(got.partition.partition)
             + ",\"offset\":" + std::to_string(r.offset) + "}";
    }
  return out;
}

/// The fetcher's way into the cluster from the registry
/// (client/fetcher.hpp's Io): leaders' handles from the cluster view, asks
/// from the registry actor.
struct registry_fetch_io {
  registry_ptr self;

  broker_actor broker(int32_t id) const {
    return self->state.cluster->broker(id);
  }
  void fetch(broker_actor to, fetch_request req, milliseconds timeout,
             std::function<void(caf::expected<fetch_response>)> k) const {
    ask<fetch_response>(self, to, timeout, std::move(req), std::move(k));
  }
};

/// Step 4: a long-poll fetch from every leader; the first records win.
void fetch(registry_ptr self, uint64_t id, uint64_t epoch,
           std::vector<partition_position> positions,
           std::map<topic_partition, int32_t> leaders) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  auto left = std::max<int64_t>(0, ctx->deadline_ms - now_ms(self));
  client::fetch_settings settings;
  settings.max_wait = milliseconds{left};
  settings.min_bytes = 1;
  settings.max_bytes = ctx->max_bytes;
  settings.reset_to = ctx->reset_to;
  settings.request_timeout = milliseconds{left} + edge_request_timeout;
  auto format = ctx->format;
  auto sent = client::send_fetches(
    registry_fetch_io{self}, positions, leaders, settings,
    [self, id, epoch, format](client::fetch_result got) {
      auto* ctx = find_poll(self, id);
      if (!ctx)
        return;
      auto* inst = self->state.find(ctx->key, ctx->uid);
      // Someone sought, reassigned or read first: what we read is stale.
      if (!inst || inst->position_epoch != epoch || !inst->consumer)
        return finish_empty(self, id);
      auto moves = got.next_positions();
      if (!moves.empty()) {
        ++inst->position_epoch;
        tell(self, inst->consumer, consumer_seek{moves});
      }
      if (!got.fetched.empty())
        return finish(
          self, id,
          json_response("[" + records_json(got.fetched, format) + "]",
                        media_type_of(ctx->format)));
      wait_or_finish(self, id);
    });
  if (sent == 0)
    wait_or_finish(self, id);
}

/// Step 3: positions not known yet, and seeks to the beginning or end.
void resolve(registry_ptr self, uint64_t id, uint64_t epoch,
             std::vector<partition_position> positions,
             std::map<topic_partition, int32_t> leaders) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  auto* inst = self->state.find(ctx->key, ctx->uid);
  if (!inst)
    return finish_empty(self, id);
  std::vector<topic_partition> unknown;
  for (auto& p : positions)
    if (p.offset == position_unknown)
      unknown.push_back(p.partition);
  auto group = inst->key.group;
  auto policy = inst->settings.offset_reset;
  // The committed offsets of the unknown ones (OffsetFetch at the group's
  // coordinator), then ListOffsets for whatever still has no offset.
  auto with_committed =
    [self, id, epoch, positions, leaders,
     policy](std::map<topic_partition, int64_t> committed) mutable {
      auto* ctx = find_poll(self, id);
      if (!ctx)
        return;
      std::vector<size_t> pending;
      std::vector<std::pair<broker_actor, list_offsets_request>> reqs;
      for (size_t i = 0; i < positions.size(); ++i) {
        auto& p = positions[i];
        if (p.offset == position_unknown) {
          if (auto c = committed.find(p.partition); c != committed.end()) {
            p.offset = c->second;
            continue;
          }
          if (policy == "none")
            return finish(
              self, id,
              error_body(500, 50002, "NO_OFFSET_FOR_PARTITION",
                         "Undefined offset with no reset policy for "
                         "partitions: "
                           + to_string(p.partition),
                         v2_json));
          p.offset = policy == "earliest" ? position_earliest : position_latest;
        }
        if (p.offset == position_earliest || p.offset == position_latest) {
          pending.push_back(i);
          reqs.emplace_back(self->state.cluster->broker(leaders[p.partition]),
                            list_offsets_request{p.partition, p.offset});
        }
      }
      ask_all<list_offsets_response>(
        self, std::move(reqs), edge_request_timeout,
        [self, id, epoch, positions, leaders, pending](
          std::vector<caf::expected<list_offsets_response>> rs) mutable {
          auto* ctx = find_poll(self, id);
          if (!ctx)
            return;
          std::vector<partition_position> resolved;
          for (size_t j = 0; j < pending.size(); ++j) {
            auto& p = positions[pending[j]];
            if (rs[j] && rs[j]->error == error_code::none)
              p.offset = rs[j]->offset;
            else
              p.offset = position_unknown; // no leader yet: next time
          }
          for (auto& p : positions)
            if (p.offset >= 0)
              resolved.push_back(p);
          auto* inst = self->state.find(ctx->key, ctx->uid);
          if (!inst || inst->position_epoch != epoch || !inst->consumer)
            return step(self, id); // positions moved meanwhile: start over
          ++inst->position_epoch;
          tell(self, inst->consumer, consumer_seek{resolved});
          fetch(self, id, inst->position_epoch, std::move(positions),
                std::move(leaders));
        });
    };
  if (unknown.empty())
    return with_committed({});
  client::find_coordinator(
    self, self->state.cluster->bootstrap(), group, edge_request_timeout,
    [self, group, unknown,
     with_committed](client::coordinator found) mutable {
      ask<offset_fetch_response>(
        self, found.broker, edge_request_timeout, offset_fetch_request{group, unknown},
        [with_committed](caf::expected<offset_fetch_response> offs) mutable {
          std::map<topic_partition, int64_t> committed;
          if (offs)
            for (auto& o : offs->partitions)
              if (o.error == error_code::none && o.offset >= 0)
                committed[{o.topic, o.partition}] = o.offset;
          with_committed(std::move(committed));
        });
    });
}

/// Steps 1 and 2: the consumer's positions, then auto-commit.
void with_positions(registry_ptr self, uint64_t id) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  auto* inst = self->state.find(ctx->key, ctx->uid);
  if (!inst || !inst->consumer)
    return finish_empty(self, id);
  auto epoch = inst->position_epoch;
  ask<consumer_positions>(
    self, inst->consumer, consumer_timeout, consumer_positions_request{},
    [self, id, epoch](caf::expected<consumer_positions> pos) {
      auto* ctx = find_poll(self, id);
      if (!ctx)
        return;
      auto* inst = self->state.find(ctx->key, ctx->uid);
      if (!pos || !inst)
        return finish_empty(self, id);
      if (pos->positions.empty()) // still joining: nothing assigned yet
        return wait_or_finish(self, id);
      bool member = inst->kind == subscription_kind::topics
                    || inst->kind == subscription_kind::pattern;
      if (member && inst->settings.auto_commit) {
        // enable.auto.commit: what earlier polls returned is committed
        // now, as the Java consumer does at the start of poll().
        std::vector<offset_commit_partition> commits;
        for (auto& p : pos->positions)
          if (p.offset >= 0 && inst->auto_committed[p.partition] != p.offset) {
            inst->auto_committed[p.partition] = p.offset;
            commits.push_back(
              {p.partition.topic, p.partition.partition, p.offset, -1, ""});
          }
        if (!commits.empty())
          tell(self, inst->consumer, consumer_commit{std::move(commits)});
      }
      std::vector<std::string> topics;
      for (auto& p : pos->positions)
        if (std::find(topics.begin(), topics.end(), p.partition.topic)
            == topics.end())
          topics.push_back(p.partition.topic);
      ask<metadata_response>(
        self, self->state.cluster->controller(), edge_request_timeout,
        metadata_request{topics, false},
        [self, id, epoch,
         positions = pos->positions](caf::expected<metadata_response> md) {
          std::map<topic_partition, int32_t> leaders;
          if (md)
            self->state.cluster->learn(md->brokers);
          if (md)
            for (auto& t : md->topics)
              for (auto& p : t.partition_states)
                leaders[{t.name, p.partition}] = p.leader;
          bool unresolved = std::any_of(positions.begin(), positions.end(),
                                        [](auto& p) { return p.offset < 0; });
          if (unresolved)
            resolve(self, id, epoch, positions, std::move(leaders));
          else
            fetch(self, id, epoch, positions, std::move(leaders));
        });
    });
}

/// A pattern subscription follows new and deleted topics, as Kafka's
/// consumer does on metadata refresh.
void refresh_pattern(registry_ptr self, uint64_t id) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  ask<metadata_response>(
    self, self->state.cluster->controller(), edge_request_timeout,
    metadata_request{{}, false},
    [self, id](caf::expected<metadata_response> md) {
      auto* ctx = find_poll(self, id);
      if (!ctx)
        return;
      auto* inst = self->state.find(ctx->key, ctx->uid);
      if (md && inst && inst->kind == subscription_kind::pattern
          && inst->compiled) {
        auto now = matching_topics(*inst->compiled, *md);
        if (now != inst->topics) {
          inst->topics = std::move(now);
          ++inst->position_epoch;
          replace_consumer(self, *inst, spawn_consumer_for(self, *inst));
          return wait_or_finish(self, id);
        }
      }
      with_positions(self, id);
    });
}

void step(registry_ptr self, uint64_t id) {
  auto* ctx = find_poll(self, id);
  if (!ctx)
    return;
  auto* inst = self->state.find(ctx->key, ctx->uid);
  if (!inst)
    return finish_empty(self, id);
  if (inst->kind == subscription_kind::pattern && !ctx->pattern_checked) {
    ctx->pattern_checked = true;
    return refresh_pattern(self, id);
  }
  with_positions(self, id);
}

} // namespace

std::vector<std::string> matching_topics(const std::regex& pattern,
                                         const metadata_response& md) {
  std::vector<std::string> out;
  for (auto& t : md.topics)
    if (t.name != "__consumer_offsets" && t.error == error_code::none
        && std::regex_match(t.name, pattern))
      out.push_back(t.name);
  std::sort(out.begin(), out.end());
  return out;
}

caf::result<http_response> start_poll(registry_ptr self, poll_instance& req) {
  auto& st = self->state;
  auto* inst = requested(self, req.key);
  if (!inst)
    return v2::instance_not_found();
  switch (negotiate_records(req.accept, inst->settings.format)) {
    case records_choice::own:
      break;
    case records_choice::mismatch:
      return v2::format_mismatch();
    case records_choice::unacceptable:
      return v2::not_acceptable();
  }
  if (inst->kind == subscription_kind::none)
    return v2::illegal_state("Consumer is not subscribed to any topics or "
                             "assigned any partitions");
  if (req.may) {
    // Fetch needs READ on each topic (the caller's, at every poll: an ACL
    // removed since the subscription applies at once).
    std::vector<std::string> topics = inst->topics;
    for (auto& tp : inst->assigned)
      topics.push_back(tp.topic);
    std::vector<std::string> denied;
    for (auto& t : topics)
      if (!req.may(security::acl_operation::read,
                   security::resource_type::topic, t)
          && std::find(denied.begin(), denied.end(), t) == denied.end())
        denied.push_back(t);
    if (!denied.empty())
      return v2::topics_forbidden(denied);
  }
  if (!inst->consumer) {
    // It left the group after max.poll.interval.ms: KafkaConsumer.poll()
    // rejoins.
    ++inst->position_epoch;
    inst->consumer = spawn_consumer_for(self, *inst);
  }
  arm_poll_interval(self, *inst);
  auto timeout =
    req.timeout_ms < 0 ? inst->settings.request_timeout_ms : req.timeout_ms;
  timeout = std::min<int64_t>(timeout, st.config.max_poll_timeout_ms);
  auto id = st.next_poll++;
  auto& ctx = st.polls[id];
  ctx.id = id;
  ctx.key = req.key;
  ctx.uid = inst->uid;
  ctx.promise = self->make_response_promise<http_response>();
  ctx.deadline_ms = now_ms(self) + timeout;
  ctx.max_bytes = req.max_bytes;
  ctx.format = inst->settings.format;
  ctx.reset_to = inst->settings.offset_reset == "earliest" ? position_earliest
                                                           : position_latest;
  auto promise = ctx.promise;
  step(self, id);
  return promise;
}

void continue_poll(registry_ptr self, uint64_t poll) {
  step(self, poll);
}

} // namespace troupe::rest
