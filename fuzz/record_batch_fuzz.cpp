// libFuzzer target: troupe's RecordBatch v2 checks and record decoding on
// arbitrary bytes, the way produce requests and segment recovery reach them:
// one batch, and a run of batches walked by their lengths.

#include <cstddef>
#include <cstdint>
#include <string>

#include "domain/log/record_batch.hpp"
#include "domain/log/record_batches.hpp"

using namespace troupe;

namespace {

constexpr size_t max_batch_bytes = 1 << 20;

void check_batch(const uint8_t* p, size_t n) {
  auto verdict = validate_batch(p, n, max_batch_bytes);
  std::string reason;
  auto records = decode_records(p, n, &reason);
  if (!records && reason.empty())
    __builtin_trap(); // a refusal always has a reason
  // A batch validate_batch accepts and that is not compressed has records
  // decode_records can read.
  auto header = parse_header(p, n);
  if (verdict == error_code::none && header && header->compression() == 0
      && !records)
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_batch(data, size);
  for (auto& b : record_batches{data, size})
    check_batch(b.data, b.size);
  return 0;
}
