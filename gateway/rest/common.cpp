#include "gateway/rest/errors.hpp"
#include "gateway/rest/json.hpp"
#include "gateway/rest/media.hpp"
#include "gateway/rest/routes.hpp"

#include <charconv>

namespace troupe::rest {

bool read_body(const call& c, google::protobuf::Message& msg) {
  auto& req = c.request();
  if (!is_json_body(req.content_type)) {
    c.reply(v2::unsupported_media_type("expected application/vnd.kafka.v2+"
                                       "json, got "
                                       + req.content_type));
    return false;
  }
  std::string err;
  if (!from_json(req.body.empty() ? std::string_view{"{}"} : req.body, msg,
                 err)) {
    c.reply(v2::bad_request(err));
    return false;
  }
  return true;
}

std::optional<std::string> answer_type(const call& c, bool embedded_ok) {
  auto t = negotiate(c.request().accept, embedded_ok);
  if (!t)
    c.reply(v2::not_acceptable());
  return t;
}

http_response json_response(std::string body, std::string content_type,
                            unsigned status) {
  http_response res;
  res.status = status;
  res.content_type = std::move(content_type);
  res.body = std::move(body);
  return res;
}

http_response no_content() {
  http_response res;
  res.status = 204;
  return res;
}

void with_metadata(const call& c, std::vector<std::string> topics,
                   bool auto_create,
                   std::function<void(caf::expected<metadata_response>)> k) {
  auto view = c.svc().view;
  c.ask<metadata_response>(
    c.cluster().controller(), metadata_request{std::move(topics), auto_create},
    [view, k = std::move(k)](caf::expected<metadata_response> md) {
      if (md && view)
        view->learn(md->brokers);
      k(std::move(md));
    });
}

void with_brokers(const call& c, std::function<void()> k) {
  if (!c.cluster().clustered())
    return k();
  with_metadata(c, {}, false,
                [k = std::move(k)](caf::expected<metadata_response>) { k(); });
}

bool parse_int(const std::string& text, int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size() && !text.empty();
}

} // namespace troupe::rest
