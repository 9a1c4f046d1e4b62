// DeleteRecords (21) and DescribeLogDirs (35): the admin APIs of the
// partitions' logs (docs/ARCHITECTURE.md §5).

#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe::kafka_handlers {

// Placeholder until issue 22's log admin lands (PLACEHOLDER-22).
void serve_delete_records(kafka_session_ptr, const wire::request_header&,
              wire::delete_records_request&, kafka_reply_fn reply) {
  reply(close_reply());
}

// Placeholder until issue 22's log admin lands (PLACEHOLDER-22).
void serve_describe_log_dirs(kafka_session_ptr, const wire::request_header&,
              wire::describe_log_dirs_request&, kafka_reply_fn reply) {
  reply(close_reply());
}

} // namespace troupe::kafka_handlers
