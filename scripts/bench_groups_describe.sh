#!/usr/bin/env bash
# `troupe groups --describe` latency for one classic group of 10,000 real
# members over 1,000 partitions against a 10-member group over the same
# number of partitions (issue 22), printed as a markdown table; not a test.
#
# One cluster node with ZooKeeper (scripts/cluster.sh up 1, in a temporary
# TROUPE_CLUSTER_DIR) and two stress harnesses connected to it over CAF's
# middleman (--connect its troupe.cluster.port): one runs BENCH_MEMBERS
# consumer actors in one group, the other BENCH_BASE_MEMBERS, each on its
# own topic of BENCH_PARTITIONS partitions; after the cold start both hold
# the group (steady: heartbeats only, no committed offsets, so --offsets
# lists every assigned partition with CURRENT-OFFSET "-") while
# `troupe groups --list` (the floor of any run) and `troupe groups
# --describe` (the default --offsets, then --members, --members --verbose,
# --state) run BENCH_TRIALS times for each group, the two groups interleaved. Wall time of the whole command
# (process start to exit): p50, max, and the p50 ratio to the small group.
#
# The group's metadata record (every member's subscription and assignment)
# is about 1.5 MB at 10,000 members, above Kafka's default message.max.bytes
# of 1 MB for __consumer_offsets: with the default the coordinator cannot
# store it (MESSAGE_TOO_LARGE), fails the SyncGroup and the group never
# becomes stable (as Kafka's does). The node here runs with
# message.max.bytes=16777216.
#
#   scripts/bench_groups_describe.sh               # ~1 minute on 2 cores
#   BENCH_TRIALS=21 scripts/bench_groups_describe.sh
#   BENCH_NO_BUILD=1 ...                           # use build/ as it is
#   BENCH_BIN_DIR=DIR BENCH_NO_BUILD=1 ...         # binaries copied out of build/
#   BENCH_PERF=1 ...                               # also where the time goes:
#                                                  # the tool's CPU, the broker's
#                                                  # DescribeGroups answer, and
#                                                  # perf record -g data
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
members=${BENCH_MEMBERS:-10000}
base_members=${BENCH_BASE_MEMBERS:-10}
partitions=${BENCH_PARTITIONS:-1000}
trials=${BENCH_TRIALS:-15}
out=$(mktemp -d /tmp/troupe-bench-groups-XXXXXX)
py=/usr/bin/python3
bin=${BENCH_BIN_DIR:-build}

if [[ -z ${BENCH_NO_BUILD:-} ]]; then
  if [[ ! -f build/build.ninja ]]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log"
  fi
  cmake --build build -j "${BENCH_BUILD_JOBS:-2}" --target troupe stress_harness \
    >"$out/build.log" || { tail -n 30 "$out/build.log"; exit 1; }
fi

big_pid=
small_pid=
cleanup() {
  local p
  for p in $big_pid $small_pid; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh down >/dev/null 2>&1 || true
}
trap cleanup EXIT

TROUPE_CLUSTER_PROPERTIES="group.initial.rebalance.delay.ms=0 message.max.bytes=16777216" \
  TROUPE_BIN=$(cd "$bin" && pwd)/troupe TROUPE_CLUSTER_DIR=$out/cluster scripts/cluster.sh up 1 >"$out/cluster-up.log"
bootstrap=$(sed -n 's/^bootstrap.servers=//p' "$out/cluster-up.log")
cport=$(sed -n 's/^node 1 .*cluster port \([0-9]*\).*/\1/p' "$out/cluster-up.log")
echo "cluster node: Kafka $bootstrap, cluster port $cport, files in $out" >&2

# The harness names its group g0-<its pid> against a cluster.
harness_args=(--connect "127.0.0.1:$cport" -g 1 -p "$partitions"
              -s steady --steady-seconds 3600
              --session-timeout-ms 30000 --timeout-seconds 300)
"$bin"/stress_harness "${harness_args[@]}" -n "$members" >"$out/big.out" 2>&1 &
big_pid=$!
"$bin"/stress_harness "${harness_args[@]}" -n "$base_members" >"$out/small.out" 2>&1 &
small_pid=$!
big=g0-$big_pid
small=g0-$small_pid

# Steady: both harnesses are past the cold start.
for _ in $(seq 1 600); do
  if tr '\r' '\n' <"$out/big.out" | grep -q '^\[steady\]' \
     && tr '\r' '\n' <"$out/small.out" | grep -q '^\[steady\]'; then
    break
  fi
  kill -0 "$big_pid" 2>/dev/null || { tail -c 2000 "$out/big.out"; exit 1; }
  kill -0 "$small_pid" 2>/dev/null || { tail -c 2000 "$out/small.out"; exit 1; }
  sleep 0.5
done
sleep 2
for g in "$big" "$small"; do
  "$bin"/troupe groups --bootstrap-server "$bootstrap" --describe --group "$g" --state \
    | tee -a "$out/state.txt" >&2
done

# time_ms OUTFILE ARGS...: the command's wall time in ms on stdout.
time_ms() {
  local f=$1
  shift
  local t0=$EPOCHREALTIME
  "$bin"/troupe groups --bootstrap-server "$bootstrap" "$@" >"$f" 2>&1
  local t1=$EPOCHREALTIME
  "$py" -c "print(round(($t1 - $t0) * 1000, 1))"
}

# --list first: the floor of any `troupe groups` run (process start, one
# connection, ListGroups), whatever the group's size.
modes=("--list" "--describe" "--describe --members" "--describe --members --verbose" "--describe --state")
: >"$out/times.tsv"
: >"$out/lines.tsv"
m=0
for mode in "${modes[@]}"; do
  m=$((m + 1))
  if [[ $mode == --list ]]; then gb=(); gs=(); else gb=(--group "$big"); gs=(--group "$small"); fi
  # One untimed run each (connections, page cache).
  time_ms /dev/null $mode "${gb[@]}" >/dev/null
  time_ms /dev/null $mode "${gs[@]}" >/dev/null
  for i in $(seq 1 "$trials"); do
    printf '%s\tbig\t%s\n' "$mode" "$(time_ms "$out/mode$m-big.txt" $mode "${gb[@]}")" >>"$out/times.tsv"
    printf '%s\tsmall\t%s\n' "$mode" "$(time_ms "$out/mode$m-small.txt" $mode "${gs[@]}")" >>"$out/times.tsv"
  done
  lines_big=$(wc -l <"$out/mode$m-big.txt")
  lines_small=$(wc -l <"$out/mode$m-small.txt")
  printf '%s\tlines\t%s\t%s\n' "$mode" "$lines_big" "$lines_small" >>"$out/lines.tsv"
done

split=
if [[ -n ${BENCH_PERF:-} ]]; then
  # Where the time of one describe goes: the tool's own CPU (perf stat
  # task-clock), the broker's answer to DescribeGroups on a raw socket
  # (bench/kafka/describe_groups_rtt.py), and call graphs of the tool and
  # of the node (perf record -g) in perf data files.
  perf record -q -g -o "$out/perf-tool.data" "$bin"/troupe groups --bootstrap-server "$bootstrap" \
    --describe --members --group "$big" >/dev/null 2>"$out/perf-tool.log" || true
  node_pid=$(<"$out/cluster/node-1/troupe.pid")
  split=$out/split.tsv
  : >"$split"
  for who in big small; do
    g=$big
    [[ $who == small ]] && g=$small
    for mode in "--describe --members" "--describe --state"; do
      for i in 1 2 3 4 5; do
        perf stat -x, -e task-clock -o "$out/stat.txt" "$bin"/troupe groups --bootstrap-server "$bootstrap" \
          $mode --group "$g" >/dev/null
        printf '%s\t%s\ttool\t%s\n' "$mode" "$who" "$(awk -F, '/task-clock/{print $1}' "$out/stat.txt")" >>"$split"
      done
    done
    # The broker: DescribeGroups v0 on a raw socket, the response
    # counted, not decoded.
    printf 'rtt\t%s\t%s\n' "$who" "$("$py" bench/kafka/describe_groups_rtt.py "$bootstrap" "$g" 21)" >>"$split"
    # A call graph of the node over 20 describes --members in a row.
    perf record -q -F 4000 -g -p "$node_pid" -o "$out/perf-node-$who.data" -- sleep 4 2>/dev/null &
    perf_pid=$!
    sleep 0.3
    for i in $(seq 1 20); do
      "$bin"/troupe groups --bootstrap-server "$bootstrap" --describe --members --group "$g" >/dev/null
    done
    wait "$perf_pid" || true
  done
  echo "perf data: $out/perf-tool.data (the tool), $out/perf-node-big.data (the node, 20 describes --members of the big group)" >&2
fi

"$py" - "$out/times.tsv" "$out/lines.tsv" "$members" "$base_members" "$partitions" "$trials" "$split" <<'EOF'
import statistics, sys
times, lines = {}, {}
for line in open(sys.argv[1]):
    mode, who, ms = line.rstrip("\n").split("\t")
    times.setdefault(mode, {}).setdefault(who, []).append(float(ms))
for line in open(sys.argv[2]):
    mode, _, b, s = line.rstrip("\n").split("\t")
    lines[mode] = (int(b), int(s))
members, base, partitions, trials = sys.argv[3:7]
print("| command | %s members: p50 / max (ms) | %s members: p50 / max (ms) | p50 ratio | output lines |" % (members, base))
print("|---|---:|---:|---:|---:|")
for mode, t in times.items():
    b, s = t["big"], t["small"]
    pb, ps = statistics.median(b), statistics.median(s)
    cmd = "troupe groups %s" % mode + ("" if mode == "--list" else " --group G")
    print("| `%s` | %.1f / %.1f | %.1f / %.1f | %.1f | %d / %d |"
          % (cmd, pb, max(b), ps, max(s), pb / ps, lines[mode][0], lines[mode][1]))
print()
print("One classic group each (range assignor), %s partitions each, on one "
      "cluster node; members are stress_harness consumer actors over CAF "
      "(--connect), heartbeating every 3 s; %s trials per cell, the two "
      "groups interleaved; wall time of the whole `troupe groups` "
      "process." % (partitions, trials))
split = sys.argv[7] if len(sys.argv) > 7 else ""
if split:
    tool, rtt = {}, {}
    for line in open(split):
        f = line.rstrip("\n").split("\t")
        if f[0] == "rtt":
            rtt[f[1]] = (float(f[2]), float(f[3]), int(f[4]))
        else:
            tool.setdefault((f[0], f[1]), []).append(float(f[3]))
    print()
    print("Where the time goes (BENCH_PERF=1), ms")
    print()
    print("| | %s members | %s members |" % (members, base))
    print("|---|---:|---:|")
    for mode in ("--describe --members", "--describe --state"):
        print("| tool CPU, `%s` (task-clock, median of 5) | %.1f | %.1f |"
              % (mode, statistics.median(tool[(mode, "big")]),
                 statistics.median(tool[(mode, "small")])))
    print("| broker: DescribeGroups v0 send to last response byte, raw socket, not decoded (p50 / max of 21) | %.1f / %.1f | %.1f / %.1f |"
          % (rtt["big"][0], rtt["big"][1], rtt["small"][0], rtt["small"][1]))
    print("| DescribeGroups v0 response size (bytes) | %d | %d |" % (rtt["big"][2], rtt["small"][2]))
EOF
