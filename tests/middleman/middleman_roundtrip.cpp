// Every actor message crosses a real CAF middleman between two processes
// (docs/ARCHITECTURE.md §7): a type missing from the type-id block, or one
// whose inspect() loses a field, only shows between processes (to its own
// node, remote_actor returns the local handle). This test runs itself a
// second time as an echo node, connects over loopback, sends one sample of
// every message and checks that the same value comes back.

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/node.hpp"
#include "tests/actors/message_samples.hpp"

using namespace troupe;

namespace {

const char* self_path = nullptr;

/// Answers every message with itself.
caf::behavior echo(caf::event_based_actor* self) {
  self->set_default_handler(
    [](caf::scheduled_actor*,
       caf::message_view& x) -> caf::result<caf::message> {
      return x.move_content_to_message();
    });
  return {[](caf::down_msg&) {}};
}

void configure(caf::actor_system_config& cfg) {
  configure_actor_system(cfg, process_config{}, zookeeper_mode{});
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
}

/// The echo node: publishes on a free port, prints it, runs until killed (by
/// the test, or by the kernel when the test dies: PR_SET_PDEATHSIG).
int run_echo() {
  caf::actor_system_config cfg;
  configure(cfg);
  caf::actor_system sys{cfg};
  auto port = sys.middleman().publish(sys.spawn(echo), 0, "127.0.0.1");
  if (!port) {
    std::fprintf(stderr, "publish failed: %s\n",
                 caf::to_string(port.error()).c_str());
    return 1;
  }
  std::printf("%u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  for (;;)
    pause();
}

/// The echo node as a child process, killed by pid when the test ends, and
/// by the kernel if the test process dies without unwinding.
struct echo_node {
  pid_t pid = -1;
  uint16_t port = 0;

  echo_node() {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    auto parent = getpid();
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Armed before exec (it survives exec); if the parent died before
      // this line, the signal would never come.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent)
        _exit(1);
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      execl(self_path, self_path, "--echo", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    char buf[32] = {};
    auto n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    if (n > 0)
      port = static_cast<uint16_t>(std::atoi(buf));
  }

  ~echo_node() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

} // namespace

TEST_CASE("every actor message crosses a real middleman between two "
          "processes unchanged") {
  echo_node node;
  REQUIRE(node.port != 0);
  caf::actor_system_config cfg;
  configure(cfg);
  caf::actor_system sys{cfg};
  auto remote = sys.middleman().remote_actor("127.0.0.1", node.port);
  REQUIRE(remote);
  caf::scoped_actor self{sys};
  size_t sent = 0;
  size_t echoed = 0;
  auto local = caf::actor_cast<caf::actor>(self);
  test::with_message_samples(local, [&](auto... values) {
    auto one = [&](auto value) {
      using type = decltype(value);
      INFO("type: " << caf::type_name<type>::value);
      auto expected = caf::deep_to_string(value);
      ++sent;
      self->request(*remote, std::chrono::seconds(10), std::move(value))
        .receive(
          [&](type& back) {
            CHECK(caf::deep_to_string(back) == expected);
            ++echoed;
          },
          [&](caf::error& err) { FAIL_CHECK(caf::to_string(err)); });
    };
    (one(std::move(values)), ...);
    return 0;
  });
  CHECK(sent == caf::id_block::troupe::end - caf::id_block::troupe::begin);
  CHECK(echoed == sent);
}

int main(int argc, char** argv) {
  self_path = argv[0];
  if (argc > 1 && std::strcmp(argv[1], "--echo") == 0)
    return run_echo();
  return Catch::Session().run(argc, argv);
}
