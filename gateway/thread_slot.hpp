#pragma once

// Which gateway thread runs the caller: each Asio thread of a gateway
// server sets its index once at start, so that it can use a bridge actor of
// its own (gateway/bridge.hpp). Plain C++, shared by the Beast and the CAF
// side. Threads that never set it (tests, the Kafka listener's single
// thread) are slot 0.

#include <cstddef>

namespace troupe {

inline thread_local size_t gateway_thread_slot = 0;

} // namespace troupe
