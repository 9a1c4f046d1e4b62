// SASL/PLAIN as RFC 4616 and Kafka's PlainSaslServer, JAAS configuration
// as Kafka's JaasConfig reads it, and one connection's authentication over
// PLAIN and SCRAM (domain/security/sasl.hpp).

#include <catch2/catch.hpp>

#include <string>

#include "domain/security/sasl.hpp"
#include "domain/security/security_store.hpp"

using namespace troupe::security;
using namespace std::string_literals;

namespace {

constexpr auto plain_module =
  "org.apache.kafka.common.security.plain.PlainLoginModule";

std::shared_ptr<const security_snapshot> snapshot_with(std::string user,
                                                       std::string password) {
  security_store store;
  std::map<scram_mechanism, scram_credential> creds;
  for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512})
    creds[m] = make_scram_credential(m, password, random_bytes(16), 4096);
  store.set_user_scram(user, creds);
  return store.snapshot();
}

std::vector<std::string> all_mechanisms() {
  return {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
}

} // namespace

TEST_CASE("SASL PLAIN's message is authzid NUL authcid NUL passwd") {
  std::string error;
  auto m = parse_plain("\0alice\0secret"s, error);
  REQUIRE(m);
  CHECK(m->authzid.empty());
  CHECK(m->username == "alice");
  CHECK(m->password == "secret");
  m = parse_plain("admin\0alice\0secret"s, error);
  REQUIRE(m);
  CHECK(m->authzid == "admin");
}

TEST_CASE("SASL PLAIN refuses malformed messages with Kafka's messages") {
  std::string error;
  CHECK_FALSE(parse_plain("alice\0secret"s, error));
  CHECK(error == "Invalid SASL/PLAIN response: expected 3 tokens, got 2");
  CHECK_FALSE(parse_plain("a\0b\0c\0d"s, error));
  CHECK(error == "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
  CHECK_FALSE(parse_plain("", error));
  CHECK(error == "Invalid SASL/PLAIN response: expected 3 tokens, got 1");
  CHECK_FALSE(parse_plain("\0\0secret"s, error));
  CHECK(error == "Authentication failed: username not specified");
  CHECK_FALSE(parse_plain("\0alice\0"s, error));
  CHECK(error == "Authentication failed: password not specified");
}

TEST_CASE("SASL JAAS config parses as JaasConfig: quoted values, control "
          "flags, several entries") {
  std::string error;
  auto entries = parse_jaas(
    "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
    "  username=\"admin\" password=\"admin-secret\"\n"
    "  user_admin=\"admin-secret\" user_alice='alice;secret' "
    "user_bob=bob-pw;\n"
    "/* a comment */ com.example.Other OPTIONAL // and another\n"
    "  key=\"a \\\"quoted\\\" value\";",
    error);
  REQUIRE(entries);
  INFO(error);
  REQUIRE(entries->size() == 2);
  const auto& plain = (*entries)[0];
  CHECK(plain.login_module == plain_module);
  CHECK(plain.control_flag == "required");
  CHECK(plain.options.at("username") == "admin");
  CHECK(plain.options.at("user_alice") == "alice;secret");
  CHECK(plain.options.at("user_bob") == "bob-pw");
  const auto& other = (*entries)[1];
  CHECK(other.control_flag == "optional");
  CHECK(other.options.at("key") == "a \"quoted\" value");

  auto users = plain_users(*entries);
  CHECK(users
        == std::map<std::string, std::string>{{"admin", "admin-secret"},
                                              {"alice", "alice;secret"},
                                              {"bob", "bob-pw"}});
  for (auto flag : {"requisite", "sufficient", "Optional"})
    CHECK(parse_jaas("m "s + flag + ";", error));
}

TEST_CASE("SASL JAAS config errors are Kafka's") {
  std::string error;
  CHECK_FALSE(parse_jaas("", error));
  CHECK(error == "Login module not specified in JAAS config");
  CHECK_FALSE(parse_jaas("   // only a comment", error));
  CHECK(error == "Login module not specified in JAAS config");
  // A quoted empty name (found by fuzz/sasl_plain_fuzz.cpp).
  CHECK_FALSE(parse_jaas("\"\" required;", error));
  CHECK(error == "Login module not specified in JAAS config");
  CHECK_FALSE(parse_jaas("a.b.Module", error));
  CHECK(error == "Login module control flag not specified in JAAS config");
  CHECK_FALSE(parse_jaas("a.b.Module mandatory;", error));
  CHECK(error == "Invalid login module control flag 'mandatory' in JAAS config");
  CHECK_FALSE(parse_jaas("a.b.Module required user=\"x\"", error));
  CHECK(error == "JAAS config entry not terminated by semi-colon");
  CHECK_FALSE(parse_jaas("a.b.Module required user;", error));
  CHECK(error == "Value not specified for key 'user' in JAAS config");
  CHECK_FALSE(parse_jaas("a.b.Module required user=;", error));
  CHECK(error == "Value not specified for key 'user' in JAAS config");
  // A bare number has no string value in StreamTokenizer.
  CHECK_FALSE(parse_jaas("a.b.Module required user_x=123;", error));
  CHECK(error == "Value not specified for key 'user_x' in JAAS config");
}

TEST_CASE("SASL PLAIN authenticates the listener's users and refuses others "
          "with Kafka's message") {
  sasl_authenticator auth{all_mechanisms(), {{"alice", "alice-secret"}},
                          nullptr};
  REQUIRE(auth.select("PLAIN"));
  auto r = auth.step("\0alice\0alice-secret"s);
  CHECK(r.error.empty());
  CHECK(r.complete);
  CHECK(auth.principal() == "User:alice");
  CHECK(auth.user() == "alice");

  for (auto token : {"\0alice\0wrong"s, "\0mallory\0alice-secret"s}) {
    sasl_authenticator bad{all_mechanisms(), {{"alice", "alice-secret"}},
                           nullptr};
    REQUIRE(bad.select("PLAIN"));
    auto result = bad.step(token);
    CHECK_FALSE(result.complete);
    CHECK(result.error
          == "Authentication failed: Invalid username or password");
    CHECK(bad.principal() == "User:ANONYMOUS");
  }
  sasl_authenticator authz{all_mechanisms(), {{"alice", "alice-secret"}},
                           nullptr};
  REQUIRE(authz.select("PLAIN"));
  CHECK(authz.step("bob\0alice\0alice-secret"s).error
        == "Authentication failed: Client requested an authorization id that "
           "is different from username");
}

TEST_CASE("SASL SaslHandshake refuses a mechanism the listener does not "
          "enable") {
  sasl_authenticator auth{{"SCRAM-SHA-512"}, {}, nullptr};
  CHECK_FALSE(auth.select("PLAIN"));
  CHECK_FALSE(auth.select("GSSAPI"));
  CHECK(auth.select("SCRAM-SHA-512"));
  CHECK(auth.mechanism() == "SCRAM-SHA-512");
  sasl_authenticator gssapi{{"GSSAPI"}, {}, nullptr};
  CHECK_FALSE(gssapi.select("GSSAPI"));
  CHECK(is_served_mechanism("SCRAM-SHA-256"));
  CHECK_FALSE(is_served_mechanism("OAUTHBEARER"));
}

TEST_CASE("SASL SCRAM authenticates against the snapshot's credentials") {
  for (auto mech : {scram_mechanism::sha256, scram_mechanism::sha512}) {
    auto snapshot = snapshot_with("alice", "alice-secret");
    sasl_authenticator auth{all_mechanisms(), {}, snapshot};
    REQUIRE(auth.select(to_string(mech)));
    scram_client client{mech, "alice", "alice-secret"};
    auto first = auth.step(client.first_message());
    REQUIRE(first.error.empty());
    CHECK_FALSE(first.complete);
    auto final = auth.step(*client.final_message(first.response));
    CHECK(final.error.empty());
    CHECK(final.complete);
    CHECK(client.verify_server_final(final.response));
    CHECK(auth.principal() == "User:alice");

    sasl_authenticator wrong{all_mechanisms(), {}, snapshot};
    REQUIRE(wrong.select(to_string(mech)));
    scram_client liar{mech, "alice", "guess"};
    auto f = wrong.step(liar.first_message());
    auto result = wrong.step(*liar.final_message(f.response));
    CHECK_FALSE(result.complete);
    CHECK(result.error
          == "Authentication failed during authentication due to invalid "
             "credentials with SASL mechanism "
               + std::string{to_string(mech)});
  }
}

TEST_CASE("SASL a token before SaslHandshake is refused") {
  sasl_authenticator auth{all_mechanisms(), {}, nullptr};
  CHECK_FALSE(auth.step("\0a\0b"s).error.empty());
}
