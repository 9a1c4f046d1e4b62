#pragma once

// Kafka's zookeeper.connect: "host:port[,host:port...][/chroot]", parsed as
// ZooKeeper's ConnectStringParser does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "domain/zookeeper/decoded.hpp"

namespace troupe::zk {

struct zk_server_address {
  std::string host;
  uint16_t port = 2181; // ZooKeeper's default client port
};

struct connect_string {
  std::vector<zk_server_address> servers;
  /// Empty for none; otherwise a valid znode path such as "/kafka".
  std::string chroot;

  /// The servers as "host:port,host:port" (ports made explicit, IPv6 in
  /// brackets), the form ZooKeeper's C client takes.
  std::string hosts() const;

  /// hosts() followed by the chroot, for zookeeper_init.
  std::string to_string() const;
};

/// Parses zookeeper.connect. A missing port is 2181; a chroot of "/" is none
/// (ConnectStringParser); a chroot must be a valid path (PathUtils
/// .validatePath). Errors name what is wrong.
decoded<connect_string> parse_connect_string(std::string_view text);

/// ZooKeeper's PathUtils.validatePath: absolute, no empty, "." or ".."
/// segment, no trailing '/', no NUL. Empty when valid, else the reason.
std::string validate_znode_path(std::string_view path);

} // namespace troupe::zk
