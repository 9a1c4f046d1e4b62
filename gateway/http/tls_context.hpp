#pragma once

// The HTTPS server's TLS context from troupe.http.ssl.* (KIP-651's PEM
// properties, docs/ARCHITECTURE.md §5): the certificate chain and key from
// a PEM file or PEM text, the key's password, the CA certificates that
// client certificates must chain to, ssl.client.auth and
// ssl.enabled.protocols. OpenSSL through Asio; no CAF.

#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "domain/security/security_config.hpp"

namespace troupe {

/// Throws std::runtime_error naming the property when the material cannot
/// be loaded.
std::shared_ptr<boost::asio::ssl::context>
make_tls_server_context(const security::tls_config& config);

/// The subject of the verified client certificate of a connection, as
/// Java's X500Principal.getName() prints it (RFC 2253, the most specific
/// RDN first: "CN=client,OU=eng,O=troupe"); empty without one.
std::string tls_peer_subject(SSL* ssl);

} // namespace troupe
