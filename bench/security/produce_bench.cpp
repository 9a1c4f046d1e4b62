// The Kafka listener's security cost (bench/security/produce_bench.sh runs
// it; not a test):
//
//   produce_bench produce --bootstrap H:P [-X key=value]... [--seconds S]
//                         [--message-size N] [--topic T] [--rate R]
//     librdkafka producing acks=all for S seconds (after a 2 s warm-up):
//     records/s, MB/s and the produce-to-acknowledgement latency's p50 and
//     p99, printed as one line "produce <rec/s> <MB/s> <p50 ms> <p99 ms>
//     <failed>". Without --rate as fast as the producer's queue allows (the
//     throughput; latency is then mostly queueing); with --rate R records/s
//     paced (the latency of a load below saturation).
//
//   produce_bench connect --host H --port P --user U --password W
//                         [--tls CA.pem] [--threads T] [--seconds S]
//     T threads opening connection after connection, each authenticated
//     with SCRAM-SHA-512 (SaslHandshake v1, SaslAuthenticate v1, the server
//     signature verified) and closed: "connect <connections/s> <failed>".
//     Each connection costs the client one PBKDF2 (the credential's
//     iterations) as it costs any SCRAM client.

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <librdkafka/rdkafka.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "domain/security/scram.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           clock_type::now().time_since_epoch())
    .count();
}

// -- produce --------------------------------------------------------------------

struct produce_stats {
  std::mutex mtx;
  std::vector<double> latencies_ms;
  std::atomic<int64_t> acked{0};
  std::atomic<int64_t> failed{0};
  std::atomic<bool> measuring{false};
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<produce_stats*>(opaque);
  if (m->err) {
    ++st->failed;
    return;
  }
  auto sent = reinterpret_cast<intptr_t>(m->_private);
  if (!st->measuring || sent == 0)
    return;
  ++st->acked;
  std::lock_guard<std::mutex> guard{st->mtx};
  st->latencies_ms.push_back(static_cast<double>(now_ns() - sent) / 1e6);
}

int produce(const std::string& bootstrap,
            const std::vector<std::pair<std::string, std::string>>& extra,
            int seconds, size_t message_size, const std::string& topic,
            double rate_limit) {
  char err[512];
  auto* conf = rd_kafka_conf_new();
  auto set = [&](const std::string& k, const std::string& v) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err))
        != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s=%s: %s\n", k.c_str(), v.c_str(), err);
      std::exit(2);
    }
  };
  set("bootstrap.servers", bootstrap);
  set("acks", "all");
  set("linger.ms", "5");
  set("queue.buffering.max.messages", "200000");
  for (auto& [k, v] : extra)
    set(k, v);
  produce_stats st;
  rd_kafka_conf_set_opaque(conf, &st);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  auto* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
  if (!rk) {
    std::fprintf(stderr, "producer: %s\n", err);
    return 2;
  }
  std::string payload(message_size, 'x');
  auto run = [&](int secs) {
    auto start = clock_type::now();
    auto end = start + std::chrono::seconds(secs);
    int64_t n = 0;
    while (clock_type::now() < end) {
      if (rate_limit > 0) {
        auto next = start + std::chrono::nanoseconds(int64_t(1e9 * double(n) / rate_limit));
        while (clock_type::now() < next) {
          rd_kafka_poll(rk, 0);
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        ++n;
      }
      auto sent = st.measuring ? now_ns() : 0;
      auto e = rd_kafka_producev(
        rk, RD_KAFKA_V_TOPIC(topic.c_str()),
        RD_KAFKA_V_VALUE(payload.data(), payload.size()),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(sent)), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL)
        rd_kafka_poll(rk, 1);
      else
        rd_kafka_poll(rk, 0);
    }
  };
  run(2); // warm-up: metadata, the topic, connections
  rd_kafka_flush(rk, 30000);
  st.measuring = true;
  auto t0 = clock_type::now();
  run(seconds);
  rd_kafka_flush(rk, 60000);
  auto took = std::chrono::duration<double>(clock_type::now() - t0).count();
  rd_kafka_destroy(rk);
  auto& l = st.latencies_ms;
  std::sort(l.begin(), l.end());
  auto pct = [&](double p) {
    return l.empty() ? 0.0 : l[std::min(l.size() - 1, size_t(p * l.size()))];
  };
  auto rate = static_cast<double>(st.acked) / took;
  std::printf("produce %.0f %.2f %.2f %.2f %lld\n", rate,
              rate * static_cast<double>(message_size) / 1e6, pct(0.5),
              pct(0.99), static_cast<long long>(st.failed.load()));
  return st.failed > 0 ? 1 : 0;
}

// -- connect ----------------------------------------------------------------------

struct conn {
  int fd = -1;
  SSL* ssl = nullptr;

  bool write_all(const std::string& x) {
    size_t at = 0;
    while (at < x.size()) {
      auto n = ssl ? SSL_write(ssl, x.data() + at, int(x.size() - at))
                   : int(::send(fd, x.data() + at, x.size() - at, 0));
      if (n <= 0)
        return false;
      at += size_t(n);
    }
    return true;
  }

  bool read_all(char* out, size_t size) {
    size_t at = 0;
    while (at < size) {
      auto n = ssl ? SSL_read(ssl, out + at, int(size - at))
                   : int(::recv(fd, out + at, size - at, 0));
      if (n <= 0)
        return false;
      at += size_t(n);
    }
    return true;
  }

  /// One response body after the correlation id.
  std::optional<std::string> request(int16_t key, int16_t version,
                                     int32_t corr, const std::string& body) {
    std::string h;
    auto put16 = [&](int16_t v) {
      h.push_back(char(v >> 8));
      h.push_back(char(v));
    };
    auto put32 = [&](int32_t v) {
      for (int s = 24; s >= 0; s -= 8)
        h.push_back(char(v >> s));
    };
    std::string msg;
    put16(key);
    put16(version);
    put32(corr);
    put16(5);
    h += "bench";
    msg = h + body;
    h.clear();
    put32(int32_t(msg.size()));
    if (!write_all(h + msg))
      return std::nullopt;
    char size[4];
    if (!read_all(size, 4))
      return std::nullopt;
    auto n = (uint32_t(uint8_t(size[0])) << 24) | (uint32_t(uint8_t(size[1])) << 16)
             | (uint32_t(uint8_t(size[2])) << 8) | uint32_t(uint8_t(size[3]));
    std::string data(n, '\0');
    if (n < 4 || !read_all(data.data(), n))
      return std::nullopt;
    return data.substr(4);
  }

  void close() {
    if (ssl) {
      SSL_free(ssl);
      ssl = nullptr;
    }
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
};

int16_t get16(const std::string& s, size_t at) {
  return int16_t((uint8_t(s[at]) << 8) | uint8_t(s[at + 1]));
}

int32_t get32(const std::string& s, size_t at) {
  return int32_t((uint32_t(uint8_t(s[at])) << 24)
                 | (uint32_t(uint8_t(s[at + 1])) << 16)
                 | (uint32_t(uint8_t(s[at + 2])) << 8) | uint8_t(s[at + 3]));
}

std::string bytes_field(const std::string& x) {
  std::string out;
  auto n = int32_t(x.size());
  for (int s = 24; s >= 0; s -= 8)
    out.push_back(char(n >> s));
  return out + x;
}

/// The auth bytes of a SaslAuthenticate v1 response, nullopt on an error.
std::optional<std::string> auth_bytes(const std::optional<std::string>& body) {
  if (!body || body->size() < 4 || get16(*body, 0) != 0)
    return std::nullopt;
  size_t at = 2;
  auto msg_len = get16(*body, at);
  at += 2 + size_t(std::max<int16_t>(msg_len, 0));
  if (body->size() < at + 4)
    return std::nullopt;
  auto n = get32(*body, at);
  if (n < 0 || body->size() < at + 4 + size_t(n))
    return std::nullopt;
  return body->substr(at + 4, size_t(n));
}

bool one_connection(const sockaddr_in& addr, SSL_CTX* tls,
                    const std::string& user, const std::string& password) {
  conn c;
  c.fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr))
      != 0) {
    c.close();
    return false;
  }
  if (tls) {
    c.ssl = SSL_new(tls);
    SSL_set_fd(c.ssl, c.fd);
    SSL_set_tlsext_host_name(c.ssl, "localhost");
    if (SSL_connect(c.ssl) != 1) {
      c.close();
      return false;
    }
  }
  bool ok = false;
  troupe::security::scram_client client{
    troupe::security::scram_mechanism::sha512, user, password};
  auto mech = std::string{"SCRAM-SHA-512"};
  std::string hs{char(0), char(mech.size())};
  auto res = c.request(17, 1, 1, hs + mech);
  if (res && res->size() >= 2 && get16(*res, 0) == 0) {
    auto first =
      auth_bytes(c.request(36, 1, 2, bytes_field(client.first_message())));
    if (first) {
      auto final_msg = client.final_message(*first);
      if (final_msg) {
        auto last = auth_bytes(c.request(36, 1, 3, bytes_field(*final_msg)));
        ok = last && client.verify_server_final(*last);
      }
    }
  }
  c.close();
  return ok;
}

int connect_bench(const std::string& host, int port, const std::string& user,
                  const std::string& password, const std::string& ca,
                  int threads, int seconds) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  SSL_CTX* tls = nullptr;
  if (!ca.empty()) {
    tls = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(tls, ca.c_str(), nullptr);
    SSL_CTX_set_verify(tls, SSL_VERIFY_PEER, nullptr);
  }
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> failed{0};
  auto end = clock_type::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> workers;
  auto t0 = clock_type::now();
  for (int i = 0; i < threads; ++i)
    workers.emplace_back([&] {
      while (clock_type::now() < end)
        (one_connection(addr, tls, user, password) ? done : failed)++;
    });
  for (auto& w : workers)
    w.join();
  auto took = std::chrono::duration<double>(clock_type::now() - t0).count();
  if (tls)
    SSL_CTX_free(tls);
  std::printf("connect %.0f %lld\n", double(done) / took,
              static_cast<long long>(failed.load()));
  return failed > 0 ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: produce_bench produce|connect ...\n");
    return 2;
  }
  std::string mode = argv[1];
  std::string bootstrap, topic = "security-bench", host = "127.0.0.1", user,
                         password, ca;
  std::vector<std::pair<std::string, std::string>> extra;
  int seconds = 10, port = 9092, threads = 4;
  double rate = 0;
  size_t message_size = 1024;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--bootstrap")
      bootstrap = v;
    else if (k == "-X") {
      auto eq = v.find('=');
      extra.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (k == "--seconds")
      seconds = std::stoi(v);
    else if (k == "--message-size")
      message_size = size_t(std::stoul(v));
    else if (k == "--topic")
      topic = v;
    else if (k == "--rate")
      rate = std::stod(v);
    else if (k == "--host")
      host = v;
    else if (k == "--port")
      port = std::stoi(v);
    else if (k == "--user")
      user = v;
    else if (k == "--password")
      password = v;
    else if (k == "--tls")
      ca = v;
    else if (k == "--threads")
      threads = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (mode == "produce")
    return produce(bootstrap, extra, seconds, message_size, topic, rate);
  if (mode == "connect")
    return connect_bench(host, port, user, password, ca, threads, seconds);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
