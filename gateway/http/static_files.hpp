#pragma once

#include <string>

#include "gateway/http/handler.hpp"

namespace troupe {

/// The dashboard's files: "/" and "/ui/<name>" under `root`, no "..".
/// Returns false when `path` is not a dashboard path (the API answers it);
/// a dashboard path without a file is a 404 in `out`.
bool static_file(const std::string& root, const std::string& path,
                 http_response& out);

} // namespace troupe
