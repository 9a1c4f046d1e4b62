// The active controller of a cluster of processes (docs/ARCHITECTURE.md
// §7): Kafka's KafkaController in ZooKeeper mode. The metadata lives in
// ZooKeeper in Kafka's layout; every write is a multi that first checks
// /controller_epoch's zkVersion, so a deposed controller's writes fail; each
// partition state is set with its own zkVersion (the partition epoch).

#include "cluster/active_controller.hpp"

#include <iterator>
#include <map>
#include <memory>
#include <set>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/metadata_view.hpp"
#include "actors/timeouts.hpp"
#include "cluster/zk_ops.hpp"
#include "cluster/zookeeper/zookeeper_client.hpp"

namespace troupe {

using namespace node_agent;

namespace {

using kind = zk_operation::kind;
using zk_error = cluster::zk_error;

using zk_ops::is;
using zk_ops::zop;

/// ZooKeeper refuses a request larger than jute.maxbuffer (1 MiB by
/// default) by closing the connection; a metadata write goes out in
/// multis of at most about this many bytes.
constexpr size_t max_multi_bytes = 256 * 1024;

} // namespace

active_controller::active_controller(cluster_controller_ptr self,
                                     int32_t epoch, int32_t epoch_zk_version)
  : self_(self), epoch_(epoch), epoch_zk_version_(epoch_zk_version) {
  // nop
}

// -- the operation queue -----------------------------------------------------------

// An operation runs with `this` alive: it is called from run_next or
// resign, whose callers hold the controller (the node's state or behavior,
// or a continuation's `me`). What it leaves waiting on ZooKeeper holds it
// through `me`, and checks `resigned_` when the answer comes.

void active_controller::enqueue(operation op) {
  if (resigned_) {
    op(true);
    return;
  }
  ops_.push_back(std::move(op));
  run_next();
}

void active_controller::finish_op() {
  op_running_ = false;
  run_next();
}

void active_controller::run_next() {
  if (op_running_ || ops_.empty() || resigned_)
    return;
  op_running_ = true;
  auto next = std::move(ops_.front());
  ops_.pop_front();
  next(false);
}

void active_controller::give_up(const std::string& why) {
  auto me = shared_from_this(); // the node drops its own handle
  resign_and_retry(self_, why);
}

// -- writing ZooKeeper ----------------------------------------------------------------

std::string active_controller::state_data(const partition_state& p) const {
  zk::leader_isr_state s;
  s.leader = p.leader;
  s.leader_epoch = p.leader_epoch;
  s.isr = p.isr;
  s.controller_epoch = epoch_;
  return zk::encode_partition_state(s);
}

cluster_snapshot active_controller::snapshot() const {
  auto& st = self_->state;
  cluster_snapshot s;
  s.controller_epoch = epoch_;
  s.controller_id = st.broker_id;
  s.live_brokers = live_brokers();
  told_live_ = s.live_brokers;
  for (auto& [name, partitions] : metadata_.topics())
    s.topics.push_back(describe(metadata_, name));
  return s;
}

/// Every node, this one included, learns the metadata now in ZooKeeper.
void active_controller::broadcast() {
  auto& st = self_->state;
  auto s = snapshot();
  for (auto& [id, p] : st.peers)
    if (id != st.broker_id && p.controller)
      self_->send(p.controller, s);
  apply_snapshot(self_, std::move(s));
  // Moves of /admin/reassign_partitions that this change completed.
  prune_zk_reassignments();
}

/// Writes `chunks[i..]` one after another; `done` gets the first error or
/// ok after the last.
void active_controller::write_chunks(
  std::shared_ptr<std::vector<std::vector<zk_operation>>> chunks, size_t i,
  std::function<void(zk_result&)> done) {
  auto ops = (*chunks)[i];
  zk_multi(self_, std::move(ops),
           [me = shared_from_this(), chunks, i,
            done = std::move(done)](zk_result& r) mutable {
             if (!is(r, zk_error::ok) || i + 1 == chunks->size()
                 || me->resigned_) {
               done(r);
               return;
             }
             me->write_chunks(chunks, i + 1, std::move(done));
           });
}

/// Stores `working` where it differs from what ZooKeeper holds; on success
/// it becomes the metadata and everyone hears of it. The write is one
/// multi, or several for a large change (many new partitions), each
/// starting with the check of `/controller_epoch`'s zkVersion, as Kafka's
/// KafkaZkClient wraps every controller write: a deposed controller is
/// fenced on every one. A topic's znodes stay in one multi. Any failure
/// ends the controllership (a newer controller fenced this one, or the
/// outcome is unknown): the next controller reads ZooKeeper afresh.
///
/// A topic's configs go to /config/topics/<t> (Kafka's
/// setOrCreateEntityConfigs: set, or create where there is none yet, so
/// the znodes are looked up first): a new topic's before its
/// /brokers/topics/<t>, as AdminZkClient.createTopicWithAssignment writes
/// them; a changed one's with a /config/changes/config_change_ notification
/// (AdminZkClient.changeTopicConfig).
void active_controller::commit(cluster_metadata working,
                               std::function<void(error_code)> done) {
  auto configs = changed_configs(metadata_, working);
  if (configs.empty()) {
    write(std::move(working), {}, std::move(done));
    return;
  }
  struct lookup {
    std::map<std::string, bool> exists;
    size_t outstanding = 0;
    bool failed = false;
  };
  auto l = std::make_shared<lookup>();
  l->outstanding = configs.size();
  auto next = std::make_shared<cluster_metadata>(std::move(working));
  for (auto& topic : configs)
    zk_ask(self_, zop(kind::exists, zk::topic_config_path(topic)),
           [me = shared_from_this(), l, topic, next, done](zk_result& r) {
             if (is(r, zk_error::ok))
               l->exists[topic] = true;
             else if (is(r, zk_error::no_node))
               l->exists[topic] = false;
             else
               l->failed = true;
             if (--l->outstanding > 0)
               return;
             if (me->resigned_) {
               done(error_code::not_controller);
               return;
             }
             if (l->failed) {
               me->give_up("cannot read /config/topics");
               done(error_code::not_controller);
               return;
             }
             me->write(std::move(*next), std::move(l->exists), done);
           });
}

void active_controller::write(cluster_metadata working,
                              std::map<std::string, bool> config_znodes,
                              std::function<void(error_code)> done) {
  auto changed = changed_partitions(metadata_, working);
  if (changed.empty() && config_znodes.empty()) {
    metadata_ = std::move(working);
    done(error_code::none);
    return;
  }
  // The ops of one topic (its configs, its new znodes, its partitions'
  // states), in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::vector<zk_operation>> by_topic;
  auto group = [&](const std::string& topic) -> std::vector<zk_operation>& {
    auto i = by_topic.find(topic);
    if (i == by_topic.end()) {
      order.push_back(topic);
      i = by_topic.emplace(topic, std::vector<zk_operation>{}).first;
    }
    return i->second;
  };
  // Configs first: Kafka writes /config/topics/<t> before the topic.
  for (auto& [topic, exists] : config_znodes) {
    auto& ops = group(topic);
    auto data = zk::encode_topic_config(working.configs(topic));
    ops.push_back(exists ? zop(kind::set, zk::topic_config_path(topic), data)
                         : zop(kind::create, zk::topic_config_path(topic),
                               data));
    if (metadata_.has_topic(topic)) {
      auto note = zop(kind::create, std::string{zk::config_change_prefix},
                      zk::encode_config_change(zk::topic_entity_path(topic)));
      note.sequential = true;
      ops.push_back(std::move(note));
    }
  }
  // New topics: Kafka's TopicZNode, then a state znode per partition. A
  // topic that grew (CreatePartitions) gets its whole assignment set again,
  // as AdminZkClient.createPartitionsWithAssignment writes it, and so does
  // one whose replicas a reassignment changed (Kafka's controller writes
  // the adding and removing replicas there, KIP-455).
  auto assignment_changed = [&](const topic_partition& tp) {
    auto before = metadata_.partition(tp);
    auto now = working.partition(tp);
    return !before || before->replicas != now->replicas
           || before->adding != now->adding
           || before->removing != now->removing;
  };
  std::set<std::string> reassigned;
  for (auto& tp : changed)
    if (metadata_.has_topic(tp.topic) && assignment_changed(tp))
      reassigned.insert(tp.topic);
  std::set<std::string> assigned;
  for (auto& tp : changed) {
    if (!assigned.insert(tp.topic).second)
      continue;
    bool exists = metadata_.has_topic(tp.topic);
    auto& parts = working.topics().at(tp.topic);
    if (exists && metadata_.topics().at(tp.topic).size() >= parts.size()
        && !reassigned.count(tp.topic))
      continue;
    zk::topic_assignment a;
    if (auto id = working.topic_id(tp.topic); !id.is_zero())
      a.topic_id = id;
    for (size_t p = 0; p < parts.size(); ++p) {
      auto& r = a.partitions[static_cast<int32_t>(p)];
      r.replicas = parts[p].replicas;
      r.adding_replicas = parts[p].adding;
      r.removing_replicas = parts[p].removing;
    }
    auto& ops = group(tp.topic);
    if (exists) {
      ops.push_back(zop(kind::set, zk::topic_path(tp.topic),
                        zk::encode_topic_assignment(a)));
      continue;
    }
    ops.push_back(zop(kind::create, zk::topic_path(tp.topic),
                      zk::encode_topic_assignment(a)));
    ops.push_back(zop(kind::create, zk::topic_partitions_path(tp.topic)));
  }
  std::vector<std::pair<topic_partition, int32_t>> versions;
  for (auto& tp : changed) {
    auto& now = *working.partition(tp);
    auto old = metadata_.partition(tp);
    auto& ops = group(tp.topic);
    if (!old || old->partition_epoch < 0) {
      if (!old)
        ops.push_back(zop(kind::create, zk::topic_partition_path(tp)));
      ops.push_back(
        zop(kind::create, zk::partition_state_path(tp), state_data(now)));
      versions.emplace_back(tp, 0);
    } else {
      ops.push_back(zop(kind::set, zk::partition_state_path(tp),
                        state_data(now), old->partition_epoch));
      versions.emplace_back(tp, old->partition_epoch + 1);
    }
  }
  auto chunks = std::make_shared<std::vector<std::vector<zk_operation>>>();
  size_t bytes = 0;
  for (auto& topic : order) {
    auto& ops = by_topic[topic];
    size_t size = 0;
    for (auto& op : ops)
      size += op.path.size() + op.data.size() + 16;
    if (chunks->empty() || bytes + size > max_multi_bytes) {
      chunks->emplace_back();
      chunks->back().push_back(zop(kind::check,
                                   std::string{zk::controller_epoch_path}, {},
                                   epoch_zk_version_));
      bytes = 0;
    }
    bytes += size;
    auto& chunk = chunks->back();
    chunk.insert(chunk.end(), std::make_move_iterator(ops.begin()),
                 std::make_move_iterator(ops.end()));
  }
  auto next = std::make_shared<cluster_metadata>(std::move(working));
  write_chunks(chunks, 0,
               [me = shared_from_this(), next, versions, done](zk_result& r) {
                 if (me->resigned_) {
                   done(error_code::not_controller);
                   return;
                 }
                 if (!is(r, zk_error::ok)) {
                   spdlog::error(
                     "controller: ZooKeeper refused a metadata write: {}",
                     cluster::to_string(static_cast<zk_error>(r.error)));
                   me->give_up("a metadata write failed");
                   done(error_code::not_controller);
                   return;
                 }
                 for (auto& [tp, version] : versions)
                   next->set_partition_epoch(tp, version);
                 me->metadata_ = std::move(*next);
                 me->broadcast();
                 done(error_code::none);
               });
}

/// Kafka creates __consumer_offsets on first use with
/// offsets.topic.replication.factor replicas; troupe as soon as that many
/// brokers are registered.
void active_controller::ensure_offsets_topic() {
  auto& st = self_->state;
  if (metadata_.has_topic(offsets_topic)
      || static_cast<int32_t>(st.peers.size())
           < st.config.offsets_topic_replication_factor)
    return;
  enqueue([this](bool cancelled) {
    if (cancelled)
      return;
    if (metadata_.has_topic(offsets_topic)) {
      finish_op();
      return;
    }
    auto& st = self_->state;
    auto working = metadata_;
    working.create_topic(offsets_topic, st.config.offsets_topic_num_partitions,
                         st.config.offsets_topic_replication_factor, 0,
                         random_uuid(st.rng));
    working.set_configs(offsets_topic,
                        internal_topic_configs(st.config, offsets_topic));
    commit(std::move(working), [me = shared_from_this()](error_code e) {
      if (e == error_code::none)
        spdlog::info("controller: created {}", offsets_topic);
      me->finish_op();
    });
  });
}

// -- loading the metadata from ZooKeeper --------------------------------------------------

struct active_controller::loading {
  std::map<std::string, std::vector<partition_state>> topics;
  std::map<std::string, uuid> ids;
  std::map<std::string, topic_configs> configs;
  size_t outstanding = 1;
  bool failed = false;
};

void active_controller::loaded_one(std::shared_ptr<loading> l) {
  if (--l->outstanding == 0)
    finish_loading(l);
}

void active_controller::load_partition(std::shared_ptr<loading> l,
                                       topic_partition tp) {
  ++l->outstanding;
  zk_ask(self_, zop(kind::get, zk::partition_state_path(tp)),
         [me = shared_from_this(), l, tp](zk_result& r) {
           auto& p = l->topics[tp.topic][static_cast<size_t>(tp.partition)];
           if (is(r, zk_error::ok)) {
             auto s = zk::decode_partition_state(r.data);
             if (s) {
               p.leader = s->leader;
               p.leader_epoch = s->leader_epoch;
               p.isr = s->isr;
               p.partition_epoch = r.version;
             } else {
               spdlog::error("controller: {}", s.error());
               l->failed = true;
             }
           } else if (is(r, zk_error::no_node)) {
             // A topic without state (written by another tool): the
             // election below gives it a leader, the write creates it.
             p.leader = -1;
             p.isr = p.replicas;
             p.partition_epoch = -1;
           } else {
             l->failed = true;
           }
           me->loaded_one(l);
         });
}

void active_controller::load_topic_config(std::shared_ptr<loading> l,
                                          std::string topic) {
  ++l->outstanding;
  zk_ask(self_, zop(kind::get, zk::topic_config_path(topic)),
         [me = shared_from_this(), l, topic](zk_result& r) {
           if (is(r, zk_error::ok)) {
             auto c = zk::decode_topic_config(r.data);
             if (c)
               l->configs[topic] = *c;
             else
               // Kafka's brokers log and skip a config they cannot read.
               spdlog::error("controller: {}", c.error());
           } else if (!is(r, zk_error::no_node)) {
             l->failed = true;
           }
           me->loaded_one(l);
         });
}

void active_controller::load_topic(std::shared_ptr<loading> l,
                                   std::string topic) {
  load_topic_config(l, topic);
  ++l->outstanding;
  zk_ask(self_, zop(kind::get, zk::topic_path(topic)),
         [me = shared_from_this(), l, topic](zk_result& r) {
           auto a = is(r, zk_error::ok)
                      ? zk::decode_topic_assignment(r.data)
                      : zk::decoded<zk::topic_assignment>::failure(
                        "no /brokers/topics/" + topic);
           if (!a) {
             spdlog::error("controller: {}", a.error());
             l->failed = true;
             me->loaded_one(l);
             return;
           }
           if (a->topic_id)
             l->ids[topic] = *a->topic_id;
           auto& parts = l->topics[topic];
           parts.resize(a->partitions.size());
           int32_t p = 0;
           for (auto& [index, assignment] : a->partitions) {
             if (index != p) {
               spdlog::error("controller: topic {} has a gap at partition {}",
                             topic, p);
               l->failed = true;
               break;
             }
             auto& part = parts[static_cast<size_t>(p)];
             part.replicas = assignment.replicas;
             // A reassignment the last controller left running goes on
             // (Kafka's initializePartitionReassignments).
             part.adding = assignment.adding_replicas;
             part.removing = assignment.removing_replicas;
             me->load_partition(l, {topic, p++});
           }
           me->loaded_one(l);
         });
}

void active_controller::finish_loading(std::shared_ptr<loading> l) {
  if (resigned_)
    return;
  if (l->failed) {
    give_up("the metadata in ZooKeeper could not be read");
    return;
  }
  auto& st = self_->state;
  std::map<int32_t, bool> brokers;
  for (auto& [topic, parts] : l->topics)
    for (auto& p : parts)
      for (auto r : p.replicas)
        brokers[r] = true;
  // What ZooKeeper holds; then the brokers that left while no controller
  // watched fail over, and those that came back lead again.
  metadata_ =
    cluster_metadata::restore(brokers, l->topics, l->ids, l->configs);
  for (auto& [name, parts] : l->topics)
    if (!l->ids.count(name))
      metadata_.set_topic_id(name, random_uuid(st.rng));
  spdlog::info("controller: broker {} is the active controller (epoch {}), "
               "{} topics",
               st.broker_id, epoch_, l->topics.size());
  // Broker sessions begin now, with one session timeout of grace; the
  // imbalance check runs every interval from now on (KafkaController
  // .onControllerFailover schedules it the same way).
  sync_sessions();
  fence_unlinked();
  schedule(cluster_tick::kind::broker_sessions,
           st.config.zookeeper.broker_heartbeat_interval_ms);
  schedule(cluster_tick::kind::leader_balance,
           st.config.leader_imbalance_check_interval_seconds * 1000);
  on_brokers_changed();
  ensure_offsets_topic();
  enqueue([this](bool cancelled) {
    if (cancelled)
      return;
    broadcast(); // even when nothing changed: a new controller epoch
    finish_op();
  });
  // Deletions requested while no controller watched resume now (Kafka's
  // TopicDeletionManager.init with the topics under /admin/delete_topics).
  on_delete_topics();
  // Reassignments written to /admin/reassign_partitions while no controller
  // watched start now (Kafka's initializePartitionReassignments).
  watch_zk_reassignments(true);
  finish_op(); // the loading (start)
}

void active_controller::load_metadata() {
  // Changes made from now on are seen; those before are in /config/topics.
  watch_config_changes(true);
  auto l = std::make_shared<loading>();
  zk_ask(self_, zop(kind::children, std::string{zk::topics_path}),
         [me = shared_from_this(), l](zk_result& r) {
           if (!is(r, zk_error::ok)) {
             me->give_up("cannot list /brokers/topics");
             return;
           }
           for (auto& topic : r.children)
             me->load_topic(l, topic);
           me->loaded_one(l);
         });
}

// -- the controllership ------------------------------------------------------------------

void active_controller::start() {
  load_metadata();
}

void active_controller::resign(const std::string& why) {
  if (resigned_)
    return;
  spdlog::warn("controller: broker {} resigns ({})", self_->state.broker_id,
               why);
  resigned_ = true;
  op_running_ = false;
  // Whatever waits is answered: each operation sees it was cancelled.
  auto ops = std::exchange(ops_, {});
  for (auto& op : ops)
    op(true);
}

void active_controller::on_brokers_changed() {
  enqueue([this](bool cancelled) {
    if (cancelled)
      return;
    auto& st = self_->state;
    auto working = metadata_;
    sync_sessions();
    working.sync_liveness(live_brokers(), st.config.unclean_leader_election);
    std::vector<partition_change> completed;
    working.complete_reassignments(completed);
    commit(std::move(working), [me = shared_from_this()](error_code e) {
      // Every node lists the live brokers in its metadata answers: they
      // hear of a change even when no partition changed with it.
      if (e == error_code::none && me->live_brokers() != me->told_live_)
        me->broadcast();
      me->finish_op();
    });
  });
  ensure_offsets_topic();
}

void active_controller::send_snapshot_to(const cluster_controller_actor& peer) {
  self_->send(peer, snapshot());
}

// -- what only the controller serves -----------------------------------------------------

caf::result<create_topics_response>
active_controller::create_topics(create_topics_request& req) {
  auto rp = self_->make_response_promise<create_topics_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    create_topics_response res;
    if (cancelled) {
      for (auto& t : req.topics)
        res.topics.push_back(
          {t.name, error_code::not_controller, "The controller moved; retry."});
      rp.deliver(std::move(res));
      return;
    }
    auto& st = self_->state;
    auto working = metadata_;
    for (auto& t : req.topics)
      res.topics.push_back(create_topic(working, st.config, st.rng, t));
    auto answer = std::make_shared<create_topics_response>(std::move(res));
    commit(std::move(working), [me = shared_from_this(), rp,
                                answer](error_code e) mutable {
      if (e != error_code::none)
        for (auto& t : answer->topics)
          if (t.error == error_code::none)
            t = {t.name, e, "The controller moved; retry."};
      rp.deliver(std::move(*answer));
      me->finish_op();
    });
  });
  return rp;
}

caf::result<alter_isr_response>
active_controller::alter_isr(alter_isr_request& req) {
  auto rp = self_->make_response_promise<alter_isr_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    alter_isr_response res;
    if (cancelled) {
      res.error = error_code::not_controller;
      res.state.leader = -2; // not this leadership: the replica retries
      rp.deliver(res);
      return;
    }
    auto working = metadata_;
    res.error = working.alter_isr(req.partition, req.leader, req.leader_epoch,
                                  req.partition_epoch, req.isr);
    if (res.error != error_code::none) {
      if (auto p = metadata_.partition(req.partition))
        res.state = to_message(req.partition.partition, *p);
      rp.deliver(res);
      finish_op();
      return;
    }
    // A reassignment whose target replicas are all in the ISR now completes
    // in the same write (KIP-455).
    std::vector<partition_change> completed;
    working.complete_reassignments(completed);
    auto tp = req.partition;
    commit(std::move(working),
           [me = shared_from_this(), rp, tp, res](error_code e) mutable {
             res.error = e;
             if (auto p = me->metadata_.partition(tp))
               res.state = to_message(tp.partition, *p);
             if (e != error_code::none)
               res.state.leader = -2;
             rp.deliver(res);
             me->finish_op();
           });
  });
  return rp;
}

caf::result<alter_topic_configs_response>
active_controller::alter_topic_configs(alter_topic_configs_request& req) {
  auto rp = self_->make_response_promise<alter_topic_configs_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    alter_topic_configs_response res;
    if (cancelled) {
      res.error = error_code::not_controller;
      res.message = "The controller moved; retry.";
      rp.deliver(std::move(res));
      return;
    }
    auto working = metadata_;
    res = troupe::alter_topic_configs(working, self_->state.config, req);
    if (res.error != error_code::none || req.validate_only) {
      rp.deliver(std::move(res));
      finish_op();
      return;
    }
    commit(std::move(working),
           [me = shared_from_this(), rp, res](error_code e) mutable {
             if (e != error_code::none) {
               res.error = e;
               res.message = "The controller moved; retry.";
             }
             rp.deliver(std::move(res));
             me->finish_op();
           });
  });
  return rp;
}

// -- /config/changes ----------------------------------------------------------------

// Kafka's brokers learn topic config changes from the sequential znodes
// under /config/changes (ZkNodeChangeNotificationListener); troupe's nodes
// learn them from the active controller's snapshots, so only the active
// controller watches, to pick up changes that another writer of Kafka's
// layout (AdminZkClient, kafka-configs.sh --zookeeper) made.

void active_controller::watch_config_changes(bool initial) {
  auto watch = zop(kind::children, std::string{zk::config_changes_path});
  watch.watch = true;
  zk_ask(self_, std::move(watch),
         [me = shared_from_this(), initial](zk_result& r) {
           if (me->resigned_ || !is(r, zk_error::ok))
             return;
           std::vector<std::string> fresh;
           me->purge_config_changes(r.children);
           for (auto& child : r.children) {
             // config_change_<ten digits>
             constexpr std::string_view name = "config_change_";
             if (child.compare(0, name.size(), name) != 0)
               continue;
             auto seq = zk::parse_java_int(child.substr(name.size()));
             if (!seq)
               continue;
             if (*seq > me->last_config_change_) {
               if (!initial)
                 fresh.push_back(child);
               me->last_config_change_ = *seq;
             }
           }
           for (auto& child : fresh)
             me->read_config_change(std::string{zk::config_changes_path} + '/'
                                    + child);
         });
}

/// Kafka's ZkNodeChangeNotificationListener.purgeObsoleteNotifications:
/// notifications older than 15 minutes (changeExpirationMs) are deleted,
/// so /config/changes does not grow with every change ever made.
void active_controller::purge_config_changes(
  const std::vector<std::string>& children) {
  constexpr int64_t change_expiration_ms = 15 * 60 * 1000;
  for (auto& child : children) {
    auto path = std::string{zk::config_changes_path} + '/' + child;
    zk_ask(self_, zop(kind::exists, path),
           [me = shared_from_this(), path](zk_result& r) {
             if (me->resigned_ || !is(r, zk_error::ok)
                 || wall_clock_ms() - r.ctime_ms <= change_expiration_ms)
               return;
             zk_ask(me->self_, zop(kind::remove, path), [](zk_result&) {});
           });
  }
}

void active_controller::read_config_change(std::string path) {
  zk_ask(self_, zop(kind::get, path),
         [me = shared_from_this()](zk_result& r) {
           if (me->resigned_ || !is(r, zk_error::ok))
             return;
           auto entity = zk::decode_config_change(r.data);
           if (!entity) {
             spdlog::error("controller: {}", entity.error());
             return;
           }
           auto topic = zk::topic_of_entity_path(*entity);
           if (!topic.empty())
             me->reload_topic_config(topic);
         });
}

void active_controller::reload_topic_config(std::string topic) {
  enqueue([this, topic](bool cancelled) {
    if (cancelled)
      return;
    zk_ask(self_, zop(kind::get, zk::topic_config_path(topic)),
           [me = shared_from_this(), topic](zk_result& r) {
             if (me->resigned_)
               return;
             if (is(r, zk_error::ok) && me->metadata_.has_topic(topic)) {
               auto c = zk::decode_topic_config(r.data);
               if (!c)
                 spdlog::error("controller: {}", c.error());
               else if (*c != me->metadata_.configs(topic)) {
                 spdlog::info("controller: topic {} has new configs in "
                              "ZooKeeper",
                              topic);
                 me->metadata_.set_configs(topic, *c);
                 me->broadcast();
               }
             }
             me->finish_op();
           });
  });
}

void active_controller::on_config_changes() {
  watch_config_changes(false);
}

// -- CreatePartitions, ElectLeaders ---------------------------------------------------

caf::result<create_partitions_response>
active_controller::create_partitions(create_partitions_request& req) {
  auto rp = self_->make_response_promise<create_partitions_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    create_partitions_response res;
    if (cancelled) {
      for (auto& t : req.topics)
        res.results.push_back({t.topic, error_code::not_controller,
                               "The controller moved; retry."});
      rp.deliver(std::move(res));
      return;
    }
    auto working = metadata_;
    std::vector<partition_change> created;
    // A topic whose deletion is under way is not grown (KafkaApis
    // .handleCreatePartitionsRequest, isTopicQueuedForDeletion).
    create_partitions_request asked = req;
    asked.topics.clear();
    std::vector<create_partitions_result> queued;
    for (auto& t : req.topics) {
      if (deleting_.count(t.topic))
        queued.push_back({t.topic, error_code::invalid_topic_exception,
                          "The topic is queued for deletion."});
      else
        asked.topics.push_back(t);
    }
    res = troupe::create_partitions(working, asked, created);
    res.results.insert(res.results.end(), queued.begin(), queued.end());
    if (created.empty()) {
      rp.deliver(std::move(res));
      finish_op();
      return;
    }
    commit(std::move(working),
           [me = shared_from_this(), rp, res](error_code e) mutable {
             if (e != error_code::none)
               for (auto& r : res.results)
                 if (r.error == error_code::none)
                   r = {r.topic, e, "The controller moved; retry."};
             rp.deliver(std::move(res));
             me->finish_op();
           });
  });
  return rp;
}

caf::result<elect_leaders_response>
active_controller::elect_leaders(elect_leaders_request& req) {
  auto rp = self_->make_response_promise<elect_leaders_response>();
  enqueue([this, rp, req](bool cancelled) mutable {
    elect_leaders_response res;
    if (cancelled) {
      res.error = error_code::not_controller;
      rp.deliver(std::move(res));
      return;
    }
    auto working = metadata_;
    std::vector<partition_change> elected;
    res = troupe::elect_leaders(working, req, elected);
    // The new leaders go into each partition's state znode with its
    // zkVersion (Kafka's PartitionStateMachine, zkClient.updateLeaderAndIsr),
    // then to every node in the snapshot.
    if (elected.empty()) {
      rp.deliver(std::move(res));
      finish_op();
      return;
    }
    commit_and_answer(std::move(working), rp, std::move(res));
  });
  return rp;
}

// -- /admin/delete_topics (Kafka's TopicDeletionManager) ---------------------------------

void active_controller::on_delete_topics() {
  auto watch = zop(kind::children, std::string{zk::delete_topics_path});
  watch.watch = true;
  zk_ask(self_, std::move(watch), [me = shared_from_this()](zk_result& r) {
    if (me->resigned_ || !is(r, zk_error::ok))
      return;
    for (auto& topic : r.children)
      if (me->deleting_.insert(topic).second)
        me->delete_topic(topic);
  });
}

/// One topic's deletion, as an operation: its znodes (every partition's
/// state, the partitions, /brokers/topics/<t>), its /config/topics/<t> and
/// the /admin/delete_topics/<t> request go in one fenced multi (Kafka's
/// completeDeleteTopic: deleteTopicZNode, deleteTopicConfigs,
/// deleteTopicDeletions). Then every node hears of it in the snapshot and
/// its broker stops and deletes its replicas (apply_snapshot). A request
/// for a topic that does not exist is just removed.
void active_controller::delete_topic(std::string topic) {
  enqueue([this, topic](bool cancelled) {
    if (cancelled)
      return;
    struct tree {
      std::vector<std::string> leaves;  // state znodes and the like
      std::vector<std::string> parents; // partition znodes
      bool config = false;
      size_t outstanding = 1;
      bool failed = false;
    };
    auto t = std::make_shared<tree>();
    auto me = shared_from_this();
    auto done = [me, t, topic] {
      if (--t->outstanding > 0)
        return;
      if (me->resigned_)
        return;
      if (t->failed) {
        me->give_up("cannot read the znodes of a topic to delete");
        return;
      }
      me->remove_topic_znodes(topic, t->leaves, t->parents, t->config);
    };
    if (!metadata_.has_topic(topic)) {
      spdlog::info("controller: ignoring the deletion of unknown topic {}",
                   topic);
      remove_topic_znodes(topic, {}, {}, false);
      return;
    }
    ++t->outstanding;
    zk_ask(self_, zop(kind::exists, zk::topic_config_path(topic)),
           [t, done](zk_result& r) {
             t->config = is(r, zk_error::ok);
             if (!t->config && !is(r, zk_error::no_node))
               t->failed = true;
             done();
           });
    auto partitions = zk::topic_partitions_path(topic);
    ++t->outstanding;
    zk_ask(self_, zop(kind::children, partitions),
           [me, t, done, partitions](zk_result& r) {
             if (!is(r, zk_error::ok)) {
               if (!is(r, zk_error::no_node))
                 t->failed = true;
               done();
               return;
             }
             t->parents.push_back(partitions);
             for (auto& child : r.children) {
               auto path = partitions + '/' + child;
               t->parents.push_back(path);
               ++t->outstanding;
               zk_ask(me->self_, zop(kind::children, path),
                      [t, done, path](zk_result& c) {
                        if (is(c, zk_error::ok))
                          for (auto& leaf : c.children)
                            t->leaves.push_back(path + '/' + leaf);
                        else if (!is(c, zk_error::no_node))
                          t->failed = true;
                        done();
                      });
             }
             done();
           });
    done();
  });
}

void active_controller::remove_topic_znodes(std::string topic,
                                            std::vector<std::string> leaves,
                                            std::vector<std::string> parents,
                                            bool config) {
  std::vector<zk_operation> ops;
  ops.push_back(zop(kind::check, std::string{zk::controller_epoch_path}, {},
                    epoch_zk_version_));
  for (auto& path : leaves)
    ops.push_back(zop(kind::remove, path));
  // Children before parents: the partition znodes, then .../partitions.
  for (auto i = parents.rbegin(); i != parents.rend(); ++i)
    ops.push_back(zop(kind::remove, *i));
  bool known = metadata_.has_topic(topic);
  if (known)
    ops.push_back(zop(kind::remove, zk::topic_path(topic)));
  if (config)
    ops.push_back(zop(kind::remove, zk::topic_config_path(topic)));
  ops.push_back(zop(kind::remove, zk::delete_topic_path(topic)));
  zk_multi(self_, std::move(ops),
           [me = shared_from_this(), topic, known](zk_result& r) {
             if (me->resigned_)
               return;
             me->deleting_.erase(topic);
             if (!is(r, zk_error::ok)) {
               spdlog::error("controller: the deletion of topic {} failed: {}",
                             topic,
                             cluster::to_string(static_cast<zk_error>(r.error)));
               me->give_up("a topic deletion failed");
               return;
             }
             if (known) {
               spdlog::info("controller: deleted topic {}", topic);
               me->metadata_.delete_topic(topic);
               me->broadcast();
             }
             me->finish_op();
           });
}

caf::result<allocate_producer_ids_response>
active_controller::allocate_producer_ids(allocate_producer_ids_request& req) {
  constexpr int32_t block_size = 1000; // Kafka's ProducerIdsBlock size
  auto rp = self_->make_response_promise<allocate_producer_ids_response>();
  // Not yet: the broker's producer retries InitProducerId on this code.
  auto retriable = [] {
    allocate_producer_ids_response res;
    res.error = error_code::coordinator_load_in_progress;
    return res;
  };
  enqueue([this, rp, req, retriable](bool cancelled) mutable {
    if (cancelled) {
      rp.deliver(retriable());
      return;
    }
    auto path = std::string{zk::producer_id_block_path};
    // Not zk_ask: that drops an answer from an older session, and this
    // promise must be answered on every path (the checks of resigned_
    // below cover a controllership that ended meanwhile).
    auto read = [me = shared_from_this(), rp, req, retriable,
                 path](zk_result& r) mutable {
      if (me->resigned_) {
        rp.deliver(retriable());
        return;
      }
      bool exists = is(r, zk_error::ok);
      if (!exists && !is(r, zk_error::no_node)) {
        rp.deliver(retriable());
        me->finish_op();
        return;
      }
      auto prev =
        exists ? zk::decode_producer_id_block(r.data)
               : zk::decoded<zk::producer_id_block>{zk::producer_id_block{}};
      auto next =
        prev ? zk::next_producer_id_block(*prev, req.broker_id, block_size)
             : prev;
      if (!next) {
        spdlog::error("controller: {}", next.error());
        allocate_producer_ids_response res;
        res.error = error_code::unknown_server_error;
        rp.deliver(res);
        me->finish_op();
        return;
      }
      auto block = *next;
      std::vector<zk_operation> ops;
      ops.push_back(zop(kind::check, std::string{zk::controller_epoch_path}, {},
                        me->epoch_zk_version_));
      auto data = zk::encode_producer_id_block(block);
      ops.push_back(exists ? zop(kind::set, path, data, r.version)
                           : zop(kind::create, path, data));
      zk_multi(me->self_, std::move(ops),
               [me, rp, req, retriable, block](zk_result& w) mutable {
                 if (me->resigned_) {
                   rp.deliver(retriable());
                   return;
                 }
                 if (!is(w, zk_error::ok)) {
                   rp.deliver(retriable());
                   me->give_up("the producer id block could not be written");
                   return;
                 }
                 spdlog::info("controller: producer ids {}..{} to broker {}",
                              block.first, block.last, req.broker_id);
                 allocate_producer_ids_response res;
                 res.producer_id_start = block.first;
                 res.producer_id_len =
                   static_cast<int32_t>(block.last - block.first + 1);
                 rp.deliver(res);
                 me->finish_op();
               });
    };
    self_
      ->request(self_->state.zk, cluster_request_timeout,
                zk_request{zop(kind::get, path)})
      .then([read](zk_result& r) mutable { read(r); },
            [read](caf::error&) mutable {
              zk_result r;
              r.error = static_cast<int32_t>(zk_error::closing);
              read(r);
            });
  });
  return rp;
}

} // namespace troupe
