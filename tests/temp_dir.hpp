#pragma once

// A fresh directory per test under /tmp, never the default log.dirs
// (docs/ARCHITECTURE.md §6): the domain, storage, actor and gateway tests
// share this one.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

namespace troupe::test {

/// A fresh directory under /tmp, removed with everything in it.
struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/troupe-logs-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path = tmpl;
  }
  ~temp_dir() {
    ::nftw(
      path.c_str(),
      [](const char* p, const struct stat*, int, struct FTW*) {
        return ::remove(p);
      },
      16, FTW_DEPTH | FTW_PHYS);
  }
  std::string operator/(const std::string& name) const {
    return path + "/" + name;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

} // namespace troupe::test
