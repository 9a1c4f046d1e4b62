// libFuzzer target: the SCRAM server (ScramSaslServer's two steps) with
// arbitrary client messages, and Kafka's credential text
// (domain/security/scram.hpp). The input's first byte picks the mechanism
// and the path: arbitrary client-first and client-final messages (split
// at the first '\n'), or a genuine client-first followed by an arbitrary
// client-final, so that the proof check is reached.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "domain/security/scram.hpp"

using namespace troupe::security;

namespace {

const scram_credential& credential(scram_mechanism m) {
  static const auto sha256 = make_scram_credential(
    scram_mechanism::sha256, "pencil", {1, 2, 3, 4, 5, 6, 7, 8}, 4096);
  static const auto sha512 = make_scram_credential(
    scram_mechanism::sha512, "pencil", {1, 2, 3, 4, 5, 6, 7, 8}, 4096);
  return m == scram_mechanism::sha256 ? sha256 : sha512;
}

void check(const scram_server::step_result& r) {
  // Exactly one of: an answer, a failure with its message.
  if (r.response.empty() == r.error.empty())
    __builtin_trap();
}

// One exchange: client-first (arbitrary or genuine), then client-final.
void exchange(scram_mechanism m, bool genuine_first, std::string_view text) {
  auto lookup = [m](const std::string& user) -> std::optional<scram_credential> {
    if (user == "user")
      return credential(m);
    return std::nullopt;
  };
  scram_server server{m, lookup, "fixed-server-nonce"};
  std::string_view final_message = text;
  if (genuine_first) {
    if (server.step("n,,n=user,r=client-nonce").response.empty())
      __builtin_trap();
  } else {
    auto nl = text.find('\n');
    auto first = server.step(text.substr(0, nl));
    check(first);
    if (first.response.empty())
      return; // failed: the exchange is over
    final_message = nl == std::string_view::npos ? std::string_view{}
                                                 : text.substr(nl + 1);
  }
  auto final = server.step(final_message);
  check(final);
  // Completing needs the password's proof, which the fuzzer cannot
  // compute: a success is a forged proof accepted.
  if (final.complete)
    __builtin_trap();
  // Over either way: a further token is refused.
  if (server.step(final_message).error.empty())
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  auto m = (data[0] & 1) ? scram_mechanism::sha512 : scram_mechanism::sha256;
  std::string_view text{reinterpret_cast<const char*>(data) + 1, size - 1};
  exchange(m, (data[0] & 2) != 0, text);
  // Kafka's credential text: what parses formats to text that parses back
  // to the same credential.
  if (auto c = parse_scram_credential(text)) {
    auto again = parse_scram_credential(format_scram_credential(*c));
    if (!again || !(*again == *c))
      __builtin_trap();
  }
  return 0;
}
