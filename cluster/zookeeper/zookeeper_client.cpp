#include "cluster/zookeeper/zookeeper_client.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <unordered_set>

#include <spdlog/spdlog.h>
#include <zookeeper/zookeeper.h>

namespace troupe::cluster {

namespace {

// True while this thread runs a user handler: closing a handle from there
// must not join ZooKeeper's threads (one of which is this one).
thread_local bool in_handler = false;

} // namespace

// -- shared state --------------------------------------------------------------------

// Shared by the client and every request in flight, so that a completion
// arriving after the client is gone finds `closed` instead of freed memory.
struct zookeeper_client::control_block {
  session_handler on_session;
  watch_handler on_watch;

  // Held while a handler runs and while `closed` is set: once the destructor
  // has set it, no handler starts. Recursive, so that a handler may destroy
  // the client.
  std::recursive_mutex mtx;
  bool closed = false;

  std::atomic<session_state> state{session_state::connecting};
  /// zookeeper.set.acl: create znodes with Kafka's ACLs.
  bool secure = false;
  std::atomic<int64_t> session_id{0};

  /// Runs `f` (which calls a user handler) unless the client is closed.
  template <class F>
  void deliver(F&& f) {
    std::lock_guard<std::recursive_mutex> guard{mtx};
    if (closed)
      return;
    struct scope {
      bool previous = in_handler;
      scope() {
        in_handler = true;
      }
      ~scope() {
        in_handler = previous;
      }
    } flag;
    // Nothing may unwind into ZooKeeper's C code.
    try {
      f();
    } catch (const std::exception& e) {
      spdlog::error("zookeeper_client: a handler threw: {}", e.what());
    } catch (...) {
      spdlog::error("zookeeper_client: a handler threw");
    }
  }
};

// One zhandle_t, i.e. one session. The context of its watcher; lives until
// zookeeper_close has returned, after which ZooKeeper calls nothing more.
namespace {

// Every context handed to the C client derives from this and is listed in
// its session. ZooKeeper's mt client drops completions still queued when
// its completion thread stops (zookeeper_close), without calling or freeing
// them: once zookeeper_close has returned, the session answers those
// requests with CLOSING (dropped if the client is gone) and frees them.
struct pending {
  explicit pending(zookeeper_client::session* owner);
  virtual ~pending();
  virtual void abandon() = 0;
  zookeeper_client::session* owner;
};

} // namespace

struct zookeeper_client::session {
  std::shared_ptr<control_block> cb;
  zhandle_t* zh = nullptr;
  bool retired = false; // replaced by reconnect(); guarded by cb->mtx

  std::mutex pending_mtx;
  std::unordered_set<pending*> in_flight;

  /// After zookeeper_close: no completion will run any more.
  void free_abandoned() {
    std::unordered_set<pending*> left;
    {
      std::lock_guard<std::mutex> guard{pending_mtx};
      left.swap(in_flight);
    }
    for (auto* p : left) {
      p->abandon();
      delete p;
    }
  }
};

namespace {

pending::pending(zookeeper_client::session* s) : owner(s) {
  std::lock_guard<std::mutex> guard{owner->pending_mtx};
  owner->in_flight.insert(this);
}

pending::~pending() {
  std::lock_guard<std::mutex> guard{owner->pending_mtx};
  owner->in_flight.erase(this);
}

} // namespace

namespace {

using control_block = zookeeper_client::control_block;
using session = zookeeper_client::session;

// -- logging: ZooKeeper's log lines go to spdlog -------------------------------------------

// The C client formats "time:pid(0xtid):ZOO_WARN@function@line: message".
// Repeats from one call site (a refused connection every recv_timeout / 60)
// are logged once per 10 s with a count.
void log_from_zookeeper(const char* line) {
  using clock = std::chrono::steady_clock;
  std::string_view text{line};
  auto level = spdlog::level::info;
  auto tag = text.find(":ZOO_");
  std::string site;
  if (tag != std::string_view::npos) {
    auto rest = text.substr(tag + 5);
    if (rest.rfind("ERROR", 0) == 0)
      level = spdlog::level::err;
    else if (rest.rfind("WARN", 0) == 0)
      level = spdlog::level::warn;
    else if (rest.rfind("INFO", 0) == 0)
      level = spdlog::level::debug;
    else
      level = spdlog::level::trace;
    auto body = rest.find(": ");
    site = std::string{rest.substr(0, body)};
    if (body != std::string_view::npos)
      text = rest.substr(body + 2);
  }
  if (!spdlog::should_log(level))
    return;
  struct seen {
    clock::time_point last;
    int suppressed = 0;
  };
  static std::mutex mtx;
  static std::map<std::string, seen> sites;
  constexpr auto quiet = std::chrono::seconds{10};
  int suppressed = 0;
  {
    std::lock_guard<std::mutex> guard{mtx};
    auto now = clock::now();
    auto [i, added] = sites.try_emplace(site, seen{now, 0});
    if (!added) {
      if (now - i->second.last < quiet) {
        ++i->second.suppressed;
        return;
      }
      suppressed = i->second.suppressed;
      i->second = seen{now, 0};
    }
  }
  if (suppressed > 0)
    spdlog::log(level, "zookeeper: {} ({} similar since)", text, suppressed);
  else
    spdlog::log(level, "zookeeper: {}", text);
}

// The C client logs to a FILE* when no per-handle callback applies (before
// a handle exists): a stream that forwards whole lines to spdlog.
ssize_t write_to_spdlog(void*, const char* buf, size_t size) {
  static std::mutex mtx;
  static std::string pending;
  std::lock_guard<std::mutex> guard{mtx};
  pending.append(buf, size);
  for (auto nl = pending.find('\n'); nl != std::string::npos;
       nl = pending.find('\n')) {
    auto line = pending.substr(0, nl);
    pending.erase(0, nl + 1);
    if (!line.empty())
      log_from_zookeeper(line.c_str());
  }
  return static_cast<ssize_t>(size);
}

void route_zookeeper_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    cookie_io_functions_t io{};
    io.write = write_to_spdlog;
    if (auto* stream = fopencookie(nullptr, "w", io)) {
      setvbuf(stream, nullptr, _IOLBF, 0);
      zoo_set_log_stream(stream);
    }
    zoo_set_debug_level(ZOO_LOG_LEVEL_INFO);
  });
}

// -- conversions ------------------------------------------------------------------------

zk_error error_from(int rc) {
  switch (rc) {
    case ZOK:
      return zk_error::ok;
    case ZNONODE:
      return zk_error::no_node;
    case ZNODEEXISTS:
      return zk_error::node_exists;
    case ZBADVERSION:
      return zk_error::bad_version;
    case ZNOTEMPTY:
      return zk_error::not_empty;
    case ZNOCHILDRENFOREPHEMERALS:
      return zk_error::no_children_for_ephemerals;
    case ZCONNECTIONLOSS:
      return zk_error::connection_loss;
    case ZOPERATIONTIMEOUT:
      return zk_error::operation_timeout;
    case ZSESSIONEXPIRED:
      return zk_error::session_expired;
    case ZSESSIONMOVED:
      return zk_error::session_moved;
    case ZCLOSING:
      return zk_error::closing;
    case ZINVALIDSTATE:
      return zk_error::invalid_state;
    case ZBADARGUMENTS:
      return zk_error::bad_arguments;
    case ZNOAUTH:
      return zk_error::no_auth;
    case ZAUTHFAILED:
      return zk_error::auth_failed;
    case ZINVALIDACL:
      return zk_error::invalid_acl;
    case ZNOTREADONLY:
      return zk_error::not_read_only;
    case ZMARSHALLINGERROR:
      return zk_error::marshalling_error;
    case ZTHROTTLEDOP:
      return zk_error::throttled;
    default:
      return zk_error::system_error;
  }
}

session_state state_from(int state) {
  if (state == ZOO_CONNECTED_STATE)
    return session_state::connected;
  if (state == ZOO_READONLY_STATE)
    return session_state::read_only;
  if (state == ZOO_EXPIRED_SESSION_STATE)
    return session_state::expired;
  if (state == ZOO_AUTH_FAILED_STATE)
    return session_state::auth_failed;
  return session_state::connecting; // CONNECTING, ASSOCIATING, NOTCONNECTED
}

watch_kind watch_from(int type) {
  if (type == ZOO_CREATED_EVENT)
    return watch_kind::created;
  if (type == ZOO_DELETED_EVENT)
    return watch_kind::deleted;
  if (type == ZOO_CHILD_EVENT)
    return watch_kind::children_changed;
  if (type == ZOO_NOTWATCHING_EVENT)
    return watch_kind::not_watching;
  return watch_kind::data_changed;
}

int mode_flags(create_mode mode) {
  switch (mode) {
    case create_mode::persistent:
      return ZOO_PERSISTENT;
    case create_mode::ephemeral:
      return ZOO_EPHEMERAL;
    case create_mode::persistent_sequential:
      return ZOO_PERSISTENT_SEQUENTIAL;
    case create_mode::ephemeral_sequential:
      return ZOO_EPHEMERAL_SEQUENTIAL;
  }
  return ZOO_PERSISTENT;
}

znode_stat stat_from(const Stat* s) {
  znode_stat out;
  if (s == nullptr)
    return out;
  out.czxid = s->czxid;
  out.mzxid = s->mzxid;
  out.ctime = s->ctime;
  out.mtime = s->mtime;
  out.version = s->version;
  out.cversion = s->cversion;
  out.aversion = s->aversion;
  out.ephemeral_owner = s->ephemeralOwner;
  out.data_length = s->dataLength;
  out.num_children = s->numChildren;
  out.pzxid = s->pzxid;
  return out;
}

int data_length(const std::string& data) {
  return static_cast<int>(data.size());
}

// -- ACLs: Kafka's ZkData.defaultAcls ----------------------------------------------------

// ZkData.SensitiveRootPaths: a prefix match, as Kafka's startsWith.
bool sensitive_path(std::string_view path) {
  for (std::string_view root :
       {"/config/users", "/config/brokers", "/delegation_token/tokens"})
    if (path.substr(0, root.size()) == root)
      return true;
  return false;
}

// The C client's ACL list for a new znode at `path` (static storage: the
// client copies it into the request).
ACL_vector* acls_for(bool secure, std::string_view path) {
  if (!secure || path == "/consumers")
    return &ZOO_OPEN_ACL_UNSAFE;
  if (sensitive_path(path))
    return &ZOO_CREATOR_ALL_ACL;
  static ACL creator_all_world_read[] = {{ZOO_PERM_ALL, ZOO_AUTH_IDS},
                                         {ZOO_PERM_READ, ZOO_ANYONE_ID_UNSAFE}};
  static ACL_vector acls{2, creator_all_world_read};
  return &acls;
}

void on_auth_added(int rc, const void*) {
  if (rc != ZOK)
    spdlog::error("zookeeper: digest authentication failed: {}", zerror(rc));
}

// -- requests -----------------------------------------------------------------------------

// One request in flight: owns the handler; freed by its completion.
template <class Result>
struct request : pending {
  request(session* s, std::function<void(Result)> f)
    : pending(s), cb(s->cb), done(std::move(f)) {
    // nop
  }

  std::shared_ptr<control_block> cb;
  std::function<void(Result)> done;

  void finish(Result result) {
    cb->deliver([&] { done(std::move(result)); });
  }

  void abandon() override {
    Result result{};
    if constexpr (std::is_same_v<Result, zk_error>)
      result = zk_error::closing;
    else
      result.error = zk_error::closing;
    finish(std::move(result));
  }
};

template <class Result>
request<Result>* new_request(session* s, std::function<void(Result)> done) {
  return new request<Result>{s, std::move(done)};
}

template <class Result>
std::unique_ptr<request<Result>> take(const void* data) {
  return std::unique_ptr<request<Result>>{
    static_cast<request<Result>*>(const_cast<void*>(data))};
}

// Answers at once when the C client refused a request before sending it.
template <class Result>
void finish_now(request<Result>* req, int rc, Result result) {
  std::unique_ptr<request<Result>> owned{req};
  result.error = error_from(rc);
  owned->finish(std::move(result));
}

void on_created(int rc, const char* path, const void* data) {
  auto req = take<create_result>(data);
  req->finish({error_from(rc), rc == ZOK && path ? path : ""});
}

void on_stat(int rc, const Stat* stat, const void* data) {
  auto req = take<stat_result>(data);
  req->finish({error_from(rc), stat_from(rc == ZOK ? stat : nullptr)});
}

void on_data(int rc, const char* value, int len, const Stat* stat,
             const void* data) {
  auto req = take<data_result>(data);
  data_result result{error_from(rc), {}, {}};
  if (rc == ZOK) {
    if (value != nullptr && len > 0)
      result.data.assign(value, static_cast<size_t>(len));
    result.stat = stat_from(stat);
  }
  req->finish(std::move(result));
}

void on_done(int rc, const void* data) {
  auto req = take<zk_error>(data);
  auto error = error_from(rc);
  req->cb->deliver([&] { req->done(error); });
}

void on_children(int rc, const String_vector* names, const Stat* stat,
                 const void* data) {
  auto req = take<children_result>(data);
  children_result result{error_from(rc), {}, {}};
  if (rc == ZOK) {
    if (names != nullptr)
      for (int32_t i = 0; i < names->count; ++i)
        result.children.emplace_back(names->data[i]);
    result.stat = stat_from(stat);
  }
  req->finish(std::move(result));
}

// A multi: the C client fills `results` (and the created paths) when it
// completes, so they live here.
struct multi_request : pending {
  explicit multi_request(session* s) : pending(s), cb(s->cb) {
    // nop
  }

  std::shared_ptr<control_block> cb;
  std::function<void(multi_result)> done;
  std::vector<zk_op> ops;
  std::vector<zoo_op_t> c_ops;
  std::vector<zoo_op_result_t> results;
  std::vector<std::array<char, 512>> created_paths;

  void abandon() override {
    multi_result result;
    result.error = zk_error::closing;
    result.op_errors.assign(ops.size(), zk_error::closing);
    cb->deliver([&] { done(std::move(result)); });
  }
};

void on_multi(int rc, const void* data) {
  std::unique_ptr<multi_request> req{
    static_cast<multi_request*>(const_cast<void*>(data))};
  multi_result result;
  result.error = error_from(rc);
  for (auto& r : req->results)
    result.op_errors.push_back(error_from(r.err));
  req->cb->deliver([&] { req->done(std::move(result)); });
}

// -- createRecursive -------------------------------------------------------------------------

// KafkaZkClient.createRecursive, asynchronously: on NONODE, creates the
// missing ancestors top-down (persistent, no data), then the path once more.
// Every step after the first runs on ZooKeeper's completion thread, on the
// handle of the session it started in.
struct recursive_create : pending {
  recursive_create(session* owner, std::string p, std::string d, create_mode m,
                   std::function<void(create_result)> f)
    : pending(owner),
      cb(owner->cb),
      s(owner),
      path(std::move(p)),
      data(std::move(d)),
      mode(m),
      done(std::move(f)) {
    // nop
  }

  std::shared_ptr<control_block> cb;
  session* s;
  std::string path;
  std::string data;
  create_mode mode;
  std::function<void(create_result)> done;
  std::vector<std::string> missing; // ancestors to create, deepest first
  bool retried = false;

  // Issues the next create; false when it could not be issued (then the
  // chain is finished and `this` deleted).
  void step();
  void finish(zk_error error, std::string created = {}) {
    std::unique_ptr<recursive_create> owned{this};
    cb->deliver([&] { done({error, std::move(created)}); });
  }

  void abandon() override {
    cb->deliver([&] { done({zk_error::closing, {}}); });
  }
};

void on_recursive_created(int rc, const char* created, const void* data) {
  auto* chain = static_cast<recursive_create*>(const_cast<void*>(data));
  auto error = error_from(rc);
  if (chain->missing.empty()) {
    // The path itself.
    if (error == zk_error::no_node && !chain->retried) {
      auto slash = chain->path.rfind('/');
      if (slash == 0 || slash == std::string::npos)
        return chain->finish(error); // the chroot itself is missing
      chain->missing.push_back(chain->path.substr(0, slash));
      return chain->step();
    }
    return chain->finish(error, rc == ZOK && created ? created : "");
  }
  // An ancestor.
  if (error == zk_error::no_node) {
    auto& deepest = chain->missing.back();
    auto slash = deepest.rfind('/');
    if (slash == 0 || slash == std::string::npos)
      return chain->finish(error);
    chain->missing.push_back(deepest.substr(0, slash));
    return chain->step();
  }
  if (error != zk_error::ok && error != zk_error::node_exists)
    return chain->finish(error);
  chain->missing.pop_back();
  if (chain->missing.empty())
    chain->retried = true;
  chain->step();
}

void recursive_create::step() {
  auto keep = cb; // `delete this` below must not free the mutex we hold
  int rc = ZOK;
  {
    std::lock_guard<std::recursive_mutex> guard{keep->mtx};
    if (cb->closed) {
      delete this; // nobody to tell
      return;
    }
    if (s->zh == nullptr) {
      rc = ZINVALIDSTATE;
    } else if (s->retired) {
      rc = ZCLOSING;
    } else if (missing.empty()) {
      rc = zoo_acreate(s->zh, path.c_str(), data.data(), data_length(data),
                       acls_for(cb->secure, path), mode_flags(mode),
                       on_recursive_created, this);
    } else {
      rc = zoo_acreate(s->zh, missing.back().c_str(), nullptr, -1,
                       acls_for(cb->secure, missing.back()), ZOO_PERSISTENT,
                       on_recursive_created, this);
    }
  }
  if (rc != ZOK)
    finish(error_from(rc));
}

// -- sessions ---------------------------------------------------------------------------------

void on_zookeeper_event(zhandle_t* zh, int type, int state, const char* path,
                        void* context) {
  auto* s = static_cast<session*>(context);
  auto& cb = *s->cb;
  if (type != ZOO_SESSION_EVENT) {
    watch_event event{watch_from(type), path ? path : ""};
    cb.deliver([&] { cb.on_watch(event); });
    return;
  }
  std::lock_guard<std::recursive_mutex> guard{cb.mtx};
  if (s->retired)
    return; // an old session's news; reconnect() has moved on
  session_event event;
  event.state = state_from(state);
  if (event.state == session_state::connected
      || event.state == session_state::read_only) {
    if (auto* id = zoo_client_id(zh))
      event.session_id = id->client_id;
    event.negotiated_timeout_ms = zoo_recv_timeout(zh);
  } else {
    event.session_id = cb.session_id; // the session that lost its link
  }
  cb.state = event.state;
  cb.session_id = event.session_id;
  cb.deliver([&] { cb.on_session(event); });
}

// Closes a handle: synchronously (one round trip) unless called from a
// handler, which runs on the handle's own completion thread.
void close_session(std::unique_ptr<session> s) {
  if (!s || s->zh == nullptr)
    return;
  if (in_handler) {
    std::thread{[s = s.release()] {
      zookeeper_close(s->zh);
      s->free_abandoned();
      delete s;
    }}.detach();
    return;
  }
  zookeeper_close(s->zh);
  s->free_abandoned();
}

} // namespace

// -- names ----------------------------------------------------------------------------------

std::vector<zk_acl_entry> kafka_default_acls(bool secure,
                                             std::string_view path) {
  std::vector<zk_acl_entry> out;
  auto* acls = acls_for(secure, path);
  for (int32_t i = 0; i < acls->count; ++i)
    out.push_back({acls->data[i].perms, acls->data[i].id.scheme,
                   acls->data[i].id.id});
  return out;
}

std::string_view to_string(zk_error error) {
  switch (error) {
    case zk_error::ok:
      return "OK";
    case zk_error::no_node:
      return "NONODE";
    case zk_error::node_exists:
      return "NODEEXISTS";
    case zk_error::bad_version:
      return "BADVERSION";
    case zk_error::not_empty:
      return "NOTEMPTY";
    case zk_error::no_children_for_ephemerals:
      return "NOCHILDRENFOREPHEMERALS";
    case zk_error::connection_loss:
      return "CONNECTIONLOSS";
    case zk_error::operation_timeout:
      return "OPERATIONTIMEOUT";
    case zk_error::session_expired:
      return "SESSIONEXPIRED";
    case zk_error::session_moved:
      return "SESSIONMOVED";
    case zk_error::closing:
      return "CLOSING";
    case zk_error::invalid_state:
      return "INVALIDSTATE";
    case zk_error::bad_arguments:
      return "BADARGUMENTS";
    case zk_error::no_auth:
      return "NOAUTH";
    case zk_error::auth_failed:
      return "AUTHFAILED";
    case zk_error::invalid_acl:
      return "INVALIDACL";
    case zk_error::not_read_only:
      return "NOTREADONLY";
    case zk_error::marshalling_error:
      return "MARSHALLINGERROR";
    case zk_error::throttled:
      return "THROTTLEDOP";
    case zk_error::system_error:
      return "SYSTEMERROR";
  }
  return "SYSTEMERROR";
}

bool is_retriable(zk_error error) {
  return error == zk_error::connection_loss
         || error == zk_error::operation_timeout
         || error == zk_error::throttled;
}

std::string_view to_string(session_state state) {
  switch (state) {
    case session_state::connecting:
      return "CONNECTING";
    case session_state::connected:
      return "CONNECTED";
    case session_state::read_only:
      return "CONNECTED_READ_ONLY";
    case session_state::expired:
      return "EXPIRED";
    case session_state::auth_failed:
      return "AUTH_FAILED";
  }
  return "CONNECTING";
}

// -- the client -------------------------------------------------------------------------------

zookeeper_client::zookeeper_client(zk::connect_string connect,
                                   int32_t session_timeout_ms,
                                   std::shared_ptr<control_block> cb)
  : connect_(std::move(connect)),
    session_timeout_ms_(session_timeout_ms),
    cb_(std::move(cb)) {
  // nop
}

std::variant<std::unique_ptr<zookeeper_client>, std::string>
zookeeper_client::connect(zookeeper_config config, session_handler on_session,
                          watch_handler on_watch) {
  auto parsed = zk::parse_connect_string(config.connect);
  if (!parsed)
    return parsed.error();
  if (config.session_timeout_ms <= 0)
    return "zookeeper.session.timeout.ms must be positive";
  route_zookeeper_logs();
  auto cb = std::make_shared<control_block>();
  cb->secure = config.set_acl;
  cb->on_session =
    on_session ? std::move(on_session) : [](const session_event&) {};
  cb->on_watch = on_watch ? std::move(on_watch) : [](const watch_event&) {};
  std::unique_ptr<zookeeper_client> client{
    new zookeeper_client(*parsed, config.session_timeout_ms, std::move(cb))};
  client->digest_ = std::move(config.digest);
  if (auto error = client->open_session(); !error.empty())
    return error;
  return client;
}

std::string zookeeper_client::open_session() {
  auto s = std::make_unique<session>();
  s->cb = cb_;
  // The watcher's context must exist before the handle: events may come
  // before zookeeper_init2 returns.
  auto* context = s.get();
  auto hosts = connect_.to_string();
  s->zh =
    zookeeper_init2(hosts.c_str(), on_zookeeper_event, session_timeout_ms_,
                    nullptr, context, 0, log_from_zookeeper);
  std::string error;
  if (s->zh == nullptr)
    error = "zookeeper: cannot create a handle for " + hosts + ": "
            + std::strerror(errno);
  else if (!digest_.empty()) {
    // Sent ahead of every request of the session (and again when the C
    // client reconnects the same session), as Kafka's SASL login.
    int rc = zoo_add_auth(s->zh, "digest", digest_.data(),
                          static_cast<int>(digest_.size()), on_auth_added,
                          nullptr);
    if (rc != ZOK)
      error = std::string{"zookeeper: cannot add digest authentication: "}
              + zerror(rc);
  }
  session_ = std::move(s);
  return error;
}

zookeeper_client::~zookeeper_client() {
  {
    std::lock_guard<std::recursive_mutex> guard{cb_->mtx};
    cb_->closed = true;
  }
  close_session(std::move(session_));
}

std::string zookeeper_client::reconnect() {
  {
    std::lock_guard<std::recursive_mutex> guard{cb_->mtx};
    if (session_)
      session_->retired = true;
  }
  cb_->state = session_state::connecting;
  cb_->session_id = 0;
  close_session(std::move(session_));
  return open_session();
}

session_state zookeeper_client::state() const {
  return cb_->state;
}

int64_t zookeeper_client::session_id() const {
  return cb_->session_id;
}

void zookeeper_client::create(const std::string& path, std::string data,
                              create_mode mode, handler<create_result> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc =
    session_->zh == nullptr
      ? ZINVALIDSTATE
      : zoo_acreate(session_->zh, path.c_str(), data.data(), data_length(data),
                    acls_for(cb_->secure, path), mode_flags(mode), on_created,
                    req);
  if (rc != ZOK)
    finish_now(req, rc, create_result{});
}

void zookeeper_client::create_recursive(const std::string& path,
                                        std::string data, create_mode mode,
                                        handler<create_result> done) {
  auto* chain = new recursive_create{session_.get(), path, std::move(data),
                                     mode, std::move(done)};
  chain->step();
}

void zookeeper_client::get(const std::string& path, bool watch,
                           handler<data_result> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc = session_->zh == nullptr ? ZINVALIDSTATE
                                   : zoo_aget(session_->zh, path.c_str(),
                                              watch ? 1 : 0, on_data, req);
  if (rc != ZOK)
    finish_now(req, rc, data_result{});
}

void zookeeper_client::set(const std::string& path, std::string data,
                           int32_t version, handler<stat_result> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc = session_->zh == nullptr
             ? ZINVALIDSTATE
             : zoo_aset(session_->zh, path.c_str(), data.data(),
                        data_length(data), version, on_stat, req);
  if (rc != ZOK)
    finish_now(req, rc, stat_result{});
}

void zookeeper_client::remove(const std::string& path, int32_t version,
                              handler<zk_error> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc = session_->zh == nullptr
             ? ZINVALIDSTATE
             : zoo_adelete(session_->zh, path.c_str(), version, on_done, req);
  if (rc != ZOK) {
    std::unique_ptr<request<zk_error>> owned{req};
    auto error = error_from(rc);
    cb_->deliver([&] { owned->done(error); });
  }
}

void zookeeper_client::exists(const std::string& path, bool watch,
                              handler<stat_result> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc = session_->zh == nullptr ? ZINVALIDSTATE
                                   : zoo_aexists(session_->zh, path.c_str(),
                                                 watch ? 1 : 0, on_stat, req);
  if (rc != ZOK)
    finish_now(req, rc, stat_result{});
}

void zookeeper_client::get_children(const std::string& path, bool watch,
                                    handler<children_result> done) {
  auto* req = new_request(session_.get(), std::move(done));
  int rc = session_->zh == nullptr
             ? ZINVALIDSTATE
             : zoo_aget_children2(session_->zh, path.c_str(), watch ? 1 : 0,
                                  on_children, req);
  if (rc != ZOK)
    finish_now(req, rc, children_result{});
}

void zookeeper_client::multi(std::vector<zk_op> ops,
                             handler<multi_result> done) {
  auto req = std::make_unique<multi_request>(session_.get());
  req->done = std::move(done);
  req->ops = std::move(ops);
  auto n = req->ops.size();
  req->c_ops.resize(n);
  req->results.resize(n);
  req->created_paths.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto& op = req->ops[i];
    auto* c_op = &req->c_ops[i];
    switch (op.type) {
      case zk_op::kind::create:
        zoo_create_op_init(c_op, op.path.c_str(), op.data.data(),
                           data_length(op.data),
                           acls_for(cb_->secure, op.path), mode_flags(op.mode),
                           req->created_paths[i].data(),
                           static_cast<int>(req->created_paths[i].size()));
        break;
      case zk_op::kind::remove:
        zoo_delete_op_init(c_op, op.path.c_str(), op.version);
        break;
      case zk_op::kind::set:
        zoo_set_op_init(c_op, op.path.c_str(), op.data.data(),
                        data_length(op.data), op.version, nullptr);
        break;
      case zk_op::kind::check:
        zoo_check_op_init(c_op, op.path.c_str(), op.version);
        break;
    }
  }
  auto* raw = req.get();
  int rc = session_->zh == nullptr
             ? ZINVALIDSTATE
             : zoo_amulti(session_->zh, static_cast<int>(n), raw->c_ops.data(),
                          raw->results.data(), on_multi, raw);
  if (rc == ZOK) {
    req.release(); // on_multi frees it
    return;
  }
  multi_result result;
  result.error = error_from(rc);
  result.op_errors.assign(n, result.error);
  cb_->deliver([&] { raw->done(std::move(result)); });
}

} // namespace troupe::cluster
