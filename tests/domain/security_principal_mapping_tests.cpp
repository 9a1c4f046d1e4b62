// ssl.principal.mapping.rules as Kafka's SslPrincipalMapper reads and
// applies them (domain/security/principal_mapping.hpp); the cases of
// Kafka's SslPrincipalMapperTest.

#include <catch2/catch.hpp>

#include "domain/security/principal_mapping.hpp"

using namespace troupe::security;

namespace {

principal_mapper mapper(std::string_view rules) {
  std::string error;
  auto m = principal_mapper::parse(rules, error);
  INFO(error);
  REQUIRE(m);
  return *m;
}

} // namespace

TEST_CASE("principal mapping DEFAULT gives the whole distinguished name") {
  auto m = mapper("DEFAULT");
  CHECK(m.apply("CN=client,OU=eng,O=troupe") == "CN=client,OU=eng,O=troupe");
}

TEST_CASE("principal mapping applies the first matching rule, with $n group "
          "references and L/U case") {
  auto m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, "
                  "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/"
                  "$1@$2/L, "
                  "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, "
                  "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, "
                  "DEFAULT");
  CHECK(m.apply("CN=Duke,OU=ServiceUsers,O=Org,C=US") == "duke");
  CHECK(m.apply("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US") == "duke@sme");
  CHECK(m.apply("cn=duke,ou=sme,dc=mycp,dc=com") == "DUKE@SME");
  CHECK(m.apply("cN=Duke,OU=JavaSoft,O=Sun Microsystems") == "DUKE");
  CHECK(m.apply("OU=JavaSoft,O=Sun Microsystems,C=US")
        == "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST_CASE("principal mapping rules may hold escaped commas and slashes") {
  auto m = mapper(R"(RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT)");
  CHECK(m.apply(R"(CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz)") == R"(Tkac\, Adam)");
  auto slash = mapper(R"(RULE:^CN=([^,]*),.*$/svc\/$1/)");
  CHECK(slash.apply("CN=kafka,OU=x") == "svc/kafka");
}

TEST_CASE("principal mapping treats a $n beyond the pattern's groups as "
          "literal text") {
  auto m = mapper("RULE:^CN=(.*?),.*$/$1-$2/");
  CHECK(m.apply("CN=a,OU=b") == "a-$2");
  // $12 with one group is $1 then "2".
  auto twelve = mapper("RULE:^CN=(.*?),.*$/$12/");
  CHECK(twelve.apply("CN=a,OU=b") == "a2");
}

TEST_CASE("principal mapping without a matching rule maps to nothing") {
  auto m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/");
  CHECK_FALSE(m.apply("CN=Duke,OU=Other"));
}

TEST_CASE("principal mapping refuses Kafka's invalid rules") {
  for (std::string_view bad :
       {"DEFAULT/L", "DEFAULT/U", "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
        "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU", "DEFAUL", "RULE:^CN=((/$1/"}) {
    std::string error;
    INFO(bad);
    CHECK_FALSE(principal_mapper::parse(bad, error));
    CHECK(error.rfind("Invalid rule", 0) == 0);
  }
  std::string error;
  CHECK_FALSE(principal_mapper::parse("DEFAULT/L", error));
  CHECK(error == "Invalid rule: `DEFAULT/L`, unmatched substring: `/L`");
}

TEST_CASE("principal mapping splits rules at commas with spaces around") {
  auto m = mapper("  RULE:^CN=(.*)$/$1/L ,  DEFAULT  ");
  CHECK(m.apply("CN=ABC") == "abc");
  CHECK(m.apply("OU=x") == "OU=x");
}
