#include "domain/log/offset_checkpoint.hpp"

#include <cinttypes>
#include <cstdio>

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

bool write_offset_checkpoint(const std::string& dir, const char* name,
                             int64_t offset) {
  auto path = dir + "/" + name;
  auto tmp = path + ".tmp";
  char text[64];
  int n = std::snprintf(text, sizeof text, "0\n1\n%" PRId64 "\n", offset);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  bool ok = ::write(fd, text, static_cast<size_t>(n)) == n
            && ::fdatasync(fd) == 0;
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

} // namespace troupe
