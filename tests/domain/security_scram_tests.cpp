// SCRAM-SHA-256/512 as RFC 5802/7677 and Kafka's ScramSaslServer,
// ScramFormatter, ScramMessages and ScramCredentialUtils have it
// (domain/security/scram.hpp).

#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <map>

#include "domain/base64.hpp"
#include "domain/security/scram.hpp"

using namespace troupe;
using namespace troupe::security;

namespace {

std::vector<uint8_t> bytes_of(std::string_view b64) {
  auto text = base64_decode(b64);
  REQUIRE(text);
  return {text->begin(), text->end()};
}

// RFC 7677 §3.
constexpr std::string_view rfc_client_nonce = "rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view rfc_server_nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view rfc_salt = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr std::string_view rfc_server_first =
  "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
  "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view rfc_client_final =
  "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
  "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view rfc_server_final =
  "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

scram_server::lookup_fn users(scram_mechanism m,
                              std::map<std::string, std::string> passwords) {
  std::map<std::string, scram_credential> creds;
  for (const auto& [user, password] : passwords)
    creds[user] = make_scram_credential(m, password, random_bytes(16), 4096);
  return [creds](const std::string& user) -> std::optional<scram_credential> {
    auto i = creds.find(user);
    if (i == creds.end())
      return std::nullopt;
    return i->second;
  };
}

std::string b64(const std::vector<uint8_t>& b) {
  return base64_encode(std::string{b.begin(), b.end()});
}

std::string hmac_sha256(const std::vector<uint8_t>& key,
                        std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
       &len);
  return {reinterpret_cast<char*>(out), len};
}

std::string failure(scram_mechanism m) {
  return "Authentication failed during authentication due to invalid "
         "credentials with SASL mechanism "
         + std::string{to_string(m)};
}

} // namespace

TEST_CASE("SCRAM-SHA-256 reproduces RFC 7677's test vector, server and "
          "client") {
  auto m = scram_mechanism::sha256;
  auto cred = make_scram_credential(m, "pencil", bytes_of(rfc_salt), 4096);
  scram_server server{m,
                      [&](const std::string& user) {
                        return user == "user" ? std::optional{cred}
                                              : std::nullopt;
                      },
                      std::string{rfc_server_nonce}};
  auto first = server.step("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  CHECK(first.error.empty());
  CHECK(first.response == rfc_server_first);
  CHECK_FALSE(first.complete);
  auto final = server.step(rfc_client_final);
  CHECK(final.error.empty());
  CHECK(final.complete);
  CHECK(final.response == rfc_server_final);
  CHECK(server.user() == "user");

  scram_client client{m, "user", "pencil", std::string{rfc_client_nonce}};
  CHECK(client.first_message() == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  CHECK(client.final_message(rfc_server_first) == std::string{rfc_client_final});
  CHECK(client.verify_server_final(rfc_server_final));
  CHECK_FALSE(client.verify_server_final(
    "v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="));
}

TEST_CASE("SCRAM client and server complete the exchange for both "
          "mechanisms") {
  for (auto m : {scram_mechanism::sha256, scram_mechanism::sha512}) {
    scram_server server{m, users(m, {{"alice", "alice-secret"}})};
    scram_client client{m, "alice", "alice-secret"};
    auto first = server.step(client.first_message());
    REQUIRE(first.error.empty());
    auto final_message = client.final_message(first.response);
    REQUIRE(final_message);
    auto final = server.step(*final_message);
    CHECK(final.error.empty());
    CHECK(final.complete);
    CHECK(client.verify_server_final(final.response));
    CHECK(server.user() == "alice");
    // The exchange is over: another token is refused.
    CHECK_FALSE(server.step(*final_message).error.empty());
  }
}

TEST_CASE("SCRAM a wrong password fails with Kafka's invalid credentials "
          "message") {
  auto m = scram_mechanism::sha512;
  scram_server server{m, users(m, {{"alice", "alice-secret"}})};
  scram_client client{m, "alice", "wrong"};
  auto first = server.step(client.first_message());
  REQUIRE(first.error.empty());
  auto final = server.step(*client.final_message(first.response));
  CHECK_FALSE(final.complete);
  CHECK(final.response.empty());
  CHECK(final.error == failure(m));
}

TEST_CASE("SCRAM an unknown user fails the exchange with "
          "SASL_AUTHENTICATION_FAILED's message") {
  auto m = scram_mechanism::sha512;
  scram_server server{m, users(m, {{"alice", "alice-secret"}})};
  auto first = server.step("n,,n=mallory,r=abcdef");
  CHECK(first.response.empty());
  CHECK(first.error
        == "Authentication failed during authentication due to invalid "
           "credentials with SASL mechanism SCRAM-SHA-512");
}

TEST_CASE("SCRAM a client-final nonce other than the combined one is "
          "refused") {
  auto m = scram_mechanism::sha256;
  scram_server server{m, users(m, {{"alice", "pw"}})};
  scram_client client{m, "alice", "pw"};
  auto first = server.step(client.first_message());
  auto final = *client.final_message(first.response);
  // Replace the server's part of the nonce: "r=<client><server>".
  auto r = final.find(",r=") + 3;
  auto p = final.find(",p=");
  auto forged = final.substr(0, r) + final.substr(r, 10) + "forged"
                + final.substr(p);
  auto result = server.step(forged);
  CHECK_FALSE(result.complete);
  CHECK(result.error == failure(m));
}

TEST_CASE("SCRAM a client refuses a server nonce that does not start with "
          "its own") {
  scram_client client{scram_mechanism::sha256, "user", "pencil", "abc"};
  client.first_message();
  CHECK_FALSE(client.final_message("r=xyzdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
  CHECK_FALSE(client.final_message("r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
  CHECK(client.final_message("r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
}

TEST_CASE("SCRAM a tampered proof is refused") {
  auto m = scram_mechanism::sha512;
  scram_server server{m, users(m, {{"alice", "pw"}})};
  scram_client client{m, "alice", "pw"};
  auto first = server.step(client.first_message());
  auto final = *client.final_message(first.response);
  auto p = final.find(",p=") + 3;
  auto proof = *base64_decode(final.substr(p));
  proof[0] = static_cast<char>(proof[0] ^ 1);
  auto result = server.step(final.substr(0, p) + base64_encode(proof));
  CHECK_FALSE(result.complete);
  CHECK(result.error == failure(m));
}

TEST_CASE("SCRAM client-first needs the n,, GS2 header of no channel "
          "binding and Kafka's message format") {
  auto m = scram_mechanism::sha256;
  for (std::string_view bad :
       {"y,,n=alice,r=abc", "p=tls-unique,,n=alice,r=abc", "n,n=alice,r=abc",
        "n,,r=abc,n=alice", "n,,n=alice", "n,,n=al=3Xce,r=abc",
        "n,,n=alice,r=a b", "n,,n=alice,r=abc,1x=2", ""}) {
    scram_server server{m, users(m, {{"alice", "pw"}})};
    CHECK(server.step(bad).error == failure(m));
  }
}

TEST_CASE("SCRAM the username's =2C and =3D are decoded, extensions other "
          "than tokenauth are ignored") {
  auto m = scram_mechanism::sha256;
  auto lookup = users(m, {{"a,b=c", "pw"}});
  scram_server server{m, lookup};
  scram_client client{m, "a,b=c", "pw"};
  auto first_message = client.first_message();
  CHECK(first_message.find("n=a=2Cb=3Dc,") != std::string::npos);
  auto first = server.step(first_message);
  REQUIRE(first.error.empty());
  auto final = server.step(*client.final_message(first.response));
  CHECK(final.complete);
  CHECK(server.user() == "a,b=c");

  scram_server ext{m, users(m, {{"alice", "pw"}})};
  CHECK(ext.step("n,,n=alice,r=abc,foo=bar").error.empty());
  scram_server token{m, users(m, {{"alice", "pw"}})};
  CHECK(token.step("n,,n=alice,r=abc,tokenauth=true").error == failure(m));
}

TEST_CASE("SCRAM an authorization id other than the username is refused "
          "with Kafka's message") {
  auto m = scram_mechanism::sha256;
  scram_server server{m, users(m, {{"alice", "pw"}})};
  CHECK(server.step("n,a=bob,n=alice,r=abc").error
        == "Authentication failed: Client requested an authorization id that "
           "is different from username");
  scram_server same{m, users(m, {{"alice", "pw"}})};
  CHECK(same.step("n,a=alice,n=alice,r=abc").error.empty());
}

TEST_CASE("SCRAM credentials below the mechanism's minimum iterations are "
          "refused") {
  auto m = scram_mechanism::sha256;
  auto cred = make_scram_credential(m, "pw", random_bytes(16), 4095);
  scram_server server{m, [&](const std::string&) { return cred; }};
  CHECK(server.step("n,,n=alice,r=abc").error == failure(m));
}

TEST_CASE("SCRAM credentials are written as ScramCredentialUtils writes "
          "them and read back") {
  auto m = scram_mechanism::sha512;
  auto cred = make_scram_credential(m, "secret", random_bytes(20), 8192);
  CHECK(cred.stored_key.size() == 64);
  CHECK(cred.server_key.size() == 64);
  auto text = format_scram_credential(cred);
  CHECK(text
        == "salt=" + b64(cred.salt)
             + ",stored_key="
             + b64(cred.stored_key)
             + ",server_key="
             + b64(cred.server_key)
             + ",iterations=8192");
  CHECK(parse_scram_credential(text) == cred);
  CHECK(verify_password(m, cred, "secret"));
  CHECK_FALSE(verify_password(m, cred, "Secret"));
  // The salted password gives the same credential (AlterUserScramCredentials).
  auto salted = salted_password(m, "secret", cred.salt, 8192);
  CHECK(credential_from_salted_password(m, salted, cred.salt, 8192) == cred);

  CHECK_FALSE(parse_scram_credential("salt=AA==,stored_key=AA==,iterations=1"));
  CHECK_FALSE(parse_scram_credential(text + ",extra=1"));
  CHECK_FALSE(parse_scram_credential("salt=AA==,stored_key=AA==,server_key=AA=="
                                     ",iterations=x"));
  CHECK_FALSE(parse_scram_credential("=AA==," + text));
  CHECK_FALSE(parse_scram_credential("salt=!!,stored_key=AA==,"
                                     "server_key=AA==,iterations=4096"));
  CHECK(to_string(scram_mechanism::sha256) == "SCRAM-SHA-256");
  CHECK(parse_scram_mechanism("SCRAM-SHA-512") == scram_mechanism::sha512);
  CHECK_FALSE(parse_scram_mechanism("SCRAM-SHA-1"));
}

TEST_CASE("SCRAM a client-final nonce that ends with the server-first one "
          "is accepted, as Kafka's endsWith check (librdkafka repeats its "
          "nonce)") {
  auto m = scram_mechanism::sha256;
  auto salt = bytes_of(rfc_salt);
  auto cred = make_scram_credential(m, "pencil", salt, 4096);
  scram_server server{m, [&](const std::string&) { return cred; },
                      std::string{rfc_server_nonce}};
  std::string bare = "n=user,r=" + std::string{rfc_client_nonce};
  auto first = server.step("n,," + bare);
  REQUIRE(first.response == rfc_server_first);
  // "r=" <client nonce> <client nonce + server nonce>, the proof over it.
  auto without_proof = "c=biws,r=" + std::string{rfc_client_nonce}
                       + std::string{rfc_client_nonce}
                       + std::string{rfc_server_nonce};
  auto auth_message = bare + "," + first.response + "," + without_proof;
  auto salted = salted_password(m, "pencil", salt, 4096);
  auto client_key = hmac_sha256(salted, "Client Key");
  auto signature = hmac_sha256(cred.stored_key, auth_message);
  std::string proof = client_key;
  for (size_t i = 0; i < proof.size(); ++i)
    proof[i] = static_cast<char>(proof[i] ^ signature[i]);
  auto final = server.step(without_proof + ",p=" + base64_encode(proof));
  CHECK(final.error.empty());
  CHECK(final.complete);
  CHECK(final.response
        == "v=" + base64_encode(hmac_sha256(cred.server_key, auth_message)));
}
