// A process that tries to reach a node's controller on troupe.cluster.port
// as another node would (docs/ARCHITECTURE.md §7): CAF's middleman, plain
// BASP, or over CAF's OpenSSL module with the given certificate, key and
// CA. For tests/cluster/cluster_security_test.py.
//
//   cluster_link_probe HOST PORT [CERT KEY CAFILE | anonymous]
//
// "anonymous": CAF's OpenSSL module with no openssl.* option, which makes
// CAF offer only an anonymous cipher (AECDH-AES256-SHA) and verify nothing.
// Exit 0: it obtained the controller's handle and the controller answered
// a node_info_request (the broker id is printed); 3: no handle; 4: a
// handle but no answer; 2: usage.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include "actors/node.hpp"
#include "cluster/messages.hpp"
#include "messages/interfaces.hpp"

int main(int argc, char** argv) {
  bool anonymous = argc == 4 && std::string{argv[3]} == "anonymous";
  if (argc != 3 && argc != 6 && !anonymous) {
    std::fprintf(stderr, "usage: %s HOST PORT [CERT KEY CAFILE | anonymous]\n",
                 argv[0]);
    return 2;
  }
  std::string host = argv[1];
  auto port = static_cast<uint16_t>(std::atoi(argv[2]));
  bool tls = argc == 6 || anonymous;
  caf::actor_system_config cfg;
  troupe::configure_actor_system(cfg, troupe::process_config{},
                                 troupe::zookeeper_mode{});
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  if (argc == 6) {
    cfg.set("openssl.certificate", std::string{argv[3]});
    cfg.set("openssl.key", std::string{argv[4]});
    cfg.set("openssl.cafile", std::string{argv[5]});
  }
  if (tls)
    cfg.load<caf::openssl::manager>();
  caf::actor_system sys{cfg};
  auto mm = tls ? sys.openssl_manager().actor_handle()
                : sys.middleman().actor_handle();
  caf::scoped_actor self{sys};
  troupe::cluster_controller_actor controller;
  std::string why = "no answer";
  self->request(mm, std::chrono::seconds(5), caf::connect_atom_v, host, port)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr,
          const std::set<std::string>&) {
        controller = caf::actor_cast<troupe::cluster_controller_actor>(ptr);
        if (!controller)
          why = "a handle of another type";
      },
      [&](caf::error& err) { why = caf::to_string(err); });
  if (!controller) {
    std::printf("probe: no controller handle from %s:%u (%s, %s)\n",
                host.c_str(), port, tls ? "TLS" : "plain BASP", why.c_str());
    return 3;
  }
  int status = 4;
  self
    ->request(controller, std::chrono::seconds(5),
              troupe::node_info_request{})
    .receive(
      [&](troupe::node_info& info) {
        std::printf("probe: controller of broker %d answered\n",
                    info.broker_id);
        status = 0;
      },
      [&](caf::error& err) {
        std::printf("probe: the controller did not answer: %s\n",
                    caf::to_string(err).c_str());
      });
  std::fflush(stdout);
  return status;
}
