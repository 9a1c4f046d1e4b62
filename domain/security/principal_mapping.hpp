#pragma once

// ssl.principal.mapping.rules (KIP-371) as Kafka's SslPrincipalMapper reads
// and applies them to a certificate's distinguished name (RFC 2253, as
// X500Principal.getName() prints it: "CN=client,OU=eng,O=troupe"):
// `RULE:pattern/replacement/[LU]` entries separated by commas, and DEFAULT
// (the whole DN). Plain C++ (std::regex, Java's $1 group references).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::security {

class principal_mapper {
public:
  /// nullopt with `error` set when the rules do not parse.
  static std::optional<principal_mapper> parse(std::string_view rules,
                                               std::string& error);

  /// The short name of `dn`: the first rule that matches, or the DN when
  /// DEFAULT is reached; nullopt when no rule matches (Kafka refuses the
  /// connection then).
  std::optional<std::string> apply(std::string_view dn) const;

private:
  struct rule {
    bool is_default = false;
    std::string pattern;
    std::string replacement;
    bool to_lower = false;
    bool to_upper = false;
  };
  std::vector<rule> rules_;
};

} // namespace troupe::security
