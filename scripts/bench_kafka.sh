#!/usr/bin/env bash
# The Kafka client benchmark: the same librdkafka workloads (bench/kafka/
# kafka_bench.cpp) against `troupe --serve` and against librdkafka's
# in-process mock cluster, in one run, printed as one markdown table with the
# ratios troupe/mock. Then KIP-848's consumer group protocol against the same
# server: librdkafka 2.0.2 does not speak it, so @platformatic/kafka
# consumers (tests/kafka/platformatic/group_bench.mjs, npm, installed by
# scripts/setup.sh) take that row.
#
#   scripts/bench_kafka.sh                 # ~3-5 minutes on 2 cores
#   KAFKA_BENCH_ARGS="--produce-seconds 5 --consumers 10" scripts/bench_kafka.sh
#   KAFKA_BENCH_DEBUG=cgrp,protocol scripts/bench_kafka.sh   # librdkafka logs
#   KAFKA_BENCH_TROUPE=/path/to/troupe scripts/bench_kafka.sh # prebuilt server
#   KAFKA_BENCH_PREBUILT=1 KAFKA_BENCH_BUILD_DIR=build scripts/bench_kafka.sh
#
# Output: the table on stdout; raw outputs and the server log stay in
# $KAFKA_BENCH_OUT (default: a temporary directory, printed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${KAFKA_BENCH_BUILD_DIR:-build-kb}"
session_ms="${KAFKA_BENCH_SESSION_TIMEOUT_MS:-6000}"
heartbeat_ms="${KAFKA_BENCH_HEARTBEAT_INTERVAL_MS:-500}"
out="${KAFKA_BENCH_OUT:-$(mktemp -d /tmp/kafka-bench-XXXXXX)}"
mkdir -p "$out"

# -- build ---------------------------------------------------------------------
if [[ ! -f "$build_dir/build.ninja" && -z "${KAFKA_BENCH_PREBUILT:-}" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$out/configure.log"
fi
# KAFKA_BENCH_TROUPE=/path/to/troupe benchmarks that binary instead of
# building one (kafka_bench is built either way).
troupe="${KAFKA_BENCH_TROUPE:-}"
targets=(kafka_bench stress_harness)
if [[ -z "$troupe" ]]; then
  targets+=(troupe)
  troupe="$build_dir/troupe"
fi
# KAFKA_BENCH_PREBUILT=1: the build directory's binaries as they are.
if [[ -z "${KAFKA_BENCH_PREBUILT:-}" ]]; then
  cmake --build "$build_dir" -j "${KAFKA_BENCH_BUILD_JOBS:-2}" \
    --target "${targets[@]}" >"$out/build.log" \
    || { tail -n 30 "$out/build.log"; exit 1; }
fi
bench="$build_dir/kafka_bench"

# Both targets get the same client settings.
# shellcheck disable=SC2206
common=(--session-timeout-ms "$session_ms" --heartbeat-interval-ms "$heartbeat_ms"
        --partitions 100 --replication-factor 3 ${KAFKA_BENCH_ARGS:-})
if [[ -n "${KAFKA_BENCH_DEBUG:-}" ]]; then
  common+=(--debug "$KAFKA_BENCH_DEBUG")
fi

# -- troupe --------------------------------------------------------------------
# Three consecutive free ports: one Kafka listener per broker.
free_ports() {
  python3 - <<'PY'
import random, socket
for _ in range(200):
    base = random.randint(20000, 60000)
    socks = []
    try:
        for p in range(base, base + 3):
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            socks.append(s)
        print(base)
        break
    except OSError:
        pass
    finally:
        for s in socks:
            s.close()
PY
}
logs="$out/troupe-logs"
# Newer builds also serve an HTTP dashboard on a fixed port (8080); the
# benchmark wants the Kafka listeners alone, and no clash on that port.
extra=()
if "$troupe" --help 2>/dev/null | grep -q -- '--http-port'; then
  extra+=(--http-port 0)
fi
troupe_pid=
cleanup() {
  if [[ -n "$troupe_pid" ]]; then
    kill "$troupe_pid" 2>/dev/null || true
    wait "$troupe_pid" 2>/dev/null || true
    troupe_pid=
  fi
  rm -rf "$logs"
}
trap cleanup EXIT

# start_troupe LOG [--override k=v ...]: a fresh server on fresh ports.
start_troupe() {
  local log="$1"
  shift
  port=$(free_ports)
  "$troupe" --serve --log-level warn "${extra[@]}" \
    --override port="$port" --override "log.dirs=$logs" \
    --override group.initial.rebalance.delay.ms=0 \
    --override num.partitions=100 --override default.replication.factor=3 \
    --override group.consumer.min.heartbeat.interval.ms="$heartbeat_ms" \
    --override group.consumer.heartbeat.interval.ms="$heartbeat_ms" \
    "$@" >"$log" 2>&1 &
  troupe_pid=$!
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "troupe --serve on 127.0.0.1:$port..$((port + 2)) (pid $troupe_pid) $*" >&2
}

# KIP-848: 100 consumers on a 100-partition topic against the server
# started last; writes $1.
consumer_protocol_row() {
  local cp_dir=tests/kafka/platformatic
  if command -v node >/dev/null 2>&1 && [[ -d "$cp_dir/node_modules/@platformatic/kafka" ]]; then
    echo "consumer group protocol: @platformatic/kafka against troupe" >&2
    CP_BENCH_HEARTBEAT_INTERVAL_MS="$heartbeat_ms" timeout 180 node "$cp_dir/group_bench.mjs" \
      "127.0.0.1:$port,127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))" 100 100 \
      >"$1" 2>"$1.err" \
      || echo "group_bench.mjs against troupe exited with $?" >&2
    grep -E '^group' "$1" >&2 || true
  else
    echo "no node or no $cp_dir/node_modules: run scripts/setup.sh for the consumer-protocol row" >&2
    : >"$1"
  fi
}

start_troupe "$out/troupe.log"
timeout 240 "$bench" --bootstrap "127.0.0.1:$port" "${common[@]}" \
  >"$out/troupe.out" 2>"$out/troupe.err" \
  || echo "kafka_bench against troupe exited with $?" >&2
grep -E '^(produce|group)' "$out/troupe.out" >&2 || true
# The consumer protocol with Kafka 4.3's assignment batching (the default,
# group.consumer.assignment.interval.ms=1000) and without it (0: the
# assignor runs on every change, as in Kafka 4.0 to 4.2).
consumer_protocol_row "$out/cp.out"
cleanup
start_troupe "$out/troupe-cp0.log" --override group.consumer.assignment.interval.ms=0
consumer_protocol_row "$out/cp0.out"
cleanup
trap - EXIT

# -- librdkafka mock cluster ---------------------------------------------------
echo "librdkafka mock cluster (in-process, 3 brokers)" >&2
timeout 240 "$bench" --mock --mock-brokers 3 "${common[@]}" \
  >"$out/mock.out" 2>"$out/mock.err" \
  || echo "kafka_bench against the mock exited with $?" >&2
grep -E '^(produce|group)' "$out/mock.out" >&2 || true

# -- stress harness: 10,000 members, cold start and 10 % churn -----------------
# troupe's own consumer actors against the embedded node, in one process,
# with either group protocol (KIP-848: the coordinator's uniform assignor).
stress_members="${KAFKA_BENCH_STRESS_MEMBERS:-10000}"
for run in classic:1000 consumer:1000 consumer:0; do
  protocol=${run%%:*}
  interval=${run##*:}
  echo "stress harness: $stress_members members, group.protocol=$protocol," \
    "group.consumer.assignment.interval.ms=$interval" >&2
  timeout 400 "$build_dir/stress_harness" --members "$stress_members" --groups 1 \
    -s churn --group-protocol "$protocol" --heartbeat-interval-ms 3000 \
    --session-timeout-ms 30000 --timeout-seconds 120 \
    --assignment-interval-ms "$interval" \
    --json "$out/stress-$protocol-$interval.json" >"$out/stress-$protocol-$interval.out" 2>&1 \
    || echo "stress_harness ($protocol, $interval) exited with $?" >&2
done

# -- the table -----------------------------------------------------------------
python3 - "$out/troupe.out" "$out/mock.out" "$session_ms" "$heartbeat_ms" "$out/cp.out" \
  "$out/cp0.out" "$out/stress-classic-1000.json" "$out/stress-consumer-1000.json" \
  "$out/stress-consumer-0.json" <<'EOF'
import sys

def results(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "RESULT":
                out[parts[1]] = parts[2]
    return out

troupe, mock = results(sys.argv[1]), results(sys.argv[2])
session_ms, heartbeat_ms = int(sys.argv[3]), int(sys.argv[4])
cp = results(sys.argv[5])
cp0 = results(sys.argv[6])

def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

def cell(v, unit_fmt):
    if v is None:
        return "n/a"
    f = num(v)
    return unit_fmt.format(f) if f is not None else v

rows = [
    ("produce, acks=all, RF 3, 100 B: msgs/s", "produce_msgs_per_s", "{:,.0f}"),
    ("produce: MB/s", "produce_mb_per_s", "{:.2f}"),
    ("produce: p50 delivery latency (ms)", "produce_p50_ms", "{:.1f}"),
    ("produce: p99 delivery latency (ms)", "produce_p99_ms", "{:.1f}"),
]
for k in sorted({int(key.split("_")[1]) for key in list(troupe) + list(mock)
                 if key.startswith(("join_", "leave_"))}):
    rows.append((f"{k} consumers: subscribe to complete assignment (s)",
                 f"join_{k}_s", "{:.2f}"))
    rows.append((f"{k} consumers: one closes, survivors complete again (s)",
                 f"leave_{k}_s", "{:.2f}"))

print("| workload | troupe | librdkafka mock | troupe/mock |")
print("|---|---:|---:|---:|")
for label, key, fmt in rows:
    t, m = troupe.get(key), mock.get(key)
    tf, mf = num(t), num(m)
    ratio = f"{tf / mf:.2f}" if tf is not None and mf else "n/a"
    print(f"| {label} | {cell(t, fmt)} | {cell(m, fmt)} | {ratio} |")

print()
print("100 consumers, 100 partitions: classic against the consumer group "
      "protocol (KIP-848) against the mock, same run")
print()
print("| protocol | client | complete assignment after subscribe (s) "
      "| after the last member's first heartbeat (ms) "
      "| one leaves: complete again (s) |")
print("|---|---|---:|---:|---:|")
def sec(v):
    return cell(v, "{:.3f}")
print(f"| troupe, classic (initial delay 0) | librdkafka 2.0.2 | "
      f"{sec(troupe.get('join_100_s'))} | n/a | {sec(troupe.get('leave_100_s'))} |")
for label, c in (("assignment interval 1000 ms, Kafka 4.3's default", cp),
                 ("assignment interval 0, as Kafka 4.0-4.2", cp0)):
    print(f"| troupe, consumer (KIP-848, uniform, {label}) | @platformatic/kafka | "
          f"{sec(c.get('cp_join_100_s'))} | {cell(c.get('cp_after_last_hb_100_ms'), '{:.1f}')} | "
          f"{sec(c.get('cp_leave_100_s'))} |")
print(f"| librdkafka mock, classic | librdkafka 2.0.2 | "
      f"{sec(mock.get('join_100_s'))} | n/a | {sec(mock.get('leave_100_s'))} |")
print()
for label, c in (("1000 ms", cp), ("0", cp0)):
    after_hb, leave = num(c.get('cp_after_last_hb_100_ms')), num(c.get('cp_leave_100_s'))
    print(f"Targets (consumer protocol, assignment interval {label}): complete "
          "within 100 ms of the last member's first heartbeat: " +
          ("n/a" if after_hb is None else ("met" if after_hb <= 100 else "missed") + f" ({after_hb:.1f} ms)") +
          f"; within one heartbeat interval ({heartbeat_ms} ms) after a member leaves: " +
          ("n/a" if leave is None else ("met" if leave * 1000 <= heartbeat_ms else "missed") + f" ({leave * 1000:.0f} ms)") + ".")
print(f"troupe ran with group.consumer.heartbeat.interval.ms={heartbeat_ms} and "
      f"group.consumer.min.heartbeat.interval.ms={heartbeat_ms} (Kafka's default "
      "and minimum: 5000), the same interval the classic clients use.")
print()

import json
print(f"Stress harness (troupe's consumer actors, one group, one partition "
      "per member, heartbeat.interval.ms=3000, session.timeout.ms=30000): "
      "classic against the consumer group protocol")
print()
print("| scenario | protocol | assignment interval (ms) | members | stable after (ms) "
      "| after last join (ms) | partitions moved | CPU % | ok |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for path in sys.argv[7:10]:
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        print(f"| - | {path} | n/a | n/a | n/a | n/a | n/a | n/a | no output |")
        continue
    for r in doc["rows"]:
        stable = f"{r['max_ms']:,.0f}" if r["ok"] else "not stable in 120 s"
        last = f"{r['since_last_join_ms']:,.0f}" if r["since_last_join_ms"] > 0 else "-"
        moved = f"{r['moved_partitions']:,}" if r["moved_partitions"] >= 0 else "-"
        interval = doc.get("assignment_interval_ms", "n/a") if r["protocol"] == "consumer" else "-"
        print(f"| {r['scenario']} | {r['protocol']} | {interval} | {doc['members']:,} | {stable} | "
              f"{last} | {moved} | {r['cpu_percent']:.0f} | {'yes' if r['ok'] else 'no'} |")
print()

join_wait = 3000
leave_wait = session_ms - 1000 if session_ms > 1000 else session_ms
print()
print(f"Client settings on both: session.timeout.ms={session_ms}, "
      f"heartbeat.interval.ms={heartbeat_ms}, eager range/roundrobin assignor, "
      "one rd_kafka_t per consumer on its own thread; produce with "
      "queue.buffering.max.messages=20000, latency from enqueue to delivery "
      "report. troupe: group.initial.rebalance.delay.ms=0, 3 brokers in one "
      "process. Mock: rd_kafka_mock_cluster_new(rk, 3), in the benchmark's "
      "process; it acknowledges acks=all at once (no replication).")
print()
print("troupe's join times vary from run to run (about 0.1, 0.5 or 2 s): "
      "with group.initial.rebalance.delay.ms=0 the first consumer forms "
      "generation 1 alone, its SyncGroup then gets REBALANCE_IN_PROGRESS, and "
      "librdkafka sends at most one JoinGroup per second per consumer "
      "(rkcg_join_intvl, src/rdkafka_cgrp.c:5085 in 2.0.2), so that consumer "
      "rejoins 1-2 s later. Re-stabilisation (~0.5 s) is bounded by "
      "heartbeat.interval.ms: survivors learn of the rebalance from a "
      "Heartbeat answer.")
print()
print("Fixed waits in the mock's group coordinator (librdkafka 2.0.2, "
      "src/rdkafka_mock_cgrp.c, rd_kafka_mock_cgrp_rebalance()):")
print(f"- first join of an empty group: {join_wait} ms before the leader is "
      "elected, whatever the member count (line 387, 'same as "
      "group.initial.rebalance.delay.ms');")
print(f"- any later rebalance (member join, LeaveGroup, session timeout) from "
      f"state Up: session.timeout.ms - 1000 = {leave_wait} ms (lines 394-399); "
      "the Joining timer is never cut short when every member has rejoined;")
print("- 100 ms only when every member rejoined after a timed-out sync "
      "(state Rebalancing, line 392);")
print("- SyncGroup is answered as soon as the leader's SyncGroup arrives "
      "(sync_check, line 211): followers syncing after the leader get "
      "INVALID_REQUEST (check_state, lines 128-137), rejoin, and cost another "
      f"{leave_wait} ms round; session timeouts are scanned every 1 s "
      "(line 658).")
EOF
echo "raw outputs: $out" >&2
