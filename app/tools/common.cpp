#include "app/tools/tools.hpp"

namespace troupe::tools {

std::vector<option_spec> common_options() {
  return {
    {"bootstrap-server", arg_kind::required,
     "REQUIRED: The server(s) to connect to, host:port[,host:port]"},
    {"command-config", arg_kind::required,
     "Property file of client configs (security.protocol, sasl.mechanism, "
     "sasl.jaas.config, ssl.truststore.location, request.timeout.ms, ...)"},
    {"timeout", arg_kind::required,
     "The timeout in ms of each request, connect included"},
    {"output", arg_kind::required,
     "table (the default, Kafka's layout) or json"},
    {"help", arg_kind::none, "Print usage information."},
  };
}

kafka_client::client_config client_config_from(const parsed_args& a,
                                               int32_t default_timeout_ms) {
  kafka_client::client_config cfg;
  cfg.request_timeout_ms = default_timeout_ms;
  std::string error;
  if (a.has("command-config")
      && !kafka_client::load_client_properties(a.value("command-config"), cfg,
                                               error))
    throw usage_error(error);
  check_required(a, "bootstrap-server");
  if (!kafka_client::parse_bootstrap(a.value("bootstrap-server"),
                                     cfg.bootstrap, error))
    throw usage_error(error);
  if (auto t = a.integer("timeout", 1, INT32_MAX))
    cfg.request_timeout_ms = static_cast<int32_t>(*t);
  return cfg;
}

bool json_output(const parsed_args& a) {
  if (!a.has("output"))
    return false;
  auto v = a.value("output");
  if (v == "json")
    return true;
  if (v == "table")
    return false;
  throw usage_error("--output must be table or json, not '" + v + "'");
}

} // namespace troupe::tools
