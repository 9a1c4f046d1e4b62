#include "domain/topic_name.hpp"

namespace troupe {

error_code validate_topic_name(std::string_view name) noexcept {
  constexpr size_t max_length = 249;
  if (name.empty() || name.size() > max_length || name == "." || name == "..")
    return error_code::invalid_topic_exception;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok)
      return error_code::invalid_topic_exception;
  }
  return error_code::none;
}

error_code validate_group_id(std::string_view group_id,
                             bool allow_empty) noexcept {
  constexpr size_t max_length = 32767;
  if ((group_id.empty() && !allow_empty) || group_id.size() > max_length)
    return error_code::invalid_group_id;
  return error_code::none;
}

} // namespace troupe
