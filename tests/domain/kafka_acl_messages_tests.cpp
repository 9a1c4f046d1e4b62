// The ACL and SCRAM admin messages (DescribeAcls, CreateAcls, DeleteAcls,
// DescribeUserScramCredentials, AlterUserScramCredentials) byte for byte as
// Kafka's schemas lay them out, and the v0 rule of the ACL APIs: no pattern
// type on the wire, LITERAL implied, nothing else expressible.

#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "domain/kafka/protocol.hpp"
#include "domain/kafka/wire.hpp"
#include "tests/domain/kafka_test_support.hpp"

using namespace troupe;
using namespace troupe::wire;
using namespace kafka_test;

namespace {

constexpr int8_t prefixed = 4;

bytes from_hex(std::string_view hex) {
  REQUIRE(hex.size() % 2 == 0);
  bytes out;
  for (size_t i = 0; i < hex.size(); i += 2)
    out.push_back(
      static_cast<uint8_t>(std::stoi(std::string{hex.substr(i, 2)}, nullptr,
                                     16)));
  return out;
}

/// Compared as hex so that a mismatch prints both byte strings.
std::string to_hex(const bytes& x) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto c : x) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

} // namespace

TEST_CASE("DescribeAcls v0 has no pattern type: it reads as LITERAL and a "
          "PREFIXED filter cannot be written",
          "[kafka][acl]") {
  describe_acls_request x{2, std::string{"orders"}, prefixed, std::nullopt,
                          std::nullopt,          1,  1};
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_describe_acls_request(w, x, 0));
  CHECK(w.error().find("PatternType") != std::string::npos);
  x.pattern_type_filter = acl_pattern_literal;
  auto v0 = encode_body(encode_describe_acls_request, x, 0);
  auto v1 = encode_body(encode_describe_acls_request, x, 1);
  CHECK(v1.size() == v0.size() + 1); // the pattern type byte
  CHECK(decode_all(decode_describe_acls_request, v0, 0).pattern_type_filter
        == acl_pattern_literal);
  x.pattern_type_filter = prefixed;
  CHECK(decode_all(decode_describe_acls_request,
                   encode_body(encode_describe_acls_request, x, 1), 1)
          .pattern_type_filter
        == prefixed);
}

TEST_CASE("CreateAcls v1 request bytes follow the schema: type, name, "
          "pattern, principal, host, operation, permission",
          "[kafka][acl]") {
  create_acls_request x{{{2, "t", prefixed, "User:a", "*", 4, 3}}};
  auto body = encode_body(encode_create_acls_request, x, 1);
  auto expected = from_hex("00000001"     // one creation
                           "02"           // TOPIC
                           "000174"       // "t"
                           "04"           // PREFIXED
                           "0006557365723a61" // "User:a"
                           "00012a"       // "*"
                           "04"           // WRITE
                           "03");         // ALLOW
  CHECK(to_hex(body) == to_hex(expected));
  auto back = decode_all(decode_create_acls_request, body, 1);
  REQUIRE(back.creations.size() == 1);
  CHECK(back.creations[0].resource_pattern_type == prefixed);
  CHECK(back.creations[0].principal == "User:a");
  // v0 cannot carry PREFIXED; a LITERAL creation drops the byte.
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_create_acls_request(w, x, 0));
}

TEST_CASE("DeleteAcls v2 is flexible: compact strings, null filters as 0, "
          "and a tagged-field section per struct",
          "[kafka][acl]") {
  delete_acls_request x{{{1, std::nullopt, 1, std::nullopt, std::nullopt, 1,
                          1}}};
  auto body = encode_body(encode_delete_acls_request, x, 2);
  auto expected = from_hex("02" // compact array of one
                           "01" // ANY resource type
                           "00" // null name
                           "01" // ANY pattern
                           "00" // null principal
                           "00" // null host
                           "01" // ANY operation
                           "01" // ANY permission
                           "00" // the filter's tagged fields
                           "00"); // the request's tagged fields
  CHECK(to_hex(body) == to_hex(expected));
  auto back = decode_all(decode_delete_acls_request, body, 2);
  REQUIRE(back.filters.size() == 1);
  CHECK_FALSE(back.filters[0].resource_name_filter);
  CHECK_FALSE(back.filters[0].principal_filter);
}

TEST_CASE("DeleteAcls v0 response of a LITERAL match drops the pattern type "
          "and a PREFIXED one cannot be written",
          "[kafka][acl]") {
  delete_acls_matching_acl m{error_code::none, std::nullopt, 2, "orders",
                             acl_pattern_literal, "User:a", "*", 3, 3};
  delete_acls_response x{0, {{error_code::none, std::nullopt, {m}}}};
  auto v0 = encode_body(encode_delete_acls_response, x, 0);
  auto v1 = encode_body(encode_delete_acls_response, x, 1);
  CHECK(v1.size() == v0.size() + 1);
  x.filter_results[0].matching_acls[0].pattern_type = prefixed;
  bytes buf;
  writer w{buf};
  CHECK_FALSE(encode_delete_acls_response(w, x, 0));
}

TEST_CASE("DescribeUserScramCredentials v0 is flexible and its null user "
          "list means every user",
          "[kafka][scram]") {
  describe_user_scram_credentials_request all{};
  auto body = encode_body(encode_describe_user_scram_credentials_request, all,
                          0);
  CHECK(to_hex(body) == "0000"); // null compact array, tagged fields
  CHECK_FALSE(
    decode_all(decode_describe_user_scram_credentials_request, body, 0).users);
  describe_user_scram_credentials_request some{
    std::vector<scram_user_name>{{"al"}}};
  body = encode_body(encode_describe_user_scram_credentials_request, some, 0);
  CHECK(to_hex(body) == "0203616c0000");
  CHECK(request_header_version(key_of(api_key::describe_user_scram_credentials),
                               0)
        == 2);
}

TEST_CASE("AlterUserScramCredentials v0 carries the client's salt and salted "
          "password as compact bytes",
          "[kafka][scram]") {
  alter_user_scram_credentials_request x{
    {}, {{"al", scram_mechanism_sha_512, 4096, b("s"), b("pw")}}};
  auto body = encode_body(encode_alter_user_scram_credentials_request, x, 0);
  auto expected = from_hex("01"       // no deletions
                           "02"       // one upsertion
                           "03616c"   // "al"
                           "02"       // SCRAM-SHA-512
                           "00001000" // 4096
                           "0273"     // salt "s"
                           "037077"   // "pw"
                           "00"       // upsertion tags
                           "00");     // request tags
  CHECK(to_hex(body) == to_hex(expected));
  auto back = decode_all(decode_alter_user_scram_credentials_request, body, 0);
  REQUIRE(back.upsertions.size() == 1);
  CHECK(back.upsertions[0].iterations == 4096);
  CHECK(back.upsertions[0].salted_password == b("pw"));
}
