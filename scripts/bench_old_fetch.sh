#!/usr/bin/env bash
# Fetch throughput of an old consumer against a current one (issue 22),
# printed as a markdown table; not a test.
#
# One `troupe serve` (the embedded node, three brokers) on free loopback
# ports and a temporary log.dirs; a topic of BENCH_PARTITIONS partitions
# (replication factor 1); bench/kafka/old_fetch_bench.cpp produces
# BENCH_RECORDS records of BENCH_RECORD_BYTES bytes once, then reads them
# all from offset 0 with Fetch v0, v1, v3 (message sets converted down from
# the stored RecordBatch v2), v4 and v12 (the stored batches), the
# versions interleaved, BENCH_RUNS rounds; medians, and the median of each
# round's ratio to v12.
#
#   scripts/bench_old_fetch.sh                     # ~1 minute on 2 cores
#   BENCH_RECORDS=200000 BENCH_RUNS=7 scripts/bench_old_fetch.sh
#   BENCH_NO_BUILD=1 ...                           # use build/ as it is
#   BENCH_BIN_DIR=DIR BENCH_NO_BUILD=1 ...         # binaries copied out of build/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
records=${BENCH_RECORDS:-200000}
record_bytes=${BENCH_RECORD_BYTES:-100}
partitions=${BENCH_PARTITIONS:-4}
runs=${BENCH_RUNS:-5}
py=/usr/bin/python3
bin=${BENCH_BIN_DIR:-build}
out=$(mktemp -d /tmp/troupe-bench-old-fetch-XXXXXX)

if [[ -z ${BENCH_NO_BUILD:-} ]]; then
  if [[ ! -f build/build.ninja ]]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log"
  fi
  cmake --build build -j "${BENCH_BUILD_JOBS:-2}" --target troupe old_fetch_bench \
    >"$out/build.log" || { tail -n 30 "$out/build.log"; exit 1; }
fi

pid=
cleanup() {
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

port=$("$py" -c "import sys; sys.path.insert(0, 'tests/lib'); from ports import free_port_range; print(free_port_range(4))")
"$bin"/troupe serve --http-port $((port + 3)) --http-bind 127.0.0.1 \
  --override port="$port" --override "log.dirs=$out/logs" \
  >"$out/troupe.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q "Kafka listeners on $port" "$out/troupe.log" 2>/dev/null \
    && (exec 3<>"/dev/tcp/127.0.0.1/$((port + 2))") 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { tail -n 20 "$out/troupe.log"; exit 1; }
  sleep 0.1
done
bootstrap=127.0.0.1:$port
"$bin"/troupe topics --bootstrap-server "$bootstrap" --create --topic old-fetch-bench \
  --partitions "$partitions" --replication-factor 1 >"$out/create.log"
sleep 1
echo "troupe serve on $bootstrap (pid $pid), files in $out" >&2
"$bin"/old_fetch_bench --bootstrap-server "$bootstrap" --topic old-fetch-bench \
  --records "$records" --record-bytes "$record_bytes" --runs "$runs" \
  2> >(tee "$out/bench.err" >&2)
