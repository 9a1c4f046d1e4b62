// security::normalize_pem: KIP-651's PEM values as a .properties line.

#include <catch2/catch.hpp>

#include "domain/security/pem.hpp"

using troupe::security::normalize_pem;

namespace {

const std::string folded = "-----BEGIN CERTIFICATE-----\n"
                           + std::string(64, 'A') + "\n" + std::string(10, 'B')
                           + "\n-----END CERTIFICATE-----\n";

} // namespace

TEST_CASE("a PEM value on one line gets its line breaks back") {
  std::string one_line = "-----BEGIN CERTIFICATE----- " + std::string(64, 'A')
                         + " " + std::string(10, 'B')
                         + " -----END CERTIFICATE-----";
  CHECK(normalize_pem(one_line) == folded);
  CHECK(normalize_pem(one_line + " " + one_line) == folded + folded);
}

TEST_CASE("a PEM value with backslash-n escapes or real line breaks is kept") {
  CHECK(normalize_pem(folded) == folded);
  std::string escaped = "-----BEGIN CERTIFICATE-----\\n" + std::string(64, 'A')
                        + "\\n" + std::string(10, 'B')
                        + "\\n-----END CERTIFICATE-----\\n";
  CHECK(normalize_pem(escaped) == folded);
}

TEST_CASE("an encrypted key's PEM headers keep their lines") {
  std::string one_line = "-----BEGIN RSA PRIVATE KEY----- Proc-Type: "
                         "4,ENCRYPTED DEK-Info: AES-256-CBC,00FF QUJD "
                         "-----END RSA PRIVATE KEY-----";
  CHECK(normalize_pem(one_line)
        == "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
           "DEK-Info: AES-256-CBC,00FF\n\nQUJD\n-----END RSA PRIVATE "
           "KEY-----\n");
}
