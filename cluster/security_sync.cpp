#include "cluster/security_sync.hpp"

#include <algorithm>
#include <memory>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/security_admin.hpp"
#include "cluster/zk_ops.hpp"
#include "cluster/zookeeper/zookeeper_client.hpp"
#include "domain/zookeeper/acl_znodes.hpp"
#include "domain/zookeeper/kafka_znodes.hpp"

namespace troupe::cluster_security {

/// What a node remembers of the change paths: the newest notification it
/// handled on each, and whether the full read at the session's start is
/// done (a change seen during it reads everything once more after it).
struct sync_state {
  int64_t last_literal = -1;
  int64_t last_extended = -1;
  int64_t last_config = -1;
  bool loading = false;
  bool reload = false;
};

namespace {

using kind = zk_operation::kind;
using zk_error = cluster::zk_error;
using security::access_entry;
using security::acl_binding;
using security::pattern_type;
using security::resource_pattern;
using node_agent::zk_ask;

/// Another writer won this many times in a row: give up (Kafka's
/// updateResourceAcls retries without bound; troupe answers an error).
constexpr int max_attempts = 20;

using zk_ops::is;
using zk_ops::zop;

sync_state& state_of(cluster_controller_ptr self) {
  auto& st = self->state;
  if (!st.security_sync)
    st.security_sync = std::make_shared<sync_state>();
  return *st.security_sync;
}

/// The sequence number of "<prefix><ten digits>", or -1.
int64_t sequence_of(const std::string& child, std::string_view prefix) {
  if (child.compare(0, prefix.size(), prefix) != 0)
    return -1;
  auto n = zk::parse_java_int(child.substr(prefix.size()));
  return n ? *n : -1;
}

// -- reading ------------------------------------------------------------------

/// Counts outstanding reads; `done` once the last one answered.
struct fan {
  size_t pending = 1;
  std::function<void()> done;
  void add() {
    ++pending;
  }
  void finish() {
    if (--pending == 0 && done)
      done();
  }
};

void full_load(cluster_controller_ptr self);

/// Every binding and credential in ZooKeeper, read afresh into the store.
void full_load(cluster_controller_ptr self) {
  auto& sync = state_of(self);
  if (!self->state.security)
    return;
  if (sync.loading) {
    sync.reload = true;
    return;
  }
  sync.loading = true;
  sync.reload = false;
  auto acls = std::make_shared<std::vector<acl_binding>>();
  auto scram = std::make_shared<security::scram_credentials>();
  auto f = std::make_shared<fan>();
  f->done = [self, acls, scram] {
    auto& st = self->state;
    st.security->set_acls(std::move(*acls));
    st.security->set_scram(std::move(*scram));
    spdlog::info("cluster: {} ACLs and the SCRAM credentials of {} users "
                 "read from ZooKeeper",
                 st.security->snapshot()->acls().bindings().size(),
                 st.security->snapshot()->scram().size());
    auto& sync = state_of(self);
    sync.loading = false;
    if (sync.reload)
      full_load(self);
  };
  for (auto pattern : {pattern_type::literal, pattern_type::prefixed}) {
    auto store = zk::acl_store_path(pattern);
    f->add();
    zk_ask(self, zop(kind::children, store),
           [self, f, acls, store, pattern](zk_result& types) {
             for (auto& type : types.children) {
               f->add();
               zk_ask(self, zop(kind::children, store + '/' + type),
                      [self, f, acls, store, pattern, type](zk_result& names) {
                        for (auto& name : names.children) {
                          auto rp = zk::resource_of_path(pattern, type, name);
                          if (!rp)
                            continue;
                          f->add();
                          zk_ask(self,
                                 zop(kind::get, zk::resource_acl_path(*rp)),
                                 [f, acls, rp = *rp](zk_result& r) {
                                   auto entries =
                                     zk::decode_resource_acls(r.data);
                                   if (is(r, zk_error::ok) && entries)
                                     for (auto& e : *entries)
                                       acls->push_back({rp, e});
                                   else if (is(r, zk_error::ok))
                                     spdlog::error("cluster: {}",
                                                   entries.error());
                                   f->finish();
                                 });
                        }
                        f->finish();
                      });
             }
             f->finish();
           });
  }
  f->add();
  zk_ask(self, zop(kind::children, std::string{zk::config_users_path}),
         [self, f, scram](zk_result& users) {
           for (auto& child : users.children) {
             f->add();
             zk_ask(self,
                    zop(kind::get,
                        std::string{zk::config_users_path} + '/' + child),
                    [f, scram, user = zk::desanitize_entity_name(child)](
                      zk_result& r) {
                      auto config = zk::decode_topic_config(r.data);
                      if (is(r, zk_error::ok) && config) {
                        auto creds = zk::scram_of_user_config(*config);
                        if (!creds.empty())
                          (*scram)[user] = std::move(creds);
                      }
                      f->finish();
                    });
           }
           f->finish();
         });
  f->finish();
}

/// One resource's bindings, read afresh (a notification named it).
void reload_resource(cluster_controller_ptr self, resource_pattern pattern) {
  zk_ask(self, zop(kind::get, zk::resource_acl_path(pattern)),
         [self, pattern](zk_result& r) {
           auto& st = self->state;
           if (!st.security)
             return;
           if (is(r, zk_error::no_node)) {
             st.security->set_resource_acls(pattern, {});
             return;
           }
           auto entries = zk::decode_resource_acls(r.data);
           if (!is(r, zk_error::ok) || !entries) {
             if (!entries)
               spdlog::error("cluster: {}", entries.error());
             return;
           }
           st.security->set_resource_acls(pattern, *entries);
         });
}

/// One user's credentials, read afresh.
void reload_user(cluster_controller_ptr self, std::string user) {
  zk_ask(self, zop(kind::get, zk::user_config_path(user)),
         [self, user](zk_result& r) {
           auto& st = self->state;
           if (!st.security)
             return;
           if (is(r, zk_error::no_node)) {
             st.security->set_user_scram(user, {});
             return;
           }
           auto config = zk::decode_topic_config(r.data);
           if (is(r, zk_error::ok) && config)
             st.security->set_user_scram(user,
                                         zk::scram_of_user_config(*config));
         });
}

/// ZkNodeChangeNotificationListener.purgeObsoleteNotifications: every node
/// deletes the notifications older than 15 minutes (changeExpirationMs),
/// so the change paths do not grow with every change ever made.
void purge_notifications(cluster_controller_ptr self, const std::string& dir,
                         const std::vector<std::string>& children) {
  constexpr int64_t change_expiration_ms = 15 * 60 * 1000;
  for (auto& child : children) {
    auto path = dir + '/' + child;
    zk_ask(self, zop(kind::exists, path), [self, path](zk_result& r) {
      if (!is(r, zk_error::ok)
          || wall_clock_ms() - r.ctime_ms <= change_expiration_ms)
        return;
      zk_ask(self, zop(kind::remove, path), [](zk_result&) {});
    });
  }
}

/// Lists a change path (and watches it again); handles the notifications
/// newer than the last one seen, except at the start, which only takes
/// note of where they are (the full read covers them).
void watch_acl_changes(cluster_controller_ptr self, bool extended,
                       bool initial) {
  std::string path{extended ? zk::extended_acl_changes_path
                            : zk::literal_acl_changes_path};
  auto o = zop(kind::children, path);
  o.watch = true;
  zk_ask(self, std::move(o), [self, path, extended, initial](zk_result& r) {
    if (!is(r, zk_error::ok))
      return;
    auto& sync = state_of(self);
    auto& last = extended ? sync.last_extended : sync.last_literal;
    auto children = r.children;
    std::sort(children.begin(), children.end());
    purge_notifications(self, path, children);
    for (auto& child : children) {
      auto seq = sequence_of(child, zk::acl_change_prefix);
      if (seq <= last)
        continue;
      last = seq;
      if (initial)
        continue;
      zk_ask(self, zop(kind::get, path + '/' + child),
             [self, extended](zk_result& n) {
               if (!is(n, zk_error::ok))
                 return;
               auto pattern = zk::decode_acl_change(n.data, extended);
               if (!pattern) {
                 spdlog::error("cluster: {}", pattern.error());
                 return;
               }
               if (state_of(self).loading)
                 full_load(self); // read again once the first read is done
               else
                 reload_resource(self, *pattern);
             });
    }
  });
}

void watch_config_changes(cluster_controller_ptr self, bool initial) {
  std::string path{zk::config_changes_path};
  auto o = zop(kind::children, path);
  o.watch = true;
  zk_ask(self, std::move(o), [self, path, initial](zk_result& r) {
    if (!is(r, zk_error::ok))
      return;
    auto& sync = state_of(self);
    auto children = r.children;
    std::sort(children.begin(), children.end());
    for (auto& child : children) {
      auto seq = sequence_of(child, "config_change_");
      if (seq <= sync.last_config)
        continue;
      sync.last_config = seq;
      if (initial)
        continue;
      zk_ask(self, zop(kind::get, path + '/' + child), [self](zk_result& n) {
        if (!is(n, zk_error::ok))
          return;
        auto entity = zk::decode_config_change(n.data);
        if (!entity)
          return;
        auto user = zk::user_of_entity_path(*entity);
        if (user.empty())
          return;
        if (state_of(self).loading)
          full_load(self);
        else
          reload_user(self, user);
      });
    }
  });
}

// -- writing ------------------------------------------------------------------

/// AclAuthorizer.updateResourceAcls: reads the resource's bindings with
/// their zkVersion, writes `change`'s result conditionally on it (or
/// deletes the znode when nothing is left), starts over when another writer
/// won, then announces the change and applies it to this node's store.
/// `done(ok, before, after)`.
void update_resource(
  cluster_controller_ptr self, resource_pattern pattern,
  std::function<std::vector<access_entry>(const std::vector<access_entry>&)>
    change,
  std::function<void(bool, const std::vector<access_entry>&,
                     const std::vector<access_entry>&)>
    done,
  int attempt = 0) {
  auto path = zk::resource_acl_path(pattern);
  zk_ask(self, zop(kind::get, path), [=](zk_result& r) {
    bool exists = is(r, zk_error::ok);
    if (!exists && !is(r, zk_error::no_node)) {
      done(false, {}, {});
      return;
    }
    auto current = exists ? zk::decode_resource_acls(r.data)
                          : zk::decoded<std::vector<access_entry>>{
                            std::vector<access_entry>{}};
    if (!current) {
      spdlog::error("cluster: {}", current.error());
      done(false, {}, {});
      return;
    }
    auto before = *current;
    auto after = change(before);
    if (after == before) {
      done(true, before, after);
      return;
    }
    zk_operation write;
    if (after.empty())
      write = zop(kind::remove, path, {}, r.version);
    else if (exists)
      write = zop(kind::set, path, zk::encode_resource_acls(after), r.version);
    else
      write = zop(kind::create_recursive, path, zk::encode_resource_acls(after));
    zk_ask(self, std::move(write), [=](zk_result& w) {
      if (is(w, zk_error::bad_version) || is(w, zk_error::node_exists)
          || is(w, zk_error::no_node)) {
        if (attempt + 1 >= max_attempts) {
          done(false, {}, {});
          return;
        }
        update_resource(self, pattern, change, done, attempt + 1);
        return;
      }
      if (!is(w, zk_error::ok)) {
        spdlog::warn("cluster: cannot write {}: {}", path,
                     to_string(static_cast<zk_error>(w.error)));
        done(false, {}, {});
        return;
      }
      auto note = zop(kind::create,
                      std::string{zk::acl_changes_path(pattern.pattern)} + '/'
                        + std::string{zk::acl_change_prefix},
                      zk::encode_acl_change(pattern));
      note.sequential = true;
      zk_ask(self, std::move(note), [](zk_result&) {});
      if (auto& store = self->state.security)
        store->set_resource_acls(pattern, after);
      done(true, before, after);
    });
  });
}

/// ZkAdminManager.alterUserScramCredentials for one user: reads
/// /config/users/<u> with its zkVersion, applies the request's deletions and
/// upsertions, writes conditionally, starts over when another writer won,
/// then announces it on /config/changes.
void update_user(cluster_controller_ptr self, std::string user,
                 std::shared_ptr<alter_scram_credentials_request> req,
                 std::function<void(scram_alteration_result)> done,
                 int attempt = 0) {
  auto path = zk::user_config_path(user);
  zk_ask(self, zop(kind::get, path), [=](zk_result& r) {
    bool exists = is(r, zk_error::ok);
    auto failed = [&done, &user] {
      done({user, error_code::unknown_server_error,
            "The SCRAM credentials could not be stored."});
    };
    if (!exists && !is(r, zk_error::no_node))
      return failed();
    auto config = exists ? zk::decode_topic_config(r.data)
                         : zk::decoded<topic_configs>{topic_configs{}};
    if (!config)
      return failed();
    auto credentials = zk::scram_of_user_config(*config);
    auto res = apply_scram_alterations(user, *req, credentials);
    if (res.error != error_code::none) {
      done(std::move(res));
      return;
    }
    auto data = zk::encode_topic_config(zk::with_scram(*config, credentials));
    auto write = exists ? zop(kind::set, path, data, r.version)
                        : zop(kind::create_recursive, path, data);
    zk_ask(self, std::move(write), [=](zk_result& w) {
      if (is(w, zk_error::bad_version) || is(w, zk_error::node_exists)
          || is(w, zk_error::no_node)) {
        if (attempt + 1 >= max_attempts)
          return done({user, error_code::unknown_server_error,
                       "The SCRAM credentials could not be stored."});
        update_user(self, user, req, done, attempt + 1);
        return;
      }
      if (!is(w, zk_error::ok))
        return done({user, error_code::unknown_server_error,
                     "The SCRAM credentials could not be stored."});
      auto note = zop(kind::create, std::string{zk::config_change_prefix},
                      zk::encode_config_change(zk::user_entity_path(user)));
      note.sequential = true;
      zk_ask(self, std::move(note), [](zk_result&) {});
      if (auto& store = self->state.security)
        store->set_user_scram(user, credentials);
      done(res);
    });
  });
}

} // namespace

void start(cluster_controller_ptr self) {
  auto& sync = state_of(self);
  sync.loading = false;
  sync.reload = false;
  auto& paths = zk::acl_persistent_paths();
  auto outstanding = std::make_shared<size_t>(paths.size());
  for (auto& path : paths)
    zk_ask(self, zop(kind::create_recursive, path),
           [self, outstanding](zk_result&) {
             if (--*outstanding > 0)
               return;
             watch_acl_changes(self, false, true);
             watch_acl_changes(self, true, true);
             watch_config_changes(self, true);
             full_load(self);
           });
}

bool on_watch(cluster_controller_ptr self, const std::string& path) {
  if (path == zk::literal_acl_changes_path) {
    watch_acl_changes(self, false, false);
    return true;
  }
  if (path == zk::extended_acl_changes_path) {
    watch_acl_changes(self, true, false);
    return true;
  }
  if (path == zk::config_changes_path) {
    watch_config_changes(self, false);
    return true;
  }
  return false;
}

caf::result<create_acls_response> create_acls(cluster_controller_ptr self,
                                              create_acls_request& req) {
  auto res = std::make_shared<create_acls_response>();
  res->results.resize(req.creations.size());
  // The valid creations, by resource pattern (each znode is written once).
  std::vector<std::pair<resource_pattern, std::vector<size_t>>> by_resource;
  for (size_t i = 0; i < req.creations.size(); ++i) {
    auto& b = req.creations[i];
    if (auto why = security::validate_binding(b)) {
      res->results[i] = {error_code::invalid_request, *why};
      continue;
    }
    auto j = std::find_if(by_resource.begin(), by_resource.end(),
                          [&](auto& x) { return x.first == b.pattern; });
    if (j == by_resource.end())
      by_resource.push_back({b.pattern, {i}});
    else
      j->second.push_back(i);
  }
  if (by_resource.empty())
    return std::move(*res);
  auto rp = self->make_response_promise<create_acls_response>();
  auto f = std::make_shared<fan>();
  f->done = [rp, res]() mutable { rp.deliver(std::move(*res)); };
  auto creations = std::make_shared<std::vector<acl_binding>>(req.creations);
  for (auto& [pattern, indexes] : by_resource) {
    f->add();
    auto add = [creations, indexes = indexes](
                 const std::vector<access_entry>& before) {
      auto after = before;
      for (auto i : indexes) {
        auto& e = (*creations)[i].entry;
        if (std::find(after.begin(), after.end(), e) == after.end())
          after.push_back(e);
      }
      return after;
    };
    update_resource(
      self, pattern, add,
      [f, res, indexes = indexes](bool ok, const std::vector<access_entry>&,
                                  const std::vector<access_entry>&) {
        for (auto i : indexes)
          res->results[i] =
            ok ? acl_creation_result{}
               : acl_creation_result{error_code::unknown_server_error,
                                     "Failed to update ACLs in ZooKeeper"};
        f->finish();
      });
  }
  f->finish();
  return rp;
}

caf::result<delete_acls_response> delete_acls(cluster_controller_ptr self,
                                              delete_acls_request& req) {
  auto res = std::make_shared<delete_acls_response>();
  std::vector<security::acl_binding_filter> filters;
  for (auto& f : req.filters) {
    auto filter = to_binding_filter(f);
    acl_deletion_result r;
    if (auto why = security::validate_filter(filter)) {
      r.error = error_code::invalid_request;
      r.message = *why;
    } else {
      filters.push_back(filter);
    }
    res->results.push_back(std::move(r));
  }
  // AclAuthorizer.deleteAcls: the resources its cache says match, each
  // then read afresh and rewritten.
  std::vector<resource_pattern> resources;
  if (auto& store = self->state.security)
    for (auto& b : store->snapshot()->acls().bindings())
      if (std::any_of(filters.begin(), filters.end(),
                      [&](auto& f) { return security::matches(f, b); })
          && std::find(resources.begin(), resources.end(), b.pattern)
               == resources.end())
        resources.push_back(b.pattern);
  if (resources.empty())
    return std::move(*res);
  auto rp = self->make_response_promise<delete_acls_response>();
  auto removed = std::make_shared<std::vector<acl_binding>>();
  auto failed = std::make_shared<bool>(false);
  auto f = std::make_shared<fan>();
  auto valid = std::make_shared<std::vector<security::acl_binding_filter>>(
    std::move(filters));
  auto raw = std::make_shared<std::vector<acl_filter>>(req.filters);
  f->done = [rp, res, removed, failed, raw]() mutable {
    for (size_t i = 0; i < raw->size(); ++i) {
      auto& r = res->results[i];
      if (r.error != error_code::none)
        continue;
      auto filter = to_binding_filter((*raw)[i]);
      for (auto& b : *removed)
        if (security::matches(filter, b))
          r.deleted.push_back(b);
      if (*failed && r.deleted.empty()) {
        r.error = error_code::unknown_server_error;
        r.message = "Failed to update ACLs in ZooKeeper";
      }
    }
    rp.deliver(std::move(*res));
  };
  for (auto& pattern : resources) {
    f->add();
    auto remove = [valid, pattern](const std::vector<access_entry>& before) {
      std::vector<access_entry> after;
      for (auto& e : before) {
        acl_binding b{pattern, e};
        if (!std::any_of(valid->begin(), valid->end(),
                         [&](auto& f) { return security::matches(f, b); }))
          after.push_back(e);
      }
      return after;
    };
    update_resource(self, pattern, remove,
                    [f, removed, failed,
                     pattern](bool ok, const std::vector<access_entry>& before,
                              const std::vector<access_entry>& after) {
                      if (!ok)
                        *failed = true;
                      for (auto& e : before)
                        if (std::find(after.begin(), after.end(), e)
                            == after.end())
                          removed->push_back({pattern, e});
                      f->finish();
                    });
  }
  f->finish();
  return rp;
}

caf::result<alter_scram_credentials_response>
alter_scram(cluster_controller_ptr self, alter_scram_credentials_request& req) {
  auto plan = plan_scram_alterations(req);
  if (plan.users.empty())
    return alter_scram_credentials_response{std::move(plan.refused)};
  auto rp = self->make_response_promise<alter_scram_credentials_response>();
  struct results {
    std::vector<scram_alteration_result> refused;
    std::vector<scram_alteration_result> not_found;
    std::vector<scram_alteration_result> altered;
  };
  auto out = std::make_shared<results>();
  out->refused = std::move(plan.refused);
  auto f = std::make_shared<fan>();
  f->done = [rp, out]() mutable {
    alter_scram_credentials_response res;
    res.results = std::move(out->refused);
    for (auto* xs : {&out->not_found, &out->altered})
      for (auto& r : *xs)
        res.results.push_back(std::move(r));
    rp.deliver(std::move(res));
  };
  auto shared = std::make_shared<alter_scram_credentials_request>(req);
  for (auto& user : plan.users) {
    f->add();
    update_user(self, user, shared, [f, out](scram_alteration_result r) {
      (r.error == error_code::none ? out->altered : out->not_found)
        .push_back(std::move(r));
      f->finish();
    });
  }
  f->finish();
  return rp;
}

} // namespace troupe::cluster_security
