#include "domain/consumer_protocol.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace troupe {

namespace {

// Newest schema versions known here: ConsumerProtocolSubscription v3 adds
// RackId; ConsumerProtocolAssignment v1..v3 add no fields to v0.
constexpr int16_t max_subscription_version = 3;

// Smallest encodings of array elements, to reject counts that cannot fit in
// the remaining bytes before allocating anything for them.
constexpr size_t min_string_size = 2;
constexpr size_t min_int32_size = 4;
constexpr size_t min_topic_partitions_size = min_string_size + min_int32_size;

// Kafka's Topic.MAX_NAME_LENGTH. Enforced where a topic name is copied into
// every decoded topic_partition, so a long name repeated over many partition
// numbers cannot turn a small buffer into gigabytes of strings.
constexpr size_t max_topic_name_size = 249;

// -- writing ------------------------------------------------------------------

class writer {
public:
  void i16(int16_t x) {
    auto u = static_cast<uint16_t>(x);
    buf_.push_back(static_cast<uint8_t>(u >> 8));
    buf_.push_back(static_cast<uint8_t>(u));
  }

  void i32(int32_t x) {
    auto u = static_cast<uint32_t>(x);
    for (int shift = 24; shift >= 0; shift -= 8)
      buf_.push_back(static_cast<uint8_t>(u >> shift));
  }

  // Kafka rejects strings over 32767 bytes; truncating keeps the output
  // decodable (topic names are at most 249 bytes anyway).
  void string(const std::string& x) {
    auto n = std::min<size_t>(x.size(), std::numeric_limits<int16_t>::max());
    i16(static_cast<int16_t>(n));
    buf_.insert(buf_.end(), x.begin(), x.begin() + n);
  }

  void nullable_string(const std::string& x) {
    if (x.empty())
      i16(-1);
    else
      string(x);
  }

  void nullable_bytes(const bytes& x) {
    if (x.empty()) {
      i32(-1);
      return;
    }
    i32(static_cast<int32_t>(x.size()));
    buf_.insert(buf_.end(), x.begin(), x.end());
  }

  void count(size_t n) {
    i32(static_cast<int32_t>(n));
  }

  bytes take() {
    return std::move(buf_);
  }

private:
  bytes buf_;
};

/// Partitions grouped by topic, in order of each topic's first appearance:
/// the shape of Kafka's []TopicPartition (topic -> []int32) fields.
using topic_groups = std::vector<std::pair<std::string, std::vector<int32_t>>>;

topic_groups group_by_topic(const std::vector<topic_partition>& xs) {
  topic_groups groups;
  std::unordered_map<std::string, size_t> index;
  for (const auto& tp : xs) {
    auto [it, added] = index.emplace(tp.topic, groups.size());
    if (added)
      groups.emplace_back(tp.topic, std::vector<int32_t>{});
    groups[it->second].second.push_back(tp.partition);
  }
  return groups;
}

void write_topic_partitions(writer& out,
                            const std::vector<topic_partition>& xs) {
  auto groups = group_by_topic(xs);
  out.count(groups.size());
  for (const auto& [topic, partitions] : groups) {
    out.string(topic);
    out.count(partitions.size());
    for (auto p : partitions)
      out.i32(p);
  }
}

int16_t clamp_version(int16_t version) {
  return std::clamp<int16_t>(version, 0, max_subscription_version);
}

// -- reading ------------------------------------------------------------------

/// Bounds-checked big-endian reader; every read fails (returns false) rather
/// than reading past the end, and counts are checked against what remains.
class reader {
public:
  explicit reader(const bytes& buf) : buf_(buf) {}

  size_t remaining() const {
    return buf_.size() - pos_;
  }

  bool i16(int16_t& x) {
    if (remaining() < 2)
      return false;
    x = static_cast<int16_t>((buf_[pos_] << 8) | buf_[pos_ + 1]);
    pos_ += 2;
    return true;
  }

  bool i32(int32_t& x) {
    if (remaining() < 4)
      return false;
    uint32_t u = 0;
    for (size_t i = 0; i < 4; ++i)
      u = (u << 8) | buf_[pos_ + i];
    x = static_cast<int32_t>(u);
    pos_ += 4;
    return true;
  }

  /// A non-nullable string: a negative length (null) is malformed.
  bool string(std::string& x) {
    int16_t n = 0;
    return i16(n) && n >= 0 && raw(static_cast<size_t>(n), x);
  }

  /// Nullable string; only -1 means null (read as empty).
  bool nullable_string(std::string& x) {
    int16_t n = 0;
    if (!i16(n) || n < -1)
      return false;
    x.clear();
    return n == -1 || raw(static_cast<size_t>(n), x);
  }

  /// Nullable bytes; only -1 means null (read as empty).
  bool nullable_bytes(bytes& x) {
    int32_t n = 0;
    if (!i32(n) || n < -1)
      return false;
    x.clear();
    if (n == -1)
      return true;
    auto len = static_cast<size_t>(n);
    if (len > remaining())
      return false;
    x.assign(buf_.begin() + pos_, buf_.begin() + pos_ + len);
    pos_ += len;
    return true;
  }

  /// A non-nullable array count whose elements take at least `min_size`
  /// bytes each; rejects counts the remaining bytes cannot hold.
  bool count(size_t min_size, size_t& n) {
    int32_t x = 0;
    if (!i32(x) || x < 0)
      return false;
    n = static_cast<size_t>(x);
    return n <= remaining() / min_size;
  }

private:
  bool raw(size_t n, std::string& x) {
    if (n > remaining())
      return false;
    x.assign(buf_.begin() + pos_, buf_.begin() + pos_ + n);
    pos_ += n;
    return true;
  }

  const bytes& buf_;
  size_t pos_ = 0;
};

bool read_int32_array(reader& in, std::vector<int32_t>& xs) {
  size_t n = 0;
  if (!in.count(min_int32_size, n))
    return false;
  xs.resize(n);
  for (auto& x : xs)
    if (!in.i32(x))
      return false;
  return true;
}

/// Reads []TopicPartition (topic, []int32) and flattens it in wire order.
bool read_topic_partitions(reader& in, std::vector<topic_partition>& out) {
  size_t n = 0;
  if (!in.count(min_topic_partitions_size, n))
    return false;
  std::vector<int32_t> partitions;
  for (size_t i = 0; i < n; ++i) {
    std::string topic;
    if (!in.string(topic) || topic.size() > max_topic_name_size
        || !read_int32_array(in, partitions))
      return false;
    for (auto p : partitions)
      out.push_back(topic_partition{topic, p});
  }
  return true;
}

bool read_topics(reader& in, std::vector<std::string>& topics) {
  size_t n = 0;
  if (!in.count(min_string_size, n))
    return false;
  topics.resize(n);
  for (auto& topic : topics)
    if (!in.string(topic))
      return false;
  return true;
}

/// Kafka's ConsumerProtocol rejects negative versions and reads any newer
/// version with the newest schema it knows (new versions only append fields).
bool read_version(reader& in, int16_t& version) {
  return in.i16(version) && version >= 0;
}

} // namespace

// -- subscription -------------------------------------------------------------

bytes encode_subscription(const consumer_subscription& x, int16_t version) {
  version = clamp_version(version);
  writer out;
  out.i16(version);
  out.count(x.topics.size());
  for (const auto& topic : x.topics)
    out.string(topic);
  out.nullable_bytes(x.user_data);
  if (version >= 1)
    write_topic_partitions(out, x.owned_partitions);
  if (version >= 2)
    out.i32(x.generation);
  if (version >= 3)
    out.nullable_string(x.rack_id);
  return out.take();
}

std::optional<consumer_subscription> decode_subscription(const bytes& buf) {
  reader in{buf};
  consumer_subscription x;
  int16_t version = 0;
  if (!read_version(in, version) || !read_topics(in, x.topics)
      || !in.nullable_bytes(x.user_data))
    return std::nullopt;
  if (version >= 1 && !read_topic_partitions(in, x.owned_partitions))
    return std::nullopt;
  if (version >= 2 && !in.i32(x.generation))
    return std::nullopt;
  if (version >= 3 && !in.nullable_string(x.rack_id))
    return std::nullopt;
  return x;
}

// -- assignment ---------------------------------------------------------------

bytes encode_assignment(const consumer_assignment& x, int16_t version) {
  writer out;
  out.i16(clamp_version(version));
  write_topic_partitions(out, x.partitions);
  out.nullable_bytes(x.user_data);
  return out.take();
}

std::optional<consumer_assignment> decode_assignment(const bytes& buf) {
  reader in{buf};
  consumer_assignment x;
  int16_t version = 0;
  if (!read_version(in, version) || !read_topic_partitions(in, x.partitions)
      || !in.nullable_bytes(x.user_data))
    return std::nullopt;
  return x;
}

// -- assignor user data -------------------------------------------------------

bytes encode_sticky_user_data(const std::vector<topic_partition>& owned,
                              int32_t generation) {
  writer out;
  write_topic_partitions(out, owned);
  out.i32(generation);
  return out.take();
}

// Kafka's StickyAssignor reads STICKY_ASSIGNOR_USER_DATA_V1 and falls back to
// V0 (no generation) when that fails; both are unversioned on the wire.
std::optional<sticky_user_data> decode_sticky_user_data(const bytes& buf) {
  reader in{buf};
  sticky_user_data x;
  if (!read_topic_partitions(in, x.owned))
    return std::nullopt;
  if (in.remaining() >= 4)
    in.i32(x.generation);
  return x;
}

// CooperativeStickyAssignor's COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0.
bytes encode_cooperative_user_data(int32_t generation) {
  writer out;
  out.i32(generation);
  return out.take();
}

std::optional<int32_t> decode_cooperative_user_data(const bytes& buf) {
  reader in{buf};
  int32_t generation = 0;
  if (!in.i32(generation))
    return std::nullopt;
  return generation;
}

} // namespace troupe
