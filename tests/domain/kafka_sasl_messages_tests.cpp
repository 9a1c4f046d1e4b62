// SaslHandshake (17) and SaslAuthenticate (36) byte for byte as Kafka 3.9's
// JSON schemas lay them out (SaslHandshakeRequest.json: never flexible;
// SaslAuthenticateRequest.json: flexible from v2, SessionLifetimeMs from
// v1), and the request headers the listener reads before authentication.

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

TEST_CASE("SaslHandshake v0-1 is Kafka's classic layout in both versions",
          "[kafka][sasl]") {
  for (int16_t v : {0, 1}) {
    INFO("v" << v);
    CHECK(encode_body(encode_sasl_handshake_request,
                      sasl_handshake_request{"SCRAM-SHA-512"}, v)
          == str("SCRAM-SHA-512"));
    sasl_handshake_response res{error_code::unsupported_sasl_mechanism,
                                {"PLAIN", "SCRAM-SHA-256"}};
    CHECK(encode_body(encode_sasl_handshake_response, res, v)
          == cat({i16(33), i32(2), str("PLAIN"), str("SCRAM-SHA-256")}));
    CHECK_FALSE(is_flexible(17, v));
    CHECK(response_header_version(17, v) == 0);
    CHECK(request_header_version(17, v) == 1);
  }
  bytes out;
  writer w{out};
  CHECK_FALSE(encode_sasl_handshake_request(w, {"PLAIN"}, 2));
}

TEST_CASE("SaslAuthenticate v0-1 is classic, v1 adds the session lifetime, "
          "v2 is flexible",
          "[kafka][sasl]") {
  auto token = b("n,,n=alice,r=abc");
  CHECK(encode_body(encode_sasl_authenticate_request,
                    sasl_authenticate_request{token}, 0)
        == blob(token));
  CHECK(encode_body(encode_sasl_authenticate_request,
                    sasl_authenticate_request{token}, 2)
        == cat({cblob(token), no_tags()}));
  sasl_authenticate_response ok{error_code::none, std::nullopt, b("v=sig"),
                                3600000};
  CHECK(encode_body(encode_sasl_authenticate_response, ok, 0)
        == cat({i16(0), i16(-1), blob(b("v=sig"))}));
  CHECK(encode_body(encode_sasl_authenticate_response, ok, 1)
        == cat({i16(0), i16(-1), blob(b("v=sig")), i64(3600000)}));
  CHECK(encode_body(encode_sasl_authenticate_response, ok, 2)
        == cat({i16(0), cnull(), cblob(b("v=sig")), i64(3600000), no_tags()}));
  sasl_authenticate_response failed{error_code::sasl_authentication_failed,
                                    std::string{"Authentication failed"},
                                    {},
                                    0};
  CHECK(encode_body(encode_sasl_authenticate_response, failed, 2)
        == cat({i16(58), cstr("Authentication failed"), cblob({}), i64(0),
                no_tags()}));
  CHECK(is_flexible(36, 2));
  CHECK_FALSE(is_flexible(36, 1));
  CHECK(request_header_version(36, 2) == 2);
}

TEST_CASE("a SaslAuthenticate frame decodes through the request dispatch, "
          "and a truncated token is refused",
          "[kafka][sasl]") {
  auto plain = cat({b(std::string{"\0alice\0secret", 13})});
  std::string error;
  CHECK(decode_request_frame(
    request_frame(api_key::sasl_authenticate, 1,
                  encode_sasl_authenticate_request,
                  sasl_authenticate_request{plain}),
    error));
  INFO(error);
  auto body = cat({i32(20), b("short")}); // claims 20 bytes, has 5
  reader in{body};
  CHECK_FALSE(decode_sasl_authenticate_request(in, 1));
}
