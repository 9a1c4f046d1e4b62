#pragma once

#include <cstddef>
#include <cstdint>

namespace troupe {

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
/// Kafka's record batch v2 (java.util.zip.CRC32C). Incremental: pass the
/// previous result as `crc` to continue over the next chunk, so
/// crc32c(b, nb, crc32c(a, na)) == crc32c(a ++ b).
uint32_t crc32c(const uint8_t* data, size_t n, uint32_t crc = 0) noexcept;

} // namespace troupe
