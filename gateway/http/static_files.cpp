#include "gateway/http/static_files.hpp"

#include <fstream>
#include <sstream>

namespace troupe {

namespace {

std::string mime_type(const std::string& path) {
  auto ends = [&](const char* ext) {
    auto n = std::char_traits<char>::length(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends(".html"))
    return "text/html; charset=utf-8";
  if (ends(".js"))
    return "application/javascript";
  if (ends(".css"))
    return "text/css";
  if (ends(".svg"))
    return "image/svg+xml";
  if (ends(".png"))
    return "image/png";
  return "application/octet-stream";
}

} // namespace

bool static_file(const std::string& root, const std::string& path,
                 http_response& out) {
  std::string rel;
  if (path == "/" || path == "/index.html")
    rel = "index.html";
  else if (path.rfind("/ui/", 0) == 0)
    rel = path.substr(4);
  else
    return false;
  if (rel.empty() || rel.find("..") != std::string::npos)
    return false;
  std::ifstream in{root + "/" + rel, std::ios::binary};
  if (!in) {
    out.status = 404;
    out.body =
      R"({"error_code":404,"error_name":"NOT_FOUND","message":"no such file"})";
    return true;
  }
  std::ostringstream text;
  text << in.rdbuf();
  out.status = 200;
  out.content_type = mime_type(rel);
  out.body = text.str();
  return true;
}

} // namespace troupe
