#include "actors/groups/offsets_load.hpp"

#include <memory>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/groups/offsets_writer.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"
#include "domain/replication/cluster_metadata.hpp"

namespace troupe {

namespace {

struct replay {
  log_manager_actor log;
  int32_t partition = 0;
  std::function<bool()> wanted;
  std::function<void(offsets_partition_state&)> done;
  offsets_partition_state state;
  int64_t next_offset = 0;
};

/// The upgrade rewrite (storage/offsets_records.hpp, upgrade_batches): a
/// partition whose replay met records of the release before issue 20 gets
/// their tombstones and its current state in Kafka's format, through the
/// one writer. Sent before the partition's coordinators exist, so it
/// precedes their writes in the replica's log. A failed write is only
/// logged: the protobuf records stay readable, and the next load rewrites
/// them again.
void rewrite_legacy_records(group_service_ptr self, int32_t partition,
                            const offsets_partition_state& state) {
  if (!state.needs_upgrade())
    return;
  auto& st = self->state;
  auto i = st.offsets_replicas.find(partition);
  if (i == st.offsets_replicas.end())
    return;
  offsets_log log;
  log.replica = i->second.replica;
  log.partition = {offsets_topic, partition};
  log.timeout_ms = st.config.group.offset_commit_timeout_ms;
  // Stamped in the coordinators' time, as their own commits are.
  auto batches = upgrade_batches(state, wall_now_ms(self));
  spdlog::info("broker {}: {}-{} holds {} keys of troupe's old record format: "
               "rewriting them in Kafka's ({} batches)",
               st.node_id, offsets_topic, partition, state.legacy_keys.size(),
               batches.size());
  for (auto& batch : batches)
    write_offsets(self, log, std::move(batch), [self, partition](error_code e) {
      if (e != error_code::none)
        spdlog::warn("broker {}: rewrite of {}-{} in Kafka's "
                     "record format failed: {}",
                     self->state.node_id, offsets_topic, partition,
                     to_string(e));
    });
}

void read_chunk(group_service_ptr self, std::shared_ptr<replay> r) {
  if (!r->wanted())
    return;
  log_read_request req{
    {offsets_topic, r->partition}, r->next_offset, 1 << 20, -1};
  self->request(r->log, caf::infinite, req)
    .then(
      [self, r](log_read_response& res) {
        if (!r->wanted())
          return;
        if (res.error == error_code::offset_out_of_range
            && r->next_offset < res.log_start_offset) {
          r->next_offset = res.log_start_offset; // retention moved on
          read_chunk(self, r);
          return;
        }
        if (res.error != error_code::none || res.records.empty()) {
          if (res.error != error_code::none)
            spdlog::error("broker {}: reading {}-{}: {}", self->state.node_id,
                          offsets_topic, r->partition, to_string(res.error));
          else // the whole partition was read: its state is the latest
            rewrite_legacy_records(self, r->partition, r->state);
          r->done(r->state);
          return;
        }
        for (auto& b : record_batches{res.records}) {
          if (auto records = b.records()) {
            for (auto& rec : *records)
              r->state.apply(record_kv{rec.key.value_or(bytes{}), rec.value});
          } else {
            ++r->state.malformed;
          }
          r->next_offset = b.next_offset();
        }
        read_chunk(self, r);
      },
      [self, r](caf::error& err) {
        spdlog::error("broker {}: replay of {}-{} failed: {}",
                      self->state.node_id, offsets_topic, r->partition,
                      caf::to_string(err));
        if (r->wanted())
          r->done(r->state);
      });
}

} // namespace

void replay_offsets_partition(
  group_service_ptr self, log_manager_actor log, int32_t partition,
  std::function<bool()> wanted,
  std::function<void(offsets_partition_state&)> done) {
  auto r = std::make_shared<replay>();
  r->log = std::move(log);
  r->partition = partition;
  r->wanted = std::move(wanted);
  r->done = std::move(done);
  read_chunk(self, r);
}

} // namespace troupe
