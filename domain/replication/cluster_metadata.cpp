#include "domain/replication/cluster_metadata.hpp"

#include <algorithm>
#include <cstdint>

#include "domain/topic_name.hpp"

namespace troupe {

namespace {

bool contains(const std::vector<int32_t>& xs, int32_t x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::vector<int32_t> minus(const std::vector<int32_t>& xs,
                           const std::vector<int32_t>& ys) {
  std::vector<int32_t> out;
  for (auto x : xs)
    if (!contains(ys, x))
      out.push_back(x);
  return out;
}

} // namespace

std::vector<int32_t> partition_state::target_replicas() const {
  return minus(replicas, removing);
}

std::vector<int32_t> partition_state::original_replicas() const {
  return minus(replicas, adding);
}

// -- brokers ---------------------------------------------------------------

void cluster_metadata::register_broker(int32_t broker_id) {
  brokers_[broker_id] = true;
}

bool cluster_metadata::is_alive(int32_t broker_id) const {
  auto i = brokers_.find(broker_id);
  return i != brokers_.end() && i->second;
}

std::vector<int32_t> cluster_metadata::live_brokers() const {
  std::vector<int32_t> result;
  for (auto& [id, alive] : brokers_)
    if (alive)
      result.push_back(id);
  return result;
}

std::optional<int32_t> cluster_metadata::elect(const partition_state& p,
                                               bool unclean) const {
  // Kafka's OfflinePartitionLeaderElectionStrategy: the first live replica
  // in assignment order that is in the ISR; with unclean election, else the
  // first live replica at all.
  for (auto id : p.replicas)
    if (is_alive(id) && contains(p.isr, id))
      return id;
  if (unclean)
    for (auto id : p.replicas)
      if (is_alive(id))
        return id;
  return std::nullopt;
}

bool cluster_metadata::unclean_for(const std::string& topic,
                                   bool broker_setting) const {
  // The election reads the topic's LogConfig (Kafka's
  // PartitionLeaderElectionAlgorithms with the topic's
  // unclean.leader.election.enable).
  return unclean_leader_election_of(configs(topic), broker_setting);
}

std::vector<partition_change>
cluster_metadata::broker_stopped(int32_t broker_id, bool broker_unclean) {
  std::vector<partition_change> changes;
  if (!is_alive(broker_id))
    return changes;
  brokers_[broker_id] = false;
  // Kafka's KafkaController.onBrokerFailure: every replica on the broker
  // goes offline at once (ReplicaStateMachine's OfflineReplica), not after
  // replica.lag.time.max.ms.
  for (auto& [topic, partitions] : topics_) {
    auto unclean = unclean_for(topic, broker_unclean);
    for (size_t i = 0; i < partitions.size(); ++i) {
      auto& p = partitions[i];
      if (!contains(p.replicas, broker_id))
        continue;
      // The last ISR member stays the ISR, so that a clean election can
      // pick it when it returns (Kafka keeps it too, with leader -1).
      auto isr = p.isr;
      isr.erase(std::remove(isr.begin(), isr.end(), broker_id), isr.end());
      if (isr.empty())
        isr = p.isr;
      if (p.leader == broker_id) {
        // OfflinePartitionLeaderElectionStrategy over the remaining ISR.
        p.isr = isr;
        auto next = elect(p, unclean);
        p.leader = next ? *next : -1;
        ++p.leader_epoch;
        if (next && !contains(p.isr, *next))
          p.isr = {*next}; // unclean: the new leader's log is the truth
      } else if (isr != p.isr) {
        // Only the ISR changes: the leader keeps its epoch, as KRaft's
        // PartitionChangeBuilder does, so its produces in flight go on and
        // the high watermark advances over the remaining ISR.
        p.isr = isr;
      } else {
        continue;
      }
      ++p.partition_epoch;
      changes.push_back({{topic, static_cast<int32_t>(i)}, p});
    }
  }
  return changes;
}

std::vector<partition_change>
cluster_metadata::broker_started(int32_t broker_id, bool broker_unclean) {
  std::vector<partition_change> changes;
  brokers_[broker_id] = true;
  for (auto& [topic, partitions] : topics_) {
    auto unclean = unclean_for(topic, broker_unclean);
    for (size_t i = 0; i < partitions.size(); ++i) {
      auto& p = partitions[i];
      if (p.leader != -1 || !contains(p.replicas, broker_id))
        continue;
      if (elect_offline_leader(p, unclean))
        changes.push_back({{topic, static_cast<int32_t>(i)}, p});
    }
  }
  return changes;
}

bool cluster_metadata::elect_offline_leader(partition_state& p,
                                            bool unclean) const {
  auto next = elect(p, unclean);
  if (!next)
    return false;
  p.leader = *next;
  ++p.leader_epoch;
  ++p.partition_epoch;
  if (!contains(p.isr, *next))
    p.isr = {*next}; // an unclean election: the ISR is the new leader alone
  return true;
}

std::vector<partition_change>
cluster_metadata::elect_offline(const std::string& topic,
                                bool broker_unclean) {
  std::vector<partition_change> changes;
  auto t = topics_.find(topic);
  if (t == topics_.end())
    return changes;
  auto unclean = unclean_for(topic, broker_unclean);
  auto& partitions = t->second;
  for (size_t i = 0; i < partitions.size(); ++i) {
    auto& p = partitions[i];
    if (p.leader != -1)
      continue;
    if (elect_offline_leader(p, unclean))
      changes.push_back({{topic, static_cast<int32_t>(i)}, p});
  }
  return changes;
}

// -- topics --------------------------------------------------------------------

error_code cluster_metadata::create_topic(const std::string& name,
                                          int32_t partitions,
                                          int32_t replication_factor,
                                          int32_t start_index, uuid id) {
  if (auto e = validate_topic_name(name); e != error_code::none)
    return e;
  if (has_topic(name))
    return error_code::topic_already_exists;
  if (partitions < 1)
    return error_code::invalid_partitions;
  auto brokers = live_brokers();
  auto n = static_cast<int32_t>(brokers.size());
  if (replication_factor < 1 || replication_factor > n)
    return error_code::invalid_replication_factor;
  std::vector<partition_state> result;
  for (auto& replicas :
       assign_replicas(brokers, partitions, replication_factor, start_index)) {
    partition_state st;
    st.replicas = std::move(replicas);
    st.leader = st.replicas.front();
    st.isr = st.replicas;
    result.push_back(std::move(st));
  }
  topics_.emplace(name, std::move(result));
  if (!id.is_zero())
    topic_ids_[name] = id;
  return error_code::none;
}

std::vector<std::vector<int32_t>>
assign_replicas(const std::vector<int32_t>& brokers, int32_t count,
                int32_t replication_factor, int32_t start_index,
                int32_t first_partition) {
  std::vector<std::vector<int32_t>> out;
  auto n = static_cast<int32_t>(brokers.size());
  if (n == 0)
    return out;
  auto start = ((start_index % n) + n) % n;
  auto shift = start;
  auto at = [&](int32_t i) { return brokers[static_cast<size_t>(i % n)]; };
  for (int32_t p = std::max(0, first_partition);
       p < std::max(0, first_partition) + count; ++p) {
    if (p > 0 && p % n == 0)
      ++shift;
    auto first = (p + start) % n;
    std::vector<int32_t> replicas{at(first)};
    for (int32_t j = 0; j < replication_factor - 1; ++j)
      replicas.push_back(at(first + (n > 1 ? 1 + (shift + j) % (n - 1) : 0)));
    out.push_back(std::move(replicas));
  }
  return out;
}

std::vector<std::vector<int32_t>>
cluster_metadata::assign_new_partitions(const std::string& topic,
                                        int32_t count) const {
  auto t = topics_.find(topic);
  if (t == topics_.end() || t->second.empty())
    return {};
  auto& first = t->second.front().replicas;
  auto brokers = live_brokers();
  // math.max(0, allBrokers.indexWhere(_.id >= existingAssignmentPartition0.head))
  int32_t start = 0;
  if (!first.empty()) {
    auto i = std::find_if(brokers.begin(), brokers.end(),
                          [&](int32_t id) { return id >= first.front(); });
    if (i != brokers.end())
      start = static_cast<int32_t>(i - brokers.begin());
  }
  return assign_replicas(brokers, count, static_cast<int32_t>(first.size()),
                         start, static_cast<int32_t>(t->second.size()));
}

std::vector<partition_change>
cluster_metadata::add_partitions(const std::string& topic,
                                 const std::vector<std::vector<int32_t>>& replicas) {
  std::vector<partition_change> out;
  auto t = topics_.find(topic);
  if (t == topics_.end())
    return out;
  for (auto& r : replicas) {
    partition_state st;
    st.replicas = r;
    for (auto id : r)
      if (is_alive(id))
        st.isr.push_back(id);
    // No live replica: offline until one returns (Kafka leaves it in
    // NewPartition; broker_started elects it).
    if (st.isr.empty())
      st.isr = r;
    else
      st.leader = st.isr.front();
    t->second.push_back(st);
    out.push_back(
      {{topic, static_cast<int32_t>(t->second.size() - 1)}, std::move(st)});
  }
  return out;
}

error_code
cluster_metadata::elect_preferred(const topic_partition& tp,
                                  std::vector<partition_change>& changes) {
  auto t = topics_.find(tp.topic);
  if (t == topics_.end() || tp.partition < 0
      || static_cast<size_t>(tp.partition) >= t->second.size())
    return error_code::unknown_topic_or_partition;
  auto& p = t->second[static_cast<size_t>(tp.partition)];
  if (p.replicas.empty())
    return error_code::preferred_leader_not_available;
  auto preferred = p.replicas.front();
  if (p.leader == preferred)
    return error_code::election_not_needed;
  if (!is_alive(preferred) || !contains(p.isr, preferred))
    return error_code::preferred_leader_not_available;
  p.leader = preferred;
  ++p.leader_epoch;
  ++p.partition_epoch;
  changes.push_back({tp, p});
  return error_code::none;
}

error_code
cluster_metadata::elect_unclean(const topic_partition& tp,
                                std::vector<partition_change>& changes) {
  auto t = topics_.find(tp.topic);
  if (t == topics_.end() || tp.partition < 0
      || static_cast<size_t>(tp.partition) >= t->second.size())
    return error_code::unknown_topic_or_partition;
  auto& p = t->second[static_cast<size_t>(tp.partition)];
  if (p.leader != -1 && is_alive(p.leader))
    return error_code::election_not_needed;
  auto was = p;
  p.leader = -1;
  if (!elect_offline_leader(p, true)) {
    p = was;
    return error_code::eligible_leaders_not_available;
  }
  changes.push_back({tp, p});
  return error_code::none;
}

void cluster_metadata::set_partition_epoch(const topic_partition& tp,
                                           int32_t epoch) {
  auto i = topics_.find(tp.topic);
  if (i != topics_.end() && tp.partition >= 0
      && static_cast<size_t>(tp.partition) < i->second.size())
    i->second[static_cast<size_t>(tp.partition)].partition_epoch = epoch;
}

// -- partition reassignment (KIP-455) --------------------------------------------

error_code cluster_metadata::reassign(const topic_partition& tp,
                                      const std::vector<int32_t>& target,
                                      std::string& message,
                                      std::vector<partition_change>& changes) {
  auto t = topics_.find(tp.topic);
  if (t == topics_.end() || tp.partition < 0
      || static_cast<size_t>(tp.partition) >= t->second.size()) {
    message = "Unable to find partition " + tp.topic + "-"
              + std::to_string(tp.partition) + ".";
    return error_code::unknown_topic_or_partition;
  }
  // The validation of Kafka's ReplicationControlManager
  // .validateManualPartitionAssignment, in its order and words.
  if (target.empty()) {
    message = "The manual partition assignment includes an empty replica "
              "list.";
    return error_code::invalid_replica_assignment;
  }
  for (size_t i = 0; i < target.size(); ++i)
    for (size_t j = i + 1; j < target.size(); ++j)
      if (target[i] == target[j]) {
        message = "The manual partition assignment includes the broker "
                  + std::to_string(target[i]) + " more than once.";
        return error_code::invalid_replica_assignment;
      }
  for (auto id : target)
    if (!brokers_.count(id)) {
      message = "The manual partition assignment includes broker "
                + std::to_string(id) + ", but no such broker is registered.";
      return error_code::invalid_replica_assignment;
    }
  auto& p = t->second[static_cast<size_t>(tp.partition)];
  auto origin = p.original_replicas();
  if (!p.reassigning() && target == p.replicas)
    return error_code::none; // nothing to move
  auto full = target;
  for (auto id : origin)
    if (!contains(full, id))
      full.push_back(id);
  auto adding = minus(target, origin);
  auto removing = minus(origin, target);
  if (full == p.replicas && adding == p.adding && removing == p.removing)
    return error_code::none; // the same reassignment again
  p.replicas = std::move(full);
  p.adding = std::move(adding);
  p.removing = std::move(removing);
  // A replica being removed that was being added by the reassignment this
  // one replaces leaves the ISR now (it is not an original replica).
  p.isr.erase(std::remove_if(p.isr.begin(), p.isr.end(),
                             [&](int32_t id) { return !contains(p.replicas, id); }),
              p.isr.end());
  ++p.leader_epoch;
  ++p.partition_epoch;
  changes.push_back({tp, p});
  complete_reassignments(changes);
  return error_code::none;
}

error_code
cluster_metadata::cancel_reassignment(const topic_partition& tp,
                                      std::vector<partition_change>& changes) {
  auto p = partition(tp);
  if (!p)
    return error_code::unknown_topic_or_partition;
  if (!p->reassigning())
    return error_code::no_reassignment_in_progress;
  std::string ignored;
  return reassign(tp, p->original_replicas(), ignored, changes);
}

bool cluster_metadata::complete_reassignments(
  std::vector<partition_change>& changes) {
  bool any = false;
  for (auto& [topic, partitions] : topics_) {
    for (size_t i = 0; i < partitions.size(); ++i) {
      auto& p = partitions[i];
      if (!p.reassigning())
        continue;
      auto target = p.target_replicas();
      bool caught_up = std::all_of(target.begin(), target.end(), [&](int32_t id) {
        return contains(p.isr, id);
      });
      if (!caught_up)
        continue;
      // Kafka's ReassignPartitionLeaderElectionStrategy: the first target
      // replica that is alive and in the ISR, unless the leader is one.
      if (!contains(target, p.leader) || !is_alive(p.leader)) {
        auto next = std::find_if(target.begin(), target.end(), [&](int32_t id) {
          return is_alive(id) && contains(p.isr, id);
        });
        if (next == target.end())
          continue; // no target replica can lead yet: wait
        p.leader = *next;
      }
      p.isr = minus(p.isr, p.removing);
      p.replicas = std::move(target);
      p.adding.clear();
      p.removing.clear();
      ++p.leader_epoch;
      ++p.partition_epoch;
      changes.push_back({{topic, static_cast<int32_t>(i)}, p});
      any = true;
    }
  }
  return any;
}

void cluster_metadata::sync_liveness(const std::vector<int32_t>& registered,
                                     bool unclean) {
  std::vector<int32_t> known;
  for (auto& [id, alive] : brokers_)
    known.push_back(id);
  for (auto& [topic, partitions] : topics_)
    for (auto& p : partitions)
      known.insert(known.end(), p.replicas.begin(), p.replicas.end());
  for (auto id : known)
    if (!brokers_.count(id))
      brokers_[id] = true; // named by a replica list: it was alive once
  for (auto id : known)
    if (is_alive(id) && !contains(registered, id))
      broker_stopped(id, unclean);
  for (auto id : registered)
    if (!is_alive(id))
      broker_started(id, unclean);
}

std::vector<topic_partition>
imbalanced_partitions(const cluster_metadata& m, int32_t percentage,
                      const std::set<std::string>& skip) {
  // Per preferred broker: how many partitions prefer it, and those it does
  // not lead.
  struct preferred_of {
    size_t total = 0;
    std::vector<topic_partition> not_led;
  };
  std::map<int32_t, preferred_of> by_broker;
  for (auto& [topic, partitions] : m.topics()) {
    if (skip.count(topic))
      continue;
    for (size_t i = 0; i < partitions.size(); ++i) {
      auto& p = partitions[i];
      if (p.replicas.empty())
        continue;
      auto& b = by_broker[p.replicas.front()];
      ++b.total;
      if (p.leader != p.replicas.front())
        b.not_led.push_back({topic, static_cast<int32_t>(i)});
    }
  }
  std::vector<topic_partition> out;
  for (auto& [broker, b] : by_broker) {
    auto ratio = static_cast<double>(b.not_led.size())
                 / static_cast<double>(b.total);
    if (ratio <= static_cast<double>(percentage) / 100.0)
      continue;
    if (!m.is_alive(broker))
      continue;
    for (auto& tp : b.not_led) {
      auto p = m.partition(tp);
      if (p && contains(p->isr, broker))
        out.push_back(tp);
    }
  }
  return out;
}

std::vector<topic_partition> changed_partitions(const cluster_metadata& before,
                                                const cluster_metadata& after) {
  std::vector<topic_partition> out;
  for (auto& [topic, partitions] : after.topics()) {
    for (size_t i = 0; i < partitions.size(); ++i) {
      topic_partition tp{topic, static_cast<int32_t>(i)};
      auto old = before.partition(tp);
      if (!old || !(*old == partitions[i]))
        out.push_back(std::move(tp));
    }
  }
  return out;
}

error_code cluster_metadata::delete_topic(const std::string& name) {
  if (topics_.erase(name) == 0)
    return error_code::unknown_topic_or_partition;
  topic_ids_.erase(name);
  configs_.erase(name);
  return error_code::none;
}

const broker_configs& cluster_metadata::dynamic_configs(int32_t broker) const {
  static const broker_configs none;
  auto i = dynamic_configs_.find(broker);
  return i == dynamic_configs_.end() ? none : i->second;
}

void cluster_metadata::set_dynamic_configs(int32_t broker,
                                           broker_configs configs) {
  if (configs.empty())
    dynamic_configs_.erase(broker);
  else
    dynamic_configs_[broker] = std::move(configs);
}

const topic_configs& cluster_metadata::configs(const std::string& name) const {
  static const topic_configs none;
  auto i = configs_.find(name);
  return i == configs_.end() ? none : i->second;
}

void cluster_metadata::set_configs(const std::string& name,
                                   topic_configs configs) {
  if (!has_topic(name))
    return;
  if (configs.empty())
    configs_.erase(name);
  else
    configs_[name] = std::move(configs);
}

std::vector<std::string> changed_configs(const cluster_metadata& before,
                                         const cluster_metadata& after) {
  std::vector<std::string> out;
  for (auto& [name, partitions] : after.topics())
    if (!before.has_topic(name) || before.configs(name) != after.configs(name))
      out.push_back(name);
  return out;
}

std::string cluster_metadata::topic_name(const uuid& id) const {
  if (id.is_zero())
    return {};
  for (auto& [name, topic_id] : topic_ids_)
    if (topic_id == id && topics_.count(name))
      return name;
  return {};
}

int64_t cluster_metadata::allocate_producer_ids(int32_t count) {
  if (count <= 0 || next_producer_id_ > INT64_MAX - count)
    return -1;
  auto first = next_producer_id_;
  next_producer_id_ += count;
  return first;
}

uuid cluster_metadata::topic_id(const std::string& name) const {
  auto i = topic_ids_.find(name);
  return i == topic_ids_.end() ? uuid{} : i->second;
}

const partition_state*
cluster_metadata::partition(const topic_partition& tp) const {
  auto i = topics_.find(tp.topic);
  if (i == topics_.end() || tp.partition < 0
      || static_cast<size_t>(tp.partition) >= i->second.size())
    return nullptr;
  return &i->second[static_cast<size_t>(tp.partition)];
}

// -- ISR changes -------------------------------------------------------------------

error_code cluster_metadata::alter_isr(const topic_partition& tp,
                                       int32_t leader, int32_t leader_epoch,
                                       int32_t partition_epoch,
                                       const std::vector<int32_t>& isr) {
  auto i = topics_.find(tp.topic);
  if (i == topics_.end() || tp.partition < 0
      || static_cast<size_t>(tp.partition) >= i->second.size())
    return error_code::unknown_topic_or_partition;
  auto& p = i->second[static_cast<size_t>(tp.partition)];
  if (leader_epoch < p.leader_epoch)
    return error_code::fenced_leader_epoch;
  if (leader != p.leader || leader_epoch != p.leader_epoch)
    return error_code::not_leader_or_follower;
  if (partition_epoch != p.partition_epoch)
    return error_code::invalid_update_version;
  if (!contains(isr, leader))
    return error_code::invalid_request;
  for (auto id : isr)
    if (!contains(p.replicas, id))
      return error_code::invalid_request;
  // KIP-841: a leader may not add a replica whose broker is down (a fetch
  // sent just before the broker stopped would otherwise bring it back).
  for (auto id : isr)
    if (!contains(p.isr, id) && !is_alive(id))
      return error_code::ineligible_replica;
  p.isr = isr;
  ++p.partition_epoch;
  return error_code::none;
}

} // namespace troupe
