// DeleteRecords (21) and DescribeLogDirs (35): the admin APIs of the
// partitions' logs (docs/ARCHITECTURE.md §5).

#include <algorithm>

#include "gateway/kafka/kafka_authorization.hpp"
#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

using kafka_auth::acl_operation;
using kafka_auth::request_authorizer;

// -- DeleteRecords (21) -----------------------------------------------------------

void serve_delete_records(kafka_session_ptr self, const wire::request_header& h,
                          wire::delete_records_request& req,
                          kafka_reply_fn reply) {
  // Kafka's handleDeleteRecordsRequest: DELETE on each topic, else
  // TOPIC_AUTHORIZATION_FAILED for its partitions; the others go to this
  // broker's replica, which must lead (the admin client sends each
  // partition to its leader). Unknown partitions are the broker's answer.
  std::vector<delete_records_request> parts;
  wire::delete_records_response shape;
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  for (auto& t : req.topics) {
    wire::delete_records_topic_result tr;
    tr.name = t.name;
    bool allowed = auth.topic(acl_operation::delete_, t.name);
    for (auto& p : t.partitions) {
      wire::delete_records_partition_result pr;
      pr.partition_index = p.partition_index;
      if (allowed)
        parts.push_back(
          {{t.name, p.partition_index}, p.offset, req.timeout_ms});
      else
        pr.error = error_code::topic_authorization_failed;
      tr.partitions.push_back(pr);
    }
    shape.topics.push_back(std::move(tr));
  }
  // The replica answers REQUEST_TIMED_OUT after timeout_ms itself; the
  // listener waits a little longer so that answer decides.
  auto timeout =
    std::max(edge_request_timeout, milliseconds{req.timeout_ms} + slack);
  ask_broker<delete_records_response>(
    self, timeout, std::move(parts),
    [h, shape = std::move(shape), reply = std::move(reply)](
      std::vector<std::optional<delete_records_response>> results) mutable {
      size_t i = 0;
      for (auto& t : shape.topics)
        for (auto& p : t.partitions) {
          if (p.error != error_code::none)
            continue; // refused above, low watermark -1
          auto& r = results[i++];
          p.error = r ? r->error : error_code::request_timed_out;
          p.low_watermark = r ? r->low_watermark : -1;
        }
      reply(frame(h, shape, wire::encode_delete_records_response));
    });
}

// -- DescribeLogDirs (35) ---------------------------------------------------------

void serve_describe_log_dirs(kafka_session_ptr self,
                             const wire::request_header& h,
                             wire::describe_log_dirs_request& req,
                             kafka_reply_fn reply) {
  // Kafka's handleDescribeLogDirsRequest: DESCRIBE on the cluster, else no
  // results and CLUSTER_AUTHORIZATION_FAILED (the error field is v3+; older
  // versions see the empty list).
  request_authorizer auth{self->state.ctx.security, self->state.identity};
  if (!auth.cluster(acl_operation::describe)) {
    wire::describe_log_dirs_response res;
    res.error = error_code::cluster_authorization_failed;
    reply(frame(h, res, wire::encode_describe_log_dirs_response));
    return;
  }
  describe_log_dirs_request ask;
  ask.all = !req.topics.has_value();
  if (req.topics)
    for (auto& t : *req.topics)
      for (auto p : t.partitions)
        ask.partitions.push_back({t.topic, p});
  ask_one<describe_log_dirs_response>(
    self, edge_request_timeout, std::move(ask), std::move(reply),
    [h](describe_log_dirs_response& r) {
      wire::describe_log_dirs_response res;
      for (auto& d : r.dirs) {
        wire::describe_log_dirs_result out;
        out.error = d.error;
        out.log_dir = d.path;
        out.total_bytes = d.total_bytes;
        out.usable_bytes = d.usable_bytes;
        // One entry per topic, its partitions in order, as Kafka groups
        // the logs of a directory by topic.
        auto parts = d.partitions;
        std::sort(parts.begin(), parts.end(),
                  [](const log_dir_partition& a, const log_dir_partition& b) {
                    return a.partition < b.partition;
                  });
        for (auto& p : parts) {
          if (out.topics.empty() || out.topics.back().name != p.partition.topic)
            out.topics.push_back({p.partition.topic, {}});
          out.topics.back().partitions.push_back(
            {p.partition.partition, p.size, p.offset_lag, false});
        }
        res.results.push_back(std::move(out));
      }
      return frame(h, res, wire::encode_describe_log_dirs_response);
    });
}

} // namespace troupe::kafka_handlers
