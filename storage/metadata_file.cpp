#include "storage/metadata_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster_metadata.pb.h"

namespace troupe {

namespace {

std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

/// Writes all of `data` or fails.
bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void add_security(proto::ClusterMetadata& out, const stored_security& s) {
  for (auto& b : s.acls) {
    auto a = out.add_acls();
    a->set_resource_type(static_cast<int32_t>(b.pattern.type));
    a->set_name(b.pattern.name);
    a->set_pattern_type(static_cast<int32_t>(b.pattern.pattern));
    a->set_principal(b.entry.principal);
    a->set_host(b.entry.host);
    a->set_operation(static_cast<int32_t>(b.entry.operation));
    a->set_permission(static_cast<int32_t>(b.entry.permission));
  }
  for (auto& [user, by_mechanism] : s.scram)
    for (auto& [mechanism, c] : by_mechanism) {
      auto x = out.add_scram_credentials();
      x->set_user(user);
      x->set_mechanism(static_cast<int32_t>(mechanism));
      x->set_salt(std::string(c.salt.begin(), c.salt.end()));
      x->set_stored_key(std::string(c.stored_key.begin(), c.stored_key.end()));
      x->set_server_key(std::string(c.server_key.begin(), c.server_key.end()));
      x->set_iterations(c.iterations);
    }
}

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

stored_security security_from_proto(const proto::ClusterMetadata& in) {
  stored_security out;
  for (auto& a : in.acls()) {
    security::acl_binding b;
    b.pattern.type = static_cast<security::resource_type>(a.resource_type());
    b.pattern.name = a.name();
    b.pattern.pattern = static_cast<security::pattern_type>(a.pattern_type());
    b.entry.principal = a.principal();
    b.entry.host = a.host();
    b.entry.operation = static_cast<security::acl_operation>(a.operation());
    b.entry.permission =
      static_cast<security::permission_type>(a.permission());
    out.acls.push_back(std::move(b));
  }
  for (auto& x : in.scram_credentials()) {
    security::scram_credential c;
    c.salt = bytes_of(x.salt());
    c.stored_key = bytes_of(x.stored_key());
    c.server_key = bytes_of(x.server_key());
    c.iterations = x.iterations();
    out.scram[x.user()][static_cast<security::scram_mechanism>(
      x.mechanism())] = std::move(c);
  }
  return out;
}

proto::ClusterMetadata to_proto(const cluster_metadata& m, uint64_t version) {
  proto::ClusterMetadata out;
  out.set_version(version);
  out.set_cluster_id_high(m.cluster_id().high);
  out.set_cluster_id_low(m.cluster_id().low);
  out.set_next_producer_id(m.next_producer_id());
  for (auto& [id, configs] : m.all_dynamic_configs()) {
    auto b = out.add_broker_configs();
    b->set_broker_id(id);
    for (auto& [k, v] : configs)
      (*b->mutable_configs())[k] = v;
  }
  for (auto& [id, alive] : m.brokers()) {
    auto b = out.add_brokers();
    b->set_id(id);
    b->set_alive(alive);
  }
  for (auto& [name, partitions] : m.topics()) {
    auto t = out.add_topics();
    t->set_name(name);
    auto id = m.topic_id(name);
    t->set_id_high(id.high);
    t->set_id_low(id.low);
    for (auto& [k, v] : m.configs(name))
      (*t->mutable_configs())[k] = v;
    for (auto& p : partitions) {
      auto ps = t->add_partitions();
      for (auto r : p.replicas)
        ps->add_replicas(r);
      ps->set_leader(p.leader);
      ps->set_leader_epoch(p.leader_epoch);
      for (auto r : p.isr)
        ps->add_isr(r);
      ps->set_partition_epoch(p.partition_epoch);
      for (auto r : p.adding)
        ps->add_adding_replicas(r);
      for (auto r : p.removing)
        ps->add_removing_replicas(r);
    }
  }
  return out;
}

cluster_metadata from_proto(const proto::ClusterMetadata& in) {
  std::map<int32_t, bool> brokers;
  for (auto& b : in.brokers())
    brokers[b.id()] = b.alive();
  std::map<std::string, std::vector<partition_state>> topics;
  std::map<std::string, uuid> ids;
  std::map<std::string, topic_configs> configs;
  for (auto& t : in.topics()) {
    if (t.id_high() != 0 || t.id_low() != 0)
      ids[t.name()] = uuid{t.id_high(), t.id_low()};
    if (!t.configs().empty())
      configs[t.name()] =
        topic_configs(t.configs().begin(), t.configs().end());
    auto& partitions = topics[t.name()];
    for (auto& ps : t.partitions()) {
      partition_state p;
      p.replicas.assign(ps.replicas().begin(), ps.replicas().end());
      p.leader = ps.leader();
      p.leader_epoch = ps.leader_epoch();
      p.isr.assign(ps.isr().begin(), ps.isr().end());
      p.partition_epoch = ps.partition_epoch();
      p.adding.assign(ps.adding_replicas().begin(), ps.adding_replicas().end());
      p.removing.assign(ps.removing_replicas().begin(),
                        ps.removing_replicas().end());
      partitions.push_back(std::move(p));
    }
  }
  auto m = cluster_metadata::restore(std::move(brokers), std::move(topics),
                                     std::move(ids), std::move(configs));
  m.set_cluster_id(uuid{in.cluster_id_high(), in.cluster_id_low()});
  m.set_next_producer_id(in.next_producer_id());
  for (auto& b : in.broker_configs())
    m.set_dynamic_configs(
      b.broker_id(), broker_configs(b.configs().begin(), b.configs().end()));
  return m;
}

} // namespace

metadata_file::metadata_file(std::string dir)
  : dir_(std::move(dir)), path_(dir_ + "/cluster_metadata.pb") {
  // nop
}

std::string metadata_file::save(const cluster_metadata& metadata,
                                const stored_security& security) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    return "cannot create " + dir_ + ": " + ec.message();
  std::string bytes;
  auto record = to_proto(metadata, ++version_);
  add_security(record, security);
  if (!record.SerializeToString(&bytes))
    return "cannot serialize the cluster metadata";
  auto tmp = path_ + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return errno_text("cannot open", tmp);
  bool ok = write_all(fd, bytes) && ::fsync(fd) == 0;
  auto err = ok ? std::string{} : errno_text("cannot write", tmp);
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), path_.c_str()) != 0)
    return errno_text("cannot rename onto", path_);
  // The rename itself must survive a crash.
  int dir_fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

std::variant<std::optional<cluster_metadata>, std::string>
metadata_file::load(stored_security* security) const {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return std::optional<cluster_metadata>{};
    return errno_text("cannot open", path_);
  }
  std::string bytes;
  char buf[65536];
  for (;;) {
    auto n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      auto err = errno_text("cannot read", path_);
      ::close(fd);
      return err;
    }
    if (n == 0)
      break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  proto::ClusterMetadata in;
  if (!in.ParseFromString(bytes))
    return path_ + " is not a valid ClusterMetadata record";
  if (security)
    *security = security_from_proto(in);
  return std::optional<cluster_metadata>{from_proto(in)};
}

} // namespace troupe
