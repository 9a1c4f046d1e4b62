#include "domain/security/sasl.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

#include "domain/security/security_store.hpp"

namespace troupe::security {

namespace {

constexpr std::string_view plain_login_module =
  "org.apache.kafka.common.security.plain.PlainLoginModule";

// java.io.StreamTokenizer as JaasConfig sets it up: words of letters,
// digits, '.', '-', '_' and '$' (starting with a letter, '_' or '$'),
// quoted strings ('"' or '\'', with Java's escapes), numbers (no string
// value), '//' and '/* */' comments, every other character by itself.
class jaas_tokenizer {
public:
  enum kind { eof, word, quoted, number, ordinary };

  explicit jaas_tokenizer(std::string_view text) : text_(text) {
    // nop
  }

  kind next() {
    sval.clear();
    skip_blanks_and_comments();
    if (pos_ >= text_.size())
      return type = eof;
    auto c = static_cast<unsigned char>(text_[pos_]);
    if (is_digit_start(c)) {
      if (c == '-') {
        auto d = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
        if (d != '.' && !(d >= '0' && d <= '9')) {
          ++pos_;
          ch = '-';
          return type = ordinary;
        }
      }
      ++pos_;
      while (pos_ < text_.size()
             && ((text_[pos_] >= '0' && text_[pos_] <= '9')
                 || text_[pos_] == '.'))
        ++pos_;
      return type = number;
    }
    if (is_alpha(c)) {
      auto start = pos_;
      while (pos_ < text_.size()
             && (is_alpha(static_cast<unsigned char>(text_[pos_]))
                 || is_digit_start(static_cast<unsigned char>(text_[pos_]))))
        ++pos_;
      sval = std::string{text_.substr(start, pos_ - start)};
      return type = word;
    }
    if (c == '"' || c == '\'') {
      ++pos_;
      read_quoted(static_cast<char>(c));
      return type = quoted;
    }
    ++pos_;
    ch = static_cast<char>(c);
    return type = ordinary;
  }

  bool has_string() const {
    return type == word || type == quoted;
  }

  bool is(char c) const {
    return type == ordinary && ch == c;
  }

  kind type = eof;
  std::string sval;
  char ch = 0;

private:
  static bool is_alpha(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
           || c == '$' || c >= 0xA0;
  }

  static bool is_digit_start(unsigned char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-';
  }

  void skip_blanks_and_comments() {
    while (pos_ < text_.size()) {
      auto c = static_cast<unsigned char>(text_[pos_]);
      if (c <= ' ') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size()
                 && text_[pos_ + 1] == '*') {
        auto end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else if (c == '/') {
        // "//" and a lone '/' (StreamTokenizer's comment character) both
        // run to the end of the line.
        while (pos_ < text_.size() && text_[pos_] != '\n'
               && text_[pos_] != '\r')
          ++pos_;
      } else {
        return;
      }
    }
  }

  void read_quoted(char quote) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == quote) {
        ++pos_;
        return;
      }
      if (c == '\n' || c == '\r')
        return;
      ++pos_;
      if (c != '\\' || pos_ >= text_.size()) {
        sval += c;
        continue;
      }
      c = text_[pos_++];
      switch (c) {
        case 'a':
          sval += '\a';
          break;
        case 'b':
          sval += '\b';
          break;
        case 'f':
          sval += '\f';
          break;
        case 'n':
          sval += '\n';
          break;
        case 'r':
          sval += '\r';
          break;
        case 't':
          sval += '\t';
          break;
        case 'v':
          sval += '\v';
          break;
        default:
          if (c >= '0' && c <= '7') {
            int v = c - '0';
            int max_digits = c <= '3' ? 2 : 1;
            for (int i = 0; i < max_digits && pos_ < text_.size()
                            && text_[pos_] >= '0' && text_[pos_] <= '7';
                 ++i)
              v = v * 8 + (text_[pos_++] - '0');
            sval += static_cast<char>(v);
          } else {
            sval += c;
          }
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string describe_key(const jaas_tokenizer& t) {
  return t.has_string() ? t.sval : "null";
}

} // namespace

// PlainSaslServer.extractTokens and evaluateResponse's checks.
std::optional<plain_message> parse_plain(std::string_view bytes,
                                         std::string& error) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    auto nul = bytes.find('\0', start);
    if (nul == std::string_view::npos) {
      tokens.push_back(bytes.substr(start));
      break;
    }
    tokens.push_back(bytes.substr(start, nul - start));
    start = nul + 1;
  }
  if (tokens.size() != 3) {
    error = "Invalid SASL/PLAIN response: expected 3 tokens, got "
            + std::to_string(tokens.size());
    return std::nullopt;
  }
  plain_message m{std::string{tokens[0]}, std::string{tokens[1]},
                  std::string{tokens[2]}};
  if (m.username.empty()) {
    error = "Authentication failed: username not specified";
    return std::nullopt;
  }
  if (m.password.empty()) {
    error = "Authentication failed: password not specified";
    return std::nullopt;
  }
  return m;
}

// JaasConfig's constructor and parseAppConfigurationEntry.
std::optional<std::vector<jaas_entry>> parse_jaas(std::string_view text,
                                                  std::string& error) {
  jaas_tokenizer t{text};
  std::vector<jaas_entry> entries;
  auto fail = [&](std::string message) {
    error = std::move(message);
    return std::nullopt;
  };
  while (t.next() != jaas_tokenizer::eof) {
    jaas_entry entry;
    if (!t.has_string())
      return fail("Login module not specified in JAAS config");
    entry.login_module = t.sval;
    if (t.next() == jaas_tokenizer::eof)
      return fail("Login module control flag not specified in JAAS config");
    if (!t.has_string())
      return fail("Login module control flag is not available in the JAAS "
                  "config");
    std::string flag;
    for (char c : t.sval)
      flag += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (flag != "required" && flag != "requisite" && flag != "sufficient"
        && flag != "optional")
      return fail("Invalid login module control flag '" + t.sval
                  + "' in JAAS config");
    entry.control_flag = flag;
    while (t.next() != jaas_tokenizer::eof && !t.is(';')) {
      auto key = describe_key(t);
      bool keyed = t.has_string();
      if (t.next() == jaas_tokenizer::eof || !t.is('=')
          || t.next() == jaas_tokenizer::eof || !t.has_string())
        return fail("Value not specified for key '" + key + "' in JAAS config");
      if (!keyed)
        return fail("Value not specified for key '" + key + "' in JAAS config");
      entry.options[key] = t.sval;
    }
    if (!t.is(';'))
      return fail("JAAS config entry not terminated by semi-colon");
    // AppConfigurationEntry refuses an empty module name ('""' quoted).
    if (entry.login_module.empty())
      return fail("Login module not specified in JAAS config");
    entries.push_back(std::move(entry));
  }
  if (entries.empty())
    return fail("Login module not specified in JAAS config");
  return entries;
}

// PlainServerCallbackHandler: user_<name> options of the PlainLoginModule.
std::map<std::string, std::string>
plain_users(const std::vector<jaas_entry>& entries) {
  std::map<std::string, std::string> users;
  constexpr std::string_view prefix = "user_";
  for (const auto& e : entries) {
    if (e.login_module != plain_login_module)
      continue;
    for (const auto& [key, value] : e.options)
      if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0)
        users.emplace(key.substr(prefix.size()), value);
  }
  return users;
}

bool is_served_mechanism(std::string_view name) {
  return name == mechanism_plain || name == mechanism_scram_sha_256
         || name == mechanism_scram_sha_512;
}

// -- sasl_authenticator ------------------------------------------------------------

sasl_authenticator::sasl_authenticator(
  std::vector<std::string> enabled_mechanisms,
  std::map<std::string, std::string> plain_users,
  std::shared_ptr<const security_snapshot> snapshot)
  : enabled_(std::move(enabled_mechanisms)),
    plain_users_(std::move(plain_users)),
    snapshot_(std::move(snapshot)) {
  if (!snapshot_)
    snapshot_ = std::make_shared<const security_snapshot>();
}

bool sasl_authenticator::select(std::string_view mechanism) {
  if (!is_served_mechanism(mechanism)
      || std::find(enabled_.begin(), enabled_.end(), mechanism)
           == enabled_.end())
    return false;
  mechanism_ = std::string{mechanism};
  complete_ = false;
  user_.clear();
  scram_.reset();
  if (auto m = parse_scram_mechanism(mechanism)) {
    auto snapshot = snapshot_;
    auto mech = *m;
    scram_.emplace(mech, [snapshot, mech](const std::string& user) {
      return snapshot->find_scram(user, mech);
    });
  }
  return true;
}

sasl_authenticator::step_result
sasl_authenticator::step(std::string_view token) {
  step_result result;
  if (mechanism_.empty()) {
    result.error = "Unexpected SASL token before SaslHandshake";
    return result;
  }
  if (complete_) {
    result.error = "Unexpected SASL token: authentication with "
                   + mechanism_ + " already complete";
    return result;
  }
  if (scram_) {
    auto r = scram_->step(token);
    result.response = std::move(r.response);
    result.error = std::move(r.error);
    if (r.complete) {
      complete_ = true;
      user_ = scram_->user();
      result.complete = true;
    }
    return result;
  }
  // PlainSaslServer.evaluateResponse.
  auto msg = parse_plain(token, result.error);
  if (!msg)
    return result;
  auto i = plain_users_.find(msg->username);
  if (i == plain_users_.end() || i->second.size() != msg->password.size()
      || CRYPTO_memcmp(i->second.data(), msg->password.data(),
                       msg->password.size())
           != 0) {
    result.error = "Authentication failed: Invalid username or password";
    return result;
  }
  if (!msg->authzid.empty() && msg->authzid != msg->username) {
    result.error = "Authentication failed: Client requested an authorization "
                   "id that is different from username";
    return result;
  }
  user_ = msg->username;
  complete_ = true;
  result.complete = true;
  return result;
}

std::string sasl_authenticator::principal() const {
  return complete_ ? "User:" + user_ : std::string{"User:ANONYMOUS"};
}

} // namespace troupe::security
