#include "gateway/rest/routes.hpp"
#include "gateway/rest/router.hpp"

namespace troupe::rest {

const std::vector<route>& routes() {
  static const std::vector<route> table = {
    // REST Proxy v2 (confluentinc/kafka-rest resources/v2)
    {"GET", "/topics", list_topics},
    {"GET", "/topics/{topic}", get_topic},
    {"POST", "/topics/{topic}", produce_to_topic},
    {"GET", "/topics/{topic}/partitions", list_topic_partitions},
    {"GET", "/topics/{topic}/partitions/{partition}", get_partition},
    {"POST", "/topics/{topic}/partitions/{partition}", produce_to_partition},
    {"GET", "/topics/{topic}/partitions/{partition}/offsets",
     get_partition_offsets},
    {"GET", "/brokers", list_broker_ids},
    {"POST", "/consumers/{group}", create_consumer},
    {"DELETE", "/consumers/{group}/instances/{instance}", delete_consumer},
    {"POST", "/consumers/{group}/instances/{instance}/subscription", subscribe},
    {"GET", "/consumers/{group}/instances/{instance}/subscription",
     get_subscription},
    {"DELETE", "/consumers/{group}/instances/{instance}/subscription",
     unsubscribe},
    {"GET", "/consumers/{group}/instances/{instance}/records", read_records},
    {"POST", "/consumers/{group}/instances/{instance}/offsets", commit_offsets},
    {"GET", "/consumers/{group}/instances/{instance}/offsets",
     get_committed_offsets},
    {"POST", "/consumers/{group}/instances/{instance}/positions", seek},
    {"POST", "/consumers/{group}/instances/{instance}/positions/beginning",
     seek_to_beginning},
    {"POST", "/consumers/{group}/instances/{instance}/positions/end",
     seek_to_end},
    {"POST", "/consumers/{group}/instances/{instance}/assignments", assign},
    {"GET", "/consumers/{group}/instances/{instance}/assignments",
     get_assignments},
    // troupe's own
    {"GET", "/healthz", healthz},
    {"GET", "/metrics", prometheus},
    {"POST", "/v1/topics", create_topic, access::create},
    {"GET", "/v1/brokers", list_brokers},
    {"POST", "/v1/brokers/{id}/stop", stop_broker, access::admin},
    {"POST", "/v1/brokers/{id}/start", start_broker, access::admin},
    {"GET", "/v1/partitions", list_partition_states},
    {"GET", "/v1/groups", list_groups},
    {"GET", "/v1/groups/{group}", describe_group},
    {"POST", "/v1/groups/{group}/join", group_join},
    {"POST", "/v1/groups/{group}/sync", group_sync},
    {"POST", "/v1/groups/{group}/heartbeat", group_heartbeat},
    {"POST", "/v1/groups/{group}/leave", group_leave},
    {"POST", "/v1/groups/{group}/commit", group_commit},
  };
  return table;
}

} // namespace troupe::rest
