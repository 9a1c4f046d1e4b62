#!/usr/bin/env bash
# Broker failure as clients see it: a steady librdkafka producer (acks=all)
# and a consumer group against `troupe serve` (RF 3, min.insync.replicas=2)
# while each broker in turn is stopped and started through the admin route
# (bench/kafka/failover_bench.cpp). Prints one markdown table.
#
#   scripts/bench_failover.sh                  # ~1.5 minutes
#   FAILOVER_RATE=5000 FAILOVER_STOP_S=5 scripts/bench_failover.sh
#   FAILOVER_TROUPE=/path/to/troupe scripts/bench_failover.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${FAILOVER_BUILD_DIR:-build}"
out="${FAILOVER_OUT:-$(mktemp -d /tmp/failover-bench-XXXXXX)}"
mkdir -p "$out"
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$out/configure.log"
fi
troupe="${FAILOVER_TROUPE:-}"
targets=(failover_bench)
if [[ -z "$troupe" ]]; then
  targets+=(troupe)
  troupe="$build_dir/troupe"
fi
cmake --build "$build_dir" -j "${FAILOVER_BUILD_JOBS:-2}" \
  --target "${targets[@]}" >"$out/build.log" \
  || { tail -n 30 "$out/build.log"; exit 1; }

# Three consecutive free ports for the Kafka listeners, one for HTTP.
read -r port http <<<"$(python3 - <<'EOF'
import random, socket
def free(ports):
    socks = []
    try:
        for p in ports:
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        return True
    except OSError:
        return False
    finally:
        for s in socks: s.close()
while True:
    base = random.randint(20000, 60000)
    if free(range(base, base + 4)):
        print(base, base + 3); break
EOF
)"
admin=()
if "$troupe" --help 2>/dev/null | grep -q troupe.http.admin.enable; then
  admin=(--override troupe.http.admin.enable=true)
fi
logs="$out/troupe-logs"
"$troupe" serve --log-level warn --http-port "$http" "${admin[@]}" \
  --override port="$port" --override "log.dirs=$logs" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions=6 --override default.replication.factor=3 \
  --override min.insync.replicas=2 \
  >"$out/troupe.log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$logs"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$http") 2>/dev/null; then break; fi
  sleep 0.1
done

echo "troupe serve: Kafka 127.0.0.1:$port..$((port + 2)), HTTP $http (pid $pid)" >&2
timeout 300 "$build_dir/failover_bench" \
  "127.0.0.1:$port,127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))" "$http" \
  failover "${FAILOVER_RATE:-2000}" "${FAILOVER_STOP_S:-4}" \
  "${FAILOVER_RECOVER_S:-8}" 3 >"$out/bench.out" 2>"$out/bench.err"
grep '^|' "$out/bench.out"
echo "raw output and server log: $out" >&2
