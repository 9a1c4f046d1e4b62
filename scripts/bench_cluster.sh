#!/usr/bin/env bash
# Cluster benchmarks, printed as markdown tables (README "Several nodes");
# not tests.
#
#   1. produce, acks=all, replication factor 3, min.insync.replicas=2:
#      kafka_bench's produce workload (bench/kafka/kafka_bench.cpp, one
#      librdkafka producer) against three troupe processes and ZooKeeper
#      (scripts/cluster.sh) and against the embedded three-broker node, in
#      the same run with the same client settings;
#   1c. cold start of 10,000 consumer actors (stress_harness) in one
#      process against the embedded node in it, and against the cluster's
#      processes over CAF (--connect);
#   2. failover: kill -9 and SIGSTOP of a partition leader's node, and of
#      the active controller's node when it leads a partition, until the
#      first record acknowledged by the new leader, at troupe's broker
#      liveness defaults and at Kafka's KRaft settings in the same run
#      (bench/cluster/failover_bench.py);
#   3. reassignment: 64 MiB moved onto a fourth node and back, without a
#      throttle and at two --throttle rates, against the produce throughput
#      of an acks=all producer during the move (bench/cluster/reassign_bench.py).
#
#   scripts/bench_cluster.sh                       # ~30 minutes on 2 cores
#   BENCH_PRODUCE_SECONDS=10 BENCH_TRIALS=10 BENCH_FAULTS=kill9,sigstop \
#     scripts/bench_cluster.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${BENCH_PRODUCE_SECONDS:-10}
faults=${BENCH_FAULTS:-kill9,sigstop,kill9-controller,sigstop-controller}
trials=${BENCH_TRIALS:-10}
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
# The stress harness's embedded node joins groups without the initial
# rebalance delay; so do the cluster's nodes here.
TROUPE_CLUSTER_PROPERTIES="group.initial.rebalance.delay.ms=0" \
  TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh up 3 >"$out/cluster-up.log"
bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$out/cluster-up.log")
echo "cluster: $bootstrap" >&2
timeout 120 build/kafka_bench --bootstrap "$bootstrap" "${bench_args[@]}" \
  >"$out/cluster.out" 2>"$out/cluster.err" || echo "kafka_bench (cluster) exited with $?" >&2

# -- 1c: 10,000 consumer actors in this process against the cluster -------------
# The stress harness's cold start (the same consumer actors and typed
# messages) once against the embedded node in its own process and once with
# --connect against node 1 of the cluster over CAF's middleman.
members=${BENCH_MEMBERS:-10000}
groups=${BENCH_GROUPS:-100}
cport=$(sed -n 's/^node 1 .*cluster port \([0-9]*\).*/\1/p' "$out/cluster-up.log")
stress_args=(--members "$members" --groups "$groups" --scenario cold-start --timeout-seconds 120)
timeout 300 build/stress_harness "${stress_args[@]}" >"$out/stress-local.out" 2>&1 \
  || echo "stress_harness (one process) exited with $?" >&2
timeout 300 build/stress_harness "${stress_args[@]}" --connect "127.0.0.1:$cport" \
  >"$out/stress-remote.out" 2>&1 || echo "stress_harness (--connect) exited with $?" >&2
TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh down >/dev/null
echo
echo "cold start, $members consumer actors in $groups groups (stress_harness -s cold-start)"
echo
echo "| where the brokers are | stable p50 / p99 / max (ms) | after last join (ms) | ok |"
echo "|---|---|---|---|"
for run in local remote; do
  label="same process (embedded node)"
  [[ $run == remote ]] && label="3 other processes (cluster, over CAF)"
  awk -F'|' -v l="$label" '$2 ~ /cold-start/ {gsub(/^ +| +$/, "", $6); gsub(/^ +| +$/, "", $7); gsub(/^ +| +$/, "", $16); printf "| %s | %s | %s | %s |\n", l, $6, $7, $16; found=1} END {if (!found) printf "| %s | n/a | n/a | n/a |\n", l}' "$out/stress-$run.out"
done

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

# -- 2: failover: broker liveness at troupe's and Kafka's settings ------------------------
echo >&2
"$py" bench/cluster/failover_bench.py build/troupe "$trials" "$faults" 2>"$out/failover.err" | tee "$out/failover.out" | grep -v '^\[' || true

# -- 3: reassignment throughput with and without a throttle ------------------------------
echo >&2
"$py" bench/cluster/reassign_bench.py build/troupe "${BENCH_REASSIGN_MIB:-64}" \
  2>"$out/reassign.err" | tee "$out/reassign.out" | grep -v '^\[' || true
echo "raw outputs: $out" >&2
