#include "client/kafka/client_config.hpp"

#include <fstream>
#include <sstream>

#include "domain/security/sasl.hpp"

namespace troupe::kafka_client {

namespace {

bool parse_int(const std::string& text, int64_t lo, int64_t hi, int64_t& out) {
  try {
    size_t used = 0;
    auto v = std::stoll(text, &used);
    if (used != text.size() || v < lo || v > hi)
      return false;
    out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace

bool split_host_port(const std::string& entry, std::string& host, int& port) {
  auto colon = entry.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
    return false;
  host = entry.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  int64_t p = 0;
  if (!parse_int(entry.substr(colon + 1), 1, 65535, p))
    return false;
  port = static_cast<int>(p);
  return true;
}

bool parse_bootstrap(const std::string& text, std::vector<std::string>& out,
                     std::string& error) {
  out.clear();
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ',')) {
    auto b = item.find_first_not_of(" \t");
    auto e = item.find_last_not_of(" \t");
    if (b == std::string::npos)
      continue;
    item = item.substr(b, e - b + 1);
    std::string host;
    int port = 0;
    if (!split_host_port(item, host, port)) {
      // Kafka's ClientUtils.parseAndValidateAddresses.
      error = "Invalid url in bootstrap.servers: " + item;
      return false;
    }
    out.push_back(item);
  }
  if (out.empty()) {
    error = "No resolvable bootstrap urls given in bootstrap.servers";
    return false;
  }
  return true;
}

bool apply_client_properties(const properties& props, client_config& cfg,
                             std::string& error) {
  for (auto& [key, value] : props) {
    if (key == "bootstrap.servers") {
      if (!parse_bootstrap(value, cfg.bootstrap, error))
        return false;
    } else if (key == "client.id") {
      cfg.client_id = value;
    } else if (key == "security.protocol") {
      if (value != "PLAINTEXT" && value != "SSL" && value != "SASL_PLAINTEXT"
          && value != "SASL_SSL") {
        error = "Invalid value " + value
                + " for configuration security.protocol: String must be one "
                  "of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL";
        return false;
      }
      cfg.security_protocol = value;
    } else if (key == "sasl.mechanism") {
      cfg.sasl_mechanism = value;
    } else if (key == "sasl.jaas.config") {
      std::string why;
      auto entries = security::parse_jaas(value, why);
      if (!entries || entries->empty()) {
        error = "Invalid sasl.jaas.config: " + why;
        return false;
      }
      auto& options = entries->front().options;
      if (auto i = options.find("username"); i != options.end())
        cfg.sasl_username = i->second;
      if (auto i = options.find("password"); i != options.end())
        cfg.sasl_password = i->second;
    } else if (key == "ssl.truststore.location") {
      cfg.truststore_location = value;
    } else if (key == "ssl.truststore.type" || key == "ssl.keystore.type") {
      if (value != "PEM") {
        error = key + "=" + value
                + " is not supported: troupe reads PEM files only";
        return false;
      }
    } else if (key == "ssl.keystore.location") {
      cfg.keystore_location = value;
    } else if (key == "ssl.key.password" || key == "ssl.keystore.password") {
      if (key == "ssl.key.password" || cfg.key_password.empty())
        cfg.key_password = value;
    } else if (key == "ssl.endpoint.identification.algorithm") {
      cfg.verify_hostname = !value.empty();
    } else if (key == "request.timeout.ms") {
      int64_t v = 0;
      if (!parse_int(value, 0, INT32_MAX, v)) {
        error = "Invalid value " + value
                + " for configuration request.timeout.ms: Not a number of "
                  "type INT";
        return false;
      }
      cfg.request_timeout_ms = static_cast<int32_t>(v);
    }
    // Other client properties (retries, linger.ms, ...) mean nothing to
    // the admin tools; Kafka's AdminClient logs and ignores unknown ones.
  }
  if (cfg.uses_sasl()) {
    if (cfg.sasl_mechanism != security::mechanism_plain
        && cfg.sasl_mechanism != security::mechanism_scram_sha_256
        && cfg.sasl_mechanism != security::mechanism_scram_sha_512) {
      error = "sasl.mechanism " + cfg.sasl_mechanism
              + " is not supported: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512";
      return false;
    }
    if (cfg.sasl_username.empty()) {
      error = "security.protocol " + cfg.security_protocol
              + " needs sasl.jaas.config with a username and password";
      return false;
    }
  }
  return true;
}

bool load_client_properties(const std::string& path, client_config& cfg,
                            std::string& error) {
  std::ifstream in{path};
  if (!in) {
    error = "cannot read --command-config file " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> errors;
  auto props = parse_properties(text.str(), errors);
  if (!errors.empty()) {
    error = path + ": " + errors.front();
    return false;
  }
  return apply_client_properties(props, cfg, error);
}

} // namespace troupe::kafka_client
