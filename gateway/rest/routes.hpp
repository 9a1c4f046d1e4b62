#pragma once

// Every route handler, by resource; each has the one signature
// `void(const call&)` so that the table (routes.cpp) is a plain list.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "gateway/rest/call.hpp"

namespace troupe::rest {

// -- REST Proxy v2: topics, partitions, brokers (topics.cpp) ------------------

void list_topics(const call& c);
void get_topic(const call& c);
void list_topic_partitions(const call& c);
void get_partition(const call& c);
void get_partition_offsets(const call& c);
void list_broker_ids(const call& c);

// -- REST Proxy v2: produce (produce.cpp) -----------------------------------------

void produce_to_topic(const call& c);
void produce_to_partition(const call& c);

// -- REST Proxy v2: consumer instances (consumers.cpp) ------------------------------

void create_consumer(const call& c);
void delete_consumer(const call& c);
void subscribe(const call& c);
void get_subscription(const call& c);
void unsubscribe(const call& c);
void read_records(const call& c);
void commit_offsets(const call& c);
void get_committed_offsets(const call& c);
void seek(const call& c);
void seek_to_beginning(const call& c);
void seek_to_end(const call& c);
void assign(const call& c);
void get_assignments(const call& c);

// -- troupe: cluster (cluster.cpp) --------------------------------------------------

void create_topic(const call& c);
void list_brokers(const call& c);
void stop_broker(const call& c);
void start_broker(const call& c);
void list_partition_states(const call& c);

// -- troupe: groups and membership (groups.cpp) -------------------------------------

void list_groups(const call& c);
void describe_group(const call& c);
void group_join(const call& c);
void group_sync(const call& c);
void group_heartbeat(const call& c);
void group_leave(const call& c);
void group_commit(const call& c);

// -- operations (metrics.cpp) ---------------------------------------------------------

void healthz(const call& c);
void prometheus(const call& c);

// -- helpers shared by the routes (common.cpp) ------------------------------------------

/// Parses the body (empty: `{}`) as JSON into `msg`. Answers 415 for a
/// Content-Type that is not JSON, 400 for bad JSON; false then.
bool read_body(const call& c, google::protobuf::Message& msg);

/// The media type to answer with (gateway/rest/media.hpp's negotiate);
/// answers 406 and gives nullopt when Accept allows none.
std::optional<std::string> answer_type(const call& c, bool embedded_ok = false);

http_response json_response(std::string body, std::string content_type,
                            unsigned status = 200);

http_response no_content();

/// Topic metadata from the controller (which holds it); `k` gets it or the
/// error.
/// Runs `k` once the gateway knows every broker: at once for the embedded
/// node; a cluster node first asks for metadata (cluster_view::learn).
void with_brokers(const call& c, std::function<void()> k);

void with_metadata(const call& c, std::vector<std::string> topics,
                   bool auto_create,
                   std::function<void(caf::expected<metadata_response>)> k);

/// Parses a decimal integer (the whole text).
bool parse_int(const std::string& text, int64_t& out);

} // namespace troupe::rest
