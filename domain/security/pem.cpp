#include "domain/security/pem.hpp"

namespace troupe::security {

std::string normalize_pem(std::string text) {
  for (size_t i = 0; (i = text.find("\\n", i)) != std::string::npos;)
    text.replace(i, 2, "\n");
  if (text.find('\n') != std::string::npos)
    return text;
  std::string out;
  size_t at = 0;
  for (;;) {
    auto begin = text.find("-----BEGIN ", at);
    if (begin == std::string::npos)
      break;
    auto begin_end = text.find("-----", begin + 11);
    if (begin_end == std::string::npos)
      break;
    auto end = text.find("-----END ", begin_end + 5);
    if (end == std::string::npos)
      break;
    auto end_end = text.find("-----", end + 9);
    if (end_end == std::string::npos)
      break;
    out += text.substr(begin, begin_end + 5 - begin) + "\n";
    // Between the markers: PEM headers ("Proc-Type: 4,ENCRYPTED",
    // "DEK-Info: ...") keep their line, the base64 is re-folded.
    std::string body;
    auto inner = text.substr(begin_end + 5, end - begin_end - 5);
    size_t p = 0;
    while (p < inner.size()) {
      auto q = inner.find(' ', p);
      auto word = inner.substr(p, q == std::string::npos ? q : q - p);
      p = q == std::string::npos ? inner.size() : q + 1;
      if (word.empty())
        continue;
      if (word.back() == ':') {
        auto r = inner.find(' ', p);
        out += word + " "
               + inner.substr(p, r == std::string::npos ? r : r - p) + "\n";
        p = r == std::string::npos ? inner.size() : r + 1;
        if (word == "DEK-Info:")
          out += "\n";
        continue;
      }
      body += word;
    }
    for (size_t i = 0; i < body.size(); i += 64)
      out += body.substr(i, 64) + "\n";
    out += text.substr(end, end_end + 5 - end) + "\n";
    at = end_end + 5;
  }
  return out.empty() ? text : out;
}

} // namespace troupe::security
