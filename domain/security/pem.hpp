#pragma once

// PEM text as Kafka's properties carry it (KIP-651's
// ssl.keystore.certificate.chain, ssl.keystore.key,
// ssl.truststore.certificates): a .properties value is one line, so the
// PEM comes with "\n" escapes or with its line breaks as spaces. OpenSSL
// wants the lines back. Plain C++.

#include <string>

namespace troupe::security {

/// The PEM blocks of `text` with their line breaks restored: "\n" escapes
/// become line breaks; a one-line PEM is re-folded (markers on their own
/// lines, PEM headers such as "Proc-Type:" kept, base64 in 64 columns).
/// Text that already has line breaks is returned as it is.
std::string normalize_pem(std::string text);

} // namespace troupe::security
