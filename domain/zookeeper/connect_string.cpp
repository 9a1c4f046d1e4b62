#include "domain/zookeeper/connect_string.hpp"

#include <cctype>

namespace troupe::zk {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool parse_port(std::string_view text, uint16_t& port) {
  if (text.empty() || text.size() > 5)
    return false;
  uint32_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  if (n == 0 || n > 65535)
    return false;
  port = static_cast<uint16_t>(n);
  return true;
}

// One "host[:port]" or "[v6]:port" (NetUtils.getIPV6HostAndPort).
std::string parse_server(std::string_view text, zk_server_address& out) {
  std::string_view host = text;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos)
      return "'" + std::string{text} + "': IPv6 address lacks ']'";
    host = text.substr(1, close - 1);
    auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':')
        return "'" + std::string{text} + "': expected ':' after ']'";
      port = rest.substr(1);
    }
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty())
    return "'" + std::string{text} + "': empty host";
  out.host = std::string{host};
  if (!port.empty() && !parse_port(port, out.port))
    return "'" + std::string{text} + "': port must be 1..65535";
  return {};
}

// One code point of UTF-8 at `s[i]`; -1 for invalid bytes.
int32_t next_code_point(std::string_view s, size_t& i) {
  auto b = static_cast<unsigned char>(s[i++]);
  if (b < 0x80)
    return b;
  int extra = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : -1;
  if (extra < 0 || i + static_cast<size_t>(extra) > s.size())
    return -1;
  int32_t cp = b & (0x3f >> extra);
  for (int k = 0; k < extra; ++k) {
    auto c = static_cast<unsigned char>(s[i++]);
    if ((c & 0xc0) != 0x80)
      return -1;
    cp = (cp << 6) | (c & 0x3f);
  }
  return cp;
}

// PathUtils.validatePath's character ranges, over UTF-16 code units: a code
// point beyond the BMP is a surrogate pair, which it refuses.
bool invalid_path_char(int32_t cp) {
  return (cp > 0 && cp <= 0x1f) || (cp >= 0x7f && cp <= 0x9f)
         || (cp >= 0xd800 && cp <= 0xf8ff) || cp >= 0xfff0;
}

} // namespace

std::string connect_string::hosts() const {
  std::string out;
  for (auto& server : servers) {
    if (!out.empty())
      out += ',';
    if (server.host.find(':') != std::string::npos)
      out += '[' + server.host + ']';
    else
      out += server.host;
    out += ':' + std::to_string(server.port);
  }
  return out;
}

std::string connect_string::to_string() const {
  return hosts() + chroot;
}

std::string validate_znode_path(std::string_view path) {
  auto invalid = [&](std::string why) {
    return "invalid path \"" + std::string{path} + "\": " + why;
  };
  if (path.empty())
    return invalid("empty");
  if (path.front() != '/')
    return invalid("must start with '/'");
  if (path.size() == 1)
    return {};
  if (path.back() == '/')
    return invalid("must not end with '/'");
  // Segment by segment: no empty, "." or ".." names.
  size_t start = 1;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos)
      end = path.size();
    auto segment = path.substr(start, end - start);
    if (segment.empty())
      return invalid("empty node name at " + std::to_string(start));
    if (segment == "." || segment == "..")
      return invalid("relative paths not allowed at " + std::to_string(start));
    start = end + 1;
  }
  for (size_t i = 0; i < path.size();) {
    auto at = i;
    auto cp = next_code_point(path, i);
    if (cp == 0)
      return invalid("null character at " + std::to_string(at));
    if (cp < 0 || invalid_path_char(cp))
      return invalid("invalid character at " + std::to_string(at));
  }
  return {};
}

decoded<connect_string> parse_connect_string(std::string_view text) {
  using result = decoded<connect_string>;
  connect_string out;
  auto hosts = text;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    auto chroot = text.substr(slash);
    hosts = text.substr(0, slash);
    if (chroot.size() > 1) {
      if (auto why = validate_znode_path(chroot); !why.empty())
        return result::failure("zookeeper.connect chroot: " + why);
      out.chroot = std::string{chroot};
    }
  }
  // StringUtils.split: entries are trimmed, empty ones dropped.
  while (!hosts.empty()) {
    auto comma = hosts.find(',');
    auto entry = trim(hosts.substr(0, comma));
    hosts = comma == std::string_view::npos ? std::string_view{}
                                            : hosts.substr(comma + 1);
    if (entry.empty())
      continue;
    zk_server_address server;
    if (auto why = parse_server(entry, server); !why.empty())
      return result::failure("zookeeper.connect: " + why);
    out.servers.push_back(std::move(server));
  }
  if (out.servers.empty())
    return result::failure("zookeeper.connect names no server");
  return out;
}

} // namespace troupe::zk
