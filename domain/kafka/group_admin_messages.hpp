#pragma once

// The group coordinator's admin messages: DeleteGroups (42), v0-2, and
// OffsetDelete (47), v0, field for field as Kafka's JSON schemas
// (DeleteGroupsRequest.json, OffsetDeleteRequest.json and their
// responses). The codec is in protocol.hpp. Every member has a default
// initializer; members added after a struct's first release are appended.

#include <cstdint>
#include <string>
#include <vector>

#include "domain/error_code.hpp"

namespace troupe::wire {

// -- DeleteGroups (42), v0-2 (flexible v2+) -------------------------------------

struct delete_groups_request {
  std::vector<std::string> groups_names{};
};

struct deletable_group_result {
  std::string group_id{};
  error_code error = error_code::none;
};

struct delete_groups_response {
  int32_t throttle_time_ms = 0;
  std::vector<deletable_group_result> results{};
};

// -- OffsetDelete (47), v0 (never flexible) -----------------------------------------

struct offset_delete_request_partition {
  int32_t partition_index = 0;
};

struct offset_delete_request_topic {
  std::string name{};
  std::vector<offset_delete_request_partition> partitions{};
};

struct offset_delete_request {
  std::string group_id{};
  std::vector<offset_delete_request_topic> topics{};
};

struct offset_delete_response_partition {
  int32_t partition_index = 0;
  error_code error = error_code::none;
};

struct offset_delete_response_topic {
  std::string name{};
  std::vector<offset_delete_response_partition> partitions{};
};

struct offset_delete_response {
  error_code error = error_code::none; // the group's
  int32_t throttle_time_ms = 0;
  std::vector<offset_delete_response_topic> topics{};
};

} // namespace troupe::wire
