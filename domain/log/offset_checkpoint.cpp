#include "domain/log/offset_checkpoint.hpp"

#include <cinttypes>
#include <cstdio>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

namespace troupe {

int64_t read_offset_checkpoint(const std::string& dir, const char* name) {
  auto path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f)
    return -1;
  int version = -1;
  int count = -1;
  long long offset = -1;
  bool ok = std::fscanf(f, "%d %d %lld", &version, &count, &offset) == 3
            && version == 0 && count == 1 && offset >= 0;
  std::fclose(f);
  return ok ? static_cast<int64_t>(offset) : -1;
}

namespace {

/// `text` to a temporary file, fsynced, renamed over `dir`/`name`, and the
/// directory fsynced.
bool write_atomically(const std::string& dir, const char* name,
                      const std::string& text) {
  auto path = dir + "/" + name;
  auto tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  auto n = static_cast<ssize_t>(text.size());
  bool ok = ::write(fd, text.data(), text.size()) == n && ::fdatasync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0)
    return false;
  ok = ::fsync(d) == 0;
  ::close(d);
  return ok;
}

} // namespace

bool write_offset_checkpoint(const std::string& dir, const char* name,
                             int64_t offset) {
  return write_atomically(dir, name, "0\n1\n" + std::to_string(offset) + "\n");
}

std::map<topic_partition, int64_t>
read_partition_checkpoint(const std::string& dir, const char* name) {
  std::map<topic_partition, int64_t> out;
  std::ifstream in(dir + "/" + name);
  int version = -1;
  size_t count = 0;
  if (!(in >> version >> count) || version != 0)
    return {};
  for (size_t i = 0; i < count; ++i) {
    std::string topic;
    int32_t partition = -1;
    int64_t offset = -1;
    if (!(in >> topic >> partition >> offset) || partition < 0 || offset < 0)
      return {};
    out[{topic, partition}] = offset;
  }
  return out;
}

bool write_partition_checkpoint(const std::string& dir, const char* name,
                                const std::map<topic_partition, int64_t>& o) {
  std::string text = "0\n" + std::to_string(o.size()) + "\n";
  for (auto& [tp, offset] : o)
    text += tp.topic + " " + std::to_string(tp.partition) + " "
            + std::to_string(offset) + "\n";
  return write_atomically(dir, name, text);
}

} // namespace troupe
