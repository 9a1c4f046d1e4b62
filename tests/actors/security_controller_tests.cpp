// The embedded controller's ACLs and SCRAM credentials (docs/ARCHITECTURE.md
// §9): CreateAcls, DeleteAcls and AlterUserScramCredentials with Kafka's
// answers, the security store's snapshot replaced after each change, and
// both kept in the metadata file across a restart.

#include <catch2/catch.hpp>

#include "actors/controller.hpp"
#include "tests/actors/sim_fixture.hpp"
#include "tests/temp_dir.hpp"

using namespace troupe;
using security::acl_operation;
using security::pattern_type;
using security::permission_type;
using security::resource_type;
using security::scram_mechanism;

namespace {

struct security_fixture : test::sim_fixture {
  test::temp_dir dir;
  cluster_config config;
  std::shared_ptr<security::security_store> store;
  embedded_controller_actor ctl;

  security_fixture() {
    config.log_dirs = dir.path;
    start();
  }

  void start() {
    security::authorizer_config ac;
    ac.enabled = true;
    store = std::make_shared<security::security_store>(ac);
    controller_security secured;
    secured.store = store;
    auto md = load_cluster_metadata(config, &secured.stored);
    REQUIRE(std::holds_alternative<cluster_metadata>(md));
    ctl = sys.spawn(controller, config,
                    std::move(std::get<cluster_metadata>(md)),
                    std::move(secured));
    to_stop.push_back(caf::actor_cast<caf::actor>(ctl));
    run();
  }

  void restart() {
    caf::anon_send_exit(ctl, caf::exit_reason::user_shutdown);
    run();
    to_stop.clear();
    start();
  }

  const std::vector<security::acl_binding>& bindings() const {
    return store->snapshot()->acls().bindings();
  }
};

security::acl_binding binding(resource_type t, std::string name,
                              pattern_type p, std::string principal,
                              acl_operation op, permission_type perm) {
  return {{t, std::move(name), p}, {std::move(principal), "*", op, perm}};
}

security::scram_credential credential(int32_t iterations) {
  return security::make_scram_credential(scram_mechanism::sha512, "secret",
                                         {1, 2, 3, 4}, iterations);
}

} // namespace

TEST_CASE("CreateAcls stores valid bindings, refuses invalid ones with "
          "INVALID_REQUEST and replaces the store's snapshot") {
  security_fixture fx;
  auto read = binding(resource_type::topic, "orders", pattern_type::literal,
                      "User:alice", acl_operation::read,
                      permission_type::allow);
  auto bad_cluster = binding(resource_type::cluster, "other",
                             pattern_type::literal, "User:alice",
                             acl_operation::alter, permission_type::allow);
  auto match = binding(resource_type::topic, "x", pattern_type::match,
                       "User:alice", acl_operation::read,
                       permission_type::allow);
  auto res = fx.ask<create_acls_response>(
    fx.ctl, create_acls_request{{read, bad_cluster, match, read}});
  REQUIRE(res.ready());
  auto& r = res.get().results;
  REQUIRE(r.size() == 4);
  CHECK(r[0].error == error_code::none);
  CHECK(r[1].error == error_code::invalid_request);
  CHECK(r[1].message
        == "The only valid name for the CLUSTER resource is kafka-cluster");
  CHECK(r[2].error == error_code::invalid_request);
  CHECK(r[3].error == error_code::none); // again: no duplicate stored
  CHECK(fx.bindings() == std::vector<security::acl_binding>{read});
  CHECK(fx.store->snapshot()->authorize({"User:alice", "1.2.3.4"},
                                        acl_operation::read,
                                        resource_type::topic, "orders"));
}

TEST_CASE("DeleteAcls removes what each filter matches and answers it per "
          "filter") {
  security_fixture fx;
  auto a = binding(resource_type::topic, "orders", pattern_type::literal,
                   "User:alice", acl_operation::read, permission_type::allow);
  auto b = binding(resource_type::topic, "ord", pattern_type::prefixed,
                   "User:bob", acl_operation::write, permission_type::deny);
  auto g = binding(resource_type::group, "app", pattern_type::literal,
                   "User:bob", acl_operation::read, permission_type::allow);
  fx.ask<create_acls_response>(fx.ctl, create_acls_request{{a, b, g}});
  acl_filter bob;
  bob.principal = std::string{"User:bob"};
  acl_filter orders_match; // MATCH: the literal name and prefixes of it
  orders_match.resource = resource_type::topic;
  orders_match.name = std::string{"orders"};
  orders_match.pattern = pattern_type::match;
  acl_filter unknown;
  unknown.operation = acl_operation::unknown;
  auto res = fx.ask<delete_acls_response>(
    fx.ctl, delete_acls_request{{bob, orders_match, unknown}});
  REQUIRE(res.ready());
  auto& r = res.get().results;
  REQUIRE(r.size() == 3);
  CHECK(r[0].deleted == std::vector<security::acl_binding>{b, g});
  CHECK(r[1].deleted == std::vector<security::acl_binding>{a, b});
  CHECK(r[2].error == error_code::invalid_request);
  CHECK(fx.bindings().empty());
}

TEST_CASE("AlterUserScramCredentials answers per user as Kafka's "
          "ZkAdminManager does") {
  security_fixture fx;
  alter_scram_credentials_request req;
  req.upsertions = {
    {"alice", scram_mechanism::sha512, credential(4096)},
    {"few", scram_mechanism::sha256, credential(4095)},
    {"many", scram_mechanism::sha256, credential(16385)},
    {"", scram_mechanism::sha256, credential(4096)},
    {"odd", static_cast<scram_mechanism>(0), credential(4096)},
    {"twice", scram_mechanism::sha256, credential(4096)},
  };
  req.deletions = {{"twice", scram_mechanism::sha256},
                   {"nobody", scram_mechanism::sha512}};
  auto res = fx.ask<alter_scram_credentials_response>(fx.ctl, req);
  REQUIRE(res.ready());
  std::map<std::string, scram_alteration_result> by_user;
  for (auto& r : res.get().results)
    by_user[r.user] = r;
  REQUIRE(by_user.size() == 7);
  CHECK(by_user["alice"].error == error_code::none);
  CHECK(by_user["few"].error == error_code::unacceptable_credential);
  CHECK(by_user["few"].message == "Too few iterations");
  CHECK(by_user["many"].message == "Too many iterations");
  CHECK(by_user[""].message == "Username must not be empty");
  CHECK(by_user["odd"].error == error_code::unsupported_sasl_mechanism);
  CHECK(by_user["twice"].error == error_code::duplicate_resource);
  CHECK(by_user["nobody"].error == error_code::resource_not_found);
  CHECK(by_user["nobody"].message
        == "Attempt to delete a user credential that does not exist");
  auto snap = fx.store->snapshot();
  REQUIRE(snap->scram().size() == 1);
  auto alice = snap->find_scram("alice", scram_mechanism::sha512);
  REQUIRE(alice);
  CHECK(security::verify_password(scram_mechanism::sha512, *alice, "secret"));
  // A deletion of what exists removes the user.
  alter_scram_credentials_request del;
  del.deletions = {{"alice", scram_mechanism::sha512}};
  auto gone = fx.ask<alter_scram_credentials_response>(fx.ctl, del);
  REQUIRE(gone.ready());
  CHECK(gone.get().results.at(0).error == error_code::none);
  CHECK(fx.store->snapshot()->scram().empty());
}

TEST_CASE("ACLs and SCRAM credentials survive a restart of the controller") {
  security_fixture fx;
  auto a = binding(resource_type::group, "g-", pattern_type::prefixed,
                   "User:alice", acl_operation::read, permission_type::allow);
  fx.ask<create_acls_response>(fx.ctl, create_acls_request{{a}});
  alter_scram_credentials_request req;
  req.upsertions = {{"alice", scram_mechanism::sha512, credential(8192)}};
  fx.ask<alter_scram_credentials_response>(fx.ctl, req);
  fx.restart();
  CHECK(fx.bindings() == std::vector<security::acl_binding>{a});
  auto alice = fx.store->snapshot()->find_scram("alice",
                                                scram_mechanism::sha512);
  REQUIRE(alice);
  CHECK(alice->iterations == 8192);
  CHECK(security::verify_password(scram_mechanism::sha512, *alice, "secret"));
}
