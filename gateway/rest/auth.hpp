#pragma once

// The admin guard of the routes that change the cluster (stop/start a
// broker, create a topic): with troupe.http.admin.token set they need
// `Authorization: Bearer <token>` (else 401); without a token they answer
// 403 unless troupe.http.admin.enable=true. Plain C++.

#include <optional>
#include <string_view>

#include "gateway/http/handler.hpp"

namespace troupe::rest {

/// nullopt: allowed; else the 401 or 403 to answer.
std::optional<http_response> check_admin(std::string_view token, bool enable,
                                         std::string_view authorization);

} // namespace troupe::rest
