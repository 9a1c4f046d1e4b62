// The active controller of a cluster of processes (docs/ARCHITECTURE.md
// §7): Kafka's KafkaController in ZooKeeper mode. The metadata lives in
// ZooKeeper in Kafka's layout; every write is a multi that first checks
// /controller_epoch's zkVersion, so a deposed controller's writes fail; each
// partition state is set with its own zkVersion (the partition epoch).

#include <iterator>
#include <map>
#include <memory>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/cluster_controller_impl.hpp"
#include "actors/metadata_view.hpp"

namespace troupe::cluster_impl {

namespace {

using kind = zk_operation::kind;

zk_operation zop(kind k, std::string path, std::string data = {},
                 int32_t version = -1) {
  zk_operation o;
  o.type = k;
  o.path = std::move(path);
  o.data = std::move(data);
  o.version = version;
  return o;
}

// -- the operation queue -----------------------------------------------------------

/// One controller operation; `cancelled` when the controllership ended
/// before it ran (it answers NOT_CONTROLLER then).
using operation = std::function<void(bool cancelled)>;

void run_next(cluster_controller_ptr self);

void enqueue(cluster_controller_ptr self, operation op) {
  auto& st = self->state;
  if (!st.active) {
    op(true);
    return;
  }
  st.ops.push_back(std::move(op));
  run_next(self);
}

void finish_op(cluster_controller_ptr self) {
  self->state.op_running = false;
  run_next(self);
}

void run_next(cluster_controller_ptr self) {
  auto& st = self->state;
  if (st.op_running || st.ops.empty() || !st.active)
    return;
  st.op_running = true;
  auto next = std::move(st.ops.front());
  st.ops.pop_front();
  next(false);
}

// -- writing ZooKeeper ----------------------------------------------------------------

std::string state_data(const cluster_controller_state& st,
                       const partition_state& p) {
  zk::leader_isr_state s;
  s.leader = p.leader;
  s.leader_epoch = p.leader_epoch;
  s.isr = p.isr;
  s.controller_epoch = st.controller_epoch;
  return zk::encode_partition_state(s);
}

cluster_snapshot snapshot_of(const cluster_controller_state& st) {
  cluster_snapshot s;
  s.controller_epoch = st.controller_epoch;
  s.controller_id = st.broker_id;
  s.live_brokers = registered_brokers(st);
  for (auto& [name, partitions] : st.metadata.topics())
    s.topics.push_back(describe(st.metadata, name));
  return s;
}

/// Every node, this one included, learns the metadata now in ZooKeeper.
void broadcast(cluster_controller_ptr self) {
  auto& st = self->state;
  auto s = snapshot_of(st);
  for (auto& [id, p] : st.peers)
    if (id != st.broker_id && p.controller)
      self->send(p.controller, s);
  apply_snapshot(self, std::move(s));
}

/// ZooKeeper refuses a request larger than jute.maxbuffer (1 MiB by
/// default) by closing the connection; a metadata write goes out in
/// multis of at most about this many bytes.
constexpr size_t max_multi_bytes = 256 * 1024;

/// Writes `chunks[i..]` one after another; `done` gets the first error or
/// ok after the last.
void write_chunks(
  cluster_controller_ptr self,
  std::shared_ptr<std::vector<std::vector<zk_operation>>> chunks, size_t i,
  std::function<void(zk_result&)> done) {
  auto ops = (*chunks)[i];
  zk_multi(self, std::move(ops),
           [self, chunks, i, done = std::move(done)](zk_result& r) mutable {
             if (!is(r, zk_error::ok) || i + 1 == chunks->size()
                 || !self->state.active) {
               done(r);
               return;
             }
             write_chunks(self, chunks, i + 1, std::move(done));
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
void commit(cluster_controller_ptr self, cluster_metadata working,
            std::function<void(error_code)> done) {
  auto& st = self->state;
  auto changed = changed_partitions(st.metadata, working);
  if (changed.empty()) {
    st.metadata = std::move(working);
    done(error_code::none);
    return;
  }
  // The ops of one topic (its new znodes, its partitions' states), in
  // order of first appearance.
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
  // New topics: Kafka's TopicZNode, then a state znode per partition.
  for (auto& tp : changed) {
    if (st.metadata.has_topic(tp.topic) || by_topic.count(tp.topic))
      continue;
    zk::topic_assignment a;
    if (auto id = working.topic_id(tp.topic); !id.is_zero())
      a.topic_id = id;
    auto& parts = working.topics().at(tp.topic);
    for (size_t p = 0; p < parts.size(); ++p)
      a.partitions[static_cast<int32_t>(p)].replicas = parts[p].replicas;
    auto& ops = group(tp.topic);
    ops.push_back(zop(kind::create, zk::topic_path(tp.topic),
                      zk::encode_topic_assignment(a)));
    ops.push_back(zop(kind::create, zk::topic_partitions_path(tp.topic)));
  }
  std::vector<std::pair<topic_partition, int32_t>> versions;
  for (auto& tp : changed) {
    auto& now = *working.partition(tp);
    auto old = st.metadata.partition(tp);
    auto& ops = group(tp.topic);
    if (!old || old->partition_epoch < 0) {
      if (!old)
        ops.push_back(zop(kind::create, zk::topic_partition_path(tp)));
      ops.push_back(
        zop(kind::create, zk::partition_state_path(tp), state_data(st, now)));
      versions.emplace_back(tp, 0);
    } else {
      ops.push_back(zop(kind::set, zk::partition_state_path(tp),
                        state_data(st, now), old->partition_epoch));
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
                                   st.epoch_zk_version));
      bytes = 0;
    }
    bytes += size;
    auto& chunk = chunks->back();
    chunk.insert(chunk.end(), std::make_move_iterator(ops.begin()),
                 std::make_move_iterator(ops.end()));
  }
  auto next = std::make_shared<cluster_metadata>(std::move(working));
  write_chunks(self, chunks, 0, [self, next, versions, done](zk_result& r) {
    auto& st = self->state;
    if (!st.active) {
      done(error_code::not_controller);
      return;
    }
    if (!is(r, zk_error::ok)) {
      spdlog::error("controller: ZooKeeper refused a metadata "
                    "write: {}",
                    cluster::to_string(static_cast<zk_error>(r.error)));
      resign_and_retry(self, "a metadata write failed");
      done(error_code::not_controller);
      return;
    }
    for (auto& [tp, version] : versions)
      next->set_partition_epoch(tp, version);
    st.metadata = std::move(*next);
    broadcast(self);
    done(error_code::none);
  });
}

/// Kafka creates __consumer_offsets on first use with
/// offsets.topic.replication.factor replicas; troupe as soon as that many
/// brokers are registered.
void ensure_offsets_topic(cluster_controller_ptr self) {
  auto& st = self->state;
  if (st.metadata.has_topic(offsets_topic)
      || static_cast<int32_t>(st.peers.size())
           < st.config.offsets_topic_replication_factor)
    return;
  enqueue(self, [self](bool cancelled) {
    auto& st = self->state;
    if (cancelled)
      return;
    if (st.metadata.has_topic(offsets_topic)) {
      finish_op(self);
      return;
    }
    auto working = st.metadata;
    working.create_topic(offsets_topic, st.config.offsets_topic_num_partitions,
                         st.config.offsets_topic_replication_factor, 0,
                         random_uuid(st.rng));
    commit(self, std::move(working), [self](error_code e) {
      if (e == error_code::none)
        spdlog::info("controller: created {}", offsets_topic);
      finish_op(self);
    });
  });
}

// -- loading the metadata from ZooKeeper --------------------------------------------------

struct loading {
  std::map<std::string, std::vector<partition_state>> topics;
  std::map<std::string, uuid> ids;
  size_t outstanding = 1;
  bool failed = false;
};

void finish_loading(cluster_controller_ptr self, std::shared_ptr<loading> l);

void loaded_one(cluster_controller_ptr self, std::shared_ptr<loading> l) {
  if (--l->outstanding == 0)
    finish_loading(self, l);
}

void load_partition(cluster_controller_ptr self, std::shared_ptr<loading> l,
                    topic_partition tp) {
  ++l->outstanding;
  zk_ask(self, zop(kind::get, zk::partition_state_path(tp)),
         [self, l, tp](zk_result& r) {
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
           loaded_one(self, l);
         });
}

void load_topic(cluster_controller_ptr self, std::shared_ptr<loading> l,
                std::string topic) {
  ++l->outstanding;
  zk_ask(self, zop(kind::get, zk::topic_path(topic)),
         [self, l, topic](zk_result& r) {
           auto a = is(r, zk_error::ok)
                      ? zk::decode_topic_assignment(r.data)
                      : zk::decoded<zk::topic_assignment>::failure(
                        "no /brokers/topics/" + topic);
           if (!a) {
             spdlog::error("controller: {}", a.error());
             l->failed = true;
             loaded_one(self, l);
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
             parts[static_cast<size_t>(p)].replicas = assignment.replicas;
             load_partition(self, l, {topic, p++});
           }
           loaded_one(self, l);
         });
}

void finish_loading(cluster_controller_ptr self, std::shared_ptr<loading> l) {
  auto& st = self->state;
  if (!st.active)
    return;
  if (l->failed) {
    resign_and_retry(self, "the metadata in ZooKeeper could not be read");
    return;
  }
  std::map<int32_t, bool> brokers;
  for (auto& [topic, parts] : l->topics)
    for (auto& p : parts)
      for (auto r : p.replicas)
        brokers[r] = true;
  // What ZooKeeper holds; then the brokers that left while no controller
  // watched fail over, and those that came back lead again.
  st.metadata = cluster_metadata::restore(brokers, l->topics, l->ids);
  for (auto& [name, parts] : l->topics)
    if (!l->ids.count(name))
      st.metadata.set_topic_id(name, random_uuid(st.rng));
  spdlog::info("controller: broker {} is the active controller (epoch {}), "
               "{} topics",
               st.broker_id, st.controller_epoch, l->topics.size());
  on_brokers_changed(self, {});
  ensure_offsets_topic(self);
  enqueue(self, [self](bool cancelled) {
    if (cancelled)
      return;
    broadcast(self); // even when nothing changed: a new controller epoch
    finish_op(self);
  });
  finish_op(self); // the loading (become_active)
}

void load_metadata(cluster_controller_ptr self) {
  auto l = std::make_shared<loading>();
  zk_ask(self, zop(kind::children, std::string{zk::topics_path}),
         [self, l](zk_result& r) {
           if (!is(r, zk_error::ok)) {
             resign_and_retry(self, "cannot list /brokers/topics");
             return;
           }
           for (auto& topic : r.children)
             load_topic(self, l, topic);
           loaded_one(self, l);
         });
}

} // namespace

// -- becoming and ending the active controller -------------------------------------------

void become_active(cluster_controller_ptr self) {
  auto& st = self->state;
  if (st.active)
    return;
  // Kafka's registerControllerAndIncrementControllerEpoch.
  zk_ask(self, zop(kind::get, std::string{zk::controller_epoch_path}),
         [self](zk_result& r) {
           auto& st = self->state;
           if (is(r, zk_error::no_node)) {
             zk_ask(self,
                    zop(kind::create, std::string{zk::controller_epoch_path},
                        zk::encode_controller_epoch(0)),
                    [self](zk_result&) { become_active(self); });
             return;
           }
           auto epoch =
             is(r, zk_error::ok)
               ? zk::decode_controller_epoch(r.data)
               : zk::decoded<int32_t>::failure("cannot read /controller_epoch");
           if (!epoch) {
             spdlog::error("controller: {}", epoch.error());
             return;
           }
           auto next = *epoch + 1;
           zk_ask(self,
                  zop(kind::set, std::string{zk::controller_epoch_path},
                      zk::encode_controller_epoch(next), r.version),
                  [self, next](zk_result& w) {
                    auto& st = self->state;
                    if (!is(w, zk_error::ok)) {
                      spdlog::warn("controller: another controller bumped the "
                                   "epoch first");
                      return;
                    }
                    st.active = true;
                    st.controller_epoch = next;
                    st.epoch_zk_version = w.version;
                    // Loading is the first operation: what arrives
                    // meanwhile (CreateTopics, AlterIsr, broker changes)
                    // waits for the metadata it must build on.
                    st.op_running = true;
                    load_metadata(self);
                  });
         });
}

void resign(cluster_controller_ptr self, const std::string& why) {
  auto& st = self->state;
  if (!st.active)
    return;
  spdlog::warn("controller: broker {} resigns ({})", st.broker_id, why);
  st.active = false;
  st.op_running = false;
  // Whatever waits is answered: each operation sees it was cancelled.
  auto ops = std::exchange(st.ops, {});
  for (auto& op : ops)
    op(true);
}

void on_brokers_changed(cluster_controller_ptr self,
                        const std::vector<int32_t>&) {
  enqueue(self, [self](bool cancelled) {
    if (cancelled)
      return;
    auto& st = self->state;
    auto working = st.metadata;
    working.sync_liveness(registered_brokers(st),
                          st.config.unclean_leader_election);
    commit(self, std::move(working), [self](error_code) { finish_op(self); });
  });
  ensure_offsets_topic(self);
}

void send_snapshot_to(cluster_controller_ptr self,
                      const cluster_controller_actor& peer) {
  self->send(peer, snapshot_of(self->state));
}

caf::result<create_topics_response>
create_topics_active(cluster_controller_ptr self, create_topics_request& req) {
  auto rp = self->make_response_promise<create_topics_response>();
  enqueue(self, [self, rp, req](bool cancelled) mutable {
    create_topics_response res;
    if (cancelled) {
      for (auto& t : req.topics)
        res.topics.push_back(
          {t.name, error_code::not_controller, "The controller moved; retry."});
      rp.deliver(std::move(res));
      return;
    }
    auto& st = self->state;
    auto working = st.metadata;
    for (auto& t : req.topics)
      res.topics.push_back(create_topic(working, st.config, st.rng, t));
    auto answer = std::make_shared<create_topics_response>(std::move(res));
    commit(self, std::move(working), [self, rp, answer](error_code e) mutable {
      if (e != error_code::none)
        for (auto& t : answer->topics)
          if (t.error == error_code::none)
            t = {t.name, e, "The controller moved; retry."};
      rp.deliver(std::move(*answer));
      finish_op(self);
    });
  });
  return rp;
}

caf::result<alter_isr_response> alter_isr_active(cluster_controller_ptr self,
                                                 alter_isr_request& req) {
  auto rp = self->make_response_promise<alter_isr_response>();
  enqueue(self, [self, rp, req](bool cancelled) mutable {
    alter_isr_response res;
    if (cancelled) {
      res.error = error_code::not_controller;
      res.state.leader = -2; // not this leadership: the replica retries
      rp.deliver(res);
      return;
    }
    auto& st = self->state;
    auto working = st.metadata;
    res.error = working.alter_isr(req.partition, req.leader, req.leader_epoch,
                                  req.partition_epoch, req.isr);
    if (res.error != error_code::none) {
      if (auto p = st.metadata.partition(req.partition))
        res.state = to_message(req.partition.partition, *p);
      rp.deliver(res);
      finish_op(self);
      return;
    }
    auto tp = req.partition;
    commit(self, std::move(working), [self, rp, tp, res](error_code e) mutable {
      auto& st = self->state;
      res.error = e;
      if (auto p = st.metadata.partition(tp))
        res.state = to_message(tp.partition, *p);
      if (e != error_code::none)
        res.state.leader = -2;
      rp.deliver(res);
      finish_op(self);
    });
  });
  return rp;
}

caf::result<allocate_producer_ids_response>
allocate_producer_ids_active(cluster_controller_ptr self,
                             allocate_producer_ids_request& req) {
  constexpr int32_t block_size = 1000; // Kafka's ProducerIdsBlock size
  auto rp = self->make_response_promise<allocate_producer_ids_response>();
  // Not yet: the broker's producer retries InitProducerId on this code.
  auto retriable = [] {
    allocate_producer_ids_response res;
    res.error = error_code::coordinator_load_in_progress;
    return res;
  };
  enqueue(self, [self, rp, req, retriable](bool cancelled) mutable {
    if (cancelled) {
      rp.deliver(retriable());
      return;
    }
    auto path = std::string{zk::producer_id_block_path};
    // Not zk_ask: that drops an answer from an older session, and this
    // promise must be answered on every path (the checks of st.active
    // below cover a controllership that ended meanwhile).
    auto read = [=](zk_result& r) mutable {
      auto& st = self->state;
      if (!st.active) {
        rp.deliver(retriable());
        return;
      }
      bool exists = is(r, zk_error::ok);
      if (!exists && !is(r, zk_error::no_node)) {
        rp.deliver(retriable());
        finish_op(self);
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
        finish_op(self);
        return;
      }
      auto block = *next;
      std::vector<zk_operation> ops;
      ops.push_back(zop(kind::check, std::string{zk::controller_epoch_path}, {},
                        st.epoch_zk_version));
      auto data = zk::encode_producer_id_block(block);
      ops.push_back(exists ? zop(kind::set, path, data, r.version)
                           : zop(kind::create, path, data));
      zk_multi(self, std::move(ops), [=](zk_result& w) mutable {
        if (!self->state.active) {
          rp.deliver(retriable());
          return;
        }
        if (!is(w, zk_error::ok)) {
          rp.deliver(retriable());
          resign_and_retry(self, "the producer id block could not be written");
          return;
        }
        spdlog::info("controller: producer ids {}..{} to broker {}",
                     block.first, block.last, req.broker_id);
        allocate_producer_ids_response res;
        res.producer_id_start = block.first;
        res.producer_id_len =
          static_cast<int32_t>(block.last - block.first + 1);
        rp.deliver(res);
        finish_op(self);
      });
    };
    self
      ->request(self->state.zk, std::chrono::seconds(30),
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

} // namespace troupe::cluster_impl
