#include "domain/log/compression.hpp"

#include <cstring>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>

#include "domain/log/crc32c.hpp"

namespace troupe {

namespace {

namespace L = batch_layout;

using bytes = std::vector<uint8_t>;

bool fail(std::string* reason, const char* why) {
  if (reason)
    *reason = why;
  return false;
}

uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8)
         | uint32_t{p[3]};
}

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16)
         | (uint32_t{p[3]} << 24);
}

void put_be32(bytes& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8)
    out.push_back(static_cast<uint8_t>(v >> s));
}

void put_le32(bytes& out, uint32_t v) {
  for (int s = 0; s <= 24; s += 8)
    out.push_back(static_cast<uint8_t>(v >> s));
}

// -- gzip ---------------------------------------------------------------------

std::optional<bytes> gzip_compress(const uint8_t* p, size_t n) {
  z_stream z{};
  // windowBits 15 + 16: a gzip member, as java.util.zip.GZIPOutputStream.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY)
      != Z_OK)
    return std::nullopt;
  bytes out(deflateBound(&z, static_cast<uLong>(n)) + 32);
  z.next_in = const_cast<Bytef*>(p);
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  auto rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END)
    return std::nullopt;
  return out;
}

std::optional<bytes> gzip_decompress(const uint8_t* p, size_t n,
                                     size_t max_size, std::string* reason) {
  bytes out;
  const uint8_t* end = p + n;
  uint8_t chunk[16384];
  bool first = true;
  // GZIPInputStream reads members back to back; what follows the last one
  // without a gzip magic is ignored.
  while (first || (end - p >= 10 && p[0] == 0x1f && p[1] == 0x8b)) {
    first = false;
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
      fail(reason, "zlib could not start");
      return std::nullopt;
    }
    z.next_in = const_cast<Bytef*>(p);
    z.avail_in = static_cast<uInt>(std::min<size_t>(end - p, UINT32_MAX));
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      z.next_out = chunk;
      z.avail_out = sizeof(chunk);
      rc = inflate(&z, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END) {
        inflateEnd(&z);
        fail(reason, "gzip data is corrupt or cut short");
        return std::nullopt;
      }
      size_t got = sizeof(chunk) - z.avail_out;
      if (out.size() + got > max_size) {
        inflateEnd(&z);
        fail(reason, "decompressed data too large");
        return std::nullopt;
      }
      out.insert(out.end(), chunk, chunk + got);
      if (rc == Z_OK && got == 0 && z.avail_in == 0) {
        inflateEnd(&z);
        fail(reason, "gzip data cut short");
        return std::nullopt;
      }
    }
    p = z.next_in;
    inflateEnd(&z);
  }
  return out;
}

// -- snappy (xerial framing) ------------------------------------------------------

constexpr uint8_t xerial_magic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t xerial_header_size = 16; // magic, version, compatible version
constexpr size_t xerial_block = 32 * 1024;

std::optional<bytes> snappy_compress_block(const uint8_t* p, size_t n) {
  size_t size = snappy_max_compressed_length(n);
  bytes out(size);
  if (snappy_compress(reinterpret_cast<const char*>(p), n,
                      reinterpret_cast<char*>(out.data()), &size)
      != SNAPPY_OK)
    return std::nullopt;
  out.resize(size);
  return out;
}

std::optional<bytes> snappy_xerial_compress(const uint8_t* p, size_t n) {
  bytes out(xerial_magic, xerial_magic + 8);
  put_be32(out, 1); // SnappyCodec's version
  put_be32(out, 1); // and its minimum compatible version
  for (size_t at = 0; at < n; at += xerial_block) {
    auto block = snappy_compress_block(p + at, std::min(xerial_block, n - at));
    if (!block)
      return std::nullopt;
    put_be32(out, static_cast<uint32_t>(block->size()));
    out.insert(out.end(), block->begin(), block->end());
  }
  return out;
}

bool snappy_block_into(bytes& out, const uint8_t* p, size_t n,
                       size_t max_size, std::string* reason) {
  size_t size = 0;
  if (snappy_uncompressed_length(reinterpret_cast<const char*>(p), n, &size)
      != SNAPPY_OK)
    return fail(reason, "snappy block is corrupt");
  if (out.size() + size > max_size)
    return fail(reason, "decompressed data too large");
  auto at = out.size();
  out.resize(at + size);
  if (snappy_uncompress(reinterpret_cast<const char*>(p), n,
                        reinterpret_cast<char*>(out.data() + at), &size)
      != SNAPPY_OK)
    return fail(reason, "snappy block is corrupt");
  out.resize(at + size);
  return true;
}

bool xerial_header_at(const uint8_t* p, const uint8_t* end) {
  return end - p >= 8 && std::memcmp(p, xerial_magic, 8) == 0;
}

std::optional<bytes> snappy_decompress(const uint8_t* p, size_t n,
                                       size_t max_size, std::string* reason) {
  bytes out;
  const uint8_t* end = p + n;
  if (!xerial_header_at(p, end)) {
    // SnappyInputStream: no xerial header, so the whole input is one raw
    // snappy block.
    if (!snappy_block_into(out, p, n, max_size, reason))
      return std::nullopt;
    return out;
  }
  while (p < end) {
    if (xerial_header_at(p, end)) { // a stream concatenated to the last
      if (end - p < static_cast<ptrdiff_t>(xerial_header_size)) {
        fail(reason, "xerial snappy header cut short");
        return std::nullopt;
      }
      p += xerial_header_size;
      continue;
    }
    if (end - p < 4) {
      fail(reason, "xerial snappy chunk length cut short");
      return std::nullopt;
    }
    auto size = load_be32(p);
    p += 4;
    if (size > static_cast<size_t>(end - p)) {
      fail(reason, "xerial snappy chunk cut short");
      return std::nullopt;
    }
    if (!snappy_block_into(out, p, size, max_size, reason))
      return std::nullopt;
    p += size;
  }
  return out;
}

// -- lz4 (Kafka's frame) ------------------------------------------------------------

constexpr uint32_t lz4_magic = 0x184D2204;
constexpr uint32_t lz4_uncompressed_bit = 0x80000000u;
constexpr size_t lz4_block = 64 * 1024; // BD 4, Kafka's default
constexpr uint8_t lz4_flg = 0x60;       // version 1, independent blocks
constexpr uint8_t lz4_bd = 0x40;

std::optional<bytes> lz4_compress(const uint8_t* p, size_t n,
                                  lz4_header_checksum how) {
  bytes out;
  put_le32(out, lz4_magic);
  out.push_back(lz4_flg);
  out.push_back(lz4_bd);
  // Lz4BlockOutputStream.writeHeader: the broken variant hashes the magic
  // number as well.
  auto hash = how == lz4_header_checksum::broken_magic0 ? xxh32(out.data(), 6)
                                                        : xxh32(out.data() + 4, 2);
  out.push_back(static_cast<uint8_t>((hash >> 8) & 0xFF));
  bytes block(static_cast<size_t>(LZ4_compressBound(lz4_block)));
  for (size_t at = 0; at < n; at += lz4_block) {
    auto len = std::min(lz4_block, n - at);
    int size = LZ4_compress_default(reinterpret_cast<const char*>(p + at),
                                    reinterpret_cast<char*>(block.data()),
                                    static_cast<int>(len),
                                    static_cast<int>(block.size()));
    if (size <= 0 || static_cast<size_t>(size) >= len) {
      put_le32(out, static_cast<uint32_t>(len) | lz4_uncompressed_bit);
      out.insert(out.end(), p + at, p + at + len);
    } else {
      put_le32(out, static_cast<uint32_t>(size));
      out.insert(out.end(), block.begin(), block.begin() + size);
    }
  }
  put_le32(out, 0); // end mark
  return out;
}

std::optional<bytes> lz4_decompress(const uint8_t* p, size_t n,
                                    lz4_header_checksum how, size_t max_size,
                                    std::string* reason) {
  const uint8_t* end = p + n;
  const uint8_t* start = p;
  if (n < 7 || load_le32(p) != lz4_magic) {
    fail(reason, "not an LZ4 frame");
    return std::nullopt;
  }
  p += 4;
  uint8_t flg = *p++;
  uint8_t bd = *p++;
  // Lz4BlockOutputStream.FLG/BD.validate.
  if ((flg & 0x03) != 0 || (flg >> 6) != 1) {
    fail(reason, "LZ4 frame version or reserved bits unsupported");
    return std::nullopt;
  }
  if (!(flg & 0x20)) {
    fail(reason, "LZ4 dependent block stream is unsupported");
    return std::nullopt;
  }
  int size_id = (bd >> 4) & 0x07;
  if ((bd & 0x8F) != 0 || size_id < 4) {
    fail(reason, "LZ4 block size descriptor invalid");
    return std::nullopt;
  }
  size_t max_block = size_t{1} << (2 * size_id + 8);
  bool block_checksum = flg & 0x10;
  bool content_size = flg & 0x08;
  bool content_checksum = flg & 0x04;
  if (content_size) {
    if (end - p < 8) {
      fail(reason, "LZ4 frame header cut short");
      return std::nullopt;
    }
    p += 8;
  }
  if (p >= end) {
    fail(reason, "LZ4 frame header cut short");
    return std::nullopt;
  }
  if (how == lz4_header_checksum::correct) {
    auto hash = xxh32(start + 4, static_cast<size_t>(p - (start + 4)));
    if (*p != static_cast<uint8_t>((hash >> 8) & 0xFF)) {
      fail(reason, "LZ4 frame descriptor checksum mismatch");
      return std::nullopt;
    }
  }
  ++p; // Lz4BlockInputStream ignores it for magic 0 (KAFKA-3160)
  bytes out;
  bytes block(max_block);
  for (;;) {
    if (end - p < 4) {
      fail(reason, "LZ4 frame cut short");
      return std::nullopt;
    }
    uint32_t word = load_le32(p);
    p += 4;
    bool stored = word & lz4_uncompressed_bit;
    size_t size = word & ~lz4_uncompressed_bit;
    if (size == 0) {
      if (content_checksum) {
        if (end - p < 4) {
          fail(reason, "LZ4 content checksum cut short");
          return std::nullopt;
        }
        p += 4; // as Kafka: not verified
      }
      return out;
    }
    if (size > max_block || size > static_cast<size_t>(end - p)) {
      fail(reason, "LZ4 block too large or cut short");
      return std::nullopt;
    }
    const uint8_t* data = p;
    size_t produced = size;
    if (!stored) {
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(data),
                                    reinterpret_cast<char*>(block.data()),
                                    static_cast<int>(size),
                                    static_cast<int>(max_block));
      if (got < 0) {
        fail(reason, "LZ4 block is corrupt");
        return std::nullopt;
      }
      produced = static_cast<size_t>(got);
    }
    p += size;
    if (block_checksum) {
      if (end - p < 4 || load_le32(p) != xxh32(data, size)) {
        fail(reason, "LZ4 block checksum mismatch");
        return std::nullopt;
      }
      p += 4;
    }
    if (out.size() + produced > max_size) {
      fail(reason, "decompressed data too large");
      return std::nullopt;
    }
    const uint8_t* from = stored ? data : block.data();
    out.insert(out.end(), from, from + produced);
  }
}

void store_be(uint8_t* p, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

} // namespace

// -- xxh32 ----------------------------------------------------------------------------

uint32_t xxh32(const uint8_t* p, size_t n, uint32_t seed) noexcept {
  constexpr uint32_t p1 = 2654435761u, p2 = 2246822519u, p3 = 3266489917u,
                     p4 = 668265263u, p5 = 374761393u;
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  const uint8_t* end = p + n;
  uint32_t h;
  if (n >= 16) {
    uint32_t v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
    auto round = [&](uint32_t v, const uint8_t* q) {
      return rotl(v + load_le32(q) * p2, 13) * p1;
    };
    for (; end - p >= 16; p += 16) {
      v1 = round(v1, p);
      v2 = round(v2, p + 4);
      v3 = round(v3, p + 8);
      v4 = round(v4, p + 12);
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
  } else {
    h = seed + p5;
  }
  h += static_cast<uint32_t>(n);
  for (; end - p >= 4; p += 4)
    h = rotl(h + load_le32(p) * p3, 17) * p4;
  for (; p < end; ++p)
    h = rotl(h + *p * p5, 11) * p1;
  h ^= h >> 15;
  h *= p2;
  h ^= h >> 13;
  h *= p3;
  h ^= h >> 16;
  return h;
}

// -- the codecs ---------------------------------------------------------------------

std::optional<bytes> compress(compression_codec codec, const uint8_t* p,
                              size_t n, lz4_header_checksum lz4_checksum) {
  switch (codec) {
    case compression_codec::gzip:
      return gzip_compress(p, n);
    case compression_codec::snappy:
      return snappy_xerial_compress(p, n);
    case compression_codec::lz4:
      return lz4_compress(p, n, lz4_checksum);
    default:
      return std::nullopt;
  }
}

std::optional<bytes> decompress(compression_codec codec, const uint8_t* p,
                                size_t n, std::string* reason,
                                lz4_header_checksum lz4_checksum,
                                size_t max_size) {
  switch (codec) {
    case compression_codec::gzip:
      return gzip_decompress(p, n, max_size, reason);
    case compression_codec::snappy:
      return snappy_decompress(p, n, max_size, reason);
    case compression_codec::lz4:
      return lz4_decompress(p, n, lz4_checksum, max_size, reason);
    case compression_codec::zstd:
      fail(reason, "zstd is not supported");
      return std::nullopt;
    default:
      fail(reason, "unknown compression codec");
      return std::nullopt;
  }
}

// -- v2 batches -----------------------------------------------------------------------

std::optional<std::vector<decoded_record>>
decode_batch_records(const uint8_t* p, size_t n, std::string* reason) {
  auto h = parse_header(p, n);
  if (!h || h->magic != L::current_magic
      || h->size_in_bytes() != static_cast<int64_t>(n)) {
    fail(reason, "not a whole magic v2 record batch");
    return std::nullopt;
  }
  auto codec = static_cast<compression_codec>(h->compression());
  if (codec == compression_codec::none)
    return decode_records(p, n, reason);
  auto body = decompress(codec, p + L::records, n - L::records, reason);
  if (!body)
    return std::nullopt;
  // The same batch uncompressed, for decode_records' walk (which does not
  // check the CRC, so none is recomputed).
  bytes plain(p, p + L::records);
  plain.insert(plain.end(), body->begin(), body->end());
  if (plain.size() - L::log_overhead > INT32_MAX) {
    fail(reason, "decompressed batch too large");
    return std::nullopt;
  }
  store_be(plain.data() + L::batch_length, plain.size() - L::log_overhead, 4);
  auto attributes = static_cast<uint16_t>(h->attributes & ~L::compression_mask);
  store_be(plain.data() + L::attributes, attributes, 2);
  return decode_records(plain.data(), plain.size(), reason);
}

std::vector<uint8_t> encode_compressed_batch(compression_codec codec,
                                             int64_t base_offset,
                                             int32_t leader_epoch,
                                             const std::vector<record>& records) {
  auto batch = encode_batch(base_offset, leader_epoch, records);
  if (batch.empty() || codec == compression_codec::none)
    return batch;
  auto body = compress(codec, batch.data() + L::records,
                       batch.size() - L::records);
  if (!body || body->size() > INT32_MAX - L::header_size)
    return {};
  batch.resize(L::records);
  batch.insert(batch.end(), body->begin(), body->end());
  store_be(batch.data() + L::batch_length, batch.size() - L::log_overhead, 4);
  auto attributes = static_cast<uint16_t>(
    (static_cast<uint16_t>(batch[L::attributes]) << 8 | batch[L::attributes + 1])
    | static_cast<uint16_t>(codec));
  store_be(batch.data() + L::attributes, attributes, 2);
  store_be(batch.data() + L::crc,
           crc32c(batch.data() + L::attributes, batch.size() - L::attributes),
           4);
  return batch;
}

} // namespace troupe
