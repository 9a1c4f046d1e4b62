#!/usr/bin/env bash
# Installs every Debian package troupe needs to build, run and test.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libcaf-dev            # actors and remoting (CAF 0.17.6)
  libboost-dev          # Beast / Asio (gateway, Kafka listener)
  libssl-dev openssl    # TLS listeners, SCRAM, HTTPS gateway, TLS node links
  kcat                  # Kafka listener end-to-end test (librdkafka)
  librdkafka-dev        # librdkafka test program and benchmark (mock cluster)
  wrk nginx-light       # HTTP benchmark and its ceiling
  chromium              # dashboard test in a headless browser
  libprotobuf-dev protobuf-compiler
  catch2                # unit and actor tests
  libspdlog-dev libfmt-dev
  libcli11-dev          # command-line parsing
  libjemalloc-dev       # allocator of the executables
  linux-perf valgrind   # profiling the benchmarks
  clang                 # libFuzzer targets (scripts/fuzz.sh)
  python3               # plot script
  zookeeper             # cluster metadata server (3.8), started by the tests
  libzookeeper-mt-dev   # ZooKeeper's C client (cluster/zookeeper/zookeeper_client)
  nlohmann-json3-dev    # Kafka's znode JSON (domain/zookeeper)
  python3-confluent-kafka # cluster tests, tests/kafka/python_clients_test.py
  python3-kazoo         # cluster tests and scripts/cluster.sh read ZooKeeper
  iproute2              # cluster tests: network namespaces (ip netns)
  python3-kafka         # kafka-python client test (tests/kafka)
  nodejs                # @platformatic/kafka tests (tests/kafka/platformatic)
  zlib1g-dev liblz4-dev libsnappy-dev # old message formats: gzip, lz4, snappy
  golang-go golang-github-shopify-sarama-dev # sarama client tests (GOPATH mode)
  burrow                # consumer-lag monitor test (tests/kafka)
  dpkg-dev              # the Debian package (CPack) and its test
)

# NodeSource's nodejs bundles npm; Debian's needs its npm package (which
# would conflict with NodeSource's), so it is asked for only when missing.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm packages of the Kafka client tests (tests/kafka/platformatic:
# @platformatic/kafka, pinned by the committed package-lock.json), with the
# machine's Node.js. Installed again only when the lock file changed.
platformatic_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/kafka/platformatic"
stamp="$platformatic_dir/node_modules/.troupe-installed-lock"
if command -v npm >/dev/null 2>&1 \
  && ! cmp -s "$platformatic_dir/package-lock.json" "$stamp"; then
  echo "setup: npm ci in tests/kafka/platformatic"
  (cd "$platformatic_dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$platformatic_dir/package-lock.json" "$stamp"
fi
