#include "domain/kafka/fetch_sessions.hpp"

#include <algorithm>

namespace troupe::wire {

namespace {

/// Kafka's FetchMetadata: epoch 0 opens a session, -1 (FINAL_EPOCH) asks
/// for none; an incremental epoch after INT32_MAX wraps to 1.
constexpr int32_t initial_epoch = 0;
constexpr int32_t final_epoch = -1;

int32_t next_epoch(int32_t epoch) {
  return epoch == std::numeric_limits<int32_t>::max() ? 1 : epoch + 1;
}

fetch_session_key key_of(const wire::fetch_topic& t, int32_t partition,
                         bool uses_topic_ids) {
  if (uses_topic_ids)
    return {{}, t.topic_id, partition};
  return {t.topic, {}, partition};
}

fetch_session_key key_of(const wire::forgotten_topic& t, int32_t partition,
                         bool uses_topic_ids) {
  if (uses_topic_ids)
    return {{}, t.topic_id, partition};
  return {t.topic, {}, partition};
}

} // namespace

fetch_session_cache::fetch_session_cache(int32_t slots, int64_t eviction_ms,
                                         uint64_t seed)
  : slots_(std::max(0, slots)),
    eviction_ms_(eviction_ms),
    rng_(static_cast<std::mt19937::result_type>(seed)) {
  // nop
}

fetch_context fetch_session_cache::open(const wire::fetch_request& req,
                                        int16_t version, int64_t now_ms,
                                        bool follower) {
  fetch_context ctx;
  ctx.uses_topic_ids = version >= 13;
  ctx.follower = follower;
  bool full = req.session_epoch == initial_epoch
              || req.session_epoch == final_epoch;
  if (full) {
    // Any session a full fetch names is closed.
    if (req.session_id != 0)
      sessions_.erase(req.session_id);
    ctx.open_session = req.session_epoch == initial_epoch && slots_ > 0;
    for (const auto& t : req.topics)
      for (const auto& p : t.partitions)
        ctx.partitions.push_back(
          {key_of(t, p.partition, ctx.uses_topic_ids), p});
    return ctx;
  }
  auto i = sessions_.find(req.session_id);
  if (i == sessions_.end()) {
    ctx.error = error_code::fetch_session_id_not_found;
    return ctx;
  }
  auto& s = *i->second;
  if (s.epoch != req.session_epoch) {
    ctx.error = error_code::invalid_fetch_session_epoch;
    return ctx;
  }
  if (s.uses_topic_ids != ctx.uses_topic_ids) {
    ctx.error = error_code::fetch_session_topic_id_error;
    return ctx;
  }
  // Kafka's FetchSession.update: what the request names is added or
  // updated (in request order, after what the session holds), then the
  // forgotten partitions go.
  for (const auto& t : req.topics)
    for (const auto& p : t.partitions) {
      auto key = key_of(t, p.partition, s.uses_topic_ids);
      auto at = s.index.find(key);
      if (at != s.index.end()) {
        at->second->request = p;
      } else {
        s.partitions.push_back({key, p});
        s.index.emplace(key, std::prev(s.partitions.end()));
      }
    }
  for (const auto& t : req.forgotten_topics_data)
    for (auto p : t.partitions) {
      auto at = s.index.find(key_of(t, p, s.uses_topic_ids));
      if (at != s.index.end()) {
        s.partitions.erase(at->second);
        s.index.erase(at);
      }
    }
  if (s.partitions.empty()) {
    // Nothing left to fetch: Kafka closes the session and answers a
    // sessionless, empty fetch.
    sessions_.erase(i);
    return ctx;
  }
  s.last_used_ms = now_ms;
  s.epoch = next_epoch(s.epoch);
  ctx.incremental = true;
  ctx.session_id = s.id;
  for (const auto& c : s.partitions)
    ctx.partitions.push_back({c.key, c.request});
  return ctx;
}

std::vector<size_t>
fetch_session_cache::answer(fetch_context& ctx,
                            const std::vector<fetch_partition_outcome>& outcomes,
                            int64_t now_ms) {
  std::vector<size_t> included;
  if (ctx.error != error_code::none)
    return included;
  if (!ctx.incremental) {
    for (size_t i = 0; i < ctx.partitions.size(); ++i)
      included.push_back(i);
    if (!ctx.open_session || ctx.partitions.empty()
        || !make_room(ctx.follower, ctx.partitions.size(), now_ms))
      return included;
    auto s = std::make_unique<session>();
    s->id = new_id();
    s->follower = ctx.follower;
    s->epoch = 1;
    s->uses_topic_ids = ctx.uses_topic_ids;
    s->last_used_ms = now_ms;
    for (size_t i = 0; i < ctx.partitions.size(); ++i) {
      auto& item = ctx.partitions[i];
      if (s->index.count(item.key))
        continue; // named twice: the first stands
      cached_partition c{item.key, item.request};
      if (i < outcomes.size() && outcomes[i].error == error_code::none) {
        c.high_watermark = outcomes[i].high_watermark;
        c.last_stable_offset = outcomes[i].last_stable_offset;
        c.log_start_offset = outcomes[i].log_start_offset;
      }
      s->partitions.push_back(std::move(c));
      s->index.emplace(item.key, std::prev(s->partitions.end()));
    }
    ctx.session_id = s->id;
    sessions_.emplace(s->id, std::move(s));
    return included;
  }
  auto i = sessions_.find(ctx.session_id);
  if (i == sessions_.end()) {
    // Closed meanwhile (a full fetch of the same id): answer everything.
    for (size_t k = 0; k < ctx.partitions.size(); ++k)
      included.push_back(k);
    return included;
  }
  auto& s = *i->second;
  std::vector<std::list<cached_partition>::iterator> to_back;
  for (size_t k = 0; k < ctx.partitions.size() && k < outcomes.size(); ++k) {
    auto at = s.index.find(ctx.partitions[k].key);
    if (at == s.index.end())
      continue; // forgotten by a later request meanwhile
    auto& c = *at->second;
    const auto& o = outcomes[k];
    // Kafka's CachedPartition.maybeUpdateResponseData.
    bool respond = o.has_records;
    if (o.error != error_code::none) {
      // Always answered; and again with its state once it recovers.
      respond = true;
      c.high_watermark = -1;
    } else {
      if (c.high_watermark != o.high_watermark) {
        respond = true;
        c.high_watermark = o.high_watermark;
      }
      if (c.last_stable_offset != o.last_stable_offset) {
        respond = true;
        c.last_stable_offset = o.last_stable_offset;
      }
      if (c.log_start_offset != o.log_start_offset) {
        respond = true;
        c.log_start_offset = o.log_start_offset;
      }
    }
    if (respond)
      included.push_back(k);
    if (o.has_records)
      to_back.push_back(at->second);
  }
  for (auto it : to_back)
    s.partitions.splice(s.partitions.end(), s.partitions, it);
  s.last_used_ms = now_ms;
  return included;
}

bool fetch_session_cache::make_room(bool follower, size_t size,
                                    int64_t now_ms) {
  if (slots_ <= 0)
    return false;
  if (sessions_.size() < static_cast<size_t>(slots_))
    return true;
  // Kafka's FetchSessionCache.tryEvict: first a session unused for
  // eviction_ms (the least recently used of them); else the least valuable
  // one, if the new session is worth more: a follower's over a consumer's,
  // then more partitions over fewer.
  session* stale = nullptr;
  for (auto& [id, s] : sessions_)
    if (s->last_used_ms + eviction_ms_ < now_ms
        && (!stale || s->last_used_ms < stale->last_used_ms))
      stale = s.get();
  if (stale) {
    sessions_.erase(stale->id);
    return true;
  }
  session* least = nullptr;
  auto worth = [](const session& s) {
    return std::make_tuple(s.follower, s.partitions.size(), s.last_used_ms);
  };
  for (auto& [id, s] : sessions_)
    if (!least || worth(*s) < worth(*least))
      least = s.get();
  if (least
      && std::make_tuple(follower, size) > std::make_tuple(least->follower,
                                                           least->partitions.size())) {
    sessions_.erase(least->id);
    return true;
  }
  return false;
}

int32_t fetch_session_cache::new_id() {
  std::uniform_int_distribution<int32_t> any{1,
                                             std::numeric_limits<int32_t>::max()};
  for (;;) {
    auto id = any(rng_);
    if (!sessions_.count(id))
      return id;
  }
}

size_t fetch_session_cache::size() const {
  return sessions_.size();
}

std::vector<fetch_session_key>
fetch_session_cache::partitions_of(int32_t id) const {
  std::vector<fetch_session_key> out;
  auto i = sessions_.find(id);
  if (i != sessions_.end())
    for (const auto& c : i->second->partitions)
      out.push_back(c.key);
  return out;
}

int32_t fetch_session_cache::epoch_of(int32_t id) const {
  auto i = sessions_.find(id);
  return i == sessions_.end() ? -1 : i->second->epoch;
}

} // namespace troupe::wire
