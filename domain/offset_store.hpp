#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/topic_partition.hpp"

namespace troupe {

struct committed_offset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp_ms = 0;
};

/// Where one group's committed offsets live. In memory for now; the
/// replicated log moves them into __consumer_offsets records.
class offset_store {
public:
  virtual ~offset_store() = default;

  virtual void put(const topic_partition& tp, committed_offset value) = 0;

  virtual std::optional<committed_offset>
  get(const topic_partition& tp) const = 0;

  virtual std::vector<std::pair<topic_partition, committed_offset>>
  all() const = 0;

  /// Every committed offset by partition, as OffsetFetch reads them
  /// (domain/offsets/committed_offsets.hpp).
  virtual const std::map<topic_partition, committed_offset>&
  entries() const = 0;

  virtual void erase(const topic_partition& tp) = 0;

  virtual void clear() = 0;
};

class memory_offset_store final : public offset_store {
public:
  void put(const topic_partition& tp, committed_offset value) override {
    offsets_[tp] = std::move(value);
  }

  std::optional<committed_offset>
  get(const topic_partition& tp) const override {
    auto i = offsets_.find(tp);
    if (i == offsets_.end())
      return std::nullopt;
    return i->second;
  }

  std::vector<std::pair<topic_partition, committed_offset>>
  all() const override {
    return {offsets_.begin(), offsets_.end()};
  }

  const std::map<topic_partition, committed_offset>&
  entries() const override {
    return offsets_;
  }

  void erase(const topic_partition& tp) override {
    offsets_.erase(tp);
  }

  void clear() override {
    offsets_.clear();
  }

private:
  std::map<topic_partition, committed_offset> offsets_;
};

} // namespace troupe
