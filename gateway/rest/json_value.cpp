#include "gateway/rest/json_value.hpp"

#include "gateway/rest/json.hpp"

namespace troupe::rest {

namespace {

constexpr int max_depth = 64;

class reader {
public:
  explicit reader(std::string_view text) : s_(text) {
    // nop
  }

  bool document(json_value& out) {
    skip();
    if (!value(out, 0))
      return false;
    skip();
    return at_end() || fail("unexpected text after the JSON value");
  }

  const std::string& error() const {
    return error_;
  }

private:
  bool at_end() const {
    return i_ >= s_.size();
  }

  char peek() const {
    return at_end() ? '\0' : s_[i_];
  }

  bool fail(std::string what) {
    if (error_.empty())
      error_ = what + " at offset " + std::to_string(i_);
    return false;
  }

  void skip() {
    while (
      !at_end()
      && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word)
      return fail("unexpected token");
    i_ += word.size();
    return true;
  }

  bool value(json_value& out, int depth) {
    if (depth > max_depth)
      return fail("nested too deeply");
    switch (peek()) {
      case '{':
        return object(out, depth);
      case '[':
        return array(out, depth);
      case '"':
        out.type = json_value::kind::string;
        return string(out.text);
      case 't':
        out.type = json_value::kind::boolean;
        out.boolean = true;
        return literal("true");
      case 'f':
        out.type = json_value::kind::boolean;
        return literal("false");
      case 'n':
        out.type = json_value::kind::null;
        return literal("null");
      default:
        return number(out);
    }
  }

  bool digits() {
    auto start = i_;
    while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9')
      ++i_;
    return i_ > start;
  }

  bool number(json_value& out) {
    auto start = i_;
    if (peek() == '-')
      ++i_;
    if (peek() == '0')
      ++i_;
    else if (!digits())
      return fail("unexpected token");
    if (peek() == '.') {
      ++i_;
      if (!digits())
        return fail("a fraction needs digits");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-')
        ++i_;
      if (!digits())
        return fail("an exponent needs digits");
    }
    out.type = json_value::kind::number;
    out.text = std::string{s_.substr(start, i_ - start)};
    return true;
  }

  static void utf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(uint32_t& out) {
    if (i_ + 4 > s_.size())
      return fail("a \\u escape needs four hex digits");
    out = 0;
    for (int k = 0; k < 4; ++k) {
      auto c = s_[i_++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return fail("a \\u escape needs four hex digits");
    }
    return true;
  }

  bool string(std::string& out) {
    ++i_; // '"'
    out.clear();
    while (true) {
      if (at_end())
        return fail("unterminated string");
      auto c = s_[i_++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("a control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end())
        return fail("unterminated string");
      switch (s_[i_++]) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp))
            return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) { // a surrogate pair
            uint32_t low = 0;
            if (s_.substr(i_, 2) != "\\u")
              return fail("a lone surrogate");
            i_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF)
              return fail("a lone surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("a lone surrogate");
          }
          utf8(cp, out);
          break;
        }
        default:
          return fail("an unknown escape");
      }
    }
  }

  bool array(json_value& out, int depth) {
    ++i_; // '['
    out.type = json_value::kind::array;
    skip();
    if (peek() == ']') {
      ++i_;
      return true;
    }
    while (true) {
      skip();
      out.items.emplace_back();
      if (!value(out.items.back(), depth + 1))
        return false;
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == ']') {
        ++i_;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool object(json_value& out, int depth) {
    ++i_; // '{'
    out.type = json_value::kind::object;
    skip();
    if (peek() == '}') {
      ++i_;
      return true;
    }
    while (true) {
      skip();
      if (peek() != '"')
        return fail("expected a member name");
      out.members.emplace_back();
      auto& [name, v] = out.members.back();
      if (!string(name))
        return false;
      skip();
      if (peek() != ':')
        return fail("expected ':'");
      ++i_;
      skip();
      if (!value(v, depth + 1))
        return false;
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

void write(const json_value& v, std::string& out) {
  switch (v.type) {
    case json_value::kind::null:
      out += "null";
      break;
    case json_value::kind::boolean:
      out += v.boolean ? "true" : "false";
      break;
    case json_value::kind::number:
      out += v.text;
      break;
    case json_value::kind::string:
      out += json_quote(v.text);
      break;
    case json_value::kind::array:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0)
          out += ',';
        write(v.items[i], out);
      }
      out += ']';
      break;
    case json_value::kind::object:
      out += '{';
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0)
          out += ',';
        out += json_quote(v.members[i].first);
        out += ':';
        write(v.members[i].second, out);
      }
      out += '}';
      break;
  }
}

} // namespace

const json_value* json_value::find(std::string_view name) const {
  for (auto& [key, v] : members)
    if (key == name)
      return &v;
  return nullptr;
}

std::string json_value::compact() const {
  std::string out;
  write(*this, out);
  return out;
}

bool parse_json(std::string_view text, json_value& out, std::string& error) {
  out = json_value{};
  reader r{text};
  if (r.document(out))
    return true;
  error = r.error();
  return false;
}

} // namespace troupe::rest
