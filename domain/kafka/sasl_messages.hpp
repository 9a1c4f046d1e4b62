#pragma once

// The messages of SASL authentication on a Kafka connection: SaslHandshake
// (17) v0-1 and SaslAuthenticate (36) v0-2 (KIP-43, KIP-152, KIP-368),
// field for field as Kafka 3.9's JSON schemas (docs/ARCHITECTURE.md §5, §9).
// The codec is in protocol.hpp. SaslHandshake has no flexible version;
// SaslAuthenticate is flexible from v2.
//
// Every member has a default initializer: a positional initializer naming
// only the first members keeps its meaning.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/error_code.hpp"

namespace troupe::wire {

// -- SaslHandshake (17), v0-1 -------------------------------------------------

struct sasl_handshake_request {
  /// The SASL mechanism chosen by the client ("PLAIN", "SCRAM-SHA-512").
  std::string mechanism{};
};

struct sasl_handshake_response {
  error_code error = error_code::none;
  /// The mechanisms enabled on the listener.
  std::vector<std::string> mechanisms{};
};

// -- SaslAuthenticate (36), v0-2 ----------------------------------------------

struct sasl_authenticate_request {
  /// The SASL token of the selected mechanism.
  std::vector<uint8_t> auth_bytes{};
};

struct sasl_authenticate_response {
  error_code error = error_code::none;
  std::optional<std::string> error_message{};
  std::vector<uint8_t> auth_bytes{};
  /// KIP-368 (v1+): how long the session may last before the client must
  /// re-authenticate; 0: no limit.
  int64_t session_lifetime_ms = 0;
};

} // namespace troupe::wire
