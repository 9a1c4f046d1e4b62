#include "gateway/rest/auth.hpp"

#include "gateway/rest/errors.hpp"

namespace troupe::rest {

namespace {

/// Compares in time independent of where the strings differ.
bool same(std::string_view x, std::string_view y) {
  unsigned char diff = x.size() == y.size() ? 0 : 1;
  for (size_t i = 0; i < x.size(); ++i)
    diff |= static_cast<unsigned char>(x[i] ^ (i < y.size() ? y[i] : 0));
  return diff == 0;
}

} // namespace

std::optional<http_response> check_admin(std::string_view token, bool enable,
                                         std::string_view authorization) {
  if (token.empty()) {
    if (enable)
      return std::nullopt;
    return error_body(403, 403, "FORBIDDEN",
                      "admin routes are off: set troupe.http.admin.token "
                      "(or troupe.http.admin.enable=true for local "
                      "experiments)");
  }
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() > scheme.size()
      && authorization.substr(0, scheme.size()) == scheme
      && same(authorization.substr(scheme.size()), token))
    return std::nullopt;
  auto res = error_body(401, 401, "UNAUTHORIZED",
                        "this route needs Authorization: Bearer <token> "
                        "(troupe.http.admin.token)");
  res.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"troupe\"");
  return res;
}

} // namespace troupe::rest
