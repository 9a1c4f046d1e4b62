#include "app/tools/tool_args.hpp"

#include <sstream>

namespace troupe::tools {

std::string parsed_args::value(const std::string& name,
                               const std::string& fallback) const {
  auto i = values_.find(name);
  if (i == values_.end() || i->second.empty())
    return fallback;
  return i->second.back();
}

const std::vector<std::string>&
parsed_args::values(const std::string& name) const {
  static const std::vector<std::string> none;
  auto i = values_.find(name);
  return i == values_.end() ? none : i->second;
}

std::optional<int64_t> parsed_args::integer(const std::string& name,
                                            int64_t lo, int64_t hi) const {
  if (!has(name))
    return std::nullopt;
  auto text = value(name);
  try {
    size_t used = 0;
    auto v = std::stoll(text, &used);
    if (used == text.size() && v >= lo && v <= hi)
      return v;
  } catch (const std::exception&) {
    // below
  }
  throw usage_error("Cannot parse argument '" + text + "' of option " + name);
}

parsed_args parse_args(const std::vector<std::string>& args,
                       const std::vector<option_spec>& specs) {
  parsed_args out;
  auto find = [&](const std::string& name) -> const option_spec* {
    for (auto& s : specs)
      if (s.name == name)
        return &s;
    return nullptr;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    auto& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0)
      throw usage_error("Found non-option argument '" + arg
                        + "': every argument is --name [value]");
    auto name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto* spec = find(name);
    if (!spec)
      throw usage_error(name + " is not a recognized option");
    auto& slot = out.values_[name];
    switch (spec->kind) {
      case arg_kind::none:
        if (inline_value)
          throw usage_error("Option " + name + " does not take an argument");
        break;
      case arg_kind::required:
        if (inline_value) {
          slot.push_back(*inline_value);
        } else if (i + 1 < args.size()
                   && args[i + 1].compare(0, 2, "--") != 0) {
          slot.push_back(args[++i]);
        } else {
          throw usage_error("Option " + name + " requires an argument");
        }
        break;
      case arg_kind::optional:
        if (inline_value)
          slot.push_back(*inline_value);
        else if (i + 1 < args.size() && args[i + 1].compare(0, 2, "--") != 0)
          slot.push_back(args[++i]);
        break;
    }
  }
  return out;
}

void check_invalid_args(const parsed_args& a, const std::string& name,
                        const std::vector<std::string>& others) {
  if (!a.has(name))
    return;
  for (auto& o : others)
    if (a.has(o))
      throw usage_error("Option \"[" + name + "]\" can't be used with option \"["
                        + o + "]\"");
}

void check_required(const parsed_args& a, const std::string& name) {
  if (!a.has(name))
    throw usage_error("Missing required argument \"[" + name + "]\"");
}

std::string usage(const std::string& command,
                  const std::vector<option_spec>& specs) {
  std::ostringstream out;
  out << "Usage: troupe " << command << " [options]\n\nOption\n";
  for (auto& s : specs) {
    std::string left = "--" + s.name;
    if (s.kind == arg_kind::required)
      left += " <String>";
    else if (s.kind == arg_kind::optional)
      left += " [String]";
    out << left;
    if (left.size() < 40)
      out << std::string(40 - left.size(), ' ');
    else
      out << "\n" << std::string(40, ' ');
    out << s.help << "\n";
  }
  return out.str();
}

std::vector<std::pair<std::string, std::string>>
parse_config_pairs(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[')
      ++depth;
    else if (c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (depth != 0)
    throw usage_error("Invalid config(s): unbalanced brackets in '" + text
                      + "'");
  items.push_back(cur);
  for (auto& item : items) {
    if (item.empty())
      continue;
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error("Invalid entity config: all configs to be added must "
                        "be in the format \"key=val\".");
    auto value = item.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '[' && value.back() == ']')
      value = value.substr(1, value.size() - 2);
    out.emplace_back(item.substr(0, eq), value);
  }
  return out;
}

} // namespace troupe::tools
