// libFuzzer target: Kafka's magic 0/1 message sets as Produce v0-v2 brings
// them (decode, up-conversion to RecordBatch v2) and the codecs opening
// wrapper values and compressed v2 batches, on arbitrary bytes. A set that
// up-converts must give a valid batch that down-converts back to as many
// messages.

#include <cstddef>
#include <cstdint>
#include <string>

#include "domain/log/compression.hpp"
#include "domain/log/legacy_records.hpp"
#include "domain/log/record_batch.hpp"

using namespace troupe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto set = decode_legacy(data, size);
  if (set.error != error_code::none && !set.messages.empty())
    __builtin_trap(); // a refused set gives no messages
  if (set.error != error_code::none && set.reason.empty())
    __builtin_trap(); // and always says why
  auto up = up_convert(data, size);
  if (up.error != set.error)
    __builtin_trap();
  if (up.error == error_code::none && !up.records.empty()) {
    if (validate_batch(up.records.data(), up.records.size(), SIZE_MAX)
        != error_code::none)
      __builtin_trap();
    for (int8_t magic : {int8_t{0}, int8_t{1}}) {
      auto down = down_convert(up.records.data(), up.records.size(), magic, 0);
      if (down.error != error_code::none)
        __builtin_trap();
      auto again = decode_legacy(down.records.data(), down.records.size());
      if (again.error != error_code::none
          || again.messages.size() != set.messages.size())
        __builtin_trap();
    }
  }
  // The codecs on their own, and as a v2 batch's records section.
  for (auto codec : {compression_codec::gzip, compression_codec::snappy,
                     compression_codec::lz4}) {
    std::string why;
    auto out = decompress(codec, data, size, &why, lz4_header_checksum::correct,
                          1 << 20);
    if (!out && why.empty())
      __builtin_trap();
  }
  decode_batch_records(data, size);
  down_convert(data, size, 1, 0);
  return 0;
}
