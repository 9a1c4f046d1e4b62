#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace troupe {

struct topic_partition {
  std::string topic;
  int32_t partition = 0;

  friend bool operator==(const topic_partition& x, const topic_partition& y) {
    return x.partition == y.partition && x.topic == y.topic;
  }
  friend bool operator!=(const topic_partition& x, const topic_partition& y) {
    return !(x == y);
  }
  friend bool operator<(const topic_partition& x, const topic_partition& y) {
    return std::tie(x.topic, x.partition) < std::tie(y.topic, y.partition);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, topic_partition& x) {
  return f(x.topic, x.partition);
}

/// "topic-3", as Kafka prints a TopicPartition.
inline std::string to_string(const topic_partition& x) {
  return x.topic + "-" + std::to_string(x.partition);
}

} // namespace troupe
