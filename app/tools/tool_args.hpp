#pragma once

// Flags of troupe's admin tools, parsed the way Kafka's tools parse theirs
// (joptsimple): `--name value` or `--name=value`, repeatable options,
// options with an optional value. Bad input throws usage_error, whose text
// is the one line the tool prints before exiting with status 1.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace troupe::tools {

class usage_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class arg_kind { none, required, optional };

struct option_spec {
  std::string name; // without the leading "--"
  arg_kind kind = arg_kind::none;
  std::string help{};
};

class parsed_args {
public:
  bool has(const std::string& name) const {
    return values_.count(name) > 0;
  }
  /// The last value given, or `fallback`.
  std::string value(const std::string& name,
                    const std::string& fallback = {}) const;
  const std::vector<std::string>& values(const std::string& name) const;

  /// The value as an integer in [lo, hi]; joptsimple's "Cannot parse
  /// argument" otherwise.
  std::optional<int64_t> integer(const std::string& name, int64_t lo,
                                 int64_t hi) const;

  std::map<std::string, std::vector<std::string>> values_;
};

parsed_args parse_args(const std::vector<std::string>& args,
                       const std::vector<option_spec>& specs);

/// "Option \"[a]\" can't be used with option \"[b]\"" when `a` is given
/// with any of `others` (Kafka's CommandLineUtils.checkInvalidArgs).
void check_invalid_args(const parsed_args& a, const std::string& name,
                        const std::vector<std::string>& others);

/// `Missing required argument "[name]"` (CommandLineUtils.checkRequiredArgs).
void check_required(const parsed_args& a, const std::string& name);

/// The usage text: one line per option.
std::string usage(const std::string& command,
                  const std::vector<option_spec>& specs);

/// "k1=v1,k2=[v1,v2],k3=v3" as ConfigCommand's --add-config parses it
/// (square brackets group values holding commas).
std::vector<std::pair<std::string, std::string>>
parse_config_pairs(const std::string& text);

} // namespace troupe::tools
