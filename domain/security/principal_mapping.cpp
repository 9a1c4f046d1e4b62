#include "domain/security/principal_mapping.hpp"

#include <cctype>
#include <regex>

namespace troupe::security {

namespace {

// SslPrincipalMapper's RULE_PATTERN, its splitter and parser.
constexpr const char* rule_pattern =
  R"((DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?))";

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ')
    ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ')
    --e;
  return std::string{s.substr(b, e - b)};
}

// Rule.escapeLiteralBackReferences (from Apache NiFi): a $n beyond the
// pattern's groups is cut down digit by digit and, when still beyond,
// escaped to stay literal.
std::string escape_literal_back_references(const std::string& unescaped,
                                           size_t groups) {
  if (groups == 0)
    return unescaped;
  std::string out;
  for (size_t i = 0; i < unescaped.size(); ++i) {
    char c = unescaped[i];
    if (c != '$' || i + 1 >= unescaped.size()
        || !std::isdigit(static_cast<unsigned char>(unescaped[i + 1]))) {
      out += c;
      continue;
    }
    size_t j = i + 1;
    while (j < unescaped.size()
           && std::isdigit(static_cast<unsigned char>(unescaped[j])))
      ++j;
    auto digits = unescaped.substr(i + 1, j - i - 1);
    if (digits[0] != '0') {
      auto index = std::stoull(digits.substr(0, 18));
      while (index > groups && index >= 10)
        index /= 10;
      if (index > groups)
        out += '\\';
    }
    out += unescaped.substr(i, j - i);
    i = j - 1;
  }
  return out;
}

// Matcher.appendReplacement's reading of a replacement: $n (as many
// digits as still name a group), \x for a literal x. nullopt where Java
// throws.
std::optional<std::string> expand(const std::string& replacement,
                                  const std::smatch& m) {
  std::string out;
  size_t groups = m.size() - 1;
  for (size_t i = 0; i < replacement.size(); ++i) {
    char c = replacement[i];
    if (c == '\\') {
      if (++i >= replacement.size())
        return std::nullopt; // "character to be escaped is missing"
      out += replacement[i];
    } else if (c == '$') {
      if (++i >= replacement.size()
          || !std::isdigit(static_cast<unsigned char>(replacement[i])))
        return std::nullopt; // "Illegal group reference"
      size_t ref = static_cast<size_t>(replacement[i] - '0');
      if (ref > groups)
        return std::nullopt; // "No group n"
      while (i + 1 < replacement.size()
             && std::isdigit(static_cast<unsigned char>(replacement[i + 1]))) {
        auto next = ref * 10 + static_cast<size_t>(replacement[i + 1] - '0');
        if (next > groups)
          break;
        ref = next;
        ++i;
      }
      if (m[ref].matched)
        out += m[ref].str();
    } else {
      out += c;
    }
  }
  return out;
}

// String.replaceAll(pattern, replacement).
std::optional<std::string> replace_all(const std::string& input,
                                       const std::regex& re,
                                       const std::string& replacement) {
  std::string out;
  auto begin = std::sregex_iterator(input.begin(), input.end(), re);
  auto last = input.cbegin();
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.append(last, m[0].first);
    auto piece = expand(replacement, m);
    if (!piece)
      return std::nullopt;
    out += *piece;
    last = m[0].second;
  }
  out.append(last, input.cend());
  return out;
}

std::string ascii_case(std::string s, bool upper) {
  for (auto& c : s)
    c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

// SslPrincipalMapper.fromRules: splitRules, then parseRules.
std::optional<principal_mapper> principal_mapper::parse(std::string_view rules,
                                                        std::string& error) {
  principal_mapper out;
  std::regex splitter{std::string{R"(\s*()"} + rule_pattern + R"()\s*(,\s*|$))"};
  std::regex parser{rule_pattern};
  auto text = trim(rules);
  std::vector<std::string> parts;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), splitter);
       it != std::sregex_iterator(); ++it)
    parts.push_back((*it)[1].str());
  for (const auto& part : parts) {
    std::smatch m;
    if (!std::regex_search(part, m, parser, std::regex_constants::match_continuous)) {
      error = "Invalid rule: " + part;
      return std::nullopt;
    }
    auto end = static_cast<size_t>(m.length(0));
    if (end != part.size()) {
      error = "Invalid rule: `" + part + "`, unmatched substring: `"
              + part.substr(end) + "`";
      return std::nullopt;
    }
    if (m[1].matched) {
      rule r;
      r.is_default = true;
      out.rules_.push_back(std::move(r));
    } else if (m[2].matched) {
      rule r;
      r.pattern = m[2].str();
      r.replacement = m[4].str();
      r.to_lower = m[6].str() == "L";
      r.to_upper = m[6].str() == "U";
      try {
        std::regex check{r.pattern};
      } catch (const std::regex_error& e) {
        error = "Invalid rule: `" + part + "`: " + e.what();
        return std::nullopt;
      }
      out.rules_.push_back(std::move(r));
    }
    // An empty rule is ignored.
  }
  return out;
}

// SslPrincipalMapper.getName and Rule.apply.
std::optional<std::string> principal_mapper::apply(std::string_view dn) const {
  std::string name{dn};
  for (const auto& r : rules_) {
    if (r.is_default)
      return name;
    std::regex re{r.pattern};
    std::smatch m;
    if (!std::regex_match(name, m, re))
      continue;
    auto replacement = escape_literal_back_references(r.replacement,
                                                      re.mark_count());
    auto result = replace_all(name, re, replacement);
    if (!result)
      return std::nullopt;
    if (r.to_lower)
      return ascii_case(*result, false);
    if (r.to_upper)
      return ascii_case(*result, true);
    return result;
  }
  return std::nullopt;
}

} // namespace troupe::security
