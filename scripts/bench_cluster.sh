#!/usr/bin/env bash
# Cluster benchmarks, printed as markdown tables (README "Several nodes");
# not tests.
#
#   1. produce, acks=all, replication factor 3, min.insync.replicas=2:
#      kafka_bench's produce workload (bench/kafka/kafka_bench.cpp, one
#      librdkafka producer) against three troupe processes and ZooKeeper
#      (scripts/cluster.sh) and against the embedded three-broker node, in
#      the same run with the same client settings;
#   2. failover: kill -9 of a partition leader's node until the first
#      record acknowledged by the new leader, for several
#      zookeeper.session.timeout.ms (bench/cluster/failover_bench.py).
#
#   scripts/bench_cluster.sh                       # ~4 minutes on 2 cores
#   BENCH_PRODUCE_SECONDS=10 BENCH_SESSIONS=3000,6000,10000 BENCH_TRIALS=3 \
#     scripts/bench_cluster.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${BENCH_PRODUCE_SECONDS:-10}
sessions=${BENCH_SESSIONS:-3000,6000,10000}
trials=${BENCH_TRIALS:-3}
out=$(mktemp -d /tmp/troupe-bench-cluster-XXXXXX)
py=/usr/bin/python3

if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log"
fi
cmake --build build -j "${BENCH_BUILD_JOBS:-2}" --target troupe kafka_bench >"$out/build.log" \
  || { tail -n 30 "$out/build.log"; exit 1; }

bench_args=(--no-groups --produce-seconds "$seconds" --produce-partitions 6
            --replication-factor 3 --message-size 100)

# -- 1a: the embedded node -------------------------------------------------------
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
embedded_pid=
cleanup() {
  [[ -n $embedded_pid ]] && kill "$embedded_pid" 2>/dev/null && wait "$embedded_pid" 2>/dev/null
  TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh down >/dev/null 2>&1 || true
}
trap cleanup EXIT
# Three consecutive ports from a free one; retried by the wait below.
build/troupe serve --http-port 0 --override port="$port" \
  --override "log.dirs=$out/embedded" --override min.insync.replicas=2 \
  >"$out/embedded.log" 2>&1 &
embedded_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$((port + 2))") 2>/dev/null && break
  sleep 0.1
done
echo "embedded node: 127.0.0.1:$port..$((port + 2)), pid $embedded_pid" >&2
timeout 120 build/kafka_bench --bootstrap "127.0.0.1:$port" "${bench_args[@]}" \
  >"$out/embedded.out" 2>"$out/embedded.err" || echo "kafka_bench (embedded) exited with $?" >&2
kill "$embedded_pid"
wait "$embedded_pid" 2>/dev/null || true
embedded_pid=

# -- 1b: three processes -----------------------------------------------------------------
TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh up 3 >"$out/cluster-up.log"
bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$out/cluster-up.log")
echo "cluster: $bootstrap" >&2
timeout 120 build/kafka_bench --bootstrap "$bootstrap" "${bench_args[@]}" \
  >"$out/cluster.out" 2>"$out/cluster.err" || echo "kafka_bench (cluster) exited with $?" >&2
TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh down >/dev/null

"$py" - "$out/embedded.out" "$out/cluster.out" "$seconds" <<'EOF'
import sys

def results(path):
    out = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RESULT":
            out[parts[1]] = float(parts[2])
    return out

embedded, cluster = results(sys.argv[1]), results(sys.argv[2])
rows = [("records/s", "produce_msgs_per_s", "{:,.0f}"), ("MB/s", "produce_mb_per_s", "{:.1f}"),
        ("p50 delivery latency (ms)", "produce_p50_ms", "{:.1f}"), ("p99 delivery latency (ms)", "produce_p99_ms", "{:.1f}"),
        ("failed records", "produce_failed", "{:.0f}")]
print(f"\nproduce, acks=all, RF 3, min.insync.replicas=2, 6 partitions, 100 B, {sys.argv[3]} s, one librdkafka producer (kafka_bench)\n")
print("| | embedded node (1 process, 3 brokers) | cluster (3 processes + ZooKeeper) | cluster / embedded |")
print("|---|---:|---:|---:|")
for label, key, fmt in rows:
    e, c = embedded.get(key), cluster.get(key)
    ratio = f"{c / e:.2f}" if e and c is not None else "n/a"
    cell = lambda v: fmt.format(v) if v is not None else "n/a"
    print(f"| {label} | {cell(e)} | {cell(c)} | {ratio} |")
EOF

# -- 2: failover against the session timeout ---------------------------------------------
echo >&2
"$py" bench/cluster/failover_bench.py build/troupe "$sessions" "$trials" 2>"$out/failover.err" | tee "$out/failover.out" | grep -v '^\[' || true
echo "raw outputs: $out" >&2
