#include "gateway/kafka/kafka_session.hpp"

#include <utility>

#include "gateway/kafka/kafka_handlers.hpp"

namespace troupe {

namespace {

/// A request for the session actor: it never leaves the process.
struct kafka_job {
  wire::request_header header;
  wire::request_body body;
  kafka_reply_fn reply;
};

/// The connection (re-)authenticated.
struct kafka_identity {
  security::request_identity identity;
};

} // namespace

} // namespace troupe

namespace caf {

template <>
struct allowed_unsafe_message_type<troupe::kafka_job> : std::true_type {};

template <>
struct allowed_unsafe_message_type<troupe::kafka_identity> : std::true_type {};

} // namespace caf

namespace troupe {

namespace {

caf::behavior session(kafka_session_ptr self, kafka_request_context ctx) {
  self->state.ctx = std::move(ctx);
  return {
    [self](kafka_job& job) {
      handle_kafka_request(self, job.header, std::move(job.body),
                           std::move(job.reply));
    },
    [self](kafka_identity& x) { self->state.identity = std::move(x.identity); },
    [self](fetch_wake_atom, uint64_t key) {
      kafka_handlers::fetch_woken(self, key);
    },
  };
}

} // namespace

struct kafka_session::impl {
  caf::actor actor;
};

kafka_session::kafka_session(caf::actor_system& sys, kafka_request_context ctx)
  : impl_(std::make_unique<impl>()) {
  impl_->actor = sys.spawn(session, std::move(ctx));
}

kafka_session::~kafka_session() {
  caf::anon_send_exit(impl_->actor, caf::exit_reason::user_shutdown);
}

void kafka_session::submit(wire::request_header header, wire::request_body body,
                           kafka_reply_fn reply) const {
  caf::anon_send(impl_->actor,
                 kafka_job{std::move(header), std::move(body),
                           std::move(reply)});
}

void kafka_session::set_identity(security::request_identity identity) const {
  caf::anon_send(impl_->actor, kafka_identity{std::move(identity)});
}

} // namespace troupe
