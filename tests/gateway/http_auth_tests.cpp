// troupe.http.auth (gateway/rest/auth.hpp): the Basic header, the cache of
// SCRAM verifications, and who a call acts as.

#include <catch2/catch.hpp>

#include "domain/base64.hpp"
#include "domain/security/security_store.hpp"
#include "gateway/rest/auth.hpp"

using namespace troupe;
using namespace troupe::rest;
using security::scram_mechanism;

namespace {

std::string basic(const std::string& user_colon_password) {
  return "Basic " + base64_encode(user_colon_password);
}

security::scram_credential credential(const std::string& password,
                                      scram_mechanism m = scram_mechanism::sha256) {
  return security::make_scram_credential(m, password,
                                         security::random_bytes(16), 4096);
}

std::shared_ptr<security::security_store> store_with_alice() {
  auto store = std::make_shared<security::security_store>();
  store->set_user_scram("alice",
                        {{scram_mechanism::sha512,
                          credential("alice-pw", scram_mechanism::sha512)}});
  return store;
}

} // namespace

TEST_CASE("a Basic header gives the user and the password (RFC 7617)") {
  auto c = parse_basic(basic("alice:pa:ss"));
  REQUIRE(c);
  CHECK(c->user == "alice");
  CHECK(c->password == "pa:ss"); // only the first colon separates
  CHECK(parse_basic("basic " + base64_encode("bob:x"))->user == "bob");
  CHECK(parse_basic("Basic   " + base64_encode("bob:x") + " ")->password
        == "x");
  CHECK(parse_basic(basic("bob:"))->password.empty());
}

TEST_CASE("a malformed Basic header is no credentials") {
  CHECK_FALSE(parse_basic(""));
  CHECK_FALSE(parse_basic("Basic"));
  CHECK_FALSE(parse_basic("Basic "));
  CHECK_FALSE(parse_basic("Bearer " + base64_encode("alice:pw")));
  CHECK_FALSE(parse_basic("Basic !!notbase64!!"));
  CHECK_FALSE(parse_basic(basic("no-colon")));
  CHECK_FALSE(parse_basic(basic(":empty-user")));
  CHECK_FALSE(parse_basic("Basicx " + base64_encode("alice:pw")));
}

TEST_CASE("the verification cache remembers a password against exactly "
          "one credential") {
  verification_cache cache;
  auto cred = credential("pw");
  CHECK_FALSE(cache.contains("alice", "pw", scram_mechanism::sha256, cred));
  cache.insert("alice", "pw", scram_mechanism::sha256, cred);
  CHECK(cache.contains("alice", "pw", scram_mechanism::sha256, cred));
  CHECK_FALSE(cache.contains("alice", "pw2", scram_mechanism::sha256, cred));
  CHECK_FALSE(cache.contains("bob", "pw", scram_mechanism::sha256, cred));
  CHECK_FALSE(cache.contains("alice", "pw", scram_mechanism::sha512, cred));
  // A new credential (the password changed) misses.
  CHECK_FALSE(cache.contains("alice", "pw", scram_mechanism::sha256,
                             credential("pw")));
  // Field boundaries count: "al" + "icepw" is not "alice" + "pw".
  CHECK_FALSE(cache.contains("al", "icepw", scram_mechanism::sha256, cred));
}

TEST_CASE("a full verification cache starts over") {
  verification_cache cache{2};
  auto cred = credential("pw");
  cache.insert("a", "pw", scram_mechanism::sha256, cred);
  cache.insert("b", "pw", scram_mechanism::sha256, cred);
  CHECK(cache.size() == 2);
  cache.insert("c", "pw", scram_mechanism::sha256, cred);
  CHECK(cache.size() == 1);
  CHECK(cache.contains("c", "pw", scram_mechanism::sha256, cred));
}

TEST_CASE("Basic authentication against a SCRAM credential caches successes "
          "only") {
  auto store = store_with_alice();
  authenticator auth{{true, "tok", {}}, store};
  std::string why;
  auto who = auth.authenticate(basic("alice:wrong"), "10.0.0.1", why);
  CHECK_FALSE(who);
  CHECK(auth.cache().size() == 0); // a failure is never cached
  who = auth.authenticate(basic("alice:alice-pw"), "10.0.0.1", why);
  REQUIRE(who);
  CHECK(who->identity.principal == "User:alice");
  CHECK(who->identity.host == "10.0.0.1");
  CHECK_FALSE(who->super);
  CHECK(auth.cache().size() == 1);
  // The cached success does not let another password in.
  CHECK_FALSE(auth.authenticate(basic("alice:wrong"), "", why));
  CHECK(auth.authenticate(basic("alice:alice-pw"), "", why));
  CHECK(auth.cache().size() == 1);
  // A changed credential: the old password fails at once.
  store->set_user_scram("alice", {{scram_mechanism::sha256, credential("new")}});
  CHECK_FALSE(auth.authenticate(basic("alice:alice-pw"), "", why));
  CHECK(auth.authenticate(basic("alice:new"), "", why));
  // A deleted user.
  store->set_user_scram("alice", {});
  CHECK_FALSE(auth.authenticate(basic("alice:new"), "", why));
}

TEST_CASE("Basic authentication against the listeners' PLAIN users") {
  authenticator auth{{true, "", {{{"bob", "b1"}}, {{"bob", "b2"}, {"eve", "e"}}}},
                     nullptr};
  std::string why;
  CHECK(auth.authenticate(basic("bob:b1"), "", why));
  CHECK(auth.authenticate(basic("bob:b2"), "", why));
  CHECK(auth.authenticate(basic("eve:e"), "", why)->identity.principal
        == "User:eve");
  CHECK_FALSE(auth.authenticate(basic("bob:e"), "", why));
  CHECK_FALSE(auth.authenticate(basic("mallory:b1"), "", why));
}

TEST_CASE("the admin token is a super user and without auth calls are "
          "anonymous") {
  std::string why;
  authenticator on{{true, "tok", {}}, store_with_alice()};
  auto who = on.authenticate("Bearer tok", "", why);
  REQUIRE(who);
  CHECK(who->super);
  CHECK_FALSE(on.authenticate("Bearer tok2", "", why));
  CHECK_FALSE(on.authenticate("", "", why));
  CHECK_FALSE(why.empty());
  authenticator off{{false, "tok", {}}, nullptr};
  who = off.authenticate("", "1.2.3.4", why);
  REQUIRE(who);
  CHECK(who->identity.principal == "User:ANONYMOUS");
  CHECK_FALSE(who->super);
  CHECK(off.authenticate("Bearer tok", "", why)->super);
}

TEST_CASE("a call's principal meets the store's ACLs") {
  security::authorizer_config ac;
  ac.enabled = true;
  auto store = std::make_shared<security::security_store>(ac);
  security::acl_binding b;
  b.pattern = {security::resource_type::topic, "orders",
               security::pattern_type::literal};
  b.entry = {"User:alice", "*", security::acl_operation::write,
             security::permission_type::allow};
  store->set_acls({b});
  principal alice;
  alice.identity.principal = "User:alice";
  principal bob;
  bob.identity.principal = "User:bob";
  using security::acl_operation;
  using security::resource_type;
  CHECK(may(alice, store.get(), acl_operation::write, resource_type::topic,
            "orders"));
  CHECK(may(alice, store.get(), acl_operation::describe, resource_type::topic,
            "orders"));
  CHECK_FALSE(may(bob, store.get(), acl_operation::write, resource_type::topic,
                  "orders"));
  principal admin;
  admin.super = true;
  CHECK(may(admin, store.get(), acl_operation::alter, resource_type::cluster,
            cluster_resource));
  auto check = access_of(bob, store);
  REQUIRE(check);
  CHECK_FALSE(check(acl_operation::write, resource_type::topic, "orders"));
  CHECK_FALSE(access_of(admin, store)); // empty: everything allowed
  CHECK(may(bob, nullptr, acl_operation::write, resource_type::topic, "x"));
}

TEST_CASE("without troupe.http.auth a client certificate names the "
          "principal through ssl.principal.mapping.rules") {
  std::string err;
  authenticator::settings s;
  s.mapper = security::principal_mapper::parse(
    "RULE:^CN=([^,]*),.*$/$1/L,DEFAULT", err);
  REQUIRE(s.mapper);
  authenticator auth{s, nullptr};
  std::string why;
  auto who = auth.authenticate("", "", why, "CN=Alice,OU=eng,O=troupe");
  REQUIRE(who);
  CHECK(who->identity.principal == "User:alice");
  CHECK(auth.authenticate("", "", why)->identity.principal == "User:ANONYMOUS");
  authenticator plain{{}, nullptr}; // no rules: the DN as it is
  CHECK(plain.authenticate("", "", why, "CN=x,O=y")->identity.principal
        == "User:CN=x,O=y");
  s.mapper = security::principal_mapper::parse("RULE:^CN=admin$/root/", err);
  authenticator strict{s, nullptr};
  CHECK_FALSE(strict.authenticate("", "", why, "CN=Alice"));
}
