#pragma once

// The one walk over a record set batch by batch (Kafka's
// MemoryRecords.batches() over a ByteBufferLogInputStream): a log read, a
// fetch answer, a follower's append and a replayed __consumer_offsets
// chunk are batches back to back (docs/ARCHITECTURE.md §4, logs on disk).
// Plain C++: the domain, the actors, the gateway and the tools share it.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "domain/log/record_batch.hpp"

namespace troupe {

/// One batch of a record set: its header and its bytes.
struct batch_view {
  batch_header header;
  /// The whole batch: the 12-byte log overhead and batchLength bytes.
  const uint8_t* data = nullptr;
  size_t size = 0;
  /// Where the batch starts in the record set.
  size_t position = 0;

  /// Where the next batch starts in the record set.
  size_t end() const {
    return position + size;
  }
  int64_t last_offset() const {
    return header.base_offset + header.last_offset_delta;
  }
  /// The offset after the batch (Kafka's RecordBatch.nextOffset).
  int64_t next_offset() const {
    return last_offset() + 1;
  }
  /// The batch's records; nullopt when decode_records refuses them
  /// (malformed, or compressed).
  std::optional<std::vector<decoded_record>> records() const {
    return decode_records(data, size);
  }
};

/// The batches of a record set, in order, for a range-for. The walk stops
/// at the end of the bytes; at a batch cut short (a read may end inside
/// one: Kafka's ByteBufferLogInputStream.nextBatch returns null there); and
/// at a batch whose batchLength is below a batch header's (Kafka throws
/// CorruptRecordException). `whole_size()` says how far it got.
class record_batches {
public:
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = batch_view;
    using difference_type = std::ptrdiff_t;
    using pointer = const batch_view*;
    using reference = const batch_view&;

    iterator() = default;

    iterator(const uint8_t* data, size_t size, size_t position)
      : data_(data), size_(size) {
      load(position);
    }

    reference operator*() const {
      return current_;
    }
    pointer operator->() const {
      return &current_;
    }
    iterator& operator++() {
      load(current_.end());
      return *this;
    }
    iterator operator++(int) {
      auto before = *this;
      ++*this;
      return before;
    }
    bool operator==(const iterator& other) const {
      return at_end_ == other.at_end_
             && (at_end_ || current_.position == other.current_.position);
    }
    bool operator!=(const iterator& other) const {
      return !(*this == other);
    }

  private:
    void load(size_t position) {
      at_end_ = true;
      if (position >= size_)
        return;
      auto* p = data_ + position;
      auto left = size_ - position;
      auto size = next_batch_size(p, left);
      if (!size || *size > left)
        return;
      auto header = parse_header(p, left);
      if (!header)
        return;
      current_ = batch_view{*header, p, *size, position};
      at_end_ = false;
    }

    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    batch_view current_;
    bool at_end_ = true;
  };

  // -- constructors -------------------------------------------------------------

  record_batches(const uint8_t* data, size_t size) : data_(data), size_(size) {
    // nop
  }

  explicit record_batches(const std::vector<uint8_t>& records)
    : record_batches(records.data(), records.size()) {
    // nop
  }

  // -- the walk -----------------------------------------------------------------

  iterator begin() const {
    return {data_, size_, 0};
  }
  iterator end() const {
    return {};
  }

  /// The bytes of the whole, well-formed batches from the start.
  size_t whole_size() const {
    size_t end = 0;
    for (auto& b : *this)
      end = b.end();
    return end;
  }

  /// True when the record set is whole batches to its last byte.
  bool whole() const {
    return whole_size() == size_;
  }

private:
  const uint8_t* data_;
  size_t size_;
};

} // namespace troupe
