// Field lists of sasl_messages.hpp, in wire order as Kafka's JSON schemas
// (see field_io.hpp for how one list decodes, encodes and sizes).

#include "domain/kafka/sasl_messages.hpp"

#include "domain/kafka/field_io.hpp"
#include "domain/kafka/protocol.hpp"

namespace troupe::wire {

namespace detail {

// -- SaslHandshake ------------------------------------------------------------

template <class Io>
void fields(Io& io, sasl_handshake_request& x) {
  io.string(x.mechanism);
}

template <class Io>
void fields(Io& io, sasl_handshake_response& x) {
  io.error(x.error);
  io.array(x.mechanisms);
}

// -- SaslAuthenticate ---------------------------------------------------------

template <class Io>
void fields(Io& io, sasl_authenticate_request& x) {
  io.bytes(x.auth_bytes);
}

template <class Io>
void fields(Io& io, sasl_authenticate_response& x) {
  io.error(x.error);
  io.nullable_string(x.error_message);
  io.bytes(x.auth_bytes);
  if (io.version >= 1)
    io.i64(x.session_lifetime_ms);
}

} // namespace detail

TROUPE_KAFKA_DEFINE_API(sasl_handshake, api_key::sasl_handshake)
TROUPE_KAFKA_DEFINE_API(sasl_authenticate, api_key::sasl_authenticate)

} // namespace troupe::wire
