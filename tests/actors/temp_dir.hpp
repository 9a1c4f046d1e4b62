#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace troupe::test {

/// A fresh directory under /tmp, removed with everything in it.
struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/troupe-logs-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() {
    auto cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0)
      std::perror("rm");
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

} // namespace troupe::test
