#pragma once

// troupe's admin tools, `troupe groups|topics|configs`: Kafka 3.9's
// kafka-consumer-groups.sh, kafka-topics.sh and kafka-configs.sh over
// troupe's Kafka wire client (client/kafka/), no actor system. Each takes
// its arguments after the subcommand's name, writes its tables to `out`,
// and turns bad input or an unreachable cluster into one line on `err`
// and status 1.

#include <ostream>
#include <string>
#include <vector>

#include "app/tools/tool_args.hpp"
#include "client/kafka/admin_client.hpp"

namespace troupe::tools {

int run_groups(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);
int run_topics(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);
int run_configs(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);
int run_reassign(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

// -- shared by the three ------------------------------------------------------

/// The options every tool takes: --bootstrap-server, --command-config,
/// --timeout, --output, --help.
std::vector<option_spec> common_options();

/// The client configuration the common options say; throws usage_error.
kafka_client::client_config client_config_from(const parsed_args& a,
                                               int32_t default_timeout_ms);

/// True for --output json; usage_error for a value other than json/table.
bool json_output(const parsed_args& a);

/// Runs `body`, turning usage_error and client_error into "troupe NAME:
/// <why>" on `err` and status 1.
template <class Body>
int guarded(const std::string& name, std::ostream& err, Body body) {
  try {
    return body();
  } catch (const usage_error& e) {
    err << "troupe " << name << ": " << e.what() << "\n";
  } catch (const kafka_client::client_error& e) {
    err << "troupe " << name << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    err << "troupe " << name << ": " << e.what() << "\n";
  }
  return 1;
}

} // namespace troupe::tools
