// libFuzzer target: SASL/PLAIN's message and the JAAS configuration PLAIN
// users come from, on arbitrary bytes, the way a SaslAuthenticate token and
// a listener.name.<l>.plain.sasl.jaas.config value reach them
// (domain/security/sasl.hpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "domain/security/sasl.hpp"

using namespace troupe::security;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text{reinterpret_cast<const char*>(data), size};
  std::string error;
  auto plain = parse_plain(text, error);
  if (!plain && error.empty())
    __builtin_trap(); // a refusal always has a reason
  // Accepted: exactly authzid NUL username NUL password, both non-empty.
  if (plain
      && (plain->username.empty() || plain->password.empty()
          || plain->authzid + '\0' + plain->username + '\0' + plain->password
               != text))
    __builtin_trap();

  // The authenticator over the same token: complete only for the one user.
  sasl_authenticator auth{{"PLAIN"}, {{"alice", "alice-secret"}}, nullptr};
  if (!auth.select("PLAIN"))
    __builtin_trap();
  auto step = auth.step(text);
  if (step.complete == !step.error.empty())
    __builtin_trap();
  if (step.complete
      && (auth.user() != "alice" || plain->password != "alice-secret"))
    __builtin_trap();

  error.clear();
  auto entries = parse_jaas(text, error);
  if (!entries && error.empty())
    __builtin_trap();
  if (entries) {
    if (entries->empty())
      __builtin_trap();
    for (const auto& e : *entries)
      if (e.login_module.empty()
          || (e.control_flag != "required" && e.control_flag != "requisite"
              && e.control_flag != "sufficient"
              && e.control_flag != "optional"))
        __builtin_trap();
    for (const auto& [user, password] : plain_users(*entries))
      if (user.empty())
        __builtin_trap();
  }
  return 0;
}
