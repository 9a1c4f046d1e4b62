#pragma once

// troupe's Kafka client: a producer's records waiting per partition
// (docs/ARCHITECTURE.md §5, the REST gateway's produce).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "domain/error_code.hpp"
#include "domain/log/record_batch.hpp"
#include "domain/topic_partition.hpp"

namespace troupe::client {

/// Records of one produce request for one partition, waiting to go out.
struct pending_records {
  std::vector<record> records;
  size_t bytes = 0;
  /// The batch's error, and the first record's offset (-1 on error).
  std::function<void(error_code, int64_t)> done;
};

/// One produce request's worth of pending records, sent as one batch.
using records_batch = std::vector<pending_records>;

/// Kafka's RecordAccumulator with one request in flight per partition
/// (max.in.flight.requests.per.connection=1, what keeps a partition's
/// records in order): records that arrive while a partition's produce is
/// on its way go out together next. Plain state of the actor that owns it.
class record_accumulator {
public:
  /// A batch stops growing here (message.max.bytes is 1 MiB).
  static constexpr size_t max_batch_bytes = 512 * 1024;

  /// Queues `r` for `tp`.
  void append(const topic_partition& tp, pending_records r) {
    queues_[tp].waiting.push_back(std::move(r));
  }

  /// What waits for `tp` as one batch (up to max_batch_bytes, at least one
  /// request's records), with `tp` marked in flight; null while a batch is
  /// in flight or when nothing waits (Kafka's RecordAccumulator.drain).
  std::shared_ptr<records_batch> drain(const topic_partition& tp) {
    auto& q = queues_[tp];
    if (q.in_flight || q.waiting.empty())
      return nullptr;
    auto batch = std::make_shared<records_batch>();
    size_t bytes = 0;
    size_t taken = 0;
    for (auto& pending : q.waiting) {
      if (!batch->empty() && bytes + pending.bytes > max_batch_bytes)
        break;
      bytes += pending.bytes;
      batch->push_back(std::move(pending));
      ++taken;
    }
    q.waiting.erase(q.waiting.begin(),
                    q.waiting.begin() + static_cast<std::ptrdiff_t>(taken));
    q.in_flight = true;
    return batch;
  }

  /// `tp`'s batch was answered with `e` and the first offset `base` (-1 on
  /// error): each request learns its own first offset, and the partition
  /// may send again.
  void complete(const topic_partition& tp, records_batch& batch, error_code e,
                int64_t base) {
    for (auto& pending : batch) {
      pending.done(e, base);
      if (base >= 0)
        base += static_cast<int64_t>(pending.records.size());
    }
    queues_[tp].in_flight = false;
  }

  /// The records of a batch in order, for one encode_batch.
  static std::vector<record> records_of(const records_batch& batch) {
    std::vector<record> out;
    for (auto& pending : batch)
      out.insert(out.end(), pending.records.begin(), pending.records.end());
    return out;
  }

private:
  struct partition_queue {
    bool in_flight = false;
    std::vector<pending_records> waiting;
  };

  std::map<topic_partition, partition_queue> queues_;
};

} // namespace troupe::client
