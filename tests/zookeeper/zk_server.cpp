#include "tests/zookeeper/zk_server.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

namespace troupe::test {

namespace {

// ZooKeeper and one SLF4J binding (slf4j-simple logs to stderr, i.e. the log
// file). zookeeper.jar's manifest names the rest of its class path. All of
// /usr/share/java/* would work too, but picks one of six SLF4J bindings,
// the silent one.
constexpr const char* class_path =
  "/usr/share/java/slf4j-simple.jar:/usr/share/java/zookeeper.jar";

constexpr const char* java = "/usr/bin/java";

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

} // namespace

uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    throw std::runtime_error("socket: " + std::string{std::strerror(errno)});
  auto addr = loopback(0);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0
      || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("bind: " + std::string{std::strerror(errno)});
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

zk_server::zk_server(zk_server_options options) : options_(options) {
  char tmpl[] = "/tmp/troupe-zk-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("mkdtemp: " + std::string{std::strerror(errno)});
  dir_ = tmpl;
  std::filesystem::create_directory(dir_ + "/data");
  // A free port can be taken by someone else before ZooKeeper binds it: try
  // another one then.
  constexpr int attempts = 3;
  for (int i = 0; i < attempts; ++i) {
    port_ = options_.port != 0 ? options_.port : free_port();
    try {
      start();
      return;
    } catch (const std::exception&) {
      if (options_.port != 0 || i + 1 == attempts) {
        auto tail = log_tail();
        kill();
        std::filesystem::remove_all(dir_);
        throw std::runtime_error("ZooKeeper did not start on port "
                                 + std::to_string(port_) + "; its log:\n"
                                 + tail);
      }
    }
  }
}

zk_server::~zk_server() {
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string zk_server::connect_string(std::string_view chroot) const {
  return "127.0.0.1:" + std::to_string(port_) + std::string{chroot};
}

void zk_server::write_config() const {
  std::ofstream cfg{dir_ + "/zoo.cfg", std::ios::trunc};
  cfg << "tickTime=" << options_.tick_time_ms << '\n'
      << "dataDir=" << dir_ << "/data\n"
      << "clientPort=" << port_ << '\n'
      << "clientPortAddress=127.0.0.1\n"
      << "minSessionTimeout=" << options_.min_session_timeout_ms << '\n'
      << "maxSessionTimeout=" << options_.max_session_timeout_ms << '\n'
      << "admin.enableServer=false\n"
      << "4lw.commands.whitelist=ruok,srvr,stat,cons\n";
}

void zk_server::start() {
  if (pid_ > 0)
    return;
  write_config();
  auto cfg = dir_ + "/zoo.cfg";
  auto log = dir_ + "/zookeeper.log";
  std::vector<std::string> args{java,
                                "-Xms16m",
                                "-Xmx128m",
                                "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1",
                                "-Dzookeeper.jmx.log4j.disable=true",
                                "-cp",
                                class_path,
                                "org.apache.zookeeper.server.quorum"
                                ".QuorumPeerMain",
                                cfg};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  auto parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("fork: " + std::string{std::strerror(errno)});
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(1);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (out >= 0) {
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
    }
    if (in >= 0)
      ::dup2(in, STDIN_FILENO);
    ::execv(java, argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  if (!wait_until_serving())
    throw std::runtime_error("ZooKeeper is not serving");
}

bool zk_server::wait_until_serving() {
  using namespace std::chrono;
  auto deadline = steady_clock::now() + seconds{20};
  while (steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    // `ruok` answers as soon as the process runs; `srvr` names the mode
    // only once the server serves.
    if (four_letter_word("srvr").find("Mode: ") != std::string::npos)
      return true;
    std::this_thread::sleep_for(milliseconds{100});
  }
  return false;
}

std::string zk_server::four_letter_word(std::string_view word) const {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return {};
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  auto addr = loopback(port_);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0
      && ::send(fd, word.data(), word.size(), MSG_NOSIGNAL)
           == static_cast<ssize_t>(word.size())) {
    char buf[1024];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;)
      answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

void zk_server::kill() {
  if (pid_ <= 0)
    return;
  ::kill(-pid_, SIGKILL); // its process group
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    // retry
  }
  pid_ = -1;
}

std::string zk_server::log_tail(size_t max_bytes) const {
  std::ifstream in{dir_ + "/zookeeper.log"};
  std::stringstream text;
  text << in.rdbuf();
  auto all = text.str();
  return all.size() > max_bytes ? all.substr(all.size() - max_bytes) : all;
}

} // namespace troupe::test
